"""The plan pages: workloads, plans with their ranking, and the exports of a plan."""
