"""Convert all of GUM V11.1.0 as ONE CorefUD file (the 281 files of dep/ concatenated, 268k tokens) to CorefUD, as
users run the commands: whole processes, process start included, next to udapi and a split/join floor, measured
in the same interleaved run.

    python benchmarks/corefud_roundtrip.py [--repeat 5] [--data ../shared/data]

Contenders (each a command; wall time and peak memory of the whole process tree):
  floor            python: read the file, split lines and tab columns, join them again, write (no model)
  harmonize        `harmonize convert gum.conllu --from corefud --to corefud -o out.conllu` (pieces on every core)
  harmonize-1      the same with --jobs 1 (one process, as udapi runs)
  udapi            `udapy read.Conllu files=gum.conllu corefud.Load write.Conllu` (stdout to a file)
harmonize's output must be byte-identical to its input, or the benchmark stops.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments, best_of, count_words, harmonize_command, print_result


def gum_files(data: Path) -> list[Path]:
    folder = data / "gum" / "v11.1.0" / "dep"
    if not folder.is_dir():
        sys.exit(f"benchmark data not found: {folder} (set HARMONIZE_SHARED_DATA or --data)")
    return sorted(folder.glob("*.conllu"))


def floor(source: Path, out: Path) -> None:
    rows = [line.split("\t") for line in source.read_text(encoding="utf-8").split("\n")]
    out.write_text("\n".join("\t".join(row) for row in rows), encoding="utf-8")


def command(name: str, source: Path, out: Path) -> list[str]:
    harmonize = harmonize_command()
    return {
        "floor": [sys.executable, __file__, "--floor", str(source), str(out)],
        "harmonize": [harmonize, "convert", str(source), "--from", "corefud", "--to", "corefud", "-o", str(out)],
        "harmonize-1": [harmonize, "convert", str(source), "-o", str(out), "--jobs", "1"],
        "udapi": [str(Path(sys.executable).with_name("udapy")), "-q", "read.Conllu", f"files={source}", "corefud.Load",
                  "write.Conllu"],
    }[name]


def one(name: str, work: Path) -> None:
    """Child process: run one contender's command once; print wall seconds and peak RSS as JSON."""
    source = work / "gum.conllu"
    out = work / f"out-{name}.conllu"
    start = time.perf_counter()
    with open(out if name == "udapi" else work / "stdout", "wb") as stdout:
        subprocess.run(command(name, source, out), check=True, stdout=stdout, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if name.startswith("harmonize") and out.read_bytes() != source.read_bytes():
        sys.exit(f"{name} did not write its input back byte for byte")
    print_result(seconds, children=True)


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--floor", nargs=2, type=Path)
    args = parser.parse_args()
    if args.floor:
        floor(*args.floor)
        return
    if args.one:
        one(args.one, args.work)
        return
    files = gum_files(args.data)
    work = Path(tempfile.mkdtemp(prefix="bench-corefud-"))
    try:
        source = work / "gum.conllu"
        with open(source, "wb") as joined:
            joined.writelines(path.read_bytes() for path in files)
        tokens = count_words([source])
        contenders = ["floor", "harmonize", "harmonize-1"]
        if Path(sys.executable).with_name("udapy").exists():
            contenders.append("udapi")
        else:
            print("udapi not installed (pip install udapi): skipped", file=sys.stderr)
        best = best_of(__file__, contenders, args.repeat, ["--work", str(work)], lambda r: r["seconds"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"GUM V11.1.0 dep/ as one file: {len(files)} documents, {tokens:,} tokens; "
          f"best and median of {args.repeat} runs, whole processes")
    print(f"{'contender':<13}{'best s':>8}{'median s':>10}{'tokens/s':>11}{'peak MB':>9}{'udapi / it':>12}"
          f"{'it / floor':>12}")
    for name in contenders:
        result = best[name]
        versus_udapi = f"{best['udapi']['seconds'] / result['seconds']:.2f}x" if "udapi" in best else "-"
        print(f"{name:<13}{result['seconds']:>8.2f}{result['median']:>10.2f}{tokens / result['seconds']:>11,.0f}"
              f"{result['peak_mb']:>9.0f}{versus_udapi:>12}{result['seconds'] / best['floor']['seconds']:>11.2f}x")
    print("targets (issue 19): harmonize >= 4x udapi, and within 3x of the floor")


if __name__ == "__main__":
    main()
