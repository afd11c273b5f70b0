"""Confidence intervals and paired significance tests over documents, and scores by group.

Every corpus-level figure of the scorers is a sum over documents: each metric's recall and precision numerators and
denominators are added up document by document (CEAF aligns entities within a document, BLANC counts links within
one), then divided. So a resampled corpus is scored exactly as the scorer scores a corpus: its documents' counts
re-added, the figures computed from the sums. Nothing is re-aligned or re-matched: the per-document counts are
computed once (`harmonize.scoring.score.score_documents` keeps them) and the resampling is arithmetic on them.

- **Bootstrap interval** (`bootstrap_intervals`): documents drawn with replacement, ``samples`` times; the interval
  is the percentile interval of the figure over the samples (Efron & Tibshirani 1993; Koehn 2004).
- **Paired bootstrap** (`compare_pair`): both systems' counts resampled with the same documents; the interval of the
  difference is its percentile interval, and the p-value that of the shifted null (Berg-Kirkpatrick et al. 2012):
  how often the resampled difference lies as far from the observed one as the observed one lies from 0,
  ``(count + 1) / (samples + 1)``.
- **Approximate randomization** (Noreen 1989; Riezler & Maxwell 2005): each document's two outputs swapped with
  probability 1/2, ``samples`` times; p = ``(count + 1) / (samples + 1)`` of the differences at least as large in
  absolute value as the observed one. ``exact`` enumerates every one of the 2^n assignments instead (n at most
  `EXACT_LIMIT`), which gives the exact p-value the sampled one estimates.

Two-sided throughout. Identical systems give p = 1 and a zero-width interval; a system better on every document
gives the smallest p the sample count allows. The same ``seed`` gives the same figures.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from harmonize.errors import HarmonizeError
from harmonize.scoring.frame import CorpusScore
from harmonize.scoring.metrics import BlancScore, Score
from harmonize.scoring.scored import DocumentFacts

# The CoNLL score: the mean F1 of these three (Pradhan et al. 2012).
CONLL_PARTS = ("muc", "bcub", "ceafe")
# Above this many documents the exact randomization test (2^n assignments) is refused.
EXACT_LIMIT = 20
# Samples are drawn this many at a time, so that memory stays bounded on corpora of many documents.
_BATCH = 1000
# Differences closer than this count as equal (sums of the same counts in another order).
_TOLERANCE = 1e-12


def counts_of(scores: Sequence[Score | BlancScore]) -> np.ndarray:
    """One metric's per-document counts as an array, a row per document: recall and precision numerators and
    denominators (4 columns), BLANC's coreference then non-coreference links (8)."""
    rows = []
    for score in scores:
        parts = [score.coreference, score.non_coreference] if isinstance(score, BlancScore) else [score]
        rows.append([float(value) for part in parts for value in
                     (part.recall_num, part.recall_den, part.precision_num, part.precision_den)])
    return np.asarray(rows, dtype=float).reshape(len(rows), -1)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    safe = np.where(denominator == 0, 1.0, denominator)
    return np.where(denominator == 0, 0.0, numerator / safe)


def _f1(recall: np.ndarray, precision: np.ndarray) -> np.ndarray:
    total = recall + precision
    return np.where(total == 0, 0.0, 2 * recall * precision / np.where(total == 0, 1.0, total))


