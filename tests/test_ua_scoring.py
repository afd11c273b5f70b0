"""UA scoring (`harmonize score --format ua`) equals the UA scorer (juntaoy/universal-anaphora-scorer) figure for
figure. The reference's figures were kept by `benchmarks/ua_conformance.py --write` (the shared UA cases, every
setting of its README) and `benchmarks/ua_scorer.py --write` (GUM dev written as UA against a perturbed copy), so
that the suite checks them where the reference is not installed; the benchmarks rerun it where it is."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harmonize.cli import app
from harmonize.errors import FormatError, HarmonizeError
from harmonize.scoring.score import score_files
from tests.conftest import SHARED_DATA, shared

FIXTURES = Path(__file__).parent / "fixtures"
CASES = SHARED_DATA / "corefud-samples" / "corefud-scorer" / "tests-ua"
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def figures(result) -> dict[str, tuple[float, ...]]:
    """Our figures as the UA scorer prints them: percentages to two decimals."""
    found = {name: tuple(round(100 * v, 2) for v in (s.recall, s.precision, s.f1)) for name, s in result.metrics.items()}
    if result.conll is not None:
        found["conll"] = (round(100 * result.conll, 2),)
    return found


def reference_entries() -> list[dict]:
    return json.loads((FIXTURES / "ua_scorer_reference.json").read_text(encoding="utf-8"))


def test_every_figure_of_the_ua_scorer_on_the_shared_cases() -> None:
    shared("corefud-samples", "corefud-scorer", "tests-ua")
    entries = reference_entries()
    compared = 0
    for entry in entries:
        ours = figures(score_files(CASES / entry["key"], CASES / entry["response"], "ua", forms=False,
                                   **entry["options"]))
        for name, expected in entry["figures"].items():
            assert ours[name] == tuple(expected), (entry["key"], entry["response"], entry["reference options"], name)
            compared += 1
    assert len(entries) > 500 and compared > 5000  # every run the reference finishes: 5,637 figures


def test_the_readme_figures_of_the_split_antecedent_cases() -> None:
    """Paun et al.'s cases: every F1 their README states (those it leaves blank skipped)."""
    folder = shared("corefud-samples", "corefud-scorer", "tests-ua", "plural")
    names = {"BCUB": "bcub", "MUC": "muc", "CEAFM": "ceafm", "CEAFE": "ceafe", "BLANC": "blanc", "LEA": "lea"}
    case, key, checked = None, folder, 0
    for line in (folder / "PluralTestCases.README").read_text(encoding="utf-8").splitlines():
        if match := re.match(r"((TC-P[A-Z])-\d+)", line):
            case, key = match[1], folder / f"{match[2]}.key"
        elif (match := re.match(r"Expected (\w+) =\s*([\d.]+)(?:\s*/\s*([\d.]+))?", line)) and case:
            expected = float(match[2]) / float(match[3]) if match[3] else float(match[2])
            result = score_files(key, folder / f"{case}.sys", "ua", forms=False)
            assert result.metrics[names[match[1].upper()]].f1 == pytest.approx(expected, abs=0.005), (case, line)
            checked += 1
    assert checked >= 60


