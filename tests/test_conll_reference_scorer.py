"""The CoNLL-2012 reference scorer (conll/reference-coreference-scorers, ``scorer.pl``) reads every CoNLL-2012 file
we write and prints our figures, numerator and denominator alike: LitBank and OntoNotes files written by our
writer, against a perturbed copy (a tenth of the entities merged, a tenth of the mentions dropped). Set
CONLL_SCORER to its scorer.pl (Perl runs it); without it the test says so and skips."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

import harmonize
from harmonize.errors import Report
from harmonize.scoring.score import score_files
from tests.conftest import shared
from tests.perturb import merge_a_tenth

SCORER = os.environ.get("CONLL_SCORER")
pytestmark = pytest.mark.skipif(
    not SCORER or not Path(SCORER).is_file() or shutil.which("perl") is None,
    reason="set CONLL_SCORER to scorer.pl of conll/reference-coreference-scorers (and have perl) to run it")

CASES = [("litbank", "conll", "105_persuasion_brat.conll"), ("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll")]
_LINE = re.compile(r"Coreference: Recall: \(([\d.]+) / ([\d.]+)\).*?Precision: \(([\d.]+) / ([\d.]+)\)")


def _perturbed(corpus: harmonize.Corpus) -> harmonize.Corpus:
    rng = random.Random(5)
    for document in corpus.documents:
        for mention in list(document.mentions):
            if rng.random() < 0.1 and len(mention.entity.mentions) > 1:
                document.remove_mention(mention)
        merge_a_tenth(document, rng)
    return corpus


def _reference(metric: str, key: Path, response: Path) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    done = subprocess.run(["perl", SCORER, metric, str(key), str(response), "none"], capture_output=True, text=True,
                          timeout=600, check=True)
    found = _LINE.findall(done.stdout.split("====== TOTALS =======")[-1])
    recall_num, recall_den, precision_num, precision_den = (Fraction(value) for value in found[0])
    return recall_num, recall_den, precision_num, precision_den


@pytest.mark.parametrize("parts", CASES, ids=lambda parts: parts[-1])
def test_scorer_pl_reads_our_conll2012_and_prints_our_figures(parts: tuple[str, ...], tmp_path: Path) -> None:
    source = shared(*parts)
    key, response = tmp_path / "key.conll", tmp_path / "response.conll"
    harmonize.write(harmonize.read(source, "conll2012", report=Report()), key, "conll2012", report=Report())
    harmonize.write(_perturbed(harmonize.read(source, "conll2012", report=Report())), response, "conll2012",
                    report=Report())
    ours = score_files(key, response, "conll2012", mode="exact", singletons=True)
    for metric, name in (("muc", "muc"), ("bcub", "bcub"), ("ceafm", "ceafm"), ("ceafe", "ceafe")):
        score = ours.metrics[name]
        expected = _reference(metric, key, response)
        assert (score.recall_num, score.recall_den, score.precision_num, score.precision_den) == pytest.approx(
            expected, rel=1e-9), metric
