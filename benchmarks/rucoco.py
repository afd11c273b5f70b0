"""All shared RuCoCo texts (300, 737k characters) read and written back, RuCoCo -> CorefUD -> RuCoCo: tokens/s and
peak memory next to the floor of any converter, json.loads plus razdel alone on the same texts, each contender in
its own process, interleaved.

    python benchmarks/rucoco.py [--repeat 5] [--data ../shared/data]

Contenders:
  json+razdel   json.loads of every file, razdel's sentences and tokens of each text (what any reader must do)
  read          harmonize's reader (the model built, tokens cut at mention edges)
  roundtrip     read, CorefUD written, read back, RuCoCo written (text in memory; each output checked against the
                input bytes)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from common import arguments, best_of, print_result, print_throughput

CONTENDERS = ["json+razdel", "read", "roundtrip"]


def texts(data: Path) -> list[Path]:
    folder = data / "rucoco" / "json"
    if not folder.is_dir():
        sys.exit(f"benchmark data not found: {folder} (set HARMONIZE_SHARED_DATA or --data)")
    return sorted(folder.glob("*.json"))


def one(name: str, data: Path) -> None:
    from razdel import sentenize, tokenize

    from harmonize.converters.corefud import format_corefud, parse_corefud
    from harmonize.converters.rucoco import format_rucoco, read_rucoco
    from harmonize.errors import Report
    from harmonize.io import paused_gc

    files = texts(data)
    start = time.perf_counter()
    if name == "json+razdel":
        for path in files:
            text = json.loads(path.read_text(encoding="utf-8"))["text"]
            for sentence in sentenize(text):
                list(tokenize(sentence.text))
    elif name == "read":
        with paused_gc():
            for path in files:
                read_rucoco(path).release()
    else:
        with paused_gc():
            for path in files:
                corpus = read_rucoco(path)
                back = parse_corefud(format_corefud(corpus, Report()))
                if format_rucoco(back.documents[0], Report()) != path.read_text(encoding="utf-8"):
                    sys.exit(f"{path}: the round trip is not byte-identical")
                corpus.release()
                back.release()
    seconds = time.perf_counter() - start
    print_result(seconds)


def main() -> None:
    args = arguments(__doc__).parse_args()
    if args.one:
        one(args.one, args.data)
        return
    from harmonize.converters.rucoco import read_rucoco

    files = texts(args.data)
    corpus = read_rucoco(files[0].parent)
    tokens = sum(len(s.nodes) for d in corpus for s in d.sentences)
    characters = sum(len(json.loads(p.read_text(encoding="utf-8"))["text"]) for p in files)
    best = best_of(__file__, CONTENDERS, args.repeat, ["--data", str(args.data)], lambda r: r["seconds"])
    print(f"shared RuCoCo texts: {len(files)}, {characters:,} characters, {tokens:,} tokens; best and median of "
          f"{args.repeat}")
    print_throughput(best, tokens, "json+razdel")


if __name__ == "__main__":
    main()
