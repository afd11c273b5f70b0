"""What intervals and paired tests cost: two systems on GUM dev (32 documents) scored as two `harmonize score`
processes one after the other, against one `harmonize score KEY A B` process that scores both and adds each
system's 95% intervals and the paired bootstrap and randomization tests (10,000 samples each). The issue's bound:
at most twice the time of the two plain runs.

    python benchmarks/significance.py [--data ../shared/data] [--repeat 3] [--samples 10000]

The systems are real outputs: the rule baseline finding its own mentions, and clustering the gold mentions.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import arguments, count_words, harmonize_command, peak_mb, scratch_folder, user_environment

from harmonize.converters.gum import read_splits


def run(commands: list[list[str]], environment: dict[str, str]) -> dict:
    """Wall seconds of the commands one after the other, and the peak memory of the processes they ran."""
    start = time.perf_counter()
    for command in commands:
        subprocess.run(command, check=True, capture_output=True, text=True, env=environment)
    return {"seconds": time.perf_counter() - start, "peak_mb": peak_mb(children=True)}


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--samples", type=int, default=10_000)
    options = parser.parse_args()
    release = options.data / "gum" / "v11.1.0"
    if not release.is_dir():
        sys.exit(f"benchmark data not found: {release} (set HARMONIZE_SHARED_DATA or --data)")
    harmonize = harmonize_command()
    environment = user_environment()
    with scratch_folder("harmonize-significance-") as work:
        dev = work / "dev"
        dev.mkdir()
        for name in read_splits(release)["dev"]:
            (dev / f"{name}.conllu").write_bytes((release / "dep" / f"{name}.conllu").read_bytes())
        subprocess.run([harmonize, "resolve", "rules", str(dev), "-o", str(work / "a")], check=True,
                       capture_output=True, env=environment)
        subprocess.run([harmonize, "resolve", "rules", str(dev), "--gold-mentions", "-o", str(work / "b")],
                       check=True, capture_output=True, env=environment)
        plain = [[harmonize, "score", str(dev), str(work / side)] for side in ("a", "b")]
        tested = [[harmonize, "score", str(dev), str(work / "a"), str(work / "b"), "--ci", "95", "--samples",
                   str(options.samples), "--json"]]
        contenders = {"two plain scores": plain, "both, intervals and tests": tested}
        runs: dict[str, list[dict]] = {name: [] for name in contenders}
        for _ in range(options.repeat):
            for name, commands in contenders.items():
                # Each contender in a fresh child, so that the peak memory is its own.
                done = subprocess.run([sys.executable, "-c", (
                    "import json, sys; sys.path.insert(0, %r); from significance import run; "
                    "print(json.dumps(run(%r, %r)))") % (str(Path(__file__).parent), commands, environment)],
                    check=True, capture_output=True, text=True)
                runs[name].append(json.loads(done.stdout))
        words = count_words(sorted(dev.glob("*.conllu")))
    best = {name: min(found, key=lambda r: r["seconds"]) for name, found in runs.items()}
    floor = best["two plain scores"]["seconds"]
    print(f"GUM dev, {words:,} words, two systems, {options.samples:,} samples, best of {options.repeat}")
    print(f"{'contender':<28}{'best s':>8}{'words/s':>10}{'peak MB':>9}{'x plain':>9}")
    for name, result in best.items():
        print(f"{name:<28}{result['seconds']:>8.2f}{words / result['seconds']:>10,.0f}{result['peak_mb']:>9.0f}"
              f"{result['seconds'] / floor:>9.2f}")


if __name__ == "__main__":
    main()
