"""harmonize: coreference corpora in one model, and back out again."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmonize.conversion import Conversion, convert
from harmonize.converters import formats, get_format
from harmonize.errors import FormatError, HarmonizeError, ModelError, Report
from harmonize.schemas.model import Bridge, Corpus, Document, Entity, Mention, Node, Sentence, SplitAntecedent

if TYPE_CHECKING:
    from harmonize.error_analysis.analysis import DiffResult
    from harmonize.scoring.score import CorpusScore

__version__ = "0.1.0"


def read(path: str | Path, format: str = "corefud", lenient: bool = False, report: Report | None = None,
         **options: str) -> Corpus:
    """Read one file (or a format's folder: a TEI document or corpus) in ``format`` into a :class:`Corpus`;
    ``options`` are the reader's (``harmonize formats`` lists them), e.g. ``zeros="verb"`` for TEI."""
    fmt = get_format(format, "read")
    checked = fmt.read_options([f"{key}={value}" for key, value in options.items()])
    return fmt.read(Path(path), lenient, report if report is not None else Report(), checked)


def write(corpus: Corpus, path: str | Path, format: str = "corefud", report: Report | None = None,
          **options: str) -> None:
    """Write ``corpus`` to one file (a folder for TEI) in ``format``, atomically; ``options`` are the writer's."""
    fmt = get_format(format, "write")
    checked = fmt.writer_options([f"{key}={value}" for key, value in options.items()])
    fmt.writer(corpus, Path(path), report if report is not None else Report(), **checked)


def parse(corpus: Corpus, engine: str, overwrite: bool = False, report: Report | None = None) -> Report:
    """Give the documents of ``corpus`` that lack trees UD trees with ``engine`` (``udpipe:MODEL``,
    ``stanza[:LANG]``; see :mod:`harmonize.parsing`), filling only the columns their source left empty unless
    ``overwrite``, then give mentions heads; returns the report (documents parsed, heads per source)."""
    from harmonize.parsing.trees import parse_corpus

    report = report if report is not None else Report()
    parse_corpus(corpus, engine, report, overwrite)
    return report


def score(key: str | Path, response: str | Path, format: str = "corefud", **options: Any) -> CorpusScore:
    """Score a response file against a key file, as ``harmonize score`` does; ``options`` are those of
    :func:`harmonize.scoring.score.score_files` (metrics, singletons, mode, cross_document, ...). Returns a
    :class:`~harmonize.scoring.score.CorpusScore`."""
    from harmonize.scoring.score import score_files

    return score_files(key, response, format, **options)


def diff(key: str | Path, response: str | Path, format: str = "corefud", **options: Any) -> DiffResult:
    """Where a response differs from a key, as ``harmonize diff`` finds it (Kummerfeld & Klein's operations and
    error types, what each costs); ``options`` are those of :func:`harmonize.error_analysis.analysis.diff`
    (key_format, response_format, matching, singletons, cross_document, ...). Returns a
    :class:`~harmonize.error_analysis.analysis.DiffResult`."""
    from harmonize.error_analysis.analysis import diff as analyse

    return analyse(key, response, format, **options)


def __getattr__(name: str) -> Any:
    """``harmonize.build``, imported on first use: the package ``harmonize/build/``, which can be called as
    ``harmonize.build(recipe, output, ...)`` (see :func:`harmonize.build.build`)."""
    if name == "build":
        import harmonize.build

        return harmonize.build
    raise AttributeError(f"module 'harmonize' has no attribute {name!r}")


__all__ = [
    "Bridge", "Conversion", "Corpus", "Document", "Entity", "FormatError", "HarmonizeError", "Mention", "ModelError",
    "Node", "Report", "Sentence", "SplitAntecedent", "build", "convert", "diff", "formats", "parse", "read", "score", "write",
]
