"""Mention heads from the dependency tree, for corpora whose annotation gives none (GUM) or to check one that does.

The head is the "highest" node of the mention, found the way udapi's ``corefud.MoveHead`` finds it (the
CorefUD scorer and statistics compute gold heads with that block), so that figures computed here agree:

1. nodes whose basic parent lies outside the mention; if there is one, it is the head;
2. among those, nodes none of whose enhanced parents (DEPS, or the basic parent where DEPS is empty) lie inside;
   failing that, nodes not all of whose enhanced parents lie inside; failing that, the annotated head;
3. where several remain, the root of the smallest basic subtree holding their non-empty nodes (an empty node
   stands in by its first non-empty enhanced parent), found as udapi finds it (`_treelet_root`), if it is
   one of them;
4. else the annotated head if it is one of them, else the first of them in word order.

Without a tree (HEAD "_"), there is nothing to compute and the result is None.
"""

from __future__ import annotations

from collections import deque

from harmonize.schemas.model import Mention, Node


def ud_head(mention: Mention, parents: list[Node | None] | None = None) -> Node | None:
    """The mention's head by the rules above; the annotated head where the mention has one word. ``parents``
    (the basic parent of each word, if the caller has them already) saves looking them up again."""
    words = mention.words
    if len(words) == 1:
        return words[0]
    if parents is None:
        parents = [w.parent for w in words]
    # No tree: every word's HEAD empty (each parent is then None, so that is looked at only where all are).
    if parents.count(None) == len(parents) and all(w.head in ("_", "") for w in words if not w.is_empty):
        return mention.head
    inside = set(map(id, words))
    basic = [w for w, parent in zip(words, parents) if parent is None or id(parent) not in inside]
    if len(basic) == 1:
        return basic[0]
    candidates = [w for w in basic if not any(id(p) in inside for p in _enhanced_parents(w))]
    if not candidates:
        candidates = [w for w in basic if not all(id(p) in inside for p in _enhanced_parents(w))]
        if not candidates:
            return mention.head or words[0]
    if len(candidates) == 1:
        return candidates[0]
    stand_ins: list[Node] = []
    for node in candidates:
        if node.is_empty:
            parents = [p for p in _enhanced_parents(node) if not p.is_empty]
            if parents and parents[0] not in stand_ins:
                stand_ins.append(parents[0])
        elif node not in stand_ins:
            stand_ins.append(node)
    highest = _treelet_root(sorted(stand_ins, key=lambda n: n.order))
    if highest is not None and any(highest is c for c in candidates):
        return highest
    if mention.head is not None and any(mention.head is c for c in candidates):
        return mention.head
    return candidates[0]


def tree_head(mention: Mention) -> Node | None:
    """The mention's annotated head, else the highest of its words in the tree (udapi's corefud.MoveHead), else
    the word of a one-word mention; None: no annotation and no tree."""
    return mention.head if mention.head is not None else ud_head(mention)


def _enhanced_parents(node: Node) -> list[Node]:
    if node.deps not in ("_", "") and node.sentence is not None:
        parents = []
        for item in node.deps.split("|"):
            parent_id = item.split(":", 1)[0]
            parent = node.sentence.word(parent_id) if parent_id != "0" else None
            if parent is not None:
                parents.append(parent)
        return parents
    parent = node.parent
    return [parent] if parent is not None else []


def _treelet_root(nodes: list[Node]) -> Node | None:
    """The root of the smallest subtree holding ``nodes`` as udapi's ``find_minimal_common_treelet`` finds it, which
    the CorefUD scorer's heads depend on: the nodes climb one step each in turn (a queue), a node reached a second
    time is sure to be in the treelet and stops that climb; once one climber is left (or the root was reached), the
    answer is that node, or, where it is not sure, the node it was first reached from, and so on down. When the
    root is reached before every branch has met, this stops below the true common ancestor (e.g. at a mention word
    whose parent was reached first): exactly what the scorer does. None: the tree's root (no word governs all)."""
    root = object()  # the technical root above every HEAD 0 (and every unknown HEAD)
    reached_from: dict[int, object] = {id(node): _SURE for node in nodes}
    queue: deque = deque(nodes)
    highest: object | None = None
    while len(queue) > 1:
        node = queue.popleft()
        if node is root:
            highest = root
            continue
        parent = node.parent or root
        if id(parent) in reached_from:
            reached_from[id(parent)] = _SURE
        else:
            reached_from[id(parent)] = node
            queue.append(parent)
    highest = highest or queue[0]
    while reached_from[id(highest)] is not _SURE:
        highest = reached_from[id(highest)]
    return None if highest is root else highest  # type: ignore[return-value]


_SURE = object()
