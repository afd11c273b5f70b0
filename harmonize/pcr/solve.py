"""Baseline solvers for binary-choice pronoun questions.

``agreement``: the option that agrees with the pronoun in gender, number and person (lexicon of
`harmonize.pcr.perspectives`); where both or neither agree, the option written first in the sentence (the
first-mention and subject preference of rule-based resolvers), else option 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from harmonize.pcr.perspectives import agrees, from_text
from harmonize.pcr.questions import Question


def solve_by_agreement(question: Question) -> int:
    pronoun = from_text(question.pronoun)
    fits = [agrees(pronoun, from_text(option)) for option in (question.option1, question.option2)]
    if fits.count(True) == 1:
        return 1 if fits[0] else 2
    starts = [question.offsets.get(name, [10**9])[0] for name in ("option1", "option2")]
    return 2 if starts[1] < starts[0] else 1


SOLVERS = {"agreement": solve_by_agreement}


def solve(questions: Sequence[Question], solver: str = "agreement") -> list[int]:
    return [SOLVERS[solver](question) for question in questions]
