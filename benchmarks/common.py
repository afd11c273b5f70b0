"""What the benchmark scripts share: where the data is, the command line, token counts, peak memory, and running
contenders in child processes (each one's peak memory is its own), interleaved, keeping the best run of each."""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = Path(os.environ.get("HARMONIZE_SHARED_DATA", ROOT.parent / "shared" / "data"))
sys.path.insert(0, str(ROOT))  # the benchmarks time the checkout, installed or not


def arguments(description: str) -> argparse.ArgumentParser:
    """--data, --repeat and the hidden --one (a child process running one contender)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    return parser


def count_words(files: list[Path]) -> int:
    """Syntactic words in CoNLL-U files (no multiword token ranges, no empty nodes)."""
    total = 0
    for path in files:
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line and line[0].isdigit() and line.split("\t", 1)[0].isdigit():
                total += 1
    return total


def harmonize_command() -> str:
    """The installed ``harmonize`` script beside this Python (benchmarks time it as users run it)."""
    return str(Path(sys.executable).with_name("harmonize"))


def print_throughput(best: dict[str, dict], tokens: int, floor: str) -> None:
    """One row per contender: best and median seconds, tokens/s, peak MB and the ratio to the ``floor`` contender."""
    width = max(len(name) for name in best) + 2
    ratio = f"x {floor}"
    print(f"{'contender':<{width}}{'best s':>8}{'median s':>10}{'tokens/s':>11}{'peak MB':>9}{ratio:>{len(ratio) + 2}}")
    for name, result in best.items():
        print(f"{name:<{width}}{result['seconds']:>8.3f}{result['median']:>10.3f}{tokens / result['seconds']:>11,.0f}"
              f"{result['peak_mb']:>9.0f}{result['seconds'] / best[floor]['seconds']:>{len(ratio) + 2}.2f}")


@contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder for a contender's output, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def print_result(seconds: float, children: bool = False, **extra: object) -> None:
    """What a child process reports to :func:`best_of`: seconds and peak memory (of its own children, for a
    contender that runs a command), as one JSON line."""
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(children), **extra}))


def print_command_result(command: list[str]) -> None:
    """Child process of :func:`best_of`: run ``command`` once; print its wall seconds, the peak memory of the
    processes it ran and its output, as one JSON line."""
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(children=True), "output": done.stdout}))


def peak_mb(children: bool = False) -> float:
    """Peak resident memory of this process, or of its finished children."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    return resource.getrusage(who).ru_maxrss / 1024


def user_environment() -> dict[str, str]:
    """The environment contenders run in: Python as users have it, keeping each module's compiled bytecode
    (a sandbox may set PYTHONDONTWRITEBYTECODE, and every process start then compiles every module it imports
    again: 0.02 s more for `harmonize score --help`). The checkout's modules are compiled here once, as
    installing does; the peers' are cached on their first run."""
    compileall.compile_dir(ROOT / "harmonize", quiet=1)
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def best_of(
    script: str, contenders: list[str], repeat: int, arguments: list[str], cost: Callable[[dict], float]
) -> dict[str, dict]:
    """Run ``script --one NAME ARGUMENTS`` for every contender, ``repeat`` times, interleaved so that a noisy moment
    does not favour one contender; each child prints its result as JSON. The run of least ``cost`` counts; its
    dict gets the median cost of all runs as "median"."""
    best: dict[str, dict] = {}
    costs: dict[str, list[float]] = {}
    environment = user_environment()
    for _ in range(repeat):
        for name in contenders:
            done = subprocess.run([sys.executable, script, "--one", name, *arguments], check=True,
                                  capture_output=True, text=True, env=environment)
            result = json.loads(done.stdout)
            costs.setdefault(name, []).append(cost(result))
            if name not in best or cost(result) < cost(best[name]):
                best[name] = result
    for name, result in best.items():
        result["median"] = statistics.median(costs[name])
    return best
