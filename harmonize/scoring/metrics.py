"""Coreference metrics as pure functions over key and response clusters.

A cluster is a collection of hashable mentions; a clustering is a sequence of clusters. Each metric returns a
`Score` whose recall and precision are kept as exact numerator/denominator pairs, so that scores summed
over documents (micro average, as the reference scorers do) stay exact, and so that a test can compare against
the fractions the reference test cases print.

Definitions follow the reference scorers (reference-coreference-scorers v8.01, CorefUD scorer):

* MUC (Vilain et al. 1995): links; recall = sum over key clusters of |k| - |partitions of k by the response|,
  over sum |k| - 1; precision symmetrically.
* B3 (Bagga & Baldwin 1998): per mention, |k ∩ r|^2 / |k| summed, over the number of key mentions.
* CEAF-m / CEAF-e (Luo 2005): optimal one-to-one cluster alignment with phi3 = |k ∩ r| (mentions) or
  phi4 = 2|k ∩ r| / (|k| + |r|) (entities).
* BLANC (Recasens & Hovy 2011, extended to system mentions by Luo et al. 2014): coreference and
  non-coreference links; where neither key nor response has links of one kind, BLANC is the other kind's
  score (the CorefUD scorer's rule; the original reference scorer looked at the key alone).
* LEA (Moosavi & Strube 2016): link-based entity-aware; a singleton counts as one self-link.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Collection

from harmonize.scoring.assignment import sparse_assignment

Mention = Hashable
Clustering = Sequence[Collection[Mention]]


@dataclass(frozen=True)
class Score:
    """Recall and precision as exact fractions (numerator, denominator); 0/0 counts as 0."""

    recall_num: Fraction
    recall_den: Fraction
    precision_num: Fraction
    precision_den: Fraction

    @property
    def recall(self) -> float:
        return float(self.recall_num / self.recall_den) if self.recall_den else 0.0

    @property
    def precision(self) -> float:
        return float(self.precision_num / self.precision_den) if self.precision_den else 0.0

    @property
    def f1(self) -> float:
        return f1(self.recall, self.precision)

    def __add__(self, other: Score) -> Score:
        return Score(self.recall_num + other.recall_num, self.recall_den + other.recall_den,
                     self.precision_num + other.precision_num, self.precision_den + other.precision_den)


def f1(recall: float, precision: float) -> float:
    return 2 * recall * precision / (recall + precision) if recall + precision else 0.0


def _score(recall_num: float | Fraction, recall_den: float | Fraction, precision_num: float | Fraction,
           precision_den: float | Fraction) -> Score:
    return Score(Fraction(recall_num), Fraction(recall_den), Fraction(precision_num), Fraction(precision_den))


def _sets(clusters: Clustering) -> list[frozenset[Mention]]:
    return [frozenset(c) for c in clusters if len(c)]


def _index(clusters: list[frozenset[Mention]]) -> dict[Mention, int]:
    return {m: i for i, cluster in enumerate(clusters) for m in cluster}


def _muc_side(gold: list[frozenset[Mention]], other: list[frozenset[Mention]]) -> tuple[int, int]:
    where = _index(other)
    numerator = denominator = 0
    for cluster in gold:
        partitions = len({where[m] for m in cluster if m in where}) + sum(1 for m in cluster if m not in where)
        numerator += len(cluster) - partitions
        denominator += len(cluster) - 1
    return numerator, denominator


def muc(key: Clustering, response: Clustering) -> Score:
    k, r = _sets(key), _sets(response)
    recall = _muc_side(k, r)
    precision = _muc_side(r, k)
    return _score(*recall, *precision)


def _b3_side(gold: list[frozenset[Mention]], other: list[frozenset[Mention]]) -> tuple[Fraction, int]:
    where = _index(other)
    by_size: dict[int, int] = {}  # cluster size -> summed squared overlaps: one Fraction per distinct size
    for cluster in gold:
        overlaps: dict[int, int] = {}
        for m in cluster:
            j = where.get(m)
            if j is not None:
                overlaps[j] = overlaps.get(j, 0) + 1
        by_size[len(cluster)] = by_size.get(len(cluster), 0) + sum(n * n for n in overlaps.values())
    numerator = sum((Fraction(n, size) for size, n in by_size.items()), Fraction(0))
    return numerator, sum(len(c) for c in gold)


def b_cubed(key: Clustering, response: Clustering) -> Score:
    k, r = _sets(key), _sets(response)
    return _score(*_b3_side(k, r), *_b3_side(r, k))


def _overlaps(k: list[frozenset[Mention]], r: list[frozenset[Mention]]) -> dict[tuple[int, int], int]:
    """(key cluster, response cluster) -> number of shared mentions, for the pairs that share any."""
    where = _index(r)
    overlaps: dict[tuple[int, int], int] = {}
    for i, cluster in enumerate(k):
        for m in cluster:
            j = where.get(m)
            if j is not None:
                overlaps[i, j] = overlaps.get((i, j), 0) + 1
    return overlaps


def ceaf_m(key: Clustering, response: Clustering) -> Score:
    k, r = _sets(key), _sets(response)
    overlaps = _overlaps(k, r)
    total = sum(overlaps[pair] for pair in sparse_assignment(overlaps, overlaps.__getitem__))
    return _score(total, sum(len(c) for c in k), total, sum(len(c) for c in r))


def ceaf_e(key: Clustering, response: Clustering) -> Score:
    k, r = _sets(key), _sets(response)
    overlaps = _overlaps(k, r)

    def similarity(pair: tuple[int, int]) -> Fraction:
        return Fraction(2 * overlaps[pair], len(k[pair[0]]) + len(r[pair[1]]))

    # phi4 summed exactly: numerators grouped by denominator, one Fraction per distinct denominator.
    by_denominator: dict[int, int] = {}
    for i, j in sparse_assignment(overlaps, similarity):
        denominator = len(k[i]) + len(r[j])
        by_denominator[denominator] = by_denominator.get(denominator, 0) + 2 * overlaps[i, j]
    total = sum((Fraction(n, d) for d, n in by_denominator.items()), Fraction(0))
    return _score(total, len(k), total, len(r))


def _pairs(n: int) -> int:
    return n * (n - 1) // 2


@dataclass(frozen=True)
class BlancScore:
    """BLANC's two link kinds, each an exact Score, combined as the reference scorer does."""

    coreference: Score
    non_coreference: Score

    def _combine(self, attribute: str) -> float:
        c, n = getattr(self.coreference, attribute), getattr(self.non_coreference, attribute)
        if not (self.non_coreference.recall_den or self.non_coreference.precision_den):
            return c  # no non-coreference link on either side
        if not (self.coreference.recall_den or self.coreference.precision_den):
            return n
        return (c + n) / 2

    @property
    def recall(self) -> float:
        return self._combine("recall")

    @property
    def precision(self) -> float:
        return self._combine("precision")

    @property
    def f1(self) -> float:
        return self._combine("f1")

    def __add__(self, other: BlancScore) -> BlancScore:
        return BlancScore(self.coreference + other.coreference, self.non_coreference + other.non_coreference)


