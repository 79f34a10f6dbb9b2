"""The compatibility answer for a terminal (`manage.py compat --format table`)."""


def compat_table(answer: dict) -> str:
    """The answer for a terminal."""
    if not answer["compatible"]:
        verdict = "INCOMPATIBLE"
    elif answer["limited"]:
        verdict = "compatible, with the limits of minor-version compatibility"
    else:
        verdict = "compatible"
    stack = answer["stack"]
    lines = [
        f"verdict   {verdict}",
        "stack     " + "  ".join(f"{k} {v}" for k, v in stack.items() if v is not None),
    ]
    lines.extend(f"problem   {p}" for p in answer["problems"])
    lines.extend(f"note      {n}" for n in answer["notes"])
    for fix in answer["fixes"]:
        lines.append(f"fix {fix['effort']}     {fix['sentence']}")
        if fix["command"]:
            lines.append(f"            {fix['command']}")
    lines.extend(f"source    {url}" for url in answer["sources"])
    return "\n".join(lines)
