"""Speed and memory at corpus scale: one large CorefUD file made of N copies of GUM V11.1.0 `dep/` (document and
sentence ids made unique), and each command a user runs on it, timed as whole processes with the peak memory of
the process tree (the process and its workers, summed, sampled every 20 ms from /proc), beside udapi's read and
write of the same file. With several N (``--copies 1,8``) it says how time and memory grew from the first to the last
(linearly and flat, the targets).

    python benchmarks/scale.py --copies 1,8 [--data ../shared/data] [--skip-udapi]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from common import harmonize_command, scratch_folder, user_environment

SHARED = Path(os.environ.get("HARMONIZE_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
UDAPI = ("import sys; from udapi.core.document import Document; d = Document(sys.argv[1]); "
         "d.store_conllu(sys.argv[2])")


def build_file(dep: Path, copies: int, target: Path) -> tuple[int, int]:
    """N copies of every `dep/` file in one file, ids made unique; returns (documents, words)."""
    documents = words = 0
    with target.open("w", encoding="utf-8") as out:
        for copy in range(1, copies + 1):
            for path in sorted(dep.glob("*.conllu")):
                text = path.read_text(encoding="utf-8")
                if copies > 1:
                    text = re.sub(r"(?m)^(# (?:newdoc id|sent_id) = )(.*)$", rf"\g<1>c{copy}-\g<2>", text)
                documents += text.count("# newdoc")
                words += sum(1 for line in text.split("\n") if line[:1].isdigit() and line.split("\t", 1)[0].isdigit())
                out.write(text if text.endswith("\n\n") else text.rstrip("\n") + "\n\n")
    return documents, words


def _tree_rss_kb(root: int) -> int:
    """Resident memory of ``root`` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
                total += next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    return total


def measured(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak memory (MB) of the process tree of ``command``."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=user_environment())
    peak = 0
    while process.poll() is None:
        peak = max(peak, _tree_rss_kb(process.pid))
        time.sleep(0.02)
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed: {process.stderr.read()[-2000:]}")
    return seconds, peak / 1024


def build_recipe(big: Path, folder: Path) -> Path:
    """A recipe of one corpus, the large file, split 8:1:1 and written as CorefUD only (no statistics, views,
    questions or validation): what `build` itself costs beyond a conversion."""
    recipe = folder / "recipe.toml"
    recipe.write_text(f"""[collection]
name = "scale"
version = "1"
description = "GUM copies in one file"
license = "as GUM's"

[[corpus]]
name = "en_scale"
from = "corefud"
input = [{json.dumps(str(big))}]
split = {{train = 8, dev = 1, test = 1, seed = 0}}

[outputs]
formats = ["corefud"]
stats = false
views = false
validate = "none"
""", encoding="utf-8")
    return recipe


def table(dep: Path, copies: int, harmonize: str, udapi: bool) -> tuple[int, dict[str, tuple[float, float]]]:
    """Build the file of ``copies`` copies and run every command on it, printing a row each; returns the words and
    command -> (wall seconds, peak MB)."""
    with scratch_folder("harmonize-scale-") as folder:
        big = folder / "big.conllu"
        documents, words = build_file(dep, copies, big)
        copy = folder / "big-copy.conllu"
        copy.write_bytes(big.read_bytes())
        size = big.stat().st_size / 2**20
        print(f"GUM V11.1.0 x {copies}: {documents:,} documents, {words:,} words, {size:.0f} MB "
              f"({os.cpu_count()} cores)")
        runs = {
            "convert (default jobs)": [harmonize, "convert", str(big), "-o", str(folder / "out.conllu")],
            "convert --jobs 1": [harmonize, "convert", str(big), "-o", str(folder / "out1.conllu"), "--jobs", "1"],
            "convert --rules corefud": [harmonize, "convert", str(big), "-o", str(folder / "rules.conllu"),
                                        "--rules", "corefud"],
            "score big big-copy": [harmonize, "score", str(big), str(copy)],
            "stats --format json": [harmonize, "stats", str(big), "--format", "json"],
            "view -o FOLDER": [harmonize, "view", str(big), "-o", str(folder / "pages")],
            "diff big big-copy -o FOLDER": [harmonize, "diff", str(big), str(copy), "-o", str(folder / "diff")],
            "pcr generate": [harmonize, "pcr", "generate", str(big), "-o", str(folder / "questions.jsonl")],
            "build (one corpus, CorefUD, 8:1:1)": [harmonize, "build", str(build_recipe(big, folder)), "-o",
                                                  str(folder / "release")],
        }
        if udapi:
            runs["udapi read + write (no coref objects)"] = [sys.executable, "-c", UDAPI, str(big),
                                                             str(folder / "udapi.conllu")]
        print("| command | wall s | words/s | peak MB (process tree) |\n| --- | ---: | ---: | ---: |")
        results = {}
        for name, command in runs.items():
            seconds, peak = results[name] = measured(command)
            print(f"| {name} | {seconds:.1f} | {words / seconds:,.0f} | {peak:,.0f} |", flush=True)
    return words, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", default="8", help="copies of GUM in the file, or several comma-separated (1,8): "
                                                      "a table each, then how time and memory grew (default 8)")
    parser.add_argument("--data", type=Path, default=SHARED, help="the shared data folder")
    parser.add_argument("--skip-udapi", action="store_true", help="leave udapi's read and write out")
    args = parser.parse_args()
    try:
        sizes = [int(part) for part in args.copies.split(",")]
    except ValueError:
        sys.exit(f"--copies takes numbers separated by commas, not {args.copies!r}")
    dep = args.data / "gum" / "v11.1.0" / "dep"
    if not dep.is_dir():
        sys.exit(f"benchmark data not found: {dep} (set HARMONIZE_SHARED_DATA or --data)")
    harmonize = harmonize_command()
    tables = [table(dep, copies, harmonize, not args.skip_udapi) for copies in sizes]
    if len(tables) > 1:
        (words_first, first), (words_last, last) = tables[0], tables[-1]
        print(f"\nFrom N={sizes[0]} to N={sizes[-1]}: {words_last / words_first:.1f} times the words; time should grow "
              "as much (linearly), memory not at all (flat)")
        print("| command | time grew | memory grew |\n| --- | ---: | ---: |")
        for name in first:
            print(f"| {name} | {last[name][0] / first[name][0]:.1f}x | {last[name][1] / first[name][1]:.2f}x |")


if __name__ == "__main__":
    main()
