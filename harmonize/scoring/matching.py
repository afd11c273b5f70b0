"""Which response mention stands for which key mention, in the three CorefUD matching modes.

* ``exact``: the same nodes.
* ``partial`` (CorefUD's primary setting): every node of the response mention lies in the key mention and one of
  them is the key mention's head. Works for discontinuous mentions and empty nodes alike.
* ``head`` (CRAC 2022): each mention is reduced to its head, except that where two mentions of one side share a
  head only the smaller is reduced; then exact matching.

Matching is one-to-one: exact matches are taken first, then partial candidates, each key mention (in document
order) taking the earliest unmatched response mention. A mention's head is its annotated head, else the highest
of its words in the basic dependency tree (what udapi's corefud.MoveHead computes); with neither, partial
matching of that key mention falls back to exact matching.
"""

from __future__ import annotations

from dataclasses import dataclass

from harmonize.schemas.model import Document, Mention, Node

NodeKey = tuple  # (sentence index, node id), prefixed by the document index in cross-document scoring


@dataclass(eq=False)
class Span:
    """A mention as the scorer sees it: its nodes and head, identified by the object itself."""

    nodes: frozenset[NodeKey]
    order: tuple[int, int]
    head: NodeKey | None

    @property
    def size(self) -> int:
        return len(self.nodes)

    @property
    def is_zero(self) -> bool:
        """Only empty nodes (a reconstructed zero)."""
        return all("." in node[-1] for node in self.nodes)


def node_key(node: Node) -> NodeKey:
    assert node.sentence is not None
    return (node.sentence.index, node.id)


def tree_head(mention: Mention) -> Node | None:
    """The mention's annotated head, else its highest word in the basic tree, else None (no tree)."""
    if mention.head is not None:
        return mention.head
    words = [w for w in mention.words if not w.is_empty] or mention.words
    inside = set(map(id, words))
    tops = []
    for word in words:
        parent = word.parent
        if parent is None or id(parent) not in inside:
            if word.head in ("_", ""):
                return None  # no tree
            tops.append(word)
    if not tops:
        return None
    return min(tops, key=_depth)


def _depth(node: Node) -> int:
    depth, seen = 0, set()
    current = node.parent
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        depth += 1
        current = current.parent
    return depth


def document_spans(
    document: Document, singletons: bool, heads: bool = True, prefix: tuple = ()
) -> tuple[list[list[Span]], int]:
    """The document's clusters as Spans (without singletons unless asked for); a mention whose nodes occurred
    already is dropped (kept in its first cluster) and counted. ``heads`` off leaves heads out (exact matching
    needs none, and finding them in the tree is the costly part)."""
    clusters, duplicates = entity_spans(document, heads, prefix)
    return [c for c in clusters.values() if len(c) > 1 or (singletons and c)], duplicates


def entity_spans(document: Document, heads: bool, prefix: tuple = ()) -> tuple[dict[str, list[Span]], int]:
    """Entity id -> its mentions as Spans (duplicates dropped and counted), singletons included. Node keys start
    with ``prefix`` (the document's index when several documents form one partition)."""
    seen: set[frozenset[NodeKey]] = set()
    clusters: dict[str, list[Span]] = {}
    duplicates = 0
    for entity in document.entities:
        cluster = clusters.setdefault(entity.id, [])
        for mention in entity.mentions:
            nodes = frozenset((*prefix, *node_key(w)) for w in mention.words)
            if nodes in seen:
                duplicates += 1
                continue
            seen.add(nodes)
            head = tree_head(mention) if heads else None
            cluster.append(Span(nodes, (*prefix, *mention.words[0].order),
                                (*prefix, *node_key(head)) if head is not None else None))
    return clusters, duplicates


def reduce_to_heads(clusters: list[list[Span]]) -> tuple[list[list[Span]], dict[Span, Span]]:
    """Head-match preprocessing: each span becomes its head, except the larger of two spans sharing a head.
    Also returns reduced span -> the span it came from."""
    spans = [s for c in clusters for s in c]
    largest: dict[NodeKey, Span] = {}
    sharing: dict[NodeKey, int] = {}
    for span in spans:
        if span.head is None:
            continue
        sharing[span.head] = sharing.get(span.head, 0) + 1
        if span.head not in largest or span.size > largest[span.head].size:
            largest[span.head] = span
    reduced: dict[int, Span] = {}
    for span in spans:
        keep = span.head is None or (sharing[span.head] > 1 and largest[span.head] is span)
        reduced[id(span)] = span if keep else Span(frozenset([span.head]), span.order, span.head)  # type: ignore[list-item]
    return [[reduced[id(s)] for s in c] for c in clusters], {reduced[id(s)]: s for s in spans}


def match(key: list[list[Span]], response: list[list[Span]], mode: str) -> dict[Span, Span]:
    """response span -> the key span it stands for (one-to-one)."""
    if mode not in ("exact", "partial", "head"):
        raise ValueError(f"unknown matching mode {mode!r}: exact, partial or head")
    key_spans = sorted((s for c in key for s in c), key=lambda s: s.order)
    response_spans = sorted((s for c in response for s in c), key=lambda s: s.order)
    by_nodes = {s.nodes: s for s in key_spans}
    matched: dict[Span, Span] = {}
    taken: set[int] = set()
    for span in response_spans:
        target = by_nodes.get(span.nodes)
        if target is not None and id(target) not in taken:
            matched[span] = target
            taken.add(id(target))
    if mode != "partial":
        return matched
    free = [s for s in response_spans if s not in matched]
    for target in key_spans:
        if id(target) in taken or target.head is None:
            continue
        for span in free:
            if span not in matched and target.head in span.nodes and span.nodes <= target.nodes:
                matched[span] = target
                taken.add(id(target))
                break
    return matched
