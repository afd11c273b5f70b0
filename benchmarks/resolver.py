"""The neural resolver on GUM V11.1.0: train on train within a time budget, score dev in CorefUD's primary setting
(partial matching, singletons left out; GUM's header has no head field, so the key's heads come from the tree as
udapi's corefud.MoveHead puts them), next to the rule baseline, and the prediction speed of both.

    python benchmarks/resolver.py [--minutes 60] [--epochs 12] [--seed 42] [--encoder minilm] [--device auto]
                                  [--model DIR] [--predict-only] [--data ../shared/data]
                                  [--corefud-scorer ../corefud-scorer/corefud-scorer.py]

Training runs in this process (as `harmonize resolve train` does) on train less the documents held out to choose the
epoch on (`harmonize.resolvers.protocol`); dev and test are scored untouched. Where the CorefUD scorer is given
(`--corefud-scorer`, or COREFUD_SCORER naming its corefud-scorer.py), the predicted test documents of both systems
and their key, written with their heads from the tree, are scored by it too (`-a partial`, singletons left out). The model is kept in --model (default: a scratch
folder, removed). With --predict-only, an existing --model is scored and timed without training. The targets
(issue 40): dev CoNLL 60 within 60 minutes of training on a 2-core CPU, with a training peak under 4 GB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

from common import arguments, peak_mb, scratch_folder


def gum_split(data: Path, name: str) -> list[Path]:
    from harmonize.converters.gum import read_splits

    release = data / "gum" / "v11.1.0"
    if not release.is_dir():
        sys.exit(f"benchmark data not found: {release} (set HARMONIZE_SHARED_DATA or --data)")
    return [release / "dep" / f"{document}.conllu" for document in read_splits(release)[name]]


def timed_resolution(resolve, gold) -> tuple[dict[str, float], float, int, int, object]:
    """(scores, seconds, documents, words, the response) of ``resolve`` run on a fresh copy of ``gold``."""
    from harmonize.resolvers.neural import dev_scores, fresh_copy

    response = fresh_copy(gold)
    started = time.perf_counter()
    resolve(response)
    seconds = time.perf_counter() - started
    words = sum(len(s.words) for d in gold.documents for s in d.sentences)
    return dev_scores(gold, response), seconds, len(gold.documents), words, response


def reference_scores(scorer: Path, gold, response, folder: Path) -> str:
    """What the CorefUD scorer prints for ``response`` against ``gold`` in CorefUD's primary setting (partial
    matching, singletons left out), both written as CorefUD with every mention's head from the tree (GUM's own
    header has no head field: without it the scorer would take each mention's first word)."""
    from harmonize import write
    from harmonize.errors import Report
    from harmonize.resolvers.neural import fresh_copy
    from harmonize.rules import apply_rules

    files = []
    for name, corpus in (("key", gold), ("response", response)):
        headed = fresh_copy(corpus)
        apply_rules(headed, "move-heads,standard-header", Report())
        files.append(folder / f"test-{name}.conllu")
        write(headed, files[-1], report=Report())
    done = subprocess.run([sys.executable, str(scorer), *map(str, files), "-a", "partial"], capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        return f"the CorefUD scorer failed: {(done.stderr.strip().splitlines() or [''])[-1]}"
    return done.stdout


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--minutes", type=float, default=60.0, help="training time budget")
    parser.add_argument("--epochs", type=int, default=12, help="epochs at most (where they do not fit in --minutes, the learning rate's decay is fitted to the budget)")
    parser.add_argument("--seed", type=int, default=42, help="the training's seed: another shows what the figures "
                        "owe to it")
    parser.add_argument("--encoder", default="minilm")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--model", type=Path, help="keep the model here (or score it, with --predict-only)")
    parser.add_argument("--predict-only", action="store_true")
    parser.add_argument("--corefud-scorer", type=Path, default=os.environ.get("COREFUD_SCORER"),
                        help="corefud-scorer.py of ufal/corefud-scorer, to score the test predictions with too")
    options = parser.parse_args()

    from harmonize.conversion import read_corpus
    from harmonize.errors import Report
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training, best_epoch, load, resolve, train
    from harmonize.resolvers.protocol import hold_out
    from harmonize.resolvers.rules import resolve_rules

    train_corpus = read_corpus(gum_split(options.data, "train"))
    dev_corpus = read_corpus(gum_split(options.data, "dev"))
    test_corpus = read_corpus(gum_split(options.data, "test"))
    split = hold_out(train_corpus)
    train_words = sum(len(s.words) for d in train_corpus.documents for s in d.sentences)
    print(f"GUM V11.1.0: {len(train_corpus.documents)} train documents ({train_words:,} words), "
          f"{len(dev_corpus.documents)} dev documents, {len(test_corpus.documents)} test documents", flush=True)
    results: dict[str, dict] = {}
    with scratch_folder("bench-resolver-") as scratch:
        folder = options.model or scratch / "model"
        if not options.predict_only:
            started = time.perf_counter()
            history = train(split.fit, split.tune, folder, ResolverConfig(encoder=options.encoder),
                            Training(epochs=options.epochs, seed=options.seed, device=options.device,
                                     max_minutes=options.minutes),
                            report=Report(), progress=sys.stderr.isatty())
            best = best_epoch(history)
            results["training"] = {"minutes": (time.perf_counter() - started) / 60, "epochs": len(history),
                                   "best_epoch": best.epoch, "peak_mb": peak_mb()}
        model, tokenizer, device = load(folder, options.device)
        splits = {}
        for split_name, gold in (("dev", dev_corpus), ("test", test_corpus)):
            splits[split_name] = {
                "rule baseline": timed_resolution(lambda c: resolve_rules(c), gold),
                "resolver": timed_resolution(lambda c: resolve(model, tokenizer, c, device), gold),
            }
        reference = {name: reference_scores(options.corefud_scorer, test_corpus, row[4], scratch)
                     for name, row in splits["test"].items()} if options.corefud_scorer is not None else {}
    print(f"\n{split.describe('the epoch kept', ['dev', 'test'])}")
    print(f"F1 (partial matching, no singletons); device {device}")
    print(f"{'':<20}{'MUC':>8}{'B3':>8}{'CEAF-e':>8}{'LEA':>8}{'CoNLL':>8}{'mentions':>10}{'docs/s':>9}{'words/s':>10}")
    for split_name, rows in splits.items():
        for name, (scores, seconds, documents, words, _response) in rows.items():
            label = f"{split_name} {name}"
            print(f"{label:<20}{scores['muc']:>8.2f}{scores['bcub']:>8.2f}{scores['ceafe']:>8.2f}"
                  f"{scores['lea']:>8.2f}{scores['conll']:>8.2f}{scores['mentions']:>10.2f}"
                  f"{documents / seconds:>9.2f}{words / seconds:>10,.0f}")
            results[label] = {"scores": scores, "seconds": seconds, "documents": documents, "words": words}
    for name, printed in reference.items():
        lines = [line for line in printed.strip().splitlines() if line.strip()]
        wanted = [f"{metric} {figures}" for metric, figures in pairwise(lines) if metric in ("muc", "bcub",
                  "ceafe", "lea")] + [line for line in lines if line.startswith("CoNLL")]
        print(f"\ntest {name} scored by the CorefUD scorer ({options.corefud_scorer.name} -a partial):")
        print("\n".join(f"  {line}" for line in wanted or lines))
    rows = splits["dev"]
    gain = rows["resolver"][0]["conll"] - rows["rule baseline"][0]["conll"]
    if "training" in results:
        t = results["training"]
        print(f"training: {t['minutes']:.1f} min, {t['epochs']} epoch(s), best epoch {t['best_epoch']}, "
              f"peak {t['peak_mb']:,.0f} MB")
    print(f"resolver - rule baseline on dev: {gain:+.2f} CoNLL")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
