"""`harmonize score` as users run it: GUM V11.1.0 dev (the 32 dev documents of splits.md in one file) against a
perturbed copy of itself, `--match exact --singletons`, whole processes (process start included), best and median
of several interleaved runs; the same on one small document (most scorer runs in a training loop are small).

    python benchmarks/scorer.py [--repeat 5] [--data ../shared/data] [--in-process]

The CorefUD scorer is not on PyPI: where COREFUD_SCORER names its corefud-scorer.py, it is timed in the same
run (its options: COREFUD_SCORER_ARGS, default "-s -a exact"); otherwise the issue's figure for it on this pair
(16 s) gives the target, 0.53 s for 30x.

The response drops 10% of the mentions, merges and splits some entities and extends some spans by a word (seeded,
so every run scores the same pair). --in-process times scoring alone (files already read), every metric in every
mode, with scorch (PyPI) on the same clusters as a speed peer and a cross-check.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from common import (  # also puts the checkout on sys.path
    arguments,
    best_of,
    count_words,
    harmonize_command,
    print_command_result,
)

from harmonize.converters.corefud import read_corefud, write_corefud
from harmonize.converters.gum import read_splits
from harmonize.schemas.model import Corpus
from harmonize.scoring.matching import document_spans
from harmonize.scoring.metrics import METRICS
from harmonize.scoring.score import score_corpora

COREFUD_SCORER_SECONDS = 16.0  # issue 19: corefud-scorer.py on this pair, on this machine


def gum_dev(data: Path) -> Corpus:
    folder = data / "gum" / "v11.1.0"
    if not folder.is_dir():
        sys.exit(f"benchmark data not found: {folder} (set HARMONIZE_SHARED_DATA or --data)")
    corpus = Corpus()
    for name in read_splits(folder)["dev"]:
        corpus.documents.extend(read_corefud(folder / "dep" / f"{name}.conllu", lenient=True).documents)
    return corpus


def perturb(corpus: Corpus, seed: int = 7) -> Corpus:
    rng = random.Random(seed)
    for document in corpus:
        for mention in document.mentions:
            if mention.entity is not None and rng.random() < 0.10:
                document.remove_mention(mention)
        multi = [e for e in document.entities if len(e.mentions) > 1]
        for keep, absorbed in zip(multi[:6:2], multi[1:6:2]):
            document.merge_entities(keep, absorbed)
        for entity in [e for e in document.entities if len(e.mentions) > 4][:3]:
            document.split_entity(entity, entity.mentions[::2])
        for mention in document.mentions:
            nodes = mention.sentence.nodes
            last = mention.words[-1].position
            if rng.random() < 0.05 and last + 1 < len(nodes):
                document.set_words(mention, [*mention.words, nodes[last + 1]], mention.head)
    return corpus


def timed(repeat: int, job) -> tuple[float, int, object]:
    """Best wall time of ``repeat`` runs, then one more run under tracemalloc (which slows Python) for the peak
    of memory allocated while scoring."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = job()
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    job()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak, result


def in_process(args: argparse.Namespace) -> None:
    """Scoring alone, files already read: every metric in every mode, and scorch on the same clusters."""
    key = gum_dev(args.data)
    response = perturb(gum_dev(args.data))
    words = sum(1 for d in key for s in d.sentences for n in s.nodes if not n.is_empty)
    print(f"GUM V11.1.0 dev: {len(key)} documents, {words:,} words; best of {args.repeat}")
    print(f"{'run':<34}{'seconds':>9}{'peak MB':>9}   CoNLL    BLANC    LEA      MOR")
    # The configuration the issue times the official CorefUD scorer in (about 8 s): dev against itself.
    copy = gum_dev(args.data)
    seconds, peak, result = timed(args.repeat, lambda: score_corpora(key, copy, None, False, True, "partial"))
    print(f"{'harmonize dev vs itself, partial':<34}{seconds:>9.3f}{peak / 2**20:>9.1f}   "
          f"{100 * result.conll:.2f}")  # type: ignore[attr-defined]
    for mode in ("exact", "head"):
        for singletons in (False, True):
            seconds, peak, result = timed(args.repeat, lambda s=singletons, m=mode: score_corpora(
                key, response, None, s, True, m))
            m = result.metrics  # type: ignore[attr-defined]
            print(f"{'harmonize ' + mode + (' +singletons' if singletons else ''):<34}{seconds:>9.3f}"
                  f"{peak / 2**20:>9.1f}   {100 * result.conll:.2f}   {100 * m['blanc'].f1:.2f}"  # type: ignore[attr-defined]
                  f"    {100 * m['lea'].f1:.2f}    {100 * m['mor'].f1:.2f}")
    try:
        from scorch import scores as scorch_scores
    except ImportError:
        print("scorch not installed (pip install scorch): skipped")
        return
    for singletons in (False, True):
        pairs = []
        for key_document, response_document in zip(key, response):
            k, _ = document_spans(key_document, singletons)
            r, _ = document_spans(response_document, singletons)
            by_nodes = {s.nodes: s for c in k for s in c}  # exact matching, as scorch sees mentions
            pairs.append(([{s.nodes for s in c} for c in k],
                          [{by_nodes.get(s.nodes, s).nodes for s in c} for c in r]))

        def run_scorch(pairs: list = pairs) -> list:
            return [(scorch_scores.muc(a, b), scorch_scores.b_cubed(a, b), scorch_scores.ceaf_m(a, b),
                     scorch_scores.ceaf_e(a, b), scorch_scores.blanc(a, b)) for a, b in pairs]

        def run_ours(pairs: list = pairs) -> list:
            return [tuple(METRICS[name](a, b) for name in ("muc", "bcub", "ceafm", "ceafe", "blanc"))
                    for a, b in pairs]

        scorch_seconds, scorch_peak, scorch_result = timed(args.repeat, run_scorch)
        ours_seconds, ours_peak, ours_result = timed(args.repeat, run_ours)
        differences = 0
        for theirs, ours in zip(scorch_result, ours_result):  # type: ignore[arg-type]
            for (r, p, f), score in zip(theirs, ours):
                if max(abs(r - score.recall), abs(p - score.precision), abs(f - score.f1)) > 1e-9:
                    differences += 1
        label = "+singletons" if singletons else ""
        print(f"{'scorch exact ' + label + ' (5 metrics)':<34}{scorch_seconds:>9.3f}{scorch_peak / 2**20:>9.1f}")
        print(f"{'harmonize exact ' + label + ' (same 5)':<34}{ours_seconds:>9.3f}{ours_peak / 2**20:>9.1f}   "
              f"per-document values differing from scorch: {differences} of {5 * len(pairs)}")


