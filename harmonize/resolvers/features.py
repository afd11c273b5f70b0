"""A document as the neural resolver sees it: its nodes in order (words and the empty nodes the input has), their
subwords cut into encoder windows, the candidate spans, and, for training, the gold mentions and entities.

Windows: the document's subwords run on; a window holds at most ``window - 2`` of them (room for the encoder's
two special tokens) and consecutive windows overlap by ``2 * context``, so that every subword is read with at
least ``context`` subwords of text on each side (except at the document's edges) and takes its vector from the
window where it lies most centrally. A word's vector is its first subword's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import torch

from harmonize.schemas.model import Document, Node

SAME_SPEAKER, OTHER_SPEAKER, UNKNOWN_SPEAKER = 0, 1, 2


@dataclass
class DocumentFeatures:
    """Tensors for one document; spans are (first, last) node indices, inclusive."""

    nodes: list[Node]
    windows: torch.Tensor  # [windows, length] subword ids, padded
    attention: torch.Tensor  # [windows, length] 1 for real tokens
    word_window: torch.Tensor  # [nodes] the window each node's vector comes from
    word_position: torch.Tensor  # [nodes] its first subword's position in that window
    candidates: torch.Tensor  # [spans, 2] every span within one sentence up to the maximum width
    speakers: list[str | None]  # per node: its sentence's speaker
    gold_spans: torch.Tensor | None = None  # [mentions, 2] in document order
    gold_entities: torch.Tensor | None = None  # [mentions] entity index per gold mention
    left_out: Counter = field(default_factory=Counter)  # gold mentions the model cannot learn, per reason


def node_text(node: Node) -> str:
    """What the encoder reads for a node: its form; an empty node's lemma when it has no form ("#PersPron")."""
    for text in (node.form, node.lemma if node.is_empty else "_"):
        if text and text != "_":
            return text
    return "_"


def subword_windows(tokenizer, nodes: list[Node], window: int, context: int):
    """(windows, attention, word_window, word_position) for ``nodes`` (see the module)."""
    pieces: list[list[int]] = []
    sentences: list[list[str]] = []
    current = None
    for node in nodes:  # tokenized a sentence at a time: one call per document would exceed the model's length
        if node.sentence is not current:
            current = node.sentence
            sentences.append([])
        sentences[-1].append(node_text(node))
    encoded = tokenizer(sentences, is_split_into_words=True, add_special_tokens=False)
    for index in range(len(sentences)):
        ids = encoded["input_ids"][index]
        per_word: list[list[int]] = [[] for _ in sentences[index]]
        for position, word in enumerate(encoded.word_ids(index)):
            if word is not None:
                per_word[word].append(ids[position])
        pieces.extend(p or [tokenizer.unk_token_id] for p in per_word)
    flat = [piece for word in pieces for piece in word]
    first = torch.tensor([0] + [len(p) for p in pieces[:-1]]).cumsum(0)
    size = window - 2
    stride = max(1, size - 2 * context)
    starts = list(range(0, max(1, len(flat) - size + stride), stride))
    starts = sorted({min(s, max(0, len(flat) - size)) for s in starts})
    start = torch.tensor(starts)
    # Most central window: the one where the subword's distance to the nearer edge is largest.
    margin = torch.minimum(first[:, None] - start[None, :], start[None, :] + size - 1 - first[:, None])
    word_window = margin.argmax(1)
    word_position = first - start[word_window] + 1  # +1: the leading special token
    length = min(size, len(flat)) + 2
    windows = torch.full((len(starts), length), tokenizer.pad_token_id, dtype=torch.long)
    attention = torch.zeros((len(starts), length), dtype=torch.long)
    for row, s in enumerate(starts):
        body = [tokenizer.cls_token_id, *flat[s:s + size], tokenizer.sep_token_id]
        windows[row, :len(body)] = torch.tensor(body)
        attention[row, :len(body)] = 1
    return windows, attention, word_window, word_position


def candidate_spans(nodes: list[Node], max_width: int) -> torch.Tensor:
    """Every (first, last) within one sentence and at most ``max_width`` nodes long, by first then last."""
    spans = []
    sentence_end: dict[int, int] = {}
    for index, node in enumerate(nodes):
        sentence_end[id(node.sentence)] = index
    for first, node in enumerate(nodes):
        last_allowed = min(sentence_end[id(node.sentence)], first + max_width - 1)
        spans.extend((first, last) for last in range(first, last_allowed + 1))
    return torch.tensor(spans, dtype=torch.long).reshape(-1, 2)


def document_features(document: Document, tokenizer, window: int, context: int, max_width: int,
                      gold: bool) -> DocumentFeatures:
    """The document's features; with ``gold``, its mentions and entities as training targets (a discontinuous
    mention is learnt as the span from its first to its last node; one longer than ``max_width`` is left out of
    the mention targets but kept in its entity, and counted)."""
    nodes = [node for sentence in document.sentences for node in sentence.nodes]
    windows, attention, word_window, word_position = subword_windows(tokenizer, nodes, window, context)
    features = DocumentFeatures(nodes, windows, attention, word_window, word_position,
                                candidate_spans(nodes, max_width), [n.sentence.speaker for n in nodes])
    if gold:
        index_of = {id(node): index for index, node in enumerate(nodes)}
        spans: dict[tuple[int, int], int] = {}
        for entity_index, entity in enumerate(document.entities):
            for mention in entity.mentions:
                span = (index_of[id(mention.words[0])], index_of[id(mention.words[-1])])
                if mention.is_discontinuous:
                    features.left_out["discontinuous mention learnt over its gaps"] += 1
                if span in spans:
                    features.left_out["second mention over the same span (one entity kept)"] += 1
                    continue
                spans[span] = entity_index
        ordered = sorted(spans, key=lambda s: (s[0], -s[1]))
        features.gold_spans = torch.tensor(ordered, dtype=torch.long).reshape(-1, 2)
        features.gold_entities = torch.tensor([spans[s] for s in ordered], dtype=torch.long)
        too_wide = sum(1 for first, last in ordered if last - first + 1 > max_width)
        if too_wide:
            features.left_out[f"longer than {max_width} nodes: not a mention detection target"] += too_wide
    return features
