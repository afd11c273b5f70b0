"""brat standoff (LitBank against its CoNLL-2012 version; the three coreference encodings; round trips) and plain
text (the splitter, exact text, from text to coreference)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from harmonize.converters.brat import EDGE_MOVED, _parse_ann, read_brat, write_brat
from harmonize.converters.surface import document_text
from harmonize.converters.text import SPLITTER, document_from_text, read_text_file
from harmonize.errors import FormatError, Problems, Report
from tests.conftest import file_params, shared, shared_files

LITBANK = shared_files("*.ann", "litbank", "brat")


def spans_and_partition(document: harmonize.Document) -> tuple[set, set]:
    def key(mention: harmonize.Mention) -> tuple:
        return (mention.sentence.index, mention.words[0].position, mention.words[-1].position)

    return ({key(m) for e in document.entities for m in e.mentions},
            {frozenset(key(m) for m in e.mentions) for e in document.entities})


@pytest.mark.parametrize("path", file_params(LITBANK[::8], "LitBank in brat"))
def test_litbank_brat_equals_its_conll_version(path: Path) -> None:
    ours = read_brat(path).documents[0]
    conll = harmonize.read(path.parent.parent / "conll" / f"{path.stem}.conll", "conll2012").documents[0]
    assert [[n.form for n in s.nodes] for s in ours.sentences] == [[n.form for n in s.nodes] for s in conll.sentences]
    mentions, partition = spans_and_partition(ours)
    assert mentions == spans_and_partition(conll)[0]
    if path.stem != "1400_great_expectations_brat":  # its CoNLL clusters disagree with its labels (README)
        assert partition == spans_and_partition(conll)[1]
    assert {b.label for b in ours.bridges} <= {"cop", "appos"}


def ann_content(ann: Path) -> tuple[set, set, str]:
    bounds, relations, _equivalences = _parse_ann(ann.read_text(encoding="utf-8"), Problems(str(ann), True, Report()))
    spans = {b.id: tuple(b.spans) for b in bounds}
    return ({(b.type, tuple(b.spans)) for b in bounds}, {(k, spans[a], spans[c]) for k, a, c, _ in relations},
            ann.with_suffix(".txt").read_text(encoding="utf-8"))


def test_litbank_round_trips_in_content(tmp_path: Path) -> None:
    for path in LITBANK[::10] or [shared("litbank", "brat", "missing.ann")]:
        write_brat(read_brat(path), tmp_path, Report())
        assert ann_content(tmp_path / path.name) == ann_content(path), path.name


def test_persuasion_counts() -> None:
    """The README's figures for 105_persuasion_brat: 286 mentions, 72 clusters, 14 R lines."""
    document = read_brat(shared("litbank", "brat", "105_persuasion_brat.ann")).documents[0]
    assert sum(len(e.mentions) for e in document.entities) == 286 and len(document.entities) == 72
    assert len(document.bridges) == 14
    assert document.entities[0].mentions[0].attrs["mtype"] == "PROP_PER"  # Sir Walter Elliot
    assert document.entities[0].attrs["label"] == "Sir_Walter_Elliot%2D0"  # CorefUD-escaped, as the model holds values


TEXT = "Anna met Bo in Rome .\nShe liked him .\n"  # pretokenized, one sentence per line


MENTIONS = "T1\tPER 0 4\tAnna\nT2\tPER 22 25\tShe\nT3\tPER 9 11\tBo\nT4\tPER 32 35\thim\n"
ENCODINGS = [
    ("equiv", MENTIONS + "*\tCoreference T1 T2\n*\tCoreference T3 T4\n", "Coreference"),
    ("relation", MENTIONS + "R1\tCoref Arg1:T2 Arg2:T1\nR2\tCoref Arg1:T4 Arg2:T3\n", "Coref"),
    ("entity-label", MENTIONS + "T5\tAnna-0 0 4\tAnna\nT6\tAnna-0 22 25\tShe\nT7\tBo-1 9 11\tBo\n"
                                "T8\tBo-1 32 35\thim\n", ""),
]


