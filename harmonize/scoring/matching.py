"""Which response mention stands for which key mention, in the three CorefUD matching modes.

Matching is one-to-one and follows the CorefUD scorer's conventions:

1. Zeros (mentions headed by an empty node, in exact matching too: a mention "[∅ word]" headed by its empty node
   is a zero), with the default ``dependent`` method and in every matching mode, are first aligned with each
   other, within a sentence, by their head's enhanced dependencies: 10 x F1 of the (parent, deprel) sets plus F1
   of the parent sets; an optimal assignment keeps pairs that score above 0. With ``linear`` they are matched by
   position like any other mention.
2. Remaining mentions with the same nodes match (``head`` mode: the same nodes and the same head).
3. ``partial`` (CorefUD's primary setting): a remaining response mention can match a remaining key mention if
   it lies within the key mention and contains the key head; ``head`` (CRAC 2022): if it has the key's head.
   Candidates score |key ∩ response| / |key|, and an optimal assignment over mentions sorted by start, end and
   length picks the pairs, which prefers the proportionally closest candidate, then the earlier one.

A mention's head is its annotated head, else the highest of its words in the basic dependency tree (what udapi's
corefud.MoveHead computes); a key mention without either can only match exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from harmonize.schemas.model import Document, Node, tree_head
from harmonize.scoring.assignment import scipy_order_assignment

NodeKey = tuple  # (sentence index, node id), prefixed by the document index in cross-document scoring

MATCHING_MODES = ("exact", "partial", "head")
# The CorefUD scorer's default since its 1.1 (partial before), used by the CRAC 2023 and 2024 shared tasks; the one
# default of `score`, `diff` and their Python functions.
DEFAULT_MATCHING = "head"
MATCHING_HELP = ("Mention matching: head (the default, as the CorefUD scorer's since 1.1: a response mention with "
                 "the key mention's head), partial (the response lies within the key mention "
                 "and holds its head) or exact (the same words). Heads: annotated, else the tree's; a mention "
                 "with neither matches exactly. Character spans (rucoco) match exactly. --format ua: exact (the "
                 "default) or min (a key markable's minimal span Min and its bounds), as the UA scorer matches; "
                 "head or partial as the CorefUD scorer matches UA files (heads: a one-token Min, else the tree's).")


@dataclass(eq=False, slots=True)
class Span:
    """A mention as the scorer sees it: its nodes and head, identified by the object itself. ``head_deps`` is
    the enhanced dependencies of its head as (parent, deprel) pairs (zeros are aligned by them); ``sort_key`` is
    (first node, last node, size), the order of partial and head matching (exact matching needs neither).
    ``zero``: whether it is a zero (`is_zero`), where whoever made it knows already; None: found when asked."""

    nodes: frozenset[NodeKey]
    order: tuple
    head: NodeKey | None
    head_deps: frozenset[tuple[str, str]] = frozenset()
    sort_key: tuple = ()
    zero: bool | None = None

    def __reduce__(self) -> tuple:
        # Rebuilt through the constructor: much faster than the per-slot state a slotted dataclass pickles.
        return (Span, (self.nodes, self.order, self.head, self.head_deps, self.sort_key, self.zero))

    @property
    def size(self) -> int:
        return len(self.nodes)

    @property
    def is_zero(self) -> bool:
        """Headed by an empty node (a reconstructed zero); without a head, starting with one."""
        if self.zero is None:
            if self.head is not None:
                self.zero = "." in self.head[-1]
            else:
                self.zero = any("." in node[-1] for node in self.nodes) and \
                    "." in min(self.nodes, key=_node_sort)[-1]
        return self.zero


def _node_sort(node: NodeKey) -> tuple:
    *prefix, word = node
    major, _, minor = word.partition(".")
    return (*prefix, int(major), int(minor or 0))


def _deps(node: Node) -> frozenset[tuple[str, str]]:
    if node.deps in ("_", ""):
        return frozenset()
    pairs = []
    for item in node.deps.split("|"):
        parent, _, deprel = item.partition(":")
        pairs.append((parent, deprel))
    return frozenset(pairs)


def node_key(node: Node) -> NodeKey:
    assert node.sentence is not None
    return (node.sentence.index, node.id)


def document_spans(
    document: Document, singletons: bool, heads: bool = True, prefix: tuple = ()
) -> tuple[list[list[Span]], int]:
    """The document's clusters as Spans (without singletons unless asked for); a mention whose nodes occurred
    already is dropped (kept in its first cluster) and counted. ``heads`` off leaves heads out (exact matching
    needs none, and finding them in the tree is the costly part)."""
    clusters, duplicates = entity_spans(document, heads, prefix)
    return [c for c in clusters.values() if len(c) > 1 or (singletons and c)], duplicates


def entity_spans(document: Document, heads: bool, prefix: tuple = (), by_head: bool = False
                 ) -> tuple[dict[str, list[Span]], int]:
    """Entity id -> its mentions as Spans (duplicates dropped and counted), singletons included. Node keys start
    with ``prefix`` (the document's index when several documents form one partition). A duplicate has the nodes of
    an earlier mention, and with ``by_head`` (head matching, where the reference tells mentions apart by their
    heads too) its head as well."""
    seen: set[tuple] = set()
    clusters: dict[str, list[Span]] = {}
    duplicates = 0
    for entity in document.entities:
        cluster = clusters.setdefault(entity.id, [])
        for mention in entity.mentions:
            words = mention.words
            # Exact matching needs no head, nor an order of spans, but for a mention with an empty node: one headed
            # by its empty node is a zero, aligned as zeros are (the reference does so in exact matching too). Its
            # head there is the one the reference reads (udapi's: annotated, else the first word), not the tree's:
            # a tree head found on an empty node would make a zero of a mention the reference matches exactly.
            needs_head = heads or any(w.is_empty for w in words)
            if heads or by_head:
                head = tree_head(mention)
            else:
                head = exact_matching_head(words, mention.head) if needs_head else None
            span = mention_span(words, head, prefix, needs_head)
            identity = (span.nodes, span.head if by_head else None)
            if identity in seen:
                duplicates += 1
                continue
            seen.add(identity)
            cluster.append(span)
    return clusters, duplicates


def exact_matching_head(words: list[Node], annotated: Node | None) -> Node:
    """The head exact matching tells zeros by: the annotated one, else the first word, as the reference reads a
    mention without one (udapi's default), never the tree's."""
    return annotated if annotated is not None else words[0]


def mention_span(words: list[Node], head: Node | None, prefix: tuple = (), needs_head: bool = True) -> Span:
    """A mention of ``words`` (one sentence's, in order) headed by ``head`` (`tree_head`'s) as a Span; node keys
    start with ``prefix``. Without ``needs_head`` the span has no head, head dependencies or sort key (exact
    matching of mentions without empty nodes needs none)."""
    index = (*prefix, words[0].sentence.index)  # type: ignore[union-attr]  # one sentence per mention
    nodes = frozenset([(*index, w.id) for w in words]) if prefix else \
        frozenset([(index[0], w.id) for w in words])
    order = (*index, words[0].position)
    if not needs_head:
        return Span(nodes, order, None, zero=False)  # no head is needed where no word is empty
    # The first and last node in `_node_sort` order: all of one sentence, so by their ids alone.
    keys = [(int(w.id), 0) if w.id.isdigit() else _id_order(w.id) for w in words]
    return Span(nodes, order, (*prefix, *node_key(head)) if head is not None else None,
                _deps(head if head is not None else words[0]),
                ((*index, *min(keys)), (*index, *max(keys)), len(nodes)))


def _id_order(node_id: str) -> tuple[int, int]:
    major, _, minor = node_id.partition(".")
    return int(major), int(minor or 0)


def match(
    key: list[list[Span]], response: list[list[Span]], mode: str, zeros: str = "dependent"
) -> dict[Span, Span]:
    """response span -> the key span it stands for (one-to-one)."""
    if mode not in MATCHING_MODES:
        raise ValueError(f"unknown matching mode {mode!r}: exact, partial or head")
    if zeros not in ("dependent", "linear"):
        raise ValueError(f"unknown zero matching {zeros!r}: dependent or linear")
    key_spans = sorted((s for c in key for s in c), key=lambda s: s.sort_key)
    response_spans = sorted((s for c in response for s in c), key=lambda s: s.sort_key)
    matched: dict[Span, Span] = {}
    if zeros == "dependent":  # in every mode, exact included, as the CorefUD scorer aligns zeros
        matched.update(_assign([s for s in key_spans if s.is_zero], [s for s in response_spans if s.is_zero],
                               _zero_similarity))
    taken: set[int] = {id(k) for k in matched.values()}

    def identity(span: Span) -> tuple:
        return (span.nodes, span.head) if mode == "head" else (span.nodes,)

    by_identity = {identity(s): s for s in key_spans if id(s) not in taken}
    for span in response_spans:
        if span in matched:
            continue
        target = by_identity.get(identity(span))
        if target is not None and id(target) not in taken:
            matched[span] = target
            taken.add(id(target))
    if mode == "exact":
        return matched
    free_keys = [s for s in key_spans if id(s) not in taken]
    free_responses = [s for s in response_spans if s not in matched]
    similarity = _partial_similarity if mode == "partial" else _head_similarity
    matched.update(_assign(free_keys, free_responses, similarity))
    return matched


def _partial_similarity(key: Span, response: Span) -> float:
    if key.head is not None and key.head in response.nodes and response.nodes <= key.nodes:
        return len(response.nodes) / len(key.nodes)
    return 0.0


def _head_similarity(key: Span, response: Span) -> float:
    if key.head is not None and key.head == response.head:
        return len(key.nodes & response.nodes) / len(key.nodes)
    return 0.0


def _f1(a: frozenset, b: frozenset) -> float:
    common = len(a & b)
    return 2 * common / (len(a) + len(b)) if common else 0.0


def _zero_similarity(key: Span, response: Span) -> float:
    if key.head is None or response.head is None or key.head[:-1] != response.head[:-1]:
        return 0.0  # zeros are aligned within a sentence
    return (10 * _f1(key.head_deps, response.head_deps)
            + _f1(frozenset(p for p, _ in key.head_deps), frozenset(p for p, _ in response.head_deps)))


def _assign(keys: list[Span], responses: list[Span], similarity) -> dict[Span, Span]:
    """The optimal one-to-one assignment by ``similarity``; pairs scoring 0 do not match.

    Where no key and no response has two candidates, every optimal assignment takes exactly the candidate pairs.
    Otherwise ties between equally good alignments are broken as scipy's solver breaks them on the whole matrix
    (the reference scorer's choice): `scipy_order_assignment`."""
    candidates = {(i, j): score for i, key in enumerate(keys) for j, response in enumerate(responses)
                  for score in [similarity(key, response)] if score > 0}
    rows = [i for i, _ in candidates]
    columns = [j for _, j in candidates]
    if len(set(rows)) == len(rows) and len(set(columns)) == len(columns):
        return {responses[j]: keys[i] for i, j in candidates}
    scores = [[candidates.get((i, j), 0.0) for j in range(len(responses))] for i in range(len(keys))]
    return {responses[j]: keys[i] for i, j in scipy_order_assignment(scores, maximize=True) if scores[i][j] > 0}
