"""The CorefUD harmonization steps, head reduction and singleton removal; each a function over one document that
counts what it changed in the report.

The reference implementations are udapi's blocks, and on the same file each step gives what its block gives:

* `merge_same_span` is ``corefud.MergeSameSpan same_entity_only=1``: of two mentions of one entity with the
  same words, the later goes (udapi picks one of the two by set order; here the first in document order stays);
  same-span mentions of different entities stay and are counted.
* `fix_interleaved` is ``corefud.FixInterleaved`` (defaults): two mentions of one entity that overlap
  without nesting, or nest while sharing a continuous part, become one over the union of their words (the
  earlier mention keeps its head; the later goes); where the union has the span of another mention, it goes too.
* `move_heads` is ``corefud.MoveHead``: every mention's head becomes its highest node in the tree
  (`harmonize.schemas.model.ud_head`); the word of a one-word mention.
* `standard_header` declares ``global.Entity`` as ``udvalidate --coref`` parses it (no udapi block does this;
  the CorefUD release's files are so): ``eid``, ``etype``, ``head`` first, ``other`` fourth where present, the
  rest after them in their order, every name of lower-case letters (GUM's ``GRP`` is ``eid``, GUM v7's ``entity``
  is ``etype``). Values move with their names: nothing is lost.
* `unique_ids` (over a corpus, no udapi block either) gives the entities of a document whose ids an earlier
  document of the corpus already used the prefix ``d<N>.`` (N: the document's number, from 1), because udvalidate
  refuses an entity id in two documents of a file and a corpus is written as one file. Documents of one topic keep
  their shared ids: there they are cross-document entities (ECB+), and the count says so.
* `split_antecedents_at_first_mention` writes each split antecedent at its entity's first mention: udapi keeps
  split antecedents on the entity and writes them there (GUM's files put some on a later mention).
* `number_as_released` (a release's files in turn, not a step of ``--rules``) numbers entities ``e<N>`` in the
  order of their first opening bracket, continuing over a dataset's train, dev and test files, as the CorefUD
  release does (checked on English-GUM 1.3's dev file: every id).
* `remove_non_bridging` drops bridges labelled ``cop`` or ``appos`` (LitBank's copula and apposition
  relations, which the brat reader keeps as labelled bridges): they are not bridging, and CorefUD's English-LitBank
  has none; each is counted.
* `check` counts what ``udvalidate --coref`` refuses and the steps leave (same-span mentions of different
  entities, crossing mentions of one entity, mentions of one entity with different types, entity types outside
  CorefUD's list).
* `heads_only` reduces every mention to its head word, as head-match evaluation does (CRAC 2022, CorPipe);
  `remove_singletons` removes entities with one mention, with their relations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations

from harmonize.converters.corefud_values import EID_FIELDS, ETYPE_FIELDS
from harmonize.errors import EXAMPLES_PER_REASON, Report
from harmonize.rules.relations import Relations, report_relation_changes
from harmonize.schemas.model import Change, Corpus, Document, Mention, Sentence, tree_head, ud_head

# The entity types udvalidate accepts (CorefUD 1.0 and later).
CORE_TYPES = frozenset({"person", "place", "organization", "animal", "plant", "object", "substance", "time",
                        "number", "abstract", "event", "other"})


def merge_same_span(document: Document, report: Report) -> None:
    for mentions in _same_span_groups(document):
        kept: dict[int, Mention] = {}
        for mention in mentions:
            first = kept.setdefault(id(mention.entity), mention)
            if first is not mention:
                _changes(report, "corefud merge-same-span", document.remove_mention(mention))
                report.add("corefud merge-same-span: same-span mention of one entity removed",
                           _where(document, mention))
        if len(kept) > 1:
            report.add("corefud merge-same-span: same-span mentions of different entities (kept)",
                       f"{_where(document, mentions[0])}: {', '.join(m.entity.id for m in kept.values())}")


def fix_interleaved(document: Document, report: Report) -> None:
    for sentence in _sentences_with_overlapping_mentions_of_one_entity(document):  # elsewhere none merge
        mentions = sorted({id(m): m for n in sentence.nodes for m in n.mentions}.values(), key=lambda m: m.order)
        gone: set[int] = set()
        for first, second in _pairs_of_one_entity(mentions):
            if id(first) in gone or id(second) in gone:
                continue
            if not _interleaved(first, second):
                continue
            where = _where(document, first)
            document.set_words(first, [*first.words, *second.words], first.head)
            _changes(report, "corefud fix-interleaved", document.remove_mention(second))
            gone.add(id(second))
            report.add("corefud fix-interleaved: mentions of one entity merged into their union",
                       f"{where} + {' '.join(w.form for w in second.words)}")
            union = set(map(id, first.words))
            if any(id(m) not in gone and m is not first and m is not second and set(map(id, m.words)) == union
                   for m in mentions):
                _changes(report, "corefud fix-interleaved", document.remove_mention(first))
                gone.add(id(first))
                report.add("corefud fix-interleaved: merged mention removed (another mention has its span)",
                           _where(document, first))


def _pairs_of_one_entity(mentions: list[Mention]) -> list[tuple[Mention, Mention]]:
    """The pairs of ``mentions`` that belong to one entity, in the order ``combinations(mentions, 2)`` gives
    them (the steps' results depend on it); the pairs of different entities are never made."""
    by_entity: dict[int, list[int]] = {}
    for index, mention in enumerate(mentions):
        by_entity.setdefault(id(mention.entity), []).append(index)
    pairs = sorted(pair for indices in by_entity.values() if len(indices) > 1 for pair in combinations(indices, 2))
    return [(mentions[i], mentions[j]) for i, j in pairs]


def _interleaved(a: Mention, b: Mention) -> bool:
    """FixInterleaved's test: overlapping without nesting, or nested and sharing a continuous part."""
    words_a, words_b = set(map(id, a.words)), set(map(id, b.words))
    if words_a <= words_b or words_b <= words_a:
        return bool(_part_ids(a) & _part_ids(b))
    first_a, last_a, first_b, last_b = a.words[0].order, a.words[-1].order, b.words[0].order, b.words[-1].order
    return not (first_a < first_b and last_a < first_b) and not (first_b < first_a and last_b < first_a)


def _part_ids(mention: Mention) -> set[tuple[str, str]]:
    return {(part[0].id, part[-1].id) for part in mention.parts()}


def move_heads(document: Document, report: Report) -> None:
    changed: dict[str, list[Mention]] = {}  # reason -> its mentions (counted at the end: every mention may change)
    for entity in document.entities:
        for mention in entity.mentions:
            head = ud_head(mention)
            if head is None:
                reason = "no head (none annotated, no tree)"
            elif head is mention.head:
                continue
            elif len(mention.words) == 1:  # its head was its word already, annotated or not
                reason = "head set on a one-word mention (its word)"
                document.move_head(mention, head)
            else:
                reason = "head moved to the highest node" if mention.head is not None else "head set (none before)"
                document.move_head(mention, head)
            changed.setdefault(reason, []).append(mention)
    for reason, mentions in changed.items():
        for mention in mentions[:EXAMPLES_PER_REASON]:
            report.add(f"corefud move-heads: {reason}", _where(document, mention))
        if len(mentions) > EXAMPLES_PER_REASON:
            report.add(f"corefud move-heads: {reason}", "", len(mentions) - EXAMPLES_PER_REASON)


STANDARD_FIRST = ("eid", "etype", "head")  # udvalidate: these first, in this order, then "other" where present
# The field order the CorefUD release gives corpora whose own fields it keeps (English-GUM, CorefUD 1.x: GUM's
# header without its salience, which goes into other); a document with the fields of one gets it.
COREFUD_LAYOUTS = (("eid", "etype", "head", "other", "infstat", "centering", "minspan", "link", "identity"),)


def standard_header(document: Document, report: Report) -> None:
    if document.entity_fields is None:
        return  # the writer declares the standard header itself
    renamed: dict[str, str] = {}
    for name in document.entity_fields:
        new = "eid" if name in EID_FIELDS else "etype" if name in ETYPE_FIELDS else re.sub("[^a-z]", "",
                                                                                             name.lower())
        while not new or new in renamed.values():  # a name of no letters, or one taken: made unique
            new += "x"
        renamed[name] = new
    layout = next((fields for fields in COREFUD_LAYOUTS if set(fields) - {"other"} <= {"eid", "etype", "head",
                                                                                  *renamed.values()}), None)
    if layout is not None:
        fields, into_other = layout, [new for new in renamed.values() if new not in layout]
    else:
        rest = [new for new in renamed.values() if new not in (*STANDARD_FIRST, "other")]
        fields, into_other = (*STANDARD_FIRST, *(["other"] if "other" in renamed.values() else []), *rest), []
    if fields == document.entity_fields:
        return
    # Counted per field of a mention or entity that changes: a renamed one is gone under its old name and new
    # under the other (two), a moved one is gone and other changes with it (one each, other once per owner).
    renamed_count = {"mention": 0, "entity": 0}
    for old, new in renamed.items():
        if old != new and old not in EID_FIELDS + ETYPE_FIELDS:  # eid and etype are not attributes
            for entity in document.entities:
                renamed_count["entity"] += 2 * _rename_key(entity.attrs, old, new)
                for mention in entity.mentions:
                    renamed_count["mention"] += 2 * _rename_key(mention.attrs, old, new)
    moved_count = {"mention": 0, "entity": 0}
    for entity in document.entities:
        for owner, attrs in (*(("mention", m.attrs) for m in entity.mentions), ("entity", entity.attrs)):
            other = attrs.get("other")
            moved_count[owner] += sum(_into_other(attrs, name) for name in into_other) + (attrs.get("other") != other)
    report.add("corefud standard-header: global.Entity declared as udvalidate parses it",
               f"{document.id}: {'-'.join(document.entity_fields)} -> {'-'.join(fields)}")
    for owner in ("mention", "entity"):
        if renamed_count[owner]:
            report.add(f"corefud standard-header: {owner} fields renamed to names udvalidate parses (old name gone, "
                       "new one added)", str(document.id), renamed_count[owner])
        if moved_count[owner]:
            report.add(f"corefud standard-header: {owner} fields outside CorefUD's layout for the corpus moved into "
                       "other as NAME:VALUE (each, and other)", f"{document.id}: {', '.join(into_other)}",
                       moved_count[owner])
    document.entity_fields = fields


def _into_other(attrs: dict[str, str], name: str) -> int:
    """Move the field ``name`` into ``other`` as ``name:value`` (udapi's OtherDualDict: pairs joined by commas);
    1 where that changed the fields (an empty value is dropped), else 0."""
    if name not in attrs:
        return 0
    value = attrs.pop(name)
    if value in ("", "_"):
        return 1
    attrs["other"] = ",".join(filter(None, (attrs.get("other", ""), f"{name}:{value}")))
    return 1


@dataclass
class IdsSoFar:
    """What `unique_ids` needs of the documents before: their ids, the highest e<number>, the ids each topic's
    documents use, how many documents. Kept in ``corpus.meta[IDS_SO_FAR]`` when a large file is ruled a piece at a
    time, so that the pieces give what the whole file gives; for pieces ruled at once, ``plan`` holds what each of
    the piece's documents gets, worked out ahead (`plan_unique_ids`)."""

    used: set[str] = field(default_factory=set)
    highest: int = 0
    topics: dict[str, set[str]] = field(default_factory=dict)
    documents: int = 0
    plan: list[PlannedDocument] | None = None


@dataclass
class PlannedDocument:
    """unique-ids worked out ahead for one document from a scan of its file: the (topic, entity ids) the scan
    found, the ids its entities get, and what was done (as `_unique_ids_of` gives it)."""

    scanned: tuple[str | None, tuple[str, ...]]
    ids: list[str]
    done: list[tuple[str, int]]
    number: int
    highest_before: int


class PlanMismatch(Exception):
    """The documents read are not those a plan was made for (a scan cannot see what a lenient reader drops): the
    caller rules the pieces one after another instead."""


IDS_SO_FAR = "corefud unique-ids so far"


def _unique_ids_of(state: IdsSoFar, topic: str | None, ids: list[str]) -> tuple[list[str], list[tuple[str, int]]]:
    """The ids the entities of the next document (topic, ids in entity order) get, and what was done ("numeric",
    "shared" with a count, "prefixed"); ``state`` moves past the document."""
    number = state.documents + 1
    done: list[tuple[str, int]] = []
    highest = state.highest  # of the e<number> ids used so far
    if topic is None and ids and all(i.isdigit() for i in ids):
        # GUM numbers entities 1, 2 ... per document: CorefUD's style is e<number>, unique in the file
        ids = [f"e{int(i) + highest}" for i in ids]
        done.append(("numeric", 1))
    id_set = set(ids)
    highest = max([highest, *(int(i[1:]) for i in id_set if re.fullmatch(r"e\d+", i))])
    shared_in_topic = id_set & state.topics.get(topic, set()) if topic is not None else set()
    if shared_in_topic:
        done.append(("shared", len(shared_in_topic)))
    if any(i in state.used and i not in shared_in_topic for i in id_set):
        made: set[str] = set()  # (the set of ids taken is state.used, id_set and these: not copied)
        renamed = []
        for old in ids:
            new = old
            if old not in shared_in_topic:
                new = f"d{number}.{old}"
                while new in state.used or new in id_set or new in made:
                    new = f"d{number}.{new}"
                made.add(new)
            renamed.append(new)
        ids, id_set = renamed, set(renamed)
        done.append(("prefixed", 1))
    state.used |= id_set
    if topic is not None:
        state.topics.setdefault(topic, set()).update(id_set)
    state.highest, state.documents = highest, number
    return ids, done


def plan_unique_ids(scans: Iterable[list[tuple[str | None, tuple[str, ...]]]]) -> Iterator[IdsSoFar]:
    """For each piece of a file in turn, its documents' unique-ids worked out ahead from the scans of it and the
    pieces before (`harmonize.converters.corefud_pieces.entity_ids_by_document`), so that the pieces can be ruled at once
    and give what ruling them one after another gives."""
    state = IdsSoFar()
    for scan in scans:
        planned = []
        for topic, ids in scan:
            number, highest = state.documents + 1, state.highest
            new_ids, done = _unique_ids_of(state, topic, list(ids))
            planned.append(PlannedDocument((topic, ids), new_ids, done, number, highest))
        yield IdsSoFar(plan=planned)


def unique_ids(corpus: Corpus, report: Report) -> None:
    state = corpus.meta.get(IDS_SO_FAR) or IdsSoFar()
    if state.plan is not None and len(state.plan) != len(corpus.documents):
        raise PlanMismatch(f"{len(state.plan)} documents planned, {len(corpus.documents)} read")
    for index, document in enumerate(corpus.documents):
        topic = str(document.topic) if document.topic is not None else None
        ids = [str(e.id) for e in document.entities]
        if state.plan is not None:
            planned = state.plan[index]
            if planned.scanned != (topic, tuple(ids)):
                raise PlanMismatch(f"{document.id}: not the entities planned")
            new_ids, done, number, highest = planned.ids, planned.done, planned.number, planned.highest_before
        else:
            number, highest = state.documents + 1, state.highest
            new_ids, done = _unique_ids_of(state, topic, ids)
        renamed = 0
        for entity, new in zip(document.entities, new_ids):
            if entity.id != new:
                entity.id = new
                renamed += 1
        for what, count in done:  # counted per entity renamed (a document is numeric or prefixed, not both)
            if what == "numeric":
                report.add("corefud unique-ids: numeric entity ids written e<number>, numbers continuing over the "
                           "file's documents", f"{document.id}: e{highest + 1}...", renamed)
            elif what == "shared":
                report.add("corefud unique-ids: entity ids shared across the documents of a topic kept "
                           "(cross-document entities; udvalidate refuses them)", str(document.id), count)
            else:
                report.add("corefud unique-ids: entity ids an earlier document used prefixed with the document's "
                           "number", f"{document.id}: d{number}.", renamed)


def split_antecedents_at_first_mention(document: Document, report: Report) -> None:
    """Write each split antecedent at its entity's first mention, where udapi keeps it (on the entity) and writes it:
    GUM's files put some on a later mention."""
    for split in document.split_antecedents:
        first = split.entity.mentions[0]
        if split.anchor is not None and split.anchor is not first:
            report.add("corefud split-antecedents: written at the entity's first mention, as udapi writes them",
                       lambda split=split: f"{_where(document, split.anchor)} -> {_where(document, first)}")
            split.anchor = None


def number_as_released(corpus: Corpus, first: int, report: Report) -> int:
    """Entity ids ``e<N>`` in the order of each entity's first opening bracket over the corpus' documents, from
    ``first``: how the CorefUD release numbers them (a dataset's train, dev and test file in turn, one count).
    Returns the next number."""
    from harmonize.converters.corefud import entities_in_written_order

    number = first
    for document in corpus.documents:
        renamed = 0
        for entity in entities_in_written_order(document):
            new = f"e{number}"
            number += 1
            if entity.id != new:
                entity.id = new
                renamed += 1
        if renamed:
            report.add("corefud release ids: entity ids e<N> in the order of their first mention over the file, as "
                       "the CorefUD release numbers them", f"{document.id}: from e{number - len(document.entities)}",
                       renamed)
    return number


def _rename_key(attrs: dict, old: str, new: str) -> int:
    """Rename a field; 1 where there was one."""
    if old in attrs:
        attrs[new] = attrs.pop(old)
        return 1
    return 0


def check(document: Document, report: Report) -> None:
    for mentions in _same_span_groups(document):
        if len({id(m.entity) for m in mentions}) > 1:
            report.add("corefud check: same-span mentions of different entities", _where(document, mentions[0]))
    for sentence in _sentences_with_overlapping_mentions_of_one_entity(document):  # elsewhere none cross
        mentions = {id(m): m for n in sentence.nodes for m in n.mentions}.values()
        for a, b in _pairs_of_one_entity(sorted(mentions, key=lambda m: m.order)):
            if _crossing(a, b):
                report.add("corefud check: crossing mentions of one entity", _where(document, a))
    for entity in document.entities:
        if len({m.entity_type for m in entity.mentions}) > 1:
            report.add("corefud check: mentions of one entity with different types", f"{document.id}: {entity.id} "
                       f"{'/'.join(sorted({str(m.entity_type) for m in entity.mentions}))}")
        if entity.type and entity.type not in CORE_TYPES:
            report.add("corefud check: entity type outside CorefUD's list", f"{document.id}: {entity.id} "
                       f"{entity.type}")


def _crossing(a: Mention, b: Mention) -> bool:
    words_a, words_b = set(map(id, a.words)), set(map(id, b.words))
    return bool(words_a & words_b) and not (words_a <= words_b or words_b <= words_a)


def heads_only(document: Document, report: Report) -> None:
    for entity in list(document.entities):
        seen: dict[int, Mention] = {}
        for mention in list(entity.mentions):
            head = tree_head(mention)
            if head is None:
                report.add("heads-only: mention without a head (none annotated, no tree) kept whole",
                           _where(document, mention))
                continue
            if len(mention.words) > 1:
                report.add("heads-only: mention reduced to its head word", _where(document, mention))
                document.set_words(mention, [head], head)
            elif mention.head is None:
                document.move_head(mention, head)
            if id(head) in seen:
                report.add("heads-only: mentions of one entity on the same word collapsed", _where(document, mention))
                _changes(report, "heads-only", document.remove_mention(mention))
            else:
                seen[id(head)] = mention


NON_BRIDGING = ("cop", "appos")  # relation labels that are no bridging (LitBank's copula and apposition)


def remove_non_bridging(document: Document, report: Report) -> None:
    for bridge in [b for b in document.bridges if b.label in NON_BRIDGING]:
        report.add(f"remove-non-bridging: {bridge.label} relation dropped (not bridging; CorefUD's LitBank has none)",
                   f"{_where(document, bridge.anaphor)} -> {bridge.antecedent.id}")
        document.bridges.remove(bridge)


def remove_singletons(document: Document, report: Report) -> None:
    relations = Relations.of(document)
    for entity in [e for e in document.entities if len(e.mentions) == 1]:
        report.add("remove-singletons: entity with one mention removed",
                   f"{_where(document, entity.mentions[0])} ({entity.id})")
        document.remove_entity(entity)
    report_relation_changes(document, relations, report, "remove-singletons")


def _same_span_groups(document: Document) -> list[list[Mention]]:
    """Mentions sharing exactly the same nodes, in document order, groups of two or more. (Only the groups are
    put in order: sorting every mention first gives the same, ties broken alike by entity order.)"""
    first: dict[int | tuple[int, ...], Mention] = {}  # a mention's words (in document order) -> its first mention
    groups: dict[int | tuple[int, ...], list[Mention]] = {}
    for entity in document.entities:
        for mention in entity.mentions:
            words = mention.words
            key = id(words[0]) if len(words) == 1 else tuple(map(id, words))
            found = first.setdefault(key, mention)
            if found is not mention:
                groups.setdefault(key, [found]).append(mention)
    shared = [sorted(group, key=lambda m: m.order) for group in groups.values()]
    return sorted(shared, key=lambda group: group[0].order)


def _sentences_with_overlapping_mentions_of_one_entity(document: Document) -> list[Sentence]:
    """The sentences where two mentions of one entity overlap (their first-to-last word ranges meet), in document
    order: only there can mentions interleave or cross (a merge into a union starts from such a pair)."""
    found: dict[int, Sentence] = {}
    for entity in document.entities:
        if len(entity.mentions) < 2:
            continue
        by_sentence: dict[int, tuple[Sentence, list[tuple[int, int]]]] = {}
        for mention in entity.mentions:
            words = mention.words
            sentence = words[0].sentence
            assert sentence is not None
            by_sentence.setdefault(id(sentence), (sentence, []))[1].append((words[0].position, words[-1].position))
        for sentence, spans in by_sentence.values():
            spans.sort()
            reach = spans[0][1]  # the furthest word the mentions so far cover
            for first, last in spans[1:]:
                if first <= reach:
                    found[sentence.index] = sentence
                    break
                reach = max(reach, last)
    return [found[index] for index in sorted(found)]


def _changes(report: Report, step: str, changes: list[Change]) -> None:
    for change in changes:
        report.add(f"{step}: {change.what}", change.detail)


def _where(document: Document, mention: Mention) -> str:
    return f"{document.id}, {mention.sentence.id}: {mention.text}"
