"""harmonize: coreference corpora in one model, and back out again."""

from pathlib import Path

from harmonize.converters import formats, get_format
from harmonize.errors import FormatError, HarmonizeError, ModelError, Report
from harmonize.schemas.model import Bridge, Corpus, Document, Entity, Mention, Node, Sentence, SplitAntecedent

__version__ = "0.1.0"


def read(path: str | Path, format: str = "corefud", lenient: bool = False, report: Report | None = None) -> Corpus:
    """Read one file in ``format`` into a :class:`Corpus`."""
    return get_format(format, "read").reader(Path(path), lenient, report if report is not None else Report())


def write(corpus: Corpus, path: str | Path, format: str = "corefud", report: Report | None = None) -> None:
    """Write ``corpus`` to one file in ``format`` (atomically)."""
    get_format(format, "write").writer(corpus, Path(path), report if report is not None else Report())


__all__ = [
    "Bridge", "Corpus", "Document", "Entity", "FormatError", "HarmonizeError", "Mention", "ModelError", "Node",
    "Report", "Sentence", "SplitAntecedent", "formats", "read", "write",
]
