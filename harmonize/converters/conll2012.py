"""CoNLL-2012 (OntoNotes) coreference files: reader.

Layout: ``#begin document (NAME); part NNN`` ... ``#end document`` (also ``# begin document`` with no name, as
the official OntoGUM output writes it: the file then names the document); one token per line, columns separated by
tabs or spaces, coreference in the last column (``(1``, ``1)``, ``(1)``, ``(1)|(2``, ``(1(1``, ``-``); a blank line ends
a sentence. The word is column 4 in the OntoNotes and scorer layouts (5 or more columns), column 2 in the
3-column GUM layout. Each ``#begin document`` block (each part) becomes one :class:`Document` whose id is
``NAME`` or, with a part, ``NAME/part NNN`` as the reference scorer names it; the genre comes from the id
(OntoNotes "bc/cctv/...", GUM "GUM_academic_...").

Only what coreference scoring needs is read so far: tokens, sentences and coreference. The writer and the other
OntoNotes columns (speaker, POS, parse) come with the full CoNLL-2012 support.
"""

from __future__ import annotations

import re
from pathlib import Path

from harmonize.errors import Problems, Report
from harmonize.io import paused_gc, read_text
from harmonize.schemas.model import Corpus, Document, Entity, Mention, Node, Sentence

_BEGIN = re.compile(r"#\s*begin document\s*(?:\((.*?)\))?;?(?:\s*part (\d+))?\s*$")
_END = re.compile(r"#\s*end document")
_PART = re.compile(r"\((\d+)\)|\((\d+)|(\d+)\)")


def read_conll2012(path: str | Path, lenient: bool = False, report: Report | None = None) -> Corpus:
    return parse_conll2012(read_text(path), str(path), lenient, report)


def parse_conll2012(
    text: str, path: str = "<string>", lenient: bool = False, report: Report | None = None
) -> Corpus:
    problem = Problems(path, lenient, report if report is not None else Report())
    corpus = Corpus(meta={"source": path})
    document: Document | None = None
    entities: dict[str, Entity] = {}
    sentence: Sentence | None = None
    # open mentions per entity id: (start position, line) stacks
    open_spans: dict[str, list[tuple[int, int]]] = {}
    begin_line = 0

    def end_sentence(line: int) -> None:
        nonlocal sentence
        for eid, stack in open_spans.items():
            for _start, opened in stack:
                problem(opened, "mention crosses a sentence boundary", f"{eid} is not closed by line {line}")
        open_spans.clear()
        sentence = None

    with paused_gc():
        for number, raw in enumerate(text.split("\n"), 1):
            line = raw.rstrip("\r")
            if _BEGIN.match(line):
                if document is not None:
                    problem(number, "#begin document inside a document", f"{document.id} has no #end document")
                match = _BEGIN.match(line)
                if match is None:
                    problem(number, "malformed #begin document line", line)
                    continue
                # The official OntoGUM output leaves the name empty: the file names the document.
                name = (match[1] or Path(path).stem) + (f"/part {match[2]}" if match[2] else "")
                document = Document(id=name, source=path, genre=genre_from_id(name))
                entities = {}
                begin_line = number
                continue
            if _END.match(line):
                if document is None:
                    problem(number, "#end document without #begin document")
                    continue
                end_sentence(number)
                for entity in document.entities:
                    entity.mentions.sort(key=lambda m: m.order)
                corpus.documents.append(document)
                document = None
                continue
            if not line.strip():
                if sentence is not None:
                    end_sentence(number)
                continue
            if line.startswith("#"):
                continue
            if document is None:
                problem(number, "token outside a document", "no #begin document before it")
                continue
            columns = line.split()
            if len(columns) < 2:
                problem(number, "broken token line", f"expected at least 2 columns, found {len(columns)}")
                continue
            if sentence is None:
                sentence = document.add_sentence(Sentence(id=f"{document.id}-{len(document.sentences) + 1}"))
            word = columns[3] if len(columns) >= 5 else columns[1] if len(columns) >= 3 else columns[0]
            node = sentence.add_node(Node(str(len(sentence.nodes) + 1), word))
            coref = columns[-1]
            if coref in ("-", "_"):
                continue
            brackets = list(_PART.finditer(coref))
            if "".join(m[0] for m in brackets) != coref.replace("|", ""):
                problem(number, "malformed coreference", repr(coref))
                continue
            for match in brackets:  # "(1)|(2" and "(1(1" alike
                single, opening, closing = match.groups()
                if single is not None:
                    _add_mention(document, entities, sentence, node.position, node.position, single)
                elif opening is not None:
                    # Entities are created in the order their first bracket opens (the scorer's "first cluster").
                    _entity(document, entities, opening)
                    open_spans.setdefault(opening, []).append((node.position, number))
                else:
                    stack = open_spans.get(closing)
                    if not stack:
                        problem(number, "closing bracket without an open mention", f"{closing})")
                        continue
                    start, _opened = stack.pop()
                    _add_mention(document, entities, sentence, start, node.position, closing)
    if document is not None:
        problem(begin_line, "#begin document without #end document", str(document.id))
        corpus.documents.append(document)
    return corpus


def genre_from_id(document_id: str) -> str | None:
    """OntoNotes ids start with the genre ("bc/cctv/00/cctv_0001"); GUM's name it second ("GUM_academic_art")."""
    if "/" in document_id:
        return document_id.split("/", 1)[0]
    parts = document_id.split("_")
    if parts[0] in ("GUM", "GENTLE") and len(parts) > 2:
        return parts[1]
    return None


def _entity(document: Document, entities: dict[str, Entity], eid: str) -> Entity:
    entity = entities.get(eid)
    if entity is None:
        entity = entities[eid] = Entity(eid, document=document)
        document.entities.append(entity)
    return entity


def _add_mention(
    document: Document, entities: dict[str, Entity], sentence: Sentence, start: int, end: int, eid: str
) -> None:
    entity = _entity(document, entities, eid)
    mention = Mention(sentence.nodes[start : end + 1], entity)
    entity.mentions.append(mention)
    for node in mention.words:
        node.mentions += (mention,)
