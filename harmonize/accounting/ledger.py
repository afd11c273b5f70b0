"""The ledger: which report reasons account for which kinds of difference, and the check that a conversion's
reports equal what the differ finds.

A conversion A -> B reads A into the model, applies its steps, writes B. Reading B back gives a document that
differs from the one written by exactly what the writer could not hold and what reading B normalizes; each of those
is a report reason, and each reason stands here for one or more kinds of difference (`KINDS`) with the same unit
(a mention dropped counts one mention; a column not written one word). `check` adds up the reasons per kind and
compares with the differ's counts: a kind found more often than reported is a silent loss; one reported more
often than found is a report that claims a loss that did not happen.

Reasons that account for nothing the differ sees (a reader's note on the input, a rule's check that changes
nothing) map to no kind; a reason the ledger does not know is listed by `unknown_reasons`, so that a new reason
cannot go unmapped unnoticed (the accounting tests fail on it).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from harmonize.accounting.differ import Differences, diff_corpora
from harmonize.converters.losses import UNHELD_KINDS, unheld_reason
from harmonize.converters.ua import spaces_reason
from harmonize.errors import HarmonizeError, Report
from harmonize.schemas.model import Document

# (pattern of a reason, the kinds it accounts for). First match wins. Patterns are anchored at the start.
_LEDGER: list[tuple[str, tuple[str, ...]]] = [
    # What a format has no place for (harmonize.converters.losses.report_unheld): one reason per kind.
    *[(re.escape(unheld_reason(kind, "FORMAT")).replace("FORMAT", ".+") + "$", (kind,)) for kind in UNHELD_KINDS],
    # Word-span formats (harmonize.converters.spans).
    (r"mention of empty nodes only dropped", ("mention dropped",)),
    (r"empty nodes left out of a mention", ("mention span",)),
    (r"discontinuous mention dropped", ("mention dropped",)),
    (r"discontinuous mention widened over its gaps", ("mention span",)),
    (r"discontinuous mention cut to its part with the head", ("mention span",)),
    (r"crossing mentions of one entity", ("mention span",)),
    (r"singleton dropped", ("mention dropped",)),
    (r"mention of empty nodes only not written", ("mention dropped",)),
    (r"empty nodes left out of mentions", ("mention span",)),
    # Writers of a file per document name it after the document, and the reader names the document after the file.
    (r"document id renamed for a safe file name", ("document id",)),
    # WebAnno TSV.
    (r"entity types written as each mention's reftype", ("entity type",)),
    (r"mention reftype fields from their entity's type", ("mention field",)),
    (r"first link types of chains not written", ("mention link",)),
    (r"discontinuous mention written over its whole extent", ("mention span",)),
    (r"annotation on a zero-length position put on an empty node", ()),
    # XMI.
    (r"empty nodes left out of a mention \(XMI", ("mention span",)),
    (r"multiword token words written as the token", ("FORM",)),
    (r"mentions of some words of a multiword token read back over all", ("mention span",)),
    (r"heads of one-word mentions read back over a whole multiword token", ("mention head",)),
    (r"mention only on empty nodes written as a zero-length link", ()),
    # Named, not mapped: where such a mention reads back depends on what else is on that empty node (a moved
    # mention pairs with another entity's, or with none), which no count per kind can say beforehand.
    (r"mentions on empty nodes read back on another empty node after their word", ()),
    (r"zero-length link put on an empty node after its word", ()),
    (r"link inside a word widened to the word", ("mention span",)),
    # brat.
    (r"mention on empty nodes only: not written", ("mention dropped",)),
    (r"empty nodes left out of a mention \(brat", ("mention span",)),
    (r"brat: entity types not written", ("entity type",)),
    (r"brat: mention types not written", ("mention type",)),
    (r"brat: T types written from the entity type", ("mention field",)),
    (r"brat: bridges without a written anaphor", ("bridge dropped",)),
    (r"brat: unlabelled bridges written as Bridge", ("bridge label",)),
    (r"split antecedents not written \(brat", ("split antecedent dropped",)),
    (r"T line repeated on one span with one type", ("mention dropped",)),
    # MMAX2.
    (r"mention fields written as markable attributes", ("mention field",)),
    # CorefUD: a head where the model has none (the format needs one on every mention).
    (r"mention head written from the tree", ("mention head",)),
    (r"mention head written as its first word", ()),  # marked in the file, read back as no head
    (r"mention heads written as their first word beside annotated", ("mention head",)),
    (r"entity fields written on each mention", ("entity field",)),
    (r"mention fields whose names global.Entity cannot declare", ("mention field",)),
    (r"ambiguous mentions of one entity", ("mention span",)),
    (r"mention fields taken from their entity's fields", ("mention field",)),
    # Rules (harmonize.rules), each step's own reasons; the model edits' consequences as "STEP: what".
    (r"corefud merge-same-span: same-span mention of one entity removed", ("mention dropped",)),
    (r"corefud merge-same-span: same-span mentions of different entities \(kept\)", ()),
    (r"corefud fix-interleaved: mentions of one entity merged into their union", ("mention span", "mention dropped")),
    (r"corefud fix-interleaved: merged mention removed", ("mention dropped",)),
    (r"corefud move-heads: (head set \(none before\)|head moved to the highest node)", ("mention head",)),
    (r"corefud move-heads: (no head|head set on a one-word mention)", ()),
    (r"corefud standard-header: global.Entity declared", ()),
    (r"corefud standard-header: mention fields", ("mention field",)),
    (r"corefud standard-header: entity fields", ("entity field",)),
    (r"corefud unique-ids: (numeric entity ids written|entity ids an earlier document used)", ("entity id",)),
    (r"corefud unique-ids: entity ids shared across", ()),
    (r"corefud split-antecedents: written at the entity's first mention", ("split antecedent anchor",)),
    (r"corefud release ids: entity ids e<N>", ("entity id",)),
    (r"remove-non-bridging: .* relation dropped", ("bridge dropped",)),
    (r"corefud check: ", ()),
    (r"heads-only: mention without a head", ()),
    (r"heads-only: mention reduced to its head word", ("mention span",)),
    (r"heads-only: mentions of one entity on the same word collapsed", ("mention dropped",)),
    (r"(remove-singletons: entity with one mention removed|ontogum 8 remove singletons: singleton removed)",
     ("mention dropped", "entity dropped")),
    (r"ontogum 1 remove bridging: bridge removed", ("bridge dropped",)),
    (r"ontogum 1 remove bridging: split antecedent removed", ("split antecedent dropped",)),
    (r"ontogum [0-9] [^:]+: (cataphoric pronoun unlinked|compound modifier unlinked|chain cut at|predicate "
     r"(\(pred link\) )?unlinked|mention inside its own chain's mention unlinked|chain split at)", ("entity split",)),
    (r"ontogum [0-9] [^:]+: bridges to a split chain", ("bridge dropped", "bridge added")),
    (r"ontogum [0-9] [^:]+: split antecedents with a split chain", ("split antecedent dropped",
                                                                     "split antecedent added")),
    (r"ontogum 2 (span boundaries|contract verbal spans): ", ("mention span",)),
    (r"ontogum 3 merge appositions: apposition merged into its anchor", ("mention dropped", "mention span")),
    # What a model edit did besides (harmonize.schemas.model.Change), reported as "STEP: what".
    (r"[^:]+: bridge removed", ("bridge dropped",)),
    (r"[^:]+: split antecedent removed", ("split antecedent dropped",)),
    (r"[^:]+: split antecedent shrunk", ("split antecedent dropped", "split antecedent added")),
    (r"[^:]+: mention type changed", ("mention type",)),
    (r"[^:]+: entity field dropped", ("entity field",)),
    # TEI.
    *[(rf"TEI: {column} read back from the NKJP tag", (column,)) for column in ("XPOS", "UPOS", "FEATS")],
    (r"TEI: comment lines not read back as written", ("comment",)),
    (r"TEI: zero subjects away from their verb read back", ("empty node", "mention dropped", "mention added")),
    (r"TEI: empty nodes of zero subjects away from their verb", ("empty node",)),
    # Named, not mapped (as XMI's zero-length links read back elsewhere): which mention a renumbered empty node
    # pairs with depends on what else is on that number.
    (r"TEI: zero subjects read back under another empty node number", ()),
    (r"TEI: heads on an empty node left out of their mention", ("mention head",)),
    (r"TEI: mention fields whose escaping reads back otherwise", ("mention field",)),
    (r"TEI: entity fields whose escaping reads back otherwise", ("entity field",)),
    (r"empty node left out of a mention with words", ("mention span",)),
    (r"bridge not written \(TEI holds near-identity only\)", ("bridge dropped",)),
    (r"near-identity link between unwritten mentions not written", ("bridge dropped",)),
    (r"mention on an empty node that depends on no word \(not written\)", ("mention dropped",)),
    (r"multiword token written as (glued words|its words)", ()),  # counted with the format's other losses
    (r"NKJP class not in the UD table", ()),  # the reader's note on a tag it has no UD tags for
    # CoNLL-UA.
    (r"brat: mentions of different entities on one span with one type", ("entities merged",)),
    (r"brat: entities all of whose mentions share the span and type", ("entity dropped",)),
    (r"UA: entity attributes not written", ("entity field",)),
    (r"UA: mention link types not written", ("mention link",)),
    (r"UA: a mention's own entity type not written", ("mention type",)),
    (r"UA: heads on empty nodes not written", ("mention head",)),
    (r"UA: ElementOf written on a markable", ("mention field",)),
    (r"UA: bridge labels not written", ("bridge label",)),
    (r"UA bridge not written", ("bridge dropped",)),
    (r"UA: mention fields whose escaping reads back otherwise", ("mention field",)),
    (r"UA: split antecedent anchors not written", ("split antecedent anchor",)),
    (r"UA: zeros in a markable of several tokens left out", ("mention span",)),
    (r"UA MarkableID made from the mention's order", ("mention field",)),
    (r"UA: crossing markables left out", ("mention dropped",)),
    (r"UA: fields our CorefUD writer put into other", ("mention field",)),
    (r"UA: bridges of crossing markables left out", ("bridge dropped",)),
    (r"UA: split antecedents of crossing markables left out", ("split antecedent dropped",)),
    (r"UA: split antecedents shrunk with crossing markables", ("split antecedent dropped", "split antecedent added")),
    (r"UA: entities all of whose markables cross others left out", ("entity dropped",)),
    *[(re.escape(spaces_reason(column)), (column,))
      for column in ("FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")],
    # Notes on what is no annotation: a format's own layout, readers' notes on their input.
    (r"format layout kept for writing back to its own format", ()),
    (r"speaker changes inside a sentence", ()),
    (r"UA .* kept with its line only", ()),
    (r"UA non-referring markable", ()),
    (r"layer not read as coreference \(kept with the file as read\)", ()),
    (r"input normalized: ", ()),
    (r"documents without dependency trees", ()),  # harmonize.parsing.trees: how to get them, nothing lost  # harmonize.io.normalized_text: line endings and a byte-order mark
    (r"input holds no document", ()),
    (r"files in an input folder not read", ()),
    (r"# meta::guessed_heads that does not count", ()),  # heads kept as the file has them
    (r"question chosen: ", ()),  # harmonize.pcr.generate: what the question generator chose, counted
]
_COMPILED = [(re.compile(pattern), kinds) for pattern, kinds in _LEDGER]


def kinds_of(reason: str) -> tuple[str, ...] | None:
    """The kinds of difference ``reason`` accounts for (``()``: none, it changes nothing the differ sees); None
    where the ledger does not know the reason."""
    for pattern, kinds in _COMPILED:
        if pattern.match(reason):
            return kinds
    return None


def unknown_reasons(report: Report) -> list[str]:
    """The reasons of ``report`` the ledger does not know."""
    return sorted(reason for reason in report.counts if kinds_of(reason) is None)


def expected(report: Report) -> Counter[str]:
    """The differences ``report`` accounts for, per kind."""
    counts: Counter[str] = Counter()
    for reason, count in report.counts.items():
        for kind in kinds_of(reason) or ():
            counts[kind] += count
    return counts


@dataclass
class Mismatch:
    """A kind of difference whose count the reports do not give: ``found`` by the differ, ``reported``."""

    kind: str
    found: int
    reported: int
    examples: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        what = "not in the report" if self.found > self.reported else "reported but not found"
        shown = f" (e.g. {self.examples[0]})" if self.examples else ""
        return f"{self.kind}: {self.found} found, {self.reported} reported: {abs(self.found - self.reported)} " \
               f"{what}{shown}"


@dataclass
class Verification:
    """The outcome of comparing what was written, read back, with the model it was written from."""

    differences: Differences
    report: Report
    mismatches: list[Mismatch]

    @property
    def silent(self) -> list[Mismatch]:
        """Differences the reports do not account for: silent losses."""
        return [m for m in self.mismatches if m.found > m.reported]

    def __bool__(self) -> bool:
        return not self.mismatches


def check(differences: Differences, report: Report) -> Verification:
    """Compare the differ's counts with what ``report`` (the writer's and the read-back's reasons) accounts for."""
    wanted = expected(report)
    mismatches = [Mismatch(kind, differences.counts[kind], wanted[kind], differences.examples.get(kind, []))
                  for kind in sorted(set(differences.counts) | set(wanted))
                  if differences.counts[kind] != wanted[kind]]
    return Verification(differences, report, mismatches)


class VerificationError(HarmonizeError):
    """A conversion whose output, read back, differs from its model in a way its report does not say."""

    def __init__(self, where: str, verification: Verification) -> None:
        self.verification = verification
        silent = verification.silent
        lines = "; ".join(str(m) for m in silent)
        super().__init__(f"{where}: read back, the output differs from what was written in ways the report does "
                         f"not name: {lines}")


def verify(written: list[Document], read_back: list[Document], report: Report, where: str) -> Verification:
    """Diff the documents as written with the same documents read back from the output, and check the
    differences against ``report`` (the writer's reasons and those of reading the output back); raises
    `VerificationError` where a difference is not in the report."""
    verification = check(diff_corpora(written, read_back), report)
    if verification.silent:
        raise VerificationError(where, verification)
    return verification


def report_since(report: Report, before: Report) -> Report:
    """What ``report`` counts beyond ``before`` (a copy of it taken earlier): one step's share of a report that
    several steps add to."""
    return Report(counts=report.counts - before.counts)
