"""`harmonize build` on the example recipe over the shared corpora (examples/collection.toml: GUM, ParCorFull,
Potsdam, two ECB+ topics, RuCoCo, LitBank; CorefUD + CoNLL-2012, statistics, views, questions, validation):
the first build, a rebuild with nothing changed, a rebuild after one corpus' recipe entry changed, next to the sum
of the same work as separate commands (convert to each format, stats, view, pcr generate per corpus), each a
whole process, peak memory of each.

    python benchmarks/build.py [--jobs 2]
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from common import ROOT, harmonize_command  # also puts the checkout on sys.path

EXAMPLE = ROOT / "examples" / "collection.toml"


def absolute_recipe(folder: Path) -> Path:
    """The example recipe with absolute input paths, so that it can be changed in a scratch folder."""
    text = EXAMPLE.read_text(encoding="utf-8")
    text = re.sub(r'"(\.\./[^"]+)"', lambda m: f'"{(EXAMPLE.parent / m.group(1)).resolve()}"', text)
    path = folder / "collection.toml"
    path.write_text(text, encoding="utf-8")
    return path


def timed(command: list[str]) -> tuple[float, float]:
    """Seconds and the peak memory (MB) of one command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    return seconds, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024


def one_by_one(recipe: Path, work: Path) -> float:
    """The same corpora through separate commands: convert to each format, stats, view, pcr generate."""
    plan = tomllib.loads(recipe.read_text(encoding="utf-8"))
    tool = harmonize_command()
    total = 0.0
    for corpus in plan["corpus"]:
        inputs = corpus["input"] if isinstance(corpus["input"], list) else [corpus["input"]]
        options = [a for k, v in corpus.get("options", {}).items() for a in ("-I", f"{k}={v}")]
        rules = ["--rules", ",".join(corpus["rules"])] if corpus.get("rules") else []
        out = work / corpus["name"]
        for fmt in plan["outputs"]["formats"]:
            total += timed([tool, "convert", *inputs, "--from", corpus["from"], "--to", fmt, *options, *rules,
                            "-o", str(out / fmt)])[0]
        total += timed([tool, "stats", *inputs, "--from", corpus["from"], *options, "--format", "json", "-o",
                        str(out / "stats.json"), "--plots", str(out / "plots")])[0]
        total += timed([tool, "view", *inputs, "--from", corpus["from"], *options, "-o", str(out / "views")])[0]
        total += timed([tool, "pcr", "generate", *inputs, "--from", corpus["from"], *options, "-o",
                        str(out / "pcr"), "--split", "8:1:1"])[0]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-build-"))
    try:
        recipe = absolute_recipe(work)
        build = [harmonize_command(), "build", str(recipe), "-o", str(work / "release"), "--jobs", str(args.jobs)]
        first, first_mb = timed(build)
        again, again_mb = timed(build)
        text = recipe.read_text(encoding="utf-8")
        recipe.write_text(text.replace("seed = 0}", "seed = 1}", 1), encoding="utf-8")  # ParCorFull's split
        changed, changed_mb = timed(build)
        separate = one_by_one(recipe, work / "separate")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"examples/collection.toml, jobs={args.jobs or 'all cores'}, whole processes")
    print(f"{'run':<44}{'seconds':>9}{'peak MB':>9}")
    print(f"{'first build':<44}{first:>9.2f}{first_mb:>9.0f}")
    print(f"{'rebuild, nothing changed':<44}{again:>9.2f}{again_mb:>9.0f}  ({100 * again / first:.1f}% of the first)")
    print(f"{'rebuild, one corpus changed (ParCorFull)':<44}{changed:>9.2f}{changed_mb:>9.0f}")
    print(f"{'the same work as separate commands, summed':<44}{separate:>9.2f}{'':>9}")


if __name__ == "__main__":
    sys.exit(main())
