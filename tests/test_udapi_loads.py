"""Every CorefUD file harmonize writes loads in udapi (and so in the CorefUD scorer, which reads through it),
whatever the input had: here the tree-less conversions of every shared corpus, with no head annotated."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import harmonize
from harmonize.converters.corefud import HEAD_WRITTEN_FIRST_WORD
from harmonize.errors import Report
from tests.conftest import shared

udapi = pytest.importorskip("udapi", reason="udapi not installed: pip install -e '.[test]'")

# (format, path under the shared data): a few documents of each corpus without trees.
TREELESS = [
    ("ecbplus", ("ecbplus", "ECB+", "1")),
    ("mmax2", ("mmax2", "parcorfull", "news", "EN", "18.mmax")),
    ("mmax2", ("mmax2", "potsdam_pcc2.2", "coreference-mmax", "maz-11280.mmax")),
    ("rucoco", ("rucoco", "json", "2001_russia_aznar.json")),
    ("tei", ("pcc", "tei_format_sample_liner2")),
    ("conll2012", ("litbank", "conll", "105_persuasion_brat.conll")),
    ("conll2012", ("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll")),
    ("brat", ("litbank", "brat", "105_persuasion_brat.ann")),  # entity labels with "-" in them
    ("webanno-tsv", ("webanno", "tsv3", "coref.tsv")),
]


@pytest.mark.parametrize(("source", "parts"), TREELESS, ids=[f"{s}:{p[-1]}" for s, p in TREELESS])
def test_treeless_conversions_load_in_udapi(source: str, parts: tuple[str, ...], tmp_path: Path) -> None:
    output = tmp_path / "out.conllu"
    result = harmonize.convert([shared(*parts)], source, "corefud", output, warn_losses=False)
    headless = result.total.counts[HEAD_WRITTEN_FIRST_WORD]
    logging.disable(logging.WARNING)  # udapi warns about every empty HEAD column of a tree-less file
    try:
        document = udapi.Document(str(output))
        entities = document.coref_entities  # strict: an empty or non-integer head index raises
    finally:
        logging.disable(logging.NOTSET)
    mentions = [m for e in entities for m in e.mentions]
    ours = harmonize.read(output, report=Report())
    assert len(mentions) == sum(len(e.mentions) for d in ours.documents for e in d.entities) > 0
    if source in ("ecbplus", "mmax2"):
        assert headless > 0  # multi-word mentions, no tree: the first word, counted


@pytest.mark.parametrize("parts", [("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu"),
                                   ("corefud-real", "en_litbank-corefud-dev.conllu"),
                                   ("corefud-samples", "udapi", "fr-democrat-dev-sample.conllu")],
                         ids=lambda parts: parts[-1])
def test_to_and_from_udapi_is_exact_and_udapi_blocks_run_between(parts: tuple[str, ...]) -> None:
    """harmonize.to_udapi gives udapi the corpus as CorefUD has it; from_udapi brings back the same model and the
    same bytes; what a udapi edit changes comes back."""
    from harmonize.accounting.differ import diff_corpora
    from harmonize.converters.corefud import format_corefud

    path = shared(*parts)
    corpus = harmonize.read(path, report=Report())
    document = harmonize.to_udapi(corpus)
    assert len(document.coref_entities) == sum(len(d.entities) for d in corpus.documents)
    back = harmonize.from_udapi(document)
    assert not diff_corpora(corpus, back).counts
    assert format_corefud(back) == path.read_text(encoding="utf-8")
    mention = next(m for m in document.coref_mentions if len(m.words) > 2)
    mention.words = [mention.head]  # a udapi edit: a mention of several words cut to its head
    changed = diff_corpora(corpus, harmonize.from_udapi(document))
    assert set(changed.counts) <= {"mention span", "mention head"} and changed.counts["mention span"] == 1
