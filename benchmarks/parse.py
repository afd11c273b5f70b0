"""`harmonize convert --parse udpipe:MODEL` on the shared ECB+ topics (9 topics, 236 documents, no trees) next to the
same conversion without parsing and to UDPipe alone on the same sentences, each in its own process, interleaved.

    python benchmarks/parse.py [--model english-ewt-ud-2.5-191206.udpipe] [--repeat 3] [--data ../shared/data]

Without --model, a model with the network sizes of UDPipe's defaults (those of the LINDAT UD 2.5 models) is
trained for one iteration on 1,000 GUM sentences first, so that parsing costs about what a real model's does.

Contenders:
  udpipe alone     ufal.udpipe tag + parse of every sentence (forms extracted beforehand, not timed)
  convert          `harmonize convert ECB+ --from ecbplus --to corefud -o DIR`
  convert --parse  the same with `--parse udpipe:MODEL` (trees, then mention heads), topics on every core
  convert --parse --jobs 1   the same in one process, as UDPipe alone runs
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import arguments, best_of, harmonize_command, print_result, print_throughput, scratch_folder

CONTENDERS = ["udpipe alone", "convert", "convert --parse", "convert --parse --jobs 1"]


def release(data: Path) -> Path:
    folder = data / "ecbplus" / "ECB+"
    if not folder.is_dir():
        sys.exit(f"benchmark data not found: {folder} (set HARMONIZE_SHARED_DATA or --data)")
    return folder


def sentences(folder: Path) -> list[list[str]]:
    from harmonize.converters.ecbplus import read_ecbplus, topic_folders

    forms = []
    for topic in topic_folders(folder):
        corpus = read_ecbplus(topic)
        forms.extend([n.form for n in s.nodes] for d in corpus for s in d.sentences)
    return forms


def one(name: str, data: Path, model: Path) -> None:
    folder = release(data)
    with scratch_folder("bench-parse-") as out:
        if name == "udpipe alone":
            from harmonize.parsing.udpipe import UDPipeParser

            forms = sentences(folder)
            parser = UDPipeParser(model)
            start = time.perf_counter()
            parser.parse(forms, None)
        else:
            parse = ["--parse", f"udpipe:{model}"] if "--parse" in name else []
            parse += ["--jobs", "1"] if "--jobs 1" in name else []
            start = time.perf_counter()
            subprocess.run([harmonize_command(), "convert", str(folder), "--from", "ecbplus", "--to", "corefud",
                            "-o", str(out), *parse], check=True, capture_output=True)
        seconds = time.perf_counter() - start
        print_result(seconds, children=name != "udpipe alone")


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--model", type=Path, help="a UDPipe 1 model (default: one trained here, see above)")
    args = parser.parse_args()
    if args.one:
        one(args.one, args.data, args.model)
        return
    work = Path(tempfile.mkdtemp(prefix="bench-parse-model-"))
    try:
        model = args.model
        if model is None:
            from harmonize.parsing.udpipe import train_model

            gum = sorted((args.data / "gum" / "v11.1.0" / "dep").glob("GUM_*.conllu"))
            model = train_model(gum, work / "gum-default-size.udpipe", max_sentences=1000, iterations=1,
                                size="default")
        tokens = sum(len(s) for s in sentences(release(args.data)))
        best = best_of(__file__, CONTENDERS, args.repeat, ["--data", str(args.data), "--model", str(model)],
                       lambda r: r["seconds"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"shared ECB+ topics: {tokens:,} tokens; model {model.name}; best and median of {args.repeat}")
    print_throughput(best, tokens, "udpipe alone")


if __name__ == "__main__":
    main()
