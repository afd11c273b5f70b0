"""Kummerfeld & Klein (2013)'s error classification, on mentions as sortable keys.

The response is turned into the key by five operations, then the operations are grouped into seven error types:

1. Span errors: a response mention that is no key mention is moved onto one (Correct Span) where the two differ only
   by a leading "the" or edge punctuation or a trailing "'s", or, failing that, where it is the only unmatched
   response mention with the head of the only unmatched key mention with that head.
2. Per confusion group (key and response clusters connected by shared mentions) whose clusterings differ: each
   response cluster is cut into its parts in the key clusters (Split from Cluster), mentions in no key cluster are
   split off and dropped (Remove Mention), key mentions the response lacks are added alone (Introduce Mention), and
   the pieces of each key cluster are joined (Merge into Cluster).
3. The operations become errors: the splits of extra mentions that formed a cluster without key mentions other
   than pronouns (Extra Entity); the merges of missing mentions forming a key cluster of which the response has only
   pronouns (Missing Entity); the split and the merge that keep a cluster's first non-pronoun mention in place are no
   errors; split-off extra mentions left are Extra Mention, merges of missing mentions left are Missing Mention, the
   remaining splits Conflated Entities and the remaining merges Divided Entity.

A mention is a tuple that sorts in document order (the analyser compares (sentence, start, end)); what the
procedure needs to know of one (its words, head, type) it asks a `MentionFacts`.
"""

from __future__ import annotations

import string
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from harmonize.error_analysis.heads import PRONOUN

MentionKey = tuple  # (document, sentence, start, end[, positions of a discontinuous mention])

# Names of the operations and errors, as the JSON output and the paper write them.
CORRECT_SPAN, INTRODUCE, SPLIT, MERGE, REMOVE = (
    "correct span", "introduce mention", "split from cluster", "merge into cluster", "remove mention")
OPERATIONS = (CORRECT_SPAN, INTRODUCE, SPLIT, MERGE, REMOVE)
SPAN_ERROR, CONFLATED, EXTRA_MENTION, EXTRA_ENTITY, DIVIDED, MISSING_MENTION, MISSING_ENTITY = (
    "span error", "conflated entities", "extra mention", "extra entity", "divided entity", "missing mention",
    "missing entity")
ERRORS = (SPAN_ERROR, CONFLATED, EXTRA_MENTION, EXTRA_ENTITY, DIVIDED, MISSING_MENTION, MISSING_ENTITY)


class MentionFacts(Protocol):
    def sentence_words(self, mention: MentionKey) -> list[str]: ...
    def head_key(self, mention: MentionKey) -> Hashable: ...
    def mention_type(self, mention: MentionKey) -> str: ...
    def head_is_pronoun(self, mention: MentionKey) -> bool: ...


@dataclass
class Clustering:
    """mention -> cluster id, and cluster id -> its mentions (in the order they were added)."""

    cluster_of: dict[MentionKey, Hashable] = field(default_factory=dict)
    clusters: dict[Hashable, list[MentionKey]] = field(default_factory=dict)

    @classmethod
    def of(cls, clusters: Iterable[tuple[Hashable, Iterable[MentionKey]]], singletons: bool) -> Clustering:
        """From (cluster id, mentions): a mention in two clusters stays in the first; clusters of one mention are
        dropped unless ``singletons``."""
        result = cls()
        for cluster_id, mentions in clusters:
            for mention in mentions:
                if mention not in result.cluster_of:
                    result.cluster_of[mention] = cluster_id
                    result.clusters.setdefault(cluster_id, []).append(mention)
        if not singletons:
            for cluster_id in [c for c, members in result.clusters.items() if len(members) == 1]:
                del result.cluster_of[result.clusters.pop(cluster_id)[0]]
        return result

    def move(self, old: MentionKey, new: MentionKey) -> None:
        cluster_id = self.cluster_of.pop(old)
        self.cluster_of[new] = cluster_id
        members = self.clusters[cluster_id]
        members[members.index(old)] = new

    def copy(self) -> Clustering:
        return Clustering(dict(self.cluster_of), {c: list(m) for c, m in self.clusters.items()})


@dataclass(frozen=True)
class Split:
    part: frozenset
    cluster: frozenset
    going_nowhere: bool  # the part is a mention in no key cluster


