"""The corpus model: one representation for every coreference corpus the toolkit reads or writes.

See ``README.md`` in this folder for the overview. In short::

    Corpus ─┬─ Document (id, language, genre, topic, subtopic, source, meta)
            │    ├─ Sentence (id, text, speaker, comments)
            │    │    ├─ Node      word (id "5") or empty node (id "5.1"), CoNLL-U columns, char offsets
            │    │    └─ MultiwordToken (id "3-4")
            │    ├─ Entity (id, type, attrs) ── mentions, in document order
            │    │    └─ Mention (words: Nodes of one sentence, maybe discontinuous; head; link; attrs)
            │    ├─ Bridge (anaphor Mention -> antecedent Entity, label)
            │    └─ SplitAntecedent (Entity -> [Entity, ...], anchored at one of its mentions)

Coreference objects are edited through `Document` methods only; each keeps every relation consistent and
returns what it had to change elsewhere.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from harmonize.errors import ModelError, Report


class CommentSlot(Enum):
    """Where a comment line owned by the model (rather than kept verbatim) stands among a sentence's comments."""

    NEWDOC = "newdoc"
    GLOBAL_ENTITY = "global.Entity"
    SENT_ID = "sent_id"
    TEXT = "text"
    SPEAKER = "speaker"


def _column(index: int, doc: str) -> property:
    """A CoNLL-U column stored in the node's column list; setting it invalidates the verbatim line."""

    def get(node: Node) -> str:
        return (node._columns or node._split())[index]

    def set(node: Node, value: str) -> None:
        (node._columns or node._split())[index] = value
        node._line = None

    return property(get, set, doc=doc)


