"""File input every text reader shares (UTF-8, a byte-order mark and CRLF line endings normalized and reported),
file output shared by every writer (atomic: an error or Ctrl-C never leaves a half-written file), and the
collector pause that readers and writers share."""

from __future__ import annotations

import gc
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from harmonize.errors import Report
    from harmonize.schemas.model import Document


CRLF_READ = "input normalized: CRLF line endings read as LF"
BOM_READ = "input normalized: byte-order mark at the start left out"


def read_text(path: str | Path, report: Report | None = None) -> str:
    """A UTF-8 file's text as the readers take it (`normalized_text`: a byte-order mark left out, CRLF line endings
    read as LF, each counted in ``report``); bytes that are not UTF-8 are a FormatError naming the file and the line."""
    return decode(Path(path).read_bytes(), str(path), report)


def decode(data: bytes, path: str, report: Report | None = None, first_line: int = 1, start: int = 0,
           normalize: bool = True) -> str:
    """`read_text` on bytes already read (``first_line`` and ``start``: where they begin in the file ``path``, for
    the error's line and byte); ``normalize`` False keeps the text as saved (offsets count in it)."""
    from harmonize.errors import FormatError

    try:
        text = data.decode("utf-8")
        return normalized_text(text, path, report) if normalize else text
    except UnicodeDecodeError as error:
        line = first_line + data.count(b"\n", 0, error.start)
        raise FormatError(path, line, f"not UTF-8: {error.reason} at byte {start + error.start}") from None


def normalized_text(text: str, path: str, report: Report | None = None) -> str:
    """``text`` as saved on Windows read as on Unix: a leading byte-order mark left out and CRLF line endings read as
    LF, each counted in ``report`` (the file named), so that every text reader takes what udapi and the reference
    scorers take. A CR alone is left as it is (inside a token it is the annotators' to decide)."""
    if text.startswith("\ufeff"):
        text = text[1:]
        if report is not None:
            report.add(BOM_READ, path)
    if "\r\n" in text:
        lines = text.count("\r\n")
        text = text.replace("\r\n", "\n")
        if report is not None:
            report.add(CRLF_READ, f"{path} ({lines} lines)", lines)
    return text


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a corpus is built or written.

    Readers and writers allocate hundreds of thousands of objects in a burst; with the collector on, each burst
    triggers full passes over the whole model that find nothing to free and cost more than the work itself.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def file_sha256(path: str | Path) -> str:
    """A file's sha256, read a block at a time (corpora of a few hundred MB are hashed too)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` as UTF-8 to a temporary file beside ``path``, then rename it over ``path``."""
    atomic_write_bytes(path, text.encode("utf-8"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp makes files private (0600); an output file gets the mode an ordinary open() would give it.
_FILE_MODE = 0o666 & ~_umask()


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, _FILE_MODE)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def atomic_write_parts(path: str | Path, parts: list[Path]) -> None:
    """Join the files ``parts``, in order, into a temporary file beside ``path``, then rename it over ``path``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            for part in parts:
                with open(part, "rb") as source:
                    shutil.copyfileobj(source, out, 1 << 20)
        os.chmod(temporary, _FILE_MODE)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class StagedFile:
    """A text file written a piece at a time (``write``) to a temporary file beside ``path`` and renamed over it by
    ``publish``, as `atomic_write_text` writes one at once; closed without ``publish`` (an error on the way), the
    temporary file goes and ``path`` is left as it was."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".part", dir=self.path.parent)
        self.temporary = Path(temporary)
        self.handle = os.fdopen(handle, "w", encoding="utf-8", newline="")

    def write(self, text: str) -> None:
        self.handle.write(text)

    def publish(self) -> None:
        self.handle.close()
        os.chmod(self.temporary, _FILE_MODE)
        os.replace(self.temporary, self.path)

    def discard(self) -> None:
        self.handle.close()
        self.temporary.unlink(missing_ok=True)


# Names Windows reserves for devices, with or without an extension: a file called "con.json" cannot be opened there.
_DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))})
_UNSAFE_CHARACTERS = re.compile(r"[^\w.\-]+")
MAX_NAME_LENGTH = 100  # characters of a name made from an id, before the extension the writer adds
ID_RENAMED = "document id renamed for a safe file name inside the output folder"


