"""Compare a conversion with a reference conversion of the same documents (OntoGUM against the official build).

Documents are matched by id. For each genre and overall: how many documents have the same tokens (forms in
order), mention precision/recall/F1 with exact spans, and the CoNLL score (mean F1 of MUC, B3 and CEAF-e), all
clusters counted as given (as the reference CoNLL scorer does). Token forms may differ where the reference
damaged a token (the official OntoGUM output writes "|" as an empty word); scores then align tokens by position,
which needs equal token counts, and the differing documents are listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harmonize.converters.conll2012 import genre_from_id
from harmonize.errors import HarmonizeError
from harmonize.schemas.model import Corpus, Document
from harmonize.scoring.score import score_corpora


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


def _forms(document: Document) -> list[str]:
    return [node.form for node in document.nodes() if not node.is_empty]


def compare_corpora(ours: Corpus, reference: Corpus) -> Comparison:
    by_id = {d.id: d for d in reference.documents}
    pairs = [(d, by_id[d.id]) for d in ours.documents if d.id in by_id]
    ours_ids = {d.id for d in ours.documents}
    comparison = Comparison([], only_ours=sorted(str(d.id) for d in ours.documents if d.id not in by_id),
                            only_reference=sorted(str(i) for i in by_id if i not in ours_ids))
    if not pairs:
        raise HarmonizeError("no document of one side has an id found on the other")
    same: dict[str, bool] = {}
    for mine, theirs in pairs:
        a, b = _forms(mine), _forms(theirs)
        same[str(mine.id)] = a == b
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
            comparison.token_differences.append(
                f"{mine.id}: token {at + 1} is {a[at] if at < len(a) else None!r} here and "
                f"{b[at] if at < len(b) else None!r} in the reference ({len(a)} and {len(b)} tokens)")
    groups: dict[str, list[tuple[Document, Document]]] = {}
    for mine, theirs in pairs:
        groups.setdefault(genre_from_id(str(mine.id)) or "other", []).append((mine, theirs))
    for name, members in [*sorted(groups.items()), ("all", pairs)]:
        result = score_corpora(Corpus([t for _, t in members]), Corpus([m for m, _ in members]),
                               ["muc", "bcub", "ceafe", "mentions"], singletons=True, forms=False, mode="exact")
        mentions = result.metrics["mentions"]
        comparison.groups.append(GroupComparison(
            name, len(members), sum(same[str(m.id)] for m, _ in members), mentions.precision, mentions.recall,
            mentions.f1, result.conll or 0.0))
    return comparison
