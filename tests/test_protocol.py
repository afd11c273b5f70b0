"""The evaluation protocol: what a resolver chooses is chosen on training data held out for it, never on the
split that is reported."""

from __future__ import annotations

import pytest

from harmonize.errors import HarmonizeError
from harmonize.resolvers.protocol import TUNE_FRACTION, folds, hold_out, select_topics
from harmonize.schemas.model import Corpus, Document


def corpus(ids: list[str], topics: list[str] | None = None) -> Corpus:
    return Corpus(documents=[Document(id=i, topic=t) for i, t in zip(ids, topics or [None] * len(ids))])


def test_a_fixed_part_of_the_documents_is_held_out() -> None:
    train = corpus([f"doc{n:02d}" for n in range(40)])
    split = hold_out(train)
    fit, tune = [d.id for d in split.fit.documents], [d.id for d in split.tune.documents]
    assert not set(fit) & set(tune) and sorted(fit + tune) == sorted(d.id for d in train.documents)
    assert len(tune) == round(40 * TUNE_FRACTION)  # every 7th: 6 of 40
    assert split.held_out == hold_out(corpus(list(reversed(fit + tune)))).held_out  # order of input aside
    assert "chosen on 6 train documents held out" in split.describe("the epoch kept", ["dev"])


def test_topics_are_held_out_whole_and_numbered_topics_sort_as_numbers() -> None:
    topics = [str(t) for t in (1, 3, 4, 6, 7, 8, 9, 10, 11, 13, 14, 16, 19, 20, 22, 24, 25, 26, 27, 28, 29, 30, 31,
                               32, 33) for _ in range(3)]
    train = corpus([f"d{n}" for n in range(len(topics))], topics)
    split = hold_out(train, "topic")
    assert split.held_out == ["6", "14", "26", "33"]
    assert {d.topic for d in split.tune.documents} == set(split.held_out)
    assert not {d.topic for d in split.fit.documents} & set(split.held_out)


def test_too_little_training_data() -> None:
    one = hold_out(corpus(["only"]))
    assert not one.tune.documents and "too few to hold any out" in one.describe("the epoch kept", ["dev"])
    with pytest.raises(HarmonizeError, match="needs two topics or more"):
        hold_out(corpus(["a", "b"], ["1", "1"]), "topic")


def test_cross_validation_holds_each_topic_out_once() -> None:
    topics = [str(t) for t in (1, 3, 4, 6, 7, 8, 9, 10, 11, 13, 14, 16, 19, 20, 22, 24, 25, 26, 27, 28, 29, 30, 31,
                               32, 33) for _ in range(2)]
    train = corpus([f"d{n}" for n in range(len(topics))], topics)
    splits = folds(train, 5, "topic")
    held = [split.held_out for split in splits]
    assert held[0] == ["1", "8", "14", "24", "29"] and len(held) == 5  # every 5th in numeric order
    assert sorted(t for topics_held in held for t in topics_held) == sorted(set(topics))
    for split in splits:
        assert {d.topic for d in split.tune.documents} == set(split.held_out)
        assert not {d.topic for d in split.fit.documents} & set(split.held_out)
        assert len(split.fit.documents) + len(split.tune.documents) == len(train.documents)
    assert [s.held_out for s in folds(corpus(list(reversed([d.id for d in train.documents])),
                                             list(reversed(topics))), 5, "topic")] == held  # input order aside
    with pytest.raises(HarmonizeError, match="needs at least 2 folds and 3 training topics"):
        folds(corpus(["a", "b"], ["1", "2"]), 3, "topic")


def test_select_topics() -> None:
    chosen, rest = select_topics(corpus(["a", "b", "c"], ["1", "2", "36"]), "36, 2")
    assert [d.id for d in chosen.documents] == ["b", "c"] and [d.id for d in rest.documents] == ["a"]
