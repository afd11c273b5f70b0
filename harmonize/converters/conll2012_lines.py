"""The columns of a CoNLL-2012 token line: which hold the word, POS and speaker (what the model has fields for) and
which hold what it has none for (OntoNotes' parse bit, predicate lemma, frameset, word sense, named entities and
predicate arguments). The reader, the writer and the differ go by these."""

from __future__ import annotations

from harmonize.schemas.model import Node

# Column of the word, POS and speaker in the OntoNotes layout.
WORD, POS, SPEAKER = 3, 4, 9


def column_roles(fields: list[str]) -> dict[str, int] | None:
    """Where the word, POS and speaker stand among a token line's columns before the cell ({} where none of them
    does; None where the layout is unknown). Reader and writer both go by it."""
    if len(fields) >= 3 and fields[1].isdigit() and fields[2].isdigit():  # OntoNotes: id, part, index, word ...
        wanted = {"word": WORD, "pos": POS, "speaker": SPEAKER}
        # The speaker column counts only in the full layout, where the named-entity column follows it.
        return {role: at for role, at in wanted.items() if at < len(fields) - (role == "speaker")}
    if len(fields) >= 2 and fields[0].isdigit():  # index first: GUM, OntoGUM, the PCC
        return {"word": 1}
    if len(fields) == 1:  # document id only: the scorer's 2-column keys
        return {}
    return None


# OntoNotes' columns between the word's POS and the coreference cell, by position (the speaker, column 9, is
# `Sentence.speaker`); the columns from 11 on are the arguments of each predicate of the sentence.
_ONTONOTES_COLUMNS = {5: "parse bit", 6: "predicate lemma", 7: "frameset", 8: "word sense", 10: "named entities"}
_PLACEHOLDERS = ("-", "*", "_", "")


def other_columns(node: Node) -> dict[str, str]:
    """The columns of a node's CoNLL-2012 line that the model has no field for, by name (OntoNotes: parse bit,
    predicate lemma, frameset, word sense, named entities, ``arguments N``; other layouts: ``column N``), leaving
    out placeholders (``-``, ``*``, ``_``). Empty for a node not read from CoNLL-2012."""
    if node.conll2012 is None:
        return {}
    prefix = node.conll2012[0]
    fields = prefix.split("\t")[:-1] if prefix.endswith("\t") else prefix.split()
    roles = column_roles(fields)
    if not roles:
        return {}
    if "pos" in roles:  # OntoNotes
        named = {at: _ONTONOTES_COLUMNS.get(at, f"arguments {at - 10}") for at in range(5, len(fields)) if at != 9}
    else:  # index first (GUM, the PCC): what stands after the word
        named = {at: f"column {at + 1}" for at in range(2, len(fields))}
    return {name: fields[at] for at, name in named.items() if fields[at] not in _PLACEHOLDERS}
