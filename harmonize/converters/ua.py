"""CoNLL-UA (Universal Anaphora): CoNLL-U with anaphora columns, reader and writer.

A file declares its columns (``# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY
BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM``; without the line, those fifteen), one token a line, columns
separated by tabs or aligned with spaces as in the UA scorer's tests; ``# newdoc id = ...`` starts a document.

In the model (mapped here, in one place):

* ID .. MISC: the CoNLL-U columns of the node; an ID with a dot (``14.1``) is an empty node (a zero).
* IDENTITY: markables ``(EntityID=1|MarkableID=markable_1|Min=2|SemType=dn`` opened on their first token and
  closed by a bare ``)`` on their last (the last opened closes first), ``(...)`` on one token. A markable is a
  mention of the entity ``EntityID``; a MarkableID met in several brackets is a discontinuous mention (CRAFT).
  ``MarkableID``, ``SemType`` and any other key are mention attributes, kept in their order; ``Min`` (the minimal
  span, 1-based token numbers of the document) of one token inside the markable is its head, a longer one the
  attribute ``Min``; ``EntityType`` (harmonize's key: UA has no column for it) the entity's type. An ``EntityID``
  ending in ``-Pseudo`` is a non-referring markable (expletive, predicative): its entity keeps that id.
  ``ElementOf=4,5`` says the markable's entity is an element of the plural entities 4 and 5: an entity with two or
  more elements gets a split antecedent, one with a single element a bridge labelled ``element-of`` (CorefUD's
  SplitAnte needs two). A markable over several sentences follows ``-I cross_sentence=``: ``parts`` (the default: a
  mention per sentence, all with its MarkableID, written back as it was), ``first-part`` or ``drop``; counted.
* BRIDGING: ``(MarkableID=markable_9|MentionAnchor=markable_2)`` on the anaphor's first token: a bridge from that
  markable to the entity of the anchor markable (the anchor's MarkableID is kept with the document, so that the
  bridge is written back to it; a bridge from elsewhere goes to its antecedent's nearest mention before the anaphor).
* DISCOURSE_DEIXIS, REFERENCE, NOM_SEM: not in the model; each token line is kept as read, so they are written
  back to UA unchanged, and the report counts the tokens that had them (other formats do not get them).

The writer writes a document read from UA with its lines as read wherever the model still renders its IDENTITY and
BRIDGING cells the same, and rebuilds a line's cells otherwise (other columns kept); documents from other formats
get the fifteen columns, tab-separated: IDENTITY and BRIDGING from the model (EntityID; MarkableID made from the
mention's order where it has none, counted; Min from the head; EntityType on an entity's first markable), the other
columns ``_``, ``# sent_id``, ``# text`` and ``# speaker`` from the sentence, each multiword token as a comment line
``# multiword = 2-3<TAB>del<TAB>_ ...`` before the sentence's words (the UA scorer reads every line that is not a
comment as a word, so a CoNLL-U range line would shift its word numbers; the reader takes the comment back as the
token); entity attributes, link types, a mention's own type, document fields and heads on zeros have no place and
are counted, and so are
a split antecedent's anchor (read back at its entity's first mention) and a zero in a markable of several tokens
(left out: UA's reader takes a zero as a markable of its own). Closing brackets are bare (``)``, the last opened closes first). Markables that
cross (one opens inside another and closes after it) cannot be written so: ``crossing="drop"`` (the default) leaves
out each markable that crosses one kept before it, in document order, and counts it with what goes along (a bridge
from it, an entity left without markables), since ua-scorer.py reads closings by their count alone;
``crossing="named"`` writes closings that name their markables (``markable_1)``), as the UA test cases in the
CorefUD scorer's repository write crossing markables (and our reader reads), for tools other than ua-scorer.py. A
document read with named closings keeps them.
"""

from __future__ import annotations

import re
from copy import deepcopy
from pathlib import Path

from harmonize.converters.choices import CROSS_SENTENCE_POLICIES, UA_CROSSING_POLICIES
from harmonize.converters.corefud import into_other, misc_text
from harmonize.converters.corefud_values import escape_value, unescape_value
from harmonize.converters.losses import Holds, report_unheld
from harmonize.converters.sentence_comments import (
    comment_lines,
    document_field_lines,
    misplaced_multiwords,
    multiword_from_comment,
    read_comment_lines,
    read_document_fields,
)
from harmonize.errors import Problems, Report, check_choice
from harmonize.io import atomic_write_text, paused_gc, read_text
from harmonize.schemas.model import (
    Corpus,
    Document,
    Entity,
    Mention,
    MultiwordToken,
    Node,
    Sentence,
    made_sentence_id,
)

COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC", "IDENTITY", "BRIDGING",
           "DISCOURSE_DEIXIS", "REFERENCE", "NOM_SEM")
CONLLU = COLUMNS[:10]
KEPT_WITH_LINE = ("DISCOURSE_DEIXIS", "REFERENCE", "NOM_SEM")
NON_REFERRING = "-Pseudo"
ELEMENT_OF = "element-of"
ENTITY_TYPE = "EntityType"  # harmonize's markable attribute for the entity type (UA has no column for it)
META_LINES = "ua lines"  # document.meta: (sentence index, node id) -> the line as read, cut into fields
META_HEADER = "ua header"  # document.meta: the comment lines before the first sentence, as read
META_DECLARED = "ua columns"  # document.meta: the columns its file declared
META_OPEN_END = "ua open end"  # document.meta: its last sentence has no blank line after it
META_OPENINGS = "ua openings"  # document.meta: MarkableID -> each of its brackets' attributes as read
META_ANCHORS = "ua anchors"  # document.meta: anaphor MarkableID -> its bridge's anchor MarkableID, as read
META_NAMED_CLOSINGS = "ua named closings"  # document.meta: closing brackets name their markables (markable_1))
_FIELD = re.compile(r"\S+")


def read_ua(path: str | Path, lenient: bool = False, report: Report | None = None,
            cross_sentence: str = "parts") -> Corpus:
    """A CoNLL-UA file as a corpus (see the module)."""
    report = report if report is not None else Report()
    with paused_gc():
        return parse_ua(read_text(path, report), str(path), lenient, report, cross_sentence)


def parse_ua(text: str, path: str = "<string>", lenient: bool = False, report: Report | None = None,
             cross_sentence: str = "parts") -> Corpus:
    check_choice("cross_sentence", cross_sentence, CROSS_SENTENCE_POLICIES)
    report = report if report is not None else Report()
    reader = _Reader(path, Problems(path, lenient, report), cross_sentence)
    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    for number, line in enumerate(lines, 1):
        reader.line(number, line)
    reader.end_document()
    return Corpus(reader.documents, meta={"source": path})


