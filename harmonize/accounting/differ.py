"""Every difference between two documents of the model, by kind: the one place that says what "the same" means.

`diff_documents` compares a document with another that should say the same (the same file read back after a
conversion, a release against its source) and counts each difference under one of `KINDS`, with examples.
What it compares, and how it lines the two documents up:

* words are paired by their forms in document order (as a diff pairs lines), so that a sentence break moved, a
  word dropped or an id renumbered is one difference and not a cascade; empty nodes by the word they follow;
* sentences are paired where they start at the same word; their ids, text, speaker, comments and multiword
  tokens are compared;
* each paired word's columns (FORM to DEPS, each MISC attribute, the CoNLL-2012 columns the model has no field
  for); each paired empty node's too;
* mentions by their words; a mention of one side without a mention of the same words on the other is paired
  with an unpaired mention of the corresponding entity that shares a word with it (a changed span; one with the
  same first word, else the same last word, before one sharing more words), else it was dropped or added;
  paired mentions' heads, types, link types and fields. Pairing by words first has a limit: an edit that moves a
  mention onto the words another mention had (a rule growing "Tasmania" to the clause whose own mention
  contracts to "was") reads as the two mentions changing places;
* entities by the mentions they share: one entity of one side whose mentions fall into several of the other's
  is split, the reverse merged; entities paired one to one compare ids, types and fields;
* bridges and split antecedents by their ends (entities through that pairing), labels and anchors;
* the document's id, language, genre, topic and subtopic.

What only tells where a thing came from (``Document.source``) or how a format lays it out (``Document.meta``'s
format entries, spacing of columns, the order of brackets) is not compared: it is no annotation.

Mentions on the same words in several entities pair by the entity their other mentions say corresponds, else by
entity id (or its digits, as numeric formats write them), else in order; where all of that is ambiguous, a swap
can count as an entity split and a merge.

Counts are from the first document's side: a dropped mention counts once, a changed span once, a column changed
on a word once per word and column.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from harmonize.converters.conll2012_lines import other_columns
from harmonize.converters.losses import FIELD_COMMENTS
from harmonize.schemas.model import DOCUMENT_FIELDS, Corpus, Document, Entity, Mention, Node, Sentence

EXAMPLES_PER_KIND = 5

# Each kind of difference, with what one count of it is. The ledger (`harmonize.accounting.ledger`) maps report
# reasons to these names, so renaming one is a change there too.
KINDS: dict[str, str] = {
    "document id": "the document's id",
    "document field": "one of language, genre, topic, subtopic",
    "document dropped": "a document of the first side with no counterpart",
    "document added": "a document of the second side with no counterpart",
    "word dropped": "a word of the first side with no counterpart",
    "word added": "a word of the second side with no counterpart",
    "sentence boundary": "a sentence break on one side only",
    "sentence id": "a paired sentence's id",
    "sentence text": "a paired sentence's text (`# text`)",
    "speaker": "a paired sentence's speaker",
    "comment": "a comment line (other than those the model owns) on one side only",
    "multiword token": "a multiword token (its range, form or columns) on one side only",
    "empty node": "an empty node on one side only",
    "FORM": "a word's form", "LEMMA": "a word's lemma", "UPOS": "a word's UPOS", "XPOS": "a word's XPOS",
    "FEATS": "a word's features", "HEAD": "a word's HEAD", "DEPREL": "a word's relation", "DEPS": "a word's DEPS",
    "MISC": "one MISC attribute of a word (other than the coreference ones)",
    "CoNLL-2012 column": "one CoNLL-2012 column of a word that the model has no field for (parse bit, ...)",
    "mention dropped": "a mention of the first side with no counterpart",
    "mention added": "a mention of the second side with no counterpart",
    "mention span": "a mention paired with one of other words in the corresponding entity",
    "mention head": "a paired mention's head (none on one side included)",
    "mention type": "a paired mention's own entity type (where it differs from its entity's)",
    "mention link": "a paired mention's link type",
    "mention field": "one field of a paired mention",
    "entity split": "an entity whose mentions the second side puts into one more entity",
    "entities merged": "an entity of the second side that holds the mentions of one more entity of the first",
    "entity dropped": "an entity of the first side none of whose mentions has a counterpart",
    "entity added": "an entity of the second side none of whose mentions has a counterpart",
    "entity id": "a paired entity's id",
    "entity type": "a paired entity's type",
    "entity field": "one field of a paired entity",
    "bridge dropped": "a bridge of the first side with no counterpart",
    "bridge added": "a bridge of the second side with no counterpart",
    "bridge label": "a paired bridge's label",
    "split antecedent dropped": "a split antecedent of the first side with no counterpart",
    "split antecedent added": "a split antecedent of the second side with no counterpart",
    "split antecedent anchor": "the mention a paired split antecedent is written at",
}

CONLLU_COLUMNS = ("FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS")


@dataclass
class Differences:
    """Counts of differences per kind (`KINDS`) and a few examples of each."""

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, example: str | Callable[[], str], count: int = 1) -> None:
        if count <= 0:
            return
        assert kind in KINDS, kind
        self.counts[kind] += count
        shown = self.examples.setdefault(kind, [])
        if len(shown) < EXAMPLES_PER_KIND:
            shown.append(example() if callable(example) else example)

    def merge(self, other: Differences) -> None:
        """Add ``other``'s counts and examples to these."""
        for kind, count in other.counts.items():
            self.counts[kind] += count
            shown = self.examples.setdefault(kind, [])
            shown.extend(other.examples.get(kind, [])[: EXAMPLES_PER_KIND - len(shown)])

    def __bool__(self) -> bool:
        return bool(self.counts)

    def summary(self) -> str:
        """The counts in one line, most frequent first: ``"12 mention head, 1 bridge dropped"``."""
        return ", ".join(f"{count} {kind}" for kind, count in self.counts.most_common())

    def to_dict(self) -> dict[str, Any]:
        """``{kind: {"count": N, "examples": [...]}}``, kinds sorted: for JSON."""
        return {kind: {"count": count, "examples": self.examples.get(kind, [])}
                for kind, count in sorted(self.counts.items())}


def diff_corpora(first: Corpus | Iterable[Document], second: Corpus | Iterable[Document]) -> Differences:
    """The differences of each pair of documents (`pair_documents`); a document without a counterpart is dropped
    or added."""
    firsts, seconds = list(first), list(second)
    differences = Differences()
    pairs = pair_documents(firsts, seconds)
    for a, b in pairs:
        diff_documents(a, b, differences)
    paired_a, paired_b = {id(a) for a, _ in pairs}, {id(b) for _, b in pairs}
    for a in firsts:
        if id(a) not in paired_a:
            differences.add("document dropped", str(a.id))
    for b in seconds:
        if id(b) not in paired_b:
            differences.add("document added", str(b.id))
    return differences


def pair_documents(first: list[Document], second: list[Document]) -> list[tuple[Document, Document]]:
    """Documents of two sides paired: by id where an id names one document on each side, the others in the order
    they come (a format that cannot hold an id still keeps the order of documents), in the first side's order."""
    def unique(documents: list[Document]) -> dict[str | None, Document]:
        counted = Counter(d.id for d in documents)
        return {d.id: d for d in documents if counted[d.id] == 1}

    ids_a, ids_b = unique(first), unique(second)
    by_id = {id(a): ids_b[key] for key, a in ids_a.items() if key in ids_b}
    taken = {id(b) for b in by_id.values()}
    rest = iter([b for b in second if id(b) not in taken])
    pairs = []
    for a in first:
        b = by_id.get(id(a)) or next(rest, None)
        if b is not None:
            pairs.append((a, b))
    return pairs


def diff_documents(first: Document, second: Document, differences: Differences | None = None) -> Differences:
    """Every difference between ``first`` and ``second`` (see the module's description), added to
    ``differences`` (a new one if not given), which is returned."""
    differences = differences if differences is not None else Differences()
    _DocumentPair(first, second, differences).compare()
    return differences


def _words(document: Document) -> list[Node]:
    return [node for sentence in document.sentences for node in sentence.nodes if not node.is_empty]


class _DocumentPair:
    def __init__(self, first: Document, second: Document, differences: Differences) -> None:
        self.a, self.b = first, second
        self.out = differences
        self.name = str(first.id)
        self.mentions_a, self.mentions_b = first.mentions, second.mentions

    def compare(self) -> None:
        a, b, out = self.a, self.b, self.out
        if a.id != b.id:
            out.add("document id", f"{a.id!r} -> {b.id!r}")
        for name in DOCUMENT_FIELDS:
            if getattr(a, name) != getattr(b, name):
                out.add("document field", f"{self.name}: {name} {getattr(a, name)!r} -> {getattr(b, name)!r}")
        self.align_words()
        self.compare_sentences()
        self.compare_mentions()
        self.compare_relations()

    # -- words and sentences -----------------------------------------------------------------------------------
    def align_words(self) -> None:
        """Pair the words of both sides by their forms (a diff's alignment), and the empty nodes by the paired
        word they follow; ``self.pair`` maps ``id`` of a node of the second side to its first-side node."""
        words_a, words_b = _words(self.a), _words(self.b)
        self.pair: dict[int, Node] = {}
        if len(words_a) == len(words_b):
            blocks = [(0, 0, len(words_a))]
        else:
            matcher = difflib.SequenceMatcher(None, [w.form for w in words_a], [w.form for w in words_b],
                                              autojunk=False)
            blocks = []
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
                    blocks.append((i1, j1, i2 - i1))
                else:
                    for word in words_a[i1:i2]:
                        self.out.add("word dropped", lambda word=word: f"{self.name}: {_where(word)}")
                    for word in words_b[j1:j2]:
                        self.out.add("word added", lambda word=word: f"{self.name}: {_where(word)}")
        for i, j, size in blocks:
            for word_a, word_b in zip(words_a[i:i + size], words_b[j:j + size]):
                self.pair[id(word_b)] = word_a
        # Empty nodes: by the paired word they follow (or the sentence start), then their number after the dot.
        self.empties_a = _empty_keys(self.a, lambda node: node)
        self.empties_b = _empty_keys(self.b, lambda node: self.pair.get(id(node)))
        for key, node_b in self.empties_b.items():
            node_a = self.empties_a.get(key)
            if node_a is not None:
                self.pair[id(node_b)] = node_a
        paired = {id(node) for node in self.pair.values()}
        for key, node in self.empties_a.items():
            if id(node) not in paired:
                self.out.add("empty node", lambda node=node: f"{self.name}: {_where(node)} only in the first")
        for key, node in self.empties_b.items():
            if id(node) not in self.pair:
                self.out.add("empty node", lambda node=node: f"{self.name}: {_where(node)} only in the second")

    def compare_sentences(self) -> None:
        starts_a = {id(s.words[0]): s for s in self.a.sentences if s.words}
        paired: dict[int, tuple[Sentence, Sentence]] = {}
        for sentence in self.b.sentences:
            if not sentence.words:
                continue
            first = self.pair.get(id(sentence.words[0]))
            if first is not None and id(first) in starts_a:
                paired[id(first)] = (starts_a[id(first)], sentence)
            else:
                self.out.add("sentence boundary", f"{self.name}: a sentence starts at {_where(sentence.words[0])} "
                                                  "in the second only")
        for key, sentence in starts_a.items():
            if key not in paired:
                self.out.add("sentence boundary", f"{self.name}: a sentence starts at {_where(sentence.words[0])} "
                                                  "in the first only")
        for sentence_a, sentence_b in paired.values():
            self.compare_sentence(sentence_a, sentence_b)
        for node_b in (node for sentence in self.b.sentences for node in sentence.nodes):
            node_a = self.pair.get(id(node_b))
            if node_a is not None:
                self.compare_node(node_a, node_b)

    def compare_sentence(self, a: Sentence, b: Sentence) -> None:
        out, where = self.out, f"{self.name}, {a.id}"
        if a.id != b.id:
            out.add("sentence id", f"{self.name}: {a.id!r} -> {b.id!r}")
        if a.text != b.text:
            out.add("sentence text", lambda: f"{where}: {a.text!r} -> {b.text!r}")
        if a.speaker != b.speaker:
            out.add("speaker", f"{where}: {a.speaker!r} -> {b.speaker!r}")
        comments_a = Counter(c for c in a.comments if isinstance(c, str) and not c.startswith(FIELD_COMMENTS))
        comments_b = Counter(c for c in b.comments if isinstance(c, str) and not c.startswith(FIELD_COMMENTS))
        for line, count in ((comments_a - comments_b) + (comments_b - comments_a)).items():
            out.add("comment", f"{where}: {line!r} on one side only", count)
        tokens_a = Counter((t.first, t.last, t.form, t.columns) for t in a.multiwords)
        tokens_b = Counter((t.first, t.last, t.form, t.columns) for t in b.multiwords)
        for (first, last, form, _columns), count in ((tokens_a - tokens_b) + (tokens_b - tokens_a)).items():
            side = "first" if (first, last, form, _columns) in tokens_a else "second"
            out.add("multiword token", f"{where}: {first}-{last} {form!r} only in the {side}", count)

    def compare_node(self, a: Node, b: Node) -> None:
        out = self.out
        for name, value_a, value_b in zip(CONLLU_COLUMNS, _conllu_columns(a), _conllu_columns(b)):
            if value_a != value_b:
                out.add(name, lambda name=name, value_a=value_a, value_b=value_b:
                        f"{self.name}: {_where(a)} {name} {value_a!r} -> {value_b!r}")
        misc_a, misc_b = a.misc_view(), b.misc_view()
        if misc_a != misc_b:
            for key in misc_a.keys() | misc_b.keys():
                if misc_a.get(key, _ABSENT) != misc_b.get(key, _ABSENT):
                    out.add("MISC", lambda key=key: f"{self.name}: {_where(a)} {key}="
                                                    f"{misc_a.get(key)!r} -> {misc_b.get(key)!r}")
        columns_a, columns_b = other_columns(a), other_columns(b)
        if columns_a != columns_b:
            for key in columns_a.keys() | columns_b.keys():
                if columns_a.get(key) != columns_b.get(key):
                    out.add("CoNLL-2012 column", lambda key=key: f"{self.name}: {_where(a)} {key} "
                                                                 f"{columns_a.get(key)!r} -> {columns_b.get(key)!r}")

    # -- coreference --------------------------------------------------------------------------------------------
    def compare_mentions(self) -> None:
        out = self.out
        by_words: dict[tuple[int, ...], list[Mention]] = {}
        for mention in self.mentions_a:
            by_words.setdefault(tuple(id(w) for w in mention.words), []).append(mention)
        # Mentions of the same words pair first: where one side has several on the same words, after the others,
        # with the one of the entity the others say corresponds.
        self.mention_pair: dict[int, Mention] = {}  # id(second-side mention) -> first-side mention
        unpaired_b: list[Mention] = []
        several: list[tuple[Mention, list[Mention]]] = []
        for mention in self.mentions_b:
            mapped = [self.pair.get(id(w)) for w in mention.words]
            candidates = by_words.get(tuple(id(w) for w in mapped)) if None not in mapped else None
            if not candidates:
                unpaired_b.append(mention)
            elif len(candidates) == 1 and sum(1 for m in mention.words[0].mentions if m.words == mention.words) == 1:
                self.mention_pair[id(mention)] = candidates.pop()
            else:
                several.append((mention, candidates))
        entity_pair = self._entity_votes()
        # Those whose entity corresponds (by the votes, else by id) first; the rest take what is left, in order.
        for claimed in (True, False):
            for mention, candidates in several:
                if id(mention) in self.mention_pair or not candidates:
                    continue
                voted = entity_pair.get(id(mention.entity))
                chosen = next((m for m in candidates if m.entity is voted), None) or next(
                    (m for m in candidates if _same_id(m.entity, mention.entity)), None)
                if chosen is None and not claimed:
                    chosen = candidates[0]
                if chosen is not None:
                    candidates.remove(chosen)
                    self.mention_pair[id(mention)] = chosen
        unpaired_b.extend(m for m, _candidates in several if id(m) not in self.mention_pair)
        unpaired_a = [m for group in by_words.values() for m in group]
        entity_pair = self._entity_votes()
        # A changed span: an unpaired mention sharing a word, of the corresponding entity (or, where neither
        # entity has a paired mention, of an entity without one either); the best pairs first: corresponding
        # entities by vote or id, then the same first or last word, then most words shared.
        voted = {id(entity) for entity in entity_pair.values()}
        self.changed_spans: list[int] = []
        scored = []
        for a_at, mention in enumerate(sorted(unpaired_a, key=lambda m: m.order)):
            words = {id(w) for w in mention.words}
            for b_at, other in enumerate(unpaired_b):
                corresponds = entity_pair.get(id(other.entity)) is mention.entity
                if not corresponds and (id(other.entity) in entity_pair or id(mention.entity) in voted):
                    continue
                shared = sum(1 for w in other.words if id(self.pair.get(id(w))) in words)
                if shared:
                    rank = 2 if corresponds else 1 if _same_id(mention.entity, other.entity) else 0
                    # A span that grew or shrank at one end keeps the other: the same first word, then the same
                    # last word, tell it from other mentions it now overlaps.
                    same_end = 2 * (self.pair.get(id(other.words[0])) is mention.words[0]) + (
                        self.pair.get(id(other.words[-1])) is mention.words[-1])
                    scored.append((-rank, -same_end, -shared, a_at, b_at, mention, other))
        taken_a: set[int] = set()
        taken_b: set[int] = set()
        for *_order, mention, other in sorted(scored, key=lambda item: item[:5]):
            if id(mention) in taken_a or id(other) in taken_b:
                continue
            taken_a.add(id(mention))
            taken_b.add(id(other))
            self.mention_pair[id(other)] = mention
            self.changed_spans.append(id(other))
            out.add("mention span", lambda m=mention, match=other:
                    f"{self.name}: {m.entity.id} {_span(m)} -> {_span(match)}")
        left_a = [m for m in sorted(unpaired_a, key=lambda m: m.order) if id(m) not in taken_a]
        unpaired_b = [m for m in unpaired_b if id(m) not in taken_b]
        for mention in left_a:
            out.add("mention dropped", lambda m=mention: f"{self.name}: {m.entity.id} {_span(m)}")
        for mention in unpaired_b:
            out.add("mention added", lambda m=mention: f"{self.name}: {m.entity.id} {_span(m)}")
        changed = {id(m) for m in unpaired_b} | set(self.changed_spans)
        for mention_b in self.mentions_b:
            mention_a = self.mention_pair.get(id(mention_b))
            if mention_a is not None:
                self.compare_mention(mention_a, mention_b, id(mention_b) in changed)
        self.compare_entities()

    def _entity_votes(self) -> dict[int, Entity]:
        """id(second-side entity) -> the first-side entity most of its paired mentions belong to."""
        votes: dict[int, Counter] = {}
        entities: dict[int, Entity] = {}
        for mention_b in self.mentions_b:
            mention_a = self.mention_pair.get(id(mention_b))
            if mention_a is not None:
                votes.setdefault(id(mention_b.entity), Counter())[id(mention_a.entity)] += 1
                entities[id(mention_a.entity)] = mention_a.entity  # type: ignore[assignment]
        return {b: entities[counter.most_common(1)[0][0]] for b, counter in votes.items()}

    def compare_mention(self, a: Mention, b: Mention, span_changed: bool = False) -> None:
        """Heads, types, link types and fields of paired mentions. Where the span changed, a head counts only where
        one was annotated: the head a new span implies (one word) is part of the span's change."""
        out, where = self.out, f"{self.name}: {a.entity.id if a.entity else '?'} {_span(a)}"
        head_a, head_b = _head(a), _head(b)
        head_b = self.pair.get(id(head_b)) if head_b is not None else None
        if not (span_changed and a.head is None) and head_b is not head_a:
            out.add("mention head", lambda: f"{where}: {_form(_head(a))} -> {_form(_head(b))}")
        if a.etype != b.etype:
            out.add("mention type", f"{where}: {a.etype!r} -> {b.etype!r}")
        if a.link != b.link:
            out.add("mention link", f"{where}: {a.link!r} -> {b.link!r}")
        _compare_fields(out, "mention field", where, a.attrs, b.attrs)

    def compare_entities(self) -> None:
        out = self.out
        # Which entities of the other side each entity's paired mentions went to, both ways.
        forward: dict[int, dict[int, Entity]] = {}
        backward: dict[int, dict[int, Entity]] = {}
        for mention_b in self.mentions_b:
            mention_a = self.mention_pair.get(id(mention_b))
            if mention_a is None:
                continue
            entity_a, entity_b = mention_a.entity, mention_b.entity
            forward.setdefault(id(entity_a), {})[id(entity_b)] = entity_b  # type: ignore[assignment]
            backward.setdefault(id(entity_b), {})[id(entity_a)] = entity_a  # type: ignore[assignment]
        self.entity_pair: dict[int, Entity] = {}  # id(first-side entity) -> its one second-side entity
        for entity in self.a.entities:
            targets = forward.get(id(entity))
            if not targets:
                out.add("entity dropped", f"{self.name}: {entity.id}")
                continue
            if len(targets) > 1:
                out.add("entity split", lambda e=entity, t=targets: f"{self.name}: {e.id} -> "
                        f"{', '.join(x.id for x in t.values())}", len(targets) - 1)
            target = next(iter(targets.values()))
            if len(targets) == 1 and len(backward[id(target)]) == 1:
                self.entity_pair[id(entity)] = target
                self.compare_entity(entity, target)
        for entity in self.b.entities:
            sources = backward.get(id(entity))
            if not sources:
                out.add("entity added", f"{self.name}: {entity.id}")
            elif len(sources) > 1:
                out.add("entities merged", lambda e=entity, s=sources: f"{self.name}: "
                        f"{', '.join(x.id for x in s.values())} -> {e.id}", len(sources) - 1)

    def compare_entity(self, a: Entity, b: Entity) -> None:
        out, where = self.out, f"{self.name}: {a.id}"
        if a.id != b.id:
            out.add("entity id", f"{where} -> {b.id}")
        if a.type != b.type:
            out.add("entity type", f"{where}: {a.type!r} -> {b.type!r}")
        _compare_fields(out, "entity field", where, a.attrs, b.attrs)

    def compare_relations(self) -> None:
        """Bridges by anaphor and antecedent, split antecedents by their entity and its parts, ends through the
        mentions and entities paired above; paired ones compare their label or anchor."""
        out = self.out
        back = {id(entity_b): entity_a for entity_a in self.a.entities
                if (entity_b := self.entity_pair.get(id(entity_a))) is not None}

        def bridge_key(bridge: Any) -> tuple | None:
            anaphor, antecedent = self.mention_pair.get(id(bridge.anaphor)), back.get(id(bridge.antecedent))
            return None if anaphor is None or antecedent is None else (id(anaphor), id(antecedent))

        pairs, dropped, added = _pair_by_key(self.a.bridges, self.b.bridges,
                                             lambda b: (id(b.anaphor), id(b.antecedent)), bridge_key)
        for first, bridge in pairs:
            if (first.label or None) != (bridge.label or None):
                out.add("bridge label", f"{self.name}: {_span(first.anaphor)} {first.label!r} -> {bridge.label!r}")
        for kind, bridges in (("bridge dropped", dropped), ("bridge added", added)):
            for bridge in bridges:
                out.add(kind, lambda b=bridge: f"{self.name}: {_span(b.anaphor)} -> {b.antecedent.id}")

        def split_key(split: Any) -> tuple | None:
            entities = [back.get(id(e)) for e in (split.entity, *split.antecedents)]
            return None if None in entities else (id(entities[0]), frozenset(map(id, entities[1:])))

        pairs, dropped, added = _pair_by_key(
            self.a.split_antecedents, self.b.split_antecedents,
            lambda s: (id(s.entity), frozenset(map(id, s.antecedents))), split_key)
        for first, split in pairs:
            anchor_a = first.anchor or first.entity.mentions[0]
            anchor_b = split.anchor or split.entity.mentions[0]
            if self.mention_pair.get(id(anchor_b)) is not anchor_a:
                out.add("split antecedent anchor", f"{self.name}: {_split(first)} at {_span(anchor_a)} -> "
                                                   f"{_span(anchor_b)}")
        for kind, splits in (("split antecedent dropped", dropped), ("split antecedent added", added)):
            for split in splits:
                out.add(kind, lambda s=split: f"{self.name}: {_split(s)}")


def _pair_by_key(firsts: list, seconds: list, key_a: Callable[[Any], tuple],
                 key_b: Callable[[Any], tuple | None]) -> tuple[list[tuple[Any, Any]], list, list]:
    """Relations of both sides paired by key (``key_b`` gives a second-side relation its first-side key, None where
    an end has no counterpart): the pairs, the first side's left over, the second side's left over."""
    waiting: dict[tuple, list] = {}
    for item in firsts:
        waiting.setdefault(key_a(item), []).append(item)
    pairs, added = [], []
    for item in seconds:
        key = key_b(item)
        found = waiting.get(key) if key is not None else None
        if found:
            pairs.append((found.pop(0), item))
        else:
            added.append(item)
    return pairs, [item for left in waiting.values() for item in left], added


_ABSENT = object()


def _conllu_columns(node: Node) -> list[str]:
    return [node.form, node.lemma, node.upos, node.xpos, node.feats, node.head, node.deprel, node.deps]


def _empty_keys(document: Document, paired: Callable[[Node], Node | None]) -> dict[tuple, Node]:
    """Each empty node keyed by the first-side word it follows (``paired`` maps a word there; the sentence's
    first word's for "0.N") and the number after its dot; unpaired words give keys of their own."""
    keys: dict[tuple, Node] = {}
    for sentence in document.sentences:
        words = sentence.words
        for node in sentence.nodes:
            if not node.is_empty:
                continue
            major, minor = node.id.split(".", 1)
            before = sentence.word(major) if major != "0" else None
            anchor = paired(before) if before is not None else (paired(words[0]) if words else None)
            keys[(id(anchor) if anchor is not None else ("unpaired", id(node)), major == "0", minor)] = node
    return keys


