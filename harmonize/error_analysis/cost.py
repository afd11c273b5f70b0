"""What each error type costs: the scores after correcting it alone, and after correcting the types one after another
in the paper's order (span errors first, then conflated entities, extra mentions, extra entities, divided entities,
missing mentions, missing entities), as Kummerfeld & Klein's analyser writes its corrected system outputs.

Corrections act on the response's mention -> cluster assignment after its span errors were corrected:

* conflated entities: the part split off becomes a cluster of its own (a lone extra mention left behind is dropped);
* extra mention, extra entity: the mentions are dropped;
* divided entity: the part joins the cluster holding the key cluster's first non-pronoun mention (with everything
  its own cluster holds, as the analyser does);
* missing mention: the mention joins the cluster of the earliest mention of its key cluster the response has;
* missing entity: the key cluster is added.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from harmonize.error_analysis.classify import (
    CONFLATED,
    DIVIDED,
    EXTRA_ENTITY,
    EXTRA_MENTION,
    MISSING_ENTITY,
    MISSING_MENTION,
    SPAN_ERROR,
    Classification,
    Clustering,
    GroupChanges,
    MentionFacts,
    first_non_pronoun,
)
from harmonize.scoring.metrics import METRICS, Score

CORRECTION_ORDER = (CONFLATED, EXTRA_MENTION, EXTRA_ENTITY, DIVIDED, MISSING_MENTION, MISSING_ENTITY)
COST_METRICS = ("muc", "bcub", "ceafe", "lea")
ORIGINAL = "response as it is"

Assignment = dict[Hashable, Hashable]


def _correct(kind: str, assignment: Assignment, groups: list[GroupChanges], key: Clustering,
             facts: MentionFacts, fresh: Callable[[], Hashable]) -> None:
    for changes in groups:
        if kind == CONFLATED:
            for split in changes.splits:
                new = fresh()
                for mention in split.part:
                    assignment[mention] = new
                rest = split.cluster - split.part
                if len(rest) == 1 and next(iter(rest)) not in key.cluster_of:
                    assignment.pop(next(iter(rest)), None)
        elif kind == EXTRA_MENTION:
            for mention, _split in changes.extra_mentions:
                assignment.pop(mention, None)
        elif kind == EXTRA_ENTITY:
            for part, _cluster in changes.extra_entities:
                for mention in part:
                    assignment.pop(mention, None)
        elif kind == DIVIDED:
            for merge in changes.merges:
                anchor = first_non_pronoun(merge.cluster, facts) or min(merge.cluster)
                if anchor not in assignment:
                    assignment[anchor] = fresh()
                target = assignment[anchor]
                moved: set = set()
                for mention in merge.part:
                    if mention not in assignment:
                        assignment[mention] = target
                    elif assignment[mention] not in moved:
                        source = assignment[mention]
                        moved.add(source)
                        for other, cluster in list(assignment.items()):
                            if cluster == source:
                                assignment[other] = target
        elif kind == MISSING_MENTION:
            for mention, merge in changes.missing_mentions:
                present = [m for m in merge.cluster if m in assignment]
                if present:
                    assignment[mention] = assignment[min(present)]
                else:
                    new = fresh()
                    assignment[min(merge.cluster)] = new
                    assignment[mention] = new
        elif kind == MISSING_ENTITY:
            for cluster in changes.missing_entities:
                new = fresh()
                for mention in cluster:
                    assignment[mention] = new


def corrected(classification: Classification, key: Clustering, facts: MentionFacts, kinds: tuple[str, ...],
              fresh: Callable[[], Hashable] | None = None) -> Assignment:
    """The response after its span errors and the error types ``kinds`` (in that order) were corrected."""
    if fresh is None:
        counter = itertools.count()

        def fresh() -> Hashable:
            return ("corrected", next(counter))

    assignment = dict(classification.corrected_spans.cluster_of)
    for kind in kinds:
        _correct(kind, assignment, classification.groups, key, facts, fresh)
    return assignment


def _clusters(assignment: Assignment) -> list[frozenset]:
    clusters: dict[Hashable, set] = {}
    for mention, cluster in assignment.items():
        clusters.setdefault(cluster, set()).add(mention)
    return [frozenset(c) for c in clusters.values()]


@dataclass
class CostTable:
    """Scores (summed over documents) per row: the response, span errors corrected, each type corrected alone
    (on top of the span corrections) and the types corrected one after another."""

    alone: dict[str, dict[str, Score]] = field(default_factory=dict)
    cumulative: dict[str, dict[str, Score]] = field(default_factory=dict)

    def add(self, table: dict[str, dict[str, dict[str, Score]]]) -> None:
        for part in ("alone", "cumulative"):
            mine = getattr(self, part)
            for row, scores in table[part].items():
                if row in mine:
                    mine[row] = {name: mine[row][name] + score for name, score in scores.items()}  # type: ignore
                else:
                    mine[row] = dict(scores)

    def to_json(self) -> dict:
        def rows(part: dict[str, dict[str, Score]]) -> list[dict]:
            result = []
            for row, scores in part.items():
                f1 = {name: 100 * score.f1 for name, score in scores.items()}
                result.append({"after": row, **{name: round(value, 2) for name, value in f1.items()},
                               "conll": round(sum(f1[n] for n in ("muc", "bcub", "ceafe")) / 3, 2)})
            return result

        return {"alone": rows(self.alone), "cumulative": rows(self.cumulative)}


def cost_of(classification: Classification, original: Clustering, key: Clustering, facts: MentionFacts,
            singletons: bool) -> dict[str, dict[str, dict[str, Score]]]:
    """One document's (or partition's) rows of the cost table."""
    counter = itertools.count()

    def fresh() -> Hashable:
        return ("corrected", next(counter))

    key_clusters = [frozenset(members) for members in key.clusters.values()]

    def scores(assignment: Assignment) -> dict[str, Score]:
        clusters = [c for c in _clusters(assignment) if singletons or len(c) > 1]
        return {name: METRICS[name](key_clusters, clusters) for name in COST_METRICS}  # type: ignore[misc]

    progressive = corrected(classification, key, facts, (), fresh)
    alone = {ORIGINAL: scores(dict(original.cluster_of)), SPAN_ERROR: scores(progressive)}
    cumulative = {SPAN_ERROR: alone[SPAN_ERROR]}
    for kind in CORRECTION_ORDER:
        alone[kind] = scores(corrected(classification, key, facts, (kind,), fresh))
        _correct(kind, progressive, classification.groups, key, facts, fresh)
        cumulative[kind] = scores(progressive)
    return {"alone": alone, "cumulative": cumulative}
