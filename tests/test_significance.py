"""Intervals, paired tests and scores by group (`harmonize.scoring.significance`, `harmonize.scoring.systems`), on
real GUM documents and as properties of the tests themselves."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import harmonize
from harmonize.cli import app
from harmonize.errors import HarmonizeError, Report
from harmonize.scoring.score import score_files
from harmonize.scoring.significance import compare_pair, counts_of, figures, per_document_counts
from harmonize.scoring.systems import comparison_rows, render_table
from tests.conftest import shared
from tests.perturb import extend_by_a_word, merge_a_tenth

# Eight GUM dev documents of four genres.
DOCUMENTS = ("GUM_academic_exposure", "GUM_academic_librarians", "GUM_bio_emperor", "GUM_bio_jespersen",
             "GUM_fiction_lunre", "GUM_fiction_pag", "GUM_interview_cyclone", "GUM_interview_gaming")


@pytest.fixture(scope="module")
def systems(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """key.conllu, and two systems: ``longer`` (a sixth of the mentions a word longer) and ``merged`` (a tenth of
    the entities merged into others)."""
    dep = shared("gum", "v11.1.0", "dep")
    folder = tmp_path_factory.mktemp("systems")
    key = folder / "key.conllu"
    key.write_text("".join((dep / f"{name}.conllu").read_text(encoding="utf-8") for name in DOCUMENTS),
                   encoding="utf-8")
    rng = random.Random(3)
    longer = harmonize.read(key, report=Report())
    for document in longer.documents:
        extend_by_a_word(document, lambda mention: rng.random() < 1 / 6)
    harmonize.write(longer, folder / "longer.conllu", report=Report())
    merged = harmonize.read(key, report=Report())
    for document in merged.documents:
        merge_a_tenth(document, rng)
    harmonize.write(merged, folder / "merged.conllu", report=Report())
    return {"key": key, "longer": folder / "longer.conllu", "merged": folder / "merged.conllu"}


def test_the_resampled_arithmetic_gives_the_scorers_figures(systems: dict[str, Path]) -> None:
    """Summed over all documents once, the per-document counts give every metric's recall, precision and F1 as the
    scorer gives them (BLANC's two link kinds included): resampling changes only which documents are summed."""
    result = score_files(systems["key"], systems["longer"])
    counts = per_document_counts(result)
    for name, score in result.metrics.items():
        recall, precision, f1 = figures(counts[name].sum(axis=0))
        assert (float(recall), float(precision), float(f1)) == pytest.approx((score.recall, score.precision,
                                                                              score.f1), abs=1e-12), name


def test_a_group_scored_alone_equals_score_on_its_documents_alone(systems: dict[str, Path], tmp_path: Path) -> None:
    result = score_files(systems["key"], systems["merged"], by="genre")
    assert sorted(result.groups) == ["academic", "bio", "fiction", "interview"]
    key, response = harmonize.read(systems["key"], report=Report()), harmonize.read(systems["merged"],
                                                                                     report=Report())
    for genre, group in result.groups.items():
        for side, corpus in (("key", key), ("response", response)):
            chosen = harmonize.Corpus([d for d in corpus.documents if d.id.split("_")[1] == genre])
            harmonize.write(chosen, tmp_path / f"{genre}-{side}.conllu", report=Report())
        alone = score_files(tmp_path / f"{genre}-key.conllu", tmp_path / f"{genre}-response.conllu")
        assert group.metrics == alone.metrics and group.documents == alone.documents == 2
    total = result.groups["academic"].metrics["muc"]
    for genre in ("bio", "fiction", "interview"):
        total = total + result.groups[genre].metrics["muc"]
    assert total == result.metrics["muc"]  # the groups add up to the whole


def test_intervals_hold_the_figure_and_the_same_seed_gives_the_same_interval(systems: dict[str, Path]) -> None:
    first = score_files(systems["key"], systems["longer"], ci=95, samples=2000, seed=7)
    again = score_files(systems["key"], systems["longer"], ci=95, samples=2000, seed=7)
    other = score_files(systems["key"], systems["longer"], ci=95, samples=2000, seed=8)
    assert first.ci == again.ci and first.ci != other.ci
    low, high = first.ci["conll"]
    assert low < first.conll < high and high - low > 0.01  # eight documents: a wide interval
    narrow = score_files(systems["key"], systems["longer"], ci=50, samples=2000, seed=7).ci["conll"]
    assert low < narrow[0] < narrow[1] < high


def test_identical_systems_differ_by_nothing(systems: dict[str, Path]) -> None:
    comparison = harmonize.compare_systems(systems["key"], [systems["longer"], systems["longer"]], samples=500,
                                           tested=["conll", "lea", "blanc"])
    for pair in comparison.pairs:
        assert pair.difference == 0 and pair.ci == (0, 0)
        assert pair.p_bootstrap == pair.p_randomization == 1


def test_a_system_better_on_every_document_gets_the_smallest_p(systems: dict[str, Path]) -> None:
    samples = 999
    comparison = harmonize.compare_systems(systems["key"], [systems["key"], systems["merged"]], samples=samples)
    pair = comparison.pairs[0]
    assert pair.difference > 0 and pair.ci[0] > 0
    assert pair.p_bootstrap == 1 / (samples + 1)


def test_the_sampled_randomization_test_agrees_with_the_exact_one(systems: dict[str, Path]) -> None:
    """Eight documents: 256 assignments enumerated; the sampled p-value lies within its Monte Carlo error."""
    key = systems["key"]
    for metric in ("conll", "muc", "blanc"):
        exact = harmonize.compare_systems(key, [systems["longer"], systems["merged"]], tested=[metric], exact=True,
                                          intervals=False, samples=200).pairs[0]
        sampled = harmonize.compare_systems(key, [systems["longer"], systems["merged"]], tested=[metric],
                                            intervals=False, samples=20_000, seed=1).pairs[0]
        assert exact.exact and not sampled.exact
        p = exact.p_randomization
        assert p * 256 == round(p * 256)  # a count of the 256 assignments
        assert abs(sampled.p_randomization - p) <= 4 * math.sqrt(p * (1 - p) / 20_000) + 2 / 20_000, metric


def test_too_many_documents_for_the_exact_test_is_one_clear_error() -> None:
    counts = {"muc": np.ones((21, 4))}
    with pytest.raises(HarmonizeError, match="at most 20"):
        compare_pair(counts, counts, "muc", exact=True)


def test_the_command_line_compares_systems_in_tables_and_json(systems: dict[str, Path], tmp_path: Path) -> None:
    runner = CliRunner()
    arguments = ["score", str(systems["key"]), str(systems["longer"]), str(systems["merged"]), "--samples", "300"]
    done = runner.invoke(app, [*arguments, "--json"])
    assert done.exit_code == 0, done.output
    found = json.loads(done.stdout)
    assert set(found["systems"]) == {"longer.conllu", "merged.conllu"}
    pair = found["pairs"][0]
    assert set(pair) == {"a", "b", "metric", "difference", "ci", "p_bootstrap", "p_randomization", "exact"}
    assert pair["metric"] == "conll" and len(pair["ci"]) == 2
    assert found["systems"]["longer.conllu"]["ci"]["conll"][0] < found["systems"]["longer.conllu"]["conll"]
    done = runner.invoke(app, [*arguments, "--table", "latex", "--plot", str(tmp_path / "systems.svg")])
    assert done.exit_code == 0, done.output
    assert r"\begin{tabular}" in done.stdout and "p (bootstrap)" in done.stdout
    assert (tmp_path / "systems.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    done = runner.invoke(app, ["score", str(systems["key"]), str(systems["longer"]), "--by", "genre", "--ci", "90",
                               "--samples", "200", "--json"])
    found = json.loads(done.stdout)
    assert set(found["groups"]) == {"academic", "bio", "fiction", "interview"}
    assert found["level"] == 90 and set(found["groups"]["bio"]["ci"]) >= {"muc", "conll"}


