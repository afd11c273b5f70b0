"""GUM V11.1.0 (281 documents, 268k tokens) read, converted to OntoGUM and written as CoNLL-2012.

    python benchmarks/ontogum.py [--repeat 3] [--data ../shared/data]

Contenders, each in its own process (peak memory is its own), best of --repeat:
  read           the GUM reader alone (TSV on the dep/ trees), file by file
  read+rules     the reader and the eight OntoGUM steps
  read+rules+write   and the CoNLL-2012 writer (3-column OntoGUM layout), as `harmonize convert` does
  cli            `harmonize convert DIR --from gum --to conll2012 --rules ontogum -O layout=ontogum` (process start
                 included; one worker per core)
The official converter (the GUM build's) is not packaged and needs the GUM build environment, so it is not run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = Path(os.environ.get("HARMONIZE_SHARED_DATA", ROOT.parent / "shared" / "data"))
CONTENDERS = ("read", "read+rules", "read+rules+write", "cli")
sys.path.insert(0, str(ROOT))


def one(name: str, release: Path) -> None:
    from harmonize.converters.conll2012 import write_conll2012
    from harmonize.converters.gum import read_gum, tsv_files
    from harmonize.errors import Report
    from harmonize.io import paused_gc
    from harmonize.rules.ontogum import apply_ontogum

    out = Path(tempfile.mkdtemp(prefix="bench-ontogum-"))
    try:
        start = time.perf_counter()
        if name == "cli":
            subprocess.run([str(Path(sys.executable).with_name("harmonize")), "convert", str(release), "--from", "gum",
                            "--to", "conll2012", "--rules", "ontogum", "-O", "layout=ontogum", "-o", str(out),
                            "--lenient"], check=True, capture_output=True)
            who = resource.RUSAGE_CHILDREN
        else:
            with paused_gc():
                for path in tsv_files(release):
                    report = Report()
                    corpus = read_gum(path, True, report)
                    if name != "read":
                        apply_ontogum(corpus, report)
                    if name == "read+rules+write":
                        write_conll2012(corpus, out / f"{path.stem}.conll", report, layout="ontogum")
                    corpus.release()
            who = resource.RUSAGE_SELF
        seconds = time.perf_counter() - start
        print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(who).ru_maxrss / 1024}))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    release = args.data / "gum" / "v11.1.0"
    if not (release / "coref_tsv").is_dir():
        sys.exit(f"benchmark data not found: {release} (set HARMONIZE_SHARED_DATA or --data)")
    if args.one:
        one(args.one, release)
        return
    tokens = sum(1 for path in (release / "dep").glob("*.conllu")
                 for line in path.read_text(encoding="utf-8").split("\n")
                 if line and line[0].isdigit() and line.split("\t", 1)[0].isdigit())
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.repeat):
        for name in CONTENDERS:
            done = subprocess.run([sys.executable, __file__, "--one", name, "--data", str(args.data)], check=True,
                                  capture_output=True, text=True)
            result = json.loads(done.stdout)
            if name not in best or result["seconds"] < best[name]["seconds"]:
                best[name] = result
    print(f"GUM V11.1.0: {tokens:,} tokens, best of {args.repeat}")
    print(f"{'contender':<18}{'seconds':>9}{'tokens/s':>11}{'peak MB':>9}")
    for name, result in best.items():
        print(f"{name:<18}{result['seconds']:>9.2f}{tokens / result['seconds']:>11,.0f}{result['peak_mb']:>9.0f}")


if __name__ == "__main__":
    main()
