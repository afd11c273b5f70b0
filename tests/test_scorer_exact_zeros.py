"""Exact matching is exact: a mention without an annotated head is a zero only where the CorefUD scorer reads it
as one (its first word empty: udapi's head for a mention without one), never because the tree's head of its
words is an empty node. GUM's own files annotate no heads; four of its dev documents have mentions over copied
words (empty nodes) whose tree head is the empty node. Before the fix such a mention, extended by a word, was
aligned with its key as a zero, where the reference matches nothing (MUC recall 82.83 against the reference's
82.80 on all of GUM dev with a sixth of its mentions extended; 79.65 against 79.40 here).

The expected figures are the CorefUD scorer's (ufal/corefud-scorer, ``corefud-scorer.py -a exact KEY RESPONSE``
on the files ``build_case`` writes)."""

from __future__ import annotations

import random
from pathlib import Path

import harmonize
from harmonize.errors import Report
from tests.conftest import shared
from tests.perturb import extend_by_a_word

FILES = ("GUM_bio_emperor", "GUM_fiction_lunre", "GUM_interview_cyclone", "GUM_textbook_labor")


def build_case(folder: Path) -> tuple[Path, Path]:
    """key.conllu (the four files as GUM has them, no heads) and extended.conllu: every mention with an empty
    node, and a random sixth of the others, a word longer to the right, heads kept (none), never onto the words
    of another mention (same-span mentions of two entities are a case where the two scorers knowingly differ)."""
    dep = shared("gum", "v11.1.0", "dep")
    key = folder / "key.conllu"
    key.write_text("".join((dep / f"{name}.conllu").read_text(encoding="utf-8") for name in FILES), encoding="utf-8")
    corpus = harmonize.read(key, report=Report())
    rng = random.Random(5)
    for document in corpus.documents:
        extend_by_a_word(document, lambda mention: rng.random() < 1 / 6 or any(w.is_empty for w in mention.words))
    extended = folder / "extended.conllu"
    harmonize.write(corpus, extended, report=Report())
    return key, extended


# corefud-scorer.py's figures (recall, precision, F1 in %); ours before the fix: MUC 79.65, B-cubed 73.12.
REFERENCE: dict[str, tuple[float, float, float]] = {
    "muc": (79.40, 79.40, 79.40), "bcub": (72.85, 72.85, 72.85), "ceafe": (85.39, 85.39, 85.39),
    "ceafm": (83.63, 83.63, 83.63), "blanc": (69.48, 69.48, 69.48), "lea": (70.26, 70.26, 70.26),
    "mor": (100.00, 94.76, 97.31),
}


def test_exact_matching_equals_the_corefud_scorer_on_mentions_over_empty_nodes(tmp_path: Path) -> None:
    key, extended = build_case(tmp_path)
    ours = harmonize.score(key, extended, mode="exact")
    got = {name: tuple(round(100 * value, 2) for value in (s.recall, s.precision, s.f1))
           for name, s in ours.metrics.items() if name in REFERENCE}
    assert got == REFERENCE
    assert round(100 * ours.conll, 2) == 79.21
    # Nothing here is a zero as the reference reads it (it prints 0.00 for a metric with nothing to count).
    assert ours.metrics["zero"].recall_den == ours.metrics["zero"].precision_den == 0