def _benchmark(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    sys.path.insert(0, str(BENCHMARKS))
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def test_gum_dev_written_as_ua_scores_as_the_ua_scorer_scores_it(tmp_path: Path) -> None:
    """Real data with bridges, split antecedents, minimal spans and non-referring markables."""
    shared("gum", "v11.1.0", "dep")
    import harmonize

    benchmark = _benchmark("ua_scorer")
    key, response = tmp_path / "key.conllua", tmp_path / "response.conllua"
    harmonize.write(benchmark.key_corpus(SHARED_DATA), key, "ua", report=harmonize.Report())
    harmonize.write(benchmark.response_corpus(SHARED_DATA), response, "ua", report=harmonize.Report())
    entries = json.loads((FIXTURES / "ua_scorer_reference_gum.json").read_text(encoding="utf-8"))
    for entry in entries:
        if entry["options"].get("discourse_deixis"):
            continue  # GUM has no discourse deixis: all zeros
        ours = figures(score_files(key, response, "ua", forms=False, **entry["options"]))
        assert {name: ours[name] for name in entry["figures"]} == {k: tuple(v) for k, v in entry["figures"].items()}
    bridging = next(e for e in entries if e["options"].get("bridging"))["figures"]
    assert 0 < bridging["bridging markable"][2] < bridging["bridging entity"][2] < bridging["bridging recognition"][2]


def test_discourse_deixis_is_scored_from_its_column() -> None:
    key, response = FIXTURES / "ua_dd" / "dd.key", FIXTURES / "ua_dd" / "dd-1.response"
    result = score_files(key, response, "ua", discourse_deixis=True)
    # The UA scorer's figures on this pair (evaluate_discourse_deixis).
    assert figures(result) == {"muc": (33.33, 50.0, 40.0), "bcub": (53.33, 73.33, 61.75),
                               "ceafe": (66.67, 44.44, 53.33), "ceafm": (60.0, 60.0, 60.0),
                               "blanc": (45.83, 45.24, 45.05), "lea": (20.0, 20.0, 20.0), "conll": (51.7,)}
    assert score_files(key, response, "ua").metrics["muc"].recall_den == 0  # identity has no links here


def test_the_cli_prints_the_settings_and_nests_bridging_in_json() -> None:
    folder = shared("corefud-samples", "corefud-scorer", "tests-ua", "plural")
    runner = CliRunner()
    printed = runner.invoke(app, ["score", str(folder / "TC-PA.key"), str(folder / "TC-PA-5.sys"),
                                  "--shared-task", "codicrac22ar"])
    assert printed.exit_code == 0, printed.output
    lines = printed.output.splitlines()
    assert lines[0].startswith("shared task codicrac22ar (CODI-CRAC 2022 anaphora resolution): format ua")
    assert any(line.split()[:1] == ["conll"] and line.split()[-1] == "97.17" for line in lines)
    as_json = runner.invoke(app, ["score", str(folder / "TC-PA.key"), str(folder / "TC-PA-5.sys"), "--format", "ua",
                                  "--bridging", "--non-referring", "--json"])
    metrics = json.loads(as_json.stdout.splitlines()[0])["metrics"]
    assert set(metrics["bridging"]) == {"recognition", "markable", "entity"}
    assert set(metrics["non-referring"]) == {"recall", "precision", "f1"}


@pytest.mark.parametrize(("options", "message"), [
    ({"format": "corefud", "bridging": True}, "--bridging: Universal Anaphora figures, for --format ua only"),
    ({"format": "ua", "singletons": False}, "leaving singletons out needs --no-split-antecedents"),
    ({"format": "ua", "mode": "head", "bridging": True}, "--bridging: the UA scorer's figures, with --match exact"),
    ({"format": "ua", "mode": "overlap"}, "not 'overlap'"),
    ({"format": "corefud", "mode": "min"}, "min: --format ua only"),
    ({"shared_task": "craft19"}, "no reference implementation that runs"),
    ({"shared_task": "crac99"}, "unknown shared task 'crac99'"),
])
def test_settings_that_cannot_be_scored_say_why(options: dict, message: str) -> None:
    key = FIXTURES / "ua_dd" / "dd.key"
    with pytest.raises(HarmonizeError, match=re.escape(message)):
        score_files(key, key, **options)


def test_head_and_partial_matching_score_ua_files_as_the_corefud_scorer_leaving_non_referring_out(
        tmp_path: Path) -> None:
    """(The CorefUD scorer's own partial and zero cases written as UA: tests/test_scorer_reference_cases.py.)"""
    folder = shared("corefud-samples", "corefud-scorer", "tests-ua", "partial-match-corefud", "noncontig_mentions")
    key, response = folder / "TC-NCMA.key", folder / "TC-NCMA-4.response"
    partial = score_files(key, response, "ua", mode="partial")
    assert "partial matching" in partial.settings and round(partial.metrics["muc"].f1, 4) == 0.6667
    # Non-referring: the key's singleton markable_5 becomes an expletive; the response's stays a mention.
    expletive = tmp_path / "TC-NCMA.key"
    expletive.write_text(key.read_text(encoding="utf-8").replace(
        "EntityID=10054|MarkableID=markable_5", "EntityID=7-Pseudo|MarkableID=markable_5"), encoding="utf-8")
    result = score_files(expletive, folder / "TC-NCMA-1.response", "ua", mode="head")
    assert result.report.counts["UA non-referring markables left out of identity scoring"] == 1
    mentions = result.metrics["bcub"]
    assert (mentions.recall_den, mentions.precision_den) == (4, 5)  # the expletive is no key mention
    # The UA scorer's own exact matching leaves it out the same way.
    assert score_files(expletive, folder / "TC-NCMA-1.response", "ua", mode="exact").metrics["bcub"].recall_den == 4


def test_malformed_markables_name_file_line_and_reason_or_are_dropped(tmp_path: Path) -> None:
    broken = tmp_path / "broken.key"
    text = (FIXTURES / "ua_dd" / "dd.key").read_text(encoding="utf-8")
    broken.write_text(text.replace("\t(EntityID=d1|MarkableID=d1a\t", "\t_\t", 1), encoding="utf-8")
    line = next(n for n, row in enumerate(text.split("\n"), 1) if row.startswith("4\tearly"))
    with pytest.raises(FormatError) as raised:
        score_files(broken, broken, "ua", discourse_deixis=True)
    assert (raised.value.path, raised.value.line, raised.value.reason.split(":")[0]) == (
        str(broken), line, "unbalanced markable brackets")
    lenient = score_files(broken, broken, "ua", discourse_deixis=True, lenient=True)
    assert lenient.report.counts["unbalanced markable brackets"] == 2 and lenient.conll == 1  # key and response


def test_a_response_whose_words_differ_from_the_key_is_refused_naming_where(tmp_path: Path) -> None:
    key = FIXTURES / "ua_dd" / "dd.key"
    text = key.read_text(encoding="utf-8")
    renamed, truncated = tmp_path / "renamed.response", tmp_path / "truncated.response"
    renamed.write_text(text.replace("3\ta\t", "3\tone\t", 1), encoding="utf-8")
    truncated.write_text(text[:text.index("# sent_id = dd-1-4")], encoding="utf-8")
    with pytest.raises(HarmonizeError, match=r"'dd-1', sentence 3, token 3: key has 'a', response has sentence 3, "
                                             r"token 3 'one'"):
        score_files(key, renamed, "ua")
    # Positions alone, as the reference's own cases need:
    assert score_files(key, renamed, "ua", forms=False).metrics == score_files(key, key, "ua").metrics
    with pytest.raises(HarmonizeError, match="the response is truncated"):
        score_files(key, truncated, "ua", forms=False)


def test_reading_the_response_in_a_worker_changes_nothing(tmp_path: Path, monkeypatch) -> None:

    from harmonize.scoring import frame

    key, response = FIXTURES / "ua_dd" / "dd.key", FIXTURES / "ua_dd" / "dd-1.response"
    monkeypatch.setattr(frame, "WORKER_BYTES", 0)
    for options in ({}, {"discourse_deixis": True}, {"mode": "min", "bridging": True, "non_referring": True}):
        assert score_files(key, response, "ua", jobs=2, **options).metrics == \
            score_files(key, response, "ua", jobs=1, **options).metrics
    broken = tmp_path / "broken.response"
    text = key.read_text(encoding="utf-8")
    broken.write_text(text.replace("\t(EntityID=d1|MarkableID=d1a\t", "\t_\t", 1), encoding="utf-8")
    line = next(n for n, row in enumerate(text.split("\n"), 1) if row.startswith("4\tearly"))
    with pytest.raises(FormatError) as raised:
        score_files(key, broken, "ua", discourse_deixis=True, jobs=2)
    assert (raised.value.path, raised.value.line) == (str(broken), line)
    lenient = score_files(key, broken, "ua", discourse_deixis=True, jobs=2, lenient=True)
    assert lenient.report.counts["unbalanced markable brackets"] == 1


def test_mutated_ua_files_are_scored_or_refused_in_one_line(tmp_path: Path) -> None:
    """Fuzzing the scorer's reader as the other readers are fuzzed: bytes of the shared cases replaced by
    characters that matter to the format; never a bare traceback."""
    import random

    keys = sorted(shared("corefud-samples", "corefud-scorer", "tests-ua").rglob("*.key"))
    rng = random.Random(7)
    mutated = tmp_path / "mutated.key"
    for _ in range(150):
        characters = list(rng.choice(keys).read_text(encoding="utf-8"))
        for _ in range(rng.randint(1, 5)):
            characters[rng.randrange(len(characters))] = rng.choice("()|=_\t\n-,0a#")
        mutated.write_text("".join(characters), encoding="utf-8")
        for options in ({}, {"mode": "min", "bridging": True, "non_referring": True}, {"discourse_deixis": True}):
            try:
                score_files(mutated, mutated, "ua", forms=False, **options)
            except HarmonizeError as error:
                assert "\n" not in str(error)
