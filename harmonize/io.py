"""File output shared by every writer (atomic: an error or Ctrl-C never leaves a half-written file), and the
collector pause that readers and writers share."""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def read_text(path: str | Path) -> str:
    """A UTF-8 file's text; bytes that are not UTF-8 are a FormatError naming the file and the line."""
    from harmonize.errors import FormatError

    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise FormatError(str(path), line, f"not UTF-8: {error.reason} at byte {error.start}") from None


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