@dataclass(frozen=True)
class Merge:
    part: frozenset
    cluster: frozenset  # the key cluster it joins


@dataclass
class Error:
    """One error: its type and the mentions it involves (``mentions``: the part split off or merged, the extra or
    missing mention or entity; ``response_mention`` for a span error), the key and response clusters concerned;
    ``absent``: key mentions the response lacks that the error stands for too (the deleted first mention of an
    entity whose rest is "divided"); ``operations``: the operations it stands for, name -> count (over all errors
    they add up to the operation totals, Kummerfeld & Klein's counts: the merge of the part of an entity that keeps
    its first mention is counted with the entity's error)."""

    type: str
    mentions: tuple[MentionKey, ...]
    key_cluster: frozenset = frozenset()
    response_cluster: frozenset = frozenset()
    response_mention: MentionKey | None = None
    absent: tuple[MentionKey, ...] = ()
    operations: dict[str, int] = field(default_factory=dict)


@dataclass
class GroupChanges:
    splits: list[Split] = field(default_factory=list)
    removes: list[MentionKey] = field(default_factory=list)
    introduces: list[MentionKey] = field(default_factory=list)
    merges: list[Merge] = field(default_factory=list)
    extra_entities: list[tuple[frozenset, frozenset]] = field(default_factory=list)
    missing_entities: list[frozenset] = field(default_factory=list)
    extra_mentions: list[tuple[MentionKey, Split]] = field(default_factory=list)
    missing_mentions: list[tuple[MentionKey, Merge]] = field(default_factory=list)
    # Operations that are no error of their own: the part of a response cluster, or of a key cluster, that keeps
    # its first mention is split off, or merged, as the rest is (Kummerfeld & Klein count them); with the mention
    # introduced for such a merge where the response lacks it.
    kept_splits: list[Split] = field(default_factory=list)
    kept_merges: list[tuple[Merge, MentionKey | None]] = field(default_factory=list)


@dataclass
class Classification:
    """Operation counts and the operations themselves in the order they apply ((name, what): Correct Span a
    (response mention, key mention) pair, Split a `Split`, Remove and Introduce a mention, Merge a
    `Merge`), the errors, the response after its span errors were corrected, and each confusion group's
    categorised changes."""

    operations: dict[str, int]
    operation_list: list[tuple[str, object]]
    errors: list[Error]
    corrected_spans: Clustering
    groups: list[GroupChanges]


# -- 1. span errors -------------------------------------------------------------------------------------------------

def _trimmed(words: list[str], start: int, end: int) -> tuple[int, int]:
    """The span without a leading "the" or one-character punctuation, nor a trailing "'s" or punctuation."""
    def is_edge(word: str, article: str) -> bool:
        return word == article or (len(word) == 1 and word not in string.ascii_letters)

    while start < end - 1 and is_edge(words[start], "the"):
        start += 1
    while start < end - 1 and is_edge(words[end - 1], "'s"):
        end -= 1
    return start, end


def correct_spans(key: Clustering, response: Clustering, facts: MentionFacts) -> list[tuple[MentionKey, MentionKey]]:
    """Move response mentions onto key mentions (step 1 of the module); returns (response mention, key mention)."""
    corrected: list[tuple[MentionKey, MentionKey]] = []
    key_only = sorted(set(key.cluster_of) - set(response.cluster_of))
    response_only = sorted(set(response.cluster_of) - set(key.cluster_of))
    trimmed_key = {m: _trimmed(facts.sentence_words(m), m[2], m[3]) for m in key_only if len(m) == 4}
    used: set[MentionKey] = set()
    mapping: dict[MentionKey, MentionKey] = {}
    for mention in response_only:
        if len(mention) != 4:
            continue
        edges = _trimmed(facts.sentence_words(mention), mention[2], mention[3])
        for candidate in key_only:
            if candidate in used or candidate[:2] != mention[:2] or trimmed_key.get(candidate) != edges:
                continue
            mapping[mention] = candidate  # the analyser keeps the last candidate and uses up all of them
            used.add(candidate)
    for old, new in mapping.items():
        response.move(old, new)
        corrected.append((old, new))
    by_head: dict[Hashable, tuple[list[MentionKey], list[MentionKey]]] = {}
    for mention in sorted(set(response.cluster_of) - set(key.cluster_of)):
        by_head.setdefault(facts.head_key(mention), ([], []))[0].append(mention)
    for mention in sorted(set(key.cluster_of) - set(response.cluster_of)):
        by_head.setdefault(facts.head_key(mention), ([], []))[1].append(mention)
    for responses, keys in by_head.values():
        if len(responses) == 1 and len(keys) == 1:
            response.move(responses[0], keys[0])
            corrected.append((responses[0], keys[0]))
    return corrected


