"""Many estimate questions at once: a JSON array in, an array of answers out, in the same order,
each element its answer or its own error (one bad question spoils no other). The command line
takes any number; one API request at most `MAX_BATCH_QUESTIONS`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, RootModel

from planner.engine.contract.answers import EstimateAnswer
from planner.engine.contract.base import Answer
from planner.engine.contract.estimate import EstimateQuestion

# Procurement comparisons run to a few hundred builds; at about 5-10 ms a question this keeps one
# request within a few seconds of a worker's time.
MAX_BATCH_QUESTIONS = 500


class QuestionError(Answer):
    """Why one question of an array has no answer."""

    field: str = Field(
        description='The dotted path of the value at fault inside the question, "count"'
    )
    message: str = Field(description="What is wrong with it, in the request's language")


class ElementError(Answer):
    """An array's element whose question could not be answered."""

    error: QuestionError


# An array's elements are read one by one: an element that is not a question is that element's
# error in the answer (not the whole request's), so the array takes any JSON values.
BatchElement = Annotated[
    Any,
    Field(
        description="An estimate question, as in the single form; an element that is not one "
        'answers {"error": {"field": ..., "message": ...}} in its place'
    ),
]


class EstimateQuestions(
    RootModel[
        EstimateQuestion
        | Annotated[list[BatchElement], Field(min_length=1, max_length=MAX_BATCH_QUESTIONS)]
    ]
):
    """One estimate question, or an array of them (at most 500 in one request)."""


class EstimateAnswers(RootModel[EstimateAnswer | list[EstimateAnswer | ElementError]]):
    """One answer; for an array of questions, an array in the same order, each element its
    answer or `{"error": {"field": ..., "message": ...}}`."""