def prepare(data: Path, work: Path) -> None:
    """dev.conllu / dev-response.conllu (all dev documents), one.conllu / one-response.conllu (the first)."""
    key, response = gum_dev(data), perturb(gum_dev(data))
    write_corefud(key, work / "dev.conllu")
    write_corefud(response, work / "dev-response.conllu")
    write_corefud(Corpus(key.documents[:1]), work / "one.conllu")
    write_corefud(Corpus(response.documents[:1]), work / "one-response.conllu")


def command(name: str, work: Path) -> list[str]:
    tool, pair = name.rsplit("-", 1)
    files = [str(work / f"{pair}.conllu"), str(work / f"{pair}-response.conllu")]
    if tool == "harmonize":
        return [harmonize_command(), "score", *files, "--match", "exact", "--singletons"]
    arguments = shlex.split(os.environ.get("COREFUD_SCORER_ARGS", "-s -a exact"))
    return [sys.executable, os.environ["COREFUD_SCORER"], *files, *arguments]


def one(name: str, work: Path) -> None:
    """Child process: run one contender's command once (see common.print_command_result)."""
    print_command_result(command(name, work))


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    if args.one:
        one(args.one, args.work)
        return
    if args.in_process:
        in_process(args)
        return
    work = Path(tempfile.mkdtemp(prefix="bench-scorer-"))
    try:
        prepare(args.data, work)
        tokens = {pair: count_words([work / f"{pair}.conllu"]) for pair in ("dev", "one")}
        size = (work / "dev.conllu").stat().st_size
        contenders = ["harmonize-dev", "harmonize-one"]
        if os.environ.get("COREFUD_SCORER"):
            contenders += ["corefud-dev", "corefud-one"]
        best = best_of(__file__, contenders, args.repeat, ["--work", str(work)], lambda r: r["seconds"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"GUM V11.1.0 dev in one file: {tokens['dev']:,} tokens, {size / 2**20:.1f} MB; one document: "
          f"{tokens['one']:,} tokens. `score --match exact --singletons`, whole processes, best and median of "
          f"{args.repeat}")
    print(f"{'contender':<16}{'best s':>8}{'median s':>10}{'peak MB':>9}{'CorefUD scorer / it':>21}")
    for name in contenders:
        result = best[name]
        pair = name.rsplit("-", 1)[1]
        peer = best.get(f"corefud-{pair}", {}).get("seconds")
        ratio = f"{peer / result['seconds']:.1f}x" if peer else (
            f"{COREFUD_SCORER_SECONDS / result['seconds']:.1f}x*" if pair == "dev" else "-")
        print(f"{name:<16}{result['seconds']:>8.2f}{result['median']:>10.2f}{result['peak_mb']:>9.0f}{ratio:>21}")
    if "corefud-dev" not in best:
        print(f"* against the issue's {COREFUD_SCORER_SECONDS:.0f} s for corefud-scorer.py on this pair (set "
              f"COREFUD_SCORER to time it here); target >= 30x, i.e. <= {COREFUD_SCORER_SECONDS / 30:.2f} s")
    print("harmonize's output (dev):")
    print(best["harmonize-dev"]["output"], end="")


if __name__ == "__main__":
    main()