class Node:
    """A syntactic word (``id`` "7") or an empty node (``id`` "7.1") with its CoNLL-U columns.

    Columns are kept as the strings of the file ("_" for an empty column) so that writing them back is exact.
    ``misc`` holds every MISC attribute except the coreference ones (Entity, Bridge, SplitAnte), which live in
    the document's mentions and relations and are written from there.

    A node read from a file keeps its line and splits it into columns only when a column is first used; while no
    column has been touched, the line itself is what gets written. Most nodes of a corpus are never touched, which
    makes reading and writing several times faster.
    """

    __slots__ = (
        "sentence", "id", "_columns", "_line", "_misc", "misc_order", "coref_read", "start_char", "end_char",
        "mentions", "position", "bracket_order", "conll2012",
    )

    def __init__(
        self,
        id: str,
        form: str = "_",
        lemma: str = "_",
        upos: str = "_",
        xpos: str = "_",
        feats: str = "_",
        head: str = "_",
        deprel: str = "_",
        deps: str = "_",
        misc: dict[str, str | None] | None = None,
    ) -> None:
        self.sentence: Sentence | None = None
        self.id = id
        self._columns: list[str] | None = [id, form, lemma, upos, xpos, feats, head, deprel, deps, "_"]
        self._line: str | None = None
        self._misc: dict[str, str | None] | None = misc if misc is not None else {}
        # Key order of MISC as read, coreference keys included, so that they go back where they stood.
        self.misc_order: tuple[str, ...] = ()
        # The (Entity, Bridge, SplitAnte) values of MISC as read (None: none of them). While the coreference they
        # render to is the same and the line untouched, the line itself is written.
        self.coref_read: tuple[str | None, str | None, str | None] | None = None
        self.start_char: int | None = None
        self.end_char: int | None = None
        # Mentions covering this node: a tuple, replaced on change (most nodes have none, and an empty tuple costs
        # neither memory nor garbage-collector time).
        self.mentions: tuple[Mention, ...] = ()
        # Index in the sentence's node list; with the sentence index it orders nodes in the document.
        self.position = 0
        # Order of the CorefUD brackets on this node as read: (mention, part number, "open"|"close"|"single").
        # The writer follows it while it still describes the node's mentions.
        self.bracket_order: tuple[tuple[Mention, int, str], ...] = ()
        # The CoNLL-2012 line as read, cut around its coreference cell: (text before, cell, text after). The
        # CoNLL-2012 writer keeps the other columns and their spacing from it.
        self.conll2012: tuple[str, str, str] | None = None

    @classmethod
    def from_line(cls, line: str, node_id: str, sentence: Sentence | None = None, position: int = 0) -> Node:
        """A node for a CoNLL-U token line (ten tab-separated columns, already checked) whose ID is ``node_id``, at
        ``position`` in ``sentence``'s nodes."""
        node = cls.__new__(cls)
        node.id = node_id
        node._line = line
        node._columns = None
        node._misc = None
        node.sentence = sentence
        node.misc_order = ()
        node.coref_read = None
        node.start_char = node.end_char = None
        node.mentions = ()
        node.position = position
        node.bracket_order = ()
        node.conll2012 = None
        return node

    def _split(self) -> list[str]:
        assert self._line is not None
        self._columns = self._line.split("\t")
        return self._columns

    @property
    def form(self) -> str:
        """FORM. Read straight from the untouched line: aligning two files reads every form and nothing else."""
        if self._columns is None:
            line = self._line
            assert line is not None
            start = line.index("\t") + 1
            return line[start : line.index("\t", start)]
        return self._columns[1]

    @form.setter
    def form(self, value: str) -> None:
        (self._columns or self._split())[1] = value
        self._line = None

    lemma = _column(2, "LEMMA")
    upos = _column(3, "UPOS")
    xpos = _column(4, "XPOS")
    feats = _column(5, "FEATS (a string, see feats_dict)")
    head = _column(6, "HEAD as written (a string; see parent)")
    deprel = _column(7, "DEPREL")
    deps = _column(8, "DEPS")

    @property
    def misc(self) -> dict[str, str | None]:
        """MISC attributes other than Entity, Bridge and SplitAnte; a key without "=" maps to None."""
        columns = self._columns or self._split()  # the other columns outlive the line dropped below
        if self._misc is None:
            self._misc = parse_misc(columns[9])
        self._line = None  # the dict may be edited: from now on MISC is written from it
        return self._misc

    def misc_view(self) -> dict[str, str | None]:
        """MISC as `misc` has it, for reading only: unlike `misc` it leaves the verbatim line in place (the
        differ and the loss counts look at every node of a corpus that may be written afterwards)."""
        if self._misc is not None:
            return self._misc
        return parse_misc((self._columns or self._split())[9])

    def verbatim_line(self) -> str | None:
        """The line as read while no column of it has been touched (it is then exactly what gets written)."""
        return self._line

    def columns(self) -> list[str]:
        """ID to DEPS as strings (MISC is written from ``misc`` and the document's coreference)."""
        columns = self._columns or self._split()
        columns[0] = self.id
        return columns[:9]

    @property
    def is_empty(self) -> bool:
        """True for an empty node (decimal id such as "5.1")."""
        return "." in self.id

    @property
    def parent(self) -> Node | None:
        """The governing word in the basic tree (None for the root, for empty nodes and where HEAD is unknown)."""
        sentence = self.sentence
        if sentence is None:
            return None
        head = (self._columns or self._split())[6]  # (the HEAD column without the property: rules ask per word)
        if head == "0" or not head.isdigit():
            return None
        return sentence.word(head)

    @property
    def order(self) -> tuple[int, int]:
        """Document order: (sentence index, position in the sentence)."""
        return (self.sentence.index if self.sentence is not None else 0, self.position)

    def feats_dict(self) -> dict[str, str]:
        """FEATS as a dict (the column itself stays a string to keep it byte-exact)."""
        if self.feats in ("_", ""):
            return {}
        return dict(item.split("=", 1) for item in self.feats.split("|"))

    def __repr__(self) -> str:
        sid = self.sentence.id if self.sentence is not None else "?"
        return f"<Node {sid}#{self.id} {self.form!r}>"


_ID_SEPARATORS = re.compile(r"[/\s]+")


def made_sentence_id(document_id: str | None, label: str | int) -> str:
    """The id of a sentence a reader numbers itself: the document id and ``label``, joined by "-", with whitespace
    and "/" in the document id made "_" (udapi reads "a/b" in a sent_id as sentence a of zone b, and then cannot
    order a document's words)."""
    return f"{_ID_SEPARATORS.sub('_', str(document_id))}-{label}"


def parse_misc(text: str) -> dict[str, str | None]:
    """Parse a MISC column into an ordered dict; "_" is empty."""
    if text == "_" or not text:
        return {}
    result: dict[str, str | None] = {}
    for item in text.split("|"):
        key, sep, value = item.partition("=")
        result[key] = value if sep else None
    return result


@dataclass(eq=False)
class MultiwordToken:
    """A multiword token line ("3-4 du"): its id range, form and the other columns verbatim."""

    first: int
    last: int
    form: str
    columns: tuple[str, ...] = ("_",) * 8  # LEMMA .. MISC

    @property
    def id(self) -> str:
        return f"{self.first}-{self.last}"