def blanc(key: Clustering, response: Clustering) -> BlancScore:
    """Link counts come from cluster overlaps, never from enumerating pairs: linear in the number of mentions."""
    k, r = _sets(key), _sets(response)
    overlaps = _overlaps(k, r)
    shared_per_key: dict[int, int] = {}
    shared_per_response: dict[int, int] = {}
    for (i, j), n in overlaps.items():
        shared_per_key[i] = shared_per_key.get(i, 0) + n
        shared_per_response[j] = shared_per_response.get(j, 0) + n
    common_coref = sum(_pairs(n) for n in overlaps.values())
    coref_k = sum(_pairs(len(c)) for c in k)
    coref_r = sum(_pairs(len(c)) for c in r)
    # Non-coreference links in both: pairs of shared mentions apart on both sides (inclusion-exclusion).
    common_non = (_pairs(sum(shared_per_key.values())) - sum(_pairs(n) for n in shared_per_key.values())
                  - sum(_pairs(n) for n in shared_per_response.values()) + common_coref)
    non_k = _pairs(sum(len(c) for c in k)) - coref_k
    non_r = _pairs(sum(len(c) for c in r)) - coref_r
    return BlancScore(
        _score(common_coref, coref_k, common_coref, coref_r),
        _score(common_non, non_k, common_non, non_r),
    )


def _lea_side(gold: list[frozenset[Mention]], other: list[frozenset[Mention]]) -> tuple[Fraction, int]:
    where = _index(other)
    resolved_singletons = 0
    by_size: dict[int, int] = {}  # cluster size -> common links summed: one Fraction per distinct size
    for cluster in gold:
        if len(cluster) == 1:
            (m,) = cluster
            # A singleton's one self-link is resolved when the other side has it as a singleton too.
            if m in where and len(other[where[m]]) == 1:
                resolved_singletons += 1
            continue
        overlaps: dict[int, int] = {}
        for m in cluster:
            j = where.get(m)
            if j is not None:
                overlaps[j] = overlaps.get(j, 0) + 1
        by_size[len(cluster)] = by_size.get(len(cluster), 0) + sum(_pairs(n) for n in overlaps.values())
    numerator = resolved_singletons + sum(
        (Fraction(size * n, _pairs(size)) for size, n in by_size.items()), Fraction(0))
    return numerator, sum(len(c) for c in gold)


def lea(key: Clustering, response: Clustering) -> Score:
    k, r = _sets(key), _sets(response)
    return _score(*_lea_side(k, r), *_lea_side(r, k))


METRICS = {"muc": muc, "bcub": b_cubed, "ceafe": ceaf_e, "ceafm": ceaf_m, "blanc": blanc, "lea": lea}
# Metrics over matched mentions rather than clusters alone (computed in harmonize.scoring.score).
MENTION_METRICS = ("mentions", "mor", "zero")
ALL_METRICS = (*METRICS, *MENTION_METRICS)  # the scorer's default: every metric, in this order
UA_METRICS = tuple(METRICS)  # what the UA scorer computes (harmonize.scoring.ua), in this order


def conll_f1(key: Clustering, response: Clustering) -> float:
    """The CoNLL score: the mean of MUC, B3 and CEAF-e F1."""
    return (muc(key, response).f1 + b_cubed(key, response).f1 + ceaf_e(key, response).f1) / 3
