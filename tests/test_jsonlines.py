"""jsonlines (e2e-coref): what e2e-coref-style loaders expect, policies for what the format cannot hold, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harmonize.converters.conll2012 import read_conll2012
from harmonize.converters.corefud import parse_corefud, read_corefud
from harmonize.converters.jsonlines import format_jsonlines, parse_jsonlines, read_jsonlines
from harmonize.errors import FormatError, Report
from harmonize.schemas.model import Corpus
from tests.conftest import shared

# The genres e2e-coref looks up with doc_key[:2] (coref_model.py, "genres" in experiments.conf).
ONTONOTES_GENRES = {"bc", "bn", "mz", "nw", "pt", "tc", "wb"}


def load_like_e2e_coref(line: str) -> tuple[list[str], list[list[tuple[int, int]]]]:
    """What e2e-coref's tensorize_example and s2e-coref's CorefDataset do with one line, checks included: words
    flattened over sentences, one speaker per word, clusters of inclusive [start, end] word indices."""
    example = json.loads(line)
    words = [word for sentence in example["sentences"] for word in sentence]
    speakers = [speaker for sentence in example["speakers"] for speaker in sentence]
    assert len(words) == len(speakers)
    assert isinstance(example["doc_key"], str)
    clusters = [[(start, end) for start, end in cluster] for cluster in example["clusters"]]
    assert all(0 <= start <= end < len(words) for cluster in clusters for start, end in cluster)
    return words, clusters


def _mention_texts(corpus: Corpus) -> list[list[list[str]]]:
    return [[[m.text for m in e.mentions] for e in d.entities] for d in corpus.documents]


def test_e2e_coref_loader_sees_the_ontonotes_mentions() -> None:
    corpus = read_conll2012(shared("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll"))
    lines = format_jsonlines(corpus).splitlines()
    assert len(lines) == 3
    seen = []
    for line in lines:
        words, clusters = load_like_e2e_coref(line)
        seen.append([[" ".join(words[s : e + 1]) for s, e in cluster] for cluster in clusters])
        key = json.loads(line)["doc_key"]
        assert key[:2] in ONTONOTES_GENRES and key.startswith("bc/cctv/00/cctv_0000_")  # e2e-coref's NAME_part
    assert seen == _mention_texts(corpus)
    first = json.loads(lines[0])
    assert list(first) == ["doc_key", "sentences", "speakers", "clusters", "pos"]
    assert (first["doc_key"], first["speakers"][0][0], first["pos"][0][:2]) == ("bc/cctv/00/cctv_0000_0",
                                                                             "Speaker#1", ["IN", "DT"])


def test_litbank_through_jsonlines_keeps_every_mention() -> None:
    for path in sorted(shared("litbank", "conll").glob("*.conll"))[:10]:
        corpus = read_conll2012(path)
        text = format_jsonlines(corpus)
        words, clusters = load_like_e2e_coref(text)
        assert len(words) == sum(len(s.nodes) for d in corpus.documents for s in d.sentences)
        assert sum(len(c) for c in clusters) == sum(len(d.mentions) for d in corpus.documents)
        back = parse_jsonlines(text, "litbank.jsonlines")
        assert _mention_texts(back) == _mention_texts(corpus)
        assert format_jsonlines(back) == text


def test_gum_through_jsonlines_and_back_is_byte_identical(tmp_path: Path) -> None:
    corpus = read_corefud(shared("gum", "v11.1.0", "dep", "GUM_academic_eegimaa.conllu"))
    report = Report()
    text = format_jsonlines(corpus, report)
    path = tmp_path / "eegimaa.jsonlines"
    path.write_text(text, encoding="utf-8")
    assert format_jsonlines(read_jsonlines(path)) == text
    # GUM_academic_eegimaa has mentions with empty nodes: they lose those nodes, and the report says so.
    assert report.counts["empty nodes left out of a mention (jsonlines has no empty nodes)"] > 0
    assert report.counts["entity types not written (jsonlines has no place for them)"] == len(
        corpus.documents[0].entities)


def test_policies_for_gaps_empty_nodes_and_singletons() -> None:
    corpus = parse_corefud("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = 1\n# text = a b c d\n"
                           + "".join(f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n" for i, w in enumerate("abcd", 1))
                           + "4.1\t_\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    document = corpus.documents[0]
    a, b, _c, d, zero = document.sentences[0].nodes
    document.add_mention(document.new_entity("e1"), [a, b, d], head=d)
    document.add_mention(document.new_entity("e2"), [zero])
    document.add_mention(document.new_entity("e3"), [b])
    document.add_mention(document.entity("e3"), [d, zero])
    expected = {("head-part", "keep"): [[[3, 3]], [[1, 1], [3, 3]]],
                ("drop", "keep"): [[[1, 1], [3, 3]]],
                ("drop", "drop"): [[[1, 1], [3, 3]]],
                ("head-part", "drop"): [[[1, 1], [3, 3]]]}
    for (policy, singletons), clusters in expected.items():
        report = Report()
        record = json.loads(format_jsonlines(corpus, report, policy, singletons))
        assert record["clusters"] == clusters, (policy, singletons)
        assert record["sentences"] == [["a", "b", "c", "d"]] and "pos" not in record
        assert report.counts["mention of empty nodes only dropped (jsonlines has no empty nodes)"] == 1
        assert report.counts["empty nodes left out of a mention (jsonlines has no empty nodes)"] == 1
        assert report.counts["singleton dropped (singletons=drop)"] == (
            1 if (policy, singletons) == ("head-part", "drop") else 0)


def test_unknown_keys_pass_through() -> None:
    line = json.dumps({"doc_key": "nw/x_0", "sentences": [["A", "b"], ["C"]], "speakers": [["s", "s"], ["t"]],
                       "clusters": [[[0, 1], [2, 2]]], "constituents": [[0, 1, "NP"]], "ner": [[2, 2, "GPE"]]})
    corpus = parse_jsonlines(line + "\n")
    assert [s.speaker for s in corpus.documents[0].sentences] == ["s", "t"]
    assert format_jsonlines(corpus) == line + "\n"


@pytest.mark.parametrize("text,line,reason", [
    (('{"doc_key": "a", "sentences": [["x"]], "clusters": []}\n{"doc_key": "b", "sentences": [["x"], ["y"]], '
      '"clusters": [[[0, 1]]]}\n'), 2, "mention crosses a sentence boundary"),
    ('{"doc_key": "a", "sentences": [["x"]], "clusters": [[[0, 3]]]}\n', 1, "mention out of range"),
    ('\n{"doc_key": "a", "sentences": [["x"]]\n', 2, "not JSON"),
    ('{"doc_key": "a", "sentences": [["x"]], "speakers": [[]]}\n', 1, "not an e2e-coref document"),
])
def test_broken_lines_name_line_and_reason(text: str, line: int, reason: str) -> None:
    with pytest.raises(FormatError) as raised:
        parse_jsonlines(text, "bad.jsonlines")
    assert (raised.value.path, raised.value.line, raised.value.reason.split(":")[0]) == ("bad.jsonlines", line, reason)
    report = Report()
    parse_jsonlines(text, "bad.jsonlines", lenient=True, report=report)
    assert report.counts[reason] == 1
