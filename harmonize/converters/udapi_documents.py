"""The model to and from udapi's documents in memory, so that udapi's blocks and ours combine in one script
(``pip install udapi``: an optional dependency). The bridge is CorefUD text, the language both read and write: a
corpus is written as CorefUD and udapi reads it (`to_udapi`); udapi writes its document and we read it
(`from_udapi`). What CorefUD cannot hold is reported as the CorefUD writer reports it."""

from __future__ import annotations

from typing import Any

from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.errors import HarmonizeError, Report
from harmonize.schemas.model import Corpus, Document


def _udapi_document_class() -> Any:
    try:
        from udapi.core.document import Document as UdapiDocument
    except ImportError:
        raise HarmonizeError("udapi is not installed: pip install udapi") from None
    return UdapiDocument


def to_udapi(corpus: Corpus | Document, report: Report | None = None) -> Any:
    """A udapi ``Document`` holding the corpus (or one document) as CorefUD has it: its bundles, trees, and the
    coreference entities, mentions, bridges and split antecedents udapi builds from the Entity values."""
    corpus = corpus if isinstance(corpus, Corpus) else Corpus([corpus])
    document = _udapi_document_class()()
    document.from_conllu_string(format_corefud(corpus, report if report is not None else Report()))
    return document


def from_udapi(document: Any, lenient: bool = False, report: Report | None = None) -> Corpus:
    """The corpus a udapi ``Document`` holds (what udapi writes as CoNLL-U, read by our CorefUD reader)."""
    return parse_corefud(document.to_conllu_string(), "<udapi document>", lenient,
                         report if report is not None else Report())
