"""A large CorefUD file cut into pieces of whole documents that can be read, ruled and written on their own (what
streamed reading, parallel conversion and the scorer's in-step reading use), and the entity ids of each document
found in the bytes without building the model (what a rule over the corpus plans pieces with)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from harmonize.converters.corefud_values import DEFAULT_ENTITY_FIELDS, EID_FIELDS, PART, header_fields
from harmonize.errors import Report
from harmonize.io import decode


@dataclass(frozen=True)
class Piece:
    """A run of whole documents of a CoNLL-U file that can be read and written on its own: bytes [start, end),
    the number of its first line, and the ``global.Entity`` value in force where it starts."""

    start: int
    end: int
    first_line: int
    header: str | None

_NEWDOC = b"\n\n# newdoc"

def document_pieces(data: bytes, count: int, own_header: bool = False) -> list[Piece]:
    """Cut a CoNLL-U file into about ``count`` pieces of similar size, each beginning at a ``# newdoc`` line that
    begins a sentence (and, with ``own_header``, whose comments declare ``global.Entity`` again). Reading and
    writing the pieces one by one and joining the texts gives exactly what the whole file gives."""
    cuts = [0]
    for k in range(1, count):
        at = data.find(_NEWDOC, max(len(data) * k // count, cuts[-1]))
        while at >= 0 and not _starts_document(data, at + 2, own_header):
            at = data.find(_NEWDOC, at + 1)
        if at < 0:
            break
        cuts.append(at + 2)
    cuts.append(len(data))
    pieces = []
    line = 1
    for start, end in pairwise(cuts):
        if start:
            line += data.count(b"\n", pieces[-1].start, start)
        pieces.append(Piece(start, end, line, _header_before(data, start)))
    return pieces

# A piece of a large file read at once holds about this many bytes: memory follows the piece, not the file.
STREAM_PIECE_BYTES = 8 << 20

def piece_count(size: int, at_least: int = 1) -> int:
    """How many pieces a file of ``size`` bytes is cut into: ``at_least`` (one per worker, say), and enough that
    none is much larger than `STREAM_PIECE_BYTES`."""
    return max(at_least, -(-size // STREAM_PIECE_BYTES))

def piece_bytes(path: str | Path, piece: Piece) -> bytes:
    """The bytes of one piece of a file."""
    with open(path, "rb") as handle:
        handle.seek(piece.start)
        return handle.read(piece.end - piece.start)

def read_piece(path: str | Path, piece: Piece, report: Report | None = None) -> str:
    """The text of one piece of a file, normalized as `harmonize.io.read_text` normalizes a whole file; bytes that
    are not UTF-8 are a FormatError naming the file's line."""
    return decode(piece_bytes(path, piece), str(path), report, piece.first_line, piece.start)

# What decides a document's entity ids: the comment lines of its boundary, of the header in force and of its
# topic, and between them its Entity values' openings (each search with a literal start: a search without one is
# ten times slower). "Entity=" elsewhere than as a MISC key is taken too: the plan's check against the reading
# catches it.
_ID_COMMENT = re.compile(rb"\n# ?(newdoc|global\.Entity|meta::topic)\b[^\n]*")

_ENTITY_VALUE = re.compile(rb"Entity=([^\t\n|]*)")

_OPENING = re.compile(rb"\(([^()]+)")

_FIRST_FIELD = re.compile(rb"\(([^()-]*)")  # an opening's first field: the eid where the header puts it first

_TOKEN_LINE = re.compile(rb"(?:\A|\n)[0-9]")