@dataclass(eq=False)
class Sentence:
    """A sentence: its nodes (words and empty nodes, in file order), multiword tokens and comments.

    ``comments`` holds the comment lines verbatim (with their "#") except those the model owns, which stand as a
    `CommentSlot` and are written from ``id``, ``text``, ``speaker`` and the document. ``speaker`` is who
    says the sentence (CorefUD/GUM ``# speaker = X``, the CoNLL-2012 speaker column).
    """

    id: str | None = None
    text: str | None = None
    speaker: str | None = None
    comments: list[str | CommentSlot] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    multiwords: list[MultiwordToken] = field(default_factory=list)
    document: Document | None = field(default=None, repr=False)
    index: int = 0

    def __post_init__(self) -> None:
        self._by_id: dict[str, Node] | None = None

    @property
    def words(self) -> list[Node]:
        """Syntactic words only (no empty nodes)."""
        return [node for node in self.nodes if "." not in node.id]

    def release(self) -> None:
        """Cut the links that close cycles (its nodes and their id index point back at it, and it at its document),
        so that it is freed at once by reference counting (see `Corpus.release`)."""
        self.nodes = []
        self._by_id = None
        self.document = None

    def word(self, node_id: str) -> Node | None:
        """The node (word or empty node) with this id."""
        if self._by_id is None or len(self._by_id) != len(self.nodes):
            self._by_id = {node.id: node for node in self.nodes}
        return self._by_id.get(node_id)

    def add_node(self, node: Node) -> Node:
        """Append a node at the end of the sentence."""
        node.sentence = self
        node.position = len(self.nodes)
        self.nodes.append(node)
        self._by_id = None
        return node


@dataclass(eq=False, slots=True, weakref_slot=True)
class Entity:
    """A coreference cluster: an id unique in its document, a type, free attributes and its mentions in order."""

    id: str
    type: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    mentions: list[Mention] = field(default_factory=list)
    document: Document | None = field(default=None, repr=False)

    @property
    def is_singleton(self) -> bool:
        """One mention only (CorefUD scoring leaves such entities out unless asked)."""
        return len(self.mentions) == 1

    def __repr__(self) -> str:
        return f"<Entity {self.id} type={self.type!r} mentions={len(self.mentions)}>"


@dataclass(eq=False, slots=True, weakref_slot=True)
class Mention:
    """A mention: the nodes it covers (one sentence, document order, gaps allowed), head, entity, attributes.

    ``head`` is the annotated head word, None where the corpus annotates none (GUM's own files, CoNLL-2012):
    `tree_head` gives the tree's head there. ``link`` is the type of the link into this mention from its
    antecedent (GUM: coref, ana, cata, appos, pred, disc, sgl ...), None where the corpus does not say. ``attrs``
    holds the other mention-level fields.
    """

    words: list[Node]
    entity: Entity | None = field(default=None, repr=False)
    head: Node | None = None
    link: str | None = None
    attrs: dict[str, str] = field(default_factory=dict)
    # Number of fields the CorefUD opening bracket had when read; the writer never writes fewer, so that
    # trailing empty fields ("(e1-x-1-") survive a round trip.
    bracket_width: int = 0
    # Number of fields its closing bracket repeated when read (GUM v7 repeats the whole label: "person-1-X)");
    # 0: up to the entity id, as CorefUD does.
    closing_width: int = 0
    # Entity-level fields (etype, identity) this mention's bracket left empty although they belong to the
    # entity; the writer leaves them empty there again.
    hidden_fields: frozenset[str] = frozenset()
    # The entity type this mention's annotation gives where it differs from its entity's (GUM types a few
    # mentions of one chain differently: an "event" chain with one "abstract" mention); None: the entity's.
    etype: str | None = None

    @property
    def entity_type(self) -> str | None:
        """The type this mention is annotated with: its own where it has one, else its entity's."""
        return self.etype if self.etype is not None else self.entity.type if self.entity is not None else None

    @property
    def tree_head(self) -> Node | None:
        """The annotated ``head`` where there is one, else the highest of the mention's words in the dependency
        tree (udapi's ``corefud.MoveHead``), else the word of a one-word mention. ``head`` itself is None where the
        corpus annotates no head (GUM's own files, CoNLL-2012); this is None only where there is no tree either."""
        return tree_head(self)

    @property
    def sentence(self) -> Sentence:
        """The sentence the mention is in (a mention never crosses sentences)."""
        return self.words[0].sentence  # type: ignore[return-value]

    @property
    def order(self) -> tuple[tuple[int, int], int]:
        """Sort key in the document: first node, then longer mentions first."""
        return (self.words[0].order, -len(self.words))

    @property
    def is_discontinuous(self) -> bool:
        """Whether its words have gaps between them in the sentence (see `parts`)."""
        positions = [w.position for w in self.words]
        return positions[-1] - positions[0] + 1 != len(positions)

    def parts(self) -> list[list[Node]]:
        """Maximal runs of nodes adjacent in the sentence."""
        runs: list[list[Node]] = []
        for word in self.words:
            if runs and runs[-1][-1].position + 1 == word.position:
                runs[-1].append(word)
            else:
                runs.append([word])
        return runs

    @property
    def text(self) -> str:
        """Its words' forms joined by single spaces (not the surface text: see `harmonize.converters.surface`)."""
        return " ".join(w.form for w in self.words)

    def __repr__(self) -> str:
        eid = self.entity.id if self.entity is not None else "?"
        return f"<Mention {eid} {self.text!r}>"


