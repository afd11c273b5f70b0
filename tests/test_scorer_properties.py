"""Metric properties over random clusterings (Hypothesis) and the `harmonize score` command."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from harmonize.scoring.metrics import METRICS, b_cubed, blanc, ceaf_e, ceaf_m, lea, muc
from tests.conftest import shared

clusterings = st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=25).map(
    lambda labels: [frozenset(m for m, label in enumerate(labels) if label == value) for value in set(labels)]
)


@settings(max_examples=200, deadline=None)
@given(clusterings)
def test_a_perfect_response_scores_one(key) -> None:
    for name, metric in METRICS.items():
        score = metric(key, key)
        if name == "muc" and all(len(c) == 1 for c in key):
            assert score.f1 == 0  # no links to find: the reference scorer's MUC 0
        elif name == "blanc" and sum(len(c) for c in key) == 1:
            assert score.f1 == 0  # one mention: no link of either kind
        else:
            assert (score.recall, score.precision, score.f1) == (1.0, 1.0, 1.0), name


@settings(max_examples=200, deadline=None)
@given(clusterings, clusterings, st.randoms())
def test_scores_do_not_depend_on_entity_or_mention_order(key, response, rng: random.Random) -> None:
    shuffled = [frozenset(rng.sample(sorted(c), len(c))) for c in rng.sample(response, len(response))]
    for metric in METRICS.values():
        a, b = metric(key, response), metric(key, shuffled)
        assert (a.recall, a.precision) == (b.recall, b.precision)


@settings(max_examples=200, deadline=None)
@given(clusterings, clusterings)
def test_f1_is_symmetric_where_the_metric_is(key, response) -> None:
    for metric in (muc, b_cubed, ceaf_m, ceaf_e, lea):
        forward, backward = metric(key, response), metric(response, key)
        assert (forward.recall, forward.precision) == (backward.precision, backward.recall)
        assert abs(forward.f1 - backward.f1) < 1e-12


@settings(max_examples=100, deadline=None)
@given(clusterings)
def test_dropping_mentions_keeps_muc_and_bcub_precision_at_one(key) -> None:
    response = [frozenset(sorted(c)[: max(1, len(c) - 1)]) for c in key]
    assert muc(key, response).precision in (0.0, 1.0) and b_cubed(key, response).precision == 1.0
    assert blanc(key, response).coreference.precision_num == blanc(key, response).coreference.precision_den


def test_score_command_prints_json_fractions(tmp_path) -> None:
    folder = shared("corefud-samples", "corefud-scorer", "tests-conll")
    done = subprocess.run(
        [sys.executable, "-m", "harmonize", "score", str(folder / "TC-A.key"), str(folder / "TC-A-2.response"),
         "--format", "conll2012", "--singletons", "--ignore-forms", "--json"],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["metrics"]["muc"] == {"recall": 1 / 3, "precision": 1.0, "f1": 0.5}
    assert abs(result["conll"] - (0.5 + 0.56 + 0.72) / 3) < 1e-3


def test_score_command_names_the_first_token_difference() -> None:
    folder = shared("corefud-samples", "corefud-scorer", "tests-conll")
    done = subprocess.run(
        [sys.executable, "-m", "harmonize", "score", str(folder / "TC-A.key"), str(folder / "TC-A-3.response"),
         "--format", "conll2012"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "document 'LuoTestCase', sentence 2, token 2: key has 'jnk'" in done.stderr


def brute_force_blanc_links(key, response) -> tuple[int, int, int, int, int, int]:
    """Coreference and non-coreference links enumerated pair by pair (the definition, quadratically)."""
    def links(clusters):
        mentions = sorted({m for c in clusters for m in c})
        cluster_of = {m: i for i, c in enumerate(clusters) for m in c}
        pairs = {(a, b) for i, a in enumerate(mentions) for b in mentions[i + 1:]}
        coref = {p for p in pairs if cluster_of[p[0]] == cluster_of[p[1]]}
        return coref, pairs - coref

    coref_k, non_k = links(key)
    coref_r, non_r = links(response)
    return (len(coref_k & coref_r), len(coref_k), len(coref_r), len(non_k & non_r), len(non_k), len(non_r))


@settings(max_examples=300, deadline=None)
@given(clusterings, st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=25).map(
    lambda labels: [frozenset(m + 5 for m, label in enumerate(labels) if label == value) for value in set(labels)]))
def test_blanc_link_counts_equal_the_pairwise_definition(key, response) -> None:
    """The response is shifted by 5, so mentions are partly shared, partly missing and partly spurious."""
    score = blanc(key, response)
    counted = (score.coreference.recall_num, score.coreference.recall_den, score.coreference.precision_den,
               score.non_coreference.recall_num, score.non_coreference.recall_den,
               score.non_coreference.precision_den)
    assert counted == brute_force_blanc_links(key, response)