def figures(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Recall, precision and F1 from summed counts (the last axis: 4 or 8 columns, see `counts_of`), as
    `harmonize.scoring.metrics.Score` and `BlancScore` compute them from theirs."""
    if sums.shape[-1] == 4:
        recall = _ratio(sums[..., 0], sums[..., 1])
        precision = _ratio(sums[..., 2], sums[..., 3])
        return recall, precision, _f1(recall, precision)
    coreference, non_coreference = figures(sums[..., :4]), figures(sums[..., 4:])
    has_c = (sums[..., 1] > 0) | (sums[..., 3] > 0)
    has_n = (sums[..., 5] > 0) | (sums[..., 7] > 0)
    combined = []
    for c, n in zip(coreference, non_coreference):
        combined.append(np.where(~has_n, c, np.where(~has_c, n, (c + n) / 2)))
    return combined[0], combined[1], combined[2]


def f1_of(sums: dict[str, np.ndarray], metric: str) -> np.ndarray:
    """A metric's F1 from summed counts; ``conll`` is the mean of MUC, B-cubed and CEAF-e."""
    if metric == "conll":
        return sum(figures(sums[name])[2] for name in CONLL_PARTS) / len(CONLL_PARTS)
    return figures(sums[metric])[2]


def _needed(metrics: Sequence[str]) -> list[str]:
    names: list[str] = []
    for metric in metrics:
        for name in (CONLL_PARTS if metric == "conll" else (metric,)):
            if name not in names:
                names.append(name)
    return names


def _bootstrap_weights(documents: int, samples: int, rng: np.random.Generator):
    """How often each document is drawn in each resample, ``_BATCH`` resamples at a time."""
    for start in range(0, samples, _BATCH):
        size = min(_BATCH, samples - start)
        yield rng.multinomial(documents, np.full(documents, 1 / documents), size=size).astype(float)


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    tail = (100 - level) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def check_interval(level: float, samples: int) -> None:
    """An interval's level and resamples that cannot be, as an error (checked before any input is read)."""
    if not 0 < level < 100:
        raise HarmonizeError(f"a confidence level is a percentage between 0 and 100, not {level}")
    if samples < 1:
        raise HarmonizeError(f"samples must be 1 or more, not {samples}")


def _check(level: float, samples: int, documents: int) -> None:
    check_interval(level, samples)
    if documents < 1:
        raise HarmonizeError("no document to resample")


def bootstrap_intervals(per_document: dict[str, np.ndarray], metrics: Sequence[str], level: float = 95,
                        samples: int = 10_000, seed: int = 0) -> dict[str, tuple[float, float]]:
    """Metric -> the bootstrap percentile interval of its F1 at ``level`` percent (``per_document``: metric ->
    `counts_of` its per-document scores; ``metrics`` may include ``conll``)."""
    names = _needed(metrics)
    documents = len(next(iter(per_document.values())))
    _check(level, samples, documents)
    rng = np.random.default_rng(seed)
    values: dict[str, list[np.ndarray]] = {metric: [] for metric in metrics}
    for weights in _bootstrap_weights(documents, samples, rng):
        sums = {name: weights @ per_document[name] for name in names}
        for metric in metrics:
            values[metric].append(f1_of(sums, metric))
    return {metric: _percentiles(np.concatenate(found), level) for metric, found in values.items()}


@dataclass
class PairTest:
    """One pair of systems on one metric: ``difference`` is a's F1 minus b's (fractions in [0, 1])."""

    a: str
    b: str
    metric: str
    difference: float
    ci: tuple[float, float]
    p_bootstrap: float
    p_randomization: float
    exact: bool = False  # p_randomization enumerated every assignment

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "metric": self.metric, "difference": self.difference,
                "ci": list(self.ci), "p_bootstrap": self.p_bootstrap, "p_randomization": self.p_randomization,
                "exact": self.exact}


def compare_pair(a: dict[str, np.ndarray], b: dict[str, np.ndarray], metric: str, names: tuple[str, str] = ("a", "b"),
                 level: float = 95, samples: int = 10_000, seed: int = 0, exact: bool = False) -> PairTest:
    """The paired bootstrap and the randomization test of system ``a`` against ``b`` on one metric (each: metric ->
    `counts_of` its per-document scores, the documents in the same order)."""
    needed = _needed([metric])
    documents = len(a[needed[0]])
    _check(level, samples, documents)
    if any(len(b[name]) != documents for name in needed):
        raise HarmonizeError("the two systems must be scored on the same documents")
    observed = float(f1_of({n: a[n].sum(axis=0) for n in needed}, metric)
                     - f1_of({n: b[n].sum(axis=0) for n in needed}, metric))
    bootstrap_rng, randomization_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    differences = []
    for weights in _bootstrap_weights(documents, samples, bootstrap_rng):
        differences.append(f1_of({n: weights @ a[n] for n in needed}, metric)
                           - f1_of({n: weights @ b[n] for n in needed}, metric))
    resampled = np.concatenate(differences)
    far = int(np.sum(np.abs(resampled - observed) >= abs(observed) - _TOLERANCE))
    p_bootstrap = (far + 1) / (samples + 1)
    if exact:
        if documents > EXACT_LIMIT:
            raise HarmonizeError(f"the exact randomization test enumerates 2^n assignments: {documents} documents "
                                 f"are too many (at most {EXACT_LIMIT}); leave out exact for the sampled test")
        masks = ((np.arange(2 ** documents)[:, None] >> np.arange(documents)) & 1).astype(float)
        as_large = _as_large(masks, a, b, needed, metric, observed)
        p_randomization = as_large / len(masks)
    else:
        as_large = 0
        for start in range(0, samples, _BATCH):
            size = min(_BATCH, samples - start)
            masks = randomization_rng.integers(0, 2, size=(size, documents)).astype(float)
            as_large += _as_large(masks, a, b, needed, metric, observed)
        p_randomization = (as_large + 1) / (samples + 1)
    ci = _percentiles(resampled, level)
    return PairTest(names[0], names[1], metric, observed, ci, p_bootstrap, p_randomization, exact)


