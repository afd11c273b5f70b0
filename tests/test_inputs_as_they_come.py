"""Files as they come from other people's machines: CRLF line endings, a byte-order mark, empty input; and the
two sides of a comparison in two formats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import harmonize
from harmonize.accounting.differ import diff_corpora
from harmonize.cli import app
from harmonize.errors import HarmonizeError, Report
from harmonize.io import BOM_READ, CRLF_READ
from harmonize.scoring.score import score_files
from tests.conftest import shared

# (format, the real file under the shared data): every reader of lines.
TEXT_INPUTS = [
    ("corefud", ("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")),
    ("conll2012", ("litbank", "conll", "105_persuasion_brat.conll")),
    ("conll2012", ("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll")),
    ("webanno-tsv", ("webanno", "tsv3", "coref.tsv")),
    ("rucoco", ("rucoco", "json", "2001_russia_aznar.json")),
]


def _windows_copies(source: Path, folder: Path) -> tuple[Path, Path]:
    """``source`` saved with CRLF line endings, and with a byte-order mark and CRLF."""
    data = source.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    crlf, bom = folder / "crlf" / source.name, folder / "bom" / source.name  # the name is the document's id
    crlf.parent.mkdir()
    bom.parent.mkdir()
    crlf.write_bytes(data)
    bom.write_bytes(b"\xef\xbb\xbf" + data)
    return crlf, bom


@pytest.mark.parametrize(("format", "parts"), TEXT_INPUTS, ids=[parts[-1] for _, parts in TEXT_INPUTS])
def test_crlf_and_bom_read_as_the_unix_file_and_are_reported(format, parts, tmp_path):
    source = shared(*parts)
    original = harmonize.read(source, format, report=Report())
    crlf, bom = _windows_copies(source, tmp_path)
    line_endings = {CRLF_READ} if b"\n" in source.read_bytes() else set()  # RuCoCo's JSON is one line
    for path, reasons in ((crlf, line_endings), (bom, {*line_endings, BOM_READ})):
        report = Report()
        corpus = harmonize.read(path, format, report=report)
        for document, copy in zip(original.documents, corpus.documents, strict=True):
            copy.id = document.id  # the reader names a document after its file where the format has no id
        assert not diff_corpora(original, corpus).counts, path.name
        assert reasons <= set(report.counts), report.counts


def test_brat_offsets_count_crlf_and_a_bom_as_brat_does(tmp_path):
    """brat counts characters as saved: a CRLF is two. A file saved on Windows with its offsets made there reads
    as the Unix one does, word for word and mention for mention."""
    ann = shared("litbank", "brat", "105_persuasion_brat.ann")
    text = ann.with_suffix(".txt").read_text(encoding="utf-8")
    original = harmonize.read(ann, "brat", report=Report())
    # Each offset moves by the newlines before it (each gains a CR) and by the byte-order mark.
    shift = [0] * (len(text) + 1)
    for at in range(1, len(text) + 1):
        shift[at] = shift[at - 1] + (text[at - 1] == "\n")
    lines = []
    for line in ann.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if line.startswith("T"):
            kind, *spans = fields[1].split(" ", 1)[0], fields[1].split(" ", 1)[1]
            moved = ";".join(" ".join(str(int(n) + 1 + shift[int(n)]) for n in span.split())
                             for span in spans[0].split(";"))
            fields[1] = f"{kind} {moved}"
        lines.append("\t".join(fields))
    (tmp_path / ann.name).write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    (tmp_path / ann.with_suffix(".txt").name).write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    report = Report()
    windows = harmonize.read(tmp_path / ann.name, "brat", report=report)
    assert [n.form for n in windows.documents[0].nodes()] == [n.form for n in original.documents[0].nodes()]
    assert [[m.text for m in e.mentions] for e in windows.documents[0].entities] == \
        [[m.text for m in e.mentions] for e in original.documents[0].entities]
    assert {BOM_READ, CRLF_READ} <= set(report.counts)


def test_a_windows_file_scores_as_the_unix_file(tmp_path):
    source = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    crlf, bom = _windows_copies(source, tmp_path)
    result = score_files(source, bom)
    assert result.conll == 1.0
    assert {CRLF_READ, BOM_READ} <= set(result.report.counts)


def test_empty_input_is_one_clear_line_in_every_command(tmp_path):
    empty = tmp_path / "empty.conllu"
    empty.write_text("", encoding="utf-8")
    runner = CliRunner()
    for command in (["score", str(empty), str(empty)], ["diff", str(empty), str(empty)],
                    ["compare", str(empty), "-r", str(empty), "--from", "corefud"], ["stats", str(empty)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1, command
        assert "nothing to" in str(result.exception), command
    with pytest.raises(HarmonizeError, match="nothing to score"):
        score_files(empty, empty)
    with pytest.warns(harmonize.LossWarning, match="no document"):
        report = harmonize.convert([empty], "corefud", "jsonlines", tmp_path / "out.jsonlines")
    assert report.report.counts == {"input holds no document: nothing read from it": 1}


def test_score_and_compare_take_a_format_per_side(tmp_path):
    source = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    conll = tmp_path / "doc.conll"
    with pytest.warns(harmonize.LossWarning):  # link types and sentence texts, which CoNLL-2012 cannot hold
        harmonize.convert([source], "corefud", "conll2012", conll)
    mixed = score_files(conll, source, key_format="conll2012", response_format="corefud", mode="exact")
    assert mixed.conll == 1.0
    runner = CliRunner()
    result = runner.invoke(app, ["score", str(conll), str(source), "--from-key", "conll2012", "--from-response",
                                 "corefud", "--match", "exact", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[0])["conll"] == 1.0
    result = runner.invoke(app, ["compare", str(source), "-r", str(conll), "--from-key", "conll2012",
                                 "--from-response", "corefud"])
    assert result.exit_code == 0, result.output
    assert "100.00" in result.stdout.splitlines()[-1]
    with pytest.raises(HarmonizeError, match="UA on both sides"):
        score_files(conll, shutil.copy(source, tmp_path / "x.conllua"), key_format="conll2012", response_format="ua")


def test_pipes_convert_score_and_stats_read_standard_input(tmp_path: Path) -> None:
    """`-` reads standard input and, for convert, writes standard output; reports stay on stderr."""
    import subprocess
    import sys

    def run(*arguments: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "harmonize", *arguments], input=data, capture_output=True,
                              timeout=300)

    conll = shared("litbank", "conll", "105_persuasion_brat.conll")
    done = run("convert", "-", "--from", "conll2012", "--to", "corefud", data=conll.read_bytes())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"# newdoc id = 105_persuasion_brat") and b"lost or changed" in done.stderr
    back = run("convert", "-", "--from", "corefud", "--to", "conll2012", "-o", "-", data=done.stdout)
    assert back.returncode == 0, back.stderr
    (tmp_path / "back.conll").write_bytes(back.stdout)
    assert score_files(conll, tmp_path / "back.conll", "conll2012", mode="exact").conll == 1.0
    corefud = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    scored = run("score", str(corefud), "-", "--json", data=corefud.read_bytes())
    assert json.loads(scored.stdout)["conll"] == 1.0
    counted = run("stats", "-", "--from", "corefud", "--tables", "corpus", "--format", "json",
                  data=corefud.read_bytes())
    assert counted.returncode == 0 and b"963" in counted.stdout
    folder = run("convert", "-", "--from", "corefud", "--to", "mmax2", data=corefud.read_bytes())
    assert folder.returncode == 1 and b"give -o FOLDER instead of -" in folder.stderr


@pytest.mark.parametrize(("parts", "expected"), [
    (("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu"), "corefud"),
    (("litbank", "conll", "105_persuasion_brat.conll"), "conll2012"),
    (("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll"), "conll2012"),
    (("litbank", "brat", "105_persuasion_brat.ann"), "brat"),
    (("litbank", "brat"), "brat"),
    (("webanno", "tsv3", "coref.tsv"), "webanno-tsv"),
    (("rucoco", "json", "2001_russia_aznar.json"), "rucoco"),
    (("gum", "v11.1.0"), "gum"),
    (("gum", "v11.1.0", "dep"), "corefud"),
    (("ecbplus", "ECB+"), "ecbplus"),
    (("mmax2", "parcorfull", "news", "EN"), "mmax2"),
], ids=lambda value: "/".join(value) if isinstance(value, tuple) else value)
def test_the_format_is_detected_where_from_is_left_out(parts: tuple[str, ...], expected: str) -> None:
    from harmonize.converters.detect import detect_format

    assert detect_format([shared(*parts)]) == expected


def test_a_ua_file_named_like_another_format_is_told_by_its_first_lines(tmp_path: Path) -> None:
    from harmonize.converters.detect import detect_format

    source = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    harmonize.convert([source], "corefud", "ua", tmp_path / "doc.conllua", warn_losses=False)
    (tmp_path / "doc.key").write_bytes((tmp_path / "doc.conllua").read_bytes())
    conll = tmp_path / "other.key"
    conll.write_bytes(shared("litbank", "conll", "105_persuasion_brat.conll").read_bytes())
    assert detect_format([tmp_path / "doc.key"]) == "ua" and detect_format([conll]) == "conll2012"


def test_a_mixed_folder_is_one_error_naming_the_candidates_and_with_from_the_others_are_listed(
        tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    corefud = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    (folder / corefud.name).write_bytes(corefud.read_bytes())
    (folder / "novel.conll").write_bytes(shared("litbank", "conll", "105_persuasion_brat.conll").read_bytes())
    (folder / "notes.md").write_text("not coreference", encoding="utf-8")
    done = CliRunner().invoke(app, ["convert", str(folder), "--to", "jsonlines", "-o", str(tmp_path / "a")])
    assert done.exit_code == 1 and "could be conll2012 or corefud: give --from" in str(done.exception)
    result = harmonize.convert([folder], "corefud", "jsonlines", tmp_path / "b", warn_losses=False)
    skipped = {reason: count for reason, count in result.total.counts.items() if "not read" in reason}
    assert skipped == {"files in an input folder not read: not this format's input (they are conll2012 input)": 1}
    with pytest.raises(HarmonizeError, match="give its format with --from"):
        from harmonize.cli import _detected

        _detected([Path("-")])


def test_writers_keep_windows_line_endings_when_asked(tmp_path: Path) -> None:
    """-O newline=crlf (every writer): each line of each text file written ends in CRLF, and reads back as the LF
    file does; binary tables are left as they are."""
    source = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    harmonize.convert([source], "corefud", "conll2012", tmp_path / "out.conll", options={"newline": "crlf"},
                      warn_losses=False)
    data = (tmp_path / "out.conll").read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") > 0
    assert score_files(source, tmp_path / "out.conll", response_format="conll2012", mode="exact").conll == 1.0
    corpus = harmonize.read(source, report=Report())
    harmonize.write(corpus, tmp_path / "out.conllu", report=Report(), newline="crlf")
    assert (tmp_path / "out.conllu").read_bytes() == source.read_bytes().replace(b"\n", b"\r\n")
    harmonize.convert([source], "corefud", "parquet", tmp_path / "tables", options={"newline": "crlf"},
                      warn_losses=False)
    assert harmonize.read(next((tmp_path / "tables").iterdir()), "parquet", report=Report()).documents


def test_malformed_standard_input_is_named_as_standard_input() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "harmonize", "convert", "-", "--from", "conll2012", "--to",
                           "corefud"], input=b"#begin document (d); part 000\nd 0 0 A (1\n", capture_output=True,
                          timeout=120)
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == [
        "harmonize: error: <standard input>:1: #begin document without #end document: d"]