@dataclass(eq=False, slots=True)
class Bridge:
    """Bridging: ``anaphor`` is a mention whose referent is anchored in the ``antecedent`` entity."""

    anaphor: Mention
    antecedent: Entity
    label: str | None = None


# The bridging label of an entity with exactly one other entity as its part (RuCoCo's ``includes`` with one child,
# "48 people" ... "one of them"): CorefUD's SplitAnte needs two antecedents or more, so one part is a bridge.
INCLUDES = "includes"


@dataclass(eq=False, slots=True)
class SplitAntecedent:
    """``entity`` refers to the union of ``antecedents`` (e.g. "they" after "John" and "Mary").

    ``anchor`` is the mention the annotation is written at (CorefUD puts SplitAnte on a mention's first node);
    None means the entity's first mention.
    """

    entity: Entity
    antecedents: list[Entity]
    anchor: Mention | None = None


@dataclass
class Change:
    """One consequence of an edit elsewhere in the document (a relation removed or retargeted)."""

    what: str
    detail: str


# A document's own fields besides its id: what formats with a place for document metadata carry.
DOCUMENT_FIELDS = ("language", "genre", "topic", "subtopic")


@dataclass(eq=False)
class Document:
    """A document: sentences, entities and the relations between them."""

    id: str | None = None
    language: str | None = None
    genre: str | None = None
    topic: str | None = None
    subtopic: str | None = None
    source: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    sentences: list[Sentence] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    bridges: list[Bridge] = field(default_factory=list)
    split_antecedents: list[SplitAntecedent] = field(default_factory=list)
    # CorefUD `# global.Entity` field names this document declares (e.g. ("eid", "etype", "head", "other")).
    entity_fields: tuple[str, ...] | None = None

    # -- structure ---------------------------------------------------------------------------------------------
    def add_sentence(self, sentence: Sentence) -> Sentence:
        """Append ``sentence`` at the end of the document (its index set, its document this one); returns it."""
        sentence.document = self
        sentence.index = len(self.sentences)
        self.sentences.append(sentence)
        return sentence

    def nodes(self) -> Iterator[Node]:
        """Every node of the document in file order: words and empty nodes, sentence after sentence."""
        for sentence in self.sentences:
            yield from sentence.nodes

    @property
    def mentions(self) -> list[Mention]:
        """All mentions in document order."""
        return sorted((m for e in self.entities for m in e.mentions), key=lambda m: m.order)

    def inclusions(self) -> dict[Entity, list[Entity]]:
        """Entity -> the entities that are its parts: its split antecedents, and the antecedents of bridges labelled
        `INCLUDES` from its mentions (a whole with one part). In order of first statement, parts unique."""
        parts: dict[Entity, list[Entity]] = {}
        for split in self.split_antecedents:
            listed = parts.setdefault(split.entity, [])
            listed.extend(a for a in split.antecedents if a not in listed)
        for bridge in self.bridges:
            if bridge.label == INCLUDES and bridge.anaphor.entity is not None:
                listed = parts.setdefault(bridge.anaphor.entity, [])
                if bridge.antecedent not in listed:
                    listed.append(bridge.antecedent)
        return parts

    def entity(self, entity_id: str) -> Entity | None:
        """The entity with this id, or None."""
        for entity in self.entities:
            if entity.id == entity_id:
                return entity
        return None

    # -- coreference edits ----------------------------------------------------------------------------------------
    def new_entity(self, entity_id: str | None = None, type: str | None = None, **attrs: str) -> Entity:
        """Create an empty entity; its id must be new in the document (a fresh one is made when not given)."""
        taken = {e.id for e in self.entities}
        if entity_id is None:
            n = len(self.entities) + 1
            while f"e{n}" in taken:
                n += 1
            entity_id = f"e{n}"
        elif entity_id in taken:
            raise ModelError(f"entity id {entity_id!r} already exists in document {self.id!r}")
        entity = Entity(entity_id, type, dict(attrs), document=self)
        self.entities.append(entity)
        return entity

    def add_mention(
        self,
        entity: Entity,
        words: Iterable[Node],
        head: Node | None = None,
        link: str | None = None,
        **attrs: str,
    ) -> Mention:
        """Add a mention of ``entity`` over ``words`` (any order; they must lie in one sentence of this document)."""
        nodes = sorted(set(words), key=lambda n: n.order)
        if not nodes:
            raise ModelError("a mention needs at least one node")
        sentence = nodes[0].sentence
        if sentence is None or sentence.document is not self or any(n.sentence is not sentence for n in nodes):
            raise ModelError("a mention's nodes must all lie in one sentence of this document")
        if entity.document is not self:
            raise ModelError(f"entity {entity.id!r} does not belong to document {self.id!r}")
        if head is not None and head not in nodes:
            raise ModelError("the head must be one of the mention's nodes")
        mention = Mention(nodes, entity, head, link, dict(attrs))
        self._attach(mention)
        return mention

    def _attach(self, mention: Mention) -> None:
        """Insert a fully built mention into its entity (document order) and its nodes' mention lists."""
        entity = mention.entity
        assert entity is not None
        keys = [m.order for m in entity.mentions]
        entity.mentions.insert(bisect.bisect_right(keys, mention.order), mention)
        for node in mention.words:
            node.mentions += (mention,)

    def remove_mention(self, mention: Mention) -> list[Change]:
        """Remove a mention. Bridges whose anaphor it is go with it; a split antecedent anchored at it falls back
        to its entity's first mention. If it was its entity's last mention the entity is removed too, see
        `remove_entity`."""
        entity = mention.entity
        if entity is None or mention not in entity.mentions:
            raise ModelError("the mention does not belong to this document")
        changes: list[Change] = []
        entity.mentions.remove(mention)
        _detach(mention)
        kept = []
        for bridge in self.bridges:
            if bridge.anaphor is mention:
                changes.append(Change("bridge removed", f"anaphor {mention.text!r} -> {bridge.antecedent.id}"))
            else:
                kept.append(bridge)
        self.bridges = kept
        for split in self.split_antecedents:
            if split.anchor is mention:
                split.anchor = None
        if not entity.mentions:
            changes.extend(self.remove_entity(entity))
        mention.entity = None
        return changes

    def remove_entity(self, entity: Entity) -> list[Change]:
        """Remove an entity with all its mentions. Relations that point to it lose that end: a bridge with it as
        antecedent is removed; it leaves the antecedent lists of split antecedents, and a split antecedent left
        with fewer than two antecedents (CorefUD requires two), or whose own entity it is, is removed."""
        changes: list[Change] = []
        for mention in list(entity.mentions):
            entity.mentions.remove(mention)
            _detach(mention)
            mention.entity = None
        if entity in self.entities:
            self.entities.remove(entity)
        kept_bridges = []
        for bridge in self.bridges:
            if bridge.antecedent is entity or bridge.anaphor.entity is None:
                changes.append(Change("bridge removed", f"{bridge.anaphor.text!r} -> {bridge.antecedent.id}"))
            else:
                kept_bridges.append(bridge)
        self.bridges = kept_bridges
        kept_splits = []
        for split in self.split_antecedents:
            if split.entity is entity:
                changes.append(Change("split antecedent removed", f"entity {entity.id} removed"))
                continue
            if entity in split.antecedents:
                split.antecedents = [a for a in split.antecedents if a is not entity]
                if len(split.antecedents) < 2:
                    changes.append(Change("split antecedent removed",
                                          f"{split.entity.id}: fewer than two antecedents left"))
                    continue
                changes.append(Change("split antecedent shrunk", f"{split.entity.id} lost antecedent {entity.id}"))
            kept_splits.append(split)
        self.split_antecedents = kept_splits
        return changes

    def merge_entities(self, keep: Entity, absorbed: Entity) -> list[Change]:
        """Move every mention of ``absorbed`` into ``keep`` and retarget relations; ``absorbed`` disappears.

        Every mention whose type changes with it is a change (``keep``'s type wins; where ``keep`` has none it takes
        ``absorbed``'s), and so is every field of ``absorbed`` that ``keep`` has with another value (``keep``'s
        wins).

        Relations that become reflexive (a mention bridging to its own entity, an entity split from itself) are
        removed and reported; duplicate antecedents collapse to one, and a split antecedent left with fewer than
        two is removed.
        """
        if keep is absorbed:
            return []
        changes: list[Change] = []
        if keep.type is None and absorbed.type is not None:
            for mention in keep.mentions:
                if mention.etype is None:
                    changes.append(Change("mention type changed", f"{mention.text!r}: None -> {absorbed.type}"))
            keep.type = absorbed.type
        for mention in absorbed.mentions:
            mention.entity = keep
            if mention.etype is None and absorbed.type != keep.type:
                changes.append(Change("mention type changed", f"{mention.text!r}: {absorbed.type} -> {keep.type}"))
        keep.mentions = sorted(keep.mentions + absorbed.mentions, key=lambda m: m.order)
        absorbed.mentions = []
        for key, value in absorbed.attrs.items():
            if keep.attrs.setdefault(key, value) != value:
                changes.append(Change("entity field dropped", f"{absorbed.id} {key}={value} ({keep.id} has "
                                                               f"{keep.attrs[key]})"))
        self.entities.remove(absorbed)
        kept_bridges = []
        for bridge in self.bridges:
            if bridge.antecedent is absorbed:
                bridge.antecedent = keep
            if bridge.anaphor.entity is bridge.antecedent:
                changes.append(Change("bridge removed", f"{bridge.anaphor.text!r} bridges to its own entity"))
            else:
                kept_bridges.append(bridge)
        self.bridges = kept_bridges
        kept_splits = []
        for split in self.split_antecedents:
            if split.entity is absorbed:
                split.entity = keep
            antecedents: list[Entity] = []
            for antecedent in split.antecedents:
                antecedent = keep if antecedent is absorbed else antecedent
                if antecedent not in antecedents:
                    antecedents.append(antecedent)
            split.antecedents = antecedents
            if split.entity in split.antecedents:
                changes.append(Change("split antecedent removed", f"{split.entity.id} is its own antecedent"))
            elif len(antecedents) < 2:
                changes.append(Change("split antecedent removed", f"{split.entity.id}: antecedents merged into one"))
            else:
                kept_splits.append(split)
        self.split_antecedents = kept_splits
        return changes

    def split_entity(self, entity: Entity, mentions: Iterable[Mention], new_id: str | None = None) -> Entity:
        """Move ``mentions`` of ``entity`` into a new entity of the same type and attributes and return it.

        Bridges follow their anaphor mention; relations pointing at ``entity`` as a whole stay with it.
        """
        moving = list(mentions)
        if any(m.entity is not entity for m in moving):
            raise ModelError(f"every mention to split off must belong to entity {entity.id!r}")
        if len(moving) >= len(entity.mentions):
            raise ModelError("splitting off every mention would leave the entity empty")
        new = self.new_entity(new_id, entity.type, **entity.attrs)
        for mention in moving:
            entity.mentions.remove(mention)
            mention.entity = new
        new.mentions = sorted(moving, key=lambda m: m.order)
        for split in self.split_antecedents:
            if split.entity is entity and split.anchor in moving:
                split.anchor = None
        return new

    def set_words(self, mention: Mention, words: Iterable[Node], head: Node | None = None) -> None:
        """Give a mention other nodes (one sentence of this document); the head must be one of them."""
        nodes = sorted(set(words), key=lambda n: n.order)
        if not nodes or any(n.sentence is not nodes[0].sentence or n.sentence is None for n in nodes):
            raise ModelError("a mention's nodes must all lie in one sentence of this document")
        if nodes[0].sentence.document is not self:  # type: ignore[union-attr]
            raise ModelError("a mention's nodes must all lie in one sentence of this document")
        if head is not None and head not in nodes:
            raise ModelError("the head must be one of the mention's nodes")
        entity = mention.entity
        if entity is None or mention not in entity.mentions:
            raise ModelError("the mention does not belong to this document")
        _detach(mention)
        entity.mentions.remove(mention)
        mention.words = nodes
        mention.head = head
        self._attach(mention)

    def move_head(self, mention: Mention, head: Node | None) -> None:
        """Set the mention's head (None: unknown); it must be one of the mention's nodes."""
        if head is not None and head not in mention.words:
            raise ModelError(f"{head!r} is not a node of mention {mention!r}")
        mention.head = head

    def add_bridge(self, anaphor: Mention, antecedent: Entity, label: str | None = None) -> Bridge:
        """A bridging link from the mention ``anaphor`` to another entity of this document (CorefUD's
        ``Bridge=e2<e5:part``: ``label`` is the relation); ModelError where an end is elsewhere or the same entity."""
        if anaphor.entity is None or anaphor.entity.document is not self or antecedent.document is not self:
            raise ModelError("bridge ends must belong to this document")
        if anaphor.entity is antecedent:
            raise ModelError("a mention cannot bridge to its own entity")
        bridge = Bridge(anaphor, antecedent, label)
        self.bridges.append(bridge)
        return bridge

    def add_split_antecedent(
        self, entity: Entity, antecedents: Iterable[Entity], anchor: Mention | None = None
    ) -> SplitAntecedent:
        """Say that ``entity`` (a plural: "they") has two or more other entities as its split antecedents
        (CorefUD's ``SplitAnte``), written at ``anchor`` (default: the entity's first mention); ModelError
        otherwise."""
        members = list(antecedents)
        if len(set(members)) < 2 or entity in members:
            raise ModelError("a split antecedent needs two or more antecedents other than the entity itself")
        if any(e.document is not self for e in [entity, *members]):
            raise ModelError("split antecedent entities must belong to this document")
        if anchor is not None and anchor.entity is not entity:
            raise ModelError("the anchor must be a mention of the entity")
        split = SplitAntecedent(entity, members, anchor)
        self.split_antecedents.append(split)
        return split


