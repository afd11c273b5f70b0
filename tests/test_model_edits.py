"""Edits keep the model consistent; written back, the result reads as the same model and still validates."""

from __future__ import annotations

from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.errors import ModelError, Report
from harmonize.schemas.model import Corpus, Document, Node, Sentence
from harmonize.schemas.signature import corpus_signature


def sample() -> Corpus:
    text = (resources.files("harmonize") / "samples" / "sample.conllu").read_text(encoding="utf-8")
    return parse_corefud(text, "sample.conllu")


def reread(corpus: Corpus) -> Corpus:
    again = parse_corefud(format_corefud(corpus))
    assert corpus_signature(again) == corpus_signature(corpus)
    return again


def test_removing_the_last_mention_of_a_split_antecedent_member_shrinks_the_relation() -> None:
    corpus = sample()
    document = corpus.documents[0]
    anne = document.new_entity("e9", "person")
    document.add_mention(anne, [document.sentences[2].nodes[0]])
    (split,) = document.split_antecedents
    split.antecedents.append(anne)  # John, Mary and Anne
    changes = document.remove_mention(anne.mentions[0])
    assert document.entity("e9") is None
    assert [a.id for a in split.antecedents] == ["e1", "e2"]
    assert [c.what for c in changes] == ["split antecedent shrunk"]
    reread(corpus)


def test_a_split_antecedent_left_with_one_antecedent_is_removed() -> None:
    corpus = sample()
    document = corpus.documents[0]
    changes = document.remove_mention(document.entity("e1").mentions[0])
    assert document.entity("e1") is None and document.split_antecedents == []
    assert [c.what for c in changes] == ["split antecedent removed"]  # CorefUD requires two antecedents
    reread(corpus)


def test_removing_a_bridge_anaphor_or_its_antecedent_removes_the_bridge() -> None:
    corpus = sample()
    document = corpus.documents[0]
    streets = document.entity("e5").mentions[0]
    assert [c.what for c in document.remove_mention(streets)] == ["bridge removed"]
    assert document.bridges == [] and document.entity("e5") is None
    document = sample().documents[0]
    city = document.entity("e3")
    changes = document.remove_entity(city)
    assert document.bridges == [] and [c.what for c in changes] == ["bridge removed"]
    reread(corpus)


def test_removing_the_anchor_of_a_split_antecedent_moves_it_to_the_first_mention() -> None:
    corpus = sample()
    document = corpus.documents[0]
    they = document.entity("e4")
    second = document.add_mention(they, [document.sentences[2].nodes[0]])
    (split,) = document.split_antecedents
    split.anchor = second
    document.remove_mention(second)
    assert split.anchor is None
    assert "SplitAnte=e1<e4,e2<e4" in format_corefud(corpus)


def test_merge_retargets_relations_and_drops_reflexive_ones() -> None:
    corpus = sample()
    document = corpus.documents[0]
    e3_type, e5_type = document.entity("e3").type, document.entity("e5").type
    changes = document.merge_entities(document.entity("e3"), document.entity("e5"))
    assert document.entity("e5") is None and len(document.entity("e3").mentions) == 3
    # Each mention of e5 that takes e3's type is a change too.
    retyped = [c for c in changes if c.what == "mention type changed"]
    assert len(retyped) == (1 if e3_type != e5_type else 0)
    assert document.bridges == [] and [c.what for c in changes if c not in retyped] == ["bridge removed"]
    changes = document.merge_entities(document.entity("e4"), document.entity("e1"))
    assert document.split_antecedents == [] and [c.what for c in changes if c.what != "mention type changed"] == [
        "split antecedent removed"]
    document = sample().documents[0]
    changes = document.merge_entities(document.entity("e1"), document.entity("e2"))
    assert document.split_antecedents == [] and [c.what for c in changes if c.what != "mention type changed"] == [
        "split antecedent removed"]
    reread(corpus)


def test_split_entity_and_move_head() -> None:
    corpus = sample()
    document = corpus.documents[0]
    mary = document.entity("e2")
    zero = mary.mentions[-1]
    new = document.split_entity(mary, [zero], "e9")
    assert new.type == "person" and new.mentions == [zero] and zero.entity is new
    mention = document.entity("e5").mentions[0]
    document.move_head(mention, mention.words[0])
    assert mention.head.form == "the"
    with pytest.raises(ModelError):
        document.move_head(mention, zero.words[0])
    reread(corpus)


