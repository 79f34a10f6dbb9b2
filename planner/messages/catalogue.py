"""Every message code the engine says, with its English template. The templates are in the
translation catalogue (`make messages`); tests/planner/test_messages.py checks that each has a
Chinese translation and that every code the engine uses is here.

Placeholders take Python's format specs (a template with a literal % is marked
`xgettext:no-python-format`, so the catalogue does not read it as a %-format); numbers are written with the reader's separators. A
list placeholder is joined: `{options:or}` with "or", `{notes:semicolon}` with semicolons,
otherwise with commas."""

from django.utils.translation import gettext_noop as _


class Plural(str):
    """A template said in the plural (the string itself) and in the singular (`one`), the form
    picked by the figure `count` as the language counts (ngettext: English has two forms,
    Chinese one)."""

    one: str
    count: str


def plural(one: str, other: str, count: str) -> Plural:
    """A template with a singular form; `make messages` extracts both as one plural entry
    (planner/management/commands/makemessages.py marks `plural` as a keyword)."""
    template = Plural(other)
    template.one, template.count = one, count
    return template


TEMPLATES: dict[str, str] = {
    # Estimate: the eta factors' explanations.
    "eta_mem.training": _(
        # xgettext:no-python-format
        "{compute_percent:.0f} % of on-device time runs at the compute roofline; the rest waits "
        "on memory bandwidth (norms, activations, optimizer, small matrices)."
    ),
    "eta_mem.decode": _(
        # xgettext:no-python-format
        "Each decode step streams the weights and the KV cache once for the whole batch; the "
        "math takes {compute_percent:.0f} % of the step, the rest waits on memory."
    ),
    "eta_interconnect.training": _(
        # xgettext:no-python-format
        "Tensor-parallel collectives on the scale-up link and exposed data-parallel, pipeline and "
        "expert traffic take {percent:.0f} % of the step."
    ),
    "eta_interconnect.decode": plural(
        # xgettext:no-python-format
        "Two all-reduces per layer across {devices} device take {percent:.0f} % of a decode step.",
        "Two all-reduces per layer across {devices} devices take {percent:.0f} % of a decode step.",
        "devices",
    ),
    "eta_sched.training": _(
        # xgettext:no-python-format
        "The pipeline bubble, (p-1)/v of a stage per step with p={pp}, v={vp} and "
        "{micro_batches:.0f} micro-batches, idles {percent:.1f} % of the step."
    ),
    "eta_sched.decode": _(
        "A fixed batch decoded together; queueing and continuous batching are the serving "
        "simulation's job."
    ),
    # Estimate: the software stack the answer is for.
    "stack.given": _(
        "Figures for {framework}, {compile}, parameters stored in "
        "{param_dtype}, as the question says."
    ),
    "stack.default.serving": _(
        "Figures for {framework}, {compile}: no framework was given, and "
        "serving engines run decode as CUDA graphs with fused kernels."
    ),
    "stack.default.pretraining": _(
        "Figures for {framework}, {compile}, parameters stored in "
        "{param_dtype}: no framework was given, and pre-training runs on Megatron-style fused "
        "kernels."
    ),
    "stack.default.finetune_few": plural(
        "Figures for {framework}, {compile}, parameters stored in "
        "{param_dtype}: no framework was given, and fine-tuning on {devices} device is "
        "usually a Hugging Face script running eager PyTorch.",
        "Figures for {framework}, {compile}, parameters stored in "
        "{param_dtype}: no framework was given, and fine-tuning on {devices} devices is "
        "usually a Hugging Face script running eager PyTorch.",
        "devices",
    ),
    "stack.default.finetune_many": _(
        "Figures for {framework}, {compile}, parameters stored in "
        "{param_dtype}: no framework was given, and fine-tuning on {devices} devices, more "
        "than one server, runs on Megatron-style fused kernels."
    ),
    "stack.compile_on": _("torch.compile on"),
    "stack.compile_off": _("torch.compile off"),
    "eta_thermal.consumer": _(
        # xgettext:no-python-format
        "Open-air or blower consumer cooling cannot hold boost clocks under sustained load in a "
        "server chassis: {lower_percent:.0f} % lower clocks assumed."
    ),
    "eta_thermal.datacentre": _("Data-centre cooling holds sustained clocks; no thermal derating."),
    "eta_fault.serving": _(
        "Serving restarts a replica without losing a job's progress; not counted."
    ),
    "eta_fault.none": _("No failures assumed."),
    "eta_fault.training": plural(
        # xgettext:no-python-format
        "{devices} device at {failures_per_gpu_hour:g} failures per GPU-hour fails every "
        "{mtbf_h:.1f} h; {checkpoint_s:.0f} s checkpoints, written at {checkpoint_gb_s:.0f} GB/s, "
        "every {interval_min:.0f} min "
        "(Young/Daly) plus {restart_min:.0f} min restarts lose {lost_percent:.1f} % of wall time.",
        "{devices} devices at {failures_per_gpu_hour:g} failures per GPU-hour fail every "
        "{mtbf_h:.1f} h; {checkpoint_s:.0f} s checkpoints, written at {checkpoint_gb_s:.0f} GB/s, "
        "every {interval_min:.0f} min "
        "(Young/Daly) plus {restart_min:.0f} min restarts lose {lost_percent:.1f} % of wall time.",
        "devices",
    ),
    "override": _("{factor} set to {value:g} by the request (computed {computed:.3f})."),
    # Estimate: the global batch, given or chosen (M tokens counts 2^20, as the papers do).
    "batch.given": _(
        "{sequences:,} sequences of {seq_len:,} tokens ({tokens_m:.3g}M tokens) a step, as the "
        "question gives."
    ),
    "batch.chosen.pretraining": _(
        "{sequences:,} sequences of {seq_len:,} tokens ({tokens_m:.3g}M tokens) a step: the "
        "fastest that fits of {searched} sequences, within {low_m:.3g}M-{high_m:.3g}M tokens a "
        "step, the range for models of {params_b:.3g}B parameters in published runs: "
        "{sources:semicolon}. Give global_batch to fix another."
    ),
    "batch.chosen.finetune": _(
        "{sequences:,} sequences a step: the fastest that fits of {searched} sequences, within "
        "the {low:,}-{high:,} sequences supervised fine-tuning uses whatever the model's size: "
        "{sources:semicolon}. Give global_batch to fix another."
    ),
    "batch.source.gpt3": _(
        "GPT-3: 0.5M tokens at 125M-760M parameters, 1M at 1.3B-2.7B, 2M at 6.7B-13B, 3.2M at "
        "175B (Brown et al. 2020, Table 2.1)"
    ),
    "batch.source.kaplan": _(
        "the critical batch grows as the loss falls, about 1-2M tokens at convergence for "
        "1.5B-parameter models (Kaplan et al. 2020, section 1.1; McCandlish et al. 2018)"
    ),
    "batch.source.llama2": _("Llama 2 7B-70B: 4M tokens (Touvron et al. 2023, Table 1)"),
    "batch.source.chinchilla": _(
        "Chinchilla 70B: 1.5M then 3M tokens; Gopher 280B: 3M then 6M (Hoffmann et al. 2022, "
        "Table 4)"
    ),
    "batch.source.llama3": _(
        "Llama 3 405B: 4M tokens in sequences of 4,096, then 8M in sequences of 8,192, then 16M "
        "(Dubey et al. 2024, section 3.4.1)"
    ),
    "batch.source.llama2_chat": _(
        "Llama 2-Chat supervised fine-tuning: 64 sequences of 4,096 tokens (Touvron et al. "
        "2023, section 3.1)"
    ),
    "batch.source.alpaca": _("Alpaca: 128 sequences (Taori et al. 2023)"),
    # Estimate: what binds, warnings, what was measured.
    "bottleneck.compute": _("compute"),
    "bottleneck.memory_bandwidth": _("memory bandwidth"),
    "bottleneck.scale_up_link": _("scale-up link"),
    "bottleneck.fabric": _("fabric"),
    "bottleneck.pipeline_bubble": _("pipeline bubble"),
    "bottleneck.memory_capacity": _("memory capacity"),
    "warning.years": plural(
        "Processing {tokens:.3g} tokens takes {years:.1f} years on {devices} device.",
        "Processing {tokens:.3g} tokens takes {years:.1f} years on {devices} devices.",
        "devices",
    ),
    "inference.tp_spans_servers": _(
        "Tensor parallelism over {tp} devices spans servers of {per_node}: its all-reduces cross "
        "the scale-out network every layer."
    ),
    "inference.tp_poor_choice": _(
        "Tensor parallelism {tp}, as the question fixes it, decodes {tokens_per_s:,.0f} tokens/s "
        "on these devices; groups of {better_tp} would decode {better_tokens_per_s:,.0f}."
    ),
    "warning.consumer_cards": _(
        "Consumer cards lack ECC and data-centre cooling; expect throttling and silent errors on "
        "long runs."
    ),
    "measured.gemm_efficiency": _("{precision} matrix-multiply efficiency"),
    "measured.memory_bw_efficiency": _("memory bandwidth efficiency"),
    "measured.scale_up_efficiency": _("scale-up link efficiency"),
    "measured.step_efficiency": _("end-to-end step efficiency"),
    # Estimate: a job that does not fit, and the single changes that would make it fit.
    "fit.does_not_fit.would_fit": _(
        "Needs {need_gib:.1f} GiB per device, {over_gib:.1f} GiB more than the {capacity_gib:g} "
        "GiB available; it would fit with {options:or}."
    ),
    "fit.does_not_fit.none_alone": _(
        "Needs {need_gib:.1f} GiB per device, {over_gib:.1f} GiB more than the {capacity_gib:g} "
        "GiB available; none of {options} alone makes it fit."
    ),
    "fit.option.quantised_weights": _("{precision} weights"),
    "fit.option.fp8_kv_cache": _("an fp8 KV cache"),
    "fit.option.half_the_batch": _("half the batch"),
    "fit.option.twice_the_devices": _("twice the devices"),
    "fit.option.full_recompute": _("full recompute"),
    "fit.option.zero3": _("ZeRO-3 / FSDP"),
    "fit.option.method": _("{method}"),
    # Facility fit.
    "fit.thermal_risk": _(
        "thermal risk: open-air fans recirculate hot air in a closed chassis; expect throttling"
    ),
    "fit.cooling_type": _(
        "cooling type: the server is liquid-cooled and this rack has no liquid loops"
    ),
    "fit.power_estimated": _(
        "power estimated: {power_kw:.2f} kW per server is derived, not published; use a measured "
        "or vendor figure"
    ),
    "fit.power_estimated.how": _(
        "power estimated: {power_kw:.2f} kW per server is derived, not published ({how}); use a "
        "measured or vendor figure"
    ),
    "fit.weight_unknown": _("weight unknown: the rack's weight limit was not checked"),
    "fit.feeds_2n": _(
        "2N feeds: each feed must carry the whole load, so {power_kw:g} kW per feed is the budget"
    ),
    "fit.inlet_above_rating": _(
        "inlet above rating: {inlet_c:g} °C inlet air is over the server's {rating_c:g} °C "
        "rating; expect lower clocks"
    ),
    "fit.cannot_be_hosted": _("cannot be hosted: no server fits in this rack (binding: {binding})"),
    "binding.power": _("power"),
    "binding.cooling": _("cooling"),
    "binding.units": _("units"),
    "binding.weight": _("weight"),
    "binding.cooling_type": _("cooling type"),
    "power_note.base_plus_cards": _(
        "{base_w:g} W platform load + {count} x {board_power_w:g} W {card}"
    ),
    # Cost.
    "cost.no_purchase_price": _(
        "no purchase price for its cards and servers (or the complete system): its cost is the "
        "rent of the job where a rate is known"
    ),
    "cost.price_expired": _(
        "the price of its {items} is past its validity: no valid price was found; ask for a "
        "new quote"
    ),
    "cost.price_stale": _("the price of its {items} is more than a year old"),
    "cost.budget_unchecked": _("no purchase price: the budget could not be checked"),
    "cost.left_out": _("capex leaves out {items}: no price"),
    "cost.support_unknown": _("support not counted for {items}: the price names no yearly share"),
    "cost.no_electricity_price": _("energy not costed: no electricity price (give a site)"),
    "usage.given": _(
        # xgettext:no-python-format
        "busy {percent:.0f} % of the time, as the question says"
    ),
    "usage.job": _(
        # xgettext:no-python-format
        "busy for the job's {days:,.1f} days, {percent:.1f} % of {years:g} years; idle the rest"
    ),
    "usage.load": _(
        # xgettext:no-python-format
        "serving {rps:,g} of the {capacity_rps:,.1f} requests per second it can: busy "
        "{percent:.0f} % of the time"
    ),
    "usage.always": _("busy around the clock"),
    "serving.capacity": _(
        "serves {rps:,.1f} requests/s within the latency bounds: {replicas:,} replicas at "
        "tensor parallelism {tp}, each running up to {batch:,} requests at once (the KV cache "
        "holds {max_batch:,}); {binding} stops a higher rate"
    ),
    "serving.capacity.one": _(
        "serves {rps:,.1f} requests/s within the latency bounds: 1 replica at tensor "
        "parallelism {tp}, running up to {batch:,} requests at once (the KV cache holds "
        "{max_batch:,}); {binding} stops a higher rate"
    ),
    "serving.binding.tpot": _("the time per output token"),
    "serving.binding.ttft": _("the time to first token"),
    "serving.binding.batch": _("the batch the KV cache holds"),
    "serving.binding.saturation": _("the replicas' decode rate"),
    "item.accelerator": _("accelerators"),
    "item.server": _("servers"),
    "item.system": _("complete systems"),
    "item.nic": _("network cards"),
    "item.switch_port": _("switch ports"),
    "item.cable": _("cables"),
    "item.transceiver": _("transceivers"),
    "item.rack": _("racks"),
    "item.rent": _("rent"),
    # Why a plan's first build is first.
    "first.only": _(
        "{count:,} x {accelerator} in {server} is the only build that meets every requirement"
    ),
    # Under "cost" a TCO is compared only with TCOs, and a rent only when no build has a TCO;
    # "priced to own": the cards and servers (or the systems) all have a purchase price.
    "first.cost_tco": _(
        "{count:,} x {accelerator} in {server} comes first: it costs least to own, "
        "{amount:,.0f} {currency} for {years:g} years, of the {priced:,} priced to own among the "
        "{viable:,} builds that meet every requirement"
    ),
    "first.cost_rent": _(
        "{count:,} x {accelerator} in {server} comes first: none of the {viable:,} builds that "
        "meet every requirement is priced to own, and of the {priced:,} with a rent rate it costs "
        "least to rent, {amount:,.2f} {currency} for the job"
    ),
    # Serving has no job to finish: its rent runs over the plan's horizon.
    "first.cost_rent_years": _(
        "{count:,} x {accelerator} in {server} comes first: none of the {viable:,} builds that "
        "meet every requirement is priced to own, and of the {priced:,} with a rent rate it costs "
        "least to rent, {amount:,.0f} {currency} for {years:g} years of serving"
    ),
    "first.capex": _(
        "{count:,} x {accelerator} in {server} comes first: the lowest purchase price, "
        "{amount:,.0f} {currency}, of the {priced:,} priced among the {viable:,} builds that meet "
        "every requirement"
    ),
    "first.rent": _(
        "{count:,} x {accelerator} in {server} comes first: the lowest rent for the job, "
        "{amount:,.2f} {currency}, of the {priced:,} with a rate among the {viable:,} builds that "
        "meet every requirement"
    ),
    "first.rent_years": _(
        "{count} x {accelerator} in {server} comes first: the lowest rent for {years:g} years of "
        "serving, {amount:,.0f} {currency}, of the {priced} with a rate among the {viable} builds "
        "that meet every requirement"
    ),
    "first.time": _(
        "{count:,} x {accelerator} in {server} comes first: it finishes soonest, in {days:,.1f} "
        "days, of the {viable:,} builds that meet every requirement"
    ),
    "first.latency": _(
        "{count:,} x {accelerator} in {server} comes first: the shortest time per request, "
        "{ms:,.0f} ms, of the {viable:,} builds that meet every requirement"
    ),
    "first.tokens_per_joule": _(
        "{count:,} x {accelerator} in {server} comes first: the most tokens per joule, "
        "{per_joule:,.2f}, of the {viable:,} builds that meet every requirement"
    ),
    "first.devices": _(
        "{count:,} x {accelerator} in {server} comes first: the fewest devices of the {viable:,} "
        "builds that meet every requirement, then the shortest time"
    ),
    "first.score": _(
        "{count:,} x {accelerator} in {server} comes first: the highest score under the weights, "
        "{overall:.0f} of 100, of the {viable:,} builds that meet every requirement"
    ),
    "first.no_figure": _(
        "{count:,} x {accelerator} in {server} comes first: none of the {viable:,} builds that meet "
        "every requirement has a figure for {objective}, so the fewest devices come first"
    ),
    "objective.cost": _("cost"),
    "objective.capex": _("purchase price"),
    "objective.rent": _("rent"),
    "objective.time": _("time"),
    "objective.devices": _("devices"),
    "objective.tokens_per_joule": _("tokens per joule"),
    "objective.score": _("score"),
    # The five scores' reasons.
    "score.memory_capacity.over": _(
        "needs {need_gib:.1f} GiB per device, {over_gib:.1f} GiB over its {capacity_gib:g} GiB"
    ),
    "score.memory_capacity.uses": _(
        # xgettext:no-python-format
        "uses {need_gib:.1f} of {capacity_gib:g} GiB ({headroom_percent:.0f} % headroom)"
    ),
    "score.memory_bandwidth.decode": _(
        # xgettext:no-python-format
        "{bw_gb_s:,.0f} GB/s: decode {best_percent:.0f} % of the best build's speed there"
    ),
    "score.memory_bandwidth.training": _(
        # xgettext:no-python-format
        "{bw_gb_s:,.0f} GB/s: {bound_percent:.0f} % of device time is memory-bound; "
        "{best_percent:.0f} % of the best build's speed there"
    ),
    "score.interconnect": _(
        # xgettext:no-python-format
        "{percent:.0f} % of the step on {link} and the fabric (TP {tp}, DP {dp}, {where})"
    ),
    "score.where.one_server": _("inside one server"),
    "score.where.servers": _("over {nodes:,} servers"),
    "score.cooling": _("{notes:semicolon}"),
    "score.cooling.not_hostable": _("the site cannot host it ({binding})"),
    "score.cooling.consumer": _("open-air consumer cooling in a closed chassis"),
    "score.cooling.derated": _(
        # xgettext:no-python-format
        "clocks derated to {percent:.0f} %"
    ),
    "score.cooling.kw_per_u": _("{kw_per_u:.1f} kW per U"),
    "score.cooling.suits": _("suits the rack's cooling"),
    "score.software": _("{notes}"),
    "score.software.training": _("{stack} {maturity} for training"),
    "score.software.inference": _("{stack} {maturity} for inference"),
    "score.software.no_ecc": _("no ECC for long runs"),
    "score.software.emulated": _("precision emulated"),
    "score.software.partitions": _("{partitions} hardware partitions"),
    "maturity.mature": _("mature"),
    "maturity.good": _("good"),
    "maturity.limited": _("limited"),
    "maturity.experimental": _("experimental"),
    # Why a build is rejected.
    "failure.sharded_state": _(
        "does not fit in memory (at least {floor_gib:.1f} GiB per device for weights, gradients "
        "and optimizer states, fully sharded, over {capacity_gib:g} GiB)"
    ),
    "failure.no_layout": _(
        "no parallel layout divides the global batch; change global_batch or count"
    ),
    "failure.memory": _("does not fit in memory ({need_gib:.1f} of {capacity_gib:g} GiB)"),
    "failure.racks": _("over the site's racks ({binding})"),
    "failure.capex": _("over the capex budget ({capex:,.0f} > {budget:,.0f})"),
    "failure.tco": _("over the TCO budget ({tco:,.0f} > {budget:,.0f})"),
    "failure.deadline": _("misses the deadline ({days:.1f} > {deadline:g} days)"),
    "failure.ttft": _("TTFT {ttft_ms:.0f} ms over the {target:g} ms target"),
    "failure.tpot": _("TPOT {tpot_ms:.1f} ms over the {target:g} ms target"),
    "failure.rate": _("serves {capacity_rps:.1f} requests/s, short of {target:g}"),
    "failure.simulated_slo": _(
        "simulated: {percent:.1f} % of requests within the SLO, short of {target:g} % "
        "(TTFT p99 {ttft_p99_ms:.0f} ms, TPOT p99 {tpot_p99_ms:.1f} ms)"
    ),
    "failure.simulated_slo.bare": _(
        "simulated: {percent:.1f} % of requests within the SLO, short of {target:g} %"
    ),
    "failure.no_fabric_ports": _(
        "{server} has no compute-fabric ports: it cannot be one of several servers"
    ),
    "fabric.from_server": _(
        "no fabric named: the server's {ports} x {port_gbps:g} Gbit/s NIC ports give its "
        "{accelerators} accelerators {per_card_gbps:g} Gbit/s each"
    ),
    "fabric.fewer_ports": _(
        "{ports} x {port_gbps:g} Gbit/s NIC ports for {accelerators} accelerators give "
        "{per_card_gbps:g} Gbit/s each, under the fabric's {fabric_gbps:g}"
    ),
    # What "why none" counts a failure as, where the failure's figures vary from build to build.
    "failure.sharded_state.short": _("does not fit in memory"),
    "failure.memory.short": _("does not fit in memory"),
    "failure.racks.short": _("over the site's racks"),
    "failure.capex.short": _("over the capex budget"),
    "failure.tco.short": _("over the TCO budget"),
    "failure.deadline.short": _("misses the deadline"),
    "why_none.nothing": _(
        "No accelerator in the catalog matches the filters, or no server takes them."
    ),
    "why_none.every_build": _("Every build breaks a hard constraint: {reasons:semicolon}."),
    "why_none.reason": _("{reason} ({builds:,} builds)"),
    "why_none.reason.one": _("{reason} (1 build)"),
    # How lists inside sentences are joined.
    "join.comma": _(", "),
    "join.semicolon": _("; "),
    "join.or": _(" or "),
}
