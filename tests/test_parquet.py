"""Parquet tables: readable by pandas, and read back into the same model (CorefUD output byte for byte)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

from harmonize.converters.corefud import format_corefud, parse_corefud, read_corefud
from harmonize.converters.parquet import TABLES, read_parquet, write_parquet
from harmonize.errors import FormatError, Report
from harmonize.schemas.model import Corpus
from harmonize.schemas.signature import corpus_signature
from tests.conftest import shared


def sample() -> Corpus:
    return parse_corefud((resources.files("harmonize") / "samples" / "sample.conllu").read_text(encoding="utf-8"))


def test_sample_round_trip_and_pandas_view(tmp_path: Path) -> None:
    corpus = sample()
    write_parquet(corpus, tmp_path / "pq")
    again = read_parquet(tmp_path / "pq")
    assert corpus_signature(again) == corpus_signature(sample())
    assert format_corefud(again) == format_corefud(sample())
    mentions = pd.read_parquet(tmp_path / "pq" / "mentions.parquet")
    assert len(mentions) == 14 and list(mentions.columns[:8]) == ["doc", "doc_id", "mention", "entity", "sent",
                                                                  "sent_id", "text", "positions"]
    relations = pd.read_parquet(tmp_path / "pq" / "relations.parquet")
    assert sorted(relations.kind) == ["bridge", "split"]
    assert {p.name for p in (tmp_path / "pq").iterdir()} == {f"{t}.parquet" for t in TABLES}


def test_all_of_gum_v11_comes_back_as_the_same_model(tmp_path: Path) -> None:
    folder = shared("gum", "v11.1.0", "dep")
    report = Report()
    corpus = Corpus([d for p in sorted(folder.glob("*.conllu")) for d in read_corefud(p, True, report).documents])
    write_parquet(corpus, tmp_path / "gum")
    again = read_parquet(tmp_path / "gum")
    assert corpus_signature(again) == corpus_signature(corpus)
    assert format_corefud(again) == format_corefud(corpus)  # bookkeeping for exact CorefUD output included
    assert len(pd.read_parquet(tmp_path / "gum" / "tokens.parquet")) == 268089 + 119  # words and empty nodes


def test_a_folder_without_the_tables_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    with pytest.raises(FormatError, match="not a harmonize Parquet folder"):
        read_parquet(tmp_path / "x")


def test_a_broken_or_foreign_table_is_an_error_naming_it(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    write_parquet(sample(), tmp_path / "pq")
    (tmp_path / "pq" / "tokens.parquet").write_text("not parquet", encoding="utf-8")
    with pytest.raises(FormatError, match="not a readable Parquet table") as raised:
        read_parquet(tmp_path / "pq")
    assert raised.value.path == str(tmp_path / "pq" / "tokens.parquet")
    write_parquet(sample(), tmp_path / "pq")
    pq.write_table(pa.table({"doc": [0], "name": ["x"]}), tmp_path / "pq" / "documents.parquet")
    with pytest.raises(FormatError, match="not a harmonize Parquet folder: KeyError"):
        read_parquet(tmp_path / "pq")


def test_conll2012_files_come_back_byte_identical_through_parquet(tmp_path: Path) -> None:
    """Layout bookkeeping (the lines around the cells, Potsdam's bare ids, a missing final newline) is kept too."""
    from harmonize.converters.conll2012 import format_conll2012, read_conll2012

    paths = [shared("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll"),
             shared("litbank", "conll", "105_persuasion_brat.conll"),
             shared("mmax2", "potsdam_pcc2.2", "coreference-conll", "maz-11299.conll")]
    for number, path in enumerate(paths):
        write_parquet(read_conll2012(path), tmp_path / str(number))
        assert format_conll2012(read_parquet(tmp_path / str(number))) == path.read_text(encoding="utf-8"), path.name


def test_analysts_read_each_table_as_it_is_with_ids_and_mention_text(tmp_path: Path) -> None:
    """Every table names its document by id (and tokens and mentions their sentence), mentions carry their text;
    pandas, pyarrow and DuckDB (where installed) read the tables from the folder as written."""
    import pyarrow.dataset as ds

    corpus = read_corefud(shared("gum", "v11.1.0", "dep", "GUM_academic_art.conllu"), report=Report())
    write_parquet(corpus, tmp_path / "art", Report())
    document = corpus.documents[0]
    mentions = pd.read_parquet(tmp_path / "art" / "mentions.parquet")
    assert set(mentions["doc_id"]) == {document.id}
    first = document.mentions[0]
    row = mentions[mentions["mention"] == 0].iloc[0]
    assert (row["sent_id"], row["text"], row["entity"]) == (first.sentence.id, first.text, first.entity.id)
    for table in TABLES:
        assert "doc_id" in ds.dataset(tmp_path / "art" / f"{table}.parquet").schema.names or table == "documents"
    tokens = ds.dataset(tmp_path / "art" / "tokens.parquet").to_table(columns=["doc_id", "sent_id", "form"])
    assert tokens.num_rows == sum(len(s.nodes) for s in document.sentences)
    duckdb = pytest.importorskip("duckdb", reason="DuckDB not installed: pip install duckdb to check it too")
    found = duckdb.sql(f"SELECT count(*) FROM '{tmp_path / 'art' / 'mentions.parquet'}' WHERE doc_id = "
                       f"'{document.id}'").fetchall()
    assert found == [(len(document.mentions),)]
    assert corpus_signature(read_parquet(tmp_path / "art")) == corpus_signature(corpus)  # still read back whole
