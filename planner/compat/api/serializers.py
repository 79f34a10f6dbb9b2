"""The compatibility endpoint's request and answer are the pydantic declarations in
`planner.compat.question`; the OpenAPI document reads them from there. Nothing to serialize
from the database."""

from planner.compat.question import CompatAnswer, CompatQuestion

__all__ = ["CompatAnswer", "CompatQuestion"]
