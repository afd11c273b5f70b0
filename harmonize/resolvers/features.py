"""A document as the neural resolver sees it: its nodes in order (words and the empty nodes the input has), their
subwords cut into encoder windows, the candidate spans, and, for training, the gold mentions and entities.

Windows: the document's subwords run on; a window holds at most ``window - 2`` of them (room for the encoder's
two special tokens) and consecutive windows overlap by ``2 * context``, so that every subword is read with at
least ``context`` subwords of text on each side (except at the document's edges) and takes its vector from the
window where it lies most centrally. A word's vector is the mean of its subwords' there (`pool_words`; a model saved
before that used its first subword's): where the tokenizer does not know the script (MiniLM cuts Russian into
single characters) a first subword is a letter, the mean is the whole word. On the held-out training documents of
3-minute CPU trainings (the benchmark's cut, never its dev), the mean scored CoNLL 31.88 against 26.75 on
ParCorFull EN and 22.71 against 16.70 on Potsdam (German).

Syntax, where the input has a dependency tree (every CorefUD file does): each candidate span's class (the words of
a mention are nearly always one subtree, whole or cut short, of the tree) and its root word (the one word whose
parent lies outside the span; the last word where there is no single one), and for antecedents whether two
mentions have the same words and the same root lemma. A document without HEADs gets the class ``NO_TREE``.

Tags, where the input has them: each word's UPOS, its relation, and its Number, Gender and Person (`word_tags`);
a tag left out (``_``) or outside UD's lists is index 0.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

import torch

from harmonize.schemas.model import Document, Node

SAME_SPEAKER, OTHER_SPEAKER, UNKNOWN_SPEAKER = 0, 1, 2
# A span's place in the dependency tree: its words have several roots, one root (part of its subtree), are the
# root's subtree less its function-word dependents ("in [our system]", "[the need] ."), or its whole subtree.
NO_TREE, SEVERAL_ROOTS, PART_OF_SUBTREE, SUBTREE_LESS_FUNCTION_WORDS, WHOLE_SUBTREE = range(5)
SYNTAX_CLASSES = 5
FUNCTION_RELATIONS = frozenset({"case", "punct", "cc", "mark"})
# A word's tags, each an index (0: not given, or none of these): its UPOS, its relation (less its subtype), and its
# Number, Gender and Person (what a pronoun agrees with its antecedent in).
UPOS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT", "SCONJ",
        "SYM", "VERB", "X")
RELATIONS = ("acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf", "compound", "conj",
             "cop", "csubj", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat", "goeswith", "iobj",
             "list", "mark", "nmod", "nsubj", "nummod", "obj", "obl", "orphan", "parataxis", "punct", "reparandum",
             "root", "vocative", "xcomp")
MORPHOLOGY = (("Number", ("Sing", "Plur")), ("Gender", ("Masc", "Fem", "Neut")), ("Person", ("1", "2", "3")))
TAG_VALUES = (UPOS, RELATIONS, *(values for _, values in MORPHOLOGY))


@dataclass
class DocumentFeatures:
    """Tensors for one document; spans are (first, last) node indices, inclusive."""

    nodes: list[Node]
    windows: torch.Tensor  # [windows, length] subword ids, padded
    attention: torch.Tensor  # [windows, length] 1 for real tokens
    word_window: torch.Tensor  # [nodes] the window each node's vector comes from
    word_position: torch.Tensor  # [nodes] its first subword's position in that window
    word_length: torch.Tensor  # [nodes] how many of its subwords that window holds (1 at least)
    candidates: torch.Tensor  # [spans, 2] every span within one sentence up to the maximum width
    speakers: list[str | None]  # per node: its sentence's speaker
    parents: torch.Tensor | None  # [nodes] each node's parent index (-1: a root, an empty node), None: no tree
    subtrees: torch.Tensor | None  # [nodes, 2] each node's subtree size, whole and less its function words
    tags: torch.Tensor | None = None  # [nodes, 5] `word_tags`
    sentences: torch.Tensor | None = None  # [nodes] each node's sentence, numbered from 0 in document order
    candidate_syntax: torch.Tensor | None = None  # [spans] the candidates' `span_syntax` class (uint8)
    gold_spans: torch.Tensor | None = None  # [mentions, 2] in document order
    gold_entities: torch.Tensor | None = None  # [mentions] entity index per gold mention
    left_out: Counter = field(default_factory=Counter)  # gold mentions the model cannot learn, per reason


def node_text(node: Node) -> str:
    """What the encoder reads for a node: its form; an empty node's lemma when it has no form ("#PersPron")."""
    for text in (node.form, node.lemma if node.is_empty else "_"):
        if text and text != "_":
            return text
    return "_"


