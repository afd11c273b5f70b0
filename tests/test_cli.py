"""The `harmonize` command: conversions, folders, reports, exit codes and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

from tests.conftest import shared
from tests.corefud_text import conllu


def harmonize(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harmonize", *map(str, args)], capture_output=True, text=True)


def test_formats_lists_readers_and_writers_one_line_each() -> None:
    done = harmonize("formats")
    lines = {line.split()[0]: line.split()[1] for line in done.stdout.splitlines() if not line.startswith(" ")}
    assert done.returncode == 0 and lines == {
        "conll2012": "read/write", "corefud": "read/write", "gum": "read", "jsonlines": "read/write",
        "mmax2": "read/write", "parquet": "read/write", "rucoco": "read/write", "ecbplus": "read",
        "mentions-json": "write", "tei": "read/write", "webanno-tsv": "read/write", "xmi": "read/write",
        "brat": "read/write", "text": "read", "ua": "read/write"}
    assert "-O layout=ontonotes|gum|ontogum|scorer" in done.stdout  # writer options, indented under their format


def test_writer_options_reach_the_writer_and_bad_ones_are_refused(tmp_path: Path) -> None:
    done = harmonize("convert", "--sample", "--to", "conll2012", "-O", "layout=gum", "-o", tmp_path / "s.conll")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "s.conll").read_text(encoding="utf-8").startswith("# begin document ")
    done = harmonize("convert", "--sample", "--to", "conll2012", "-O", "layout=tsv", "-o", tmp_path / "t.conll")
    assert done.returncode == 1 and "layout must be one of ontonotes, gum, ontogum, scorer" in done.stderr
    done = harmonize("convert", "--sample", "--to", "corefud", "-O", "layout=gum", "-o", tmp_path / "u.conllu")
    assert done.returncode == 1 and "corefud writer: unknown option 'layout=gum'; it takes -O newline=lf|crlf" in done.stderr


def test_sample_conversion_is_byte_identical(tmp_path: Path) -> None:
    out = tmp_path / "sample.conllu"
    done = harmonize("convert", "--sample", "--from", "corefud", "--to", "corefud", "-o", out)
    assert done.returncode == 0, done.stderr
    original = (resources.files("harmonize") / "samples" / "sample.conllu").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == original


def test_folder_input_writes_one_file_per_input_with_a_report(tmp_path: Path) -> None:
    source = shared("corefud-samples", "corefud-scorer", "tests-corefud", "zeros")
    inputs = tmp_path / "in"
    inputs.mkdir()
    for path in sorted(source.glob("TC-Z*.key")):
        (inputs / (path.stem + ".conllu")).write_bytes(path.read_bytes())
    report = tmp_path / "report.json"
    done = harmonize("convert", inputs, "--from", "corefud", "--to", "corefud", "-o", tmp_path / "out",
                     "--report", report)
    assert done.returncode == 0, done.stderr
    for path in inputs.iterdir():
        assert (tmp_path / "out" / path.name).read_bytes() == path.read_bytes()
    assert json.loads(report.read_text())["total"] == {"losses": {}, "choices": {}, "notes": {}}


def test_malformed_input_gives_one_line_with_file_line_and_reason(tmp_path: Path) -> None:
    bad = tmp_path / "bad.conllu"
    bad.write_text(conllu("1 a Entity=(e1--1", "1 b"), encoding="utf-8")
    out = tmp_path / "out.conllu"
    done = harmonize("convert", bad, "-o", out)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"harmonize: error: {bad}:4: mention crosses a sentence boundary: e1 is not closed in sentence s1"
    )
    assert "Traceback" not in done.stderr and not out.exists()


def test_lenient_drops_reports_and_writes(tmp_path: Path) -> None:
    bad = tmp_path / "bad.conllu"
    bad.write_text(conllu("1 a Entity=(e1--1", "1 b Entity=(e2--1)"), encoding="utf-8")
    report = tmp_path / "r.json"
    done = harmonize("convert", bad, "-o", tmp_path / "out.conllu", "--lenient", "--report", report)
    assert done.returncode == 0
    assert "1 x mention crosses a sentence boundary" in done.stderr
    counts = json.loads(report.read_text())["total"]["losses"]
    assert counts["mention crosses a sentence boundary"]["count"] == 1
    assert "Entity=(e2--1)" in (tmp_path / "out.conllu").read_text()


def test_usage_errors_exit_2_and_other_errors_exit_1(tmp_path: Path) -> None:
    assert harmonize("convert", "--no-such-option").returncode == 2
    done = harmonize("convert", tmp_path / "missing.conllu", "-o", tmp_path / "x.conllu")
    assert done.returncode == 1 and "no such file or folder" in done.stderr and "Traceback" not in done.stderr
    done = harmonize("convert", "--sample", "--from", "nope", "-o", tmp_path / "x.conllu")
    assert done.returncode == 1 and ("no format 'nope' to read; available: brat, conll2012, corefud, ecbplus, gum, "
                                     "jsonlines, mmax2, parquet") in done.stderr


def test_two_inputs_with_the_same_name_are_refused(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.conllu").write_text(conllu("1 a"), encoding="utf-8")
    done = harmonize("convert", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "out")
    assert done.returncode == 1 and "would both be written to" in done.stderr


def test_errors_from_worker_processes_stay_one_line(tmp_path: Path) -> None:
    """Several inputs are handled by worker processes; a broken file must still name itself, line and reason."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.conllu").write_text(conllu("1 a Entity=(e1--1)"), encoding="utf-8")
    (tmp_path / "in" / "b.conllu").write_text("# text = a\n1\ta\n\n", encoding="utf-8")
    for command in (["convert", tmp_path / "in", "-o", tmp_path / "out"], ["stats", tmp_path / "in"]):
        done = harmonize(*command)
        assert done.returncode == 1, command
        assert done.stderr.strip() == (
            f"harmonize: error: {tmp_path / 'in' / 'b.conllu'}:2: broken token line: "
            "expected 10 tab-separated columns, found 2")


def test_outputs_get_ordinary_file_permissions(tmp_path: Path) -> None:
    """Atomic writes go through a private temporary file; the result must not stay private."""
    import os

    out = tmp_path / "sample.conllu"
    assert harmonize("convert", "--sample", "-o", out).returncode == 0
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask
