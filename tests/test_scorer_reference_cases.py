"""The reference scorer's own test cases (tests-conll and their CorefUD conversions), to the printed digits."""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from pathlib import Path

import pytest

from harmonize.converters.conll2012 import read_conll2012
from harmonize.converters.corefud import read_corefud
from harmonize.scoring.score import score_corpora, score_files
from tests.conftest import SHARED_DATA

CASES_DIR = SHARED_DATA / "corefud-samples" / "corefud-scorer"
METRIC_NAMES = {"BCUB": "bcub", "MUC": "muc", "CEAFM": "ceafm", "CEAFE": "ceafe", "BLANC": "blanc", "LEA": "lea",
                "MENTION": "mor"}
FRACTION = re.compile(r"\b(recall(?:_[cn])?|prec(?:_[cn])?)=(\d+)/(\d+)(?![\d.])", re.I)
# "Expected: LEA [Recall=(2*0+3/3)/5, Prec=(3*0+2)/5]": exact arithmetic for recall (r) and precision (p).
# Where the README follows an expression with "=0.16" its parentheses are informal ("1+2*0+3*0/6=0.16" means
# (1+2*0+3*0)/6): the printed decimal is then the authority, and the headline check covers it.
EXPRESSION = re.compile(r"\b(recall|prec|r|p)=([0-9+*/(). -]+?)(?=([,\]=]|$))", re.I)


