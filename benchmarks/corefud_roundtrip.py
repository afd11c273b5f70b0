"""Read and write all of GUM V11.1.0 dep/ as CorefUD: harmonize next to a split/join floor and udapi.

    python benchmarks/corefud_roundtrip.py [--repeat 3] [--data ../shared/data]

Each contender runs in its own process (so peak memory is its own), --repeat times; the best wall time counts.
Contenders:
  floor      read each file, split lines and tab columns, join them again, write (no model at all)
  harmonize  read + write + release per file through the full model, as `harmonize convert` does, timed
             in-process (no interpreter start)
  harmonize-cli  `harmonize convert DIR -o OUT` as a user runs it (process start included; files in parallel,
                 one worker per core)
  harmonize-cli-1  the same with --jobs 1 (one process, as udapi runs)
  udapi      `udapy read.Conllu files=... corefud.Load write.Conllu` (process start included)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments, best_of, count_words, peak_mb


def files_of(data: Path) -> list[Path]:
    folder = data / "gum" / "v11.1.0" / "dep"
    if not folder.is_dir():
        sys.exit(f"benchmark data not found: {folder} (set HARMONIZE_SHARED_DATA or --data)")
    return sorted(folder.glob("*.conllu"))


def run_floor(files: list[Path], out: Path) -> None:
    for path in files:
        rows = [line.split("\t") for line in path.read_text(encoding="utf-8").split("\n")]
        (out / path.name).write_text("\n".join("\t".join(row) for row in rows), encoding="utf-8")


def run_harmonize(files: list[Path], out: Path) -> None:
    from harmonize.conversion import convert_file
    from harmonize.converters import get_format
    from harmonize.io import paused_gc

    corefud = get_format("corefud", "read")
    with paused_gc():  # as `harmonize convert` does
        for path in files:
            # lenient: GUM_court_insanity.conllu has one conflicting entity type (reported, not fatal here)
            convert_file(path, out / path.name, corefud, corefud, lenient=True)


def one(name: str, data: Path) -> None:
    """Child process: run one contender once, print wall seconds and peak RSS as JSON."""
    files = files_of(data)
    out = Path(tempfile.mkdtemp(prefix="bench-"))
    try:
        start = time.perf_counter()
        if name == "floor":
            run_floor(files, out)
        elif name == "harmonize":
            run_harmonize(files, out)
        else:
            command = {
                "harmonize-cli": [str(Path(sys.executable).with_name("harmonize")), "convert",
                                  str(files[0].parent), "-o", str(out), "--lenient"],
                "harmonize-cli-1": [str(Path(sys.executable).with_name("harmonize")), "convert",
                                    str(files[0].parent), "-o", str(out), "--lenient", "--jobs", "1"],
                "udapi": [str(Path(sys.executable).with_name("udapy")), "-q", "read.Conllu",
                          f"files=!{files[0].parent}/*.conllu", "corefud.Load", "write.Conllu"],
            }[name]
            with open(out / "stdout.conllu", "wb") as stdout:
                subprocess.run(command, check=True, stdout=stdout, stderr=subprocess.DEVNULL)
            written = sum(p.stat().st_size for p in out.iterdir())
            if written < sum(p.stat().st_size for p in files) * 0.9:
                sys.exit(f"{name} wrote only {written} bytes: the run failed")
        seconds = time.perf_counter() - start
        print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(children=name not in ("floor", "harmonize"))}))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    args = arguments(__doc__).parse_args()
    if args.one:
        one(args.one, args.data)
        return
    files = files_of(args.data)
    tokens = count_words(files)
    contenders = ["floor", "harmonize", "harmonize-cli", "harmonize-cli-1"]
    if shutil.which("udapy") or Path(sys.executable).with_name("udapy").exists():
        contenders.append("udapi")
    else:
        print("udapi not installed (pip install udapi): skipped", file=sys.stderr)
    best = best_of(__file__, contenders, args.repeat, ["--data", str(args.data)], lambda r: r["seconds"])
    print(f"GUM V11.1.0 dep/: {len(files)} files, {tokens:,} tokens; best of {args.repeat} runs")
    print(f"{'contender':<15}{'seconds':>9}{'tokens/s':>12}{'peak MB':>9}{'vs harmonize':>14}")
    for name in contenders:
        result = best[name]
        ratio = result["seconds"] / best["harmonize"]["seconds"]
        print(f"{name:<15}{result['seconds']:>9.2f}{tokens / result['seconds']:>12,.0f}{result['peak_mb']:>9.0f}"
              f"{ratio:>13.2f}x")
    if "udapi" in best:
        for name in ("harmonize-cli", "harmonize-cli-1"):
            print(f"udapi / {name} (both as commands): {best['udapi']['seconds'] / best[name]['seconds']:.2f}x")
    print(f"harmonize / floor: {best['harmonize']['seconds'] / best['floor']['seconds']:.2f}x")


if __name__ == "__main__":
    main()