def _detach(mention: Mention) -> None:
    for node in mention.words:
        node.mentions = tuple(m for m in node.mentions if m is not mention)


@dataclass(eq=False)
class Corpus:
    """A list of documents plus free metadata (name, source files, language), and ``report``: what reading it
    dropped or changed, and the files the reader opened (`Report`)."""

    documents: list[Document] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    report: Report = field(default_factory=Report, repr=False)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    def release(self) -> None:
        """Empty the corpus and break its internal references, so that it is freed at once by reference counting
        rather than later by the garbage collector (the model is full of parent pointers, hence cycles). For batch
        conversion, which is done with each corpus after writing it."""
        # Only links that close cycles need cutting: sentence -> nodes (nodes point back to their sentence),
        # including the sentence's id index,
        # mention -> words (words point back through node.mentions) and the entity/document parent links.
        for document in self.documents:
            for sentence in document.sentences:
                sentence.release()
            for entity in document.entities:
                for mention in entity.mentions:
                    mention.entity = None
                    mention.words = []
                    mention.head = None
                entity.mentions = []
                entity.document = None
            document.sentences = []
            document.entities = []
            document.bridges = []
            document.split_antecedents = []
        self.documents = []


PART = "/part "  # between a document's name and its CoNLL-2012 part number in the ids the CoNLL-2012 reader gives