def _compare_fields(out: Differences, kind: str, where: str, a: dict[str, str], b: dict[str, str]) -> None:
    if a == b:
        return
    for key in a.keys() | b.keys():
        if a.get(key) != b.get(key):
            out.add(kind, f"{where}: {key} {a.get(key)!r} -> {b.get(key)!r}")


def _where(node: Node) -> str:
    sentence = node.sentence
    return f"{sentence.id if sentence is not None else '?'}#{node.id} {node.form!r}"


def _same_id(a: Entity | None, b: Entity | None) -> bool:
    """The same entity id, or the same digits (formats of numeric ids write "e12" as 12)."""
    if a is None or b is None:
        return False
    return a.id == b.id or (re.sub(r"\D", "", a.id) or None) == (re.sub(r"\D", "", b.id) or "")


def _head(mention: Mention) -> Node | None:
    """The annotated head; a one-word mention's word where none is annotated (its only possible head)."""
    return mention.head if mention.head is not None or len(mention.words) > 1 else mention.words[0]


def _form(node: Node | None) -> str:
    return repr(node.form) if node is not None else "none"


def _span(mention: Mention) -> str:
    return f"{mention.sentence.id}: {mention.text!r}"


def _split(split: Any) -> str:
    return f"{split.entity.id} = {' + '.join(a.id for a in split.antecedents)}"
