"""What the scorer needs of a CorefUD file, read straight from its lines without building the document model.

Scoring reads every word and every mention of both sides but needs of them only what a `ScoredDocument` holds:
the words' ids and forms, each entity's mentions as Spans (heads where matching needs them), split antecedents.
Building the model first and reducing it costs twice as much (GUM dev, exact matching: 0.07 s a side instead of
0.14 s; with heads from the trees, 0.15 s instead of 0.44 s). This reader takes the lines the way
`harmonize.converters.corefud` does (its header fields, brackets, discontinuous parts, relations and document
comments, through the same helpers) and gives the same documents.

It takes only what it can take without a word of report: at anything the full reader would report (a malformed
bracket, a mention crossing a sentence, a head out of range, a relation to a missing entity, an unterminated
sentence...) it stops with `NotPlain`, and the caller reads that text with the full reader, whose error (strict)
or report (lenient) the user then gets, word for word. Tests hold both readers to the same documents on real
CorefUD files of every kind under ../shared/data and on fuzzed copies of real and hand-written ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import itemgetter
from pathlib import Path

from harmonize.converters.corefud import parse_corefud
from harmonize.converters.corefud_pieces import (
    STREAM_PIECE_BYTES,
    Piece,
    document_pieces,
    piece_count,
    read_piece,
)
from harmonize.converters.corefud_values import (
    DEFAULT_ENTITY_FIELDS,
    EID_FIELDS,
    EMPTY_ID,
    ENTITY_BRACKET,
    MULTIWORD_ID,
    RELATION_ITEM,
    field_role,
    header_fields,
    opening_fields,
    relation_eid,
    sentence_blocks,
    split_part,
)
from harmonize.errors import Report
from harmonize.schemas.model import INCLUDES, Mention, Node, Sentence, parse_misc, tree_head
from harmonize.scoring.matching import Span, exact_matching_head, mention_span
from harmonize.scoring.scored import ScoredDocument, scored_documents


class NotPlain(Exception):
    """The text holds something the full reader reports (or that only it handles): read it with that one."""


class _Record:
    """A mention being read: its eid, bracket fields, parts as (start, end) positions, parts opened so far."""

    __slots__ = ("eid", "fields", "opened", "parts", "total")

    def __init__(self, eid: str, fields: list[str], total: int) -> None:
        self.eid = eid
        self.fields = fields
        self.total = total
        self.parts: list[tuple[int, int]] = []
        self.opened = 0


def scored_pieces(path: Path, mode: str, forms: bool, lenient: bool, report: Report) -> Iterator[list[ScoredDocument]]:
    """A CorefUD file's documents as the scorer sees them, a piece of whole documents at a time where the file is
    large (as `harmonize.conversion.read_corpora` reads it), each piece read by its lines or, where it is not
    plain, by the full reader (``lenient``: what that drops goes to ``report``)."""
    report.opened(path)
    size = path.stat().st_size
    if size > STREAM_PIECE_BYTES:
        data = path.read_bytes()
        pieces = document_pieces(data, piece_count(len(data)))
        del data
    else:
        pieces = [Piece(0, size, 1, None)]
    for piece in pieces:
        text = read_piece(path, piece, report)
        try:
            yield scored_text(text, mode, forms, piece.header)
        except NotPlain:
            corpus = parse_corefud(text, str(path), lenient, report, piece=piece)
            yield scored_documents(corpus, mode, forms)
            corpus.release()


def scored_text(text: str, mode: str, forms: bool, header: str | None = None) -> list[ScoredDocument]:
    """The documents of CorefUD text as the scorer sees them (see `harmonize.scoring.score.scored_documents`),
    matching by ``mode``, forms compared or not; ``header`` is the ``global.Entity`` value in force where the text
    starts (a piece of a file). Raises `NotPlain` where the full reader would report anything."""
    return _Reading(mode, forms, header).run(text)


class _Reading:
    def __init__(self, mode: str, forms: bool, header: str | None) -> None:
        self.heads = mode != "exact"
        self.by_head = mode == "head"
        self.forms = forms
        self.fields: tuple[str, ...] | None = None
        self.eid_index = 0
        self.head_index: int | None = None
        self.entity_level: list[int] = []
        if header is not None:
            self._use_fields(header_fields(header) or DEFAULT_ENTITY_FIELDS)
        self.documents: list[ScoredDocument] = []
        self._start_document(None)

    def _use_fields(self, names: tuple[str, ...]) -> None:
        self.fields = names
        self.eid_index = next(i for i, n in enumerate(names) if n in EID_FIELDS)
        roles = [(i, field_role(name)) for i, name in enumerate(names) if name not in EID_FIELDS]
        self.head_index = next((i for i, role in roles if role == "head"), None)
        self.entity_level = [i for i, role in roles if role == "entity"]

    def _start_document(self, doc_id: str | None) -> None:
        self.id = doc_id
        self.topic: str | None = None
        self.subtopic: str | None = None
        self.meta: dict[str, str] = {}
        self.sentences = 0
        self.words: list[str] = []  # a string a sentence, as `harmonize.scoring.score.document_words` has them
        # eid -> its mentions as (order, span), in the order their entities were first built
        self.mentions: dict[str, list[tuple[tuple, Span]]] = {}
        self.entity_values: dict[str, dict[int, str]] = {}
        self.bridges: list[tuple[str, str, str | None]] = []  # (anaphor's entity, antecedent, label)
        self.splits: list[tuple[str, list[str]]] = []

    def run(self, text: str) -> list[ScoredDocument]:
        lines = text.split("\n")
        if lines[-1] != "":
            raise NotPlain  # no final newline: the last sentence is unterminated
        lines.pop()
        for problem, first, tokens, stop in sentence_blocks(lines):
            if problem is not None:
                raise NotPlain  # a stray blank line, a comment among token lines, an unterminated sentence
            self._sentence(lines, first, tokens, stop)
        self._finish_document()
        return self.documents

    def _comment(self, line: str) -> None:
        body = line[1:].strip()
        key, sep, value = body.partition("=")
        key = key.strip()
        value = value.strip()
        if key == "newdoc" or key.startswith("newdoc "):
            if self.sentences:
                self._finish_document()
                self._start_document(value if sep else None)
            else:
                self.id = value if sep else None
        elif key == "global.Entity" and sep:
            names = header_fields(value)
            if names is None:
                raise NotPlain
            self._use_fields(names)
        elif key == "meta::topic":
            self.topic = value
        elif key == "meta::subtopic":
            self.subtopic = value
        elif key.startswith("meta::") and sep:  # GUM's genre, any other metadata a score may be grouped by
            self.meta[key[len("meta::"):]] = value

    def _sentence(self, lines: list[str], first: int, tokens: int, stop: int) -> None:
        for index in range(first, tokens):
            line = lines[index]
            # Only these comments matter here (the rest, sent_id and text above all, are many and skipped unparsed).
            if "newdoc" in line or "global.Entity" in line or "meta::" in line:
                self._comment(line)
        if tokens == stop:
            raise NotPlain  # a sentence without tokens
        sentence_index = self.sentences
        self.sentences += 1
        ids: list[str] = []
        words: list[str] = []
        forms = self.forms
        annotated: list[tuple[int, str | None, str | None, str | None]] = []
        has_empty = False
        for index in range(tokens, stop):
            columns = lines[index].split("\t")
            if len(columns) != 10:
                raise NotPlain
            node_id = columns[0]
            if node_id.isdigit():
                words.append(lines[index][: len(node_id) + 1 + len(columns[1])] if forms else node_id)
            elif EMPTY_ID.match(node_id) is not None:
                has_empty = True
            elif MULTIWORD_ID.match(node_id) is not None:
                continue
            else:
                raise NotPlain
            misc = columns[9]
            if "Entity=" in misc or "Bridge=" in misc or "SplitAnte=" in misc:
                values = parse_misc(misc)
                entity, bridge, split = values.get("Entity"), values.get("Bridge"), values.get("SplitAnte")
                if entity is not None or bridge is not None or split is not None:
                    annotated.append((len(ids), entity, bridge, split))
            ids.append(node_id)
        self.words.append("\n".join(words))
        if annotated:
            self._coreference(annotated, sentence_index, ids, has_empty, lines, tokens, stop)

    def _coreference(self, annotated: list[tuple[int, str | None, str | None, str | None]], sentence_index: int,
                     ids: list[str], has_empty: bool, lines: list[str], tokens: int, stop: int) -> None:
        """The sentence's mentions and relations, as `harmonize.converters.corefud` reads them."""
        open_parts: dict[tuple[str, str | None], list[tuple[_Record, int]]] = {}
        unfinished: dict[tuple[str, int], list[_Record]] = {}
        records: list[_Record] = []
        for position, entity_value, bridge_value, split_value in annotated:
            starting: dict[str, _Record] = {}
            if entity_value is not None:
                if self.fields is None:
                    raise NotPlain  # Entity before any global.Entity header
                at = 0
                for match in ENTITY_BRACKET.finditer(entity_value):
                    if match.start() != at:
                        raise NotPlain
                    at = match.end()
                    if match[3] is not None:
                        self._close(match[3], position, open_parts)
                        continue
                    record, part = self._open(match[1], position, bool(match[2]), open_parts, unfinished, records)
                    if part == 1:
                        starting.setdefault(record.eid, record)
                if at != len(entity_value):
                    raise NotPlain
            if bridge_value is not None:
                for antecedent, anaphor, label in self._relations(bridge_value):
                    if anaphor not in starting:
                        raise NotPlain
                    self.bridges.append((anaphor, antecedent, label))
            if split_value is not None:
                groups: dict[str, list[str]] = {}
                for antecedent, anaphor, _label in self._relations(split_value):
                    groups.setdefault(anaphor, []).append(antecedent)
                for anaphor, antecedents in groups.items():
                    if anaphor not in starting:
                        raise NotPlain
                    self.splits.append((anaphor, antecedents))
        for stack in open_parts.values():
            if stack:
                raise NotPlain  # a mention crossing the sentence's end
        for waiting in unfinished.values():
            for record in waiting:
                if len(record.parts) < record.total:
                    raise NotPlain  # a discontinuous mention missing parts
        nodes: list[Node] | None = None
        entity_level = self.entity_level
        for record in records:
            parts = record.parts
            if len(parts) == 1:
                positions = list(range(parts[0][0], parts[0][1] + 1))
            else:
                positions = [p for start, end in sorted(parts) for p in range(start, end + 1)]
            head: int | None = None
            if self.head_index is not None and self.head_index < len(record.fields) and \
                    record.fields[self.head_index]:
                value = record.fields[self.head_index]
                if not value.isdigit() or not 1 <= int(value) <= len(positions):
                    raise NotPlain  # a head out of range
                head = positions[int(value) - 1]
            if entity_level:
                self._entity_values(record)
            order = ((sentence_index, positions[0]), -len(positions))
            mention_ids = [ids[p] for p in positions]
            if self.heads or (has_empty and any("." in i for i in mention_ids)):
                if nodes is None:
                    nodes = _nodes(lines, tokens, stop, sentence_index)
                words = [nodes[p] for p in positions]
                annotated_head = nodes[head] if head is not None else None
                span = mention_span(words, tree_head(Mention(words, None, annotated_head)) if self.heads else
                                    exact_matching_head(words, annotated_head))
            else:
                span = Span(frozenset([(sentence_index, i) for i in mention_ids]), (sentence_index, positions[0]),
                            None, zero=False)
            self.mentions.setdefault(record.eid, []).append((order, span))
        if nodes is not None:  # nodes and their sentence point at each other: freed now, not by a collector pass
            assert nodes[0].sentence is not None
            nodes[0].sentence.release()

    def _open(self, content: str, position: int, single: bool, open_parts: dict, unfinished: dict,
              records: list[_Record]) -> tuple[_Record, int]:
        """An opening bracket (``single``: one that closes on the same node, as "(e5-person-1)" does)."""
        declared = self.fields
        assert declared is not None
        fields = content.split("-")
        if len(fields) > len(declared):
            fields = opening_fields(content, declared)
            if len(fields) > len(declared):
                raise NotPlain
        if len(fields) <= self.eid_index:
            raise NotPlain
        eid, label, index, total = split_part(fields[self.eid_index])
        if not eid or index > total:
            raise NotPlain
        if index == 1:
            record = _Record(eid, fields, total)
            records.append(record)
            if total > 1:
                unfinished.setdefault((eid, total), []).append(record)
        else:
            # The earliest-begun mention still waiting for this part, as the full reader takes it.
            found = next((r for r in unfinished.get((eid, total), []) if r.opened == index - 1), None)
            if found is None:
                raise NotPlain
            record = found
        record.opened += 1
        if single:  # what the full reader's closing of it finds: this very part, last opened under its label
            record.parts.append((position, position))
        else:
            open_parts.setdefault((eid, label), []).append((record, position))
        return record, index

    def _close(self, content: str, position: int, open_parts: dict) -> None:
        if self.eid_index == 0 and "-" not in content:
            token = content
        else:
            fields = content.split("-")
            if len(fields) <= self.eid_index:
                raise NotPlain
            token = fields[self.eid_index]
        eid, label, _index, _total = split_part(token)
        stack = open_parts.get((eid, label))
        if not stack:
            raise NotPlain
        record, start = stack.pop()
        record.parts.append((start, position))

    def _relations(self, value: str) -> list[tuple[str, str, str | None]]:
        result = []
        for item in value.split(","):
            match = RELATION_ITEM.match(item)
            if match is None:
                raise NotPlain
            result.append((relation_eid(match[1], self.eid_index, self.fields),
                           relation_eid(match[2], self.eid_index, self.fields), match[3]))
        return result

    def _entity_values(self, record: _Record) -> None:
        """Entity-level fields (identity...) must agree across an entity's mentions: the full reader reports
        a conflict."""
        known = self.entity_values.setdefault(record.eid, {})
        fields = record.fields
        for i in self.entity_level:
            if i < len(fields) and fields[i] and known.setdefault(i, fields[i]) != fields[i]:
                raise NotPlain

    def _finish_document(self) -> None:
        if not self.sentences:
            return
        mentions = self.mentions
        inclusions: dict[str, list[str]] = {}
        for whole, antecedents in self.splits:
            if any(a not in mentions for a in antecedents):
                raise NotPlain  # a split antecedent with no mention in the document
            listed = inclusions.setdefault(whole, [])
            listed.extend(a for a in antecedents if a not in listed)
        for anaphor, antecedent, label in self.bridges:
            if antecedent not in mentions:
                raise NotPlain  # a bridge to an entity with no mention in the document
            if label == INCLUDES:
                listed = inclusions.setdefault(anaphor, [])
                if antecedent not in listed:
                    listed.append(antecedent)
        seen: set[tuple] = set()
        entities: dict[str, list[Span]] = {}
        duplicates = 0
        by_head = self.by_head
        for eid, spans in mentions.items():
            cluster = entities[eid] = []
            spans.sort(key=itemgetter(0))
            for _order, span in spans:
                identity = (span.nodes, span.head) if by_head else span.nodes
                if identity in seen:
                    duplicates += 1
                    continue
                seen.add(identity)
                cluster.append(span)
        self.documents.append(ScoredDocument(self.id, self.topic, self.words, entities, list(inclusions.items()),
                                             duplicates, self.subtopic, self.meta.get("genre"), self.meta))


def _nodes(lines: list[str], tokens: int, stop: int, sentence_index: int) -> list[Node]:
    """The sentence's nodes (words and empty nodes) in the model, for heads from its tree."""
    sentence = Sentence(index=sentence_index)
    nodes = sentence.nodes
    for index in range(tokens, stop):
        line = lines[index]
        node_id = line[: line.index("\t")]
        if "-" not in node_id:
            nodes.append(Node.from_line(line, node_id, sentence, len(nodes)))
    return nodes
