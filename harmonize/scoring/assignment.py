"""Optimal one-to-one assignment of maximum total weight, exact over ints and Fractions.

CEAF and MOR need only the optimal total, never which of several equally good alignments was taken, so they can
solve each connected part of the overlap graph on its own: clusters that share no mention cannot gain anything
from being aligned. Parts are tiny in real documents (most are a single pair), which makes a pure-Python
Hungarian algorithm faster than importing scipy, and exact arithmetic keeps the totals free of rounding.

Where the reference scorers *use* the alignment (which key mention a response mention stands for, which split
antecedent is scored against which), ties between equally good alignments decide figures, and the references break
them as scipy's ``linear_sum_assignment`` does: `scipy_order_assignment` takes the same path through the matrix in
pure Python, so that no scorer needs numpy and scipy (over a quarter of a second to import).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import TypeVar

Weight = TypeVar("Weight", int, Fraction)


def dense_assignment(weights: Sequence[Sequence[Weight]]) -> list[tuple[int, int]]:
    """(row, column) pairs of a maximum-weight assignment of a rectangular matrix, covering its smaller side.

    The Hungarian algorithm with potentials and shortest augmenting paths (Kuhn 1955, Munkres 1957, in the
    O(n^2 m) form of Jonker and Volgenant), on costs = -weights, for rows <= columns (the matrix is transposed
    otherwise)."""
    if not weights or not weights[0]:
        return []
    transposed = len(weights) > len(weights[0])
    cost = [[-w for w in column] for column in zip(*weights)] if transposed else [[-w for w in row] for row in weights]
    rows, columns = len(cost), len(cost[0])
    infinity = float("inf")
    # 1-based as in the textbook formulation: column 0 is the virtual start of each augmenting path.
    row_potential: list = [0] * (rows + 1)
    column_potential: list = [0] * (columns + 1)
    row_of_column = [0] * (columns + 1)
    previous_column = [0] * (columns + 1)
    for row in range(1, rows + 1):
        row_of_column[0] = row
        column = 0
        slack: list = [infinity] * (columns + 1)
        used = [False] * (columns + 1)
        while True:
            used[column] = True
            current_row = row_of_column[column]
            cost_row = cost[current_row - 1]
            base = row_potential[current_row]
            delta: object = infinity
            next_column = 0
            for j in range(1, columns + 1):
                if used[j]:
                    continue
                reduced = cost_row[j - 1] - base - column_potential[j]
                if reduced < slack[j]:
                    slack[j] = reduced
                    previous_column[j] = column
                if slack[j] < delta:
                    delta = slack[j]
                    next_column = j
            for j in range(columns + 1):
                if used[j]:
                    row_potential[row_of_column[j]] += delta
                    column_potential[j] -= delta
                else:
                    slack[j] -= delta
            column = next_column
            if row_of_column[column] == 0:
                break
        while column:  # flip the augmenting path
            back = previous_column[column]
            row_of_column[column] = row_of_column[back]
            column = back
    pairs = [(row_of_column[j] - 1, j - 1) for j in range(1, columns + 1) if row_of_column[j]]
    return sorted((j, i) for i, j in pairs) if transposed else sorted(pairs)


def sparse_assignment(pairs: Iterable[tuple[int, int]], weight: Callable[[tuple[int, int]], Weight]
                      ) -> list[tuple[int, int]]:
    """(row, column) pairs of a maximum-weight assignment, given the pairs of positive weight (absent pairs weigh
    0); ``weight`` is asked only where a choice is to be made.

    Each connected part of the rows-columns graph is solved on its own: a lone pair is taken, a part with one row
    or one column gives its heaviest pair, and the rest go to `dense_assignment`."""
    pairs = list(pairs)
    row_degree = Counter(i for i, _ in pairs)
    column_degree = Counter(j for _, j in pairs)
    chosen = [(i, j) for i, j in pairs if row_degree[i] == 1 and column_degree[j] == 1]
    shared = [(i, j) for i, j in pairs if row_degree[i] > 1 or column_degree[j] > 1]
    # Union-find over rows (i) and columns (-1 - j) of the pairs that share a row or a column.
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in shared:
        a, b = root(i), root(-1 - j)
        if a != b:
            parent[a] = b
    parts: dict[int, list[tuple[int, int]]] = {}
    for pair in shared:
        parts.setdefault(root(pair[0]), []).append(pair)
    for edges in parts.values():
        rows = sorted({i for i, _ in edges})
        columns = sorted({j for _, j in edges})
        if len(rows) == 1 or len(columns) == 1:
            chosen.append(max(edges, key=weight))
            continue
        weights = {edge: weight(edge) for edge in edges}
        matrix = [[weights.get((i, j), 0) for j in columns] for i in rows]
        chosen.extend((rows[a], columns[b]) for a, b in dense_assignment(matrix) if matrix[a][b] > 0)
    return chosen


def scipy_order_assignment(cost: Sequence[Sequence[float]], maximize: bool = False) -> list[tuple[int, int]]:
    """(row, column) pairs of a minimum-cost (``maximize``: maximum-weight) assignment of a rectangular float
    matrix, covering its smaller side, sorted by row: among equally good assignments the one scipy's
    ``linear_sum_assignment`` returns.

    The shortest augmenting path algorithm as Crouse (2016, "On implementing 2D rectangular assignment
    algorithms") describes it, one row at a time, with the choices a description leaves open made as scipy makes
    them: a matrix with more rows than columns is solved transposed; columns are scanned from the last one down,
    each chosen column's place in the scan taken by the scan's last; a column whose path cost ties the lowest wins
    only when it is unassigned. The float operations are scipy's, in its order, so equal inputs give equal sums."""
    if not cost or not cost[0]:
        return []
    transposed = len(cost) > len(cost[0])
    matrix = [list(column) for column in zip(*cost)] if transposed else [list(row) for row in cost]
    if maximize:
        matrix = [[-value for value in row] for row in matrix]
    rows, columns = len(matrix), len(matrix[0])
    infinity = float("inf")
    row_potential = [0.0] * rows
    column_potential = [0.0] * columns
    column_of_row = [-1] * rows
    row_of_column = [-1] * columns
    previous_row = [-1] * columns
    for start_row in range(rows):
        path_cost = [infinity] * columns
        row_seen = [False] * rows
        column_seen = [False] * columns
        scan = list(range(columns - 1, -1, -1))
        lowest_so_far = 0.0
        row, sink = start_row, -1
        while sink < 0:
            row_seen[row] = True
            lowest, chosen = infinity, -1
            for place, column in enumerate(scan):
                reduced = lowest_so_far + matrix[row][column] - row_potential[row] - column_potential[column]
                if reduced < path_cost[column]:
                    previous_row[column] = row
                    path_cost[column] = reduced
                if path_cost[column] < lowest or (path_cost[column] == lowest and row_of_column[column] == -1):
                    lowest, chosen = path_cost[column], place
            lowest_so_far = lowest  # finite: rows <= columns leaves a column to reach
            column = scan[chosen]
            column_seen[column] = True
            scan[chosen] = scan[-1]
            scan.pop()
            if row_of_column[column] == -1:
                sink = column
            else:
                row = row_of_column[column]
        row_potential[start_row] += lowest_so_far
        for other in range(rows):
            if row_seen[other] and other != start_row:
                row_potential[other] += lowest_so_far - path_cost[column_of_row[other]]
        for column in range(columns):
            if column_seen[column]:
                column_potential[column] -= lowest_so_far - path_cost[column]
        column = sink
        while True:  # flip the augmenting path back to the start row
            row = previous_row[column]
            row_of_column[column] = row
            column_of_row[row], column = column, column_of_row[row]
            if row == start_row:
                break
    if transposed:
        return sorted((column, row) for row, column in enumerate(column_of_row))
    return list(enumerate(column_of_row))
