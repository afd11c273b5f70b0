"""Universal Anaphora scoring: CoNLL-UA files scored as ``ua-scorer.py`` of juntaoy/universal-anaphora-scorer
(Yu et al. 2022; split antecedents as Paun et al. 2022) scores them, figure for figure.

What UA adds to identity coreference, and the conventions of the reference kept here:

* **Markables** are read from the lines, as the reference reads them (the model is not needed): a markable is its
  first and last token line in the document (empty nodes and multiword tokens count as lines), over sentences if
  its brackets are; one written in several brackets (CRAFT's discontinuous markables) is its last bracket.
* **Minimal spans** (``min_spans``, ``--match min``): a key markable with ``Min`` matches a response markable that
  starts between the key's start and Min's start and ends between Min's end and the key's end. The reference
  compares markables this way where it compares them one by one (CEAF's entity similarity, non-referring markables,
  bridging anchors); MUC, B-cubed, LEA and BLANC look markables up by their span and so match them exactly. Both
  are kept: the figures are the reference's.
* **Split antecedents** (``ElementOf``): a plural entity gets one more member, the set of the entities it is made
  of (followed down through plurals made of plurals). Key and response split antecedents are aligned per document
  and per metric by that metric's own F1 on their members, and a matched one counts as its alignment's score, not
  as 1. Entities whose split antecedents are equal become one. With ``only_split_antecedents`` the figures are
  those of the alignment alone.
* **Non-referring markables** (``EntityID`` ending ``-Pseudo``: expletives, predicatives) are never coreference;
  with ``non_referring`` the first markable of each is scored as a set (recall, precision, F1).
* **Bridging** (``MentionAnchor``): anaphor markable -> anchor markable, scored three ways: anaphor recognition,
  full bridging at markable level (the same anchor markable) and at entity level (an anchor in the same key
  entity).
* **Discourse deixis** (``discourse_deixis``): the DISCOURSE_DEIXIS column's markables scored instead of identity.

Singletons and split antecedents are kept by default, as the UA scorer keeps them; split antecedents may name
singletons, so leaving singletons out needs split antecedents left out too (the reference stops there).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from harmonize.converters import get_format
from harmonize.converters.ua import COLUMNS, NON_REFERRING, markable_cell
from harmonize.errors import HarmonizeError, Problems, Report
from harmonize.io import paused_gc, read_text
from harmonize.scoring.assignment import scipy_order_assignment, sparse_assignment
from harmonize.scoring.metrics import UA_METRICS, BlancScore, Score

BRIDGING_FIGURES = ("recognition", "markable", "entity")


@dataclass(frozen=True)
class UASettings:
    """What the UA scorer's options choose (its README's names in brackets)."""

    singletons: bool = True  # [remove_singletons] when False
    split_antecedents: bool = True  # [remove_split_antecedent] when False
    only_split_antecedents: bool = False  # [only_split_antecedent]
    non_referring: bool = False  # [keep_non_referring]
    bridging: bool = False  # [keep_bridging]
    discourse_deixis: bool = False  # [evaluate_discourse_deixis]
    min_spans: bool = False  # [min]

    def effective(self) -> UASettings:
        """The settings the reference scores with: only split antecedents and discourse deixis keep singletons and
        split antecedents and score nothing else."""
        settings = self
        if settings.discourse_deixis:
            settings = replace(settings, singletons=True, split_antecedents=True, only_split_antecedents=False,
                               non_referring=False, bridging=False)
        if settings.only_split_antecedents:
            settings = replace(settings, singletons=True, split_antecedents=True, non_referring=False,
                               bridging=False)
        if settings.split_antecedents and not settings.singletons:
            raise HarmonizeError("UA scoring: split antecedents may name singletons, so leaving singletons out "
                                 "needs --no-split-antecedents too (the UA scorer stops there)")
        return settings

    def describe(self) -> str:
        """One line naming what is scored, for the top of the output."""
        if self.discourse_deixis:
            what = ["discourse deixis"]
        elif self.only_split_antecedents:
            what = ["only split antecedents"]
        else:
            what = ["coreferent markables"] + [name for name, on in (
                ("singletons", self.singletons), ("split antecedents", self.split_antecedents),
                ("non-referring markables", self.non_referring), ("bridging", self.bridging)) if on]
        return f"UA: {', '.join(what)}; {'minimal spans' if self.min_spans else 'exact'} matching"


class Markable:
    """A markable as the UA scorer compares it: by span (with a key's minimal span, by containment), or a split
    antecedent by the set of entities (tuples of markables) it stands for."""

    __slots__ = ("_hash", "end", "members", "min_span", "start")

    def __init__(self, start: int, end: int, min_span: tuple[int, int] | None = None,
                 members: set[tuple[Markable, ...]] | None = None) -> None:
        self.start, self.end, self.min_span, self.members = start, end, min_span, members
        self._hash: int | None = None  # computed on first use, when the span is final

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Markable):
            return NotImplemented
        if self.members is not None or other.members is not None:
            return self.members == other.members
        if self.min_span is not None:
            return self.start <= other.start <= self.min_span[0] and self.min_span[1] <= other.end <= self.end
        if other.min_span is not None:
            return other.start <= self.start <= other.min_span[0] and other.min_span[1] <= self.end <= other.end
        return self.start == other.start and self.end == other.end

    # The reference's hashes: Python orders sets by them, and the order of a split antecedent's entity decides
    # which links LEA and BLANC weigh by its alignment score.
    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self.members)) if self.members is not None else hash(
                frozenset((self.start, self.end)))
        return self._hash

    def __repr__(self) -> str:
        return f"Markable({self.start}, {self.end})" if self.members is None else f"Split({len(self.members)})"


_DUMMY = Markable(0, 0)  # stands for the side without split antecedents when the other has some


@dataclass
class _Entity:
    markables: list[Markable]
    referring: bool
    elements: list[str]  # the entities this (plural) entity is made of


@dataclass
class UADocument:
    """A document as the UA scorer sees it."""

    id: str | None
    words: list[str]  # a string a sentence, as `harmonize.scoring.score.document_words` gives them
    entities: dict[str, _Entity]
    bridges: dict[Markable, Markable]


# -- from CoNLL-UA lines --------------------------------------------------------------------------------------------


@dataclass
class _Brackets:
    """A MarkableID's brackets as read: the last one's entity, span and Min (as the reference keeps them), and the
    ElementOf values of all."""

    entity: str
    start: int
    end: int | None
    min_value: str | None
    line: int


class _UAReader:
    """The documents of a CoNLL-UA text as the UA scorer reads them: a document's token lines are its positions
    (empty nodes and multiword tokens included), markables the brackets of one column (IDENTITY, or
    DISCOURSE_DEIXIS), bridging the BRIDGING column. Malformed input is a `FormatError` naming file and line, or with
    ``lenient`` dropped and counted (`harmonize.errors.Problems`)."""

    def __init__(self, path: str, problem: Problems, column: str, min_spans: bool, bridging: bool,
                 forms: bool) -> None:
        self.path, self.problem, self.column = path, problem, column
        self.min_spans, self.bridging, self.forms = min_spans, bridging, forms
        self.set_columns(COLUMNS)
        self.documents: list[UADocument] = []
        self.started = False

    def set_columns(self, names: tuple[str, ...]) -> None:
        self.columns = names
        # Where each column read lies; a column the file does not have lies past every line's end.
        place = {name: index for index, name in enumerate(names)}
        absent = len(names)
        self.id_place, self.identity_place = place["ID"], place["IDENTITY"]
        self.form_place = place.get("FORM", absent)
        self.markable_place = place.get(self.column, absent)
        self.bridging_place = place.get("BRIDGING", absent) if self.bridging else absent

    def read(self, text: str) -> list[UADocument]:
        self.start(None)
        self.started = False
        for number, line in enumerate(text.split("\n"), 1):
            if line.startswith("#"):
                self.comment(number, line)
            elif not line.strip():
                self.end_sentence()
            else:
                self.token(number, line)
        self.finish()
        return self.documents

    def start(self, document_id: str | None) -> None:
        self.document_id = document_id
        self.words: list[str] = []
        self.sentence: list[str] = []  # the open sentence's words, "ID<tab>FORM" (the ID alone without forms)
        self.position = 0
        self.sentence_open = False  # a token line since the last sentence ended (empty nodes alone count)
        self.brackets: dict[str, _Brackets] = {}
        self.elements: dict[str, list[str]] = {}  # plural EntityID -> MarkableIDs naming it, a bracket each
        self.open: list[str] = []
        self.anchors: dict[str, tuple[str, int]] = {}  # anaphor MarkableID -> (anchor MarkableID, line)

    def comment(self, number: int, line: str) -> None:
        if line.startswith("# global.columns"):
            names = tuple(line.partition("=")[2].split())
            if "ID" not in names or "IDENTITY" not in names:
                self.problem(number, "global.columns without ID or IDENTITY", line)
            else:
                self.set_columns(names)
        elif line.startswith("# newdoc"):
            self.finish()
            self.start(line.partition("=")[2].strip() or None)
            self.started = True

    def token(self, number: int, line: str) -> None:
        fields = line.split("\t") if "\t" in line else line.split()
        count = len(fields)
        if count > len(self.columns) or count <= self.identity_place:
            self.problem(number, "columns that disagree with global.columns",
                         f"{count} fields, {len(self.columns)} declared")
            return
        self.started = self.sentence_open = True
        node_id = fields[self.id_place] if self.id_place < count else "_"
        if "." not in node_id and "-" not in node_id:
            self.sentence.append(f"{node_id}\t{fields[self.form_place] if self.form_place < count else '_'}"
                                 if self.forms else node_id)
        if self.markable_place < count:
            cell = fields[self.markable_place]
            if cell != "_" and cell:
                self.markables(number, cell)
        if self.bridging_place < count:
            cell = fields[self.bridging_place]
            if cell != "_" and cell:
                for item in cell.split("(")[1:]:
                    info = _items(item.removesuffix(")"))
                    if "MarkableID" not in info or "MentionAnchor" not in info:
                        self.problem(number, "bridging without MarkableID or MentionAnchor", cell)
                    else:
                        self.anchors[info["MarkableID"]] = (info["MentionAnchor"], number)
        self.position += 1

    def end_sentence(self) -> None:
        if self.sentence_open:
            self.words.append("\n".join(self.sentence))
            self.sentence, self.sentence_open = [], False

    def markables(self, number: int, cell: str) -> None:
        closings, openings = markable_cell(cell)
        for name in closings:
            if not self.open or (name is not None and name not in self.open):
                self.problem(number, "unbalanced markable brackets", f"{cell!r}: nothing open to close")
                return
            markable = self.open.pop() if name is None else self.open.pop(len(self.open) - 1 - self.open[::-1].index(name))
            self.brackets[markable].end = self.position
        for opening, single in openings:
            info = _items(opening)
            if "MarkableID" not in info or "EntityID" not in info:
                self.problem(number, "a markable without EntityID or MarkableID", opening)
                continue
            markable = info["MarkableID"]
            known = self.brackets.get(markable)
            if known is None:
                self.brackets[markable] = known = _Brackets(info["EntityID"], self.position, None, None, number)
            known.entity, known.start, known.min_value = info["EntityID"], self.position, info.get("Min")
            known.end = self.position if single else None
            for plural in filter(None, info.get("ElementOf", "").split(",")):
                self.elements.setdefault(plural, []).append(markable)
            if not single:
                self.open.append(markable)

    def finish(self) -> None:
        if not self.started:
            return
        self.end_sentence()
        for markable in self.open:
            self.problem(self.brackets[markable].line, "unbalanced markable brackets", f"{markable} is never closed")
            del self.brackets[markable]
        markables = {name: Markable(b.start, b.end, _min_span(b.min_value) if self.min_spans else None)
                     for name, b in self.brackets.items() if b.end is not None}
        entities: dict[str, _Entity] = {}
        for name, markable in markables.items():
            entity_id = self.brackets[name].entity
            if entity_id not in entities:
                elements = [self.brackets[m].entity for m in self.elements.get(entity_id, []) if m in markables]
                entities[entity_id] = _Entity([], not entity_id.endswith(NON_REFERRING), elements)
            entities[entity_id].markables.append(markable)
        for plural, members in self.elements.items():
            missing = [m for m in members if self.brackets[m].entity not in entities] if plural in entities else [plural]
            if missing:
                self.problem(self.brackets[members[0]].line, "an ElementOf naming no entity",
                             f"{plural}: {', '.join(missing)}")
                if plural in entities:
                    entities[plural].elements = [e for e in entities[plural].elements if e in entities]
        bridges: dict[Markable, Markable] = {}
        for anaphor, (anchor, number) in self.anchors.items():
            if anaphor not in markables or anchor not in markables:
                self.problem(number, "a bridging anchor to a missing markable", f"{anaphor} -> {anchor}")
                continue
            bridges[markables[anaphor]] = markables[anchor]
        self.documents.append(UADocument(self.document_id, self.words, entities, bridges))


def _items(text: str) -> dict[str, str]:
    """A bracket's ``key=value`` items, as written."""
    return {key: value for key, _, value in (item.partition("=") for item in text.split("|") if item)}


def _min_span(value: str | None) -> tuple[int, int] | None:
    """``Min=7`` or ``Min=7,9`` (1-based token numbers) as the reference takes them: 0-based, compared with line
    positions."""
    if value is None:
        return None
    parts = value.split(",")
    try:
        first = int(parts[0]) - 1
        return (first, int(parts[1]) - 1) if len(parts) == 2 else (first, first)
    except ValueError:
        return None


# -- clusters as the reference builds them ------------------------------------------------------------------------


def clusters(document: UADocument, settings: UASettings) -> tuple[list[list[Markable]], list[Markable]]:
    """The document's clusters to score (split antecedents added and merged, non-referring entities and, unless
    kept, singletons left out) and its non-referring markables."""
    entities = {k: _Entity(list(e.markables), e.referring, e.elements) for k, e in document.entities.items()}
    kept: list[list[Markable]] = []
    non_referring: list[Markable] = []
    for entity in entities.values():
        if entity.elements and settings.split_antecedents:
            members: set[tuple[Markable, ...]] = set()
            queue, seen = deque([entity]), set()
            while queue:
                current = queue.popleft()
                if current.elements:
                    for element in current.elements:
                        if element in entities and element not in seen:
                            queue.append(entities[element])
                        seen.add(element)
                else:
                    members.add(tuple(current.markables))
            entity.markables.append(Markable(-1, -1, None, members))
        if not entity.referring:
            if settings.non_referring:
                non_referring.append(entity.markables[0])
            continue
        if not settings.singletons and len(entity.markables) == 1:
            continue
        kept.append(entity.markables)
    if not settings.split_antecedents:
        return kept, non_referring
    merged: list[set[Markable]] = []
    for cluster in kept:
        existing = next((other for m in cluster if m.members is not None for other in merged if m in other), None)
        if existing is not None:
            existing.update(cluster)
        else:
            merged.append(set(cluster))
    return [list(c) for c in merged], non_referring


# -- metrics (each over clusters, with the alignment of split antecedents) ----------------------------------------

Alignment = dict[Markable, tuple[Markable, float]]


def _assignments(clusters: list) -> dict[Markable, int]:
    return {m: index for index, cluster in enumerate(clusters) for m in cluster}


def _muc(clusters, other, assigned, splits: Alignment, count_singletons: bool = False) -> tuple[float, float]:
    correct, total = 0.0, 0.0
    for cluster in clusters:
        if len(cluster) == 1 and count_singletons:
            total += 1
            if cluster[0] in assigned and len(other[assigned[cluster[0]]]) == 1:
                correct += 1
            continue
        total += len(cluster) - 1
        correct += len(cluster)
        linked: set[int] = set()
        split = None
        for m in cluster:
            if m.members is not None:
                split = m
            elif m in assigned:
                linked.add(assigned[m])
            else:
                correct -= 1
        if split is not None:
            if split in splits and assigned[splits[split][0]] in linked:
                correct -= 1 - splits[split][1]
            else:
                correct -= 1
        correct -= len(linked)
    return correct, total


def _bcub(clusters, assigned, splits: Alignment) -> tuple[float, float]:
    numerator, denominator = 0.0, 0.0
    for cluster in clusters:
        counts: dict[int, float] = {}
        for m in cluster:
            if m.members is not None:
                if m in splits:
                    target = assigned[splits[m][0]]
                    counts[target] = counts.get(target, 0.0) + splits[m][1]
            elif m in assigned:
                counts[assigned[m]] = counts.get(assigned[m], 0.0) + 1
        numerator += sum(c * c for c in counts.values()) / len(cluster)
        denominator += len(cluster)
    return numerator, denominator


def _overlaps(key, response, splits: Alignment) -> dict[tuple[int, int], float]:
    """(key cluster, response cluster) -> their shared markables, where they share any: a key markable counts
    once in each response cluster holding a markable equal to it (by span, by minimal span, or as an aligned split
    antecedent at its alignment's score)."""
    where: dict[Markable, list[int]] = {}
    by_start: dict[int, list[tuple[Markable, int]]] = {}
    for j, cluster in enumerate(response):
        for m in cluster:
            where.setdefault(m, []).append(j)
            if m.members is None:
                by_start.setdefault(m.start, []).append((m, j))
    shared: dict[tuple[int, int], float] = {}
    for i, cluster in enumerate(key):
        for m in cluster:
            if m.members is not None:
                if m not in splits:
                    continue
                target, weight = splits[m]
                clusters = set(where.get(target, ()))
            elif m.min_span is None:
                clusters, weight = set(where.get(m, ())), 1.0
            else:
                clusters, weight = {j for start in range(m.start, m.min_span[0] + 1)
                                    for other, j in by_start.get(start, ()) if other == m}, 1.0
            for j in clusters:
                shared[i, j] = shared.get((i, j), 0.0) + weight
    return shared


def _ceaf(response, key, splits: Alignment, by_entity: bool) -> tuple[float, float, float, float]:
    scores = {(i, j): 2 * shared / (len(key[i]) + len(response[j])) if by_entity else shared
              for (i, j), shared in _overlaps(key, response, splits).items()}
    similarity = sum(scores[pair] for pair in sparse_assignment(scores, scores.__getitem__))
    if by_entity:
        return similarity, len(response), similarity, len(key)
    return similarity, sum(len(c) for c in response), similarity, sum(len(c) for c in key)


def _links_within(cluster: list[Markable], assigned, splits: Alignment, later_splits_weigh: bool) -> float:
    """The links of a cluster whose two markables the other side also puts together, weighed as the reference
    weighs them: a split antecedent counts at its alignment's score; for LEA (``later_splits_weigh``) a split
    antecedent met later in the cluster stands for its aligned one too, and its score, once met, weighs the later
    links of the markable being paired (as the reference has it), while BLANC looks it up as it is."""
    if not any(m.members is not None for m in cluster):
        # Unit weights: count each markable's partners after it, by the cluster they are assigned to.
        common, after = 0.0, {}
        for m in reversed(cluster):
            target = assigned.get(m)
            if target is not None:
                common += after.get(target, 0)
                after[target] = after.get(target, 0) + 1
        return common
    common = 0.0
    for i, m in enumerate(cluster):
        weight = 1.0
        if m.members is not None and m in splits:
            m, weight = splits[m]
        if m not in assigned:
            continue
        for m2 in cluster[i + 1:]:
            if later_splits_weigh and m2.members is not None and m2 in splits:
                m2, weight2 = splits[m2]
                weight *= weight2
            if m2 in assigned and assigned[m] == assigned[m2]:
                common += weight
    return common


def _lea(clusters, other, assigned, splits: Alignment) -> tuple[float, float]:
    numerator, denominator = 0.0, 0.0
    for cluster in clusters:
        if len(cluster) == 1:
            links = 1.0
            common = 1.0 if cluster[0] in assigned and len(other[assigned[cluster[0]]]) == 1 else 0.0
        else:
            common, links = _links_within(cluster, assigned, splits, True), len(cluster) * (len(cluster) - 1) / 2.0
        numerator += len(cluster) * common / links
        denominator += len(cluster)
    return numerator, denominator


def _blanc_coreference(response, key, assigned, splits: Alignment) -> tuple[float, float, float, float]:
    common = 0.0
    for cluster in key:
        common += _links_within(cluster, assigned, splits, False)
    key_links = sum(len(c) * (len(c) - 1) / 2 for c in key)
    response_links = sum(len(c) * (len(c) - 1) / 2 for c in response)
    return common, response_links, common, key_links


def _blanc_non_coreference(response, key, assigned, splits: Alignment) -> tuple[float, float, float, float]:
    # The links between markables of different key entities that the response also keeps apart: every such pair
    # of found markables, less those the response puts together, each weighed by its split antecedents' scores;
    # counted by sums of weights, not pair by pair.
    found: list[tuple[int, int, float]] = []  # (key entity, response entity, weight)
    for index, cluster in enumerate(key):
        for m in cluster:
            weight = 1.0
            if m.members is not None and m in splits:
                m, weight = splits[m]
            if m in assigned:
                found.append((index, assigned[m], weight))

    def pairs(groups: dict) -> float:
        return sum((total * total - squares) / 2 for total, squares in groups.values())

    def grouped(key_of) -> dict:
        groups: dict = {}
        for item in found:
            total, squares = groups.get(key_of(item), (0.0, 0.0))
            groups[key_of(item)] = (total + item[2], squares + item[2] * item[2])
        return groups

    apart = pairs(grouped(lambda item: 0)) - pairs(grouped(lambda item: item[0]))
    together = pairs(grouped(lambda item: item[1])) - pairs(grouped(lambda item: (item[1], item[0])))
    common = apart - together
    key_mentions, response_mentions = sum(len(c) for c in key), sum(len(c) for c in response)
    key_links = key_mentions * (key_mentions - 1) / 2 - sum(len(c) * (len(c) - 1) / 2 for c in key)
    response_links = response_mentions * (response_mentions - 1) / 2 - sum(
        len(c) * (len(c) - 1) / 2 for c in response)
    return common, response_links, common, key_links


def _counts(metric: str, key, response, key_in_response, response_in_key, recall_splits: Alignment,
            precision_splits: Alignment, f_splits: Alignment, aligning: bool = False) -> tuple[float, ...]:
    """(precision numerator, precision denominator, recall numerator, recall denominator) of one metric."""
    if metric in ("ceafe", "ceafm"):
        return _ceaf(response, key, f_splits, metric == "ceafe")
    if metric == "blanc-c":
        return _blanc_coreference(response, key, key_in_response, f_splits)
    if metric == "blanc-n":
        return _blanc_non_coreference(response, key, key_in_response, f_splits)
    if metric == "lea":
        return (*_lea(response, key, response_in_key, precision_splits),
                *_lea(key, response, key_in_response, recall_splits))
    if metric == "muc":
        return (*_muc(response, key, response_in_key, precision_splits, aligning),
                *_muc(key, response, key_in_response, recall_splits, aligning))
    return (*_bcub(response, response_in_key, precision_splits), *_bcub(key, key_in_response, recall_splits))


def _f1(pn: float, pd: float, rn: float, rd: float) -> float:
    p, r = (pn / pd if pd else 0.0), (rn / rd if rd else 0.0)
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def _score_document(metric: str, key: list[list[Markable]], response: list[list[Markable]],
                    only_split_antecedents: bool) -> Score:
    """One document's counts for one metric (a BLANC part: ``blanc-c``, ``blanc-n``), or with
    ``only_split_antecedents`` those of its split antecedents' alignment."""
    key_in_response, response_in_key = _assignments(response), _assignments(key)
    key_splits = [m for c in key for m in c if m.members is not None]
    response_splits = [m for c in response for m in c if m.members is not None]
    recall_splits: Alignment = {}
    precision_splits: Alignment = {}
    f_splits: Alignment = {}
    split_counts = [0.0] * 4
    if key_splits or response_splits:
        # The alignment's ties are broken as the reference breaks them (scipy's assignment, in scipy's order).
        key_splits, response_splits = key_splits or [_DUMMY], response_splits or [_DUMMY]
        key_sets = [list(m.members or ()) for m in key_splits]
        response_sets = [list(m.members or ()) for m in response_splits]
        raw = []
        for k in key_sets:
            in_key = _assignments(k)
            raw.append([_counts(metric, k, r, _assignments(r), in_key, {}, {}, {}, aligning=True)
                        for r in response_sets])
        f_scores = [[_f1(*counts) for counts in row] for row in raw]
        pairs = scipy_order_assignment(f_scores, maximize=True)
        # Precision counts every response split antecedent, recall every key one, matched or not.
        split_counts = [sum(raw[i][j][0] for i, j in pairs), sum(counts[1] for counts in raw[0]),
                        sum(raw[i][j][2] for i, j in pairs), sum(row[0][3] for row in raw)]
        for i, j in pairs:
            pn, pd, rn, rd = raw[i][j]
            if rn:
                recall_splits[key_splits[i]] = (response_splits[j], rn / rd)
            if pn:
                precision_splits[response_splits[j]] = (key_splits[i], pn / pd)
            if f_scores[i][j] > 0:
                f_splits[key_splits[i]] = (response_splits[j], f_scores[i][j])
    if only_split_antecedents:
        pn, pd, rn, rd = split_counts
    else:
        pn, pd, rn, rd = _counts(metric, key, response, key_in_response, response_in_key, recall_splits,
                                 precision_splits, f_splits)
    return Score(rn, rd, pn, pd)  # type: ignore[arg-type]


def score_ua_documents(key: list[UADocument], response: list[UADocument], settings: UASettings,
                       metrics: list[str] | None = None
                       ) -> tuple[dict[str, Score | BlancScore], list[tuple[str, dict[str, Score | BlancScore]]]]:
    """Every figure the UA scorer prints for these settings, summed over documents (paired by id), and each
    document's own."""
    from harmonize.scoring.frame import align

    settings = settings.effective()
    names = list(UA_METRICS) if metrics is None else metrics
    totals: dict[str, Score | BlancScore] = {}
    per_document: list[tuple[str, dict[str, Score | BlancScore]]] = []
    for k, r in align(key, response):
        (key_clusters, key_nr), (response_clusters, response_nr) = clusters(k, settings), clusters(r, settings)
        scores: dict[str, Score | BlancScore] = {}
        for name in names:
            if name == "blanc":
                scores[name] = BlancScore(*(_score_document(part, key_clusters, response_clusters,
                                                            settings.only_split_antecedents)
                                            for part in ("blanc-c", "blanc-n")))
            else:
                scores[name] = _score_document(name, key_clusters, response_clusters,
                                               settings.only_split_antecedents)
        if settings.non_referring:
            found = sum(1 for m in key_nr if m in response_nr)
            extra = sum(1 for m in response_nr if m not in key_nr)
            scores["non-referring"] = Score(found, len(key_nr), found, found + extra)  # type: ignore[arg-type]
        if settings.bridging:
            scores.update(_bridging(k, r, _assignments(key_clusters)))
        for name, score in scores.items():
            totals[name] = totals[name] + score if name in totals else score  # type: ignore[operator]
        per_document.append((str(k.id), scores))
    return totals, per_document


def _bridging(key: UADocument, response: UADocument, in_key: dict[Markable, int]) -> dict[str, Score]:
    """The three bridging figures of one document (``in_key``: key markable -> its key cluster)."""
    tp = dict.fromkeys(BRIDGING_FIGURES, 0)
    fp, fn = dict(tp), dict(tp)

    def same_entity(a: Markable, b: Markable) -> bool:
        return a in in_key and b in in_key and in_key[a] == in_key[b]

    for anaphor, anchor in key.bridges.items():
        if anaphor not in response.bridges:
            for figure in BRIDGING_FIGURES:
                fn[figure] += 1
            continue
        tp["recognition"] += 1
        other = response.bridges[anaphor]
        if anchor == other:  # one by one: the key anchor's minimal span applies
            tp["markable"] += 1
            tp["entity"] += 1
            continue
        fn["markable"] += 1
        if same_entity(other, anchor):
            tp["entity"] += 1
        else:
            fn["entity"] += 1
    for anaphor, other in response.bridges.items():
        if anaphor not in key.bridges:
            for figure in BRIDGING_FIGURES:
                fp[figure] += 1
            continue
        anchor = key.bridges[anaphor]
        if other != anchor:
            fp["markable"] += 1
            if not same_entity(other, anchor):
                fp["entity"] += 1
    return {f"bridging {figure}": Score(tp[figure], tp[figure] + fn[figure], tp[figure],  # type: ignore[arg-type]
                                        tp[figure] + fp[figure]) for figure in BRIDGING_FIGURES}


def read_ua_documents(path: str | Path, settings: UASettings, key: bool, forms: bool = True,
                      lenient: bool = False) -> tuple[list[UADocument], Report]:
    """A UA file, or the UA files of a folder, as the UA scorer sees them (minimal spans on the key side only, as
    the reference reads them), with the report of what ``lenient`` dropped."""
    from harmonize.conversion import input_files

    report = Report()
    documents: list[UADocument] = []
    column = "DISCOURSE_DEIXIS" if settings.discourse_deixis else "IDENTITY"
    for file in input_files([Path(path)], get_format("ua", "read")):
        reader = _UAReader(str(file), Problems(str(file), lenient, report), column, settings.min_spans and key,
                           settings.bridging, forms)
        documents.extend(reader.read(read_text(file, report)))
        report.opened(file)
    return documents, report


def score_ua_files(key: str | Path, response: str | Path, settings: UASettings, metrics: list[str] | None = None,
                   forms: bool = True, lenient: bool = False, read_options: dict[str, str] | None = None,
                   jobs: int = 0):
    """Read and score two UA files or folders as ``harmonize score --format ua`` does (a large response read in a
    worker process beside the key, as `harmonize.scoring.score.score_files` reads one); a `CorpusScore` whose
    ``settings`` line says what was scored."""
    from harmonize.scoring.frame import CorpusScore, read_sides, worker_pays

    settings = settings.effective()
    unknown = [name for name in metrics or () if name not in UA_METRICS]
    if unknown:
        raise HarmonizeError(f"unknown UA metric(s) {', '.join(unknown)}; known: {', '.join(UA_METRICS)} "
                             "(--non-referring and --bridging add their own figures)")
    if read_options:
        raise HarmonizeError("UA scoring reads markables as the UA scorer does: reader options (-I) do not apply")
    with paused_gc():  # markables by the ten thousand: no collector passes over them, freed before it is back
        (key_documents, key_report), (response_documents, response_report) = read_sides(
            partial(read_ua_documents, key, settings, True, forms, lenient),
            partial(read_ua_documents, response, settings, False, forms, lenient), worker_pays(Path(response), jobs))
        totals, per_document = score_ua_documents(key_documents, response_documents, settings, metrics)
        del key_documents, response_documents
    result = CorpusScore(totals, len(per_document), partitions=per_document, settings=settings.describe())
    result.report.merge(key_report)
    result.report.merge(response_report)
    return result
