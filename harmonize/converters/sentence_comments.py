"""A sentence's CoNLL-U comments in formats whose lines are otherwise words (CoNLL-UA, CoNLL-2012 when asked):
``# sent_id``, ``# text`` and ``# speaker`` from the sentence, the other comments as they are, and each multiword
token as ``# multiword = 2-3<TAB>del<TAB>_ ...`` (its CoNLL-U line). A range line ("2-3 del") would be read as a
word by the scorers of those formats (they number every line that is not a comment), a comment they skip."""

from __future__ import annotations

from collections.abc import Iterable

from harmonize.schemas.model import CommentSlot, Document, MultiwordToken, Sentence

MULTIWORD_COMMENT = "# multiword = "


def multiword_comment(token: MultiwordToken) -> str:
    """A multiword token as a comment line: ``# multiword = 2-3<TAB>del<TAB>_ ...``."""
    return MULTIWORD_COMMENT + "\t".join((token.id, token.form, *token.columns))


def multiword_from_comment(line: str) -> MultiwordToken | None:
    """The multiword token a `multiword_comment` line holds; None for any other line (kept as a comment)."""
    if not line.startswith(MULTIWORD_COMMENT):
        return None
    cells = line[len(MULTIWORD_COMMENT):].split("\t")
    first, dash, last = cells[0].partition("-")
    if len(cells) != 10 or not dash or not first.isdigit() or not last.isdigit() or int(first) >= int(last):
        return None
    return MultiwordToken(int(first), int(last), cells[1], tuple(cells[2:]))


def comment_lines(sentence: Sentence) -> list[str]:
    """A sentence's comment lines: sent_id, text and speaker from the sentence where its comments have their slots
    (else sent_id first, text and speaker after the other comments), the other comments as they are (CorefUD's
    document header and global.Entity have no place inside a document), then its multiword tokens."""
    lines: list[str] = []
    slots = {CommentSlot.SENT_ID: f"# sent_id = {sentence.id}",
             CommentSlot.TEXT: f"# text = {sentence.text}" if sentence.text is not None else None,
             CommentSlot.SPEAKER: f"# speaker = {sentence.speaker}" if sentence.speaker is not None else None}
    for comment in sentence.comments:
        if isinstance(comment, CommentSlot):
            if slots.get(comment) is not None:
                lines.append(slots[comment])  # type: ignore[arg-type]
        elif not comment.startswith(("# newdoc", "# global.Entity")):
            lines.append(comment)
    if CommentSlot.SENT_ID not in sentence.comments and not any(
            isinstance(c, str) and c.startswith("# sent_id") for c in sentence.comments):
        lines.insert(0, slots[CommentSlot.SENT_ID])  # type: ignore[arg-type]
    for slot in (CommentSlot.TEXT, CommentSlot.SPEAKER):
        if slot not in sentence.comments and slots[slot] is not None:
            lines.append(slots[slot])  # type: ignore[arg-type]
    return lines + [multiword_comment(token) for token in sentence.multiwords]


def read_comment_lines(sentence: Sentence, lines: Iterable[str]) -> list[MultiwordToken]:
    """Comment lines read before a sentence's words into the sentence: its id, text and speaker (as slots, so that
    they are written back where they were), the other comments as they are. Returns the multiword tokens of its
    ``# multiword`` lines, for the caller to add once the words are read (`misplaced_multiwords`)."""
    tokens = []
    for comment in lines:
        token = multiword_from_comment(comment)
        if token is not None:
            tokens.append(token)
            continue
        key, _, value = comment[1:].partition("=")
        if key.strip() == "sent_id" and comment == f"# sent_id = {value.strip()}":
            sentence.id = value.strip()
            sentence.comments.append(CommentSlot.SENT_ID)
        elif key.strip() == "text" and comment == f"# text = {value.strip()}":
            sentence.text = value.strip()
            sentence.comments.append(CommentSlot.TEXT)
        elif key.strip() == "speaker" and comment == f"# speaker = {value.strip()}":
            sentence.speaker = value.strip()
            sentence.comments.append(CommentSlot.SPEAKER)
        else:
            sentence.comments.append(comment)
    return tokens


def misplaced_multiwords(sentence: Sentence, tokens: Iterable[MultiwordToken]) -> list[MultiwordToken]:
    """Adds each token whose words the sentence has to its multiword tokens; returns the others."""
    words = {int(node.id) for node in sentence.words}
    misplaced = []
    for token in tokens:
        if set(range(token.first, token.last + 1)) <= words:
            sentence.multiwords.append(token)
        else:
            misplaced.append(token)
    return misplaced


# Document fields as CorefUD and GUM write them, in comments after the document's first lines.
DOCUMENT_FIELDS = {"meta::genre": "genre", "meta::topic": "topic", "meta::subtopic": "subtopic",
                   "meta::language": "language"}


def read_document_fields(document: Document) -> None:
    """Genre, topic, subtopic and language from ``# meta::NAME = value`` comments of the document's first
    sentence."""
    if not document.sentences:
        return
    for comment in document.sentences[0].comments:
        if isinstance(comment, str):
            key, sep, value = comment[1:].partition("=")
            if sep and key.strip() in DOCUMENT_FIELDS:
                setattr(document, DOCUMENT_FIELDS[key.strip()], value.strip())


def document_field_lines(document: Document) -> list[str]:
    """``# meta::NAME = value`` lines for the fields the document has and its first sentence's comments lack (none
    for a document without sentences: the lines belong to its first)."""
    if not document.sentences:
        return []
    said = {c[1:].partition("=")[0].strip() for c in document.sentences[0].comments if isinstance(c, str)}
    return [f"# {key} = {getattr(document, name)}" for key, name in DOCUMENT_FIELDS.items()
            if getattr(document, name) is not None and key not in said]