class SafeFileNames:
    """File names made from document ids one at a time, each safe to join to an output folder: path separators,
    ``..``, absolute paths, control characters and device names cannot survive, length is bounded, and ids that
    would map to the same name (also when only their case differs, for case-insensitive file systems) are kept
    apart by a suffix. A missing id becomes ``fallback`` and the document's number; ``reserved`` names (the
    writer's own files) are never given. One after another, so that documents read a piece at a time get their
    names as they come."""

    def __init__(self, fallback: str = "document", reserved: Sequence[str] = ()) -> None:
        self.fallback = fallback
        self.taken = {name.lower() for name in reserved}
        self.count = 0

    def __call__(self, document_id: str | None) -> str:
        self.count += 1
        name = _UNSAFE_CHARACTERS.sub("_", document_id or "").strip("._")
        if not name:
            name = f"{self.fallback}{self.count}"
        if name.split(".")[0].lower() in _DEVICE_NAMES:
            name = f"_{name}"
        if len(name) > MAX_NAME_LENGTH:
            digest = hashlib.sha256((document_id or "").encode("utf-8")).hexdigest()[:12]
            name = f"{name[:MAX_NAME_LENGTH - 13]}-{digest}"
        unique, suffix = name, 2
        while unique.lower() in self.taken:
            unique, suffix = f"{name}-{suffix}", suffix + 1
        self.taken.add(unique.lower())
        return unique


class StagedPages:
    """A folder of HTML pages written one at a time beside ``output`` (``add``: a page named after a label, safely,
    `SafeFileNames`), moved into it with ``index.html`` by ``publish``; an error before that leaves ``output`` as it
    was (the staged pages go when the ``with`` block ends)."""

    def __init__(self, output: Path) -> None:
        self.output = output
        self.names = SafeFileNames(reserved=["index"])
        self.written: list[str] = []

    def __enter__(self) -> Self:
        self.output.parent.mkdir(parents=True, exist_ok=True)
        self._folder = tempfile.TemporaryDirectory(prefix=f".{self.output.name}.", dir=self.output.parent)
        return self

    def __exit__(self, *_exc: object) -> None:
        self._folder.cleanup()

    def add(self, label: str | None, text: str) -> str:
        """Stage one page; its file name."""
        self.written.append(f"{self.names(label)}.html")
        atomic_write_text(Path(self._folder.name) / self.written[-1], text)
        return self.written[-1]

    def publish(self, index: str) -> list[Path]:
        """Write ``index.html`` and move every page into ``output``; the files, the index last."""
        atomic_write_text(Path(self._folder.name) / "index.html", index)
        self.output.mkdir(exist_ok=True)
        for name in [*self.written, "index.html"]:
            os.replace(Path(self._folder.name) / name, self.output / name)
        return [self.output / name for name in [*self.written, "index.html"]]


def safe_file_names(ids: Sequence[str | None], fallback: str = "document", reserved: Sequence[str] = ()) -> list[str]:
    """One file name per document id (see `SafeFileNames`)."""
    names = SafeFileNames(fallback, reserved)
    return [names(document_id) for document_id in ids]


def write_documents(documents: Sequence, out: Path, extension: str, render: Callable, report: Report) -> None:
    """Each document rendered (``render(document, report, name)`` -> text, ``name`` the file's name without its
    extension, which its reader takes for the document's id) into ``OUT/<safe id><extension>``; ``out`` may name one
    file with that extension when there is one document (writers of one file per document)."""
    from harmonize.errors import FormatError

    if out.suffix == extension and not out.is_dir():
        if len(documents) != 1:
            raise FormatError(str(out), None, f"one {extension} file holds one document; there are {len(documents)} "
                                              "(give a folder)")
        atomic_write_text(out, render(documents[0], report, out.stem))
        return
    files = DocumentFiles(out, text_file(extension, render), report)
    for document in documents:
        files.add(document)
    files.publish()


def text_file(extension: str, render: Callable) -> Callable:
    """A `DocumentFiles` ``write``: the document rendered (``render(document, report, name)`` -> text) as
    ``OUT/<name><extension>``."""
    def write(document: Document, out: Path, name: str, report: Report) -> None:
        atomic_write_text(out / f"{name}{extension}", render(document, report, name))

    return write


class DocumentFiles:
    """Documents written one at a time (``add``) under ``out``, each by ``write(document, out, name, report)`` under a
    name made safe from its id (`SafeFileNames`, with ``fallback`` and ``reserved``; a renamed id counted in
    ``report``); ``publish`` ends with ``finish(out)``, what the folder holds besides (XMI's type system). The writers
    of a file or folder per document write a corpus through it, and a build hands it documents as they are read.
    Each file is written atomically as it comes; ``discard`` leaves those written (as an error on the way does)."""

    def __init__(self, out: Path, write: Callable, report: Report, fallback: str = "document",
                 reserved: Sequence[str] = (), finish: Callable[[Path], None] | None = None) -> None:
        self.out = out
        self.write = write
        self.report = report
        self.names = SafeFileNames(fallback, reserved)
        self.finish = finish

    def add(self, document: Document) -> None:
        name = self.names(document.id)
        if document.id is not None and document.id != name:
            self.report.add(ID_RENAMED, f"{document.id!r} -> {name}")
        self.write(document, self.out, name, self.report)

    def publish(self) -> None:
        if self.finish is not None:
            self.finish(self.out)

    def discard(self) -> None:
        pass
