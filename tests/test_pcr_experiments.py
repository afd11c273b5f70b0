"""PCR4ALL's settings: the pooled seeded split (gender test apart, documents whole), nested training subsets,
training per perspective, the experiment tables, and evaluation views per perspective with settable BM25
cut-offs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harmonize.errors import HarmonizeError
from harmonize.pcr import read_questions, write_questions, write_split
from harmonize.pcr.evaluate import best_bm25_scores, evaluate, table
from harmonize.pcr.experiments import (
    PAPER_SIZES,
    matrix,
    perspective_training_sets,
    pooled_split,
    run,
    statistics,
    trained_solver,
    training_subsets,
)
from harmonize.pcr.questions import Question


def question(index: int, doc_id: str = "", gender: bool = False, linguistic: bool = False,
             source: str = "WSC") -> Question:
    made = Question(f"The cat {index} met the dog and _ left.", "the cat", "the dog", 1 + index % 2, "it", source,
                    doc_id=doc_id)
    made.is_gender_bias = gender
    made.is_linguistic, made.is_knowledge = linguistic, not linguistic
    made.is_formal = True
    if gender:
        made.group, made.variant = f"g{index // 2}", ("male", "female")[index % 2]
    return made


def pool() -> list[Question]:
    return ([question(i) for i in range(60)] + [question(100 + i, doc_id=f"doc{i // 5}") for i in range(40)]
            + [question(200 + i, gender=True, source="WinoGender") for i in range(20)])


def test_the_pooled_split_is_seeded_keeps_the_gender_test_apart_and_documents_whole() -> None:
    parts = pooled_split(pool(), (8, 1, 1), seed=0)
    assert {name: len(part) for name, part in parts.items()} == {"train": 80, "dev": 10, "test": 10,
                                                                 "gender_test": 20}
    assert all(q.is_gender_bias for q in parts["gender_test"]) and all(q.part == name for name, part in
                                                                        parts.items() for q in part)
    documents = {name: {q.doc_id for q in part if q.doc_id} for name, part in parts.items()}
    assert not (documents["train"] & documents["dev"]) and not (documents["train"] & documents["test"])
    again = pooled_split(pool(), (8, 1, 1), seed=0)
    assert [q.sentence for q in again["test"]] == [q.sentence for q in parts["test"]]
    assert [q.sentence for q in pooled_split(pool(), (8, 1, 1), seed=1)["test"]] != [q.sentence for q in
                                                                                      parts["test"]]
    with pytest.raises(HarmonizeError, match="three non-negative shares"):
        pooled_split(pool(), (8, 1))
    table2 = statistics([q for part in parts.values() for q in part]).splitlines()
    assert table2[0].split() == ["perspective", "train", "dev", "test", "gender_test", "overall"]
    assert table2[-1].split() == ["overall", "80", "10", "10", "20", "120"]


def test_training_subsets_are_nested_and_stop_at_the_training_set() -> None:
    train = [question(i) for i in range(50)]
    subsets = training_subsets(train, PAPER_SIZES, seed=3)
    assert list(subsets) == [1, 10, 50]  # 1,000 and above: beyond the 50 there are, so the whole set
    assert list(training_subsets(train, (1, 10), seed=3)) == [1, 10]  # the whole set only when asked for
    assert subsets[10][:1] == subsets[1] and subsets[50][:10] == subsets[10]
    assert training_subsets(train, PAPER_SIZES, seed=3)[10] == subsets[10] != training_subsets(train, (10,), 4)[10]


def test_perspective_runs_make_table_4_with_the_gender_consistency_column() -> None:
    train = [question(i, linguistic=i < 10) for i in range(30)]
    sets = perspective_training_sets(train)
    assert {name: len(chosen) for name, chosen in sets.items()} == {"all": 30, "linguistic": 10, "knowledge": 20,
                                                                    "formal": 30}
    test = [question(i) for i in range(10)] + [question(200 + i, gender=True) for i in range(4)]
    results = run(sets, test, trained_solver("agreement"))
    text = matrix(results)
    header, first = text.splitlines()[:2]
    assert header.split()[:4] == ["train", "questions", "all", "linguistic"] and header.split()[-1] == "consistency"
    # agreement answers by text order: option 1 ("the cat") each time; half the answers are 1.
    assert first.split()[:3] == ["all", "30", "50.00"] and first.split()[-1] == "100.00"
    assert results[0].evaluation.rows[0].questions == 10  # the gender test only in the consistency column
    assert matrix(results, "markdown").splitlines()[1].startswith("| --- |")
    with pytest.raises(HarmonizeError, match="encoder or agreement"):
        trained_solver("rules")


def test_evaluation_by_perspective_with_the_papers_bm25_cutoffs() -> None:
    train = [question(i) for i in range(40)]
    test = [question(i, linguistic=i % 3 == 0) for i in range(12)]
    result = evaluate(test, [1] * 12, train, cutoffs=[47, 71, 120])
    assert [row.name for row in result.relevance] == ["BM25 [0, 47]", "BM25 (47, 71]", "BM25 (71, 120]",
                                                      "BM25 (120, inf)"]
    assert sum(row.questions for row in result.relevance) == 12
    assert set(result.relevance_by_perspective) == {"linguistic", "knowledge", "formal"}
    assert sum(row.questions for row in result.relevance_by_perspective["linguistic"]) == 4
    assert [row.name for row in result.frequency_by_perspective["knowledge"]] == ["MFC", "LFC", "zero-shot"]
    assert "relevance by perspective" in table(result) and "frequency by perspective" in table(result)
    equal = evaluate(test, [1] * 12, train, buckets=3)
    assert len(equal.relevance) <= 3 and sum(row.questions for row in equal.relevance) == 12


def test_the_command_line_splits_and_runs_the_experiments(tmp_path: Path) -> None:
    files = []
    for name, chosen in (("sets", [question(i) for i in range(60)]),
                         ("gender", [question(200 + i, gender=True, source="WinoGender") for i in range(8)])):
        files.append(tmp_path / f"{name}.jsonl")
        write_questions(chosen, files[-1])

    def harmonize(*args: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harmonize", "pcr", *map(str, args)], capture_output=True,
                              text=True, check=False)

    done = harmonize("split", *files, "-o", tmp_path / "pooled", "--seed", 2)
    assert done.returncode == 0, done.stderr
    assert "wrote 48 train, 6 dev, 6 test, 8 gender_test questions" in done.stderr
    assert done.stdout.splitlines()[-1].split() == ["overall", "48", "6", "6", "8", "68"]
    assert len(read_questions(tmp_path / "pooled" / "gender_test.jsonl")) == 8
    pooled = tmp_path / "pooled"
    done = harmonize("curve", pooled / "train.jsonl", pooled / "test.jsonl", "--gender", pooled / "gender_test.jsonl",
                     "--solver", "agreement", "--sizes", "1,10,100", "--plot", tmp_path / "curve.png")
    assert done.returncode == 0, done.stderr
    assert [line.split()[0] for line in done.stdout.splitlines()] == ["size", "1", "10", "48"]
    assert (tmp_path / "curve.png").stat().st_size > 0
    done = harmonize("transfer", pooled / "train.jsonl", pooled / "test.jsonl", "--solver", "agreement")
    assert done.returncode == 0 and done.stdout.splitlines()[1].split()[:2] == ["all", "48"]
    done = harmonize("curve", pooled / "train.jsonl", pooled / "test.jsonl", "--sizes", "0")
    assert done.returncode == 1 and "positive whole numbers" in done.stderr
    assert write_split([question(i) for i in range(10)], tmp_path / "one", to="pcr4all") == {
        "train": 8, "dev": 1, "test": 1}


# Few words, so that documents share them, some repeat, and a word can be in more than half (a floored idf).
_TEXTS = st.lists(st.sampled_from(["the", "cat", "sat", "dog", "ran", "away", "Trophy", "suitcase", "_", "!"]),
                  max_size=12).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=12), st.lists(_TEXTS, max_size=5))
def test_best_bm25_scores_are_rank_bm25s_to_the_last_bit(documents: list[str], queries: list[str]) -> None:
    """The inverted index gives each query the very float rank_bm25's full scan gives (buckets and cut-offs
    depend on it)."""
    from rank_bm25 import BM25Okapi

    from harmonize.pcr.evaluate import tokens

    index = BM25Okapi([tokens(text) or ["_"] for text in documents])
    assert best_bm25_scores(documents, queries) == [float(max(index.get_scores(tokens(q)))) for q in queries]
