"""Compare a conversion with a reference conversion of the same documents (OntoGUM against the official build).

Documents are matched by id (a first part, "NAME/part 000", matches "NAME"). For each genre and overall: how many
documents have the same tokens (forms in order), mention precision/recall/F1 with exact spans, and the CoNLL score
(mean F1 of MUC, B3 and CEAF-e), all clusters counted as given (as the reference CoNLL scorer does). Mentions are
compared by the positions of their words in the document, so sentence breaks need not agree (the official OntoGUM
output has none). Token forms may differ where the reference damaged a token (it writes "|" as an empty word); the
differing documents are listed, and token counts must agree. Beside the figures, every difference of the paired
documents by kind, as `harmonize.accounting.differ` finds it (sentence ids, columns, heads, types ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from harmonize.accounting.differ import Differences, diff_documents
from harmonize.converters.conll2012 import genre_from_id
from harmonize.errors import HarmonizeError
from harmonize.schemas.model import Corpus, Document, pairing_key
from harmonize.scoring.metrics import Score, b_cubed, ceaf_e, muc


@dataclass
class GroupComparison:
    name: str
    documents: int
    same_tokens: int
    mention_precision: float
    mention_recall: float
    mention_f1: float
    conll: float


@dataclass
class Comparison:
    groups: list[GroupComparison]
    token_differences: list[str] = field(default_factory=list)  # "document: first differing token"
    only_ours: list[str] = field(default_factory=list)
    only_reference: list[str] = field(default_factory=list)
    # Every difference of the paired documents by kind (`harmonize.accounting.differ`), the reference first.
    differences: Differences = field(default_factory=Differences)


def _forms(document: Document) -> list[str]:
    return [node.form for node in document.nodes() if not node.is_empty]


def _key(document: Document) -> tuple[str | None, int]:
    """The id documents are matched by: "NAME/part 000" from an OntoNotes-layout file meets "NAME" from a file
    whose header names no part (the official OntoGUM output)."""
    return pairing_key(document.id)


def _label(document: Document) -> str:
    """How messages name a document: its name alone where it is part 0."""
    name, part = _key(document)
    return str(name) if part == 0 else str(document.id)


def compare_corpora(ours: Corpus, reference: Corpus) -> Comparison:
    by_key = {_key(d): d for d in reference.documents}
    pairs = [(d, by_key[_key(d)]) for d in ours.documents if _key(d) in by_key]
    ours_keys = {_key(d) for d in ours.documents}
    comparison = Comparison([], only_ours=sorted(str(d.id) for d in ours.documents if _key(d) not in by_key),
                            only_reference=sorted(str(d.id) for k, d in by_key.items() if k not in ours_keys))
    if not ours.documents and not reference.documents:
        raise HarmonizeError("nothing to compare: neither side holds a document")
    if not pairs:
        raise HarmonizeError("no document of one side has an id found on the other")
    same: dict[str, bool] = {}
    for mine, theirs in pairs:
        diff_documents(theirs, mine, comparison.differences)
        a, b = _forms(mine), _forms(theirs)
        same[str(mine.id)] = a == b
        if len(a) != len(b):
            raise HarmonizeError(f"{_label(mine)}: {len(a)} tokens here and {len(b)} in the reference; "
                                 "mentions cannot be compared by position")
        if a != b:
            at = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
            comparison.token_differences.append(f"{_label(mine)}: token {at + 1} is {a[at]!r} here and {b[at]!r} in "
                                                f"the reference ({len(a)} and {len(b)} tokens)")
    groups: dict[str, list[tuple[Document, Document]]] = {}
    for mine, theirs in pairs:
        groups.setdefault(genre_from_id(str(mine.id)) or "other", []).append((mine, theirs))
    for name, members in [*sorted(groups.items()), ("all", pairs)]:
        totals = [Score(Fraction(0), Fraction(0), Fraction(0), Fraction(0)) for _ in range(4)]
        for mine, theirs in members:
            key, response = _clusters(theirs), _clusters(mine)
            found = {m for c in key for m in c} & {m for c in response for m in c}
            mentions = Score(Fraction(len(found)), Fraction(sum(map(len, key))), Fraction(len(found)),
                             Fraction(sum(map(len, response))))
            for at, score in enumerate((mentions, muc(key, response), b_cubed(key, response),
                                        ceaf_e(key, response))):
                totals[at] += score
        mentions, *conll = totals
        comparison.groups.append(GroupComparison(
            name, len(members), sum(same[str(m.id)] for m, _ in members), mentions.precision, mentions.recall,
            mentions.f1, sum(score.f1 for score in conll) / 3))
    return comparison


def _clusters(document: Document) -> list[set[tuple[int, ...]]]:
    """Each entity as a set of mentions, a mention as the positions of its words in the document: sentence
    breaks and ids play no part (the official OntoGUM output has neither). A span in two entities counts in the
    first only, as the scorer has it."""
    position = {id(node): at for at, node in enumerate(n for n in document.nodes() if not n.is_empty)}
    seen: set[tuple[int, ...]] = set()
    clusters = []
    for entity in document.entities:
        spans = {tuple(position[id(w)] for w in m.words if id(w) in position) for m in entity.mentions} - seen
        seen |= spans
        if spans:
            clusters.append(spans)
    return clusters
