"""Read and write throughput of every format on all of GUM V11.1.0 (dep/, 281 files, 268k tokens).

    python benchmarks/formats.py [--repeat 3] [--data ../shared/data] [--formats webanno-tsv,xmi]

    python benchmarks/formats.py [--repeat 3] [--data ../shared/data]

GUM is first converted to each format (not timed). Then, for each format, one child process per run reads every
file into the model and writes it back in the same format, file by file as `harmonize convert` does; read and
write seconds are summed separately, and the child's peak memory is its own. The best of --repeat runs counts.
Peers measured in the same run:
  udapi          `udapy read.Conllu ... corefud.Load write.Conllu` (CorefUD, process start included)
  floor:FORMAT   the least any tool must do without a model: split lines and columns and join them again
                 (CorefUD, CoNLL-2012), json.loads/json.dumps per line (jsonlines), pyarrow read/write of the
                 tables (Parquet), the csv module's tab-separated rows (WebAnno TSV), lxml's parse and
                 serialisation (UIMA XMI); harmonize:gum-tsv reads GUM's own coref_tsv/ (span + relation layers)
                 and writes it back (byte for byte)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments, best_of, count_words, peak_mb

FORMATS = ("corefud", "conll2012", "jsonlines", "parquet", "webanno-tsv", "xmi")


def inputs(work: Path, fmt: str) -> list[Path]:
    folder = work / fmt
    return sorted(folder.iterdir())


def prepare(data: Path, work: Path) -> int:
    """GUM in every format under ``work``; returns its token count."""
    from harmonize.conversion import convert_file
    from harmonize.converters import get_format

    source = data / "gum" / "v11.1.0" / "dep"
    if not source.is_dir():
        sys.exit(f"benchmark data not found: {source} (set HARMONIZE_SHARED_DATA or --data)")
    corefud = get_format("corefud", "read")
    (work / "gum-tsv").mkdir()
    for path in sorted((source.parent / "coref_tsv").glob("*.tsv")):
        (work / "gum-tsv" / path.name).symlink_to(path)
    for fmt in FORMATS:
        (work / fmt).mkdir()
        writer = get_format(fmt, "write")
        for path in sorted(source.glob("*.conllu")):
            # lenient: GUM_court_insanity.conllu has one conflicting entity type (reported, not fatal here)
            convert_file(path, work / fmt / (path.stem + writer.extension), corefud, writer, lenient=True)
    return count_words(sorted(source.glob("*.conllu")))


def run_harmonize(fmt: str, files: list[Path], out: Path) -> tuple[float, float]:
    from harmonize.converters import get_format
    from harmonize.errors import Report
    from harmonize.io import paused_gc

    handler = get_format("webanno-tsv" if fmt == "gum-tsv" else fmt, "read")
    reading = writing = 0.0
    with paused_gc():
        for path in files:
            start = time.perf_counter()
            corpus = handler.reader(path, True, Report())  # type: ignore[misc]
            middle = time.perf_counter()
            handler.writer(corpus, out / path.name, Report())  # type: ignore[misc]
            writing += time.perf_counter() - middle
            reading += middle - start
            corpus.release()
    return reading, writing


def run_floor(fmt: str, files: list[Path], out: Path) -> tuple[float, float]:
    fmt = "webanno-tsv" if fmt == "gum-tsv" else fmt
    reading = writing = 0.0
    for path in files:
        start = time.perf_counter()
        if fmt == "parquet":
            import pyarrow.parquet as pq

            tables = {p.name: pq.read_table(p) for p in sorted(path.iterdir())}
        elif fmt == "xmi":
            from lxml import etree

            trees = {p.name: etree.parse(str(p)) for p in sorted(path.iterdir())}
        elif fmt == "webanno-tsv":
            import csv

            with open(path, encoding="utf-8", newline="") as handle:
                rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
        elif fmt == "jsonlines":
            records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        else:
            rows = [line.split() if fmt == "conll2012" else line.split("\t")
                    for line in path.read_text(encoding="utf-8").split("\n")]
        middle = time.perf_counter()
        if fmt == "parquet":
            (out / path.name).mkdir()
            for name, table in tables.items():
                pq.write_table(table, out / path.name / name)
        elif fmt == "xmi":
            (out / path.name).mkdir()
            for name, tree in trees.items():
                tree.write(str(out / path.name / name), encoding="utf-8", xml_declaration=True)
        elif fmt == "webanno-tsv":
            with open(out / path.name, "w", encoding="utf-8", newline="") as handle:
                csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\",
                           lineterminator="\n").writerows(rows)
        elif fmt == "jsonlines":
            (out / path.name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                                         encoding="utf-8")
        else:
            separator = " " if fmt == "conll2012" else "\t"
            (out / path.name).write_text("\n".join(separator.join(row) for row in rows), encoding="utf-8")
        writing += time.perf_counter() - middle
        reading += middle - start
    return reading, writing


def one(name: str, work: Path) -> None:
    """Child process: run one contender once; print read/write seconds and peak RSS as JSON."""
    out = Path(tempfile.mkdtemp(prefix="bench-out-"))
    try:
        if name == "udapi":
            files = inputs(work, "corefud")
            command = [str(Path(sys.executable).with_name("udapy")), "-q", "read.Conllu",
                       f"files=!{files[0].parent}/*.conllu", "corefud.Load", "write.Conllu"]
            start = time.perf_counter()
            with open(out / "stdout.conllu", "wb") as stdout:
                subprocess.run(command, check=True, stdout=stdout, stderr=subprocess.DEVNULL)
            reading, writing = time.perf_counter() - start, 0.0
            peak = peak_mb(children=True)
        else:
            kind, _, fmt = name.partition(":")
            files = inputs(work, fmt)
            runner = run_floor if kind == "floor" else run_harmonize
            reading, writing = runner(fmt, files, out)
            peak = peak_mb()
        print(json.dumps({"read": reading, "write": writing, "peak_mb": peak}))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--prepare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--formats", default=",".join((*FORMATS, "gum-tsv")),
                        help="comma-separated formats to time (default: all, and gum-tsv)")
    args = parser.parse_args()
    if args.one:
        one(args.one, args.work)
        return
    if args.prepare:
        print(prepare(args.data, args.work))
        return
    work = Path(tempfile.mkdtemp(prefix="bench-formats-"))
    try:
        # In a child: a child's peak memory starts from its parent's at exec, so this process stays small.
        done = subprocess.run([sys.executable, __file__, "--prepare", "--data", str(args.data), "--work", str(work)],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            sys.exit(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "preparing the data failed")
        tokens = int(done.stdout)
        chosen = args.formats.split(",")
        contenders = [f"{kind}:{fmt}" for fmt in chosen for kind in ("harmonize", "floor")]
        if "corefud" in chosen and Path(sys.executable).with_name("udapy").exists():
            contenders.append("udapi")
        elif "corefud" in chosen:
            print("udapi not installed (pip install udapi): skipped", file=sys.stderr)
        best = best_of(__file__, contenders, args.repeat, ["--work", str(work)], lambda r: r["read"] + r["write"])
        print(f"GUM V11.1.0: {tokens:,} tokens, best of {args.repeat}")
        print(f"{'contender':<22}{'read s':>8}{'write s':>9}{'read tok/s':>12}{'write tok/s':>13}{'peak MB':>9}"
              f"{'x floor':>9}{'x udapi':>9}")
        udapi = best.get("udapi")
        for name, result in best.items():
            total = result["read"] + result["write"]
            floor = best.get(f"floor:{name.partition(':')[2]}")
            versus_floor = f"{total / (floor['read'] + floor['write']):.1f}" if floor and name != "udapi" else "-"
            versus_udapi = f"{udapi['read'] / total:.2f}" if udapi and name == "harmonize:corefud" else "-"
            write_rate = f"{tokens / result['write']:,.0f}" if result["write"] else "-"
            print(f"{name:<22}{result['read']:>8.2f}{result['write']:>9.2f}{tokens / result['read']:>12,.0f}"
                  f"{write_rate:>13}{result['peak_mb']:>9.0f}{versus_floor:>9}{versus_udapi:>9}")
        print("x floor: (read + write) / the floor's; x udapi: udapi's read+write seconds / harmonize's (CorefUD); "
              "udapi's row is read+write together, process start included")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