# -- 2. operations --------------------------------------------------------------------------------------------------

def confusion_groups(key: Clustering, response: Clustering) -> list[tuple[list[frozenset], list[frozenset]]]:
    """Connected (response clusters, key clusters): clusters sharing a mention are connected."""
    groups = []
    left = set(key.cluster_of) | set(response.cluster_of)
    for seed in sorted(left):
        if seed not in left:
            continue
        responses: list[frozenset] = []
        keys: list[frozenset] = []
        seen_key: set = set()
        seen_response: set = set()
        stack = [(key.cluster_of[seed], True)] if seed in key.cluster_of else [(response.cluster_of[seed], False)]
        (seen_key if stack[0][1] else seen_response).add(stack[0][0])
        while stack:
            cluster_id, is_key = stack.pop()
            own, other, seen_other = (key, response, seen_response) if is_key else (response, key, seen_key)
            members = own.clusters[cluster_id]
            (keys if is_key else responses).append(frozenset(members))
            for mention in members:
                left.discard(mention)
                other_id = other.cluster_of.get(mention)
                if other_id is not None and other_id not in seen_other:
                    seen_other.add(other_id)
                    stack.append((other_id, not is_key))
        groups.append((responses, keys))
    return groups


def repair(responses: list[frozenset], keys: list[frozenset], response: Clustering) -> GroupChanges:
    """The operations that turn a group's response clusters into its key clusters (step 2)."""
    changes = GroupChanges()
    pieces: list[frozenset] = []
    for cluster in responses:
        used: set = set()
        for key_cluster in keys:
            common = cluster & key_cluster
            if common:
                pieces.append(common)
                used |= common
                if len(common) != len(cluster):
                    changes.splits.append(Split(common, cluster, False))
        for mention in sorted(cluster - used):
            changes.splits.append(Split(frozenset([mention]), cluster, True))
            changes.removes.append(mention)
    for key_cluster in keys:
        for mention in sorted(key_cluster):
            if mention not in response.cluster_of:
                changes.introduces.append(mention)
                pieces.append(frozenset([mention]))
    for key_cluster in keys:
        for piece in pieces:
            if piece != key_cluster and piece <= key_cluster:
                changes.merges.append(Merge(piece, key_cluster))
    return changes


# -- 3. errors ------------------------------------------------------------------------------------------------------

def first_non_pronoun(mentions: Iterable[MentionKey], facts: MentionFacts, check_head: bool = False):
    """The earliest mention that is not a pronoun (with ``check_head``, whose head word is not one either)."""
    candidates = [m for m in mentions if facts.mention_type(m) != PRONOUN
                  and not (check_head and facts.head_is_pronoun(m))]
    return min(candidates) if candidates else None


