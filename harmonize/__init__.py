"""harmonize: coreference corpora in one model, and back out again."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harmonize.checking import FileCheck, check
from harmonize.conversion import Conversion, convert
from harmonize.converters import formats, get_format
from harmonize.errors import FormatError, HarmonizeError, LossWarning, ModelError, Report
from harmonize.schemas.model import Bridge, Corpus, Document, Entity, Mention, Node, Sentence, SplitAntecedent
from harmonize.version import __version__ as __version__  # harmonize.__version__

if TYPE_CHECKING:
    from harmonize.error_analysis.analysis import DiffResult
    from harmonize.releases import BuildResult
    from harmonize.scoring.frame import CorpusScore
    from harmonize.scoring.systems import SystemsComparison


def read(path: str | Path, format: str | None = None, lenient: bool = False, report: Report | None = None,
         **options: str) -> Corpus:
    """Read one file (or a format's folder: a TEI document, an MMAX2 project) in ``format`` into a `Corpus`.

    ``path`` may be a corpus id where no such path exists (``"gum/dep/GUM_academic_art.conllu"``: the file in the
    fetched corpus, see `harmonize.corpora`); ``format`` is then the catalog's reader for it, else CorefUD.

    ``options`` are the reader's (``harmonize formats`` lists them), e.g. ``zeros="verb"`` for TEI. ``lenient``
    drops broken annotation instead of raising `FormatError`. What was dropped or changed is in
    ``corpus.report`` (the ``report`` given, if any); where that is not empty and no ``report`` was given, one
    `LossWarning` says so.

    Examples:
        >>> from importlib import resources
        >>> import harmonize
        >>> corpus = harmonize.read(resources.files("harmonize") / "samples" / "sample.conllu")
        >>> len(corpus.documents), corpus.report.counts
        (2, Counter())
    """
    from harmonize.corpora import resolve

    resolved = resolve(path)
    if resolved is not None:
        path, format = resolved.path, format or resolved.format or None
    fmt = get_format(format or "corefud", "read")
    checked = fmt.read_options([f"{key}={value}" for key, value in options.items()])
    corpus = fmt.read(Path(path), lenient, report if report is not None else Report(), checked)
    if report is None:
        _warn_losses(corpus.report, f"reading {path} as {fmt.name}")
    return corpus


def write(corpus: Corpus, path: str | Path, format: str = "corefud", report: Report | None = None,
          **options: str) -> Report:
    """Write ``corpus`` to one file (a folder for formats written a document per file) in ``format``, atomically.

    ``options`` are the writer's (``harmonize formats``). Returns the report of what the format could not hold
    (the ``report`` given, if any); where it is not empty and no ``report`` was given, one `LossWarning`
    gives the counts, e.g. CoNLL-2012 has no place for heads, bridges or entity types.
    """
    fmt = get_format(format, "write")
    checked = fmt.writer_options([f"{key}={value}" for key, value in options.items()])
    newline = checked.pop("newline", "lf")
    written = report if report is not None else Report()
    fmt.writer(corpus, Path(path), written, **checked)
    if newline == "crlf":
        from harmonize.conversion import write_crlf

        write_crlf(Path(path))
    if report is None:
        _warn_losses(written, f"writing {path} as {format}")
    return written


def _warn_losses(report: Report, what: str) -> None:
    if report:
        warnings.warn(f"{what} dropped or changed: {report.summary()} (pass report= to receive them, or see "
                      "the result's .report)", LossWarning, stacklevel=3)


def parse(corpus: Corpus, engine: str, overwrite: bool = False, report: Report | None = None) -> Report:
    """Give the documents of ``corpus`` that lack trees UD trees with ``engine`` (``udpipe:MODEL``,
    ``stanza[:LANG]``; see `harmonize.parsing`), filling only the columns their source left empty unless
    ``overwrite``, then give mentions heads; returns the report (documents parsed, heads per source)."""
    from harmonize.parsing.trees import parse_corpus

    report = report if report is not None else Report()
    parse_corpus(corpus, engine, report, overwrite)
    return report


def score(key: str | Path, response: str | Path, format: str = "corefud", **options: Any) -> CorpusScore:
    """Score a response file against a key file, as ``harmonize score`` does; ``options`` are those of
    `harmonize.scoring.score.score_files` (metrics, singletons, mode, cross_document, ``by`` a grouping, ``ci`` an
    interval level...). Returns a `CorpusScore`."""
    from harmonize.scoring.score import score_files

    return score_files(key, response, format, **options)


def compare_systems(key: str | Path, responses: list[str | Path], format: str = "corefud",
                    **options: Any) -> SystemsComparison:
    """Several systems' outputs scored against one key on the same documents, each pair tested (paired bootstrap,
    approximate randomization), as ``harmonize score KEY SYS_A SYS_B ...`` does; ``options`` are those of
    `harmonize.scoring.systems.compare_systems` (``tested`` metrics, ``level``, ``samples``, ``seed``, ``exact``)
    and of `harmonize.scoring.score.score_files`. Returns a `SystemsComparison`."""
    from harmonize.scoring.systems import compare_systems as compare

    return compare(key, list(responses), format=format, **options)


def to_udapi(corpus: Corpus | Document, report: Report | None = None) -> Any:
    """A udapi ``Document`` (udapi, an optional dependency) holding the corpus or document as CorefUD has it, so
    that udapi's blocks run on it; `from_udapi` brings it back. Exact on the shared CorefUD files."""
    from harmonize.converters.udapi_documents import to_udapi as convert_to

    return convert_to(corpus, report)


def from_udapi(document: Any, lenient: bool = False, report: Report | None = None) -> Corpus:
    """The corpus a udapi ``Document`` holds (see `to_udapi`)."""
    from harmonize.converters.udapi_documents import from_udapi as convert_from

    return convert_from(document, lenient, report)


def diff(key: str | Path, response: str | Path, format: str = "corefud", **options: Any) -> DiffResult:
    """Where a response differs from a key, as ``harmonize diff`` finds it (Kummerfeld & Klein's operations and
    error types, what each costs); ``options`` are those of `harmonize.error_analysis.files.diff`
    (key_format, response_format, matching, singletons, cross_document, ...). Returns a
    `DiffResult`."""
    from harmonize.error_analysis.files import diff as analyse

    return analyse(key, response, format, **options)


def build(recipe: str | Path, output: str | Path, **options: Any) -> BuildResult:
    """Build a release from a recipe (what ``harmonize build`` runs): see `harmonize.releases.build` for the
    options and the result."""
    from harmonize.releases import build as build_release

    return build_release(recipe, output, **options)


__all__ = [
    "Bridge", "Conversion", "Corpus", "Document", "Entity", "FileCheck", "FormatError", "HarmonizeError", "LossWarning", "Mention",
    "ModelError", "Node", "Report", "Sentence", "SplitAntecedent", "build", "check", "compare_systems", "convert", "diff",
    "formats", "from_udapi", "parse", "read", "score", "to_udapi", "write",
]
