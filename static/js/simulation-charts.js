// Charts of a finished simulation, drawn from the result the page embeds with json_script
// ("simulation-result") and the translated titles beside it ("simulation-chart-labels"). The
// tables on the page carry the same numbers, so nothing is lost without JavaScript. Runs on load
// and again when htmx swaps a result in (the progress poll delivers it out of band).
(function () {
  "use strict";
  const DAY_S = 86400;
  const MINUTE_S = 60;

  const { json, axis, draw } = window.flopfitCharts;

  function marker(label, x, y, color, style) {
    return { label: label, data: [{ x: x, y: y }], pointRadius: 7, pointStyle: style,
             backgroundColor: color, borderColor: color };
  }

  // Linear interpolation of the curve (sorted by x) at x.
  function at(curve, x) {
    for (let i = 1; i < curve.length; i++) {
      const a = curve[i - 1], b = curve[i];
      if (x <= b.x) return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x);
    }
    return curve[curve.length - 1].y;
  }

  function training(r, t) {
    const edges = r.histogram.days_edges;
    draw("chart-completion", {
      type: "bar",
      data: {
        labels: r.histogram.counts.map((_, i) => ((edges[i] + edges[i + 1]) / 2).toFixed(3)),
        datasets: [{ label: t.trials, data: r.histogram.counts,
                     barPercentage: 1, categoryPercentage: 1 }],
      },
      options: { plugins: { legend: { display: false } },
                 scales: { x: axis(t.completionDays), y: axis(t.trials, { beginAtZero: true }) } },
    });
    const grid = r.interval_grid;
    if (!grid || !grid.interval_s || !grid.interval_s.length) return;
    const curve = grid.interval_s.map((s, i) => ({ x: s / MINUTE_S, y: grid.mean_completion_s[i] / DAY_S }));
    const datasets = [{ label: t.meanCompletionDays, data: curve, showLine: true, pointRadius: 0,
                        borderColor: "#0b63c5", backgroundColor: "#0b63c5" }];
    if (r.young_daly_interval_s) {
      const x = r.young_daly_interval_s / MINUTE_S;
      datasets.push(marker(t.youngDaly, x, at(curve, x), "#e36209", "triangle"));
    }
    if (r.best_interval_s) {
      datasets.push(marker(t.best, r.best_interval_s / MINUTE_S, r.best_completion_s / DAY_S,
                           "#1a7f37", "rectRot"));
    }
    draw("chart-interval", {
      type: "scatter",
      data: { datasets: datasets },
      options: { scales: { x: axis(t.intervalMinutes, { type: "logarithmic" }),
                           y: axis(t.meanCompletionDays) } },
    });
  }

  function serving(r, t) {
    const measures = ["ttft_ms", "tpot_ms", "e2e_ms"];
    draw("chart-latency", {
      type: "bar",
      data: {
        labels: [t.ttft, t.tpot, t.e2e],
        datasets: ["p50", "p90", "p99"].map((p) => ({ label: p, data: measures.map((m) => r[m][p]) })),
      },
      options: { scales: { y: axis(t.latencyMs, { type: "logarithmic" }) } },
    });
    const q = r.queue;
    const series = (values) => values.map((v, i) => ({ x: q.t_s[i], y: v }));
    draw("chart-queue", {
      type: "line",
      data: { datasets: [
        { label: t.waiting, data: series(q.waiting), pointRadius: 0, borderWidth: 1.5 },
        { label: t.running, data: series(q.running), pointRadius: 0, borderWidth: 1.5 },
      ] },
      options: { scales: { x: axis(t.timeS, { type: "linear" }),
                           y: axis(t.requests, { beginAtZero: true }) } },
    });
    const search = r.replica_search;
    if (!search || !search.tried.length) return;
    const tried = search.tried.map((row) => ({ x: row.replicas, y: 100 * row.attainment }))
      .sort((a, b) => a.x - b.x);
    draw("chart-replicas", {
      type: "scatter",
      data: { datasets: [{ label: t.attainmentPercent, data: tried, showLine: true, pointRadius: 5 }] },
      options: { plugins: { legend: { display: false } },
                 scales: { x: axis(t.replicas, { ticks: { precision: 0 } }),
                           y: axis(t.attainmentPercent, { suggestedMin: 0, suggestedMax: 100 }) } },
    });
  }

  function drawResult() {
    const result = json("simulation-result");
    const labels = json("simulation-chart-labels");
    // A sweep's comparison is a table; each build's own page has its charts.
    if (!result || !labels || !window.Chart || result.kind === "sweep") return;
    (result.kind === "training" ? training : serving)(result, labels);
  }

  document.addEventListener("DOMContentLoaded", drawResult);
  document.addEventListener("htmx:load", drawResult);
})();
