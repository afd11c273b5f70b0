"""`harmonize check`: each error as file:line: reason, exit 1 when any, and the same verdict as CorefUD's own
validator (``udvalidate --level 2 --coref``) on broken copies of an official CorefUD document."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import harmonize
from tests.conftest import SHARED_DATA

OFFICIAL = SHARED_DATA / "corefud-real" / "en_gum-corefud-dev-GUM_academic_exposure.conllu"


def _first_sentences(count: int) -> list[str]:
    if not OFFICIAL.exists():
        pytest.skip(f"{OFFICIAL} not found: set HARMONIZE_SHARED_DATA to the shared data folder")
    lines, blanks = [], 0
    for line in OFFICIAL.read_text(encoding="utf-8").splitlines():
        lines.append(line)
        blanks += not line
        if blanks == count:
            return lines
    return lines


def _word_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if re.match(r"\d+\t", line)]


def _set_misc(lines: list[str], index: int, misc: str) -> None:
    columns = lines[index].split("\t")
    columns[9] = misc
    lines[index] = "\t".join(columns)


def _unclosed(lines: list[str]) -> None:
    index = next(i for i in _word_lines(lines) if re.search(r"Entity=e\d+\)", lines[i]))
    lines[index] = re.sub(r"Entity=e\d+\)", "Entity=", lines[index]).replace("Entity=|", "").replace("\tEntity=\t", "\t_\t")


def _never_opened(lines: list[str]) -> None:
    _set_misc(lines, _word_lines(lines)[0], "Entity=e5)")


def _repeated_sentence_id(lines: list[str]) -> None:
    ids = [i for i, line in enumerate(lines) if line.startswith("# sent_id")]
    lines[ids[1]] = lines[ids[0]]


def _head_outside(lines: list[str]) -> None:
    index = next(i for i in _word_lines(lines) if re.search(r"Entity=\(e\d+-[^-]+-1-", lines[i]))
    lines[index] = re.sub(r"(Entity=\(e\d+-[^-]+-)1-", r"\g<1>9-", lines[index], count=1)


def _no_header(lines: list[str]) -> None:
    lines[:] = [line for line in lines if not line.startswith("# global.Entity")]


def _range_past_words(lines: list[str]) -> None:
    lines.insert(_word_lines(lines)[0], "1-9\tfoo\t_\t_\t_\t_\t_\t_\t_\t_")


def _split_antecedent_without_mention(lines: list[str]) -> None:
    index = next(i for i in _word_lines(lines) if lines[i].split("\t")[9] == "_")
    _set_misc(lines, index, "SplitAnte=e999<e1")


def _words_out_of_order(lines: list[str]) -> None:
    index = _word_lines(lines)[1]
    columns = lines[index].split("\t")
    columns[0] = "7"
    lines[index] = "\t".join(columns)


BREAKAGES: dict[str, Callable[[list[str]], None]] = {
    "unclosed bracket": _unclosed, "bracket never opened": _never_opened,
    "repeated sentence id": _repeated_sentence_id, "head outside its mention": _head_outside,
    "no global.Entity": _no_header, "multiword range past the words": _range_past_words,
    "split antecedent without a mention": _split_antecedent_without_mention,
    "word ids out of order": _words_out_of_order,
}


def _udvalidate(path: Path) -> bool | None:
    """udvalidate's verdict (True: passed), None where it is not installed."""
    tool = shutil.which("udvalidate") or shutil.which("udvalidate", path=str(Path(sys.executable).parent))
    if tool is None:
        return None
    done = subprocess.run([tool, "--level", "2", "--coref", "--lang", "en", str(path)], capture_output=True,
                          text=True, check=False, timeout=120)
    return done.returncode == 0


def test_an_official_document_is_well_formed(tmp_path: Path) -> None:
    path = tmp_path / "clean.conllu"
    path.write_text("\n".join(_first_sentences(4)) + "\n", encoding="utf-8")
    [result] = harmonize.check([path])
    assert result.ok and result.documents == 1 and result.format == "corefud"
    assert _udvalidate(path) in (True, None)


@pytest.mark.parametrize("breakage", BREAKAGES)
def test_each_broken_copy_gets_an_error_with_its_line_as_udvalidate_does(breakage: str, tmp_path: Path) -> None:
    lines = _first_sentences(4)
    BREAKAGES[breakage](lines)
    path = tmp_path / "broken.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [result] = harmonize.check([path], "corefud")
    assert result.errors, f"{breakage}: no error found"
    assert all(e.path == str(path) and e.line is not None and 1 <= e.line <= len(lines) for e in result.errors)
    assert _udvalidate(path) in (False, None), f"{breakage}: udvalidate passes it"


def test_the_command_prints_file_line_reason_and_exits_1(tmp_path: Path) -> None:
    lines = _first_sentences(4)
    _repeated_sentence_id(lines)
    path = tmp_path / "broken.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harmonize", "check", str(path)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert re.match(rf"{re.escape(str(path))}:\d+: sentence id '.+' not unique", first), first
    assert "1 error(s) in 1 file(s)" in done.stderr
    clean = tmp_path / "clean.conllu"
    clean.write_text("\n".join(_first_sentences(4)) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harmonize", "check", str(clean), "--json"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and '"errors": []' in done.stdout


def test_other_formats_are_checked_through_their_reader(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("John met Mary.\n", encoding="utf-8")
    (tmp_path / "a.ann").write_text("T1\tPER 0 4\tJohn\nT2\tPER 9 99\tMary\nR1\tCoref Arg1:T1 Arg2:T9\n",
                                    encoding="utf-8")
    [result] = harmonize.check([tmp_path / "a.ann"], "brat")
    assert not result.ok
    assert all(e.path.endswith("a.ann") for e in result.errors)
    assert {e.line for e in result.errors} <= {2, 3}
