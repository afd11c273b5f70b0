"""Progress on long work: a bar on a terminal (a pseudo-terminal here), nothing at all off one, with -q or with
--json; and reports as a summary by default, every reason with -v, nothing with -q."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from harmonize.conversion import sample_path
from tests.conftest import SHARED_DATA

GUM = SHARED_DATA / "gum" / "v11.1.0" / "dep"


def on_a_terminal(*args: str | Path) -> tuple[int, str]:
    """Run harmonize with stderr on a pseudo-terminal: its exit code and what the terminal showed."""
    main, side = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "harmonize", *map(str, args)], stdout=subprocess.DEVNULL,
                               stderr=side, stdin=side)
    os.close(side)
    shown = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    return process.wait(), shown.decode("utf-8", "replace")


def piped(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harmonize", *map(str, args)], capture_output=True, text=True,
                          check=False)


@pytest.fixture()
def gum_files() -> list[Path]:
    if not GUM.exists():
        pytest.skip(f"{GUM} not found: set HARMONIZE_SHARED_DATA to the shared data folder")
    return sorted(GUM.glob("GUM_academic_*.conllu"))[:6]


@pytest.mark.parametrize("command", ["stats", "convert", "score"])
def test_a_bar_on_a_terminal_and_nothing_off_one(command: str, gum_files: list[Path], tmp_path: Path) -> None:
    arguments = {"stats": ["stats", *gum_files, "--tables", "corpus"],
                 "convert": ["convert", *gum_files, "-o", tmp_path / "out"],
                 "score": ["score", gum_files[0], gum_files[0]]}[command]
    code, shown = on_a_terminal(*arguments)
    assert code == 0
    label = {"stats": "counting", "convert": "converting", "score": "scoring"}[command]
    assert label in shown and "\x1b[" in shown  # drawn with the terminal's escapes
    if command != "score":
        assert f"{len(gum_files)}/{len(gum_files)}" in shown
    done = piped(*arguments)
    assert done.returncode == 0
    assert label not in done.stderr and "\x1b[" not in done.stderr
    assert not done.stderr.startswith("\n")  # no stray blank line
    quiet_code, quiet = on_a_terminal(*arguments, "-q")
    assert quiet_code == 0 and label not in quiet


def test_json_output_draws_no_bar_even_on_a_terminal(gum_files: list[Path]) -> None:
    code, shown = on_a_terminal("stats", *gum_files, "--tables", "corpus", "--format", "json")
    assert code == 0 and "counting" not in shown


def test_reports_summarize_by_default_list_with_v_and_say_nothing_with_q(tmp_path: Path) -> None:
    arguments = ["convert", sample_path(), "--to", "conll2012", "-o", tmp_path / "sample.conll"]
    summary = piped(*arguments).stderr.splitlines()
    assert summary[0] == "lost or changed:"
    assert summary[1].startswith("  not written, CoNLL-2012 has no place for them: 37 LEMMA")
    assert len(summary) <= 10 and summary[-1].startswith("wrote 1 file(s)")
    verbose = piped(*arguments, "-v").stderr.splitlines()
    assert "lost or changed: 4 x heads not written (CoNLL-2012 has no place for them) (e.g. sample-1)" in verbose
    assert len(verbose) > len(summary)
    assert piped(*arguments, "-q").stderr == ""
    assert piped(*arguments, "--no-such").returncode == 2
    broken = tmp_path / "broken.conllu"
    broken.write_text("1\ta\t_\t_\t_\t_\t0\t_\t_\tEntity=(e1\n\n", encoding="utf-8")
    failed = piped("convert", broken, "-o", tmp_path / "x.conllu", "-q")
    assert failed.returncode == 1 and failed.stderr.startswith("harmonize: error:")  # errors still show


def test_choices_and_notes_have_their_own_headings(tmp_path: Path) -> None:
    source = tmp_path / "crlf.conllu"
    source.write_bytes(sample_path().read_bytes().replace(b"\n", b"\r\n"))
    lines = piped("convert", source, "-o", tmp_path / "out.conllu").stderr.splitlines()
    assert "notes:" in lines and not any("input normalized" in line for line in lines[: lines.index("notes:")])
