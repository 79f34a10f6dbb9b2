// A plan's charts, drawn from what the results partial embeds with json_script: the builds'
// cost against time (or serving capacity) with the Pareto front highlighted
// ("plan-chart-data"), and the five scores of the top builds; the translated titles sit
// beside them ("plan-chart-labels"). The ranking table carries the same numbers, so nothing is
// lost without JavaScript. Runs on load and again whenever htmx swaps a new ranking in (the
// weight sliders); the charts of the ranking being replaced are destroyed first.
// Also: each weight slider shows its value as it moves, and [data-print] buttons print.
(function () {
  "use strict";
  const FRONT = "#0b63c5";
  const OTHERS = "rgba(91, 101, 120, .45)";
  // One colour per dimension, in DIMENSIONS order.
  const DIMENSION_COLOURS = ["#0b63c5", "#8250df", "#e36209", "#1a7f37", "#d4a72c"];

  const { json, axis, draw } = window.flopfitCharts;

  function pareto(data, t) {
    const point = (p) => ({ x: p.x, y: p.y, label: p.label });
    const front = data.points.filter((p) => p.front).map(point).sort((a, b) => a.x - b.x);
    const others = data.points.filter((p) => !p.front).map(point);
    draw("chart-pareto", {
      type: "scatter",
      data: {
        datasets: [
          { label: t.front, data: front, showLine: true, pointRadius: 5, borderColor: FRONT,
            backgroundColor: FRONT, stepped: false },
          { label: t.others, data: others, pointRadius: 3, borderColor: OTHERS,
            backgroundColor: OTHERS },
        ],
      },
      options: {
        plugins: {
          tooltip: {
            callbacks: {
              label: (item) => item.raw.label + ": " + item.formattedValue,
            },
          },
        },
        scales: {
          x: axis(t.x, { type: "linear" }),
          y: axis(t.y, { beginAtZero: false }),
        },
      },
    });
  }

  function scores(data, t) {
    if (!data.scores.length) return;
    draw("chart-scores", {
      type: "bar",
      data: {
        labels: data.scores.map((s) => s.label),
        datasets: t.dimensions.map((name, i) => ({
          label: name,
          data: data.scores.map((s) => s.data[i]),
          backgroundColor: DIMENSION_COLOURS[i % DIMENSION_COLOURS.length],
        })),
      },
      options: {
        scales: {
          x: { ticks: { autoSkip: false, maxRotation: 30, minRotation: 0 } },
          y: axis(t.score, { min: 0, max: 100 }),
        },
      },
    });
  }

  function drawCharts() {
    const data = json("plan-chart-data");
    const labels = json("plan-chart-labels");
    if (!data || !labels || !window.Chart) return;
    if (data.points.length) pareto(data, labels);
    scores(data, labels);
  }

  function destroyCharts(root) {
    if (!window.Chart || !root) return;
    root.querySelectorAll("canvas").forEach((canvas) => {
      const chart = window.Chart.getChart(canvas);
      if (chart) chart.destroy();
    });
  }

  function showSliderValues(root) {
    root.querySelectorAll("input[type=range]").forEach((input) => {
      const output = document.getElementById(input.id + "-value");
      if (!output || input.dataset.watched) return;
      input.dataset.watched = "1";
      input.addEventListener("input", () => { output.value = input.value; });
    });
  }

  function bindPrint(root) {
    root.querySelectorAll("[data-print]").forEach((button) => {
      button.addEventListener("click", () => window.print());
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    drawCharts();
    showSliderValues(document);
    bindPrint(document);
  });
  document.addEventListener("htmx:beforeSwap", (event) => destroyCharts(event.detail.target));
  document.addEventListener("htmx:load", drawCharts);
})();
