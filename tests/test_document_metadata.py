"""A document's metadata (language, genre, topic, subtopic) goes wherever the target can hold it and reads back:
CorefUD and CoNLL-UA as ``# meta::KEY = VALUE`` comments (GUM's way), jsonlines as keys of the record, Parquet in
its documents table, TEI in its header; the report names it only where the target truly has no place (brat, WebAnno
TSV, MMAX2)."""

from __future__ import annotations

from pathlib import Path

import pytest

import harmonize
from harmonize.errors import Report
from harmonize.schemas.model import Corpus, Document, Node, Sentence
from harmonize.stats import stats_tables

FIELDS = ("language", "genre", "topic", "subtopic")


def _document() -> Document:
    document = Document(id="d1", language="pl", genre="news", topic="36", subtopic="36_2")
    sentence = document.add_sentence(Sentence(id="d1-1", text="Ala ma kota"))
    for number, form in enumerate(["Ala", "ma", "kota"], 1):
        sentence.add_node(Node(str(number), form))
    entity = document.new_entity("e1")
    document.add_mention(entity, [sentence.nodes[0]])
    return document


@pytest.mark.parametrize(("target", "name"), [("corefud", "out.conllu"), ("ua", "out.conllua"),
                                              ("jsonlines", "out.jsonlines"), ("parquet", "out"), ("tei", "out")])
def test_document_fields_read_back_where_the_target_holds_them(target: str, name: str, tmp_path: Path) -> None:
    report = harmonize.write(Corpus([_document()]), tmp_path / name, target, report=Report())
    assert not any("document field" in reason for reason in report.counts), report.counts
    back = harmonize.read(tmp_path / name, target).documents[0]
    assert {field: getattr(back, field) for field in FIELDS} == {field: getattr(_document(), field)
                                                                for field in FIELDS}


@pytest.mark.parametrize("target", ["brat", "webanno-tsv", "mmax2"])
def test_a_target_without_a_place_names_them(target: str, tmp_path: Path) -> None:
    report = harmonize.write(Corpus([_document()]), tmp_path / "out", target, report=Report())
    assert any(reason.startswith("document fields (language, genre, topic, subtopic) not written")
               for reason in report.counts), report.counts


def test_a_converted_corpus_groups_by_genre(tmp_path: Path) -> None:
    corpus = Corpus([_document()])
    harmonize.write(corpus, tmp_path / "out.conllu", "corefud", report=Report())
    table = stats_tables(harmonize.read(tmp_path / "out.conllu"), by="genre", tables=["corpus"])["corpus"]
    assert list(table.index) == ["news"]


def test_a_genre_the_doc_key_implies_is_accounted_for(tmp_path: Path) -> None:
    """jsonlines readers take the genre from the doc_key's prefix (OntoNotes' "bc/..."): a document without one
    whose id has a "/" (ParCorFull's in CorefUD) reads back with one, and the report says so."""
    document = _document()
    document.id, document.genre = "input_data/news/10_words.xml", None
    converted = harmonize.convert([_written(document, tmp_path)], "corefud", "jsonlines", tmp_path / "out.jsonlines",
                                  warn_losses=False, verify=True)
    assert any(reason.startswith("document fields") for reason in converted.report.counts)
    assert harmonize.read(tmp_path / "out.jsonlines", "jsonlines").documents[0].genre == "input_data"


def _written(document: Document, folder: Path) -> Path:
    harmonize.write(Corpus([document]), folder / "in.conllu", "corefud", report=Report())
    return folder / "in.conllu"
