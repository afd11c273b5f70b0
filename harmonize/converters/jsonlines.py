"""The jsonlines format of e2e-coref and its descendants: one JSON object per line, one document per object.

Schema (keys in this order; indices are 0-based word positions over the whole document, ends inclusive)::

    {"doc_key": "bc/cctv/00/cctv_0000_0",          # str: document id; "NAME/part NNN" is written NAME_N, and
                                                    #   part 0 of a CoNLL-2012 file NAME_0 (e2e-coref's keys)
     "sentences": [["In", "the", ...], ...],        # list[list[str]]: words per sentence (no empty nodes)
     "speakers": [["Speaker#1", ...], ...],         # list[list[str]]: one per word, "-" where unknown
     "clusters": [[[6, 7], [23, 23]], ...],         # list[list[[start, end]]]: entities in document order,
                                                    #   mentions in document order; singletons kept
     "pos": [["IN", "DT", ...], ...],               # optional: POS per word, only where the corpus has POS
     ...}                                           # other keys read from a jsonlines file (e.g. "constituents",
                                                    #   "ner") are kept and written back after these

Trainers that read it unchanged: e2e-coref (Lee et al. 2017/2018, ``coref_model.tensorize_example``: it also takes
the genre from ``doc_key[:2]``, so OntoNotes-style keys such as "bc/..." are needed there) and s2e-coref
(``data.py``: sentences, speakers, clusters); fastcoref's and maverick's loaders start from the same word-level
sentences and clusters. SpanBERT-style coref needs its subword preprocessing run on this output, and wl-coref its
own conversion script.

The model keeps more than this format can: empty nodes and discontinuous mentions follow the named policy of
`harmonize.converters.spans` (``drop`` or ``head-part``), and everything else that is not written (entity
ids and types, heads, links, bridging, split antecedents, CoNLL-U columns) is counted in the report, as are
singletons when ``singletons="drop"``.

Reading gives one document per line (entity ids "0", "1", ... in cluster order); ``speakers`` become
``Sentence.speaker`` where one speaker says the whole sentence, ``pos`` becomes ``Node.xpos``. A mention that
crosses a sentence boundary, or indices out of range, are errors with the line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harmonize.converters.conll2012 import genre_from_id
from harmonize.converters.losses import Holds, report_unheld
from harmonize.converters.spans import contiguous_spans
from harmonize.errors import Problems, Report
from harmonize.io import StagedFile, atomic_write_text, paused_gc, read_text
from harmonize.schemas.model import (
    DOCUMENT_FIELDS,
    Corpus,
    Document,
    Entity,
    Mention,
    Node,
    Sentence,
    made_sentence_id,
    split_part,
)

STANDARD_KEYS = ("doc_key", "sentences", "speakers", "clusters", "pos")
_NO_SPEAKER = "-"


# -- reading -----------------------------------------------------------------------------------------------------

def read_jsonlines(path: str | Path, lenient: bool = False, report: Report | None = None) -> Corpus:
    report = report if report is not None else Report()
    return parse_jsonlines(read_text(path, report), str(path), lenient, report)


def parse_jsonlines(text: str, path: str = "<string>", lenient: bool = False, report: Report | None = None) -> Corpus:
    problem = Problems(path, lenient, report if report is not None else Report())
    corpus = Corpus(meta={"source": path})
    with paused_gc():
        for number, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                problem(number, "not JSON", f"{error.msg} at column {error.colno}")
                continue
            try:
                corpus.documents.append(_document(record, path, number, problem))
            except (KeyError, TypeError, ValueError) as error:
                problem(number, "not an e2e-coref document", f"{type(error).__name__}: {error}")
    return corpus


def _document(record: dict[str, Any], path: str, number: int, problem: Problems) -> Document:
    if not isinstance(record, dict) or "sentences" not in record:
        raise ValueError("a JSON object with 'sentences' is needed")
    doc_key = str(record.get("doc_key", f"{Path(path).stem}-{number}"))
    document = Document(id=doc_key, source=path, genre=genre_from_id(doc_key))
    for name in DOCUMENT_KEYS:  # the document's fields where the record names them (our writer does)
        if isinstance(record.get(name), str):
            setattr(document, name, record[name])
    extra = {key: value for key, value in record.items() if key not in STANDARD_KEYS}
    if extra:
        document.meta["jsonlines"] = extra
    speakers = record.get("speakers")
    pos = record.get("pos")
    where: list[tuple[Sentence, int]] = []  # word index over the document -> (sentence, position)
    for s, words in enumerate(record["sentences"]):
        sentence = document.add_sentence(Sentence(id=made_sentence_id(doc_key, s + 1)))
        for w, word in enumerate(words):
            tag = pos[s][w] if pos is not None else "_"
            sentence.add_node(Node(str(w + 1), str(word), xpos=str(tag) if tag not in ("", "-") else "_"))
            where.append((sentence, w))
        sentence.text = " ".join(str(word) for word in words)
        if speakers is not None and len(speakers[s]) != len(words):
            raise ValueError(f"sentence {s} has {len(words)} words and {len(speakers[s])} speakers")
        said = set(speakers[s]) if speakers is not None else set()
        if len(said) == 1 and not said & {_NO_SPEAKER, "_", ""}:
            sentence.speaker = said.pop()
        elif said - {_NO_SPEAKER, "_", ""}:
            problem.report.add("speaker changes inside a sentence (not kept)", f"{path}:{number}: sentence {s}")
    for c, cluster in enumerate(record.get("clusters", [])):
        entity: Entity | None = None
        for start, end in cluster:
            if not (0 <= start <= end < len(where)):
                problem(number, "mention out of range", f"[{start}, {end}] in a document of {len(where)} words")
                continue
            (sentence, first), (last_sentence, last) = where[start], where[end]
            if sentence is not last_sentence:
                problem(number, "mention crosses a sentence boundary", f"[{start}, {end}] in cluster {c}")
                continue
            if entity is None:
                entity = Entity(str(c), document=document)
                document.entities.append(entity)
            mention = Mention(sentence.nodes[first : last + 1], entity)
            entity.mentions.append(mention)
            for node in mention.words:
                node.mentions += (mention,)
    for entity in document.entities:
        entity.mentions.sort(key=lambda m: m.order)
    return document


# -- writing -----------------------------------------------------------------------------------------------------

def write_jsonlines(
    corpus: Corpus, path: str | Path, report: Report | None = None, discontinuous: str = "drop",
    singletons: str = "keep",
) -> None:
    atomic_write_text(path, format_jsonlines(corpus, report, discontinuous, singletons))


def format_jsonlines(
    corpus: Corpus, report: Report | None = None, discontinuous: str = "drop", singletons: str = "keep"
) -> str:
    """One line per document; ``discontinuous``: see `harmonize.converters.spans`; ``singletons``: "keep" or
    "drop" (many OntoNotes-trained systems expect none)."""
    if singletons not in ("keep", "drop"):
        raise ValueError(f"singletons must be 'keep' or 'drop', not {singletons!r}")
    report = report if report is not None else Report()
    with paused_gc():
        lines = [json.dumps(document_record(document, report, discontinuous, singletons), ensure_ascii=False)
                 for document in corpus.documents]
    return "".join(line + "\n" for line in lines)


class JsonlinesWriter(StagedFile):
    """A jsonlines file written a document at a time (``add``; ``publish`` at the end), byte for byte what
    `write_jsonlines` writes for the same documents at once."""

    def __init__(self, path: str | Path, report: Report | None, discontinuous: str = "drop",
                 singletons: str = "keep") -> None:
        if singletons not in ("keep", "drop"):
            raise ValueError(f"singletons must be 'keep' or 'drop', not {singletons!r}")
        super().__init__(path)
        self.report = report if report is not None else Report()
        self.discontinuous = discontinuous
        self.singletons = singletons

    def add(self, document: Document) -> None:
        record = document_record(document, self.report, self.discontinuous, self.singletons)
        self.write(json.dumps(record, ensure_ascii=False) + "\n")


def document_record(
    document: Document, report: Report, discontinuous: str = "drop", singletons: str = "keep"
) -> dict[str, Any]:
    """The jsonlines object of one document."""
    offsets: list[int] = []
    sentences: list[list[str]] = []
    speakers: list[list[str]] = []
    tags: list[list[str]] = []
    total = 0
    for sentence in document.sentences:
        words = [node for node in sentence.nodes if not node.is_empty]
        offsets.append(total)
        total += len(words)
        sentences.append([node.form for node in words])
        speakers.append([sentence.speaker or _NO_SPEAKER] * len(words))
        tags.append([node.xpos for node in words])
    spans = contiguous_spans(document, discontinuous, report, "jsonlines")
    clusters = []
    written: list[Mention] = []
    cluster_ids: dict[Entity, str] = {}  # the reader numbers clusters 0, 1, ...
    for entity in document.entities:
        mentions = [mention for mention in entity.mentions if mention in spans]
        if len(mentions) == 1 and singletons == "drop":
            report.add("singleton dropped (singletons=drop)", f"{document.id}: {entity.id}")
            continue
        if mentions:
            cluster_ids[entity] = str(len(clusters))
            written.extend(mentions)
            clusters.append([[offsets[spans[m].sentence] + spans[m].start, offsets[spans[m].sentence] + spans[m].end]
                             for m in mentions])
    record: dict[str, Any] = {"doc_key": _doc_key(document), "sentences": sentences, "speakers": speakers,
                              "clusters": clusters}
    if any(tag != "_" for sentence_tags in tags for tag in sentence_tags):
        record["pos"] = tags
    record.update(document.meta.get("jsonlines", {}))
    doc_key = record["doc_key"]
    # The document's fields as keys of their own, which e2e-coref's readers pass over (a genre its doc_key says
    # is not repeated).
    for name in DOCUMENT_KEYS:
        value = getattr(document, name)
        if value is not None and (name in record or not (name == "genre" and value == genre_from_id(doc_key))):
            record[name] = value
    # Each field reads back as written; a genre the document lacks reads back from the doc_key's prefix.
    back = {name: getattr(document, name) for name in DOCUMENT_KEYS}
    back["genre"] = document.genre if document.genre is not None else genre_from_id(doc_key)
    report_unheld(document, _HOLDS, report, "jsonlines", {m: spans[m] for m in written}, doc_key, cluster_ids, back)
    return record


_HOLDS = Holds(columns=("XPOS",), speaker=True)
DOCUMENT_KEYS = DOCUMENT_FIELDS  # a record's keys are the fields' names


def _doc_key(document: Document) -> str:
    name, part = split_part(document.id if document.id is not None else "document")
    if part is None and "conll2012" in document.meta:  # part 0 of a CoNLL-2012 file: e2e-coref keys it NAME_0
        part = "0"
    return f"{name}_{int(part)}" if part is not None else name
