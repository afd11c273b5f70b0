"""Errors and loss reports shared by every reader, writer and rule.

A reader either raises `FormatError` (strict mode, the default) or, in lenient mode, drops the broken
annotation and records it in a `Report`. Either way nothing is lost silently.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXAMPLES_PER_REASON = 5

# A report's reasons fall under three headings. Losses (the default): what was dropped or changed. Choices: where
# the data allowed several readings and one was taken, by a policy or a default the user can change. Notes: what
# changes nothing a reader of the output would miss. Both lists are reasons' beginnings, kept here, in one place.
CHOICE_REASONS = (
    "question chosen:", "mention over several sentences (", "mention head written as its first word",
    "corefud merge-same-span: same-span mentions of different entities (kept)", "corefud unique-ids: entity ids shared",
    "zero-length link put on an empty node", "annotation on a zero-length position put on an empty node",
    "format layout kept for writing back", "rule baseline: no part-of-speech tags",
)
NOTE_REASONS = (
    "input normalized:", "input holds no document", "corefud move-heads: head set on a one-word mention",
    "corefud move-heads: no head", "corefud standard-header: global.Entity declared", "corefud check:",
    "heads-only: mention without a head", "speaker changes inside a sentence", "UA non-referring markable",
    "layer not read as coreference (kept", "NKJP class not in the UD table", "# meta::guessed_heads that does not",
    "multiword token written as", "documents without dependency trees",
)
SECTIONS = ("losses", "choices", "notes")
_UNHELD = re.compile(r"^(?P<what>.+) not written \((?P<target>.+) has no place for them\)$")


def section_of(reason: str) -> str:
    """The heading a report reason goes under: "losses", "choices" or "notes"."""
    if reason.startswith(CHOICE_REASONS):
        return "choices"
    return "notes" if reason.startswith(NOTE_REASONS) else "losses"
MAX_PROBLEMS = 10_000  # kept one by one; beyond, counted only


class HarmonizeError(Exception):
    """Base class of every error the toolkit raises on purpose."""


class FormatError(HarmonizeError):
    """Malformed input: names the file, the 1-based line and the reason."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = " ".join(reason.split()) if "\n" in reason else reason  # always one line (lxml's have two)
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {self.reason}")

    def __reduce__(self):  # noqa: ANN204 - so that it crosses from worker processes intact
        return (FormatError, (self.path, self.line, self.reason))


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    """A reader's policy argument called from Python: one of its named values (the command line checks its own)."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}")


class ModelError(HarmonizeError):
    """An edit that would make the corpus model inconsistent."""


class LossWarning(UserWarning):
    """Warned by `harmonize.read`, `harmonize.write` and `harmonize.convert` when they dropped or
    changed something and the caller passed no report to receive it. Filter it, or make it an error, with the
    `warnings` module: ``warnings.simplefilter("error", harmonize.LossWarning)``."""


@dataclass
class Report:
    """What a reader, writer or rule dropped or changed: counts per reason and a few examples of each; and the
    files the readers opened (``inputs``, in the order opened), which builds use as their cache key.

    Examples:
        >>> report = Report()
        >>> report.add("heads not written", "doc1", 3)
        >>> report.counts["heads not written"], report.summary()
        (3, '3 heads not written')
        >>> for number in range(100):  # an example is made only while few are shown
        ...     report.add("head moved", lambda number=number: f"mention {number}")
        >>> report.counts["head moved"], report.examples["head moved"][-1]
        (100, 'mention 4')
    """

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    inputs: dict[str, None] = field(default_factory=dict)  # an ordered set of paths
    # Broken annotation a lenient reader skipped, each as the error a strict one raises (`harmonize.check`).
    problems: list[FormatError] = field(default_factory=list)

    def add(self, reason: str, example: str | Callable[[], str], count: int = 1) -> None:
        """Count ``count`` of ``reason``; ``example`` may be a function that makes it, called only while the
        reason has fewer than `EXAMPLES_PER_REASON` (a rule that changes every mention makes few)."""
        self.counts[reason] += count
        shown = self.examples.setdefault(reason, [])
        if len(shown) < EXAMPLES_PER_REASON:
            shown.append(example() if callable(example) else example)

    def opened(self, path: str | Path) -> None:
        """Record a file a reader read (the input itself, or a companion: brat's ``.txt``, MMAX2's words...)."""
        self.inputs[str(path)] = None

    def merge(self, other: Report) -> None:
        """Add ``other``'s counts, examples (up to the limit) and opened files to this report."""
        for reason, count in other.counts.items():
            self.counts[reason] += count
            shown = self.examples.setdefault(reason, [])
            shown.extend(other.examples.get(reason, [])[: EXAMPLES_PER_REASON - len(shown)])
        self.inputs.update(other.inputs)
        self.problems.extend(other.problems[: MAX_PROBLEMS - len(self.problems)])

    def summary(self) -> str:
        """The counts in one line, most frequent first: ``"12 heads not written (...), 1 bridge dropped"``."""
        return ", ".join(f"{count} {reason}" for reason, count in self.counts.most_common())

    def __bool__(self) -> bool:
        return bool(self.counts)

    def section(self, name: str) -> Report:
        """The part of this report under one heading (`SECTIONS`: "losses", "choices", "notes").

        Examples:
            >>> report = Report()
            >>> report.add("heads not written (CoNLL-2012 has no place for them)", "doc1", 3)
            >>> report.add("input normalized: CRLF line endings read as LF", "a.conllu")
            >>> dict(report.section("losses").counts), dict(report.section("notes").counts)
            ({'heads not written (CoNLL-2012 has no place for them)': 3}, {'input normalized: CRLF line endings read as LF': 1})
        """
        if name not in SECTIONS:
            raise ValueError(f"a report's sections are {', '.join(SECTIONS)}, not {name!r}")
        part = Report(inputs=dict(self.inputs))
        for reason, count in self.counts.items():
            if section_of(reason) == name:
                part.counts[reason] = count
                part.examples[reason] = list(self.examples.get(reason, []))
        return part

    @property
    def losses(self) -> Report:
        """What was dropped or changed."""
        return self.section("losses")

    @property
    def choices(self) -> Report:
        """Where one reading of several was taken (a policy, a default)."""
        return self.section("choices")

    @property
    def notes(self) -> Report:
        """What changes nothing a reader of the output would miss."""
        return self.section("notes")

    def to_dict(self) -> dict[str, Any]:
        """``{"losses": {reason: {"count": n, "examples": [...]}}, "choices": {...}, "notes": {...}}``, reasons
        in order: what ``--report FILE`` writes."""
        grouped: dict[str, dict[str, Any]] = {name: {} for name in SECTIONS}
        for reason, count in sorted(self.counts.items()):
            grouped[section_of(reason)][reason] = {"count": count, "examples": self.examples.get(reason, [])}
        return grouped

    def summary_lines(self, most: int = 5, width: int = 110) -> list[str]:
        """The report in a few lines, as commands print it by default: each heading with its reasons, most
        frequent first, at most ``most`` each; reasons that say a format has no place for something are joined
        into one per format; lines wrap at ``width``.

        Examples:
            >>> report = Report()
            >>> report.add("LEMMA not written (CoNLL-2012 has no place for them)", "d", 37)
            >>> report.add("heads not written (CoNLL-2012 has no place for them)", "d", 4)
            >>> report.add("input normalized: CRLF line endings read as LF", "a.conllu")
            >>> print("\\n".join(report.summary_lines()))
            lost or changed:
              not written, CoNLL-2012 has no place for them: 37 LEMMA, 4 heads
            notes:
              1 x input normalized: CRLF line endings read as LF
        """
        lines = []
        for name, heading in zip(SECTIONS, ("lost or changed", "choices", "notes")):
            part = self.section(name)
            if not part:
                continue
            unheld: dict[str, list[str]] = {}
            rows: list[tuple[int, str]] = []
            for reason, count in part.counts.most_common():
                match = _UNHELD.match(reason)
                if match is not None:
                    unheld.setdefault(match["target"], []).append(f"{count} {match['what']}")
                else:
                    rows.append((count, f"{count} x {reason}"))
            shown = [f"not written, {target} has no place for them: {', '.join(items)}"
                     for target, items in unheld.items()] + [text for _, text in rows]
            lines.append(f"{heading}:")
            for text in shown[:most]:
                lines.extend(textwrap.wrap(text, width, initial_indent="  ", subsequent_indent="    ",
                                           break_on_hyphens=False, break_long_words=False))
            if len(shown) > most:
                lines.append(f"  and {len(shown) - most} more")
        return lines


class Problems:
    """The strict/lenient switch a reader consults at each broken annotation.

    Strict: raise `FormatError` at once. Lenient: record the problem in the report and let the reader drop
    what is broken.
    """

    def __init__(self, path: str, lenient: bool, report: Report, line_offset: int = 0) -> None:
        self.path = path
        self.lenient = lenient
        self.report = report
        self.line_offset = line_offset  # lines of the file before the text being read (a piece of it)

    def __call__(self, line: int | None, reason: str, detail: str = "") -> None:
        if line is not None:
            line += self.line_offset
        if not self.lenient:
            raise FormatError(self.path, line, f"{reason}: {detail}" if detail else reason)
        where = f"{self.path}:{line}" if line is not None else self.path
        self.report.add(reason, f"{where}: {detail}" if detail else where)
        if len(self.report.problems) < MAX_PROBLEMS:
            self.report.problems.append(FormatError(self.path, line, f"{reason}: {detail}" if detail else reason))
