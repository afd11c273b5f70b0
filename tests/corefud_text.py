"""Build small CoNLL-U texts for tests: one row per node, "ID FORM [MISC]"; other columns are "_"."""

from __future__ import annotations


def conllu(*sentences: str, header: str | None = "eid-etype-head-other", doc: str | None = "d1") -> str:
    lines: list[str] = []
    if doc is not None:
        lines.append(f"# newdoc id = {doc}")
    if header is not None:
        lines.append(f"# global.Entity = {header}")
    for number, sentence in enumerate(sentences, 1):
        rows = [row.split() for row in sentence.strip().splitlines()]
        if rows and rows[0][0] == "#":
            lines.append(" ".join(rows.pop(0)))
        lines.append(f"# sent_id = s{number}")
        for row in rows:
            node_id, form = row[0], row[1]
            misc = row[2] if len(row) > 2 else "_"
            lines.append("\t".join([node_id, form, "_", "_", "_", "_", "_", "_", "_", misc]))
        lines.append("")
    return "\n".join(lines) + "\n"
