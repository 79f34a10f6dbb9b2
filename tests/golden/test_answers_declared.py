"""Every recorded answer is what the contract declares (planner.engine.contract.answers), so the
OpenAPI document, generated from those declarations, describes the answers clients really get.
The recorded answers are held to the engine by test_golden.py."""

import json

import pytest

from planner.engine.contract.answers import EstimateAnswer, FitAnswer, PlanAnswer
from tests.golden.test_golden import ANSWERS

DECLARED = {"estimate": EstimateAnswer, "fit": FitAnswer, "plan": PlanAnswer}
RECORDED = {
    key: value["answer"]
    for key, value in json.loads(ANSWERS.read_text(encoding="utf-8")).items()
    if "answer" in value and key.split(":")[0] in DECLARED
}


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_each_answer_matches_its_declaration(key):
    DECLARED[key.split(":")[0]].model_validate(RECORDED[key])


def test_a_key_the_declaration_lacks_is_caught():
    answer = dict(RECORDED["estimate:train-8b-h100x8"], colour="red")
    with pytest.raises(ValueError, match="colour"):
        EstimateAnswer.model_validate(answer)
