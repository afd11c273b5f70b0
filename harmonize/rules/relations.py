"""What removing entities did to the relations between them, counted once per relation: a split antecedent that
loses two antecedents in one step and is then removed is one removed split antecedent (the model's edits report
each consequence as it happens, `harmonize.schemas.model.Change`, which would count it three times)."""

from __future__ import annotations

from dataclasses import dataclass

from harmonize.errors import Report
from harmonize.schemas.model import Document


@dataclass(frozen=True)
class Relations:
    """The relations of a document at one moment: its bridges, and each split antecedent's antecedents."""

    bridges: frozenset[int]
    splits: dict[int, frozenset[int]]

    @classmethod
    def of(cls, document: Document) -> Relations:
        return cls(frozenset(map(id, document.bridges)),
                   {id(s): frozenset(map(id, s.antecedents)) for s in document.split_antecedents})


def report_relation_changes(document: Document, before: Relations, report: Report, label: str) -> None:
    """Count, as ``LABEL: what``, the bridges and split antecedents gone since ``before`` and the split antecedents
    left with fewer antecedents."""
    now = Relations.of(document)
    gone = len(before.bridges - now.bridges)
    if gone:
        report.add(f"{label}: bridge removed", str(document.id), gone)
    removed = sum(1 for key in before.splits if key not in now.splits)
    if removed:
        report.add(f"{label}: split antecedent removed", str(document.id), removed)
    shrunk = sum(1 for key, antecedents in before.splits.items() if key in now.splits
                 and now.splits[key] != antecedents)
    if shrunk:
        report.add(f"{label}: split antecedent shrunk", str(document.id), shrunk)
