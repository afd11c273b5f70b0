"""Read every shared MMAX2 project (ParCorFull news EN and DE, the Potsdam Commentary Corpus sample): tokens/s and
peak memory of the reader next to lxml's bare parse of the same files, each in its own process, interleaved.

    python benchmarks/mmax2.py [--repeat 5] [--data ../shared/data]

Contenders:
  lxml parse   etree.parse of every file the reader opens (projects, common_paths, words, schemes, levels)
  read         harmonize's reader, project by project (the model built and released)
  cli          `harmonize convert FOLDER --from mmax2 --to corefud` per corpus folder (process start included)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from common import arguments, best_of, harmonize_command, print_result, print_throughput, scratch_folder

CONTENDERS = ["lxml parse", "read", "cli"]
FOLDERS = ("parcorfull/news/EN", "parcorfull/news/DE", "potsdam_pcc2.2/coreference-mmax")


def folders(data: Path) -> list[Path]:
    found = [data / "mmax2" / folder for folder in FOLDERS]
    missing = [f for f in found if not f.is_dir()]
    if missing:
        sys.exit(f"benchmark data not found: {missing[0]} (set HARMONIZE_SHARED_DATA or --data)")
    return found


def xml_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".xml", ".mmax") and "Source" not in p.parts
                  and "Customizations" not in p.parts and "customization" not in p.parts)


def one(name: str, data: Path) -> None:
    from lxml import etree

    from harmonize.converters.mmax2 import project_files, read_mmax2
    from harmonize.errors import Report
    from harmonize.io import paused_gc

    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    with scratch_folder("bench-mmax2-") as out:
        start = time.perf_counter()
        if name == "lxml parse":
            for folder in folders(data):
                for path in xml_files(folder):
                    etree.parse(str(path), parser)
        elif name == "read":
            with paused_gc():
                for folder in folders(data):
                    for project in project_files(folder):
                        read_mmax2(project, False, Report()).release()
        else:
            for number, folder in enumerate(folders(data)):
                subprocess.run([harmonize_command(), "convert", str(folder), "--from",
                                "mmax2", "--to", "corefud", "-o", str(out / str(number))], check=True,
                               capture_output=True)
        seconds = time.perf_counter() - start
        print_result(seconds, children=name == "cli")


def main() -> None:
    args = arguments(__doc__).parse_args()
    if args.one:
        one(args.one, args.data)
        return
    from harmonize.converters.mmax2 import read_mmax2

    tokens = sum(len(s.nodes) for folder in folders(args.data) for d in read_mmax2(folder) for s in d.sentences)
    projects = sum(len(list(folder.rglob("*.mmax"))) for folder in folders(args.data))
    best = best_of(__file__, CONTENDERS, args.repeat, ["--data", str(args.data)], lambda r: r["seconds"])
    print(f"shared MMAX2 projects: {projects} documents, {tokens:,} tokens; best and median of {args.repeat}")
    print_throughput(best, tokens, "lxml parse")


if __name__ == "__main__":
    main()
