"""Mention heads from the dependency tree, for corpora whose annotation gives none (GUM) or to check one that does.

The head is the "highest" node of the mention, found the way udapi's ``corefud.MoveHead`` finds it (the
CorefUD scorer and statistics compute gold heads with that block), so that figures computed here agree:

1. nodes whose basic parent lies outside the mention; if there is one, it is the head;
2. among those, nodes none of whose enhanced parents (DEPS, or the basic parent where DEPS is empty) lie inside;
   failing that, nodes not all of whose enhanced parents lie inside; failing that, the annotated head;
3. where several remain, the lowest common ancestor in the basic tree of their non-empty nodes (an empty node
   stands in by its first non-empty enhanced parent), if it is one of them;
4. else the annotated head if it is one of them, else the first of them in word order.

Without a tree (HEAD "_"), there is nothing to compute and the result is None.
"""

from __future__ import annotations

from harmonize.schemas.model import Mention, Node


def ud_head(mention: Mention, parents: list[Node | None] | None = None) -> Node | None:
    """The mention's head by the rules above; the annotated head where the mention has one word. ``parents``
    (the basic parent of each word, if the caller has them already) saves looking them up again."""
    words = mention.words
    if len(words) == 1:
        return words[0]
    if all(w.head in ("_", "") for w in words if not w.is_empty):
        return mention.head
    inside = set(map(id, words))
    if parents is None:
        parents = [w.parent for w in words]
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
    highest = _common_ancestor(sorted(stand_ins, key=lambda n: n.order))
    if highest is not None and any(highest is c for c in candidates):
        return highest
    if mention.head is not None and any(mention.head is c for c in candidates):
        return mention.head
    return candidates[0]


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


def _ancestors(node: Node) -> list[Node]:
    chain, seen = [node], {id(node)}
    current = node.parent
    while current is not None and id(current) not in seen:
        chain.append(current)
        seen.add(id(current))
        current = current.parent
    return chain


def _common_ancestor(nodes: list[Node]) -> Node | None:
    """The deepest node that is an ancestor-or-self of all ``nodes`` in the basic tree (None: different trees)."""
    if not nodes:
        return None
    common = _ancestors(nodes[0])
    for node in nodes[1:]:
        others = set(map(id, _ancestors(node)))
        common = [n for n in common if id(n) in others]
    return common[0] if common else None
