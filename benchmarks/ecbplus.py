"""Read the shared ECB+ topics (9 topics, 236 documents) and write them as CorefUD: tokens/s and peak memory next to
lxml's bare parse of the same files, each contender in its own process, interleaved.

    python benchmarks/ecbplus.py [--repeat 5] [--data ../shared/data]

Contenders:
  lxml parse   etree.parse of every document file
  read         harmonize's reader, topic by topic (the model built and released)
  cli          `harmonize convert ECB+ --from ecbplus --to corefud -o DIR` (one file per topic; process start included)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from common import arguments, best_of, harmonize_command, print_result, print_throughput, scratch_folder

CONTENDERS = ["lxml parse", "read", "cli"]


def release(data: Path) -> Path:
    folder = data / "ecbplus" / "ECB+"
    if not folder.is_dir():
        sys.exit(f"benchmark data not found: {folder} (set HARMONIZE_SHARED_DATA or --data)")
    return folder


def one(name: str, data: Path) -> None:
    from lxml import etree

    from harmonize.converters.ecbplus import document_files, read_ecbplus, topic_folders
    from harmonize.io import paused_gc

    folder = release(data)
    with scratch_folder("bench-ecbplus-") as out:
        start = time.perf_counter()
        if name == "lxml parse":
            for topic in topic_folders(folder):
                for path in document_files(topic):
                    etree.parse(str(path))
        elif name == "read":
            with paused_gc():
                for topic in topic_folders(folder):
                    read_ecbplus(topic).release()
        else:
            subprocess.run([harmonize_command(), "convert", str(folder), "--from",
                            "ecbplus", "--to", "corefud", "-o", str(out)], check=True, capture_output=True)
        seconds = time.perf_counter() - start
        print_result(seconds, children=name == "cli")


def main() -> None:
    args = arguments(__doc__).parse_args()
    if args.one:
        one(args.one, args.data)
        return
    from harmonize.converters.ecbplus import read_ecbplus

    corpus = read_ecbplus(release(args.data))
    tokens = sum(len(s.nodes) for d in corpus for s in d.sentences)
    projects = len(corpus.documents)
    best = best_of(__file__, CONTENDERS, args.repeat, ["--data", str(args.data)], lambda r: r["seconds"])
    print(f"shared ECB+ topics: {projects} documents, {tokens:,} tokens; best and median of {args.repeat}")
    print_throughput(best, tokens, "lxml parse")


if __name__ == "__main__":
    main()