def evaluate(expression: str) -> Fraction | None:
    """An arithmetic expression of the README as an exact fraction; None if it is not one (typos)."""
    def value(node: ast.AST) -> Fraction:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return Fraction(str(node.value))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
            left, right = value(node.left), value(node.right)
            return {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}.get(
                type(node.op), left / right if right else Fraction(0))
        raise ValueError(expression)

    try:
        return value(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None


def expectations(readme: Path) -> dict[str, list[tuple[str, str, str]]]:
    """case -> [(metric, headline value, bracket text)], skipping the 'if no de-dup' alternatives. A block
    headed "TC-ZD-2 _head" is the case scored in another matching mode: its name keeps the suffix."""
    cases: dict[str, list[tuple[str, str, str]]] = {}
    current: str | None = None
    for line in readme.read_text(encoding="utf-8").splitlines():
        header = re.match(r"\s*(TC-[A-Z]+-\d+)(?:\s*(_[a-z]+))?\b", line)
        if header:
            current = header[1] + (header[2] or "")
            cases[current] = []
            continue
        if current is None:
            continue
        if "no de-dup" in line.lower():
            current = None  # the alternative without de-duplication: we de-duplicate
            continue
        expected = re.match(r"Expected:\s*([A-Za-z0-9]+)(?:=(\S+?))?\s*(?:\[(.*)[\])])?\s*$", line)
        if expected and expected[1].upper() in METRIC_NAMES:
            cases[current].append((METRIC_NAMES[expected[1].upper()], expected[2] or "", expected[3] or ""))
    return {case: found for case, found in cases.items() if found}


def headline(value: str) -> tuple[float, float]:
    """The last printed number of '3.6/5=0.72', '.5599' or '6/9' and the tolerance of its last digit."""
    last = value.split("=")[-1]
    if last == "?":
        return float("nan"), 0.0
    if "/" in last:
        numerator, denominator = last.split("/")
        return float(numerator) / float(denominator), 0.01
    decimals = len(last.split(".")[1]) if "." in last else 0
    return float(last), 10.0 ** -decimals if decimals else 1e-9


README = CASES_DIR / "tests-conll" / "TestCases.README"
# Headlines that contradict their own bracketed recall and precision; the brackets are still checked exactly.
ERRATA = {
    # prints 8/14=0.57 beside recall 4/6 and precision 4/7, whose F1 is 8/13 (as TC-A-8 prints)
    ("TC-A-9", "ceafm"): 8 / 13,
}
EXTRA_README = CASES_DIR / "tests-corefud" / "exact-match" / "ExtraTestCases.README"
CASES = sorted(expectations(README).items()) if README.exists() else []
EXTRA_CASES = sorted(expectations(EXTRA_README).items()) if EXTRA_README.exists() else []


@pytest.mark.parametrize("case,expected", EXTRA_CASES or [pytest.param("none", [], marks=pytest.mark.skip(
    reason=f"{EXTRA_README} not found: set HARMONIZE_SHARED_DATA"))], ids=[c for c, _ in EXTRA_CASES] or None)
def test_extra_corefud_case(case: str, expected: list[tuple[str, str, str]]) -> None:
    """TC-O (Cai and Strube 2011), which only the CorefUD conversion has."""
    check_case(case, expected, "corefud")


def part(score, name: str) -> tuple[Fraction, Fraction] | None:
    lowered = name.lower()
    target = score
    if lowered.endswith(("_c", "_n")):
        target = score.coreference if lowered.endswith("_c") else score.non_coreference
    if lowered.startswith("recall"):
        return target.recall_num, target.recall_den
    return target.precision_num, target.precision_den


@pytest.mark.parametrize("layout", ["conll2012", "corefud"])
@pytest.mark.parametrize("case,expected", CASES or [pytest.param("none", [], marks=pytest.mark.skip(
    reason=f"{README} not found: set HARMONIZE_SHARED_DATA"))], ids=[c for c, _ in CASES] or None)
def test_reference_case(case: str, expected: list[tuple[str, str, str]], layout: str) -> None:
    check_case(case, expected, layout)


SUITES = {
    # layout: (folder of the key/response files, default matching mode of the README's plain blocks)
    "conll2012": ("tests-conll", "exact"),
    # the reference-coreference-scorers' own copy (its README predates LEA)
    "reference": ("../../conll2012/scorer_testcases_conll", "exact"),
    "corefud": ("tests-corefud/exact-match", "exact"),
    "zeros": ("tests-corefud/zeros", "partial"),
    "overlapping": ("tests-corefud/partial-corefud-match/overlapping_mentions", "partial"),
    "noncontig": ("tests-corefud/partial-corefud-match/noncontig_mentions", "partial"),
    # the same cases written as CoNLL-UA (heads as one-token Min), scored through `harmonize score --format ua`
    "ua-zeros": ("tests-ua/zeros", "partial"),
    "ua-overlapping": ("tests-ua/partial-match-corefud/overlapping_mentions", "partial"),
    "ua-noncontig": ("tests-ua/partial-match-corefud/noncontig_mentions", "partial"),
}
MODES = {"_exact": "exact", "_partial": "partial", "_head": "head"}


def check_case(case: str, expected: list[tuple[str, str, str]], layout: str) -> None:
    name, variant = (case.split("_")[0], "_" + case.split("_")[1]) if "_" in case else (case, "")
    stem = name.rsplit("-", 1)[0]
    folder_name, default_mode = SUITES[layout]
    folder = CASES_DIR / folder_name
    mode, zeros = MODES.get(variant, default_mode), "linear" if variant == "_linear" else "dependent"
    # The cases count singletons, and rename tokens where the response has system mentions.
    if layout.startswith("ua-"):
        result = score_files(folder / f"{stem}.key", folder / f"{name}.response", "ua", singletons=True, forms=False,
                             mode=mode, zeros=zeros)
    else:
        read = read_conll2012 if layout in ("conll2012", "reference") else read_corefud
        key, response = read(folder / f"{stem}.key"), read(folder / f"{name}.response")
        result = score_corpora(key, response, singletons=True, forms=False, mode=mode, zeros=zeros)
    corrected = CORRECTIONS.get(case, {})
    for metric, values in corrected.items():
        score = result.metrics[metric]
        assert (score.recall, score.precision, score.f1) == pytest.approx(values, abs=1e-4), f"{case} {metric}"
    for metric, value, brackets in expected:
        if metric in corrected or metric in (UNASSERTED.get(case) or ()):
            continue
        score = result.metrics[metric]
        for name_, numerator, denominator in FRACTION.findall(brackets):
            ours = part(score, name_)
            if int(denominator) == 0:
                assert ours is not None and ours[0] == 0, f"{case} {metric} {name_}"
                continue
            assert ours is not None and ours[1] and ours[0] / ours[1] == Fraction(int(numerator), int(denominator)), (
                f"{case} {metric} {name_}: ours {ours[0]}/{ours[1]}, printed {numerator}/{denominator}")
        for name_, expression, follower in EXPRESSION.findall(brackets):
            exact = evaluate(expression) if follower != "=" else None
            if exact is not None and not name_.lower().startswith(("recall_", "prec_")):
                ours = part(score, "recall" if name_.lower().startswith("r") else "prec")
                assert ours is not None
                assert (ours[0] / ours[1] if ours[1] else 0) == exact, f"{case} {metric} {name_}={expression}"
        if not value:
            continue
        number, tolerance = headline(value)
        if number != number:  # "Mention=?": only the brackets say something
            continue
        if (case, metric) in ERRATA:
            assert score.f1 == pytest.approx(ERRATA[case, metric])
        else:
            assert abs(score.f1 - number) <= tolerance + 1e-12, f"{case} {metric} F1 {score.f1} vs printed {value}"


# Where the CorefUD scorer's own unit tests (ufal/corefud-scorer, tests/unittests-corefud.py) correct a README
# value, the correction is what we check: (recall, precision, F1) per metric, instead of the README's line.
CORRECTIONS: dict[str, dict[str, tuple[float, float, float]]] = {
    # "the original is wrong as |N_r| != 0" (or |C_r|): BLANC averages both link kinds unless neither side has one
    "TC-M-3": {"blanc": (0.26667 / 2, 1 / 2, 0.42105 / 2)},
    "TC-M-6": {"blanc": (0.06667 / 2, 0.25 / 2, 0.10526 / 2)},
    "TC-N-3": {"blanc": (0.73333 / 2, 1 / 2, 0.84615 / 2)},
    "TC-N-6": {"blanc": (0.13333 / 2, 0.18182 / 2, 0.15385 / 2)},
    # "new alignment can find perfect match" (the README followed the older greedy alignment)
    "TC-OLMB-3": {"muc": (1, 1, 1), "bcub": (1, 1, 1)},
    # "the test case seems not correct"
    "TC-OLMC-2": {"muc": (2 / 4, 2 / 3, 4 / 7), "bcub": (3 / 6, 4 / 5, 8 / 13)},
    # the README copies the dependent method's perfect scores under "linear zero match fails"
    "TC-ZF-2_linear": {"muc": (2 / 3, 2 / 3, 2 / 3), "bcub": (2 / 3, 2 / 3, 2 / 3)},
    "TC-ZF-3_linear": {"muc": (2 / 3, 2 / 3, 2 / 3), "bcub": (2 / 3, 2 / 3, 2 / 3)},
}
# README values the CorefUD scorer's tests do not assert (commented out there); nothing to check them against.
UNASSERTED = {
    "TC-OLMB-6": {"mor"},  # README's 17/23 is impossible: the response's mentions have 9 words in all
    "TC-OLMC-5": None, "TC-OLMC-6": None, "TC-OLMC-7": None,  # whole cases
}


def corefud_readme_cases() -> list:
    params = []
    reference = CASES_DIR / SUITES["reference"][0] / "TestCases.README"
    if reference.exists():
        params.extend(pytest.param("reference", case, found, id=f"reference/{case}")
                      for case, found in sorted(expectations(reference).items()))
    for layout, readme in (("zeros", "ZeroTestCases.README"), ("overlapping", "OverlappingMentionsTestCases.README"),
                           ("noncontig", "NoncontigMentionTestCases.README"), ("ua-zeros", "ZeroTestCases.README"),
                           ("ua-overlapping", "OverlappingMentionsTestCases.README"),
                           ("ua-noncontig", "NoncontigMentionTestCases.README")):
        path = CASES_DIR / SUITES[layout][0] / readme
        if path.exists():
            params.extend(
                pytest.param(layout, case, found, id=f"{layout}/{case}", marks=[pytest.mark.skip(
                    reason="the CorefUD scorer's own tests leave this case out")] if UNASSERTED.get(case, 1) is None
                    else [])
                for case, found in sorted(expectations(path).items())
                # the UA copy leaves out a few of the README's cases (TC-OLMAA)
                if (path.parent / f"{case.split('_')[0]}.response").exists())
    return params or [pytest.param("", "", [], marks=pytest.mark.skip(reason="CorefUD scorer cases not found"))]


@pytest.mark.parametrize("layout,case,expected", corefud_readme_cases())
def test_corefud_scorer_case(layout: str, case: str, expected: list[tuple[str, str, str]]) -> None:
    """The reference scorer's own copy of its cases; zeros, overlapping and discontinuous mentions: partial
    matching by default, other modes where a block says "_exact" or "_head"."""
    check_case(case, expected, layout)
