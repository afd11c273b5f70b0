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


def test_a_corefud_document_keeps_its_id_through_conll2012_and_loses_what_the_report_names(tmp_path: Path) -> None:
    conll = tmp_path / "sample.conll"
    there = harmonize.convert([sample_path()], "corefud", "conll2012", conll, warn_losses=False)
    assert "#begin document (sample-1); part 000" in conll.read_text(encoding="utf-8")
    back = tmp_path / "back.conllu"
    harmonize.convert([conll], "conll2012", "corefud", back, warn_losses=False)
    assert [d.id for d in harmonize.read(back).documents] == ["sample-1", "sample-2"]
    mentions = harmonize.score(sample_path(), back, mode="exact", singletons=True).metrics["mentions"]
    dropped = sum(count for reason, count in there.report.counts.items() if "dropped" in reason)
    assert dropped == 2 and mentions.recall_den - mentions.recall_num == dropped  # the zero and the gapped mention
    assert mentions.precision == 1


def test_the_shared_gum_document_comes_back_from_conll2012_and_jsonlines(tmp_path: Path) -> None:
    original = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    for target, name in (("conll2012", "g.conll"), ("jsonlines", "g.jsonlines")):
        there = harmonize.convert([original], "corefud", target, tmp_path / name, warn_losses=False)
        back = tmp_path / f"{name}.conllu"
        harmonize.convert([tmp_path / name], target, "corefud", back, warn_losses=False)
        assert [d.id for d in harmonize.read(back).documents] == ["GUM_academic_exposure"]
        exact = harmonize.score(original, back, mode="exact", singletons=True)
        assert exact.conll == 1 and exact.metrics["mentions"].f1 == 1  # nothing dropped: no zeros, no gaps
        assert there.report.counts["heads not written (%s has no place for them)" % (
            "CoNLL-2012" if target == "conll2012" else "jsonlines")] == 143  # mentions of several words
        assert harmonize.score(original, back).conll < 1  # head matching: the heads the report names are gone


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


def test_paired_documents_must_have_the_same_words_and_the_error_says_where() -> None:
    import pytest

    from harmonize.errors import HarmonizeError
    from harmonize.scoring.frame import check_words

    key = ["1\tThe\n2\tdog", "1\tbarks"]
    check_words("d", key, list(key))
    with pytest.raises(HarmonizeError, match=r"sentence 2, token 1: key has 'barks', response has sentence 2, "
                                             r"token 1 'bites'"):
        check_words("d", key, ["1\tThe\n2\tdog", "1\tbites"])
    with pytest.raises(HarmonizeError, match=r"the response is truncated \(3 key words, 2 response words\)"):
        check_words("d", key, ["1\tThe\n2\tdog"])
    # Forms left out: only the ids; a sentence of empty nodes only has no words to compare.
    check_words("d", ["1\n2", "", "1"], ["1\n2", "", "1"])
    with pytest.raises(HarmonizeError, match="token 2: key has '', response has sentence 1, token 3"):
        check_words("d", ["1\n2"], ["1\n3"])
