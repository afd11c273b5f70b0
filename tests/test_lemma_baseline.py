"""The same-lemma cross-document baseline on hand-made documents: exact entities per scope, events and entities
apart, the CLI's refusal of a scope the input cannot give."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.errors import Report
from harmonize.resolvers.lemma import LEMMA_FROM_FORM, ScopeError, resolve_lemma
from harmonize.schemas.model import Corpus


def document(doc_id: str, subtopic: str, rows: list[tuple[str, str, str, str]]) -> str:
    """One sentence; rows: (form, lemma, UPOS, Entity value)."""
    lines = [f"# newdoc id = {doc_id}", "# global.Entity = eid-etype-head-other", "# meta::topic = 1",
             f"# meta::subtopic = {subtopic}", f"# sent_id = {doc_id}-1",
             f"# text = {' '.join(r[0] for r in rows)}"]
    for number, (form, lemma, upos, entity) in enumerate(rows, 1):
        lines.append("\t".join([str(number), form, lemma, upos, "_", "_", "_", "_", "_",
                                f"Entity={entity}" if entity else "_"]))
    return "\n".join(lines) + "\n\n"


TEXT = (document("d1", "1a", [("Police", "police", "NOUN", "(e1-human-1-)"), ("arrested", "arrest", "VERB",
                                                                                 "(e2-event-1-)"),
                              ("a", "a", "DET", ""), ("man", "man", "NOUN", "(e3-human-1-)")])
        + document("d2", "1a", [("The", "the", "DET", "(e1-human-2-"), ("police", "police", "NOUN", "e1)"),
                                ("made", "make", "VERB", ""), ("an", "a", "DET", ""),
                                ("arrest", "arrest", "NOUN", "(e2-event-1-)")])
        + document("d3", "1b", [("Police", "police", "NOUN", "(e1-human-1-)"), ("arrest", "arrest", "VERB",
                                                                                "(e4-event-1-)")]))


def clusters(corpus: Corpus) -> dict[str, list[tuple[str, str]]]:
    result: dict[str, list[tuple[str, str]]] = {}
    for document in corpus.documents:
        for entity in document.entities:
            result.setdefault(entity.id, []).extend((str(document.id), m.text) for m in entity.mentions)
    return result


def test_one_entity_per_lemma_and_kind_in_each_topic() -> None:
    corpus = parse_corefud(TEXT)
    counts = resolve_lemma(corpus, "topic", gold_mentions=True)
    assert counts["event mentions"] == 3 and counts["entity mentions"] == 4
    assert sorted(clusters(corpus).values()) == sorted([
        [("d1", "Police"), ("d2", "The police"), ("d3", "Police")],  # head "police" (the last word: no tree)
        [("d1", "arrested"), ("d2", "arrest"), ("d3", "arrest")],  # events by lemma, verb or noun alike
        [("d1", "man")],
    ])


def test_subtopics_are_apart_and_ids_are_shared_across_calls() -> None:
    corpus = parse_corefud(TEXT)
    resolve_lemma(corpus, "subtopic", gold_mentions=True)
    found = clusters(corpus)
    assert [("d3", "Police")] in found.values() and [("d3", "arrest")] in found.values()
    ids: dict = {}
    first, second = parse_corefud(TEXT), parse_corefud(TEXT)
    resolve_lemma(Corpus(first.documents[:1]), "topic", True, Report(), ids)
    resolve_lemma(Corpus(second.documents[1:2]), "topic", True, Report(), ids)
    assert first.documents[0].entities[0].id == second.documents[1].entities[0].id  # "police" in two files
    assert "# global.Entity" in format_corefud(Corpus(second.documents[1:2]))


def test_forms_stand_in_for_missing_lemmas_and_are_counted() -> None:
    corpus = parse_corefud(TEXT.replace("\tpolice\tNOUN", "\t_\tNOUN"))
    report = Report()
    resolve_lemma(corpus, "corpus", gold_mentions=True, report=report)
    assert report.counts[LEMMA_FROM_FORM] == 3
    assert [("d1", "Police"), ("d2", "The police"), ("d3", "Police")] in clusters(corpus).values()


def test_mentions_found_from_tags_without_gold_mentions() -> None:
    corpus = parse_corefud(TEXT)
    resolve_lemma(corpus, "topic")
    texts = sorted(m for c in clusters(corpus).values() for m in c)
    assert ("d1", "arrested") in texts and ("d2", "made") in texts and ("d1", "a") not in texts


def test_a_topic_scope_needs_topics(tmp_path: Path) -> None:
    plain = parse_corefud(TEXT.replace("# meta::topic = 1\n", ""))
    with pytest.raises(ScopeError, match="needs documents grouped in topics"):
        resolve_lemma(plain, "topic", gold_mentions=True)
    source = tmp_path / "plain.conllu"
    source.write_text(TEXT.replace("# meta::topic = 1\n", ""), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harmonize", "resolve", "lemma", str(source), "--gold-mentions",
                           "-o", str(tmp_path / "out.conllu")], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "--scope corpus" in done.stderr
    done = subprocess.run([sys.executable, "-m", "harmonize", "resolve", "lemma", str(source), "--gold-mentions",
                           "--scope", "corpus", "-o", str(tmp_path / "out.conllu")], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
