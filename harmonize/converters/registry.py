"""The one registry of formats: a name, what it is, how to read it and how to write it.

Each format is one module in ``harmonize/converters/`` plus one `register` call in
``harmonize/converters/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from harmonize.errors import HarmonizeError, Report
from harmonize.schemas.model import Corpus, Document

# path, lenient, report, then the reader's options (see Format.reader_options) as keyword arguments
Reader = Callable[..., Corpus]
# corpus, output path, report, then the writer's options (see Format.options) as keyword arguments
Writer = Callable[..., None]
class DocumentWriter(Protocol):
    """A writer that takes documents one at a time (see `Format.document_writer`)."""

    def add(self, document: Document) -> None: ...

    def publish(self) -> None: ...

    def discard(self) -> None: ...


# An input with no document in it (an empty file, comments only): said, so that an empty output is not a surprise.
NOTHING_READ = "input holds no document: nothing read from it"

# Writer options every format takes, applied to what the writer wrote rather than passed to it.
COMMON_WRITER_OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "newline": (("lf", "crlf"), "line endings of the text files written: lf (the default) or crlf (as Windows "
                                "tools save them)"),
}

# Reader options every format takes, applied to the corpus read rather than passed to the reader.
COMMON_READER_OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "lang": ((), "the documents' language, an ISO 639 code (stanza parses in it; overrides the format's)"),
}


@dataclass(frozen=True)
class Format:
    name: str
    summary: str
    extension: str  # of one output file, with the dot
    reader: Reader | None = None
    writer: Writer | None = None
    # Writer options: name -> the values it takes (empty: any value) and what it does.
    options: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    # Reader options (-I KEY=VALUE), in the same form.
    reader_options: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    # Endings of the file names the reader takes from a folder (default: the extension).
    accepts: tuple[str, ...] = ()
    # Where the inputs of a folder are, when not directly in it (a GUM release keeps them in coref_tsv/).
    find: Callable[[Path], list[Path]] | None = None
    # The input a path as users give it names (brat: NAME.ann for NAME.txt or NAME); None: the path itself.
    locate: Callable[[Path], Path] | None = None
    # For formats whose mentions are character spans (RuCoCo): what the scorer needs of a file, read straight from it
    # (see harmonize.scoring.score.character_document), so that sides tokenised differently still align.
    score_reader: Callable[[Path], list] | None = None
    # The writer takes an output folder and writes one file or folder per document in it (TEI layers, RuCoCo JSON).
    writes_per_document: bool = False
    # The writer takes every input's documents at once and writes one set of files for them all (mention lists).
    joins_inputs: bool = False
    # The writer taking one output's documents one at a time (``add``, then ``publish``; ``discard`` on an error),
    # made from the output path, the report and what ``keeps`` kept of each of the output's documents on a first
    # pass (None each without ``keeps``): a build hands it documents as it reads them instead of holding a corpus.
    # None: the writer takes a corpus at once.
    document_writer: Callable[[Path, Report, list], DocumentWriter] | None = None
    keeps: Callable[[Document], object] | None = None

    def located(self, path: Path) -> Path:
        """The input ``path`` names for this format (see ``locate``)."""
        return self.locate(path) if self.locate is not None and not path.is_dir() else path

    def takes(self, path: Path) -> bool:
        return path.name.endswith(self.accepts or (self.extension,))

    def inputs_in(self, folder: Path) -> list[Path]:
        if self.find is not None:
            return self.find(folder)
        # A folder counts only as a format stored as folders (NAME.parquet), never by its name alone (coref_conll/).
        return sorted(p for p in folder.iterdir() if self.takes(p) and (not p.is_dir() or p.suffix == self.extension))

    def writer_options(self, pairs: list[str]) -> dict[str, str]:
        """``-O KEY=VALUE`` pairs checked against the writer's options (and those every writer takes)."""
        return _checked(f"{self.name} writer", "-O", {**self.options, **COMMON_WRITER_OPTIONS}, pairs)

    def read_options(self, pairs: list[str]) -> dict[str, str]:
        """``-I KEY=VALUE`` pairs checked against the reader's options."""
        return _checked(f"{self.name} reader", "-I", {**self.reader_options, **COMMON_READER_OPTIONS}, pairs)

    def read(self, path: Path, lenient: bool, report: Report, options: dict[str, str] | None = None) -> Corpus:
        """Read one input with the reader's options (already checked)."""
        assert self.reader is not None
        own = dict(options or {})
        language = own.pop("lang", None)
        path = self.located(path)
        if path.is_file():
            report.opened(path)  # readers of folders, and of companion files, record those themselves
        corpus = self.reader(path, lenient, report, **own)
        corpus.report = report
        if not corpus.documents:
            report.add(NOTHING_READ, str(path))
        if language:
            for document in corpus.documents:
                document.language = language
        return corpus


def _checked(who: str, flag: str, known: dict[str, tuple[tuple[str, ...], str]], pairs: list[str]) -> dict[str, str]:
    chosen: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in known:
            takes = ", ".join(f"{flag} {k}=" + ("|".join(values) or "VALUE") for k, (values, _) in known.items())
            raise HarmonizeError(f"{who}: unknown option {pair!r}; it takes {takes or 'none'}")
        if known[key][0] and value not in known[key][0]:
            raise HarmonizeError(f"{who}: {key} must be one of {', '.join(known[key][0])}")
        chosen[key] = value
    return chosen


_FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    if fmt.name in _FORMATS:
        raise ValueError(f"format {fmt.name!r} is registered twice")
    _FORMATS[fmt.name] = fmt
    return fmt


def formats() -> list[Format]:
    """Every registered format, by name: what ``harmonize formats`` lists (name, summary, reader and writer, their
    options)."""
    return sorted(_FORMATS.values(), key=lambda f: f.name)


def formats_for(folder: Path, besides: Format | None = None) -> list[str]:
    """The readers (other than ``besides``) that find inputs in ``folder``: what to suggest for --from."""
    found = []
    for fmt in formats():
        if fmt.reader is None or fmt is besides:
            continue
        try:
            if fmt.inputs_in(folder):
                found.append(fmt.name)
        except OSError:
            continue
    return found


def get_format(name: str, need: str) -> Format:
    """The format called ``name`` that can ``need`` ("read" or "write"), or an error listing those that can."""
    fmt = _FORMATS.get(name)
    if fmt is None or (fmt.reader if need == "read" else fmt.writer) is None:
        able = [f.name for f in formats() if (f.reader if need == "read" else f.writer) is not None]
        raise HarmonizeError(f"no format {name!r} to {need}; available: {', '.join(able)}")
    return fmt
