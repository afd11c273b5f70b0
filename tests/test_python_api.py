"""The Python API says what it dropped: every read, write and convert gives its report back, and warns
(harmonize.LossWarning) where something was lost and no report was asked for."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path

HEADS_LOST = "heads not written (CoNLL-2012 has no place for them)"


def test_write_warns_with_the_counts_when_no_report_is_asked_for(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    with pytest.warns(harmonize.LossWarning, match=r"4 heads not written") as caught:
        returned = harmonize.write(corpus, tmp_path / "x.conll", format="conll2012")
    assert len(caught) == 1  # one warning, with every count in it
    assert "bridging not written" in str(caught[0].message)
    assert returned.counts[HEADS_LOST] == 4  # the mentions of several words


def test_write_with_a_report_fills_it_and_does_not_warn(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    report = harmonize.Report()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        returned = harmonize.write(corpus, tmp_path / "x.conll", format="conll2012", report=report)
    assert returned is report and report.counts[HEADS_LOST] == 4


def test_loss_warning_can_be_made_an_error(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    with warnings.catch_warnings():
        warnings.simplefilter("error", harmonize.LossWarning)
        with pytest.raises(harmonize.LossWarning):
            harmonize.write(corpus, tmp_path / "x.conll", format="conll2012")


def test_lossless_write_is_silent(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = harmonize.write(corpus, tmp_path / "x.conllu")
    assert not report


def test_lenient_read_keeps_its_report_on_the_corpus(tmp_path: Path) -> None:
    broken = tmp_path / "broken.conllu"
    text = sample_path().read_text(encoding="utf-8")
    broken.write_text(text.replace("Entity=(e1-person-1)", "Entity=(e1-person-1", 1), encoding="utf-8")
    assert broken.read_text(encoding="utf-8") != text
    with pytest.warns(harmonize.LossWarning, match="reading"):
        corpus = harmonize.read(broken, lenient=True)
    assert corpus.report and sum(corpus.report.counts.values()) >= 1
    assert str(broken) in corpus.report.inputs


def test_convert_gives_its_report_and_warns_unless_told_not_to(tmp_path: Path) -> None:
    with pytest.warns(harmonize.LossWarning, match="heads not written"):
        result = harmonize.convert([sample_path()], "corefud", "conll2012", tmp_path / "a.conll")
    assert result.report.counts[HEADS_LOST] == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = harmonize.convert([sample_path()], "corefud", "conll2012", tmp_path / "b.conll", warn_losses=False)
    assert quiet.report.counts == result.report.counts


def test_head_is_none_where_not_annotated_and_tree_head_gives_the_tree(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    mention = next(m for m in corpus.documents[0].mentions if len(m.words) > 1)
    annotated = mention.head
    assert annotated is not None and mention.tree_head is annotated
    corpus.documents[0].move_head(mention, None)
    assert mention.head is None and mention.tree_head is not None  # from the sample's trees
