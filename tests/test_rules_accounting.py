"""Every rule step accounts for what it changes: applied alone to real documents, its report equals, kind by kind,
what the differ (`harmonize.accounting`) finds between the document before and after it. Steps compose (a mention
split off by one step and removed as a singleton by a later one is one dropped mention in the end), so the proof is
per step; `harmonize convert --rules ... --verify` checks the writer's part on the ruled document."""

from __future__ import annotations

import pytest

import harmonize
from harmonize.accounting.differ import diff_corpora
from harmonize.accounting.ledger import check, unknown_reasons
from harmonize.errors import Report
from harmonize.rules import RULES, ontogum
from tests.conftest import SHARED_DATA

# GUM documents of several genres (OntoGUM's input), the official CorefUD LitBank file, fr-democrat.
DOCUMENTS = [
    ("gum", "v11.1.0", "dep", "GUM_academic_art.conllu"),
    ("gum", "v11.1.0", "dep", "GUM_bio_galois.conllu"),
    ("gum", "v11.1.0", "dep", "GUM_conversation_toys.conllu"),
    ("gum", "v11.1.0", "dep", "GUM_fiction_frankenstein.conllu"),
    ("gum", "v11.1.0", "dep", "GUM_news_iodine.conllu"),
    ("gum", "v11.1.0", "dep", "GUM_reddit_polygraph.conllu"),
    ("corefud-real", "en_litbank-corefud-dev.conllu"),
    ("corefud-samples", "udapi", "fr-democrat-dev-sample.conllu"),
]

STEPS = [name for name, rule in RULES.items() if not rule.steps] + [
    f"ontogum:{step.__name__}" for step in ontogum.STEPS]

# Steps whose edits the differ reads otherwise on one of the documents: it pairs mentions by their words first, so
# a mention moved onto the words another mention has reads as the two changing places (the module's limit).
PAIRED_BY_WORDS = {
    "heads-only": "GUM_bio_galois: the tree heads \"Pescheux d'Herbinville , [ 13 ] who ...\" by 13, the words of "
                  "another entity's mention; reduced to it, the two same-span mentions pair by entity votes",
    "ontogum:contract_verbal_spans": "GUM_news_iodine: 'Tasmania' grows to its clause, whose own mention "
                                     "contracts to 'was': the grown mention has the other's old words",
}


def _apply(step: str, corpus: harmonize.Corpus, report: Report) -> None:
    if step.startswith("ontogum:"):
        function = next(s for s in ontogum.STEPS if s.__name__ == step.partition(":")[2])
        for document in corpus.documents:
            function(document, report, None)
    else:
        RULES[step].apply(corpus, report)


@pytest.mark.parametrize("step", [
    pytest.param(step, marks=[pytest.mark.xfail(reason=PAIRED_BY_WORDS[step], strict=True)]
                 if step in PAIRED_BY_WORDS else []) for step in STEPS])
def test_each_rule_step_reports_what_the_differ_finds(step: str) -> None:
    paths = [SHARED_DATA.joinpath(*parts) for parts in DOCUMENTS]
    if not all(path.exists() for path in paths):
        pytest.skip(f"{SHARED_DATA} lacks GUM v11.1.0 or the CorefUD files: set HARMONIZE_SHARED_DATA")
    for path in paths:
        before, after = harmonize.read(path), harmonize.read(path)
        report = Report()
        _apply(step, after, report)
        assert unknown_reasons(report) == [], "reasons the ledger does not map to kinds of difference"
        mismatches = check(diff_corpora(before.documents, after.documents), report).mismatches
        assert not mismatches, f"{path.name}: " + "\n".join(str(m) for m in mismatches)
