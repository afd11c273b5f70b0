"""Key and response documents pair by name and part number: ``X/part 0``, ``X/part 000`` and ``X`` are one
document, so that our conversions score against the originals they came from."""

from __future__ import annotations

from pathlib import Path

import harmonize
from harmonize.conversion import sample_path
from harmonize.schemas.model import pairing_key
from tests.conftest import shared


def test_pairing_key_reads_the_part_as_a_number() -> None:
    assert pairing_key("X/part 000") == pairing_key("X/part 0") == pairing_key("X") == ("X", 0)
    assert pairing_key("X/part 001") == ("X", 1) != pairing_key("X")


def test_a_part_written_with_three_digits_scores_against_one_digit(tmp_path: Path) -> None:
    three = tmp_path / "three.conll"
    harmonize.convert([sample_path()], "corefud", "conll2012", three, warn_losses=False)
    text = three.read_text(encoding="utf-8")
    assert "; part 000" in text
    one = tmp_path / "one.conll"
    one.write_text(text.replace("; part 000", "; part 0"), encoding="utf-8")
    scores = harmonize.score(one, three, "conll2012", mode="exact")
    assert scores.documents == 2 and scores.conll == 1.0
    result = harmonize.diff(one, three, "conll2012")
    assert not result.only_in_key and not result.only_in_response and len(result.partitions) == 2


def test_a_corefud_document_scores_against_its_conll2012_round_trip(tmp_path: Path) -> None:
    conll = tmp_path / "sample.conll"
    harmonize.convert([sample_path()], "corefud", "conll2012", conll, warn_losses=False)
    back = tmp_path / "back.conllu"
    harmonize.convert([conll], "conll2012", "corefud", back, warn_losses=False)
    assert harmonize.read(back).documents[0].id == "sample-1/part 000"
    scores = harmonize.score(sample_path(), back, mode="exact")
    assert scores.documents == 2 and 0 < scores.conll < 1  # what CoNLL-2012 could not hold (zeros, gaps) is lost


def test_litbank_brat_converted_to_conll2012_scores_against_litbank_conll(tmp_path: Path) -> None:
    brat = shared("litbank", "brat", "105_persuasion_brat.ann")
    key = shared("litbank", "conll", "105_persuasion_brat.conll")
    out = tmp_path / "105_persuasion_brat.conll"
    harmonize.convert([brat], "brat", "conll2012", out, warn_losses=False)
    assert "; part 000" in out.read_text(encoding="utf-8") and "; part 0\n" in key.read_text(encoding="utf-8")
    scores = harmonize.score(key, out, "conll2012", mode="exact", singletons=True)
    assert scores.conll == 1.0 and scores.metrics["mentions"].f1 == 1.0


def test_a_corefud_document_scores_against_its_jsonlines_round_trip(tmp_path: Path) -> None:
    lines = tmp_path / "sample.jsonlines"
    there = harmonize.convert([sample_path()], "corefud", "jsonlines", lines, warn_losses=False)
    back = tmp_path / "back.conllu"
    harmonize.convert([lines], "jsonlines", "corefud", back, warn_losses=False)
    assert [d.id for d in harmonize.read(back).documents] == [d.id for d in harmonize.read(sample_path()).documents]
    scores = harmonize.score(sample_path(), back, mode="exact", singletons=True)
    lost = there.report.counts
    assert scores.documents == 2 and scores.metrics["mentions"].recall < 1  # the mentions the report names
    assert any("empty node" in reason for reason in lost) and any("split antecedent" in reason for reason in lost)
