"""Human-readable summaries of an estimate and of a rack fit, for terminals."""


def estimate_table(answer: dict) -> str:
    mem, par, thr, tim, inf, eta = (
        answer[k]
        for k in ("memory", "parallelism", "throughput", "time", "inference", "efficiency")
    )
    lines = [
        f"memory per device   {mem['per_device_gib']:>10.2f} GiB of {mem['capacity_gib']:g}"
        f"  ({'fits' if mem['fits'] else 'DOES NOT FIT'})",
    ]
    for key in ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead"):
        lines.append(f"  {key:<17} {mem[key + '_gib']:>10.2f} GiB")
    lines.append(
        f"parallelism         tp {par['tp']}  pp {par['pp']}  dp {par['dp']}  micro-batch "
        f"{par['micro_batch']}  ZeRO {par['zero_stage']}  recompute {par['recompute']}"
    )
    lines.append(
        f"throughput          {thr['tokens_per_s']:>14,.0f} tokens/s ({thr['tokens_per_s_per_device']:,.0f} per device)"
    )
    lines.append(
        f"model TFLOP/s       {thr['model_tflops_per_device']:>10.1f} per device, MFU {100 * thr['mfu']:.1f} %"
    )
    if batch := answer.get("batch"):
        lines.append(
            f"global batch        {batch['global_batch']:>10,} sequences, "
            f"{batch['tokens_per_step'] / 2**20:.3g}M tokens a step "
            f"({'chosen with the layout' if batch['chosen'] else 'as given'})"
        )
    if inf["tpot_ms"]:
        lines.append(f"TTFT / TPOT         {inf['ttft_ms']:>10.1f} ms / {inf['tpot_ms']:.2f} ms")
    lines.append(f"time                {tim['days']:>10.2f} days ({tim['seconds']:,.0f} s)")
    lines.append("efficiency          " + "  ".join(f"{k} {v:.3f}" for k, v in eta.items()))
    lines.append(f"bottleneck          {answer['bottleneck']}")
    lines.extend(f"warning: {w}" for w in answer["warnings"])
    return "\n".join(lines)


def fit_table(answer: dict) -> str:
    """The answer for a terminal."""
    limits = answer["limits"]
    racks = answer["racks_needed"]
    cost = answer["yearly_energy_cost"]
    lines = [
        f"servers per rack    {answer['servers_per_rack']:>10}  (binding: {answer['binding']})",
        "  limits            "
        + "  ".join(f"{k} {'-' if v is None else v}" for k, v in limits.items()),
        f"racks needed        {'cannot be hosted' if racks is None else f'{racks:>10}'}",
        f"IT power            {answer['it_power_kw']:>10,.1f} kW",
        f"facility power      {answer['facility_power_kw']:>10,.1f} kW",
        f"energy per year     {answer['yearly_energy_kwh']:>10,.0f} kWh",
    ]
    if cost is not None:
        lines.append(f"energy cost/year    {cost:>10,.0f}")
    lines.append(f"eta_thermal         {answer['eta_thermal']:>10.3f}")
    lines.extend(f"warning: {w}" for w in answer["warnings"])
    return "\n".join(lines)
