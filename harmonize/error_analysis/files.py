"""Error analysis of files: both sides read a document at a time (a large CorefUD file a piece at a time),
paired by id, compared (`harmonize.error_analysis.analysis`) and, where asked, written as HTML pages as they come
(`harmonize.error_analysis.render`). What ``harmonize diff`` runs."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from harmonize.converters import get_format
from harmonize.error_analysis.analysis import (
    DiffResult,
    check_pair_words,
    diff_corpora,
    diff_partition,
)
from harmonize.error_analysis.cost import CostTable
from harmonize.error_analysis.render import DiffPages, write_pages
from harmonize.errors import HarmonizeError, Report
from harmonize.schemas.model import Corpus, Document, pairing_key
from harmonize.scoring.matching import DEFAULT_MATCHING, MATCHING_MODES


def read_side(path: str | Path, format: str, read_options: dict[str, str] | None = None, lenient: bool = False,
              report: Report | None = None) -> Corpus:
    """Every document of a file, or of the format's files in a folder (strictly, or dropping what is broken and
    counting it in ``report``); a document id twice on one side is an error."""
    from harmonize.conversion import input_files

    reader = get_format(format, "read")
    corpus = Corpus()
    where: dict[str | None, Path] = {}
    for file in input_files([Path(path)], reader):
        for document in reader.read(file, lenient, report if report is not None else Report(), read_options):
            if document.id in where:
                raise HarmonizeError(f"{file}: document {document.id!r} is also in {where[document.id]}: "
                                     "each document once on a side")
            where[document.id] = file
            corpus.documents.append(document)
    return corpus


def diff(key: str | Path, response: str | Path, format: str = "corefud", *, key_format: str | None = None,
         response_format: str | None = None, read_options: dict[str, str] | None = None,
         matching: str = DEFAULT_MATCHING,
         singletons: bool = False, cross_document: str | None = None, forms: bool = True,
         lenient: bool = False, pages: str | Path | None = None) -> DiffResult:
    """Compare a response file or folder with a key (what ``harmonize diff`` runs): documents paired by id and
    tokens checked as ``harmonize score`` does; documents only on one side are listed, not compared. ``lenient``
    reads past broken annotation (dropped and counted in the result's report).

    Documents are read and compared one at a time, a large CorefUD file a piece at a time; the response's
    documents wait only until their key document comes (memory grows with how far apart the two orders are).
    ``pages`` (an ``.html`` file, or a folder) gets the HTML pages (`harmonize.error_analysis.render`) as the
    documents are compared, and the result then keeps their rows, not the documents, so that memory follows a
    document; without it the result keeps every comparison (``partitions``). A cross-document comparison needs
    each topic's documents at once: both sides are then read whole."""
    if matching not in MATCHING_MODES:
        raise HarmonizeError(f"unknown matching mode {matching!r}: {', '.join(MATCHING_MODES)}")
    read = Report()
    if cross_document is not None:
        key_corpus = read_side(key, key_format or format, read_options, lenient, read)
        response_corpus = read_side(response, response_format or format, read_options, lenient, read)
        result = diff_corpora(key_corpus, response_corpus, singletons, matching, cross_document, forms)
        result.report.merge(read)
        if pages is not None:
            result.pages = write_pages(result, Path(pages))
        _note_guessed_heads(result, key, response, key_format or format, response_format or format, read_options)
        return result
    keep = pages is None
    result = DiffResult([], CostTable(), matching, singletons)
    keys = _Side(key, key_format or format, read_options, lenient, read, keep)
    responses = _Side(response, response_format or format, read_options, lenient, read, keep)
    waiting: dict[tuple, Document] = {}  # response documents read ahead of their key document
    key_documents = 0
    with DiffPages(Path(pages)) if pages is not None else nullcontext() as written:
        for key_document in keys:
            key_documents += 1
            wanted = pairing_key(key_document.id)
            while wanted not in waiting:
                found = next(responses, None)
                if found is None:
                    break
                waiting[pairing_key(found.id)] = found
            response_document = waiting.pop(wanted, None)
            if response_document is None:
                result.only_in_key.append(str(key_document.id))
                keys.done(key_document)
                continue
            check_pair_words([(key_document, response_document)], forms)
            partition = diff_partition(str(key_document.id), [key_document], [response_document], singletons,
                                       matching, result.report)
            result.add(partition, keep)
            if written is not None:
                written.add(partition)
            keys.done(key_document)
            responses.done(response_document)
        for found in responses:
            waiting[pairing_key(found.id)] = found
        if not key_documents and not waiting:
            raise HarmonizeError("nothing to compare: neither the key nor the response holds a document")
        result.only_in_response = [str(document.id) for document in waiting.values()]
        for document in waiting.values():
            responses.done(document)
        if written is not None:
            result.pages = written.finish(result)
    result.report.merge(read)
    _note_guessed_heads(result, key, response, key_format or format, response_format or format, read_options)
    return result


class _Side:
    """One side's documents in the order read (`harmonize.conversion.read_corpora`), each id once on the side; a
    piece of documents is freed once each of its documents is `done` (unless ``keep``)."""

    def __init__(self, path: str | Path, format: str, read_options: dict[str, str] | None, lenient: bool,
                 report: Report, keep: bool) -> None:
        from harmonize.conversion import input_files, read_corpora

        reader = get_format(format, "read")
        self._keep = keep
        self._pending: dict[int, list] = {}  # id(corpus) -> [corpus, documents not done]
        self._corpus_of: dict[int, Corpus] = {}
        self._documents = ((file, corpus, document) for file in input_files([Path(path)], reader)
                           for corpus in read_corpora(file, reader, lenient, report, read_options)
                           for document in corpus.documents)
        self._where: dict[str | None, Path] = {}

    def __iter__(self) -> _Side:
        return self

    def __next__(self) -> Document:
        file, corpus, document = next(self._documents)
        if document.id in self._where:
            raise HarmonizeError(f"{file}: document {document.id!r} is also in {self._where[document.id]}: "
                                 "each document once on a side")
        self._where[document.id] = file
        self._pending.setdefault(id(corpus), [corpus, len(corpus.documents)])
        self._corpus_of[id(document)] = corpus
        return document

    def done(self, document: Document) -> None:
        corpus = self._corpus_of.pop(id(document))
        entry = self._pending[id(corpus)]
        entry[1] -= 1
        if entry[1] == 0:
            del self._pending[id(corpus)]
            if not self._keep:
                corpus.release()


def _note_guessed_heads(result: DiffResult, key: str | Path, response: str | Path, key_format: str,
                        response_format: str, read_options: dict[str, str] | None) -> None:
    """Under head matching, a note for each side whose heads look guessed (`harmonize.scoring.guessed_heads`)."""
    if result.matching != "head":
        return
    from harmonize.scoring.guessed_heads import guessed_heads_note, heads_guessed

    for side, path, fmt in (("key", key, key_format), ("response", response, response_format)):
        how = heads_guessed(path, fmt, read_options)
        if how is not None:
            result.notes.append(guessed_heads_note(side, None, how))