class SubwordWindows(NamedTuple):
    windows: torch.Tensor  # [windows, length] subword ids, padded
    attention: torch.Tensor  # [windows, length] 1 for real tokens
    word_window: torch.Tensor  # [nodes] the window each node's vector comes from
    word_position: torch.Tensor  # [nodes] its first subword's position in that window
    word_length: torch.Tensor  # [nodes] how many of its subwords that window holds


WORD_POOLING = ("mean", "first")  # a word's vector: the mean of its subwords', or its first subword's


def subword_windows(tokenizer, nodes: list[Node], window: int, context: int) -> SubwordWindows:
    """The encoder windows of ``nodes`` and where each node lies in them (see the module)."""
    pieces: list[list[int]] = []
    sentences: list[list[str]] = []
    current = None
    for node in nodes:  # tokenized a sentence at a time: one call per document would exceed the model's length
        if node.sentence is not current:
            current = node.sentence
            sentences.append([])
        sentences[-1].append(node_text(node))
    # verbose=False: a sentence longer than the encoder's limit (627 subwords of Russian under MiniLM) is no error
    # here, where the windows below cut the document's subwords to the limit; the tokenizer's warning said it was.
    encoded = tokenizer(sentences, is_split_into_words=True, add_special_tokens=False, verbose=False)
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
    # A word longer than the context may run past its window's end: its subwords there are left out of its mean.
    word_length = torch.minimum(torch.tensor([len(p) for p in pieces]), start[word_window] + size - first)
    length = min(size, len(flat)) + 2
    windows = torch.full((len(starts), length), tokenizer.pad_token_id, dtype=torch.long)
    attention = torch.zeros((len(starts), length), dtype=torch.long)
    for row, s in enumerate(starts):
        body = [tokenizer.cls_token_id, *flat[s:s + size], tokenizer.sep_token_id]
        windows[row, :len(body)] = torch.tensor(body)
        attention[row, :len(body)] = 1
    return SubwordWindows(windows, attention, word_window, word_position, word_length)


def pool_words(hidden: torch.Tensor, windows: SubwordWindows | DocumentFeatures, pooling: str) -> torch.Tensor:
    """[nodes, dim]: each node's vector from the encoder's ``hidden`` states [windows, length, dim] of its most
    central window, by ``pooling`` (one of `WORD_POOLING`)."""
    device = hidden.device
    word_window, word_position = windows.word_window.to(device), windows.word_position.to(device)
    if pooling == "first":
        return hidden[word_window, word_position]
    lengths = windows.word_length.to(device)
    word = torch.repeat_interleave(torch.arange(len(lengths), device=device), lengths)  # per subword, its word
    offset = torch.arange(len(word), device=device) - (lengths.cumsum(0) - lengths)[word]
    pieces = hidden[word_window[word], word_position[word] + offset]
    summed = torch.zeros(len(lengths), hidden.shape[-1], dtype=pieces.dtype, device=device).index_add_(0, word, pieces)
    return summed / lengths[:, None].to(pieces.dtype)


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
    index_of = {id(node): index for index, node in enumerate(nodes)}
    features = DocumentFeatures(nodes, *subword_windows(tokenizer, nodes, window, context),
                                candidate_spans(nodes, max_width), [n.sentence.speaker for n in nodes],
                                *tree_parents(nodes, index_of))
    features.tags = word_tags(nodes)
    features.sentences = torch.tensor([number for number, sentence in enumerate(document.sentences)
                                       for _ in sentence.nodes], dtype=torch.long)
    # In blocks, and only the class kept: a long document's candidates are hundreds of thousands of spans.
    features.candidate_syntax = torch.cat([span_syntax(features, block)[0].to(torch.uint8)
                                           for block in features.candidates.split(1 << 16)])
    if gold:
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


def tree_parents(nodes: list[Node], index_of: dict[int, int]) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """(parents, subtree sizes): each node's parent as an index into ``nodes`` (``index_of``: by ``id(node)``; -1 for
    a root, an empty node or an unknown HEAD) and `subtree_sizes`; (None, None) when no word has a HEAD."""
    parents, function_words, known = [], [], False
    for node in nodes:
        columns = _columns(node)
        head = columns[6]
        known = known or head.isdigit()
        parent = node.sentence.word(head) if head.isdigit() and not node.is_empty else None
        parents.append(-1 if parent is None else index_of.get(id(parent), -1))
        function_words.append(columns[7].split(":")[0] in FUNCTION_RELATIONS)
    if not known:
        return None, None
    return torch.tensor(parents, dtype=torch.long), subtree_sizes(parents, function_words)


