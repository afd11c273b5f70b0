"""The scorer equals the CorefUD scorer on zeros, on real data: GUM documents with empty nodes (through --rules
corefud, so that every mention has its head, as in a CorefUD release) against copies with 10% of their entities
merged and with every mention a word longer to the right (a zero's mention then covers its empty node and the next
word, still headed by the empty node), in all three matching modes.

The expected figures are the CorefUD scorer's (ufal/corefud-scorer at 4fd7b0e, ``corefud-scorer.py -a MODE KEY
RESPONSE`` on the files ``build_cases`` writes; its own zeros/ cases are in test_scorer_reference_cases.py). They
exercise what its matching does with zeros: a mention headed by an empty node is a zero in exact matching too, zeros
are aligned by their dependencies in every mode, and with head matching two mentions on the same words with
different heads are two mentions."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import harmonize
from harmonize.errors import Report
from tests.conftest import shared
from tests.perturb import extend_by_a_word, merge_a_tenth

FILES = ("GUM_interview_brotherhood", "GUM_interview_hill", "GUM_bio_gordon", "GUM_voyage_york", "GUM_vlog_pregnant",
         "GUM_whow_flirt", "GUM_fiction_lunre")


def build_cases(folder: Path) -> dict[str, Path]:
    """key.conllu (the files through --rules corefud), merged.conllu and extended.conllu in ``folder``."""
    dep = shared("gum", "v11.1.0", "dep")
    joined = folder / "joined.conllu"
    joined.write_text("".join((dep / f"{name}.conllu").read_text(encoding="utf-8") for name in FILES),
                      encoding="utf-8")
    key = folder / "key.conllu"
    harmonize.convert([joined], "corefud", "corefud", key, rules="corefud", warn_losses=False)
    merged = harmonize.read(key)
    rng = random.Random(1)
    for document in merged.documents:
        merge_a_tenth(document, rng)
    harmonize.write(merged, folder / "merged.conllu", report=Report())
    extended = harmonize.read(key)
    for document in extended.documents:
        extend_by_a_word(document, lambda mention: True)  # see test_duplicates_... for why never onto another
    harmonize.write(extended, folder / "extended.conllu", report=Report())
    return {"key": key, "merged": folder / "merged.conllu", "extended": folder / "extended.conllu"}


# corefud-scorer.py's figures (recall, precision, F1 in %), per response and matching mode.
REFERENCE: dict[tuple[str, str], dict[str, tuple[float, float, float]]] = {
    ('merged', 'exact'): {
        'muc': (100.0, 90.56, 95.05), 'bcub': (100.0, 85.87, 92.4), 'ceafe': (94.57, 79.16, 86.18),
        'ceafm': (99.0, 88.17, 93.27), 'blanc': (99.98, 88.55, 93.61), 'lea': (100.0, 84.82, 91.79),
        'mor': (100.0, 83.78, 91.17), 'zero': (100.0, 100.0, 100.0), 'conll': (0.0, 0.0, 91.21),
    },
    ('merged', 'partial'): {
        'muc': (100.0, 90.56, 95.05), 'bcub': (100.0, 85.87, 92.4), 'ceafe': (94.57, 79.16, 86.18),
        'ceafm': (99.0, 88.17, 93.27), 'blanc': (99.98, 88.55, 93.61), 'lea': (100.0, 84.82, 91.79),
        'mor': (100.0, 83.78, 91.17), 'zero': (100.0, 100.0, 100.0), 'conll': (0.0, 0.0, 91.21),
    },
    ('merged', 'head'): {
        'muc': (100.0, 90.56, 95.05), 'bcub': (100.0, 85.87, 92.4), 'ceafe': (94.57, 79.16, 86.18),
        'ceafm': (99.0, 88.17, 93.27), 'blanc': (99.98, 88.55, 93.61), 'lea': (100.0, 84.82, 91.79),
        'mor': (100.0, 83.78, 91.17), 'zero': (100.0, 100.0, 100.0), 'conll': (0.0, 0.0, 91.21),
    },
    ('extended', 'exact'): {
        'muc': (6.41, 6.41, 6.41), 'bcub': (2.28, 2.28, 2.28), 'ceafe': (4.91, 4.91, 4.91),
        'ceafm': (8.37, 8.37, 8.37), 'blanc': (1.0, 1.0, 1.0), 'lea': (1.53, 1.53, 1.53),
        'mor': (100.0, 72.67, 84.17), 'zero': (100.0, 100.0, 100.0), 'conll': (0.0, 0.0, 4.54),
    },
    ('extended', 'partial'): {
        'muc': (6.99, 6.99, 6.99), 'bcub': (3.06, 2.51, 2.76), 'ceafe': (5.78, 5.78, 5.78),
        'ceafm': (8.83, 8.83, 8.83), 'blanc': (1.1, 1.1, 1.1), 'lea': (1.81, 1.58, 1.69),
        'mor': (100.0, 72.67, 84.17), 'zero': (100.0, 100.0, 100.0), 'conll': (0.0, 0.0, 5.18),
    },
    ('extended', 'head'): {
        'muc': (100.0, 100.0, 100.0), 'bcub': (100.0, 100.0, 100.0), 'ceafe': (100.0, 100.0, 100.0),
        'ceafm': (100.0, 100.0, 100.0), 'blanc': (100.0, 100.0, 100.0), 'lea': (100.0, 100.0, 100.0),
        'mor': (100.0, 72.67, 84.17), 'zero': (100.0, 100.0, 100.0), 'conll': (0.0, 0.0, 100.0),
    },
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_cases(tmp_path_factory.mktemp("zeros"))


@pytest.mark.parametrize(("response", "mode"), list(REFERENCE))
def test_every_metric_equals_the_corefud_scorer(cases: dict[str, Path], response: str, mode: str) -> None:
    ours = harmonize.score(cases["key"], cases[response], mode=mode)
    expected = REFERENCE[(response, mode)]
    got = {name: tuple(round(100 * value, 2) for value in (s.recall, s.precision, s.f1))
           for name, s in ours.metrics.items() if name in expected}
    assert got == {name: expected[name] for name in expected if name != "conll"}
    assert round(100 * ours.conll, 2) == expected["conll"][2]


def test_same_words_with_other_heads_are_two_mentions_in_head_matching_only() -> None:
    """The reference tells mentions apart by their words, and in head matching by their heads too (its
    super-exact match): a second mention on the same words is a duplicate in exact and partial matching (kept in
    its first entity here; the reference keeps it in both, its cluster maps taking the last), not in head matching
    when its head differs."""
    from harmonize.scoring.matching import entity_spans

    corpus = harmonize.read(harmonize.conversion.sample_path())
    document = corpus.documents[0]
    mention = next(m for m in document.mentions if len(m.words) > 1)
    other = document.new_entity("e99")
    copy = document.add_mention(other, list(mention.words))
    document.move_head(copy, next(w for w in mention.words if w is not mention.head))
    assert entity_spans(document, True)[1] == 1
    assert entity_spans(document, True, by_head=True)[1] == 0