def entity_ids_by_document(data: bytes, header: str | None = None) -> list[tuple[str | None, tuple[str, ...]]]:
    """Each document of a file's bytes (or of a piece's, `piece_bytes`, with the ``global.Entity`` value in force
    where it starts) as (topic, its entity ids in the order the reader meets their first mentions), read without
    building the model: what a rule over the corpus (unique-ids) needs to plan each piece before the pieces are
    converted at once. A plan, not a reading: whoever uses it checks it against the documents read (malformed
    mentions, which the reader drops, are not looked at here)."""
    comments = list(_ID_COMMENT.finditer(data))
    first_end = data.find(b"\n")  # a first line has no newline before it
    first = _ID_COMMENT.match(b"\n" + data[: first_end if first_end >= 0 else len(data)])
    events = [(0, first)] if first is not None else []
    events += [(m.start() + 1, m) for m in comments]
    eid_index = _eid_index(header_fields(header) if header is not None else None)
    documents: list[tuple[str | None, dict[bytes, None]]] = []
    topic: str | None = None
    ids: dict[bytes, None] = {}
    start = 0  # where the current document began
    _openings(data, 0, events[0][0] if events else len(data), eid_index, ids)  # before any comment
    for (at, match), (end, _) in zip(events, [*events[1:], (len(data), None)]):
        key, _, value = match[0][2:].decode("utf-8", errors="replace").partition("=")
        if match[1] == b"newdoc":
            if _TOKEN_LINE.search(data, start, at):
                documents.append((topic, ids))
                topic, ids = None, {}
            start = at
        elif match[1] == b"global.Entity":
            eid_index = _eid_index(header_fields(value.strip()))
        elif key.strip() == "meta::topic":
            topic = value.strip()
        _openings(data, at, end, eid_index, ids)
    if _TOKEN_LINE.search(data, start):
        documents.append((topic, ids))
    return [(topic, tuple(dict.fromkeys(_eid_of(eid) for eid in ids))) for topic, ids in documents]

def _openings(data: bytes, start: int, end: int, eid_index: int, ids: dict[bytes, None]) -> None:
    """The eid fields of the openings in the Entity values of bytes [start, end), in order, added to ``ids``."""
    values = b")".join(_ENTITY_VALUE.findall(data, start, end))  # ")": no opening runs on into the next value
    if eid_index == 0:
        ids.update(dict.fromkeys(_FIRST_FIELD.findall(values)))
        return
    for opening in _OPENING.findall(values):
        parts = opening.split(b"-", eid_index + 1)
        if eid_index < len(parts):
            ids.setdefault(parts[eid_index], None)

def _eid_of(field: bytes) -> str:
    """An opening's eid field as the reader takes it: ``e5[2/3]`` (a part of a discontinuous mention) is e5."""
    eid = field.decode("utf-8", errors="replace")
    split = PART.match(eid) if eid.endswith("]") else None
    return split[1] if split is not None else eid

def _eid_index(fields: tuple[str, ...] | None) -> int:
    return next(i for i, name in enumerate(fields or DEFAULT_ENTITY_FIELDS) if name in EID_FIELDS)

def _starts_document(data: bytes, start: int, own_header: bool) -> bool:
    """Whether the comment line at ``start`` is a ``# newdoc`` the reader takes as one (not ``# newdocument``)."""
    if data[start + 8 : start + 9] not in (b" ", b"=", b"\n"):
        return False
    if not own_header:
        return True
    block_end = data.find(b"\n\n", start)
    block = data[start : block_end if block_end >= 0 else len(data)]
    return any(line.startswith(b"# global.Entity") for line in block.split(b"\n") if line.startswith(b"#"))

def _header_before(data: bytes, start: int) -> str | None:
    """The value of the last ``# global.Entity`` comment before byte ``start`` that the reader takes as one (not
    one inside a sentence's token lines, which it drops)."""
    end = start
    while True:
        at = data.rfind(b"\n# global.Entity", 0, end)
        if at < 0:
            at = 0 if data.startswith(b"# global.Entity") and start > 0 else -1
            if at < 0:
                return None
        else:
            previous = data[data.rfind(b"\n", 0, at) + 1 : at]
            at += 1
            if previous and not previous.startswith(b"#"):
                end = at - 1
                continue
        line = data[at : data.find(b"\n", at)].decode("utf-8", errors="replace")
        key, sep, value = line[1:].strip().partition("=")
        if key.strip() == "global.Entity" and sep:
            return value.strip()
        if at == 0:
            return None
        end = at - 1
