"""`harmonize diff` against `harmonize score` on the same pair: GUM V11.1.0 dev (the 32 dev documents in one file)
and the seeded perturbed copy the scorer benchmark uses (10% of the mentions dropped, entities merged and split,
mentions extended by a word). Whole processes as users run them (process start included), interleaved, best and
median; diff once with the terminal summary only, once writing the HTML pages and the JSON too. The issue's bound:
diff within 3x score on this pair, HTML included.

    python benchmarks/diff.py [--repeat 5]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from common import (  # also puts the checkout on sys.path
    arguments,
    best_of,
    count_words,
    harmonize_command,
    print_command_result,
)
from scorer import prepare

CONTENDERS = ("score", "diff", "diff-html")


def command(name: str, work: Path) -> list[str]:
    files = [str(work / "dev.conllu"), str(work / "dev-response.conllu")]
    if name == "score":
        return [harmonize_command(), "score", *files]
    extra = ["-o", str(work / "pages"), "--json", str(work / "diff.json")] if name == "diff-html" else []
    return [harmonize_command(), "diff", *files, *extra]


def one(name: str, work: Path) -> None:
    """Child process: run one contender's command once (see common.print_command_result)."""
    print_command_result(command(name, work))


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    if args.one:
        one(args.one, args.work)
        return
    work = Path(tempfile.mkdtemp(prefix="bench-diff-"))
    try:
        prepare(args.data, work)
        tokens = count_words([work / "dev.conllu"])
        best = best_of(__file__, list(CONTENDERS), args.repeat, ["--work", str(work)], lambda r: r["seconds"])
        pages = len(list((work / "pages").glob("*.html")))
        page_bytes = sum(p.stat().st_size for p in (work / "pages").glob("*.html"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"GUM V11.1.0 dev against its perturbed copy, {tokens:,} tokens; whole processes, best and median of "
          f"{args.repeat}; both match by head (their default, as the CorefUD scorer 1.1 does)")
    print(f"{'contender':<12}{'best s':>8}{'median s':>10}{'tokens/s':>11}{'peak MB':>9}{'x score':>9}")
    for name in CONTENDERS:
        result = best[name]
        print(f"{name:<12}{result['seconds']:>8.2f}{result['median']:>10.2f}{tokens / result['seconds']:>11,.0f}"
              f"{result['peak_mb']:>9.0f}{result['seconds'] / best['score']['seconds']:>9.2f}")
    print(f"pages: {pages} files, {page_bytes / 2**20:.1f} MB")
    print("diff's summary:")
    print(best["diff"]["output"], end="")


if __name__ == "__main__":
    sys.exit(main())