class _Reader:
    def __init__(self, path: str, problem: Problems, cross_sentence: str) -> None:
        self.path = path
        self.problem = problem
        self.cross_sentence = cross_sentence
        self.columns: tuple[str, ...] = COLUMNS
        self.documents: list[Document] = []
        self.document: Document | None = None
        self.header: list[str] = []  # comment lines before a document's first sentence
        self.comments: list[str] = []
        self.multiwords: list[tuple[int, MultiwordToken]] = []  # (line, token) from "# multiword" comments
        self.sentence: Sentence | None = None
        self.markables: dict[str, dict] = {}  # MarkableID -> {"entity", "attrs", "parts": [[nodes]], "line"}
        self.stack: list[tuple[str, int]] = []  # open (MarkableID, part index)
        self.bridges: list[tuple[str, str, int]] = []  # (anaphor MarkableID, anchor MarkableID, line)

    # -- lines ---------------------------------------------------------------------------------------------------

    def line(self, number: int, line: str) -> None:
        if line.startswith("#"):
            self.comment(number, line)
        elif not line.strip():
            self.end_sentence(closed=True)
        else:
            self.token(number, line)

    def comment(self, number: int, line: str) -> None:
        if line.startswith("# global.columns"):
            names = tuple(line.partition("=")[2].split())
            if "ID" not in names or "IDENTITY" not in names:
                self.problem(number, "global.columns without ID or IDENTITY", line)
                return
            self.columns = names
            self.header.append(line)
        elif line.startswith("# newdoc"):
            self.end_document()
            self.document = self.new_document(line.partition("=")[2].strip() or None)
            self.header.append(line)
            if line != f"# newdoc id = {self.document.id}":
                self.comments.append(line)  # as CorefUD's reader keeps it: written back as it was, whatever the format
        elif self.sentence is None and self.document is None:
            self.header.append(line)
        elif (token := multiword_from_comment(line)) is not None:
            self.multiwords.append((number, token))
        else:
            self.comments.append(line)

    def token(self, number: int, line: str) -> None:
        fields = line.split("\t") if "\t" in line else _FIELD.findall(line)
        identity_at = self.columns.index("IDENTITY")
        if len(fields) > len(self.columns) or len(fields) <= identity_at:
            self.problem(number, "columns that disagree with global.columns",
                         f"{len(fields)} fields, {len(self.columns)} declared")
            return
        if self.document is None:
            self.document = self.new_document(None)
        if self.sentence is None:
            self.start_sentence()
        assert self.sentence is not None and self.document is not None
        values = dict(zip(self.columns, fields))
        node_id = values["ID"]
        conllu = "\t".join(values.get(name, "_") for name in CONLLU)
        node = self.sentence.add_node(Node.from_line(conllu, node_id))
        self.document.meta[META_LINES][(self.sentence.index, node_id)] = (line, fields)
        kept = [name for name in KEPT_WITH_LINE if values.get(name, "_") not in ("_", "")]
        for name in kept:
            self.problem.report.add(f"UA {name} kept with its line only (written back to UA, not to other formats)",
                                    f"{self.path}:{number}")
        self.identity(number, node, values.get("IDENTITY", "_"))
        bridging = values.get("BRIDGING", "_")
        if bridging not in ("_", ""):
            for item in bridging.split("(")[1:]:
                info = _attributes(item.rstrip(")"))
                if "MarkableID" not in info or "MentionAnchor" not in info:
                    self.problem(number, "bridging without MarkableID or MentionAnchor", bridging)
                    continue
                self.bridges.append((info["MarkableID"], info["MentionAnchor"], number))

    def identity(self, number: int, node: Node, cell: str) -> None:
        if cell in ("_", ""):
            return
        assert self.document is not None
        closings, openings = markable_cell(cell)
        if closings and node.is_empty:
            self.problem(number, "a zero closes a markable", cell)
        if any(closings):  # closings that name their markables (crossing markables): markable_1)
            self.document.meta[META_NAMED_CLOSINGS] = True
        for markable in closings:
            open_parts = [i for i, (m, _p) in enumerate(self.stack) if markable is None or m == markable]
            if not open_parts:
                self.problem(number, "unbalanced markable brackets",
                             f"{cell!r}: {markable} is not open" if markable else f"{cell!r}: nothing open to close")
                return
            name, part = self.stack.pop(open_parts[-1])
            self.markables[name]["parts"][part].append(node)
        for opening, single in openings:
            info = _attributes(opening)
            if "MarkableID" not in info or "EntityID" not in info:
                self.problem(number, "a markable without EntityID or MarkableID", opening)
                continue
            if info["EntityID"].endswith(escape_value(NON_REFERRING)):
                self.problem.report.add("UA non-referring markable (EntityID ...-Pseudo): an entity of its own",
                                        f"{self.path}:{number}")
            markable = info["MarkableID"]
            entry = self.markables.setdefault(markable, {"entity": info["EntityID"], "attrs": info, "parts": [],
                                                          "line": number})
            if entry["entity"] != info["EntityID"]:
                self.problem(number, "one MarkableID in two entities", markable)
                continue
            entry["parts"].append([node])
            self.document.meta[META_OPENINGS].setdefault(markable, []).append(opening)
            if not single:
                if node.is_empty:
                    self.problem(number, "a zero opens a markable of several tokens", opening)
                    entry["parts"].pop()
                    continue
                self.stack.append((markable, len(entry["parts"]) - 1))

    # -- structure -----------------------------------------------------------------------------------------------

    def new_document(self, document_id: str | None) -> Document:
        document = Document(id=document_id, source=self.path)
        document.meta[META_LINES] = {}
        document.meta[META_DECLARED] = self.columns
        document.meta[META_OPENINGS] = {}
        return document

    def start_sentence(self) -> None:
        assert self.document is not None
        self.sentence = self.document.add_sentence(Sentence())
        read_comment_lines(self.sentence, self.comments)
        if self.sentence.id is None:
            self.sentence.id = made_sentence_id(self.document.id or "document", self.sentence.index + 1)
        self.comments = []

    def end_sentence(self, closed: bool = False) -> None:
        """The sentence ends (``closed``: at a blank line; else at the end of the document or file, which the writer
        keeps)."""
        if self.sentence is None:
            return
        assert self.document is not None
        self.document.meta[META_OPEN_END] = not closed
        lines = {id(token): number for number, token in self.multiwords}
        for token in misplaced_multiwords(self.sentence, (token for _number, token in self.multiwords)):
            self.problem(lines[id(token)], "multiword token over words the sentence does not have", token.id)
        self.multiwords = []
        if self.stack:
            for markable, _part in self.stack:
                self.problem(self.markables[markable]["line"], "unbalanced markable brackets",
                             f"{markable} is still open at the end of its sentence")
                self.markables[markable]["parts"].pop()
            self.stack = []
        self.sentence = None

    def end_document(self) -> None:
        self.end_sentence()
        if self.document is None:
            return
        document = self.document
        document.meta[META_HEADER] = self.header
        self.header = []
        read_document_fields(document)
        self.build(document)
        self.documents.append(document)
        self.document = None
        self.markables = {}
        self.bridges = []

    def build(self, document: Document) -> None:
        """Entities, mentions, split antecedents and bridges from the markables read."""
        entities: dict[str, Entity] = {}
        mentions: dict[str, Mention] = {}
        elements: dict[str, list[str]] = {}  # plural entity id -> its element entity ids, in order
        numbers = _word_numbers(document)
        for markable, entry in self.markables.items():
            parts = [part for part in entry["parts"] if part]
            if not parts:
                continue
            by_sentence: dict[int, list[list[Node]]] = {}
            for part in parts:
                by_sentence.setdefault(part[0].sentence.index, []).append(part)  # type: ignore[union-attr]
            if len(by_sentence) > 1:
                self.problem.report.add(f"a markable over several sentences ({self.cross_sentence})",
                                        f"{self.path}:{entry['line']}: {markable}")
                if self.cross_sentence == "drop":
                    continue
            groups = list(by_sentence.values())
            if self.cross_sentence == "first-part":
                groups = groups[:1]
            entity_id = entry["entity"]
            entity = entities.get(entity_id) or document.new_entity(entity_id)
            entities[entity_id] = entity
            attrs = {k: v for k, v in entry["attrs"].items() if k not in ("EntityID", "ElementOf", ENTITY_TYPE)}
            if ENTITY_TYPE in entry["attrs"] and entity.type is None:
                entity.type = entry["attrs"][ENTITY_TYPE]
            for group in groups:
                words = _span(group)
                head = _min_head(attrs.get("Min"), words, numbers)
                mention = document.add_mention(entity, words, head,
                                               **{k: v for k, v in attrs.items() if k != "Min" or head is None})
                mentions.setdefault(markable, mention)
            for plural in filter(None, entry["attrs"].get("ElementOf", "").split(",")):
                mentions[markable].attrs.setdefault("ElementOf", entry["attrs"]["ElementOf"])
                elements.setdefault(plural, [])
                if entity_id not in elements[plural]:
                    elements[plural].append(entity_id)
        for plural, members in elements.items():
            if plural not in entities or any(m not in entities for m in members):
                self.problem(None, "an ElementOf naming no entity", f"{plural}: {', '.join(members)}")
                continue
            if len(members) >= 2:
                document.add_split_antecedent(entities[plural], [entities[m] for m in members])
            else:
                anchor = next(m for m in entities[members[0]].mentions if "ElementOf" in m.attrs)
                document.add_bridge(anchor, entities[plural], ELEMENT_OF)
        for anaphor, anchor, number in self.bridges:
            if anaphor not in mentions or anchor not in mentions:
                self.problem(number, "a bridging anchor to a missing markable", f"{anaphor} -> {anchor}")
                continue
            if mentions[anchor].entity is mentions[anaphor].entity:
                self.problem(number, "a bridge inside one entity", f"{anaphor} -> {anchor}")
                continue
            document.add_bridge(mentions[anaphor], mentions[anchor].entity)  # type: ignore[arg-type]
            document.meta.setdefault(META_ANCHORS, {})[anaphor] = anchor


