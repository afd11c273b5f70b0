"""The scorer's own assignment solver: optimal totals equal brute force and scipy's, and so do CEAF and MOR."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from harmonize.scoring.assignment import dense_assignment, scipy_order_assignment, sparse_assignment
from harmonize.scoring.matching import Span
from harmonize.scoring.metrics import ceaf_e, ceaf_m
from harmonize.scoring.score import mention_overlap

# Small weights make ties frequent, which is where a wrong potential update shows.
matrices = st.integers(1, 5).flatmap(lambda rows: st.integers(1, 5).flatmap(
    lambda columns: st.lists(st.lists(st.integers(0, 4), min_size=columns, max_size=columns),
                             min_size=rows, max_size=rows)))


def brute_force(weights: list[list[int]]) -> int:
    rows, columns = len(weights), len(weights[0])
    if rows <= columns:
        return max(sum(weights[i][j] for i, j in enumerate(p)) for p in permutations(range(columns), rows))
    return max(sum(weights[i][j] for j, i in enumerate(p)) for p in permutations(range(rows), columns))


def is_one_to_one(pairs: list[tuple[int, int]]) -> bool:
    return len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})


@settings(max_examples=300, deadline=None)
@given(matrices)
def test_dense_total_is_optimal(weights: list[list[int]]) -> None:
    pairs = dense_assignment(weights)
    assert is_one_to_one(pairs)
    assert len(pairs) == min(len(weights), len(weights[0]))
    assert sum(weights[i][j] for i, j in pairs) == brute_force(weights)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 12), st.integers(0, 12)), st.integers(1, 9), max_size=40))
def test_sparse_total_equals_scipy_on_the_dense_matrix(weights: dict[tuple[int, int], int]) -> None:
    pairs = sparse_assignment(weights, weights.__getitem__)
    assert is_one_to_one(pairs)
    assert all(pair in weights for pair in pairs)
    expected = 0
    if weights:
        dense = np.zeros((13, 13))
        for (i, j), w in weights.items():
            dense[i, j] = w
        rows, columns = linear_sum_assignment(dense, maximize=True)
        expected = int(dense[rows, columns].sum())
    assert sum(weights[pair] for pair in pairs) == expected


# Ties everywhere (few distinct values, fractions as F1 gives them): the pairs themselves must be scipy's.
float_matrices = st.integers(1, 6).flatmap(lambda rows: st.integers(1, 6).flatmap(
    lambda columns: st.lists(st.lists(st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 2 / 3, 1.0, 0.1 + 0.2]),
                                      min_size=columns, max_size=columns), min_size=rows, max_size=rows)))


@settings(max_examples=500, deadline=None)
@given(float_matrices, st.booleans())
def test_scipy_order_assignment_takes_scipys_pairs(weights: list[list[float]], maximize: bool) -> None:
    rows, columns = linear_sum_assignment(np.array(weights), maximize=maximize)
    assert scipy_order_assignment(weights, maximize) == list(zip(rows.tolist(), columns.tolist()))


def test_scipy_order_assignment_of_nothing() -> None:
    assert scipy_order_assignment([]) == []
    assert scipy_order_assignment([[]]) == []


def test_fractions_stay_exact() -> None:
    third, half = Fraction(1, 3), Fraction(1, 2)
    weights = {(0, 0): third, (1, 1): third, (2, 2): third, (0, 1): half, (1, 0): half}
    total = sum((weights[p] for p in sparse_assignment(weights, weights.__getitem__)), Fraction(0))
    assert isinstance(total, Fraction) and total == Fraction(4, 3)  # 1/2 + 1/2 + 1/3, no rounding


def test_empty_and_degenerate_shapes() -> None:
    assert dense_assignment([]) == []
    assert dense_assignment([[]]) == []
    assert dense_assignment([[3]]) == [(0, 0)]
    assert dense_assignment([[1], [5], [2]]) == [(1, 0)]
    assert sparse_assignment({}, int) == []
    assert sparse_assignment({(4, 7): 2}, int) == [(4, 7)]


# The metrics that use the solver agree with their definition computed on the dense matrix by scipy.
clusterings = st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=25).map(
    lambda labels: [frozenset(m for m, label in enumerate(labels) if label == value) for value in set(labels)])


def dense_optimum(similarity: np.ndarray) -> float:
    rows, columns = linear_sum_assignment(similarity, maximize=True)
    return float(similarity[rows, columns].sum())


@settings(max_examples=200, deadline=None)
@given(clusterings, clusterings)
def test_ceaf_equals_the_dense_definition(key, response) -> None:
    overlap = np.array([[len(k & r) for r in response] for k in key], dtype=float)
    phi4 = np.array([[2 * len(k & r) / (len(k) + len(r)) for r in response] for k in key])
    assert float(ceaf_m(key, response).recall_num) == dense_optimum(overlap)
    assert abs(float(ceaf_e(key, response).recall_num) - dense_optimum(phi4)) < 1e-9


spans = st.lists(st.tuples(st.integers(0, 15), st.integers(1, 4)), min_size=1, max_size=12, unique=True).map(
    lambda items: [[Span(frozenset((0, str(n)) for n in range(start, start + length)), (0, start), None)]
                   for start, length in items])


@settings(max_examples=200, deadline=None)
@given(spans, spans)
def test_mor_equals_the_dense_definition(key, response) -> None:
    key_spans = [s for c in key for s in c]
    response_spans = [s for c in response for s in c]
    overlap = np.array([[len(k.nodes & r.nodes) for r in response_spans] for k in key_spans], dtype=float)
    assert float(mention_overlap(key, response).recall_num) == dense_optimum(overlap)