@pytest.mark.parametrize(("encoding", "ann", "relation"), ENCODINGS)
def test_the_three_encodings_are_found_and_written_back(encoding: str, ann: str, relation: str,
                                                         tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "d.ann").write_text(ann, encoding="utf-8")
    document = read_brat(tmp_path / "d.ann", relation=relation or "Coreference").documents[0]
    assert document.meta["brat_coreference"] == encoding
    assert [[m.text for m in e.mentions] for e in document.entities] == [["Anna", "She"], ["Bo", "him"]]
    out = tmp_path / "out"
    write_brat(harmonize.Corpus([document]), out, Report())
    again = read_brat(out / "d.ann", relation="Coreference").documents[0]
    assert spans_and_partition(again) == spans_and_partition(document)


def test_a_discontinuous_span_and_an_edge_inside_a_word(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "d.ann").write_text("T1\tPER 0 4;9 11\tAnna Bo\nT2\tPER 23 25\the\n", encoding="utf-8")
    report = Report()
    document = read_brat(tmp_path / "d.ann", report=report).documents[0]
    first, second = [m for e in document.entities for m in e.mentions]
    assert first.is_discontinuous and first.text == "Anna Bo"
    assert second.text == "She" and report.counts[EDGE_MOVED] == 1
    write_brat(harmonize.Corpus([document]), tmp_path / "out", Report())
    assert "T0\tPER 0 4;9 11\tAnna Bo" in (tmp_path / "out" / "d.ann").read_text(encoding="utf-8")