def test_the_score_says_its_settings_and_flags_intervals_over_few_documents(systems: dict[str, Path]) -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["score", str(systems["key"]), str(systems["longer"]), "--by", "genre", "--ci", "95",
                               "--samples", "100", "--seed", "7"])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == ("scored: corefud, head matching, singletons left out, split antecedents not scored; metrics "
                        "muc, bcub, ceafe, ceafm, blanc, lea, mentions, mor, zero; 8 document(s)")
    assert lines[1] == "intervals: 95% bootstrap over documents, 100 samples, seed 7"
    # Each genre has 2 of the 8 documents: every group's interval is flagged, the whole's is not.
    rows = [line.split() for line in lines if line.split()]
    assert sum(1 for row in rows if row[0] in ("academic", "bio", "fiction", "interview") and row[1] == "2*") == 4
    assert "* fewer than 5 documents: a bootstrap interval over so few says little" in lines
    found = json.loads(runner.invoke(app, ["score", str(systems["key"]), str(systems["longer"]), "--match", "exact",
                                           "--singletons", "--json"]).stdout)
    assert found["setup"] == {"format": "corefud", "matching": "exact", "singletons": True,
                              "split_antecedents": False, "cross_document": None,
                              "metrics": ["muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mentions", "mor", "zero"]}
    done = runner.invoke(app, ["score", str(systems["key"]), str(systems["longer"]), str(systems["merged"]),
                               "--samples", "50", "--table", "latex"])
    assert done.stdout.startswith("% scored: corefud") and "% pairs tested on conll:" in done.stdout


