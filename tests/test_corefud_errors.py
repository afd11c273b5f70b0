"""Malformed CorefUD input: strict mode names file, line and reason; lenient mode drops and reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from harmonize.converters.corefud import parse_corefud, read_corefud
from harmonize.errors import FormatError, Report
from tests.corefud_text import conllu

GOOD = "1 x Entity=(e7-thing-1)"  # a sentence that must survive lenient reading of each broken one

CASES = {
    "unclosed bracket": (conllu("1 a Entity=(e1--1\n2 b", GOOD), 4, "mention crosses a sentence boundary"),
    "unknown bracket syntax": (conllu("1 a Entity=e1\n2 b", GOOD), 4, "malformed Entity value"),
    "closing an eid never opened": (conllu("1 a Entity=e9)", GOOD), 4, "closing bracket for an entity never opened"),
    "mention crossing a sentence": (conllu("1 a Entity=(e1--1", "1 b Entity=e1)\n" + GOOD.replace("1 x", "2 x")),
                                    4, "mention crosses a sentence boundary"),
    "missing global.Entity header": (conllu("1 a Entity=(e1--1)", header=None), 3, "missing global.Entity header"),
    "malformed global.Entity header": (conllu("1 a Entity=(e1--1)", header="type-head"), 2,
                                       "malformed global.Entity header"),
    "too many fields": (conllu("1 a Entity=(e1-x-1-y-z)", GOOD), 4, "malformed mention"),
    "head out of range": (conllu("1 a Entity=(e1--3)", GOOD), 4, "mention head out of range"),
    "bridge to unknown entity": (conllu("1 a Bridge=e8<e1|Entity=(e1--1)", GOOD), 4, "Bridge to an unknown entity"),
    "incomplete discontinuous mention": (conllu("1 a Entity=(e1[1/2]--1)\n2 b", GOOD), 4,
                                         "incomplete discontinuous mention"),
}


@pytest.mark.parametrize("name", CASES)
def test_strict_mode_names_file_line_and_reason(name: str) -> None:
    text, line, reason = CASES[name]
    with pytest.raises(FormatError) as raised:
        parse_corefud(text, "bad.conllu")
    error = raised.value
    assert (error.path, error.line) == ("bad.conllu", line)
    assert error.reason.startswith(reason)
    assert str(error).startswith(f"bad.conllu:{line}: {reason}")


@pytest.mark.parametrize("name", CASES)
def test_lenient_mode_drops_the_broken_annotation_and_reports_it(name: str) -> None:
    text, line, reason = CASES[name]
    report = Report()
    corpus = parse_corefud(text, "bad.conllu", lenient=True, report=report)
    assert report.counts[reason] >= 1
    assert report.examples[reason][0].startswith(f"bad.conllu:{line}")
    if "e7" in text:
        assert corpus.documents[0].entity("e7") is not None  # the rest of the document is kept


def test_broken_token_line_is_an_error_and_lenient_drops_its_sentence() -> None:
    text = conllu("1 a", "1 b Entity=(e1--1)").replace("1\tb\t_\t_", "1\tb\t_", 1)
    with pytest.raises(FormatError, match=r"^bad.conllu:7: broken token line: expected 10"):
        parse_corefud(text, "bad.conllu")
    report = Report()
    corpus = parse_corefud(text, "bad.conllu", lenient=True, report=report)
    assert report.counts["broken token line"] == 1 and report.counts["sentence dropped"] == 1
    assert len(corpus.documents[0].sentences) == 1


def test_malformed_token_id() -> None:
    with pytest.raises(FormatError, match=r"bad.conllu:4: malformed token ID: 'x'"):
        parse_corefud(conllu("x a"), "bad.conllu")


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.conllu"
    path.write_bytes(conllu("1 caf\u00e9").encode("latin-1"))
    with pytest.raises(FormatError, match=r"latin1.conllu:4: not UTF-8"):
        read_corefud(path)