def split_part(document_id: str) -> tuple[str, str | None]:
    """``"NAME/part NNN"`` (a CoNLL-2012 part, as the reader names it) -> ``("NAME", "NNN")``; other ids -> ``(id,
    None)``."""
    head, sep, part = document_id.rpartition(PART)
    return (head, part) if sep and part.isdigit() else (document_id, None)


def pairing_key(document_id: str | None) -> tuple[str | None, int]:
    """What documents of two files are paired by (scoring, diff, compare): the name and the part as a number, a
    document without a part being part 0, so that ``X/part 0`` (LitBank), ``X/part 000`` (OntoNotes' three digits)
    and ``X`` (CorefUD) are one document.

    Examples:
        >>> pairing_key("X/part 000") == pairing_key("X/part 0") == pairing_key("X")
        True
    """
    if document_id is None:
        return (None, 0)
    name, part = split_part(document_id)
    return (name, int(part) if part is not None else 0)


# -- heads from the dependency tree -----------------------------------------------------------------------------
# Mention heads for corpora whose annotation gives none (GUM) or to check one that does; here, beside the model,
# because a mention's `Mention.tree_head` is one. The head is the "highest" node of the mention, found the way
# udapi's ``corefud.MoveHead`` finds it (the CorefUD scorer and statistics compute gold heads with that block), so
# that figures computed here agree:
#
# 1. nodes whose basic parent lies outside the mention; if there is one, it is the head;
# 2. among those, nodes none of whose enhanced parents (DEPS, or the basic parent where DEPS is empty) lie inside;
#    failing that, nodes not all of whose enhanced parents lie inside; failing that, the annotated head;
# 3. where several remain, the root of the smallest basic subtree holding their non-empty nodes (an empty node
#    stands in by its first non-empty enhanced parent), found as udapi finds it (`_treelet_root`), if it is
#    one of them;
# 4. else the annotated head if it is one of them, else the first of them in word order.
#
# Without a tree (HEAD "_"), there is nothing to compute and the result is None.

