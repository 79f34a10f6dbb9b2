// Charts of a calibration profile, drawn from the rows the page embeds with json_script
// ("calibration-chart-data") and the translated titles beside it ("calibration-chart-labels").
// The table on the page carries the same numbers, so nothing is lost without JavaScript.
(function () {
  "use strict";
  const COLORS = { measured: "#0b63c5", datasheet: "#8c959f", engine: "#e36209", calibrated: "#1a7f37" };

  function json(id) {
    const element = document.getElementById(id);
    return element ? JSON.parse(element.textContent) : null;
  }

  function axis(text, extra) {
    return Object.assign({ title: { display: true, text: text } }, extra);
  }

  function grouped(id, series, keys, t, xTitle, yTitle) {
    const canvas = document.getElementById(id);
    if (!canvas || canvas.dataset.drawn || !series || !series.labels.length) return;
    canvas.dataset.drawn = "1";
    new window.Chart(canvas, {
      type: "bar",
      data: {
        labels: series.labels,
        datasets: keys.map((key) => ({
          label: t[key], data: series[key], backgroundColor: COLORS[key], borderColor: COLORS[key],
        })),
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        scales: { x: axis(xTitle), y: axis(yTitle, { beginAtZero: true }) },
      },
    });
  }

  function drawAll() {
    const data = json("calibration-chart-data");
    const t = json("calibration-chart-labels");
    if (!data || !t || !window.Chart) return;
    grouped("chart-matmul", data.matmul, ["measured", "datasheet", "engine"], t, t.precision, t.tflops);
    grouped("chart-steps", data.training, ["measured", "engine", "calibrated"], t, t.step, t.tokensPerS);
  }

  document.addEventListener("DOMContentLoaded", drawAll);
})();
