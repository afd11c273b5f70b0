"""build a document at a time: where every format a recipe asks for takes documents one at a time (all but
Parquet, UA and mentions-json), a corpus is read twice, a piece at a time, instead of held whole. The release must
be byte for byte the one a build holding the corpus whole makes: for readers with and without a header of their
own, a share split and a corpus' own split, a rule over the corpus (unique-ids) ruling a large file's pieces,
statistics, views, questions and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

import harmonize
from harmonize.converters import corefud, corefud_pieces
from harmonize.converters.conll2012 import Conll2012Writer, cross_document_numbers, numbering_facts, write_conll2012
from harmonize.converters.corefud import CorefudWriter, read_corefud, write_corefud
from harmonize.converters.corefud_pieces import piece_count
from harmonize.errors import HarmonizeError, Report
from harmonize.releases import tasks
from harmonize.schemas.model import Corpus
from tests.conftest import SHARED_DATA, shared

GUM_FILES = ("GUM_academic_art", "GUM_bio_byron", "GUM_fiction_lunre", "GUM_news_iodine", "GUM_voyage_athens",
             "GUM_whow_joke")


def release_files(folder: Path) -> dict[str, bytes]:
    """Every file of a release, its cache entries (the corpus summaries) included."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def gum_in_one_file(folder: Path) -> Path:
    """Six GUM documents in one CorefUD file: every one numbers its entities from 1, so unique-ids renames."""
    dep = shared("gum", "v11.1.0", "dep")
    corpus = Corpus([document for name in GUM_FILES for document in read_corefud(dep / f"{name}.conllu").documents])
    path = folder / "gum.conllu"
    write_corefud(corpus, path)
    return path


def recipe(folder: Path, gum: Path) -> Path:
    shared("mmax2", "parcorfull", "news", "EN")
    path = folder / "recipe.toml"
    path.write_text(f"""[collection]
name = "streamed"
version = "1"

[[corpus]]
name = "en_gum"
from = "corefud"
input = ["{gum}"]
rules = ["corefud"]
split = {{train = 4, dev = 1, test = 1, seed = 3}}

[[corpus]]
name = "en_parcorfull"
from = "mmax2"
input = ["{SHARED_DATA}/mmax2/parcorfull/news/EN"]
split = {{train = 8, dev = 1, test = 1, seed = 0}}

[[corpus]]
name = "en_ecbplus"
from = "ecbplus"
input = ["{SHARED_DATA}/ecbplus/ECB+/1", "{SHARED_DATA}/ecbplus/ECB+/2"]

[outputs]
formats = ["corefud", "conll2012", "jsonlines", "rucoco", "webanno-tsv", "brat", "xmi", "tei", "mmax2"]
stats = true
views = true
pcr = true
validate = "rules"
""", encoding="utf-8")
    return path


def test_a_streamed_build_is_the_held_build_byte_for_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gum = gum_in_one_file(tmp_path)
    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", 100_000)  # the GUM file is read in pieces
    assert piece_count(gum.stat().st_size) >= 5
    streamed_corpora = []
    build_streamed = tasks._build_streamed
    monkeypatch.setattr(tasks, "_build_streamed", lambda corpus, *rest: streamed_corpora.append(corpus.name) or
                        build_streamed(corpus, *rest))
    path = recipe(tmp_path, gum)
    streamed = harmonize.build(path, tmp_path / "streamed", jobs=1)
    assert streamed.ok and streamed_corpora == ["en_gum", "en_parcorfull", "en_ecbplus"]
    monkeypatch.setattr(tasks, "_streams", lambda plan: False)
    held = harmonize.build(path, tmp_path / "held", jobs=1)
    assert held.ok and len(streamed_corpora) == 3
    files = release_files(tmp_path / "streamed")
    assert files == release_files(tmp_path / "held")
    renamed = files["en_gum/en_gum-corefud-train.conllu"].decode("utf-8")
    assert "Entity=(e1-" in renamed and "(1-" not in renamed  # ruled: numeric GRP ids made unique as e<number>
    for name in ("en_gum/stats.md", "views/en_gum/index.html", "pcr/train.jsonl", "validation.md",
                 "en_parcorfull/en_parcorfull-corefud-dev.conllu", "en_ecbplus/en_ecbplus-conll2012-dev.conll"):
        assert name in files, name
    assert sum(name.startswith("en_gum/en_gum-rucoco-") and name.endswith(".json") for name in files) == 6
    assert sum(name.startswith("en_gum/en_gum-xmi-") and name.endswith("TypeSystem.xml") for name in files) == 3


