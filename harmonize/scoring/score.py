"""Score a response corpus against a key corpus, document by document, summed as the reference scorers do.

Key and response must hold the same documents with the same words (empty nodes may differ: a system may add or
miss zeros); the first difference is an error. Mentions are matched exactly, partially or by head
(:mod:`harmonize.scoring.matching`). A mention that occurs twice in one side is kept in the first cluster that has
it (clusters in the order their first bracket opens) and the removal is counted, as the reference scorer's
de-duplication does. Singletons are left out of both sides unless asked for (the CorefUD convention).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy.optimize import linear_sum_assignment

from harmonize.errors import HarmonizeError
from harmonize.schemas.model import Corpus, Document
from harmonize.scoring.matching import Span, document_spans, match, reduce_to_heads
from harmonize.scoring.metrics import METRICS, BlancScore, Score

MENTION_METRICS = {"mor"}


@dataclass
class CorpusScore:
    metrics: dict[str, Score | BlancScore]
    documents: int
    duplicates: dict[str, int] = field(default_factory=dict)

    @property
    def conll(self) -> float | None:
        if not all(name in self.metrics for name in ("muc", "bcub", "ceafe")):
            return None
        return (self.metrics["muc"].f1 + self.metrics["bcub"].f1 + self.metrics["ceafe"].f1) / 3

    def to_json(self) -> dict:
        return {
            "metrics": {name: {"recall": s.recall, "precision": s.precision, "f1": s.f1}
                        for name, s in self.metrics.items()},
            "conll": self.conll,
        }


def check_alignment(key: Corpus, response: Corpus, forms: bool = True) -> list[tuple[Document, Document]]:
    """Pair documents by id and check that their words agree, in both directions. With ``forms`` off only the
    word positions must agree (the reference scorer's own test cases rename tokens in responses)."""
    responses = {d.id: d for d in response.documents}
    keys = {d.id: d for d in key.documents}
    for document in key.documents:
        if document.id not in responses:
            raise HarmonizeError(f"document {document.id!r} is in the key but not in the response")
    for document in response.documents:
        if document.id not in keys:
            raise HarmonizeError(f"document {document.id!r} is in the response but not in the key")
    pairs = []
    for document in key.documents:
        other = responses[document.id]
        key_words = [(s.index, n.id, n.form if forms else "") for s in document.sentences for n in s.nodes
                     if not n.is_empty]
        response_words = [(s.index, n.id, n.form if forms else "") for s in other.sentences for n in s.nodes
                          if not n.is_empty]
        for a, b in zip(key_words, response_words):
            if a != b:
                raise HarmonizeError(
                    f"document {document.id!r}, sentence {a[0] + 1}, token {a[1]}: key has {a[2]!r}, "
                    f"response has sentence {b[0] + 1}, token {b[1]} {b[2]!r}")
        if len(key_words) != len(response_words):
            shorter = "response" if len(response_words) < len(key_words) else "key"
            raise HarmonizeError(f"document {document.id!r}: the {shorter} is truncated "
                                 f"({len(key_words)} key words, {len(response_words)} response words)")
        pairs.append((document, other))
    return pairs


def mention_overlap(key: list[list[Span]], response: list[list[Span]]) -> Score:
    """MOR (CRAC 2022): one-to-one alignment of all key and response mentions maximising overlapping nodes;
    overlapping nodes over all key (recall) or response (precision) mention nodes.

    Only mentions that share nodes can be aligned usefully, so the optimal assignment is solved separately in
    each connected part of the overlap graph (a handful of mentions each) instead of on one dense matrix."""
    key_spans = [s for c in key for s in c]
    response_spans = [s for c in response for s in c]
    holders: dict[tuple[int, str], list[int]] = {}
    for i, span in enumerate(key_spans):
        for node in span.nodes:
            holders.setdefault(node, []).append(i)
    overlap: dict[tuple[int, int], int] = {}
    for j, span in enumerate(response_spans):
        for node in span.nodes:
            for i in holders.get(node, ()):
                overlap[i, j] = overlap.get((i, j), 0) + 1
    parent = list(range(len(key_spans) + len(response_spans)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in overlap:
        parent[root(i)] = root(len(key_spans) + j)
    parts: dict[int, list[tuple[int, int]]] = {}
    for i, j in overlap:
        parts.setdefault(root(i), []).append((i, j))
    total = 0
    for edges in parts.values():
        rows = sorted({i for i, _ in edges})
        columns = sorted({j for _, j in edges})
        matrix = np.zeros((len(rows), len(columns)))
        row_of = {i: n for n, i in enumerate(rows)}
        column_of = {j: n for n, j in enumerate(columns)}
        for i, j in edges:
            matrix[row_of[i], column_of[j]] = overlap[i, j]
        chosen_rows, chosen_columns = linear_sum_assignment(matrix, maximize=True)
        total += int(matrix[chosen_rows, chosen_columns].sum())
    return Score(Fraction(total), Fraction(sum(s.size for s in key_spans)),
                 Fraction(total), Fraction(sum(s.size for s in response_spans)))


def score_corpora(
    key: Corpus,
    response: Corpus,
    metrics: list[str] | None = None,
    singletons: bool = False,
    forms: bool = True,
    mode: str = "exact",
) -> CorpusScore:
    names = metrics or [*METRICS, "mor"]
    unknown = [n for n in names if n not in METRICS and n not in MENTION_METRICS]
    if unknown:
        raise HarmonizeError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join([*METRICS, 'mor'])}")
    if mode not in ("exact", "partial", "head"):
        raise HarmonizeError(f"unknown matching mode {mode!r}: exact, partial or head")
    totals: dict[str, Score | BlancScore] = {}
    duplicates = {"key": 0, "response": 0}
    pairs = check_alignment(key, response, forms)
    for key_document, response_document in pairs:
        heads = mode != "exact"
        key_spans, key_duplicates = document_spans(key_document, singletons, heads)
        response_spans, response_duplicates = document_spans(response_document, singletons, heads)
        duplicates["key"] += key_duplicates
        duplicates["response"] += response_duplicates
        as_annotated = (key_spans, response_spans)  # MOR looks at the spans as annotated, whatever the mode
        if mode == "head":
            key_spans, response_spans = reduce_to_heads(key_spans), reduce_to_heads(response_spans)
        matched = match(key_spans, response_spans, mode)
        key_clusters = [frozenset(c) for c in key_spans]
        response_clusters = [frozenset(matched.get(s, s) for s in c) for c in response_spans]
        for name in names:
            if name == "mor":
                result: Score | BlancScore = mention_overlap(*as_annotated)
            else:
                result = METRICS[name](key_clusters, response_clusters)
            totals[name] = totals[name] + result if name in totals else result  # type: ignore[operator]
    return CorpusScore(totals, len(pairs), duplicates)
