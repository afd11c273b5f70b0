"""The surface text of a document and where its words lie in it, from the words' forms and UD's spacing in MISC.

CoNLL-U keeps the text in the tokens: after each token the usual single space, ``SpaceAfter=No`` for none, UD's
``SpacesAfter`` for any other whitespace (newlines, runs of spaces), ``SpacesBefore`` for whitespace before a
document's (or a paragraph's) first token. Formats that store raw text and character offsets (TEI, RuCoCo) read
their spacing into these keys and rebuild the text from them, so that one place decides what the text is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harmonize.errors import Report
from harmonize.schemas.model import Document, Node, Sentence, parse_misc

# Spacing keys of MISC: formats that store the text itself carry them in the text.
SPACING_KEYS = ("SpaceAfter", "SpacesAfter", "SpacesBefore")

_UD_SPACE_ESCAPES = {"\\s": " ", "\\t": "\t", "\\n": "\n", "\\r": "\r", "\\p": "|", "\\\\": "\\"}
_UD_SPACE_ESCAPE = re.compile(r"\\[stnrp\\]")
_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "|": "\\p", "\\": "\\\\"}


def escape_spaces(text: str) -> str:
    """Whitespace as UD's SpacesAfter/SpacesBefore write it (\\s, \\t, \\n, \\r; \\p for |, \\\\ for \\)."""
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


def unescape_spaces(value: str) -> str:
    return _UD_SPACE_ESCAPE.sub(lambda match: _UD_SPACE_ESCAPES[match.group()], value)


def set_gap(node: Node, gap: str, last: bool) -> None:
    """Record the whitespace after ``node``: nothing for the usual single space (or, at the end of the text, for
    nothing), SpaceAfter=No for none, SpacesAfter for anything else."""
    if gap == ("" if last else " "):
        return
    if gap == "":
        node.misc["SpaceAfter"] = "No"
    else:
        node.misc["SpacesAfter"] = escape_spaces(gap)


def gap_after(node: Node, last: bool) -> str:
    """The whitespace after a token as its MISC says (the inverse of `set_gap`)."""
    misc = node.misc
    if "SpacesAfter" in misc:
        return unescape_spaces(misc["SpacesAfter"] or "")
    if misc.get("SpaceAfter") == "No" or last:
        return ""
    return " "


def gap_before(node: Node) -> str:
    """The whitespace before a first token (SpacesBefore), or nothing."""
    value = node.misc.get("SpacesBefore")
    return unescape_spaces(value) if value else ""


def surface_words(sentence: Sentence, report: Report) -> list[tuple[Node, Node | None]]:
    """Each word with the node whose MISC says the spacing after it: itself, None inside a multiword token, or for
    the last word of a multiword token its token line (the text shows the token "del", not the words "de el": such
    a token is written as its words glued, and reported, by formats without a token level)."""
    spacing: dict[str, Node | None] = {}
    for mwt in sentence.multiwords:
        words = [w for w in sentence.words if mwt.first <= int(w.id) <= mwt.last]
        if "".join(w.form for w in words) != mwt.form:
            report.add("multiword token written as its words (the text shows the words, not the token)",
                       f"{sentence.id}: {mwt.form!r} = {' '.join(w.form for w in words)}")
        else:
            report.add("multiword token written as glued words (the format has no token level)",
                       f"{sentence.id}: {mwt.form!r}")
        for word in words[:-1]:
            spacing[word.id] = None
        if words:
            spacing[words[-1].id] = Node(mwt.id, misc=parse_misc(mwt.columns[-1]))
    return [(word, spacing.get(word.id, word)) for word in sentence.words]


@dataclass
class DocumentText:
    """A document's text and each word's [start, end) in it. The words of a multiword token share the token's
    characters (the text shows "del", not "de el"); empty nodes have no characters and no entry."""

    text: str
    offsets: dict[Node, tuple[int, int]]


def document_text(document: Document) -> DocumentText:
    """The text of a whole document: its tokens joined by the whitespace their MISC records (a single space where
    it records nothing), SpacesBefore of the first token in front; nothing after the last token unless it says so."""
    tokens = [token for sentence in document.sentences for token in surface_tokens(sentence)]
    pieces: list[str] = []
    offsets: dict[Node, tuple[int, int]] = {}
    position = 0
    for index, (form, spacing, words) in enumerate(tokens):
        if index == 0:
            lead = gap_before(spacing)
            pieces.append(lead)
            position += len(lead)
        pieces.append(form)
        for word in words:
            offsets[word] = (position, position + len(form))
        position += len(form)
        gap = gap_after(spacing, last=index == len(tokens) - 1)
        pieces.append(gap)
        position += len(gap)
    return DocumentText("".join(pieces), offsets)


def surface_tokens(sentence: Sentence) -> list[tuple[str, Node, list[Node]]]:
    """A sentence's surface tokens: (form, the node whose MISC holds the spacing, the words it covers)."""
    multiword = {mwt.first: mwt for mwt in sentence.multiwords}
    tokens = []
    words = sentence.words
    index = 0
    while index < len(words):
        word = words[index]
        mwt = multiword.get(int(word.id))
        if mwt is None:
            tokens.append((word.form, word, [word]))
            index += 1
            continue
        covered = [w for w in words[index:] if int(w.id) <= mwt.last]
        tokens.append((mwt.form, Node(mwt.id, misc=parse_misc(mwt.columns[-1])), covered))
        index += len(covered)
    return tokens


def display_gaps(sentence: Sentence) -> dict[Node, str]:
    """The whitespace to show after each node of a sentence, as its text has it: nothing inside a multiword token
    or after ``SpaceAfter=No``, a space otherwise (any other whitespace ``SpacesAfter`` records shows as one space,
    as HTML does); an empty node, which has no characters, gets a space after it."""
    gaps: dict[Node, str] = {node: " " for node in sentence.nodes if node.is_empty}
    for _form, spacing, words in surface_tokens(sentence):
        for word in words[:-1]:
            gaps[word] = ""
        gaps[words[-1]] = " " if gap_after(spacing, last=False) else ""
    return gaps

