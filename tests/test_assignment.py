"""The scorer's own assignment solver: optimal totals equal brute force and scipy's, on dense and sparse input."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from harmonize.scoring.assignment import dense_assignment, sparse_assignment

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
    pairs = sparse_assignment(weights)
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


def test_fractions_stay_exact() -> None:
    third, half = Fraction(1, 3), Fraction(1, 2)
    weights = {(0, 0): third, (1, 1): third, (2, 2): third, (0, 1): half, (1, 0): half}
    total = sum((weights[p] for p in sparse_assignment(weights)), Fraction(0))
    assert isinstance(total, Fraction) and total == Fraction(4, 3)  # 1/2 + 1/2 + 1/3, no rounding


def test_empty_and_degenerate_shapes() -> None:
    assert dense_assignment([]) == []
    assert dense_assignment([[]]) == []
    assert dense_assignment([[3]]) == [(0, 0)]
    assert dense_assignment([[1], [5], [2]]) == [(1, 0)]
    assert sparse_assignment({}) == []
    assert sparse_assignment({(4, 7): 2}) == [(4, 7)]