def _as_large(masks: np.ndarray, a: dict[str, np.ndarray], b: dict[str, np.ndarray], needed: list[str],
              metric: str, observed: float) -> int:
    """How many of the assignments (a row per assignment: 1 where a document's outputs are swapped) give a
    difference at least as large in absolute value as ``observed``."""
    swapped_a, swapped_b = {}, {}
    for name in needed:
        total_a, total_b, delta = a[name].sum(axis=0), b[name].sum(axis=0), masks @ (b[name] - a[name])
        swapped_a[name], swapped_b[name] = total_a + delta, total_b - delta
    differences = f1_of(swapped_a, metric) - f1_of(swapped_b, metric)
    return int(np.sum(np.abs(differences) >= abs(observed) - _TOLERANCE))


# -- groups ------------------------------------------------------------------------------------------------------

GROUPINGS = ("genre", "topic", "subtopic", "document", "id:REGEX")


def grouping(by: str) -> Callable[[DocumentFacts], str]:
    """The group of a document under ``by``: ``genre`` (the document's, else the one its id names: OntoNotes'
    ``bc/...``, GUM's ``GUM_academic_...``), ``topic``, ``subtopic`` (ECB+), ``document``, ``id:REGEX`` (the
    regular expression's first group in the id, else its whole match), or any other name: the document metadata of
    that name (``# meta::NAME`` comments, a build's ``corpus``). A document without one is in ``(none)``."""
    if by.startswith("id:"):
        try:
            pattern = re.compile(by[3:])
        except re.error as error:
            raise HarmonizeError(f"--by {by}: not a regular expression ({error})") from None

        def by_id(facts: DocumentFacts) -> str:
            found = pattern.search(facts.id or "")
            return (found.group(1) if found and pattern.groups else found.group(0) if found else None) or "(none)"

        return by_id
    if by == "genre":
        from harmonize.converters.conll2012 import genre_from_id

        return lambda facts: facts.genre or genre_from_id(facts.id or "") or "(none)"
    if by in ("topic", "subtopic"):
        return lambda facts: getattr(facts, by) or "(none)"
    if by == "document":
        return lambda facts: str(facts.id)
    return lambda facts: facts.meta.get(by) or "(none)"


# -- on scores -----------------------------------------------------------------------------------------------------

def per_document_counts(score: CorpusScore) -> dict[str, np.ndarray]:
    """Metric -> `counts_of` its per-partition scores (a partition is a document, or a topic in cross-document
    scoring), in the order of ``score.partitions``."""
    if not score.partitions:
        raise HarmonizeError("no per-document scores to resample")
    return {name: counts_of([scores[name] for _, scores in score.partitions]) for name in score.metrics}


def interval_metrics(score: CorpusScore) -> list[str]:
    """The figures an interval is given for: every metric, and the CoNLL score where its three parts are there."""
    return [*score.metrics, *(["conll"] if score.conll is not None else [])]


def add_intervals(score: CorpusScore, level: float = 95, samples: int = 10_000, seed: int = 0) -> CorpusScore:
    """``score`` with the bootstrap interval of every F1 (`bootstrap_intervals`) in ``ci``, and in each group's."""
    score.ci = bootstrap_intervals(per_document_counts(score), interval_metrics(score), level, samples, seed)
    score.level = level
    for group in score.groups.values():
        add_intervals(group, level, samples, seed)
    return score


def score_groups(score: CorpusScore, by: str) -> CorpusScore:
    """``score`` with ``groups``: group name (`grouping`) -> the score of the group's documents alone, summed as
    the whole is (so equal to scoring those documents on their own), in name order."""
    group_of = grouping(by)
    facts = score.facts or [DocumentFacts(label) for label, _ in score.partitions]
    members: dict[str, list[int]] = {}
    for index, document in enumerate(facts):
        members.setdefault(group_of(document), []).append(index)
    score.groups = {}
    for name in sorted(members):
        chosen = [score.partitions[index] for index in members[name]]
        totals = {metric: sum_scores([scores[metric] for _, scores in chosen]) for metric in score.metrics}
        score.groups[name] = CorpusScore(totals, len(chosen), partitions=chosen,
                                         facts=[facts[index] for index in members[name]], settings=score.settings)
    return score


def sum_scores(scores: Sequence[Score | BlancScore]) -> Score | BlancScore:
    total = scores[0]
    for score in scores[1:]:
        total = total + score  # type: ignore[operator]
    return total
