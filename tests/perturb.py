"""Perturbations the scorer tests apply to real documents to make a response from a key: entities merged, mentions
extended by a word. Seeded by the caller's ``random.Random``, so that pinned reference figures stay reproducible."""

from __future__ import annotations

import random
from collections.abc import Callable

from harmonize.schemas.model import Document, Mention


def merge_a_tenth(document: Document, rng: random.Random) -> None:
    """A tenth of the document's entities (at least one) merged into another tenth, in a seeded order."""
    entities = list(document.entities)
    rng.shuffle(entities)
    share = max(1, len(entities) // 10)
    for keep, absorbed in zip(entities[:share], entities[share:2 * share]):
        document.merge_entities(keep, absorbed)


def extend_by_a_word(document: Document, chosen: Callable[[Mention], bool]) -> None:
    """Each mention ``chosen`` says yes to (asked of every mention, in order) a word longer to the right, its head
    kept; never onto the words of another mention (same-span mentions of two entities are invalid CorefUD, and
    there the scorers knowingly differ), nor past the sentence's end."""
    spans = {tuple(map(id, m.words)) for m in document.mentions}
    for mention in list(document.mentions):
        if not chosen(mention):
            continue
        nodes, last = mention.sentence.nodes, mention.words[-1].position
        longer = [*mention.words, nodes[last + 1]] if last + 1 < len(nodes) else []
        if longer and tuple(map(id, longer)) not in spans:
            document.set_words(mention, longer, mention.head)
            spans.add(tuple(map(id, longer)))
