// Charts of a calibration profile, drawn from the rows the page embeds with json_script
// ("calibration-chart-data") and the translated titles beside it ("calibration-chart-labels").
// The table on the page carries the same numbers, so nothing is lost without JavaScript.
(function () {
  "use strict";
  const COLORS = { measured: "#0b63c5", datasheet: "#8c959f", engine: "#e36209", calibrated: "#1a7f37" };

  const { json, axis, draw } = window.flopfitCharts;

  function grouped(id, series, keys, t, xTitle, yTitle) {
    if (!series || !series.labels.length) return;
    draw(id, {
      type: "bar",
      data: {
        labels: series.labels,
        datasets: keys.map((key) => ({
          label: t[key], data: series[key], backgroundColor: COLORS[key], borderColor: COLORS[key],
        })),
      },
      options: { scales: { x: axis(xTitle), y: axis(yTitle, { beginAtZero: true }) } },
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
