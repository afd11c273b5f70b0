"""What a format cannot hold of a document, counted in the units the differ counts (`harmonize.accounting`).

Each writer declares what its format keeps (`Holds`) and calls `report_unheld` once per document with the mentions
it writes and the ids the format will give back; every kind of annotation the format has no place for is one
report reason, ``"KIND not written (FORMAT has no place for it)"``, counted as the differ counts that kind (a
column per word, a MISC attribute per word and key, a mention field per mention and key, ...). The accounting
tests read each output back and check that these counts equal the differences found.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from harmonize.converters.conll2012_lines import other_columns
from harmonize.converters.sentence_comments import DOCUMENT_FIELDS
from harmonize.errors import Report
from harmonize.schemas.model import Document, Entity, Mention, Node, Sentence, made_sentence_id, parse_misc

COLUMNS = ("LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS")
# Comments that carry a document field (CorefUD's `# meta::genre = ...`): counted as that field, not as comments.
FIELD_COMMENTS = tuple(f"# {key} =" for key in DOCUMENT_FIELDS)  # the document's fields, compared as such
SPACING_KEYS = ("SpaceAfter", "SpacesAfter", "SpacesBefore")


def words_joined(sentence: Sentence) -> str:
    """A sentence's text as readers without a text of their own make it: its words joined by spaces."""
    return " ".join(node.form for node in sentence.words)


@dataclass(frozen=True)
class Holds:
    """What a format keeps of the model (the word forms and the mentions' words always).

    ``sentence_ids``: kept as they are; else the reader numbers sentences: ``sentence_id(number)`` (default
    ``made_sentence_id`` of the document id read back).
    ``sentence_text``: kept; else the reader rebuilds the text with ``text_rebuilt`` (None: the format has none).
    ``misc``: True for every MISC attribute, else the keys kept (the spacing keys, for formats of raw text).
    ``empty_nodes``: True, False, "positions" (all kept as positions without a form), "mentioned" (those in a
    mention are kept so), "alone" (only those a mention is on without words are kept so) or "written alone" (the
    same, where that mention is written).
    """

    columns: Collection[str] = ()
    misc: bool | Collection[str] = ()
    sentence_ids: bool = False
    sentence_id: Callable[[int], str] | None = None
    sentence_text: bool = False
    text_rebuilt: Callable[[Sentence], str | None] | None = words_joined
    speaker: bool = False
    comments: bool = False
    multiword_tokens: bool = False
    glued_multiword_tokens: bool = False  # written as their words glued, as raw text shows them
    spacing_within_sentences: bool = False  # the reader takes spacing between a sentence's words only
    empty_nodes: bool | str = False
    conll2012_columns: bool = False
    heads: bool = False
    entity_types: bool = False
    mention_types: bool = False
    links: bool = False
    mention_fields: bool | Collection[str] = False
    entity_fields: bool | Collection[str] = False
    bridges: bool = False
    split_antecedents: bool = False
    document_fields: Collection[str] = ()


_DOCUMENT_FIELDS = ("language", "genre", "topic", "subtopic")


def report_unheld(document: Document, holds: Holds, report: Report, target: str,
                  written: Collection[Mention] | Mapping[Mention, Any],
                  document_id: str | None = None, entity_ids: Mapping[Entity, str] | None = None,
                  document_fields: Mapping[str, str | None] | None = None, count_id: bool = True) -> None:
    """Count what ``document`` has that ``target`` does not hold. ``written``: the mentions the writer writes (the
    others it reported itself); ``document_id``, ``entity_ids``: the ids reading the output gives back, where
    they differ from the model's; ``document_fields``: the values of language, genre, topic and subtopic reading it
    back gives, for those the format does not hold; ``count_id`` False where the id's change is counted elsewhere
    (a file per document: `harmonize.io.DocumentFiles` counts the renamed ones)."""
    where = str(document.id)
    counts: dict[str, int] = {}

    def count(kind: str, number: int) -> None:
        if number:
            counts[kind] = counts.get(kind, 0) + number

    if count_id and document_id is not None and document_id != document.id:
        count("document id", 1)
    for name, value in (document_fields or {}).items():
        count("document field", int(getattr(document, name) != value))
    new_id = document_id if document_id is not None else document.id
    written_ids = {id(m) for m in written}
    for index, sentence in enumerate(document.sentences):
        if not holds.sentence_ids:
            made = holds.sentence_id(index + 1) if holds.sentence_id else made_sentence_id(new_id, index + 1)
            count("sentence id", int(sentence.id != made))
        if not holds.sentence_text:
            rebuilt = holds.text_rebuilt(sentence) if holds.text_rebuilt is not None else None
            count("sentence text", int(sentence.text != rebuilt))
        if not holds.speaker:
            count("speaker", int(sentence.speaker is not None))
        if not holds.comments:
            count("comment", sum(1 for comment in sentence.comments
                                 if isinstance(comment, str) and not comment.startswith(FIELD_COMMENTS)))
        if not holds.multiword_tokens:
            count("multiword token", len(sentence.multiwords))
        for node in sentence.nodes:
            if node.is_empty and not _empty_kept(node, holds, written_ids):
                count("empty node", 1)
                continue
            if node.is_empty and holds.empty_nodes in ("positions", "mentioned", "alone") and node.form != "_":
                count("FORM", 1)
            for column in COLUMNS:
                if column not in holds.columns and getattr(node, column.lower()) != "_":
                    count(column, 1)
            if holds.misc is not True:
                count("MISC", sum(1 for key in node.misc_view() if not _held(holds.misc, key)))
            if not holds.conll2012_columns:
                count("CoNLL-2012 column", len(other_columns(node)))
    kept = list(written)
    if holds.spacing_within_sentences:
        count("MISC", sum(_edge_spacing(sentence) for sentence in document.sentences))
    if holds.glued_multiword_tokens:
        # A format of raw text shows a multiword token as its words glued: they read back with SpaceAfter=No,
        # and the last word with the token's spacing.
        count("MISC", sum(_glued_spacing(sentence) for sentence in document.sentences))
    entities = {id(m.entity): m.entity for m in kept}
    count("entity dropped", sum(1 for e in document.entities if id(e) not in entities))
    if not holds.heads:
        # A mention written as one word has that word as its head whether annotated or not: only heads of longer
        # mentions are lost (and the head of a mention cut to one other word).
        count("mention head", sum(1 for m in kept if m.head is not None and not _one_word_head(m, written)))
    if not holds.mention_types:
        count("mention type", sum(1 for m in kept if m.etype is not None))
    if not holds.links:
        count("mention link", sum(1 for m in kept if m.link is not None))
    count("mention field", sum(1 for m in kept for key in m.attrs if not _held(holds.mention_fields, key)))
    for entity in entities.values():
        assert entity is not None
        if not holds.entity_types:
            count("entity type", int(entity.type is not None))
        count("entity field", sum(1 for key in entity.attrs if not _held(holds.entity_fields, key)))
        if entity_ids is not None:
            count("entity id", int(entity_ids.get(entity, entity.id) != entity.id))
    if not holds.bridges:
        count("bridge dropped", len(document.bridges))
    if not holds.split_antecedents:
        count("split antecedent dropped", len(document.split_antecedents))
    for kind, number in counts.items():
        report.add(unheld_reason(kind, target), where, number)