def test_groups_by_id_pattern_and_by_metadata(systems: dict[str, Path]) -> None:
    result = score_files(systems["key"], systems["longer"], by=r"id:GUM_(\w+?)_")
    assert sorted(result.groups) == ["academic", "bio", "fiction", "interview"]
    assert len(score_files(systems["key"], systems["longer"], by="document").groups) == len(DOCUMENTS)
    # GUM's dep/ files have no # meta:: lines: every document is in "(none)", said rather than dropped.
    assert list(score_files(systems["key"], systems["longer"], by="speakers").groups) == ["(none)"]


# -- properties of the tests ---------------------------------------------------------------------------------------

counts_rows = st.lists(st.tuples(*(st.integers(0, 20),) * 4), min_size=2, max_size=12)


def _scores(rows: list[tuple[int, int, int, int]]) -> np.ndarray:
    from harmonize.scoring.metrics import Score

    return counts_of([Score(Fraction(min(a, b)), Fraction(b), Fraction(min(c, d)), Fraction(d)) for a, b, c, d in rows])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(counts_rows, st.data())
def test_swapping_the_systems_negates_the_difference_and_keeps_the_p_values(rows, data) -> None:
    other = data.draw(st.lists(st.tuples(*(st.integers(0, 20),) * 4), min_size=len(rows), max_size=len(rows)))
    a, b = {"muc": _scores(rows)}, {"muc": _scores(other)}
    forward = compare_pair(a, b, "muc", samples=200, seed=3)
    backward = compare_pair(b, a, "muc", samples=200, seed=3)
    assert backward.difference == pytest.approx(-forward.difference, abs=1e-12)
    assert backward.p_bootstrap == forward.p_bootstrap
    assert backward.p_randomization == forward.p_randomization
    assert 0 < forward.p_bootstrap <= 1 and 0 < forward.p_randomization <= 1


def test_tables_render_in_three_styles(systems: dict[str, Path]) -> None:
    comparison = harmonize.compare_systems(systems["key"], [systems["longer"], systems["merged"]], samples=200)
    system_rows, pair_rows = comparison_rows(comparison)
    markdown = render_table(pair_rows, "markdown").splitlines()
    assert markdown[0].startswith("| a ") and set(markdown[1]) <= {"|", "-", ":"}
    assert render_table(system_rows, "text").splitlines()[1].startswith("longer.conllu")
    with pytest.raises(HarmonizeError, match="text, markdown, latex"):
        render_table(pair_rows, "html")


def test_a_resample_scored_by_the_scorer_itself_equals_the_arithmetic(systems: dict[str, Path]) -> None:
    """An independent check of the resampling: corpora made of the drawn documents (each copy renamed), scored by
    the scorer from scratch, give the F1 that the summed per-document counts give."""
    from harmonize.scoring.score import score_corpora
    from harmonize.scoring.significance import f1_of

    result = score_files(systems["key"], systems["longer"])
    counts = per_document_counts(result)
    rng = random.Random(11)
    for _ in range(3):
        drawn = [rng.randrange(len(DOCUMENTS)) for _ in DOCUMENTS]
        sides = []
        for path in (systems["key"], systems["longer"]):
            documents = []
            for copy, index in enumerate(drawn):
                document = harmonize.read(path, report=Report()).documents[index]
                document.id = f"{document.id}-copy{copy}"
                documents.append(document)
            sides.append(harmonize.Corpus(documents))
        scored = score_corpora(*sides, mode="head")
        weights = np.bincount(drawn, minlength=len(DOCUMENTS)).astype(float)
        sums = {name: weights @ counts[name] for name in counts}
        for metric in ("muc", "bcub", "ceafe", "lea", "blanc", "conll"):
            expected = scored.conll if metric == "conll" else scored.metrics[metric].f1
            assert float(f1_of(sums, metric)) == pytest.approx(expected, abs=1e-12), metric
