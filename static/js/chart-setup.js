// What the chart scripts share (plan-charts.js, simulation-charts.js, calibration-chart.js), as
// window.flopfitCharts: the data a page embeds with json_script, an axis with its title, and a
// chart drawn once per canvas with the options every chart here takes. Pages load it first.
(function () {
  "use strict";

  function json(id) {
    const element = document.getElementById(id);
    return element ? JSON.parse(element.textContent) : null;
  }

  function axis(text, extra) {
    return Object.assign({ title: { display: true, text: text } }, extra);
  }

  function draw(id, config) {
    const canvas = document.getElementById(id);
    if (!canvas || canvas.dataset.drawn) return;
    canvas.dataset.drawn = "1";
    config.options = Object.assign(
      { responsive: true, maintainAspectRatio: false, animation: false },
      config.options
    );
    new window.Chart(canvas, config);
  }

  window.flopfitCharts = { json: json, axis: axis, draw: draw };
})();