def markable_cell(cell: str) -> tuple[list[str | None], list[tuple[str, bool]]]:
    """A markable column's cell cut into the markables it closes (each one's name where closings name them,
    ``markable_3)``; None for a bare ``)``, which closes the last opened), then the brackets it opens: each one's
    ``key=value|...`` text and whether it closes on the same token."""
    closings, *openings = cell.split("(")
    closed: list[str | None] = [name for name in closings.split(")") if name] if closings.strip(")") else (
        [None] * len(closings))
    return closed, [(opening.removesuffix(")"), opening.endswith(")")) for opening in openings]


def _anchor_mention(bridge, markable_id, anchors: dict[str, str]) -> Mention | None:
    """A bridge's anchor markable: the antecedent's mention whose MarkableID (``markable_id(mention)``) ``anchors``
    gives the anaphor's (as read from UA), else the antecedent's nearest mention before the anaphor, else its
    first."""
    wanted = anchors.get(markable_id(bridge.anaphor))
    named = next((m for m in bridge.antecedent.mentions if markable_id(m) == wanted), None) if wanted else None
    if named is not None:
        return named
    before = [m for m in bridge.antecedent.mentions if m.order < bridge.anaphor.order]
    if before:
        return max(before, key=lambda m: m.order)
    return min(bridge.antecedent.mentions, key=lambda m: m.order, default=None)