def test_bad_brat_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "d.ann").write_text("T1\tPER 0 4\tAnna\nT2\tPER x y\tShe\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"d.ann:2: malformed T line"):
        read_brat(tmp_path / "d.ann")
    assert len(read_brat(tmp_path / "d.ann", lenient=True).documents[0].entities) == 1
    (tmp_path / "lone.ann").write_text("", encoding="utf-8")
    with pytest.raises(FormatError, match="no text beside it"):
        read_brat(tmp_path / "lone.ann")


def test_the_model_written_as_brat_reads_back(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    report = Report()
    harmonize.write(corpus, tmp_path / "out", "brat", report)
    for document in corpus.documents:
        back = read_brat(tmp_path / "out" / f"{document.id}.ann").documents[0]
        assert [[n.form for n in s.words] for s in back.sentences] == [[n.form for n in s.words]
                                                                       for s in document.sentences]
        written = sum(1 for e in document.entities for m in e.mentions if not all(w.is_empty for w in m.words))
        assert sum(len(e.mentions) for e in back.entities) == written
    assert report.counts["mention on empty nodes only: not written (brat spans are characters)"] == 1


def test_the_splitter_keeps_the_text_exactly() -> None:
    text = "  Dr. Smith met Mrs. O'Brien in the U.S. on Jan. 5.  She didn't stay!\n\nNext day, \"rain\"... End.\n"
    document = document_from_text(text, "d")
    assert [[n.form for n in s.nodes] for s in document.sentences] == [
        ["Dr.", "Smith", "met", "Mrs.", "O'Brien", "in", "the", "U.S.", "on", "Jan.", "5", "."],
        ["She", "did", "n't", "stay", "!"], ["Next", "day", ",", '"', "rain", '"', "..."], ["End", "."]]
    assert document_text(document).text == text
    assert document.sentences[2].comments[0].startswith("# newpar")


@pytest.mark.parametrize("path", file_params(LITBANK[:3], "LitBank texts"))
def test_real_texts_are_rebuilt_exactly(path: Path) -> None:
    text = path.with_suffix(".txt").read_text(encoding="utf-8")
    assert document_text(document_from_text(text, "d")).text == text


def test_text_reader_reports_its_splitter_and_writes_corefud(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("Ann met Bo. She left.\n", encoding="utf-8")
    report = Report()
    corpus = read_text_file(source, report=report)
    assert report.counts[SPLITTER] == 1 and len(corpus.documents[0].sentences) == 2
    done = subprocess.run([sys.executable, "-m", "harmonize", "convert", str(source), "--from", "text", "--to",
                           "corefud", "-o", str(tmp_path / "notes.conllu")], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "# text = Ann met Bo." in (tmp_path / "notes.conllu").read_text(encoding="utf-8")


def test_a_udpipe_tokenizer_makes_the_words_and_the_text_stays_exact(udpipe_tokenizing_model: Path,
                                                                       tmp_path: Path) -> None:
    text = "Dr. Smith met Mrs. O'Brien.  She didn't stay!\n\nThe next day it rained.\n"
    source = tmp_path / "notes.txt"
    source.write_text(text, encoding="utf-8")
    report = Report()
    corpus = read_text_file(source, report=report, tokenizer=f"udpipe:{udpipe_tokenizing_model}")
    assert report.counts[f"sentences and words from the tokenizer of udpipe:{udpipe_tokenizing_model.name}"] == 1
    document = corpus.documents[0]
    assert document_text(document).text == text and len(document.sentences) >= 2
    assert any(c.startswith("# newpar") for s in document.sentences[1:] for c in s.comments if isinstance(c, str))
    done = subprocess.run([sys.executable, "-m", "harmonize", "convert", str(source), "--from", "text", "--parse",
                           f"udpipe:{udpipe_tokenizing_model}", "-o", str(tmp_path / "notes.conllu")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "tokenizer of udpipe" in done.stderr
    parsed = harmonize.read(tmp_path / "notes.conllu")
    assert all(n.head not in ("", "_") for d in parsed.documents for n in d.nodes())  # tokenized, then parsed


def test_brat_tokens_from_a_parser(udpipe_tokenizing_model: Path, tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("Anna met Bo in Rome. She liked him.", encoding="utf-8")
    (tmp_path / "d.ann").write_text("T1\tPER 0 4\tAnna\nT2\tPER 21 24\tShe\n*\tCoreference T1 T2\n",
                                    encoding="utf-8")
    document = read_brat(tmp_path / "d.ann", tokens="parser",
                         tokenizer=f"udpipe:{udpipe_tokenizing_model}").documents[0]
    assert [m.text for m in document.entities[0].mentions] == ["Anna", "She"]
    with pytest.raises(FormatError, match="tokens=parser needs"):
        read_brat(tmp_path / "d.ann", tokens="parser")


def test_stanzas_tokenizer_is_used_on_raw_text() -> None:
    """With a stand-in of stanza's interface (the real models cannot be downloaded here): sentences of tokens with
    their character offsets, as stanza's tokenize processor gives them."""
    import re
    from types import SimpleNamespace

    from harmonize.parsing.stanza import StanzaParser

    def tokenizer(language: str):
        assert language == "en"

        def run(text: str) -> SimpleNamespace:
            sentences = []
            for line_start, line in ((m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)):
                tokens = [SimpleNamespace(start_char=line_start + m.start(), end_char=line_start + m.end())
                          for m in re.finditer(r"\w+|[^\w\s]", line)]
                sentences.append(SimpleNamespace(tokens=tokens))
            return SimpleNamespace(sentences=sentences)
        return run

    parser = StanzaParser("en", make_tokenizer=tokenizer)
    text = "Ann met Bo.\nShe left!\n"
    document = document_from_text(text, "d", parser.tokenize(text))
    assert [[n.form for n in s.nodes] for s in document.sentences] == [["Ann", "met", "Bo", "."],
                                                                       ["She", "left", "!"]]
    assert document_text(document).text == text
    with pytest.raises(harmonize.HarmonizeError, match="stanza:LANG"):
        StanzaParser(make_tokenizer=tokenizer).tokenize(text)


@pytest.mark.parametrize("case", ["TC-A-8.response", "TC-A-9.response"])
def test_mentions_of_two_entities_on_one_span_are_counted(case: str, tmp_path: Path) -> None:
    """Two entities with a mention on the same words and type: brat reads the repeated T line once and merges
    them; the writer says so, and the round trip verifies."""
    source = shared("corefud-samples", "corefud-scorer", "tests-corefud", "exact-match", case)
    result = harmonize.convert([source], "corefud", "brat", tmp_path / "out", verify=True, warn_losses=False)
    assert result.report.counts["brat: mentions of different entities on one span with one type (read back as one T "
                                "line: their entities merged)"] == 1