def categorise(changes: GroupChanges, keys: list[frozenset], key_mentions: set, response: Clustering,
               facts: MentionFacts) -> GroupChanges:
    """Group a confusion group's operations into errors (step 3 of the module), in place."""
    # Extra entity: extra mentions split off one response cluster that holds no key mention but pronouns.
    by_cluster: dict[frozenset, list[Split]] = {}
    for split in changes.splits:
        holds_key = any(m in key_mentions and facts.mention_type(m) != PRONOUN for m in split.cluster)
        if not holds_key and not split.part & key_mentions:
            by_cluster.setdefault(split.cluster, []).append(split)
    for cluster, splits in by_cluster.items():
        extra = frozenset().union(*(s.part for s in splits))
        if len(extra) == 1:
            continue
        changes.extra_entities.append((extra, cluster))
        for split in splits:
            changes.splits.remove(split)
            _discard_first(changes.removes, lambda m, part=split.part: m in part)
    # Missing entity: a key cluster of which the response has no mention but pronouns, and lacks two or more.
    for key_cluster in keys:
        present = [m for m in key_cluster if m in response.cluster_of]
        missing = [m for m in sorted(key_cluster) if m not in response.cluster_of]
        if len(missing) > 1 and all(facts.mention_type(m) == PRONOUN for m in present):
            changes.missing_entities.append(key_cluster)
            for mention in missing:
                _discard_first(changes.merges, lambda merge, m=mention: merge.part == {m})
                _discard_first(changes.introduces, lambda other, m=mention: other == m)
    # The part that keeps a cluster's first non-pronoun mention (else its first mention) is neither split nor merged
    # (a response singleton in no key cluster, which only --singletons keeps, is no such part: it is extra).
    for split in list(changes.splits):
        if split.part != split.cluster and _keeps_first(split.part, split.cluster, facts):
            changes.splits.remove(split)
            _discard_first(changes.removes, lambda m, part=split.part: frozenset([m]) == part)
            changes.kept_splits.append(split)
    for merge in list(changes.merges):
        if _keeps_first(merge.part, merge.cluster, facts):
            changes.merges.remove(merge)
            introduced = _discard_first(changes.introduces, lambda m, part=merge.part: frozenset([m]) == part)
            changes.kept_merges.append((merge, next(iter(merge.part)) if introduced else None))
    # Extra mention: a mention split off to nowhere.
    for split in [s for s in changes.splits if len(s.part) == 1 and s.going_nowhere]:
        changes.splits.remove(split)
        (mention,) = split.part
        _discard_first(changes.removes, lambda m, mention=mention: m == mention)
        changes.extra_mentions.append((mention, split))
    # Missing mention: a mention the response lacks, merged into its cluster, not its first non-pronoun mention.
    split_off = {m for s in changes.splits if len(s.part) == 1 for m in s.part}
    for merge in [m for m in changes.merges if len(m.part) == 1]:
        (mention,) = merge.part
        if mention in split_off or mention in response.cluster_of or mention == first_non_pronoun(merge.cluster,
                                                                                                   facts):
            continue
        changes.missing_mentions.append((mention, merge))
        if _discard_first(changes.introduces, lambda m, mention=mention: m == mention):
            changes.merges.remove(merge)
    # A key singleton the response lacks (only with --singletons) is introduced and merged into nothing: missing.
    for key_cluster in keys:
        if len(key_cluster) == 1 and _discard_first(changes.introduces, lambda m, c=key_cluster: frozenset([m]) == c):
            changes.missing_mentions.append((next(iter(key_cluster)), Merge(key_cluster, key_cluster)))
    return changes


def _keeps_first(part: frozenset, cluster: frozenset, facts: MentionFacts) -> bool:
    own, whole = first_non_pronoun(part, facts), first_non_pronoun(cluster, facts)
    if own != whole:
        return False
    return own is not None or min(part) == min(cluster)


def _discard_first(items: list, wanted) -> bool:
    for index, item in enumerate(items):
        if wanted(item):
            del items[index]
            return True
    return False


def classify(key: Clustering, response: Clustering, facts: MentionFacts) -> Classification:
    """The whole procedure on one document (or one cross-document partition); ``response`` is not changed."""
    response = response.copy()
    corrected = correct_spans(key, response, facts)
    operation_list: list[tuple[str, object]] = [(CORRECT_SPAN, pair) for pair in corrected]
    errors = [Error(SPAN_ERROR, (new,), response_mention=old, operations={CORRECT_SPAN: 1}) for old, new in corrected]
    key_mentions = set(key.cluster_of)
    groups = []
    for responses, keys in confusion_groups(key, response):
        if len(responses) == len(keys) and set(responses) == set(keys):
            continue
        changes = repair(responses, keys, response)
        operation_list += [(SPLIT, s) for s in changes.splits] + [(REMOVE, m) for m in changes.removes]
        operation_list += [(INTRODUCE, m) for m in changes.introduces] + [(MERGE, m) for m in changes.merges]
        categorise(changes, keys, key_mentions, response, facts)
        groups.append(changes)
        errors.extend(_group_errors(changes, keys, responses, response))
    operations = dict.fromkeys(OPERATIONS, 0)
    for name, _what in operation_list:
        operations[name] += 1
    return Classification(operations, operation_list, errors, response, groups)


