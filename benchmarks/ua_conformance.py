"""Every figure of `harmonize score --format ua` against the UA scorer's (juntaoy/universal-anaphora-scorer,
``ua-scorer.py``), on every key/response pair under a folder and every setting of the scorer's README.

    python benchmarks/ua_conformance.py --reference ../universal-anaphora-scorer \
        [--cases ../shared/data/corefud-samples/corefud-scorer/tests-ua] [--pairs KEY RESPONSE ...] [--write JSON]

The reference is a development tool, cloned beside the checkout (nothing of it is imported by harmonize): it is
run in this process, its printed figures read back, and each compared with ours to two decimals. Prints one line
per difference and a summary; exits 1 on any difference. ``--write`` keeps the reference's figures (case paths
relative to --cases) for tests/test_ua_scoring.py, which checks them where the reference is not installed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import runpy
import sys
from pathlib import Path

from harmonize.errors import HarmonizeError
from harmonize.scoring.score import score_files

# (the reference's words, our options)
SETTINGS = [
    ((), {}),
    (("remove_singletons", "remove_split_antecedent"), {"singletons": False, "split_antecedents": False}),
    (("remove_split_antecedent",), {"split_antecedents": False}),
    (("min",), {"mode": "min"}),
    (("keep_non_referring", "keep_bridging"), {"non_referring": True, "bridging": True}),
    (("keep_non_referring", "keep_bridging", "min"), {"non_referring": True, "bridging": True, "mode": "min"}),
    (("only_split_antecedent",), {"only_split_antecedents": True}),
    (("evaluate_discourse_deixis",), {"discourse_deixis": True}),
]
_FIGURES = re.compile(r"Recall: ([\d.]+)\s+Precision: ([\d.]+)\s+F1: ([\d.]+)")
_HEADINGS = {"Non-referring markable identification scores:": "non-referring",
             "Bridging anaphora recognition scores:": "bridging recognition",
             "Full bridging scores (Markable Level):": "bridging markable",
             "Full bridging scores (Entity Level):": "bridging entity"}


def reference_figures(scorer: Path, key: Path, response: Path, words: tuple[str, ...]) -> dict[str, tuple]:
    """The reference's printed figures: name -> (recall, precision, F1) as printed, and "conll"."""
    out = io.StringIO()
    argv, path = sys.argv, list(sys.path)
    sys.argv, sys.path = [str(scorer / "ua-scorer.py"), str(key), str(response), *words], [str(scorer), *sys.path]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(scorer / "ua-scorer.py"), run_name="__main__")
    finally:
        sys.argv, sys.path = argv, path
    figures: dict[str, tuple] = {}
    name = None
    for line in out.getvalue().splitlines():
        line = line.strip()
        if line in ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc"):
            name = line
        elif line in _HEADINGS:
            name = _HEADINGS[line]
        elif (match := _FIGURES.match(line)) and name is not None:
            figures[name] = tuple(float(v) for v in match.groups())
        elif line.startswith("CoNLL score:"):
            figures["conll"] = (float(line.split(":")[1]),)
    return figures


def our_figures(key: Path, response: Path, options: dict) -> dict[str, tuple]:
    result = score_files(key, response, "ua", forms=False, **options)
    figures = {name: tuple(round(100 * v, 2) for v in (s.recall, s.precision, s.f1))
               for name, s in result.metrics.items()}
    if result.conll is not None:
        figures["conll"] = (round(100 * result.conll, 2),)
    return figures


def write_figures(path: Path, entries: list[dict]) -> None:
    """The reference's figures as a JSON list, an entry a line."""
    lines = ",\n".join(json.dumps(entry, separators=(",", ":")) for entry in entries)
    path.write_text(f"[\n{lines}\n]\n", encoding="utf-8")


def pairs_under(folder: Path) -> list[tuple[Path, Path]]:
    """Each key with the responses named after it (TC-A.key: TC-A-1.response, TC-PA.key: TC-PA-1.sys)."""
    found = []
    for key in sorted(folder.rglob("*.key")):
        stem = key.name[:-len(".key")]
        for response in sorted(key.parent.iterdir()):
            if response.suffix in (".response", ".sys") and re.fullmatch(rf"{re.escape(stem)}-\d+", response.stem):
                found.append((key, response))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, required=True, help="a clone of juntaoy/universal-anaphora-scorer")
    parser.add_argument("--cases", type=Path, default=Path("../shared/data/corefud-samples/corefud-scorer/tests-ua"))
    parser.add_argument("--pairs", type=Path, nargs="*", help="KEY RESPONSE ... instead of --cases")
    parser.add_argument("--write", type=Path, help="write the reference's figures here (JSON)")
    args = parser.parse_args()
    kept: list[dict] = []
    pairs = list(zip(args.pairs[::2], args.pairs[1::2])) if args.pairs else pairs_under(args.cases)
    compared = differences = skipped = 0
    for key, response in pairs:
        for words, options in SETTINGS:
            try:
                theirs = reference_figures(args.reference, key, response, words)
            except Exception as error:  # noqa: BLE001 -- the reference stops on some inputs (crossing markables)
                skipped += 1
                print(f"reference stops: {key.name} {response.name} {' '.join(words)}: {type(error).__name__}")
                continue
            if args.write is not None:
                kept.append({"key": key.relative_to(args.cases).as_posix(),
                             "response": response.relative_to(args.cases).as_posix(),
                             "reference options": list(words), "options": options, "figures": theirs})
            try:
                ours = our_figures(key, response, options)
            except HarmonizeError as error:
                differences += 1
                print(f"we stop: {key.name} {response.name} {' '.join(words)}: {error}")
                continue
            for name, figures in theirs.items():
                compared += 1
                if ours.get(name) != figures:
                    differences += 1
                    print(f"DIFF {key.parent.name}/{key.name} {response.name} [{' '.join(words)}] {name}: "
                          f"reference {figures}, harmonize {ours.get(name)}")
    if args.write is not None:
        write_figures(args.write, kept)
    print(f"{len(pairs)} pairs x {len(SETTINGS)} settings: {compared} figures compared, {differences} differ, "
          f"{skipped} runs the reference could not finish")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