def ud_head(mention: Mention, parents: list[Node | None] | None = None) -> Node | None:
    """The mention's head by the rules above; the annotated head where the mention has one word. ``parents``
    (the basic parent of each word, if the caller has them already) saves looking them up again."""
    words = mention.words
    if len(words) == 1:
        return words[0]
    if parents is None:
        parents = [w.parent for w in words]
    # No tree: every word's HEAD empty (each parent is then None, so that is looked at only where all are).
    if parents.count(None) == len(parents) and all(w.head in ("_", "") for w in words if not w.is_empty):
        return mention.head
    inside = set(map(id, words))
    basic = [w for w, parent in zip(words, parents) if parent is None or id(parent) not in inside]
    if len(basic) == 1:
        return basic[0]
    candidates = [w for w in basic if not any(id(p) in inside for p in _enhanced_parents(w))]
    if not candidates:
        candidates = [w for w in basic if not all(id(p) in inside for p in _enhanced_parents(w))]
        if not candidates:
            return mention.head or words[0]
    if len(candidates) == 1:
        return candidates[0]
    stand_ins: list[Node] = []
    for node in candidates:
        if node.is_empty:
            parents = [p for p in _enhanced_parents(node) if not p.is_empty]
            if parents and parents[0] not in stand_ins:
                stand_ins.append(parents[0])
        elif node not in stand_ins:
            stand_ins.append(node)
    highest = _treelet_root(sorted(stand_ins, key=lambda n: n.order))
    if highest is not None and any(highest is c for c in candidates):
        return highest
    if mention.head is not None and any(mention.head is c for c in candidates):
        return mention.head
    return candidates[0]