def _min_head(value: str | None, words: list[Node], numbers: dict[int, int]) -> Node | None:
    """The word a one-token minimal span (``Min=7``, a document's 1-based token number) names, where it lies in the
    mention: the mention's head. A longer minimal span is no head: it stays the attribute Min."""
    if value is None or not value.isdigit():
        return None
    return next((w for w in words if numbers.get(id(w)) == int(value)), None)


def _attributes(text: str) -> dict[str, str]:
    """A markable's ``key=value`` items; values in the model's (CorefUD's) escaped form: ``5-Pseudo`` is
    ``5%2DPseudo`` there, so that every format can write it."""
    return {item.partition("=")[0]: escape_value(item.partition("=")[2]) for item in text.split("|") if item}


def _span(parts: list[list[Node]]) -> list[Node]:
    """The nodes of a markable's parts (each its first and last node): every node from first to last of a part."""
    words: list[Node] = []
    for part in parts:
        first, last = part[0], part[-1]
        nodes = first.sentence.nodes  # type: ignore[union-attr]
        words.extend(n for n in nodes[first.position:last.position + 1] if not n.is_empty or n is first)
    return sorted({id(w): w for w in words}.values(), key=lambda n: n.position)


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------

def spaces_reason(column: str) -> str:
    """The report reason for white space inside ``column`` written as ``_`` (`_Writer`)."""
    return f"UA: white space inside {column} written as _ (the UA scorer splits lines at any white space)"


def write_ua(corpus: Corpus, path: str | Path, report: Report | None = None, crossing: str = "drop") -> None:
    report = report if report is not None else Report()
    atomic_write_text(path, format_ua(corpus, report, crossing))


def format_ua(corpus: Corpus, report: Report, crossing: str = "drop") -> str:
    """The corpus as CoNLL-UA text; ``crossing``: one of `UA_CROSSING_POLICIES` for documents whose markables
    cross (a document read from UA with named closings keeps them)."""
    check_choice("crossing", crossing, UA_CROSSING_POLICIES)
    lines: list[str] = []
    for number, document in enumerate(corpus.documents):
        named = bool(document.meta.get(META_NAMED_CLOSINGS)) or crossing == "named"
        if not named and _crossing_markables(document):
            document = _without_crossing_markables(document, report)
        lines.extend(_Writer(document, report, first=number == 0, named=named).lines())
    return "\n".join(lines) + ("\n" if lines else "")


CROSSING_LEFT_OUT = ("UA: crossing markables left out (ua-scorer.py's bracket stack cannot read them; "
                     "-O crossing=named writes them with named closings)")
_CROSSING_CHANGES = {"bridge removed": "UA: bridges of crossing markables left out",
                     "split antecedent removed": "UA: split antecedents of crossing markables left out",
                     "split antecedent shrunk": "UA: split antecedents shrunk with crossing markables left out"}
CROSSING_ENTITY_LEFT_OUT = "UA: entities all of whose markables cross others left out"


def _written_parts(mention: Mention) -> list[list[Node]]:
    """The runs of nodes a markable's brackets enclose: its parts, a zero left out of a part of several tokens."""
    parts = []
    for part in mention.parts():
        if len(part) > 1:
            part = [node for node in part if not node.is_empty] or part[:1]
        parts.append(part)
    return parts


def _crossing_markables(document: Document) -> list[Mention]:
    """The markables to leave out so that every bracket nests: in document order (longer first), each one whose
    brackets cross one of a markable kept before it (one opens inside the other and closes after it)."""
    kept: list[tuple[tuple[int, int], tuple[int, int]]] = []
    crossing = []
    for mention in sorted(document.mentions, key=lambda m: m.order):
        spans = [(part[0].order, part[-1].order) for part in _written_parts(mention)]
        if any(a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1] for a, _ in kept for b in spans):
            crossing.append(mention)
        else:
            kept.extend((span, span) for span in spans)
    return crossing


