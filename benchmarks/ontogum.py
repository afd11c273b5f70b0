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

import subprocess
import sys
import time
from pathlib import Path

from common import arguments, best_of, count_words, harmonize_command, print_result, scratch_folder

CONTENDERS = ["read", "read+rules", "read+rules+write", "cli"]


def one(name: str, release: Path) -> None:
    from harmonize.converters.conll2012 import write_conll2012
    from harmonize.converters.gum import read_gum, tsv_files
    from harmonize.errors import Report
    from harmonize.io import paused_gc
    from harmonize.rules.ontogum import apply_ontogum

    with scratch_folder("bench-ontogum-") as out:
        start = time.perf_counter()
        if name == "cli":
            subprocess.run([harmonize_command(), "convert", str(release), "--from", "gum",
                            "--to", "conll2012", "--rules", "ontogum", "-O", "layout=ontogum", "-o", str(out),
                            "--lenient"], check=True, capture_output=True)
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
        seconds = time.perf_counter() - start
        print_result(seconds, children=name == "cli")


def main() -> None:
    args = arguments(__doc__).parse_args()
    release = args.data / "gum" / "v11.1.0"
    if not (release / "coref_tsv").is_dir():
        sys.exit(f"benchmark data not found: {release} (set HARMONIZE_SHARED_DATA or --data)")
    if args.one:
        one(args.one, release)
        return
    tokens = count_words(sorted((release / "dep").glob("*.conllu")))
    best = best_of(__file__, CONTENDERS, args.repeat, ["--data", str(args.data)], lambda r: r["seconds"])
    print(f"GUM V11.1.0: {tokens:,} tokens, best of {args.repeat}")
    print(f"{'contender':<18}{'seconds':>9}{'tokens/s':>11}{'peak MB':>9}")
    for name, result in best.items():
        print(f"{name:<18}{result['seconds']:>9.2f}{tokens / result['seconds']:>11,.0f}{result['peak_mb']:>9.0f}")


if __name__ == "__main__":
    main()
