"""CoNLL-2012 (OntoNotes) coreference files: reader and writer.

Blocks ``#begin document (NAME); part NNN`` ... ``#end document`` (also GUM's ``# begin document NAME``); one token
per line; a blank line ends a sentence; the coreference cell is the last column. Line layouts, told apart per line:

* OntoNotes: document id, part, word index, word, POS, parse bit, predicate lemma, frameset, sense, speaker, named
  entities, arguments ..., coreference (12 or more columns, space-aligned in OntoNotes, tab-separated in LitBank
  whose empty cell follows a trailing tab; RuCoCo's conversion has 11; the scorer test keys 5: id, part, index,
  word, coreference). Columns 2 and 3 are numbers.
* word index first: index, word, ..., coreference (GUM and OntoGUM: 3 columns; Potsdam PCC: 15).
* document id and coreference only (the scorer's 2-column keys; a first column other than the document's name is
  read as the word).

The cell holds ``(1``, ``1)``, ``(1)``, or nothing (``-``, ``_`` or empty), several items joined by ``|`` or written
together (``(1)|(2``, ``(1(2)``). Two variants are read and written back as such: the Potsdam PCC writes the id
bare on the tokens inside a mention (``(12``, ``12``, ``12)``); GUM's labels carry the entity type and identity
(``(person-4-Emperor_Norton``, closed by ``person-4-Emperor_Norton)``).

In the model: each block is one `Document` with id ``NAME`` for part 0 (the document itself, as a CorefUD or
jsonlines id names it, so that a document written here and read back keeps its id) and ``NAME/part NNN`` for the
other parts (as the reference scorer counts them; an empty or ``__`` name is replaced by the file's stem) and the genre taken from the id
("bc/..." -> bc, "GUM_bio_..." -> bio). Word -> ``Node.form``, POS -> ``Node.xpos``, speaker -> ``Sentence.speaker``
(where one speaker says the whole sentence; otherwise it stays in the line and the difference is reported), GUM
labels -> ``Entity.type`` and ``Entity.attrs["identity"]``. Entities are numbered per block, so ids are per document.
What is format only (the other columns, spacing, cell order, blank and comment lines) is kept in ``Node.conll2012``,
``Node.bracket_order`` and ``Document.meta["conll2012"]``.

Writing: a document read from CoNLL-2012 comes back in its own layout, byte for byte where nothing was edited:
each line keeps its columns and spacing (space-aligned cells keep their right edge), and only the coreference cell
is written from the model, with word, POS and speaker columns following edits. Other documents, or all of them
when ``layout`` is given, are written in one of `LAYOUTS`:

* ``ontonotes``: 12 tab-separated columns (id, part, index per sentence, word, POS or ``-``, ``*``, ``-``, ``-``,
  ``-``, speaker or ``-``, ``*``, coreference), numeric ids, ``-`` for no mention;
* ``gum``: ``# begin document NAME``, 3 columns (index over the document, word, coreference), typed labels, ``_``
  for no mention, no sentence breaks;
* ``ontogum``: the same 3 columns with numeric ids, as the official OntoGUM output (which leaves NAME empty; we
  write it);
* ``scorer``: 2 space-separated columns (document id, coreference) as in the reference scorer's test keys.

With ``comments="keep"`` each sentence's comments come before its words as ``#`` lines, as CoNLL-U has them
(``# sent_id``, ``# text``, the others as they are) and each multiword token as ``# multiword = 2-3<TAB>del ...``
(see `harmonize.converters.sentence_comments`); the reader takes the comment lines right before a sentence's words
back into the sentence, so CorefUD -> CoNLL-2012 -> CorefUD keeps sentence ids, texts, comments and multiword tokens
and the CorefUD scorer pairs the round trip with its source. It is not the default: the reference scorer
(``scorer.pl``) reads every line inside a document that is not blank as a word, so it cannot score such a file
against OntoNotes keys (and may read brackets in a comment as mentions). In GUM's layouts the sentences are then
separated by blank lines, since comments follow a sentence break.

Entity ids become numbers as the format needs: kept where they already are numbers, their digits where those tell
the entities apart ("e12" -> 12), otherwise 0, 1, ... in order of first mention. What CoNLL-2012 cannot hold is
reported with counts: empty nodes and discontinuous mentions (`harmonize.converters.spans`), crossing
mentions of one entity (they read back as other spans), heads, link types, other mention and entity fields, entity
types (except in GUM labels), bridging, split antecedents, CoNLL-U columns other than word and POS.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harmonize.converters.choices import COMMENT_POLICIES, CONLL2012_LAYOUTS
from harmonize.converters.conll2012_lines import column_roles
from harmonize.converters.losses import Holds, report_unheld
from harmonize.converters.sentence_comments import (
    comment_lines,
    misplaced_multiwords,
    read_comment_lines,
)
from harmonize.converters.spans import WordSpan, contiguous_spans
from harmonize.errors import Problems, Report, check_choice
from harmonize.io import StagedFile, atomic_write_text, paused_gc, read_text
from harmonize.schemas.model import (
    PART,
    CommentSlot,
    Corpus,
    Document,
    Entity,
    Mention,
    MultiwordToken,
    Node,
    Sentence,
    made_sentence_id,
    split_part,
)

LAYOUTS = CONLL2012_LAYOUTS
_THREE_COLUMNS = ("gum", "ontogum")

_BEGIN = re.compile(r"#\s*begin document\b\s*(?:\((.*?)\)|([^;\s]*))\s*;?\s*(?:part\s+)?(\S*)\s*$")
_END = re.compile(r"#\s*end document\b")
_ITEM = re.compile(r"\(([^()|]+)\)|\(([^()|]+)|([^()|]+)\)|([^()|]+)")
_TYPED = re.compile(r"([^\W\d][^-]*)-(\d+)(?:-(.*))?$")
_NO_MENTION = ("-", "_", "")
_NO_VALUE = ("-", "_")


# -- reading -----------------------------------------------------------------------------------------------------

def read_conll2012(path: str | Path, lenient: bool = False, report: Report | None = None) -> Corpus:
    report = report if report is not None else Report()
    return parse_conll2012(read_text(path, report), str(path), lenient, report)


def parse_conll2012(
    text: str, path: str = "<string>", lenient: bool = False, report: Report | None = None
) -> Corpus:
    """Read CoNLL-2012 text; broken input raises FormatError with the line, or is dropped and reported (lenient)."""
    reader = _Reader(path, Problems(path, lenient, report if report is not None else Report()))
    final_newline = text.endswith("\n")
    lines = text.split("\n")
    if final_newline:
        lines.pop()
    with paused_gc():
        for number, line in enumerate(lines, 1):
            reader.line(number, line.rstrip("\r") if line.endswith("\r") else line)
        reader.finish(final_newline)
    return reader.corpus


class _Open:
    """A mention whose opening bracket has been read: where it starts, and the mention once it is closed."""

    __slots__ = ("label", "line", "mention", "start")

    def __init__(self, label: str, start: int, line: int) -> None:
        self.label = label
        self.start = start
        self.line = line
        self.mention: Mention | None = None


class _Reader:
    def __init__(self, path: str, problem: Problems) -> None:
        self.path = path
        self.problem = problem
        self.corpus = Corpus(meta={"source": path})
        self.document: Document | None = None
        self.pending: list[str] = []  # lines since the last token or block boundary
        self.begin_line = 0

    # -- lines ---------------------------------------------------------------------------------------------------
    def line(self, number: int, line: str) -> None:
        if line.startswith("#"):
            if _BEGIN.match(line):
                self.begin(number, line)
                return
            if _END.match(line):
                self.end(number, line)
                return
        if self.document is None:
            if line.strip() and not line.startswith("#"):
                self.problem(number, "token outside a document", "no #begin document before it")
            else:
                self.pending.append(line)
            return
        if not line.strip():
            self.end_sentence(number)
            self.pending.append(line)
        elif line.startswith("#"):
            if self.sentence is not None:
                self.problem(number, "comment line inside a sentence", line)
                return
            self.pending.append(line)
        else:
            self.token(number, line)

    def begin(self, number: int, line: str) -> None:
        if self.document is not None:
            self.problem(number, "#begin document inside a document", f"{self.document.id} has no #end document")
            self.end_sentence(number)
            self.close_document(None)
        match = _BEGIN.match(line)
        assert match is not None
        name, part = match[1] if match[1] is not None else match[2], match[3]
        if not name.strip("_ "):  # OntoGUM leaves the name empty, the Potsdam PCC writes "__": the file names it
            name = Path(self.path).stem
        self.name = name
        document_id = f"{name}{PART}{part}" if part.isdigit() and int(part) else name
        self.document = Document(id=document_id, source=self.path, genre=genre_from_id(name))
        self.meta: dict[str, Any] = {"begin": line}
        if self.pending:
            self.meta["before"] = self.pending
        self.pending = []
        self.between: dict[str, list[str]] = {}
        self.sentence: Sentence | None = None
        self.width = 0  # columns of the sentence's first token line
        self.speakers: list[str] = []
        self.entities: dict[str, Entity] = {}
        self.open_spans: dict[str, list[_Open]] = {}
        self.layouts: list[tuple[Node, list[list[Any]]]] = []
        self.joiners: set[str] = set()
        self.empty_cells: dict[str, int] = {}
        self.labels: set[str] = set()
        self.inside_ids = False
        self.has_comments = False  # sentences with comment lines before their words (written with comments=keep)
        self.multiwords: list[MultiwordToken] = []
        self.begin_line = number

    def end(self, number: int, line: str) -> None:
        if self.document is None:
            self.problem(number, "#end document without #begin document")
            return
        self.end_sentence(number)
        self.close_document(line)

    def finish(self, final_newline: bool) -> None:
        if self.document is not None:
            self.problem(self.begin_line, "#begin document without #end document", str(self.document.id))
            self.end_sentence(self.begin_line)
            self.close_document(None)
        meta: dict[str, Any] = {}
        if self.pending:
            meta["after"] = self.pending
        if not final_newline:
            meta["final_newline"] = False
        if meta:
            self.corpus.meta["conll2012"] = meta

    # -- sentences and tokens ------------------------------------------------------------------------------------
    def token(self, number: int, line: str) -> None:
        document = self.document
        assert document is not None
        prefix, cell, suffix = _cut(line)
        fields = prefix.split("\t")[:-1] if "\t" in line else prefix.split()
        if self.sentence is not None and len(fields) + 1 != self.width:
            # LitBank-style empty cell after a trailing tab, on a line of a sentence whose cells are not empty.
            if cell == "" and len(fields) == self.width and "\t" in line:
                cell, suffix, fields = fields[-1], "\t", fields[:-1]
                prefix = prefix[: len(prefix) - 1 - len(cell)]
            else:
                self.problem(number, "wrong column count",
                             f"{len(fields) + 1} columns where the sentence's first token has {self.width}")
                return
        if not fields:
            self.problem(number, "broken token line", "expected at least 2 columns, found 1")
            return
        word, pos, speaker = self.columns(number, fields)
        if word is None:
            return
        if self.sentence is None:
            comments = _trailing_comments(self.pending)
            pending = self.pending[:len(self.pending) - len(comments)]
            if pending != ([""] if document.sentences else []):
                self.between[str(len(document.sentences))] = pending
            self.pending = []
            sentence_id = made_sentence_id(document.id, len(document.sentences) + 1)
            self.sentence = document.add_sentence(Sentence(id=sentence_id))
            self.multiwords = read_comment_lines(self.sentence, comments)
            self.has_comments |= bool(comments)
            self.width = len(fields) + 1
            self.speakers = []
        node = self.sentence.add_node(Node(str(len(self.sentence.nodes) + 1), word,
                                           xpos=pos if pos is not None and pos not in _NO_VALUE else "_"))
        node.conll2012 = (prefix, cell, suffix)
        if speaker is not None:
            self.speakers.append(speaker)
        if cell in _NO_MENTION:
            self.empty_cells[cell] = self.empty_cells.get(cell, 0) + 1
            return
        self.brackets(number, node, cell)

    def columns(self, number: int, fields: list[str]) -> tuple[str | None, str | None, str | None]:
        """Word, POS and speaker of a token line (None where the layout has no such column)."""
        roles = column_roles(fields)
        if roles is None:
            self.problem(number, "unknown column layout", "cannot tell which column holds the word")
            return None, None, None
        if "word" in roles:
            word = fields[roles["word"]]
        elif len(fields) == 1:  # the scorer's 2-column keys name the document there, not the word
            word = "_" if fields[0] == self.name else fields[0]
        else:
            word = "_"
        pos, speaker = (fields[roles[r]] if r in roles else None for r in ("pos", "speaker"))
        return word, pos, speaker

    def end_sentence(self, number: int) -> None:
        sentence = self.sentence
        if sentence is None:
            return
        for stack in self.open_spans.values():
            for opened in stack:
                self.problem(opened.line, "mention not closed within its sentence",
                             f"({opened.label} is still open at line {number}")
        self.open_spans.clear()
        for token in misplaced_multiwords(sentence, self.multiwords):
            self.problem(number, "multiword token over words the sentence does not have", token.id)
        if CommentSlot.TEXT not in sentence.comments:
            sentence.text = " ".join(node.form for node in sentence.nodes)
        said = {s for s in self.speakers if s not in _NO_VALUE}
        if len(said) == 1 and len(self.speakers) == len(sentence.nodes):
            sentence.speaker = said.pop()
        elif said:
            self.problem.report.add("speaker changes inside a sentence (kept in the CoNLL-2012 line only)",
                                    f"{self.path}:{number}: {sorted(said)}")
        self.sentence = None

    # -- coreference ---------------------------------------------------------------------------------------------
    def brackets(self, number: int, node: Node, cell: str) -> None:
        items: list[list[Any]] = []
        at = 0
        while at < len(cell):
            if cell[at] == "|":
                self.joiners.add("|")
                at += 1
                continue
            match = _ITEM.match(cell, at)
            if match is None:
                self.problem(number, "malformed coreference", repr(cell))
                return
            if items and cell[at - 1] != "|":
                self.joiners.add("")
            at = match.end()
            single, opening, closing, inside = match.groups()
            if single is not None:
                mention = self.add_mention(number, node.position, node.position, single)
                if mention is not None:
                    items.append([mention, "single"])
            elif opening is not None:
                self.entity(number, opening)  # entities are numbered by their first bracket, as the scorer does
                opened = _Open(opening, node.position, number)
                self.open_spans.setdefault(opening, []).append(opened)
                items.append([opened, "open"])
            elif closing is not None:
                stack = self.open_spans.get(closing)
                if not stack:
                    self.problem(number, "closing bracket without an open mention", f"{closing})")
                    continue
                opened = stack.pop()
                opened.mention = self.add_mention(number, opened.start, node.position, closing)
                if opened.mention is not None:
                    items.append([opened.mention, "close"])
            else:
                stack = self.open_spans.get(inside)
                if not stack:
                    self.problem(number, "bare id outside a mention of that id", repr(cell))
                    continue
                self.inside_ids = True
                items.append([stack[-1], "inside"])
        if items:
            self.layouts.append((node, items))

    def entity(self, number: int, label: str) -> Entity | None:
        """The entity a label names, created at its first bracket; GUM labels also give its type and identity."""
        typed = None if label.isdigit() else _TYPED.match(label)
        self.labels.add("numeric" if label.isdigit() else "typed" if typed is not None else "verbatim")
        key = typed[2] if typed is not None else label
        entity = self.entities.get(key)
        assert self.document is not None
        if entity is None:
            entity = self.entities[key] = Entity(key, document=self.document)
            if typed is not None:
                entity.type = typed[1]
                if typed[3]:
                    entity.attrs["identity"] = typed[3]
            self.document.entities.append(entity)
        elif typed is not None and (typed[1] != entity.type or (typed[3] or None) != entity.attrs.get("identity")):
            self.problem(number, "entity type or identity differs between mentions",
                         f"{label} (first read as {entity.type}-{entity.id}"
                         f"{'-' + entity.attrs['identity'] if 'identity' in entity.attrs else ''})")
        return entity

    def add_mention(self, number: int, start: int, end: int, label: str) -> Mention | None:
        entity = self.entity(number, label)
        assert entity is not None and self.sentence is not None
        mention = Mention(self.sentence.nodes[start : end + 1], entity)
        entity.mentions.append(mention)
        for word in mention.words:
            word.mentions += (mention,)
        return mention

    def close_document(self, end_line: str | None) -> None:
        document = self.document
        assert document is not None
        count = len(document.sentences)
        if self.pending != ([""] if count else []):
            self.between[str(count)] = self.pending
        self.pending = []
        for node, items in self.layouts:
            order = []
            for target, kind in items:
                mention = target if isinstance(target, Mention) else target.mention
                if mention is not None:
                    order.append((mention, 0, kind))
            node.bracket_order = tuple(order)
        for entity in document.entities:
            entity.mentions.sort(key=lambda m: m.order)
        document.entities = [entity for entity in document.entities if entity.mentions]
        meta = self.meta
        if self.between:
            meta["between"] = self.between
        meta["end"] = end_line
        meta["joiner"] = "" if self.joiners == {""} else "|"
        if self.empty_cells:
            meta["empty"] = max(self.empty_cells, key=lambda cell: self.empty_cells[cell])
        meta["labels"] = ("verbatim" if "verbatim" in self.labels else "typed" if "typed" in self.labels
                          else "numeric")
        meta["inside_ids"] = self.inside_ids
        if self.has_comments:
            meta["comments"] = True
        document.meta["conll2012"] = meta
        self.corpus.documents.append(document)
        self.document = None


def _trailing_comments(lines: list[str]) -> list[str]:
    """The comment lines that end ``lines`` (those right before a sentence's words are the sentence's)."""
    start = len(lines)
    while start and lines[start - 1].startswith("#"):
        start -= 1
    return lines[start:]


def _cut(line: str) -> tuple[str, str, str]:
    """A token line as (text before the coreference cell, the cell, text after it)."""
    if "\t" in line:
        at = line.rfind("\t") + 1
        return line[:at], line[at:], ""
    stripped = line.rstrip()
    at = stripped.rfind(" ") + 1
    return stripped[:at], stripped[at:], line[len(stripped):]


def genre_from_id(document_id: str) -> str | None:
    """OntoNotes ids start with the genre ("bc/cctv/00/cctv_0001"); GUM's name it second ("GUM_academic_art")."""
    document_id = split_part(document_id)[0]
    if "/" in document_id:
        return document_id.split("/", 1)[0]
    parts = document_id.split("_")
    if parts[0] in ("GUM", "GENTLE") and len(parts) > 2:
        return parts[1]
    return None