def _without_crossing_markables(document: Document, report: Report) -> Document:
    """A copy of ``document`` without its crossing markables (`_crossing_markables`), each counted with what
    leaving it out takes along."""
    copy = deepcopy(document)
    for mention in _crossing_markables(copy):
        entity = mention.entity
        report.add(CROSSING_LEFT_OUT, f"{document.id}: {mention.text!r}")
        for change in copy.remove_mention(mention):
            report.add(_CROSSING_CHANGES[change.what], f"{document.id}: {change.detail}")
        if entity is not None and entity not in copy.entities:
            report.add(CROSSING_ENTITY_LEFT_OUT, f"{document.id}: {entity.id}")
    return copy


class _Writer:
    def __init__(self, document: Document, report: Report, first: bool, named: bool = False) -> None:
        self.document = document
        self.named = named
        self.report = report
        self.first = first
        self.read = document.meta.get(META_LINES, {})
        self.numbers = _word_numbers(document)
        self.attrs = {id(m): self._unfolded(m) for m in document.mentions}
        self.markable_ids = self._markable_ids()
        self.element_of = self._element_of()
        self._count_losses()

    def _count_losses(self) -> None:
        """What UA markables cannot hold."""
        document, report = self.document, self.report
        for entity in document.entities:
            if entity.attrs:
                report.add("UA: entity attributes not written (markables have no entity level)",
                           f"{document.id}: {entity.id}", len(entity.attrs))
        links = sum(1 for m in document.mentions if m.link is not None)
        if links:
            report.add("UA: mention link types not written", str(document.id), links)
        typed = sum(1 for m in document.mentions if m.etype is not None)
        if typed:
            report.add("UA: a mention's own entity type not written (its entity's is)", str(document.id), typed)
        empty_heads = sum(1 for m in document.mentions if m.head is not None and m.head.is_empty and len(m.words) > 1)
        if empty_heads:
            report.add("UA: heads on empty nodes not written (Min names a token)", str(document.id), empty_heads)
        # UA writes field values unescaped and reads them back in CorefUD's escaping: other escapes change.
        escaped = sum(1 for m in document.mentions for k, v in self.attrs[id(m)].items()
                      if k not in ("MarkableID", "ElementOf") and escape_value(unescape_value(v)) != v)
        if escaped:
            report.add("UA: mention fields whose escaping reads back otherwise", str(document.id), escaped)
        anchors = sum(1 for split in document.split_antecedents if split.anchor is not None
                      and split.entity.mentions and split.anchor is not split.entity.mentions[0])
        if anchors:
            report.add("UA: split antecedent anchors not written (read back at the entity's first mention)",
                       str(document.id), anchors)
        report_unheld(document, _HOLDS, report, "UA", document.mentions)
        mentions = {id(m): m for m in document.mentions}
        element_of = sum(1 for key, plurals in self.element_of.items()
                         if mentions[key].attrs.get("ElementOf") != ",".join(plurals))
        if element_of:
            report.add("UA: ElementOf written on a markable (read back as its field)", str(document.id), element_of)

    def lines(self) -> list[str]:
        document = self.document
        header = document.meta.get(META_HEADER)
        if header is not None:
            lines = list(header)
        else:
            lines = [f"# global.columns = {' '.join(COLUMNS)}"] if self.first else []
            first = document.sentences[0].comments if document.sentences else []
            as_read = (c for c in first if isinstance(c, str) and c.startswith("# newdoc"))  # e.g. a trailing space
            lines.append(next(as_read, f"# newdoc id = {document.id or 'document'}"))
        identity, bridging = self._cells()
        lines.extend(document_field_lines(document))
        for sentence in document.sentences:
            lines.extend(comment_lines(sentence))
            for node in sentence.nodes:
                cells = (identity.get(id(node), "_"), bridging.get(id(node), "_"))
                lines.append(self._line(sentence, node, cells))
            lines.append("")
        if document.meta.get(META_OPEN_END) and lines and lines[-1] == "":
            lines.pop()
        return lines

    def _line(self, sentence: Sentence, node: Node, cells: tuple[str, str]) -> str:
        read = self.read.get((sentence.index, node.id))
        if read is None:
            return "\t".join([*self._conllu_columns(node), *cells, "_", "_", "_"])
        line, fields = read
        names = self.document.meta.get(META_DECLARED, COLUMNS)
        values = dict(zip(names, fields))
        if values.get("IDENTITY", "_") == cells[0] and values.get("BRIDGING", "_") == cells[1] \
                and node.verbatim_line() is not None:
            return line
        values.update({"IDENTITY": cells[0], **({"BRIDGING": cells[1]} if "BRIDGING" in names else {})})
        values.update(dict(zip(CONLLU, self._conllu_columns(node))))
        return "\t".join(values.get(name, "_") for name in names)

    def _conllu_columns(self, node: Node) -> list[str]:
        """ID to MISC, white space inside a value written as ``_`` and counted: the UA scorer (and any reader of
        space-aligned columns) splits a line at every white space, so a MISC value such as GUM's ``XML=<hi
        rend:::"italic">`` would shift every column after it."""
        columns = [*node.columns(), misc_text(node)]
        for index, name in enumerate(CONLLU[1:], 1):
            value = columns[index]
            if not any(character.isspace() for character in value):
                continue
            if name == "MISC":
                items = value.split("|")
                changed = sum(1 for item in items if any(character.isspace() for character in item))
                columns[index] = "|".join("_".join(item.split()) or "_" for item in items)
            else:
                changed, columns[index] = 1, "_".join(value.split()) or "_"
            self.report.add(spaces_reason(name), lambda node=node: f"{self.document.id}: word {node.id} {value!r}",
                            changed)
        return columns

    def _unfolded(self, mention: Mention) -> dict[str, str]:
        """The mention's fields, those our CorefUD writer put into ``other`` (names global.Entity cannot declare,
        as UA's MarkableID; `harmonize.converters.corefud.FIELDS_INTO_OTHER`) taken out as UA attributes again."""
        other = mention.attrs.get("other")
        if not other:
            return mention.attrs
        unfolded: dict[str, str] = {}
        kept = []
        for pair in other.split(","):
            name, sep, value = pair.partition(":")
            if sep and name and name != "ElementOf" and name not in mention.attrs and into_other(name):
                unfolded[name] = value
            else:
                kept.append(pair)
        if not unfolded:
            return mention.attrs
        fields = {}
        for key, value in mention.attrs.items():  # other keeps its place, for the file read to come back as it was
            if key != "other":
                fields[key] = value
            elif kept:
                fields[key] = ",".join(kept)
        fields.update(unfolded)
        moved = len(unfolded)
        self.report.add(FIELDS_OUT_OF_OTHER, f"{self.document.id}: {mention.text!r}", moved + 1)
        return fields

    def _markable_ids(self) -> dict[int, str]:
        ids: dict[int, str] = {}
        attrs = self.attrs
        taken = {attrs[id(m)]["MarkableID"] for m in self.document.mentions if "MarkableID" in attrs[id(m)]}
        made = 0
        for mention in sorted(self.document.mentions, key=lambda m: m.order):
            if "MarkableID" in attrs[id(mention)]:
                ids[id(mention)] = attrs[id(mention)]["MarkableID"]
                continue
            made += 1
            while f"markable_{made}" in taken:
                made += 1
            ids[id(mention)] = f"markable_{made}"
            taken.add(ids[id(mention)])
        if made:
            self.report.add("UA MarkableID made from the mention's order (none annotated)", str(self.document.id), made)
        return ids

    def _element_of(self) -> dict[int, list[str]]:
        """Mention -> the plural entities its entity is an element of: on the mention that carried ElementOf where
        one did, else on the entity's first mention."""
        plurals: dict[int, list[str]] = {}  # entity -> plural entity ids
        for split in self.document.split_antecedents:
            for member in split.antecedents:
                plurals.setdefault(id(member), []).append(split.entity.id)
        for bridge in self.document.bridges:
            if bridge.label == ELEMENT_OF:
                plurals.setdefault(id(bridge.anaphor.entity), []).append(bridge.antecedent.id)
        result: dict[int, list[str]] = {}
        for entity in self.document.entities:
            if id(entity) not in plurals or not entity.mentions:
                continue
            read = {id(m): m.attrs["ElementOf"].split(",") for m in entity.mentions if "ElementOf" in m.attrs}
            if {p for values in read.values() for p in values} == set(plurals[id(entity)]):
                result.update(read)  # as read, on the mentions that carried it
            else:
                result[id(entity.mentions[0])] = plurals[id(entity)]
        return result

    def _attributes(self, mention: Mention) -> str:
        entity = mention.entity
        assert entity is not None
        items = [f"EntityID={unescape_value(entity.id)}",
                 f"MarkableID={unescape_value(self.markable_ids[id(mention)])}"]
        attrs = self.attrs[id(mention)]
        if "Min" not in attrs and mention.head is not None and not mention.head.is_empty:
            items.append(f"Min={self.numbers[id(mention.head)]}")  # a one-token minimal span: the head
        items += [f"{k}={unescape_value(v)}" for k, v in attrs.items() if k not in ("MarkableID", "ElementOf")]
        if entity.type is not None and mention is entity.mentions[0] and not self.read:
            items.append(f"{ENTITY_TYPE}={unescape_value(entity.type)}")
        if id(mention) in self.element_of:
            items.append(f"ElementOf={','.join(unescape_value(e) for e in self.element_of[id(mention)])}")
        return "|".join(items)

    def _cells(self) -> tuple[dict[int, str], dict[int, str]]:
        opening: dict[int, list[tuple[int, str, bool]]] = {}
        closing: dict[int, list[tuple[tuple, str]]] = {}  # node -> (where the part opened, its MarkableID)
        read = self.document.meta.get(META_OPENINGS, {})
        for mention in self.document.mentions:
            attrs = self._attributes(mention)
            parts = mention.parts()
            # A discontinuous markable's brackets may each carry their own attributes (Min): as read while the
            # first still renders so.
            as_read = read.get(self.markable_ids[id(mention)], [])
            per_part = as_read if len(as_read) == len(parts) and as_read[:1] == [attrs] else [attrs] * len(parts)
            if any(node.is_empty for part in parts if len(part) > 1 for node in part):
                # A zero is a markable of its own in UA: one of several tokens is read back as its words.
                self.report.add(ZEROS_LEFT_OUT, f"{self.document.id}: {mention.text!r}")
            for part, part_attrs in zip(parts, per_part):
                if len(part) > 1:
                    part = [node for node in part if not node.is_empty] or part[:1]
                single = len(part) == 1
                opening.setdefault(id(part[0]), []).append((-part[-1].position, part_attrs, single))
                if not single:
                    closing.setdefault(id(part[-1]), []).append((part[0].order, self.markable_ids[id(mention)]))
        # Bare closings pop the last opened markable: where markables cross, closings must name their markables.
        named = bool(self.document.meta.get(META_NAMED_CLOSINGS)) or (
            self.named and bool(_crossing_markables(self.document)))
        identity: dict[int, str] = {}
        for node in self.document.nodes():
            opened = sorted(opening.get(id(node), []), key=lambda item: (item[2], item[0]))
            closed = [markable for _start, markable in sorted(closing.get(id(node), []), reverse=True)]
            cell = ("".join(f"{m})" for m in closed) if named else ")" * len(closed)) + "".join(
                f"({attrs}{')' if single else ''}" for _end, attrs, single in opened)
            if cell:
                identity[id(node)] = cell
        bridging: dict[int, str] = {}
        for bridge in self.document.bridges:
            if bridge.label == ELEMENT_OF:
                continue
            anchor = self._anchor(bridge)
            if anchor is None:
                self.report.add("UA bridge not written (its antecedent entity has no mention)", str(self.document.id))
                continue
            if bridge.label is not None:
                self.report.add("UA: bridge labels not written (UA's bridging names an anchor markable, no relation)",
                                str(self.document.id))
            node = bridge.anaphor.words[0]
            bridging[id(node)] = bridging.get(id(node), "") + (
                f"(MarkableID={unescape_value(self.markable_ids[id(bridge.anaphor)])}|"
                f"MentionAnchor={unescape_value(anchor)})")
        return identity, bridging

    def _anchor(self, bridge) -> str | None:
        chosen = _anchor_mention(bridge, lambda m: self.markable_ids[id(m)], self.document.meta.get(META_ANCHORS, {}))
        return self.markable_ids[id(chosen)] if chosen is not None else None


FIELDS_OUT_OF_OTHER = "UA: fields our CorefUD writer put into other written as markable attributes again"
ZEROS_LEFT_OUT = "UA: zeros in a markable of several tokens left out (UA reads such a markable as its words)"
# What CoNLL-UA keeps of the model besides what the "UA:" reasons above count (link types, a mention's own type,
# entity fields, heads on empty nodes): all but the document's fields and CoNLL-2012's columns.
_HOLDS = Holds(columns=("LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS"), misc=True, sentence_ids=True,
               sentence_text=True, speaker=True, comments=True, multiword_tokens=True, empty_nodes=True, heads=True, entity_types=True,
               mention_types=True, links=True, mention_fields=True, entity_fields=True, bridges=True,
               split_antecedents=True)


def _word_numbers(document: Document) -> dict[int, int]:
    """id(word) -> its 1-based number among the document's words, empty nodes left out (Min's numbering)."""
    words = (node for sentence in document.sentences for node in sentence.nodes if not node.is_empty)
    return {id(word): number for number, word in enumerate(words, 1)}