def tree_head(mention: Mention) -> Node | None:
    """The mention's annotated head, else the highest of its words in the tree (udapi's corefud.MoveHead), else
    the word of a one-word mention; None: no annotation and no tree."""
    return mention.head if mention.head is not None else ud_head(mention)


def _enhanced_parents(node: Node) -> list[Node]:
    if node.deps not in ("_", "") and node.sentence is not None:
        parents = []
        for item in node.deps.split("|"):
            parent_id = item.split(":", 1)[0]
            parent = node.sentence.word(parent_id) if parent_id != "0" else None
            if parent is not None:
                parents.append(parent)
        return parents
    parent = node.parent
    return [parent] if parent is not None else []


def _treelet_root(nodes: list[Node]) -> Node | None:
    """The root of the smallest subtree holding ``nodes`` as udapi's ``find_minimal_common_treelet`` finds it, which
    the CorefUD scorer's heads depend on: the nodes climb one step each in turn (a queue), a node reached a second
    time is sure to be in the treelet and stops that climb; once one climber is left (or the root was reached), the
    answer is that node, or, where it is not sure, the node it was first reached from, and so on down. When the
    root is reached before every branch has met, this stops below the true common ancestor (e.g. at a mention word
    whose parent was reached first): exactly what the scorer does. None: the tree's root (no word governs all)."""
    root = object()  # the technical root above every HEAD 0 (and every unknown HEAD)
    reached_from: dict[int, object] = {id(node): _SURE for node in nodes}
    queue: deque = deque(nodes)
    highest: object | None = None
    while len(queue) > 1:
        node = queue.popleft()
        if node is root:
            highest = root
            continue
        parent = node.parent or root
        if id(parent) in reached_from:
            reached_from[id(parent)] = _SURE
        else:
            reached_from[id(parent)] = node
            queue.append(parent)
    highest = highest or queue[0]
    while reached_from[id(highest)] is not _SURE:
        highest = reached_from[id(highest)]
    return None if highest is root else highest  # type: ignore[return-value]


_SURE = object()