def apply_operations(response: Clustering, operations: list[tuple[str, object]]) -> set[frozenset]:
    """The clusters the listed operations make of the response: the key's clusters (what the tests check)."""
    cluster_of: dict[MentionKey, set] = {}
    clusters: dict[int, set] = {}

    def own(mentions: Iterable[MentionKey]) -> None:
        new = set(mentions)
        clusters[id(new)] = new
        for mention in new:
            cluster_of[mention] = new

    for members in response.clusters.values():
        own(members)

    for name, what in operations:
        if name == CORRECT_SPAN:
            old, new = what  # type: ignore[misc]
            cluster = cluster_of.pop(old)
            cluster.discard(old)
            cluster.add(new)
            cluster_of[new] = cluster
        elif name == SPLIT:
            for mention in what.part:  # type: ignore[attr-defined]
                cluster_of[mention].discard(mention)
            own(what.part)  # type: ignore[attr-defined]
        elif name == REMOVE:
            cluster_of.pop(what).discard(what)  # type: ignore[call-overload]
        elif name == INTRODUCE:
            own([what])  # type: ignore[list-item]
        else:
            anchor = cluster_of[min(what.cluster)]  # type: ignore[attr-defined]
            part = cluster_of[next(iter(what.part))]  # type: ignore[attr-defined]
            if part is not anchor:
                anchor |= part
                for mention in part:
                    cluster_of[mention] = anchor
                part.clear()
    return {frozenset(c) for c in clusters.values() if c}


def _group_errors(changes: GroupChanges, keys: list[frozenset], responses: list[frozenset], response: Clustering
                  ) -> list[Error]:
    """A confusion group's errors, each with the operations it stands for and the absent key mentions it names."""
    errors = [Error(CONFLATED, tuple(sorted(s.part)), _key_cluster(s.part, keys), s.cluster, operations={SPLIT: 1})
              for s in changes.splits]
    errors += [Error(EXTRA_MENTION, (m,), frozenset(), s.cluster, operations={SPLIT: 1, REMOVE: 1})
               for m, s in changes.extra_mentions]
    errors += [Error(EXTRA_ENTITY, tuple(sorted(part)), frozenset(), cluster,
                     operations={SPLIT: len(part), REMOVE: len(part)}) for part, cluster in changes.extra_entities]
    errors += [Error(DIVIDED, tuple(sorted(m.part)), m.cluster, _response_cluster(m.part, responses),
                     operations={MERGE: 1}) for m in changes.merges]
    errors += [Error(MISSING_MENTION, (mention,), merge.cluster,
                     operations={INTRODUCE: 1, **({MERGE: 1} if merge.part != merge.cluster else {})})
               for mention, merge in changes.missing_mentions]
    errors += [Error(MISSING_ENTITY, tuple(sorted(cluster)), cluster,
                     operations={INTRODUCE: sum(1 for m in cluster if m not in response.cluster_of),
                                 MERGE: sum(1 for m in cluster if m not in response.cluster_of)})
               for cluster in changes.missing_entities]
    for split in changes.kept_splits:  # counted with an error of the response cluster it leaves
        owner = next((e for e in errors if e.response_cluster == split.cluster), None)
        if owner is not None:
            owner.operations[SPLIT] = owner.operations.get(SPLIT, 0) + 1
            if split.going_nowhere:
                owner.operations[REMOVE] = owner.operations.get(REMOVE, 0) + 1
    for merge, introduced in changes.kept_merges:  # counted with an error of the key cluster it joins
        owner = next((e for e in errors if e.key_cluster == merge.cluster), None)
        if owner is None:
            continue
        owner.operations[MERGE] = owner.operations.get(MERGE, 0) + 1
        if introduced is not None:
            owner.operations[INTRODUCE] = owner.operations.get(INTRODUCE, 0) + 1
            owner.absent = (*owner.absent, introduced)
    return errors


def _key_cluster(part: frozenset, keys: list[frozenset]) -> frozenset:
    return next((k for k in keys if part & k), frozenset())


def _response_cluster(part: frozenset, responses: list[frozenset]) -> frozenset:
    return next((r for r in responses if part & r), frozenset())


def error_counts(errors: Iterable[Error]) -> dict[str, int]:
    counts = dict.fromkeys(ERRORS, 0)
    for error in errors:
        counts[error.type] += 1
    return counts