# -- writing -----------------------------------------------------------------------------------------------------

def write_conll2012(
    corpus: Corpus, path: str | Path, report: Report | None = None, layout: str | None = None,
    discontinuous: str = "drop", comments: str = "drop",
) -> None:
    atomic_write_text(path, format_conll2012(corpus, report, layout, discontinuous, comments))


def format_conll2012(
    corpus: Corpus, report: Report | None = None, layout: str | None = None, discontinuous: str = "drop",
    comments: str = "drop",
) -> str:
    """The corpus as CoNLL-2012 text: documents read from CoNLL-2012 in their own layout unless ``layout`` (one of
    `LAYOUTS`) is given, the others in ``layout`` or "ontonotes"; ``discontinuous`` is the policy of
    `harmonize.converters.spans.contiguous_spans`; ``comments`` one of `COMMENT_POLICIES`."""
    if layout is not None and layout not in LAYOUTS:
        raise ValueError(f"unknown CoNLL-2012 layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    check_choice("comments", comments, COMMENT_POLICIES)
    report = report if report is not None else Report()
    lines: list[str] = []
    shared = _cross_document_numbers(corpus)
    with paused_gc():
        for number, document in enumerate(corpus.documents):
            meta = document.meta.get("conll2012") if layout is None else None
            _Writer(document, number, meta, layout or "ontonotes", discontinuous, report, shared,
                    comments == "keep").write(lines)
    corpus_meta = corpus.meta.get("conll2012", {}) if layout is None else {}
    lines.extend(corpus_meta.get("after", []))
    text = "\n".join(lines)
    return text + "\n" if corpus_meta.get("final_newline", True) else text


class _Writer:
    def __init__(
        self, document: Document, number: int, meta: dict[str, Any] | None, layout: str, discontinuous: str,
        report: Report, shared_numbers: dict[str, str] | None = None, keep_comments: bool = False,
    ) -> None:
        self.document = document
        # A document read with comment lines (written with comments=keep) keeps them when written in its layout.
        self.comments = keep_comments or bool(meta and meta.get("comments"))
        self.shared_numbers = shared_numbers
        self.meta = meta
        self.layout = layout
        self.report = report
        self.name, self.part = _name_and_part(document, number, layout)
        if meta is not None:
            self.joiner, self.inside_ids = meta["joiner"], meta["inside_ids"]
            self.empty = meta.get("empty", "-")
            self.typed = meta["labels"] == "typed"
            self.verbatim_labels = meta["labels"] == "verbatim"
        else:
            self.joiner, self.inside_ids = ("" if layout in _THREE_COLUMNS else "|"), False
            self.empty = "_" if layout in _THREE_COLUMNS else "-"
            self.typed, self.verbatim_labels = layout == "gum", False
        self.spans = contiguous_spans(document, discontinuous, report, "CoNLL-2012")
        self.labels = self._labels()
        report_unheld(document, self._holds(), report, "CoNLL-2012", self.spans, self._read_back_id(),
                      {entity: self._read_back_entity_id(label) for entity, label in self.labels.items()},
                      {"genre": genre_from_id(self._read_back_id()), "language": None, "topic": None,
                       "subtopic": None})
        crossing = _crossing_mentions(self.spans)
        if crossing:
            report.add("crossing mentions of one entity (CoNLL-2012 reads them back as other spans)",
                       str(document.id), crossing)

    def _holds(self) -> Holds:
        """What this document's layout keeps: its own lines (read from CoNLL-2012) keep every column; OntoNotes'
        layout the POS and speaker; GUM's labels entity types and identities."""
        own = self.meta is not None
        return Holds(columns=("XPOS",) if own or self.layout == "ontonotes" else (),
                     speaker=own or self.layout == "ontonotes" or self.comments, conll2012_columns=own,
                     entity_types=self.typed, entity_fields=("identity",) if self.typed else False,
                     sentence_ids=self.comments, sentence_text=self.comments, comments=self.comments,
                     multiword_tokens=self.comments)

    def _read_back_id(self) -> str:
        """The id the reader gives the document written here: the name for part 0, else NAME/part NNN."""
        return f"{self.name}{PART}{self.part}" if self.part.isdigit() and int(self.part) else self.name

    def _read_back_entity_id(self, label: str) -> str:
        typed = None if label.isdigit() else _TYPED.match(label)
        return typed[2] if typed is not None else label

    def write(self, lines: list[str]) -> None:
        meta, document = self.meta, self.document
        if meta is not None:
            lines.extend(meta.get("before", []))
            lines.append(meta["begin"])
        elif self.layout in _THREE_COLUMNS:
            lines.append(f"# begin document {self.name}")
        else:
            lines.append(f"#begin document ({self.name}); part {self.part}")
        self.insides: dict[tuple[int, int], list[tuple[Mention, str]]] = {}
        self.cells = self._cells()
        between = meta.get("between", {}) if meta is not None else {}
        offset = 0  # GUM numbers tokens over the document
        sentences = document.sentences
        for index, sentence in enumerate(sentences):
            # A sentence's comments follow a sentence break, which GUM's layout otherwise leaves out.
            breaks = meta is None and self.layout in _THREE_COLUMNS and not self.comments
            default = [] if index == 0 or breaks else [""]
            lines.extend(between.get(str(index), default))
            if self.comments:
                lines.extend(comment_lines(sentence))
            words = [node for node in sentence.nodes if not node.is_empty]
            for at, node in enumerate(words):
                read = meta is not None and node.conll2012 is not None
                lines.append(self._line(node, at, offset + at, self._items(node, (index, at), read)))
            offset += len(words)
        default = [] if not sentences or (meta is None and self.layout in _THREE_COLUMNS) else [""]
        lines.extend(between.get(str(len(sentences)), default))
        if meta is not None:
            lines.append(meta["end"] if meta["end"] is not None else "#end document")
        elif self.layout in _THREE_COLUMNS:
            lines.extend(["# end document", ""])
        else:
            lines.append("#end document")

    # -- coreference cells ---------------------------------------------------------------------------------------
    def _cells(self) -> dict[tuple[int, int], list[tuple[Mention, str]]]:
        """(sentence index, word index) -> the (mention, kind) items that word carries, in canonical order."""
        cells: dict[tuple[int, int], list[tuple[Mention, str, tuple[int, ...]]]] = {}
        for mention, span in self.spans.items():
            length = span.end - span.start
            if length == 0:
                cells.setdefault((span.sentence, span.start), []).append((mention, "single", (2, 0)))
                continue
            # Closings of later-begun mentions first, then single ones, then openings of longer mentions first:
            # with one id on nested mentions, that is the order which reads back as the same spans.
            cells.setdefault((span.sentence, span.start), []).append((mention, "open", (3, -length)))
            cells.setdefault((span.sentence, span.end), []).append((mention, "close", (1, -span.start)))
            if self.inside_ids:
                for at in range(span.start + 1, span.end):
                    self.insides.setdefault((span.sentence, at), []).append((mention, "inside"))
        return {key: [(m, kind) for m, kind, _rank in sorted(items, key=lambda item: item[2])]
                for key, items in cells.items()}

    def _items(self, node: Node, key: tuple[int, int], read: bool) -> list[tuple[Mention, str]]:
        """The node's items: bare ids inside mentions (Potsdam) first, then brackets. A node read from a file keeps
        the bare ids it had, as far as their mentions still cover it; the Potsdam PCC does not write them all."""
        if not read:
            return self.insides.get(key, []) + self.cells.get(key, [])
        sentence, at = key
        insides = []
        for mention, _part, kind in node.bracket_order:
            span = self.spans.get(mention)
            if kind == "inside" and span is not None and span.sentence == sentence and span.start < at < span.end:
                insides.append((mention, kind))
        return insides + self.cells.get(key, [])

    def _cell(self, node: Node, items: list[tuple[Mention, str]]) -> str:
        stored = node.bracket_order
        if stored and len(stored) == len(items) and {(m, k) for m, _p, k in stored} == set(items):
            items = [(m, k) for m, _p, k in stored]
        text = []
        for mention, kind in items:
            label = self.labels[mention.entity]  # type: ignore[index]
            text.append(f"({label})" if kind == "single" else f"({label}" if kind == "open"
                        else f"{label})" if kind == "close" else label)
        return self.joiner.join(text)

    def _labels(self) -> dict[Entity, str]:
        entities = self.document.entities
        if self.verbatim_labels:
            numbers = [entity.id for entity in entities]
        elif self.shared_numbers is not None:
            numbers = [self.shared_numbers[entity.id] for entity in entities]
        else:
            numbers = _numbers(entities)
        labels = {}
        for entity, number in zip(entities, numbers):
            if self.typed and entity.type:
                identity = entity.attrs.get("identity")
                labels[entity] = f"{entity.type}-{number}" + (f"-{identity}" if identity else "")
            else:
                labels[entity] = number
        return labels

    # -- token lines ---------------------------------------------------------------------------------------------
    def _line(self, node: Node, at: int, over_document: int, items: list[tuple[Mention, str]]) -> str:
        cell = self._cell(node, items) if items else None
        kept = node.conll2012 if self.meta is not None else None
        if kept is None:
            return self._fresh_line(node, at, over_document, cell if cell is not None else self.empty)
        prefix, read_cell, suffix = kept
        if cell is None:
            cell = read_cell if read_cell in _NO_MENTION else self.empty
        elif cell.replace("|", "") == read_cell.replace("|", ""):
            cell = read_cell  # same items in the same order: keep how they were joined
        prefix = self._edited_prefix(node, prefix)
        if cell != read_cell and prefix.endswith(" "):
            # Space-aligned columns: keep the cell's right edge where it was.
            bare = prefix.rstrip(" ")
            prefix = bare + " " * max(1, len(prefix) - len(bare) + len(read_cell) - len(cell))
        return prefix + cell + suffix

    def _edited_prefix(self, node: Node, prefix: str) -> str:
        """The columns before the cell as read, with word, POS and speaker changed where the model was edited."""
        tabbed = prefix.endswith("\t")
        pieces = prefix.split("\t") if tabbed else re.split(r"(\s+)", prefix)
        step = 1 if tabbed else 2  # re.split keeps the separators between the fields
        fields = pieces[::step]
        if fields and fields[-1] == "":
            fields = fields[:-1]
        roles = column_roles(fields) or {}
        wanted: dict[int, str] = {}
        if "word" in roles:
            wanted[roles["word"]] = node.form
        if "pos" in roles and (node.xpos != "_" or fields[roles["pos"]] not in _NO_VALUE):
            wanted[roles["pos"]] = node.xpos
        speaker = node.sentence.speaker if node.sentence is not None else None
        if "speaker" in roles and speaker is not None:
            wanted[roles["speaker"]] = speaker
        changed = False
        for column, value in wanted.items():
            if fields[column] != value:
                pieces[column * step] = _column_value(value)
                changed = True
        if not changed:
            return prefix
        return "\t".join(pieces) if tabbed else "".join(pieces)

    def _fresh_line(self, node: Node, at: int, over_document: int, cell: str) -> str:
        word = _column_value(node.form)
        if self.layout in _THREE_COLUMNS:
            return f"{over_document}\t{word}\t{cell}"
        if self.layout == "scorer":
            return f"{_column_value(self.name)} {cell}"
        pos = _column_value(node.xpos) if node.xpos not in _NO_VALUE else "-"
        speaker = node.sentence.speaker if node.sentence is not None else None
        speaker = _column_value(speaker) if speaker else "-"
        return "\t".join((_column_value(self.name), str(int(self.part)), str(at), word, pos, "*", "-", "-", "-", speaker,
                          "*", cell))


def _name_and_part(document: Document, number: int, layout: str) -> tuple[str, str]:
    """The document's name and part as written: OntoNotes' ``#begin document (NAME)`` holds any name without a
    parenthesis or a line break as it is (the token lines' first column has it with underscores for spaces); the
    other layouts' name is one column."""
    name, part = split_part(document.id if document.id is not None else f"document_{number + 1}")
    if layout != "ontonotes" or not _VERBATIM_NAME.fullmatch(name):
        name = _column_value(name)
    return name, part if part is not None else "000"


_VERBATIM_NAME = re.compile(r"[^()\n\r]*\S[^()\n\r]*")


def _column_value(value: str) -> str:
    """Columns are split at whitespace: a value with spaces keeps them as underscores."""
    return "_".join(value.split()) if value.strip() else "_"


def _cross_document_numbers(corpus: Corpus) -> dict[str, str] | None:
    return cross_document_numbers(numbering_facts(document) for document in corpus.documents)


def numbering_facts(document: Document) -> tuple[str | None, tuple[str, ...]]:
    """What `cross_document_numbers` needs of a document: its topic and entity ids."""
    return document.topic, tuple(entity.id for entity in document.entities)


def cross_document_numbers(facts: Iterable[tuple[str | None, tuple[str, ...]]]) -> dict[str, str] | None:
    """Where documents have topics (ECB+), an entity id names one entity across documents: one cluster number per
    id over the whole file, in order of first appearance, as cross-document systems read CoNLL-2012 (numeric ids
    are kept when all are numbers). None for other corpora (numbers per document). ``facts``: each document's
    `numbering_facts`, in file order."""
    facts = list(facts)
    if not any(topic is not None for topic, _ids in facts):
        return None
    ids = list(dict.fromkeys(entity_id for _topic, entity_ids in facts for entity_id in entity_ids))
    if all(i.isdigit() for i in ids):
        return {i: i for i in ids}
    return {i: str(n) for n, i in enumerate(ids)}


class Conll2012Writer(StagedFile):
    """A CoNLL-2012 file written a document at a time (``add``; ``publish`` at the end), byte for byte what
    `write_conll2012` writes for the same documents at once (a corpus without CoNLL-2012 lines of its own to
    end with), for documents that do not fit in memory together. ``numbers``: `cross_document_numbers` of all the
    file's documents, which a caller reading the documents twice can collect on the first pass."""

    def __init__(self, path: str | Path, report: Report | None, numbers: dict[str, str] | None,
                 layout: str | None = None, discontinuous: str = "drop", comments: str = "drop") -> None:
        if layout is not None and layout not in LAYOUTS:
            raise ValueError(f"unknown CoNLL-2012 layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
        check_choice("comments", comments, COMMENT_POLICIES)
        super().__init__(path)
        self.keep_comments = comments == "keep"
        self.report = report if report is not None else Report()
        self.numbers = numbers
        self.layout = layout
        self.discontinuous = discontinuous
        self.number = 0

    def add(self, document: Document) -> None:
        lines: list[str] = []
        meta = document.meta.get("conll2012") if self.layout is None else None
        _Writer(document, self.number, meta, self.layout or "ontonotes", self.discontinuous, self.report,
                self.numbers, self.keep_comments).write(lines)
        self.number += 1
        if lines:
            self.write("\n".join(lines) + "\n")


def _numbers(entities: list[Entity]) -> list[str]:
    """Numeric labels: the ids where they are numbers, else their digits where those differ, else 0, 1, ..."""
    ids = [entity.id for entity in entities]
    if all(i.isdigit() for i in ids):
        return ids
    digits = [re.sub(r"\D", "", i).lstrip("0") or "0" for i in ids]
    if all(re.fullmatch(r"\D*\d+", i) for i in ids) and len(set(digits)) == len(digits):
        return digits
    return [str(n) for n in range(len(ids))]


def _crossing_mentions(spans: dict[Mention, WordSpan]) -> int:
    """Mentions that cross another mention of their entity in the same sentence."""
    groups: dict[tuple[int, int], list[WordSpan]] = {}
    for mention, span in spans.items():
        groups.setdefault((id(mention.entity), span.sentence), []).append(span)
    crossing = 0
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda s: (s.start, -s.end))
        ends: list[int] = []
        for span in group:
            # One that ends on the word where this one starts closes first there (closings come before openings
            # in a cell), so it reads back right: only one still open after that word crosses.
            while ends and ends[-1] <= span.start:
                ends.pop()
            if ends and ends[-1] < span.end:
                crossing += 1
            ends.append(span.end)
    return crossing