def test_add_mention_checks_its_nodes() -> None:
    document = sample().documents[0]
    e1 = document.entity("e1")
    with pytest.raises(ModelError, match="one sentence"):
        document.add_mention(e1, [document.sentences[0].nodes[0], document.sentences[1].nodes[0]])
    with pytest.raises(ModelError, match="head"):
        document.add_mention(e1, [document.sentences[0].nodes[0]], head=document.sentences[0].nodes[1])
    with pytest.raises(ModelError, match="already exists"):
        document.new_entity("e1")


def build_document(n_nodes: int, spans: list[tuple[list[int], int]], empty_after: int | None) -> Corpus:
    """A one-sentence document with mentions over the given node positions, entity numbers and an empty node."""
    document = Document(id="gen")
    sentence = document.add_sentence(Sentence(id="gen-1"))
    for i in range(1, n_nodes + 1):
        sentence.add_node(Node(str(i), f"w{i}"))
        if empty_after == i:
            sentence.add_node(Node(f"{i}.1", "_"))
    entities = {}
    for positions, entity_number in spans:
        entity = entities.get(entity_number) or entities.setdefault(
            entity_number, document.new_entity(f"e{entity_number}", "thing"))
        words = [sentence.nodes[p] for p in positions]
        document.add_mention(entity, words, head=words[-1])
    return Corpus([document])


span_lists = st.integers(min_value=2, max_value=9).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.tuples(
                st.lists(st.integers(min_value=0, max_value=n - 1), min_size=1, max_size=4, unique=True),
                st.integers(min_value=1, max_value=3),
            ),
            max_size=6,
        ),
        st.one_of(st.none(), st.integers(min_value=1, max_value=n - 1)),
    )
)


@settings(max_examples=300, deadline=None)
@given(span_lists)
def test_any_mentions_write_and_read_back_identically(case) -> None:
    """Nested, crossing, discontinuous, duplicate and empty-node mentions all survive the writer."""
    n_nodes, spans, empty_after = case
    corpus = build_document(n_nodes, spans, empty_after)
    report = Report()
    text = format_corefud(corpus, report)
    if report:  # the one thing CorefUD cannot say; the writer reports it (tested below)
        assert set(report.counts) == {"ambiguous mentions of one entity"}
        return
    again = parse_corefud(text)
    assert corpus_signature(again) == corpus_signature(corpus)
    assert format_corefud(again) == text


def test_crossing_mentions_of_one_entity_are_reported() -> None:
    report = Report()
    format_corefud(build_document(4, [([0, 1, 2], 1), ([1, 2, 3], 1)], None), report)
    assert report.counts["ambiguous mentions of one entity"] == 2  # both read back as other spans


def test_interleaved_discontinuous_mentions_of_one_entity_are_reported() -> None:
    # A = [0]+[2] and B = [1]+[3] read back fine; A = [0]+[5] and B = [2]+[4] cannot be told apart.
    corpus = build_document(6, [([0, 5], 1), ([2, 4], 1)], None)
    report = Report()
    format_corefud(corpus, report)
    assert report.counts["ambiguous mentions of one entity"] == 2  # both read back as other spans
    for fine in ([([0, 2], 1), ([1, 3], 1)], [([0, 2], 1), ([0, 2, 3], 1)]):
        report = Report()
        corpus = build_document(4, fine, None)
        again = parse_corefud(format_corefud(corpus, report))
        assert not report and corpus_signature(again) == corpus_signature(corpus)


def test_release_empties_the_corpus_and_frees_it_without_the_collector() -> None:
    import gc
    import weakref

    corpus = sample()
    document = corpus.documents[0]
    document.sentences[0].word("1")  # builds the sentence's id index, another path back to the nodes
    # Nodes take no weak references; a freed sentence means its nodes, which point to it, are gone too.
    probes = [weakref.ref(document), weakref.ref(document.sentences[0]), weakref.ref(document.mentions[0])]
    gc.disable()
    try:
        corpus.release()
        del document
        assert corpus.documents == []
        assert [probe() for probe in probes] == [None] * 3  # freed by reference counting alone
    finally:
        gc.enable()
