"""Errors and loss reports shared by every reader, writer and rule.

A reader either raises `FormatError` (strict mode, the default) or, in lenient mode, drops the broken
annotation and records it in a `Report`. Either way nothing is lost silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXAMPLES_PER_REASON = 5
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

    def to_dict(self) -> dict[str, Any]:
        """``{reason: {"count": n, "examples": [...]}}``, reasons in order: what ``--report FILE`` writes."""
        return {
            reason: {"count": count, "examples": self.examples.get(reason, [])}
            for reason, count in sorted(self.counts.items())
        }


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
