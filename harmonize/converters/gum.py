"""GUM corpus folders. So far: the official train/dev/test/test2 split (``splits.md``); the WebAnno TSV reader
comes with the GUM issue."""

from __future__ import annotations

import re
from pathlib import Path

from harmonize.errors import FormatError


def read_splits(folder: str | Path) -> dict[str, list[str]]:
    """``splits.md`` of a GUM release: split name -> document names, in file order."""
    path = Path(folder) / "splits.md"
    splits: dict[str, list[str]] = {}
    current: list[str] | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        header = re.match(r"##\s+(\S+)", line)
        if header:
            current = splits.setdefault(header[1], [])
        elif line.strip().startswith("*"):
            if current is None:
                raise FormatError(str(path), number, "document listed before any '## split' header")
            current.append(line.strip().lstrip("*").strip())
    return splits