def test_a_reading_error_leaves_no_split_file_behind(tmp_path: Path) -> None:
    gum = gum_in_one_file(tmp_path)
    text = gum.read_text(encoding="utf-8")
    at = text.index("Entity=(", len(text) // 2)
    gum.write_text(text[:at] + "Entity=((" + text[at + len("Entity=("):], encoding="utf-8")
    path = recipe(tmp_path, gum)
    with pytest.raises(HarmonizeError, match=r"corpus en_gum: .*gum.conllu:\d+: malformed Entity value"):
        harmonize.build(path, tmp_path / "release", jobs=1, only="en_gum")
    assert not list((tmp_path / "release").rglob("*.conllu*"))


def test_the_corefud_writer_takes_documents_one_at_a_time(tmp_path: Path) -> None:
    """With and without a header of their own: ParCorFull's documents (MMAX2) share one header."""
    shared("mmax2", "parcorfull", "news", "EN")
    report = Report()
    documents = harmonize.read(SHARED_DATA / "mmax2" / "parcorfull" / "news" / "EN", "mmax2", report=report).documents
    documents += read_corefud(gum_in_one_file(tmp_path)).documents[:2]
    write_corefud(Corpus(documents), tmp_path / "at-once.conllu")
    shared_fields = corefud.shared_header(corefud.header_wanted(d) for d in documents)
    assert shared_fields is not None
    writer = CorefudWriter(tmp_path / "one-by-one.conllu", Report(), shared_fields)
    for document in documents:
        writer.add(document)
    assert not (tmp_path / "one-by-one.conllu").exists()  # staged until published
    writer.publish()
    assert (tmp_path / "one-by-one.conllu").read_bytes() == (tmp_path / "at-once.conllu").read_bytes()


def test_the_conll2012_writer_takes_documents_one_at_a_time(tmp_path: Path) -> None:
    """ECB+'s topics number entities across documents; GUM's documents number their own."""
    topics = harmonize.read(shared("ecbplus", "ECB+", "1"), "ecbplus", report=Report()).documents
    for documents in (topics, read_corefud(gum_in_one_file(tmp_path)).documents[:3]):
        write_conll2012(Corpus(documents), tmp_path / "at-once.conll", Report())
        numbers = cross_document_numbers(numbering_facts(d) for d in documents)
        assert (numbers is not None) == (documents is topics)
        writer = Conll2012Writer(tmp_path / "one-by-one.conll", Report(), numbers)
        for document in documents:
            writer.add(document)
        writer.publish()
        assert (tmp_path / "one-by-one.conll").read_bytes() == (tmp_path / "at-once.conll").read_bytes()


def test_the_jsonlines_writer_takes_documents_one_at_a_time(tmp_path: Path) -> None:
    from harmonize.converters.jsonlines import JsonlinesWriter, write_jsonlines

    documents = read_corefud(gum_in_one_file(tmp_path)).documents
    write_jsonlines(Corpus(documents), tmp_path / "at-once.jsonl", Report())
    writer = JsonlinesWriter(tmp_path / "one-by-one.jsonl", Report())
    for document in documents:
        writer.add(document)
    writer.publish()
    assert (tmp_path / "one-by-one.jsonl").read_bytes() == (tmp_path / "at-once.jsonl").read_bytes()
