"""The CorefUD value language the reader, the writer, the piece cutter and the scorer's line reader share: the
``global.Entity`` field names, escaping of field values (``%XX``), bracket and relation syntax, and CoNLL-U
sentence blocks. Pure functions over strings, below everything that reads or writes CorefUD."""

from __future__ import annotations

import re
from collections.abc import Iterator

COREF_KEYS = ("Entity", "Bridge", "SplitAnte")

DEFAULT_ENTITY_FIELDS = ("eid", "etype", "head", "other")

EID_FIELDS = ("eid", "GRP")

ETYPE_FIELDS = ("etype", "entity")

# Entity-level fields besides the type: GUM's identity (Wikipedia name), PCC's dominant (the entity's name), ECB+'s
# descriptor (its instance's TAG_DESCRIPTOR).
ENTITY_LEVEL_FIELDS = ("identity", "dominant", "descriptor")

EMPTY_ID = re.compile(r"(0|[1-9][0-9]*)\.[1-9][0-9]*\Z")

MULTIWORD_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)\Z")

PART = re.compile(r"(.+)\[([1-9][0-9]*)/([1-9][0-9]*)\]\Z")

ENTITY_BRACKET = re.compile(r"\(([^()]+)(\))?|([^()]+)\)")

RELATION_ITEM = re.compile(r"([^<,:]+)<([^<,:]+)(?::(.*))?\Z")

# Characters that would end a bracket field (-), a bracket, a MISC item (|) or the column; CorefUD writes them as %XX.
_ESCAPED = re.compile(r"[%\-()|\s]", re.ASCII)

_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")

def escape_value(text: str) -> str:
    """A free-text value (a TEI feature, an MMAX2 attribute) as a CorefUD field value: ``-``, brackets, spaces and
    the other separators percent-encoded. Field values live in the model in this form (as CorefUD files have them)."""
    return _ESCAPED.sub(lambda match: f"%{ord(match.group()):02X}", text)

def unescape_value(value: str) -> str:
    """The free text of a CorefUD field value (inverse of `escape_value`)."""
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), value) if "%" in value else value

def header_fields(header: str) -> tuple[str, ...] | None:
    """The field names a ``global.Entity`` value declares; None where it is malformed (no eid field, or one
    named twice)."""
    names = tuple(header.split("-")) if header else ()
    if not names or len(set(names)) != len(names) or not any(n in EID_FIELDS for n in names):
        return None
    return names

def sentence_blocks(lines: list[str]) -> Iterator[tuple[str | None, int, int, int]]:
    """CoNLL-U lines as sentences: (problem, first, tokens, stop), the sentence's comments lines[first:tokens] and
    its token lines lines[tokens:stop]. ``problem`` None, or: "blank line" (a blank line that ends no sentence, at
    index ``first``), "comment" (a comment among token lines, at index ``first``; the sentence goes on), or
    "unterminated" (the last sentence, with no blank line after it)."""
    first = tokens = -1
    for index, line in enumerate(lines):
        if not line:
            if first < 0:
                yield "blank line", index, index, index
            else:
                yield None, first, index if tokens < 0 else tokens, index
            first = tokens = -1
        elif line[0] == "#":
            if tokens >= 0:
                yield "comment", index, index, index
            elif first < 0:
                first = index
        else:
            if first < 0:
                first = index
            if tokens < 0:
                tokens = index
    if first >= 0:
        yield "unterminated", first, len(lines) if tokens < 0 else tokens, len(lines)

def split_part(token: str) -> tuple[str, str | None, int, int]:
    """An opening's eid field split into (eid, part label, part, parts): ``e5[2/3]`` -> ("e5", "2/3", 2, 3);
    ``e5`` -> ("e5", None, 1, 1)."""
    if token[-1:] != "]":
        return token, None, 1, 1
    part = PART.match(token)
    if part is None:
        return token, None, 1, 1
    return part[1], f"{part[2]}/{part[3]}", int(part[2]), int(part[3])

def opening_fields(content: str, declared: tuple[str, ...]) -> list[str]:
    """The fields of an opening bracket's ``content`` under the ``declared`` header."""
    fields = content.split("-")
    if len(fields) > len(declared) and declared[-1] == "identity":
        # GUM v7 leaves "-" unescaped in Wikipedia identities (Quidditch_%28real-life_sport%29)
        keep = len(declared) - 1
        fields = [*fields[:keep], "-".join(fields[keep:])]
    return fields

def relation_eid(end: str, eid_index: int, declared: tuple[str, ...] | None) -> str:
    """A Bridge or SplitAnte end names an entity by its id, or (GUM v7) by its label "etype-GRP-identity"."""
    if eid_index == 0 or declared is None:
        return end.partition("-")[0] if eid_index == 0 else end
    fields = end.split("-")
    return fields[eid_index] if len(fields) > eid_index else end

def field_role(name: str) -> str:
    if name in ETYPE_FIELDS:
        return "etype"
    if name in ("head", "link"):
        return name
    return "entity" if name in ENTITY_LEVEL_FIELDS else "mention"
