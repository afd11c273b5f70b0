"""LitBank's categories become CorefUD entity types: our brat and CoNLL-2012 conversions of LitBank against the
official CorefUD English-LitBank dev file (10 novels): the same words and sentences, mentions, entity partition
and (from brat, which has LitBank's categories) entity types."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import harmonize
from harmonize.schemas.model import Document
from tests.conftest import shared


def _offsets(document: Document) -> tuple[dict[tuple[int, int], tuple[str, str | None]], list[int], list[int]]:
    """Mentions by character span over the document's forms joined (tokenisation-independent) -> (entity id,
    type); and where tokens and sentences start."""
    position, at, tokens, sentences = 0, {}, [], []
    for sentence in document.sentences:
        sentences.append(position)
        for node in sentence.nodes:
            if not node.is_empty:
                at[id(node)] = (position, position + len(node.form))
                tokens.append(position)
                position += len(node.form)
    mentions = {}
    for entity in document.entities:
        for mention in entity.mentions:
            words = [w for w in mention.words if not w.is_empty]
            mentions[(at[id(words[0])][0], at[id(words[-1])][1])] = (entity.id, mention.entity_type)
    return mentions, tokens, sentences


def _partition(mentions: dict) -> set[frozenset]:
    groups: dict[str, set] = {}
    for span, (entity, _type) in mentions.items():
        groups.setdefault(entity, set()).add(span)
    return {frozenset(g) for g in groups.values()}


@pytest.fixture(scope="module")
def official() -> dict[str, Document]:
    return {d.id: d for d in harmonize.read(shared("corefud-real", "en_litbank-corefud-dev.conllu")).documents}


@pytest.mark.parametrize("source", ["brat", "conll2012"])
def test_our_conversion_equals_the_official_corefud_litbank(source: str, official, tmp_path: Path) -> None:
    folder = shared("litbank", "brat" if source == "brat" else "conll")
    totals: Counter = Counter()
    for name, theirs in official.items():
        given = folder / (f"{name}_brat.ann" if source == "brat" else f"{name}_brat.conll")
        if not given.exists():
            continue  # brat: 7 of the 10 dev novels (the others are held back in the shared data)
        out = tmp_path / f"{name}.conllu"
        harmonize.convert([given], source, "corefud", out, rules="corefud", warn_losses=False)
        (ours,) = harmonize.read(out).documents
        assert ours.id.startswith(f"{name}_brat")  # LitBank's own names (and CoNLL part); CorefUD drops "_brat"
        our_mentions, our_tokens, our_sentences = _offsets(ours)
        their_mentions, their_tokens, their_sentences = _offsets(theirs)
        assert (our_tokens, our_sentences) == (their_tokens, their_sentences), name
        assert set(our_mentions) == set(their_mentions), name
        assert _partition(our_mentions) == _partition(their_mentions), name
        types = Counter((our_mentions[s][1], their_mentions[s][1]) for s in their_mentions)
        if source == "brat":
            assert all(ours_type == theirs_type for ours_type, theirs_type in types), (name, types)
        else:  # LitBank's CoNLL files carry no categories
            assert all(ours_type is None for ours_type, _ in types), (name, types)
        assert "Bridge=" not in out.read_text(encoding="utf-8")  # cop and appos: not bridging, as CorefUD has it
        totals["documents"] += 1
        totals["mentions"] += len(their_mentions)
    assert totals == ({"documents": 7, "mentions": 2046} if source == "brat" else {"documents": 10, "mentions": 2856})


def test_litbank_categories_map_to_corefud_types() -> None:
    corpus = harmonize.read(shared("litbank", "brat", "105_persuasion_brat.ann"), "brat")
    document = corpus.documents[0]
    kinds = {(m.attrs["mtype"].split("_")[1], m.entity_type) for m in document.mentions}
    assert ("PER", "person") in kinds and ("FAC", "place") in kinds and ("GPE", "place") in kinds
    assert all(theirs in {"person", "place", "object", "organization"} for _, theirs in kinds)
    assert {label for b in document.bridges for label in [b.label]} <= {"cop", "appos"} and document.bridges