def word_tags(nodes: list[Node]) -> torch.Tensor:
    """[nodes, 5]: each node's UPOS, relation and `MORPHOLOGY` values as indices into `TAG_VALUES`' lists, plus one
    (0: not given, or another value)."""
    rows = []
    for node in nodes:
        columns = _columns(node)
        morphology = dict(f.split("=", 1) for f in columns[5].split("|") if "=" in f)
        rows.append([_index(UPOS, columns[3]), _index(RELATIONS, columns[7].split(":")[0]),
                     *(_index(values, morphology.get(name, "")) for name, values in MORPHOLOGY)])
    return torch.tensor(rows, dtype=torch.long).reshape(-1, len(TAG_VALUES))


def _index(values: tuple[str, ...], value: str) -> int:
    return values.index(value) + 1 if value in values else 0


def _columns(node: Node) -> list[str]:
    """The node's columns, from its line while it is untouched: read through the properties, every node of a
    training corpus would keep its line split (150 MB for GUM's train)."""
    line = node.verbatim_line()
    return line.split("\t") if line is not None else node.columns()


def span_positions(first: torch.Tensor, last: torch.Tensor, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(inside, positions), each [spans, widest span]: the node indices of each span's words, padded (clamped to
    ``length - 1``) to the widest, and which of them lie inside the span."""
    widths = last - first + 1
    offsets = torch.arange(int(widths.max()), device=first.device)
    return offsets[None, :] < widths[:, None], (first[:, None] + offsets[None, :]).clamp(max=length - 1)


def span_syntax(features: DocumentFeatures, spans: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(class [spans], root [spans]) of ``spans`` [spans, 2] (see the module): one of the classes above; the root
    is the single word whose parent lies outside the span, else the span's last word."""
    first, last = spans[:, 0], spans[:, 1]
    parents = features.parents
    if parents is None or len(spans) == 0:
        return torch.full_like(first, NO_TREE), last.clone()
    widths = last - first + 1
    inside, positions = span_positions(first, last, len(parents))
    above = parents[positions]
    outside = inside & ((above < first[:, None]) | (above > last[:, None]))
    roots = outside.sum(1)
    single = roots == 1
    root = torch.where(single, first + outside.long().argmax(1), last)
    sizes = features.subtrees[root]
    kind = torch.where(single, PART_OF_SUBTREE, SEVERAL_ROOTS)
    kind = torch.where(single & (sizes[:, 1] == widths), SUBTREE_LESS_FUNCTION_WORDS, kind)
    return torch.where(single & (sizes[:, 0] == widths), WHOLE_SUBTREE, kind), root


def subtree_sizes(parents: list[int], function_words: list[bool]) -> torch.Tensor:
    """[nodes, 2]: how many nodes each node's subtree holds, itself included, and how many are left without the
    subtrees of its own function-word dependents (``function_words``: a node's relation is one of them)."""
    whole = [1] * len(parents)
    for node in range(len(parents)):
        seen, parent = 0, parents[node]
        while parent >= 0 and seen < len(parents):  # (the bound: a malformed HEAD cycle must not hang)
            whole[parent] += 1
            parent, seen = parents[parent], seen + 1
    core = list(whole)
    for node, parent in enumerate(parents):
        if parent >= 0 and function_words[node]:
            core[parent] -= whole[node]
    return torch.tensor([whole, core], dtype=torch.long).T


def mention_keys(features: DocumentFeatures, spans: torch.Tensor, roots: torch.Tensor) -> torch.Tensor:
    """[mentions, 2]: an id per distinct text (lowercased words) and per distinct root lemma (lowercased; the form
    where there is no lemma), so that equal ids mean the same words, the same root."""
    texts: dict[str, int] = {}
    lemmas: dict[str, int] = {}
    keys = []
    for (first, last), root in zip(spans.tolist(), roots.tolist()):
        text = " ".join(node_text(node).lower() for node in features.nodes[first:last + 1])
        node = features.nodes[root]
        lemma = _columns(node)[2]
        lemma = (lemma if lemma not in ("_", "") else node_text(node)).lower()
        keys.append((texts.setdefault(text, len(texts)), lemmas.setdefault(lemma, len(lemmas))))
    return torch.tensor(keys, dtype=torch.long).reshape(-1, 2)
