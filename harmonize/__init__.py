"""harmonize: coreference corpora in one model, and back out again."""

from pathlib import Path

from harmonize.converters import formats, get_format
from harmonize.errors import FormatError, HarmonizeError, ModelError, Report
from harmonize.schemas.model import Bridge, Corpus, Document, Entity, Mention, Node, Sentence, SplitAntecedent

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


__all__ = [
    "Bridge", "Corpus", "Document", "Entity", "FormatError", "HarmonizeError", "Mention", "ModelError", "Node",
    "Report", "Sentence", "SplitAntecedent", "formats", "read", "write",
]