# What the report calls each kind of difference a format has no place for.
_WHAT = {
    "document id": "document ids", "document field": "document fields (language, genre, topic, subtopic)",
    "sentence id": "sentence ids", "sentence text": "sentence texts other than the words joined",
    "speaker": "speakers", "comment": "comment lines", "multiword token": "multiword tokens",
    "empty node": "empty nodes", "FORM": "forms of empty nodes", "MISC": "MISC attributes", "CoNLL-2012 column": "CoNLL-2012 columns",
    "mention head": "heads", "mention type": "mention types unlike their entity's",
    "mention link": "mention link types", "mention field": "mention fields", "entity type": "entity types",
    "entity field": "entity fields", "entity id": "entity ids", "bridge dropped": "bridging",
    "split antecedent dropped": "split antecedents",
    **{column: column for column in COLUMNS},
}
UNHELD_KINDS = (*_WHAT, "entity dropped")


def unheld_reason(kind: str, target: str) -> str:
    """The report reason for ``kind`` (a kind of difference, `harmonize.accounting.differ.KINDS`) that ``target``
    cannot hold."""
    if kind == "entity dropped":
        return f"entities left without a written mention (not written to {target})"
    return f"{_WHAT[kind]} not written ({target} has no place for them)"


def _one_word_head(mention: Mention, written: Collection[Mention]) -> bool:
    """Whether the mention is written as one word, its head (``written`` may map mentions to the `WordSpan` a
    word-span format writes them as, or to the list of nodes written)."""
    span = written.get(mention) if isinstance(written, Mapping) else None
    if span is None:
        return len(mention.words) == 1
    if isinstance(span, list):  # the nodes written
        return len(span) == 1 and span[0] is mention.head
    head = mention.head
    return (span.start == span.end and head is not None and not head.is_empty and head.sentence is not None
            and head.sentence.words.index(head) == span.start)


def _empty_kept(node: Node, holds: Holds, written: set[int]) -> bool:
    """Whether the empty node reads back, per ``holds.empty_nodes`` ("written alone": on a mention without words
    that is written, ``written`` their ids)."""
    if holds.empty_nodes == "positions":
        return True
    if holds.empty_nodes == "mentioned":
        return bool(node.mentions)
    if holds.empty_nodes == "alone":
        return any(all(w.is_empty for w in m.words) for m in node.mentions)
    if holds.empty_nodes == "written alone":
        return any(id(m) in written and all(w.is_empty for w in m.words) for m in node.mentions)
    return bool(holds.empty_nodes)


def _edge_spacing(sentence: Sentence) -> int:
    """Spacing attributes a reader that takes the spacing between a sentence's words only does not read back: after
    its last word, and before any word."""
    words = sentence.words
    after = sum(1 for key in ("SpaceAfter", "SpacesAfter") if key in words[-1].misc_view()) if words else 0
    return after + sum(1 for word in words if "SpacesBefore" in word.misc_view())


def _glued_spacing(sentence: Sentence) -> int:
    """MISC spacing attributes of a sentence's words that read back otherwise when its multiword tokens are written
    as their words glued (every word but the last without space after, the last with the token's spacing)."""
    changed = 0
    for token in sentence.multiwords:
        words = [w for w in sentence.words if token.first <= int(w.id) <= token.last]
        token_misc = parse_misc(token.columns[-1])
        for word in words[:-1]:
            changed += word.misc_view().get("SpaceAfter") != "No"
        if words:
            last = words[-1].misc_view()
            changed += sum(1 for key in SPACING_KEYS if last.get(key) != token_misc.get(key))
    return changed


def _held(held: bool | Collection[str], key: str) -> bool:
    return held if isinstance(held, bool) else key in held
