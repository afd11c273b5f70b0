"""A comparable summary of a corpus' content, for proving that two corpora say the same thing.

Byte identity is the strongest round-trip check; where a format cannot carry everything (or orders things its
own way) two corpora are compared by their signatures instead.
"""

from __future__ import annotations

from typing import Any

from harmonize.schemas.model import Corpus, Document, Mention, Node


def _node_key(node: Node) -> tuple[int, str]:
    assert node.sentence is not None
    return (node.sentence.index, node.id)


def _mention_key(mention: Mention) -> tuple[Any, ...]:
    return tuple(_node_key(w) for w in mention.words)


def document_signature(document: Document, columns: bool = True) -> dict[str, Any]:
    """Mentions, entities, heads, link types, relations and (optionally) every token column of one document."""
    signature: dict[str, Any] = {
        "id": document.id,
        "entities": sorted(
            (
                e.id,
                e.type,
                tuple(sorted(e.attrs.items())),
                tuple(
                    sorted(
                        (
                            _mention_key(m),
                            _node_key(m.head) if m.head is not None else None,
                            m.link,
                            m.etype,
                            tuple(sorted(m.attrs.items())),
                        )
                        for m in e.mentions
                    )
                ),
            )
            for e in document.entities
        ),
        "bridges": sorted(
            (_mention_key(b.anaphor), b.antecedent.id, b.label or "") for b in document.bridges
        ),
        "split_antecedents": sorted(
            (s.entity.id, tuple(a.id for a in s.antecedents)) for s in document.split_antecedents
        ),
    }
    if columns:
        signature["tokens"] = [
            (
                node.id, node.form, node.lemma, node.upos, node.xpos, node.feats, node.head, node.deprel, node.deps,
                tuple(node.misc.items()),
            )
            for node in document.nodes()
        ]
        signature["sentences"] = [(s.id, s.text) for s in document.sentences]
    return signature


def corpus_signature(corpus: Corpus, columns: bool = True) -> list[dict[str, Any]]:
    return [document_signature(d, columns) for d in corpus.documents]
