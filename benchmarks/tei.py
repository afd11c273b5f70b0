"""PCC / NKJP TEI read and written, on a corpus made by the TEI writer from GUM V11.1.0 (281 documents, 268k
tokens), next to lxml's bare parse of the same files.

    python benchmarks/tei.py [--repeat 3] [--data ../shared/data]

The corpus is written once, into a temporary folder, before timing. Contenders, each in its own process (peak
memory is its own), interleaved, best of --repeat:
  lxml parse     etree.parse of every layer file (5 per document): the floor any lxml-based reader pays
  read           harmonize's TEI reader, document by document, each freed after reading
  write          the TEI writer, document by document (the corpus is read first, not timed)
  cli            `harmonize convert TEI --from tei --to corefud` (process start included; one worker per core)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments, best_of, count_words, harmonize_command, print_result, scratch_folder

CONTENDERS = ["lxml parse", "read", "write", "cli"]


def one(name: str, corpus: Path) -> None:
    from lxml import etree

    from harmonize.converters.tei import document_folders, read_tei, write_tei
    from harmonize.errors import Report
    from harmonize.io import paused_gc

    folders = document_folders(corpus)
    with scratch_folder("bench-tei-") as out:
        if name == "lxml parse":
            start = time.perf_counter()
            for folder in folders:
                for layer in sorted(folder.glob("*.xml")):
                    etree.parse(str(layer))
        elif name == "read":
            start = time.perf_counter()
            with paused_gc():
                for folder in folders:
                    read_tei(folder, False, Report()).release()
        elif name == "write":
            documents = [read_tei(folder, False, Report()) for folder in folders]
            start = time.perf_counter()
            with paused_gc():
                for document in documents:
                    write_tei(document, out, Report())
        else:
            start = time.perf_counter()
            subprocess.run([harmonize_command(), "convert", str(corpus), "--from", "tei",
                            "--to", "corefud", "-o", str(out)], check=True, capture_output=True)
        seconds = time.perf_counter() - start
        print_result(seconds, children=name == "cli")


def main() -> None:
    args = arguments(__doc__).parse_args()
    if args.one:
        one(args.one, args.data)  # --data is the generated TEI corpus here
        return
    dep = args.data / "gum" / "v11.1.0" / "dep"
    files = sorted(dep.glob("*.conllu"))
    if not files:
        sys.exit(f"benchmark data not found: {dep} (set HARMONIZE_SHARED_DATA or --data)")
    from harmonize.converters.corefud import read_corefud
    from harmonize.converters.tei import write_tei

    corpus = Path(tempfile.mkdtemp(prefix="bench-tei-corpus-"))
    try:
        for path in files:
            write_tei(read_corefud(path), corpus)
        tokens = count_words(files)
        size = sum(p.stat().st_size for p in corpus.rglob("*.xml")) / 2**20
        best = best_of(__file__, CONTENDERS, args.repeat, ["--data", str(corpus)], lambda r: r["seconds"])
    finally:
        shutil.rmtree(corpus, ignore_errors=True)
    floor = best["lxml parse"]["seconds"]
    print(f"TEI from GUM V11.1.0: {len(files)} documents, {tokens:,} tokens, {size:,.0f} MB of XML; best of "
          f"{args.repeat}")
    print(f"{'contender':<12}{'seconds':>9}{'tokens/s':>11}{'peak MB':>9}{'x lxml parse':>14}")
    for name, result in best.items():
        print(f"{name:<12}{result['seconds']:>9.2f}{tokens / result['seconds']:>11,.0f}{result['peak_mb']:>9.0f}"
              f"{result['seconds'] / floor:>14.2f}")


if __name__ == "__main__":
    main()
