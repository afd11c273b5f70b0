"""CorefUD CoNLL-U: reader and writer (the value language they share with other modules is in
`harmonize.converters.corefud_values`; cutting a large file into pieces of whole documents in
`harmonize.converters.corefud_pieces`).

Coreference lives in MISC (CorefUD 1.x):

* ``Entity=`` brackets. ``(e5-person-2`` opens a mention of entity ``e5``, ``e5)`` closes it, ``(e5-person-1)``
  is a one-node mention. The fields of an opening bracket are those the document's ``# global.Entity`` header
  names, in its order: CorefUD ``eid-etype-head-other``, GUM v11 ``GRP-etype-infstat-salience-centering-minspan-
  link-identity``, GUM v7 ``entity-GRP-identity`` (there the eid is the second field, and a closing bracket
  repeats its label: ``abstract-1)``, and hyphens in its last field, ``identity``, are not escaped). A
  discontinuous mention is written as parts
  ``e5[1/2]`` ... ``e5[2/2]``. Field values are kept as written (CorefUD percent-encodes ``-`` and brackets).
* ``Bridge=e3<e5:part`` on the first node of a mention of ``e5``: that mention bridges to entity ``e3``.
* ``SplitAnte=e1<e3,e2<e3`` on the first node of a mention of ``e3``: entity ``e3`` is split into e1 + e2.

Field mapping to the model: the eid field (``eid``, ``GRP``) names the `Entity`; ``etype``/``entity`` is
``Entity.type`` (a mention typed otherwise than its entity's first mention keeps its own as ``Mention.etype``, as
GUM has it) and ``identity`` an entity attribute (entity-level, so conflicting values are an error);
``head`` is the 1-based index of ``Mention.head`` among the mention's nodes; ``link`` is ``Mention.link``; every
other field is a mention attribute.

Heads have a provenance: annotated (``Mention.head``), from the tree (`tree_head`, where none is annotated), or
guessed. CorefUD needs a head on every mention, so a mention of several words with neither is written headed by its
first word (udapi's default), counted in the report, and the document says how many in
``# meta::guessed_heads = N``; the reader reads such a document's N first-word heads as not annotated (where the
count no longer fits the file, it keeps them and says so). `harmonize.scoring.guessed_heads` tells the scorer.

Round trip: what is read is written back byte for byte. Column strings are kept as read; MISC keys keep their
order; the order of brackets on a node is kept while the node's mentions are unchanged, otherwise the writer
orders them so that they nest (openings, longest first; one-node mentions; closings, shortest first), except
that where mentions cross, closings come first: an opening followed by a closing would read as one bracket.
Crossing mentions of one entity, and discontinuous mentions of one entity whose parts interleave, cannot be told
apart in CorefUD (a closing bracket names only the entity): the writer reads such a document back and reports
what would change.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from harmonize.converters.conll2012_lines import other_columns
from harmonize.converters.corefud_pieces import Piece, document_pieces, piece_count, read_piece
from harmonize.converters.corefud_values import (
    DEFAULT_ENTITY_FIELDS,
    EID_FIELDS,
    EMPTY_ID,
    ENTITY_BRACKET,
    ENTITY_LEVEL_FIELDS,
    ETYPE_FIELDS,
    MULTIWORD_ID,
    RELATION_ITEM,
    field_role,
    header_fields,
    opening_fields,
    relation_eid,
    sentence_blocks,
    split_part,
)
from harmonize.converters.losses import unheld_reason
from harmonize.converters.sentence_comments import DOCUMENT_FIELDS
from harmonize.errors import Problems, Report
from harmonize.io import StagedFile, atomic_write_text, paused_gc, read_text
from harmonize.schemas.model import (
    Bridge,
    CommentSlot,
    Corpus,
    Document,
    Entity,
    Mention,
    MultiwordToken,
    Node,
    Sentence,
    SplitAntecedent,
    parse_misc,
    tree_head,
)

HEAD_WRITTEN_FROM_TREE = "mention head written from the tree (none annotated)"
HEAD_WRITTEN_FIRST_WORD = ("mention head written as its first word (none annotated, no tree; counted in the "
                           "document's # meta::guessed_heads, which reads back as no head)")
# A document comment saying how many mentions of several words the writer headed by their first word because they
# had no head and no tree: CorefUD needs a head on every mention, and without it the file could not tell a guessed
# head from an annotated one (head matching would compare guesses). The reader takes the count back: where it is
# the number of such mentions (no tree, headed by their first word), their heads are read as not annotated.
GUESSED_HEADS = "meta::guessed_heads"
HEAD_GUESSED_UNMARKED = ("mention heads written as their first word beside annotated first-word heads (read back "
                         "as annotated)")
GUESSED_HEADS_EDITED = "# meta::guessed_heads that does not count the file's first-word heads (heads kept as written)"


# ---------------------------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------------------------


def read_corefud(
    path: str | Path, lenient: bool = False, report: Report | None = None, coreference: bool = True
) -> Corpus:
    """Read a CorefUD CoNLL-U file into a `Corpus` (one `Document` per ``# newdoc``)."""
    report = report if report is not None else Report()
    return parse_corefud(read_text(path, report), str(path), lenient, report, coreference)


def parse_corefud(
    text: str, path: str = "<string>", lenient: bool = False, report: Report | None = None,
    coreference: bool = True, piece: Piece | None = None,
) -> Corpus:
    """Parse CorefUD CoNLL-U text. Strict by default; ``lenient`` drops broken annotation into ``report``.
    ``coreference=False`` reads the trees only (Entity, Bridge and SplitAnte are left out, their place in MISC
    kept), for a reader that takes coreference from elsewhere (GUM's TSV). ``piece``: the text is that piece of
    the file ``path`` (line numbers and the entity header in force follow from it)."""
    problems = Problems(path, lenient, report if report is not None else Report(),
                        piece.first_line - 1 if piece is not None else 0)
    reader = _Reader(path, problems, coreference, piece.header if piece is not None else None)
    with paused_gc():
        return reader.run(text)


def stream_corefud(path: str | Path, lenient: bool = False, report: Report | None = None,
                   own_header: bool = False) -> Iterator[tuple[Corpus, Piece]]:
    """The documents of a CorefUD file, a piece of whole documents at a time (see `document_pieces`), so that
    memory follows the largest piece rather than the file. Only the piece being read is held (besides the file's
    bytes while it is cut)."""
    path = Path(path)
    report = report if report is not None else Report()
    data = path.read_bytes()
    pieces = document_pieces(data, piece_count(len(data)), own_header)
    del data
    for piece in pieces:
        yield parse_corefud(read_piece(path, piece, report), str(path), lenient, report, piece=piece), piece


_NOTHING_HIDDEN: frozenset[str] = frozenset()


# A bracket opened and not yet closed: (mention being read, start position in the sentence, line number).
_OpenPart = tuple["_MentionRecord", int, int]


class _MentionRecord:
    """A mention being read: its parts as (start, end) positions in the sentence, and its raw fields."""

    __slots__ = ("eid", "fields", "parts", "opened", "total", "line", "mention", "width", "closing_width")

    def __init__(self, eid: str, fields: list[str], total: int, line: int) -> None:
        self.eid = eid
        self.fields = fields
        self.parts: list[tuple[int, int]] = []
        self.opened = 0  # parts opened so far (a part is added to `parts` only when it closes)
        self.total = total
        self.line = line
        self.mention: Mention | None = None
        self.width = len(fields)
        self.closing_width = 0


class _Reader:
    def __init__(self, path: str, problem: Problems, coreference: bool = True, header: str | None = None) -> None:
        self.path = path
        self.problem = problem
        self.coreference = coreference
        self.corpus = Corpus(meta={"source": path})
        self.document: Document | None = None
        self.fields: tuple[str, ...] | None = None
        self.eid_index = 0
        if header is not None:  # a piece of a file: the header in force where it starts (reported there)
            self._use_fields(header_fields(header) or DEFAULT_ENTITY_FIELDS)
        self._start_document(None)

    # -- document and header -----------------------------------------------------------------------------------
    def _start_document(self, doc_id: str | None) -> None:
        self.document = Document(id=doc_id, source=self.path, entity_fields=self.fields)
        self.entities: dict[str, Entity] = {}
        self.pending_bridges: list[tuple[_MentionRecord, str, str | None, int]] = []
        self.pending_splits: list[tuple[_MentionRecord, list[str], int]] = []
        self.guessed_heads: tuple[int, int] | None = None  # (count, line) of a # meta::guessed_heads comment
        self.layouts: list[tuple[Node, list[tuple[_MentionRecord, int, str]]]] = []

    def _set_fields(self, header: str, line: int) -> None:
        names = header_fields(header)
        if names is None:
            self.problem(line, "malformed global.Entity header", f"{header!r} names no eid field or repeats one")
            names = DEFAULT_ENTITY_FIELDS
        self._use_fields(names)
        assert self.document is not None
        self.document.entity_fields = names

    def _use_fields(self, names: tuple[str, ...]) -> None:
        self.fields = names
        self.eid_index = next(i for i, n in enumerate(names) if n in EID_FIELDS)
        # What each field of an opening bracket feeds in the model, computed once per header.
        self.plan = [(i, field_role(name), name) for i, name in enumerate(names) if name not in EID_FIELDS]

    # -- main loop -----------------------------------------------------------------------------------------------
    def run(self, text: str) -> Corpus:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        else:
            self.corpus.meta["final_newline"] = False
        for problem, first, tokens, stop in sentence_blocks(lines):  # line numbers are 1-based
            if problem == "blank line":
                self.problem(first + 1, "unexpected blank line", "blank lines must separate sentences")
            elif problem == "comment":
                self.problem(first + 1, "comment inside a sentence", lines[first])
                lines[first] = ""  # lenient: the comment is dropped and reported
            else:
                if problem == "unterminated":
                    self.problem(stop, "missing blank line at end of file", "the last sentence is not terminated")
                self._sentence(lines, first, tokens, stop)
        self._finish_document()
        return self.corpus

    def _drop_sentence(self, first: int) -> None:
        """Lenient only (strict has raised): a sentence with a broken token line is dropped whole."""
        self.problem.report.add("sentence dropped", f"{self.path}:{first + 1 + self.problem.line_offset}")
        assert self.document is not None
        self.document.sentences.pop()

    def _sentence(self, lines: list[str], first: int, tokens: int, stop: int) -> None:
        sentence = Sentence()
        for index in range(first, tokens):
            if lines[index]:
                self._comment(sentence, index + 1, lines[index])
        if tokens == stop:
            self.problem(first + 1, "sentence without tokens")
            return
        document = self.document
        assert document is not None
        document.add_sentence(sentence)
        nodes = sentence.nodes
        from_line = Node.from_line
        annotated: list[tuple[Node, int, str | None, str | None, str | None]] = []
        for index in range(tokens, stop):
            line = lines[index]
            if not line:
                continue
            if line.count("\t") != 9:
                self.problem(index + 1, "broken token line",
                             f"expected 10 tab-separated columns, found {line.count(chr(9)) + 1}")
                return self._drop_sentence(first)
            node_id = line[: line.index("\t")]
            if not node_id.isdigit():
                if EMPTY_ID.match(node_id) is None:
                    multiword = MULTIWORD_ID.match(node_id)
                    if multiword is None:
                        self.problem(index + 1, "malformed token ID", repr(node_id))
                        return self._drop_sentence(first)
                    columns = line.split("\t")
                    sentence.multiwords.append(
                        MultiwordToken(int(multiword[1]), int(multiword[2]), columns[1], tuple(columns[2:10]))
                    )
                    continue
            node = from_line(line, node_id, sentence, len(nodes))
            nodes.append(node)
            misc = line[line.rindex("\t") + 1 :]
            if "Entity=" in misc or "Bridge=" in misc or "SplitAnte=" in misc:
                values = parse_misc(misc)
                order = tuple(values)
                entity = values.pop("Entity", None)
                bridge = values.pop("Bridge", None)
                split = values.pop("SplitAnte", None)
                node._misc = values  # set directly: the line stays valid until MISC is asked for
                if entity is not None or bridge is not None or split is not None:
                    node.misc_order = order
                    node.coref_read = (entity, bridge, split)
                    if self.coreference:
                        annotated.append((node, index + 1, entity, bridge, split))
        if annotated:
            self._coreference(sentence, annotated)

    def _comment(self, sentence: Sentence, number: int, line: str) -> None:
        body = line[1:].strip()
        key, sep, value = body.partition("=")
        key = key.strip()
        value = value.strip()
        if key == "newdoc" or key.startswith("newdoc "):
            doc_id = value if sep else None
            if self.document is not None and self.document.sentences:
                self._finish_document()
                self._start_document(doc_id)
            else:
                assert self.document is not None
                self.document.id = doc_id
            expected = f"# newdoc id = {doc_id}" if doc_id is not None else "# newdoc"
            sentence.comments.append(CommentSlot.NEWDOC if line == expected else line)
        elif key == "global.Entity" and sep:
            self._set_fields(value, number)
            rendered = f"# global.Entity = {'-'.join(self.fields or ())}"
            sentence.comments.append(CommentSlot.GLOBAL_ENTITY if line == rendered else line)
        elif key == "sent_id" and sep:
            sentence.id = value
            sentence.comments.append(CommentSlot.SENT_ID if line == f"# sent_id = {value}" else line)
        elif key == "text" and sep:
            sentence.text = value
            sentence.comments.append(CommentSlot.TEXT if line == f"# text = {value}" else line)
        elif key == "speaker" and sep and sentence.speaker is None:
            sentence.speaker = value
            sentence.comments.append(CommentSlot.SPEAKER if line == f"# speaker = {value}" else line)
        elif key == GUESSED_HEADS and sep and value.isdigit() and self.document is not None:
            self.guessed_heads = (int(value), number)
        else:
            if key in DOCUMENT_FIELDS and self.document is not None:  # read as GUM writes them
                setattr(self.document, DOCUMENT_FIELDS[key], value)
            sentence.comments.append(line)

    # -- coreference ---------------------------------------------------------------------------------------------
    def _coreference(
        self, sentence: Sentence, annotated: list[tuple[Node, int, str | None, str | None, str | None]]
    ) -> None:
        open_parts: dict[tuple[str, str | None], list[_OpenPart]] = {}
        unfinished: dict[tuple[str, int], list[_MentionRecord]] = {}
        records: list[_MentionRecord] = []
        for node, number, entity_value, bridge_value, split_value in annotated:
            layout: list[tuple[_MentionRecord, int, str]] = []
            starting: dict[str, _MentionRecord] = {}
            if entity_value is not None:
                if self.fields is None:
                    self.problem(number, "missing global.Entity header", "Entity= before any # global.Entity")
                    self._set_fields("-".join(DEFAULT_ENTITY_FIELDS), number)
                for kind, content in self._brackets(entity_value, number):
                    if kind == "close":
                        self._close(content, node, number, open_parts, layout)
                        continue
                    opened = self._open(content, node, number, open_parts, unfinished, records, layout)
                    if opened is not None:
                        record, part_number = opened
                        if part_number == 1:
                            starting.setdefault(record.eid, record)
                        if kind == "single":
                            self._close(self._closing_label(content), node, number, open_parts, layout)
            if len(layout) > 1:  # a lone bracket has no order to keep
                self.layouts.append((node, layout))
            if bridge_value is not None:
                for ante, ana, label in self._relations(bridge_value, "Bridge", number):
                    if ana in starting:
                        self.pending_bridges.append((starting[ana], ante, label, number))
                    else:
                        self.problem(number, "Bridge without anaphor mention", f"no mention of {ana} starts here")
            if split_value is not None:
                groups: dict[str, list[str]] = {}
                for ante, ana, _label in self._relations(split_value, "SplitAnte", number):
                    groups.setdefault(ana, []).append(ante)
                for ana, antes in groups.items():
                    if ana in starting:
                        self.pending_splits.append((starting[ana], antes, number))
                    else:
                        self.problem(number, "SplitAnte without mention", f"no mention of {ana} starts here")
        for stack in open_parts.values():
            for record, _start, line in stack:
                self.problem(line, "mention crosses a sentence boundary",
                             f"{record.eid} is not closed in sentence {sentence.id}")
        for waiting in unfinished.values():
            for record in waiting:
                if len(record.parts) < record.total:
                    self.problem(record.line, "incomplete discontinuous mention",
                                 f"{record.eid} has {len(record.parts)} of {record.total} parts")
                    record.parts = []
        for record in records:
            if record.parts and (record.total == 1 or len(record.parts) == record.total):
                self._build_mention(sentence, record)

    def _brackets(self, value: str, number: int) -> list[tuple[str, str]]:
        """Split an Entity value into ("open"|"single"|"close", content) events, in order."""
        events = []
        position = 0
        for match in ENTITY_BRACKET.finditer(value):
            if match.start() != position:
                break
            position = match.end()
            if match[3] is not None:
                events.append(("close", match[3]))
            else:
                events.append(("single" if match[2] else "open", match[1]))
        if position != len(value):
            self.problem(number, "malformed Entity value", f"unbalanced or empty bracket in {value!r}")
            return events
        return events

    def _closing_label(self, content: str) -> str:
        return "-".join(content.split("-")[: self.eid_index + 1])

    def _open(
        self,
        content: str,
        node: Node,
        number: int,
        open_parts: dict[tuple[str, str | None], list[_OpenPart]],
        unfinished: dict[tuple[str, int], list[_MentionRecord]],
        records: list[_MentionRecord],
        layout: list[tuple[_MentionRecord, int, str]],
    ) -> tuple[_MentionRecord, int] | None:
        assert self.fields is not None
        fields = opening_fields(content, self.fields)
        if len(fields) > len(self.fields) or len(fields) <= self.eid_index:
            self.problem(number, "malformed mention",
                         f"({content} has {len(fields)} fields, global.Entity declares {len(self.fields)}")
            return None
        eid, label, index, total = split_part(fields[self.eid_index])
        if not eid or index > total:
            self.problem(number, "malformed mention", f"bad entity id {fields[self.eid_index]!r}")
            return None
        if total == 1:
            record = _MentionRecord(eid, fields, 1, number)
            records.append(record)
        elif index == 1:
            record = _MentionRecord(eid, fields, total, number)
            records.append(record)
            unfinished.setdefault((eid, total), []).append(record)
        else:
            waiting = unfinished.get((eid, total), [])
            # The earliest-begun mention still waiting for this part (the writer keeps to the same rule).
            record = next((r for r in waiting if r.opened == index - 1), None)  # type: ignore[assignment]
            if record is None:
                self.problem(number, "discontinuous part out of order", f"{eid}[{label}] has no earlier parts")
                return None
        record.opened += 1
        open_parts.setdefault((eid, label), []).append((record, node.position, number))
        layout.append((record, index, "open"))
        return record, index

    def _close(
        self,
        content: str,
        node: Node,
        number: int,
        open_parts: dict[tuple[str, str | None], list[_OpenPart]],
        layout: list[tuple[_MentionRecord, int, str]],
    ) -> None:
        if self.eid_index == 0 and "-" not in content:
            eid_token = content
        else:
            fields = content.split("-")
            if len(fields) <= self.eid_index:
                self.problem(number, "malformed closing bracket", f"{content})")
                return
            eid_token = fields[self.eid_index]
        eid, label, index, total = split_part(eid_token)
        stack = open_parts.get((eid, label))
        if not stack:
            reason = "closing bracket for an entity never opened" if eid not in self.entities and not any(
                key[0] == eid for key in open_parts) else "closing bracket without an open mention"
            self.problem(number, reason, f"{content}) closes no mention opened in this sentence")
            return
        record, start, _line = stack.pop()
        width = content.count("-") + 1  # a one-node bracket arrives here trimmed to the eid
        if width > self.eid_index + 1:
            record.closing_width = width
        record.parts.append((start, node.position))
        if layout and layout[-1][0] is record and layout[-1][2] == "open" and start == node.position:
            layout[-1] = (record, index, "single")
        else:
            layout.append((record, index, "close"))

    def _relations(self, value: str, key: str, number: int) -> list[tuple[str, str, str | None]]:
        result = []
        for item in value.split(","):
            match = RELATION_ITEM.match(item)
            if match is None:
                self.problem(number, f"malformed {key}", repr(item))
                continue
            result.append((relation_eid(match[1], self.eid_index, self.fields),
                           relation_eid(match[2], self.eid_index, self.fields), match[3]))
        return result

    def _entity(self, eid: str, etype: str, attrs: dict[str, str], line: int) -> Entity:
        entity = self.entities.get(eid)
        if entity is not None and (not etype or etype == entity.type) and not attrs:
            return entity
        if entity is None:
            assert self.document is not None
            entity = Entity(eid, etype or None, attrs, document=self.document)
            self.entities[eid] = entity
            self.document.entities.append(entity)
            return entity
        if etype and entity.type is None:
            entity.type = etype
        for name, value in attrs.items():
            known = entity.attrs.setdefault(name, value)
            if known != value:
                self.problem(line, "conflicting entity attribute",
                             f"{eid} has {name}={known!r} earlier and {value!r} here")
        return entity

    def _build_mention(self, sentence: Sentence, record: _MentionRecord) -> None:
        assert self.fields is not None
        nodes = sentence.nodes
        parts = sorted(record.parts)
        words = [w for start, end in parts for w in nodes[start : end + 1]]
        etype = ""
        head: Node | None = None
        link: str | None = None
        mention_attrs: dict[str, str] = {}
        entity_attrs: dict[str, str] = {}
        fields = record.fields
        width = len(fields)
        hidden: list[str] = []
        for i, role, name in self.plan:
            value = fields[i] if i < width else ""
            if not value:
                if role == "etype" or role == "entity":
                    hidden.append(name)
                continue
            if role == "mention":
                mention_attrs[name] = value
            elif role == "etype":
                etype = value
            elif role == "head":
                if not value.isdigit() or not 1 <= int(value) <= len(words):
                    self.problem(record.line, "mention head out of range",
                                 f"{record.eid} head {value} but {len(words)} nodes")
                else:
                    head = words[int(value) - 1]
            elif role == "link":
                link = value
            else:
                entity_attrs[name] = value
        entity = self._entity(record.eid, etype, entity_attrs, record.line)
        mention = Mention(words, entity, head, link, mention_attrs, record.width, record.closing_width,
                          frozenset(hidden) if hidden else _NOTHING_HIDDEN,
                          etype if etype and etype != entity.type else None)
        entity.mentions.append(mention)
        for node in words:
            node.mentions += (mention,)
        record.mention = mention

    def _finish_document(self) -> None:
        document = self.document
        assert document is not None
        if not document.sentences:
            return
        for entity in document.entities:
            entity.mentions.sort(key=lambda m: m.order)
        for record, ante, label, line in self.pending_bridges:
            target = self.entities.get(ante)
            if record.mention is None:
                continue  # its mention was dropped (lenient) and reported
            if target is None:
                self.problem(line, "Bridge to an unknown entity", f"{ante} has no mention in the document")
                continue
            document.bridges.append(Bridge(record.mention, target, label))
        for record, antes, line in self.pending_splits:
            if record.mention is None:
                continue
            members = []
            for ante in antes:
                target = self.entities.get(ante)
                if target is None:
                    self.problem(line, "SplitAnte to an unknown entity", f"{ante} has no mention in the document")
                else:
                    members.append(target)
            if members:
                assert record.mention.entity is not None
                document.split_antecedents.append(SplitAntecedent(record.mention.entity, members, record.mention))
        for node, layout in self.layouts:
            node_layout = tuple((r.mention, i, kind) for r, i, kind in layout if r.mention is not None)
            if node_layout:
                node.bracket_order = node_layout
        if self.guessed_heads is not None:
            self._unguess_heads(document, *self.guessed_heads)
            self.guessed_heads = None
        self.corpus.documents.append(document)

    def _unguess_heads(self, document: Document, count: int, line: int) -> None:
        """Heads the writer guessed (`GUESSED_HEADS`) read back as none, where the count still fits the file."""
        headed_first = [m for m in document.mentions
                        if len(m.words) > 1 and m.head is m.words[0]
                        and all(w.head in ("_", "") for w in m.words if not w.is_empty)]
        if len(headed_first) != count:
            self.problem.report.add(GUESSED_HEADS_EDITED, f"{self.path}:{line}: {count} said, "
                                                          f"{len(headed_first)} found")
            return
        document.meta[GUESSED_HEADS] = count
        for mention in headed_first:
            mention.head = None


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------


def format_corefud(corpus: Corpus, report: Report | None = None, piece: Piece | None = None) -> str:
    """Serialize a corpus as CorefUD CoNLL-U text; ``piece``: the corpus was read from that piece of a file, and
    the text is to follow what the pieces before it gave."""
    lines: list[str] = []
    fields_in_force: tuple[str, ...] | None = None
    first = 0
    if piece is not None and piece.start:
        first = 1  # not the file's first document
        if piece.header is not None:
            fields_in_force = header_fields(piece.header) or DEFAULT_ENTITY_FIELDS
    shared = _shared_fields(corpus)
    with paused_gc():
        for number, document in enumerate(corpus.documents, first):
            fields_in_force = _format_document(document, number, fields_in_force, lines, report, shared)
    return "\n".join(lines) + "\n" if lines else ""


def write_corefud(corpus: Corpus, path: str | Path, report: Report | None = None) -> None:
    """Write a corpus to one CorefUD CoNLL-U file (atomically)."""
    atomic_write_text(path, format_corefud(corpus, report))


class CorefudWriter(StagedFile):
    """A CorefUD file written a document at a time (``add``; ``publish`` at the end), byte for byte what
    `write_corefud` writes for the same documents at once, for documents that do not fit in memory together.
    ``shared`` is the header of the documents that bring none of their own: `shared_header` of every document's
    `header_wanted`, which a caller reading the documents twice can collect on the first pass."""

    def __init__(self, path: str | Path, report: Report | None, shared: tuple[str, ...] | None) -> None:
        super().__init__(path)
        self.report = report
        self.shared = shared
        self.fields_in_force: tuple[str, ...] | None = None
        self.number = 0

    def add(self, document: Document) -> None:
        lines: list[str] = []
        self.fields_in_force = _format_document(document, self.number, self.fields_in_force, lines, self.report,
                                                self.shared)
        self.number += 1
        if lines:
            self.write("\n".join(lines) + "\n")


def header_wanted(document: Document) -> tuple[str, ...] | None:
    """The fields a document brings to the shared header (see `shared_header`): those it needs where it has no
    header of its own (read from another format) and has entities; None otherwise."""
    return entity_fields_for(document) if document.entity_fields is None and document.entities else None


def shared_header(wanted: Iterable[tuple[str, ...] | None]) -> tuple[str, ...] | None:
    """One header for all the documents that bring none of their own (read from another format): every field any
    of them needs (`header_wanted`, in document order), so that the file declares ``global.Entity`` once, as
    udvalidate requires."""
    union: dict[str, None] = {}
    for fields in wanted:
        if fields is not None:
            union.update(dict.fromkeys(fields))
    return tuple(union) or None


def _shared_fields(corpus: Corpus) -> tuple[str, ...] | None:
    return shared_header(header_wanted(document) for document in corpus.documents)


ENTITY_FIELDS_ON_MENTIONS = "entity fields written on each mention (CorefUD reads them back as mention fields)"
MENTION_FIELDS_FROM_ENTITY = "mention fields taken from their entity's fields (written on each mention)"
# udvalidate parses a global.Entity of lower-case names only: in a header we declare (a document from another
# format), a mention field with another name (UA's MarkableID) goes into ``other`` as NAME:VALUE instead, as
# udapi's OtherDualDict has it (pairs joined by commas).
FIELDS_INTO_OTHER = "mention fields whose names global.Entity cannot declare written into other as NAME:VALUE"
_DECLARABLE = re.compile(r"[a-z]+")


def into_other(name: str) -> bool:
    """Whether a mention field of this name goes into ``other`` where we declare the header."""
    return not _DECLARABLE.fullmatch(name)


def _report_unheld(document: Document, report: Report) -> None:
    """What CorefUD has no place for: CoNLL-2012's columns; and the entity fields that are
    not entity-level in CorefUD (`ENTITY_LEVEL_FIELDS`), which go on every mention's bracket and so read back as
    mention fields."""
    where = str(document.id)
    columns = sum(len(other_columns(node)) for sentence in document.sentences for node in sentence.nodes
                  if node.conll2012 is not None)
    if columns:
        report.add(unheld_reason("CoNLL-2012 column", "CorefUD"), where, columns)
    moved = [(entity, key) for entity in document.entities for key in entity.attrs if key not in ENTITY_LEVEL_FIELDS]
    if moved:
        report.add(ENTITY_FIELDS_ON_MENTIONS, where, len(moved))
        taken = sum(1 for entity, key in moved for m in entity.mentions if m.attrs.get(key) != entity.attrs[key])
        if taken:
            report.add(MENTION_FIELDS_FROM_ENTITY, where, taken)


def entity_fields_for(document: Document) -> tuple[str, ...]:
    """The ``global.Entity`` fields needed to write ``document`` without loss: its own header, extended by any
    field its mentions and entities use that the header lacks."""
    fields = list(document.entity_fields or DEFAULT_ENTITY_FIELDS)
    present = set(fields)
    wanted: list[str] = []
    for entity in document.entities:
        wanted.extend(entity.attrs)
        if entity.type and not present & set(ETYPE_FIELDS):
            wanted.append("etype")
        for mention in entity.mentions:
            wanted.extend(mention.attrs)
            if mention.etype is not None and not present & set(ETYPE_FIELDS):
                wanted.append("etype")
            if mention.link is not None:
                wanted.append("link")
            if mention.head is not None:
                wanted.append("head")
    # GUM v7's last field, identity, keeps "-" unescaped: new fields go before it, so that it stays last.
    end = len(fields) - 1 if fields[-1] == "identity" else len(fields)
    for name in wanted:
        if name not in present and not (document.entity_fields is None and into_other(name)):
            fields.insert(end, name)
            end += 1
            present.add(name)
    return tuple(fields)


def _format_document(
    document: Document,
    number: int,
    fields_in_force: tuple[str, ...] | None,
    lines: list[str],
    report: Report | None,
    shared: tuple[str, ...] | None = None,
) -> tuple[str, ...] | None:
    if document.entity_fields is None and document.entities and shared is not None:
        fields: tuple[str, ...] | None = shared
    else:
        fields = entity_fields_for(document) if document.entities or document.entity_fields else None
    if report is not None:
        _report_unheld(document, report)
    entity_values, ambiguous = _entity_values(document, fields, report)
    first_line = len(lines)
    relations = _relation_values(document, fields)
    for index, sentence in enumerate(document.sentences):
        comments = list(sentence.comments)
        if not comments:
            comments = [slot for slot, value in ((CommentSlot.SENT_ID, sentence.id), (CommentSlot.TEXT, sentence.text))
                        if value is not None]
        if sentence.speaker is not None and not any(
            c is CommentSlot.SPEAKER or (isinstance(c, str) and c.startswith("# speaker")) for c in comments
        ):
            comments.append(CommentSlot.SPEAKER)
        if index == 0:
            comments = _document_comments(document, number, comments, fields, fields_in_force,
                                          _guessed_heads(document, fields, report))
        for comment in comments:
            rendered = _render_comment(comment, document, sentence, fields)
            if rendered is not None:
                lines.append(rendered)
        multiwords = {str(mwt.first): mwt for mwt in sentence.multiwords}
        for node in sentence.nodes:
            if multiwords:
                mwt = multiwords.get(node.id)
                if mwt is not None:
                    lines.append("\t".join((mwt.id, mwt.form, *mwt.columns)))
            verbatim = node.verbatim_line()
            if verbatim is not None and node.coref_read is None and node not in entity_values \
                    and node not in relations:
                lines.append(verbatim)
                continue
            entity_value = entity_values.get(node)
            bridge_value, split_value = relations.get(node, (None, None))
            if verbatim is not None and node.coref_read == (entity_value, bridge_value, split_value):
                lines.append(verbatim)  # its coreference renders as read
                continue
            if verbatim is not None and node.coref_read is not None:
                cut = verbatim.rindex("\t") + 1
                misc = _misc_replaced(verbatim[cut:], entity_value, bridge_value, split_value)
                if misc is not None:
                    lines.append(verbatim[:cut] + misc)  # (rules rewrite most Entity values: kept cheap)
                    continue
            misc = _misc_value(node, entity_value, bridge_value, split_value)
            lines.append("\t".join((*node.columns(), misc)))
        lines.append("")
    if ambiguous and fields is not None:
        _check_same_entity_mentions(document, fields, lines[first_line:], report)
    return fields if fields is not None else fields_in_force


def _check_same_entity_mentions(
    document: Document, fields: tuple[str, ...], lines: list[str], report: Report | None
) -> None:
    """Read the written document back: where crossing mentions or interleaved discontinuous mentions of one
    entity came back as other spans, no bracket order can express them, and that is reported."""
    header = f"# global.Entity = {'-'.join(fields)}"
    again = parse_corefud("\n".join([header, *lines]) + "\n", f"<{document.id}>", lenient=True).documents[0]

    def spans(doc: Document) -> list[tuple[str, tuple[tuple[int, str], ...]]]:
        return sorted((m.entity.id, tuple((w.sentence.index, w.id) for w in m.words))  # type: ignore[union-attr]
                      for e in doc.entities for m in e.mentions)

    written, read = spans(document), spans(again)
    if read != written and report is not None:
        changed = sum((Counter(written) - Counter(read)).values())  # mentions that read back as other spans
        report.add("ambiguous mentions of one entity",
                   f"{document.id}: crossing or interleaved discontinuous mentions of one entity cannot be told "
                   "apart in CorefUD", changed)


def _document_comments(
    document: Document,
    number: int,
    comments: list[str | CommentSlot],
    fields: tuple[str, ...] | None,
    fields_in_force: tuple[str, ...] | None,
    guessed: int = 0,
) -> list[str | CommentSlot]:
    """Make sure the first sentence starts the document and declares the entity fields where needed (and says how
    many heads were ``guessed``, `GUESSED_HEADS`)."""
    def is_newdoc(comment: str | CommentSlot) -> bool:
        return comment is CommentSlot.NEWDOC or (isinstance(comment, str) and comment.startswith("# newdoc"))

    if not any(is_newdoc(c) for c in comments) and (document.id is not None or number > 0):
        comments.insert(0, CommentSlot.NEWDOC)
    has_header = any(c is CommentSlot.GLOBAL_ENTITY or (isinstance(c, str) and c.startswith("# global.Entity"))
                     for c in comments)
    if fields is not None and fields != fields_in_force and not has_header:
        at = next((i + 1 for i, c in enumerate(comments) if is_newdoc(c)), 0)
        comments.insert(at, CommentSlot.GLOBAL_ENTITY)
    # Genre, topic, subtopic (ECB+) and language (TEI, RuCoCo) as document metadata, as GUM writes its own, read
    # back by the reader: added where the document has them and its comments do not say them yet.
    def after_header() -> int:  # right after the document's newdoc, global.Entity and meta:: lines
        return max((i + 1 for i, c in enumerate(comments) if c in (CommentSlot.NEWDOC, CommentSlot.GLOBAL_ENTITY)
                    or (isinstance(c, str) and c.startswith(("# newdoc", "# global.Entity", "# meta::")))), default=0)

    for key, name in DOCUMENT_FIELDS.items():
        value = getattr(document, name)
        prefix = f"# {key} ="
        if value is None or any(isinstance(c, str) and c.startswith(prefix) for c in comments):
            continue
        comments.insert(after_header(), f"{prefix} {value}")
    if guessed:
        comments.insert(after_header(), f"# {GUESSED_HEADS} = {guessed}")
    return comments


def _guessed_heads(document: Document, fields: tuple[str, ...] | None, report: Report | None) -> int:
    """How many heads the writer will guess (mentions of several words, no head, no tree) where the file can say so
    and the reader can tell them apart: 0 where the fields have no head, or where mentions annotated with their
    first word as head and no tree would read back as guessed too (then reported)."""
    if fields is None or "head" not in fields:
        return 0
    without_tree = [m for m in document.mentions
                    if len(m.words) > 1 and all(w.head in ("_", "") for w in m.words if not w.is_empty)]
    guessed = sum(1 for m in without_tree if m.head is None)
    if guessed and any(m.head is m.words[0] for m in without_tree):
        if report is not None:
            report.add(HEAD_GUESSED_UNMARKED, str(document.id), guessed)
        return 0
    return guessed


def _render_comment(
    comment: str | CommentSlot, document: Document, sentence: Sentence, fields: tuple[str, ...] | None
) -> str | None:
    if isinstance(comment, str):
        return comment
    if comment is CommentSlot.NEWDOC:
        return f"# newdoc id = {document.id}" if document.id is not None else "# newdoc"
    if comment is CommentSlot.GLOBAL_ENTITY:
        return f"# global.Entity = {'-'.join(fields or DEFAULT_ENTITY_FIELDS)}"
    if comment is CommentSlot.SENT_ID:
        return f"# sent_id = {sentence.id}" if sentence.id is not None else None
    if comment is CommentSlot.SPEAKER:
        return f"# speaker = {sentence.speaker}" if sentence.speaker is not None else None
    return f"# text = {sentence.text}" if sentence.text is not None else None


_Event = tuple[Mention, int, str]
_CROSSING_RANK = {"close": 0, "open": 1, "single": 2}
# A bracket to write: the event it stands for, its nesting sort key, its text.
_Bracket = tuple[_Event, tuple, str]


def _entity_values(document: Document, fields: tuple[str, ...] | None,
                   report: Report | None = None) -> tuple[dict[Node, str], bool]:
    """The Entity= value of every node that has brackets, and whether the document may say something CorefUD
    cannot (crossing mentions of one entity, or several discontinuous ones with the same number of parts)."""
    if fields is None:
        return {}, False
    field_values = _FieldValues(fields, document, report)
    eid_index = field_values.eid_index
    # A closing bracket repeats at most the leading entity-level fields (GUM v7's label "entity-GRP-identity").
    label_width = next((i for i, name in enumerate(fields)
                        if name not in EID_FIELDS and field_role(name) not in ("etype", "entity")), len(fields))
    brackets: dict[Node, list[_Bracket]] = {}
    discontinuous: dict[Mention, int] = {}  # mention -> number of parts
    for entity in document.entities:
        for mention in entity.mentions:
            words = mention.words
            order = words[0].order
            if words[-1].position - words[0].position + 1 == len(words):
                parts = [words]
            else:
                parts = mention.parts()
            total = len(parts)
            if total > 1:
                discontinuous[mention] = total
            full = field_values(mention)
            # Trailing empty fields are left out, but never below what the bracket had when read.
            keep = max(mention.bracket_width, eid_index + 1)
            opening_values = list(full)
            while len(opening_values) > keep and not opening_values[-1]:
                opening_values.pop()
            closing_width = max(min(mention.closing_width, label_width), eid_index + 1)
            for number, part in enumerate(parts, 1):
                if total > 1:
                    eid = f"{entity.id}[{number}/{total}]"
                    opening_values[eid_index] = full[eid_index] = eid
                opening = "-".join(opening_values)
                first = part[0]
                if len(part) == 1:
                    brackets.setdefault(first, []).append(
                        ((mention, number, "single"), (1, 0, order), f"({opening})"))
                    continue
                span = len(part)
                closing = full[eid_index] if closing_width == 1 else "-".join(full[:closing_width])
                brackets.setdefault(first, []).append(((mention, number, "open"), (0, -span, order), "(" + opening))
                # Closings: shortest first; among equal spans the later-opened first (reverse of opening order).
                brackets.setdefault(part[-1], []).append(
                    ((mention, number, "close"), (2, span, tuple(-x for x in order)), closing + ")"))
    rank = _discontinuous_ranks(discontinuous)
    values: dict[Node, str] = {}
    for node, found in brackets.items():
        ordered = found if len(found) == 1 else _ordered(node, found)
        if rank and len(ordered) > 1:
            ordered = _discontinuous_in_rank_order(ordered, rank, discontinuous)
        values[node] = "".join(text for _event, _key, text in ordered)
    return values, bool(rank) or _has_crossing_mentions_of_one_entity(document)


def entities_in_written_order(document: Document) -> list[Entity]:
    """The document's entities in the order their first opening bracket is written (nodes in order, brackets on a
    node as the writer orders them): the order in which the CorefUD release numbers entities."""
    values, _ = _entity_values(document, entity_fields_for(document))
    by_id = {str(entity.id): entity for entity in document.entities}
    seen: dict[str, Entity] = {}
    for node in document.nodes():
        for eid in re.findall(r"\(([^-()\[]+)", values.get(node, "")):
            if eid not in seen and eid in by_id:
                seen[eid] = by_id[eid]
    return [*seen.values(), *(e for e in document.entities if str(e.id) not in seen)]


def _has_crossing_mentions_of_one_entity(document: Document) -> bool:
    """Closing brackets of one entity pair with the latest opening, so crossing mentions of one entity read back
    as other spans (CorefUD's validator forbids them)."""
    for entity in document.entities:
        if len(entity.mentions) < 2:
            continue
        spans: dict[int, list[tuple[int, int]]] = {}
        for mention in entity.mentions:
            words = mention.words
            sentence = words[0].sentence.index  # type: ignore[union-attr]
            if words[-1].position - words[0].position + 1 == len(words):
                spans.setdefault(sentence, []).append((words[0].position, words[-1].position))
            else:
                for part in mention.parts():
                    spans.setdefault(sentence, []).append((part[0].position, part[-1].position))
        for parts in spans.values():
            if len(parts) > 1:
                parts.sort()
                for i, (start, end) in enumerate(parts):
                    if any(start < other_start <= end < other_end for other_start, other_end in parts[i + 1 :]):
                        return True
    return False


def _ordered(node: Node, found: list[_Bracket]) -> list[_Bracket]:
    """The brackets of one node in the order read if it still fits, else in nesting order."""
    layout = node.bracket_order
    if len(layout) == len(found):
        by_event = {bracket[0]: bracket for bracket in found}
        if by_event.keys() == set(layout):
            return [by_event[event] for event in layout]
    kinds = {event[2] for event, _key, _text in found}
    if "open" in kinds and "close" in kinds:
        # "(e1-x-2" followed by "e2)" would read back as one bracket "(e1-x-2e2)": close first.
        return sorted(found, key=lambda bracket: (_CROSSING_RANK[bracket[0][2]], bracket[1]))
    return sorted(found, key=lambda bracket: bracket[1])


def _discontinuous_ranks(discontinuous: dict[Mention, int]) -> dict[Mention, int]:
    """Discontinuous mentions of one entity with the same number of parts carry the same labels (e1[2/2]); the
    reader gives each part to the earliest-begun mention still waiting for it. So where such mentions begin at
    one node, the writer begins them in the order of their later parts."""
    groups: dict[tuple[str, int], list[Mention]] = {}
    for mention, total in discontinuous.items():
        assert mention.entity is not None
        groups.setdefault((mention.entity.id, total), []).append(mention)
    rank: dict[Mention, int] = {}
    for members in groups.values():
        if len(members) > 1:
            members.sort(key=lambda m: [part[0].order for part in m.parts()])
            rank.update((mention, index) for index, mention in enumerate(members))
    return rank


def _discontinuous_in_rank_order(
    ordered: list[_Bracket], rank: dict[Mention, int], discontinuous: dict[Mention, int]
) -> list[_Bracket]:
    slots: dict[tuple[str, int, int], list[int]] = {}
    for index, ((mention, number, kind), _key, _text) in enumerate(ordered):
        if kind != "close" and mention in rank:
            assert mention.entity is not None
            slots.setdefault((mention.entity.id, discontinuous[mention], number), []).append(index)
    result = list(ordered)
    for indices in slots.values():
        if len(indices) > 1:
            brackets = sorted((ordered[i] for i in indices), key=lambda b: rank[b[0][0]])
            for index, bracket in zip(indices, brackets):
                result[index] = bracket
    return result


class _FieldValues:
    """The values of a mention's bracket fields, in the order of one global.Entity header."""

    def __init__(self, fields: tuple[str, ...], document: Document | None = None, report: Report | None = None) -> None:
        self.names = fields
        self.document = document
        self.report = report
        self.eid_index = next((i for i, n in enumerate(fields) if n in EID_FIELDS), 0)
        self.eid_name = fields[self.eid_index]
        self.etype_name = next((n for n in fields if n in ETYPE_FIELDS), None)
        self.has_head = "head" in fields
        self.has_link = "link" in fields
        # Fields are folded into other only in a header we declare (see FIELDS_INTO_OTHER).
        self.fold = document is not None and document.entity_fields is None

    def __call__(self, mention: Mention) -> list[str]:
        entity = mention.entity
        assert entity is not None
        values = {**mention.attrs, **entity.attrs} if entity.attrs else dict(mention.attrs)
        if self.fold and "other" in self.names:
            folded = [f"{k}:{v}" for k, v in mention.attrs.items() if k not in self.names and into_other(k)
                      and v not in ("", "_")]
            if folded:
                values["other"] = ",".join(filter(None, (values.get("other", ""), *folded)))
                if self.report is not None:  # each folded field, and other itself, read back otherwise
                    self.report.add(FIELDS_INTO_OTHER, _mention_where(self.document, mention), len(folded) + 1)
        values[self.eid_name] = entity.id
        if self.etype_name is not None:
            values[self.etype_name] = mention.entity_type or ""
        if self.has_head:
            values["head"] = self._head_index(mention)
        if self.has_link:
            values["link"] = mention.link or ""
        for name in mention.hidden_fields:
            values[name] = ""
        return [values.get(name, "") for name in self.names]

    def _head_index(self, mention: Mention) -> str:
        """The head's 1-based index: the annotated head, else the tree's, else the first word (udapi's default for
        a mention made without a head). An empty head field makes udapi and the CorefUD scorer refuse the file, and
        leaving the field out of the header makes udapi fail on discontinuous mentions."""
        head = tree_head(mention)
        if head is not None:
            if mention.head is None and len(mention.words) > 1 and self.report is not None:
                self.report.add(HEAD_WRITTEN_FROM_TREE, _mention_where(self.document, mention))
            return str(mention.words.index(head) + 1)
        if self.report is not None:
            self.report.add(HEAD_WRITTEN_FIRST_WORD, _mention_where(self.document, mention))
        return "1"


def _mention_where(document: Document | None, mention: Mention) -> str:
    return f"{document.id if document is not None else '?'}, {mention.sentence.id}: {mention.text}"


def _relation_values(
    document: Document, fields: tuple[str, ...] | None
) -> dict[Node, tuple[str | None, str | None]]:
    """Bridge= and SplitAnte= values per node (the first node of the mention they are written at)."""
    end = _relation_end(fields or DEFAULT_ENTITY_FIELDS)
    bridges: dict[Node, list[str]] = {}
    for bridge in document.bridges:
        anaphor_entity = bridge.anaphor.entity
        assert anaphor_entity is not None
        item = f"{end(bridge.antecedent)}<{end(anaphor_entity)}" + (f":{bridge.label}" if bridge.label else "")
        bridges.setdefault(bridge.anaphor.words[0], []).append(item)
    splits: dict[Node, list[str]] = {}
    for split in document.split_antecedents:
        anchor = split.anchor if split.anchor is not None and split.anchor.entity is split.entity else None
        if anchor is None:
            anchor = split.entity.mentions[0]
        splits.setdefault(anchor.words[0], []).extend(f"{end(a)}<{end(split.entity)}" for a in split.antecedents)
    result: dict[Node, tuple[str | None, str | None]] = {}
    for node in bridges.keys() | splits.keys():
        bridge_items, split_items = bridges.get(node), splits.get(node)
        result[node] = (",".join(bridge_items) if bridge_items else None,
                        ",".join(split_items) if split_items else None)
    return result


def _relation_end(fields: tuple[str, ...]):  # noqa: ANN202 - a small closure
    """How a relation names an entity: by id where the header starts with it (CorefUD), else by the label of
    its leading entity-level fields, as GUM v7 does ("object-44-Skittles")."""
    if fields[0] in EID_FIELDS:
        return lambda entity: entity.id
    label_roles = []
    for name in fields:
        role = "eid" if name in EID_FIELDS else field_role(name)
        if role not in ("eid", "etype", "entity"):
            break
        label_roles.append((role, name))

    def label(entity: Entity) -> str:
        values = [entity.id if role == "eid" else (entity.type or "") if role == "etype"
                  else entity.attrs.get(name, "") for role, name in label_roles]
        while values and not values[-1]:
            values.pop()
        return "-".join(values)

    return label


def misc_text(node: Node) -> str:
    """The node's MISC column without coreference keys (what formats with coreference columns of their own write)."""
    return _misc_value(node, None, None, None)


def _misc_value(node: Node, entity: str | None, bridge: str | None, split: str | None) -> str:
    misc = node.misc
    order = node.misc_order
    coref = {key: value for key, value in (("Entity", entity), ("Bridge", bridge), ("SplitAnte", split)) if value}
    if order and coref.keys() | misc.keys() == set(order):
        # Unchanged keys: the order as read.
        values = {**misc, **coref}
        return "|".join(key if values[key] is None else f"{key}={values[key]}" for key in order)
    items: list[tuple[str, str | None]] = list(misc.items())
    for key, value in (("Entity", entity), ("Bridge", bridge), ("SplitAnte", split)):
        if value:
            items.insert(_misc_position(items, key, order), (key, value))
    if not items:
        return "_"
    return "|".join(key if value is None else f"{key}={value}" for key, value in items)


def _misc_replaced(column: str, entity: str | None, bridge: str | None, split: str | None) -> str | None:
    """The MISC column of a line read with coreference values, those values replaced, where each coreference key
    read still has a value and no key is new (what `_misc_value` gives then, without parsing the column); None
    otherwise."""
    new = {"Entity": entity, "Bridge": bridge, "SplitAnte": split}
    items = column.split("|")
    keys = [item.partition("=")[0] for item in items]
    if len(set(keys)) != len(keys):
        return None  # a key repeated: MISC as read keeps one of them
    for index, key in enumerate(keys):
        if key in new:
            value = new.pop(key)
            if not value:
                return None
            items[index] = f"{key}={value}"
    if any(new.values()):
        return None
    return "|".join(items)


def _misc_position(items: list[tuple[str, str | None]], key: str, order: tuple[str, ...]) -> int:
    """Where a coreference key goes in MISC: where it stood when read, else in alphabetical order."""
    if key in order:
        rank = order.index(key)
        for i, (other, _value) in enumerate(items):
            if (order.index(other) if other in order else len(order)) > rank:
                return i
        return len(items)
    for i, (other, _value) in enumerate(items):
        if other.lower() > key.lower():
            return i
    return len(items)
