"""`manage.py fit FILE` (or `-` for stdin): a rack and a server in, servers per rack, racks
needed, yearly energy and thermal derating out."""

from planner.estimates.services import fit_run
from planner.management.json_command import JsonQuestionCommand


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


class Command(JsonQuestionCommand):
    help = "Fit servers into racks: servers per rack, the binding limit, racks and energy."
    run = staticmethod(fit_run)
    table = staticmethod(fit_table)
