"""Coreference resolvers as PCR solvers: the answer is the option in the pronoun's predicted cluster, 0 (an error)
where neither or both are or the question cannot be put to a resolver, each case counted; rules without a parser
(mentions given, tagged from the lexicon) and with a real UDPipe model (mentions from the tree)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harmonize.errors import Report
from harmonize.pcr import read_questions, write_questions
from harmonize.pcr.coreference import (
    ANSWERED,
    BOTH,
    NEITHER,
    NO_PRONOUN,
    CoreferenceSolver,
    solve_with_resolver,
)
from harmonize.pcr.evaluate import evaluate, paired_answers
from harmonize.pcr.sources import make_question


def questions() -> list:
    return [
        # "he": John by his first name, the nearest agreeing noun phrase before the pronoun.
        make_question("Mary called John because _ was late.", "Mary", "John", 2, "he", "test"),
        # "she": the girl, not the boys (plural).
        make_question("The girl saw the boys and _ smiled.", "the boys", "The girl", 2, "she", "test"),
        # Cataphora: nothing before the pronoun, so the rules give it no antecedent.
        make_question("Before _ left, the farmer fed the cow.", "the farmer", "the cow", 1, "he", "test"),
        # WinoGrande's kind: no pronoun to resolve.
        make_question("Ian ate Dennis's menudo because _ despised it.", "Ian", "Dennis", 2, "", "WinoGrande"),
    ]


def test_rules_without_a_parser_answer_by_the_given_mentions_and_count_what_they_cannot() -> None:
    report = Report()
    answers = solve_with_resolver(questions(), CoreferenceSolver("rules"), report)
    assert answers == [2, 2, 0, 0]
    assert report.counts[ANSWERED] == 2 and report.counts[NEITHER] == 1 and report.counts[NO_PRONOUN] == 1
    # Unresolved is an error to evaluate: 2 of 4 right.
    result = evaluate(questions(), answers)
    assert (result.rows[0].questions, result.rows[0].errors) == (4, 2)


def test_both_options_in_the_pronouns_cluster_is_no_answer() -> None:
    """Two proper nouns with the same lemma join by the rules, so the pronoun's cluster holds both options: PCR4ALL
    would count it right; it is an error here (a resolver joining everything would score 100)."""
    report = Report()
    question = make_question("Smith met Smith and _ left.", "Smith", "Smith", 1, "he", "test")
    question.offsets["option2"] = [10, 15]
    assert solve_with_resolver([question], CoreferenceSolver("rules"), report) == [0]
    assert report.counts[BOTH] == 1


def test_rules_with_a_parser_find_their_own_mentions(udpipe_model: Path) -> None:
    """End to end, as PCR4ALL ran its systems: the text is tagged and parsed by a real (tiny) UDPipe model and
    the rules find mentions in the tree; every question is answered or counted."""
    report = Report()
    solver = CoreferenceSolver("rules", parse=f"udpipe:{udpipe_model}")
    answers = solve_with_resolver(questions(), solver, report)
    assert all(answer in (0, 1, 2) for answer in answers) and answers[3] == 0
    reasons = [reason for reason in report.counts if reason.startswith("resolver:")]
    assert sum(report.counts[reason] for reason in reasons) == 4
    given = solve_with_resolver(questions(), CoreferenceSolver("rules", parse=f"udpipe:{udpipe_model}",
                                                               given_mentions=True), Report())
    assert given[3] == 0 and all(answer in (0, 1, 2) for answer in given)


def test_the_cli_solves_with_the_rules_and_evaluate_counts_no_answer_as_an_error(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    write_questions(questions(), gold)
    done = subprocess.run([sys.executable, "-m", "harmonize", "pcr", "solve", gold, "--solver", "rules", "-o",
                           tmp_path / "p.jsonl"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "neither option in the pronoun's cluster" in done.stderr
    predicted = read_questions(tmp_path / "p.jsonl")
    assert [q.answer for q in predicted] == [2, 2, 0, 0]
    assert paired_answers(read_questions(gold), predicted) == [2, 2, 0, 0]
    done = subprocess.run([sys.executable, "-m", "harmonize", "pcr", "evaluate", gold, tmp_path / "p.jsonl"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "50.00" in done.stdout.splitlines()[1]  # "all": 2 errors of 4
