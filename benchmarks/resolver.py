"""The neural resolver on GUM V11.1.0: train on train within a time budget, score dev in CorefUD's primary setting
(partial matching, singletons left out; GUM's header has no head field, so the key's heads come from the tree as
udapi's corefud.MoveHead puts them), next to the rule baseline, and the prediction speed of both.

    python benchmarks/resolver.py [--minutes 60] [--epochs 8] [--encoder minilm] [--device auto]
                                  [--model DIR] [--predict-only] [--data ../shared/data]

Training runs in this process (as `harmonize resolve train` does) on train less the documents held out to choose the
epoch on (`harmonize.resolvers.protocol`); dev is scored untouched. The model is kept in --model (default: a scratch
folder, removed). With --predict-only, an existing --model is scored and timed without training. The issue's
targets: dev CoNLL >= 45 and at least 20 points above the rule baseline, within 60 minutes on the 2-core CPU.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from common import arguments, peak_mb, scratch_folder


def gum_split(data: Path, name: str) -> list[Path]:
    from harmonize.converters.gum import read_splits

    release = data / "gum" / "v11.1.0"
    if not release.is_dir():
        sys.exit(f"benchmark data not found: {release} (set HARMONIZE_SHARED_DATA or --data)")
    return [release / "dep" / f"{document}.conllu" for document in read_splits(release)[name]]


def timed_resolution(resolve, gold) -> tuple[dict[str, float], float, int, int]:
    """(dev scores, seconds, documents, words) of ``resolve`` run on a fresh copy of ``gold``."""
    from harmonize.resolvers.neural import dev_scores, fresh_copy

    response = fresh_copy(gold)
    started = time.perf_counter()
    resolve(response)
    seconds = time.perf_counter() - started
    words = sum(len(s.words) for d in gold.documents for s in d.sentences)
    return dev_scores(gold, response), seconds, len(gold.documents), words


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--minutes", type=float, default=60.0, help="training time budget")
    parser.add_argument("--epochs", type=int, default=8, help="epochs the learning-rate schedule spans")
    parser.add_argument("--encoder", default="minilm")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--model", type=Path, help="keep the model here (or score it, with --predict-only)")
    parser.add_argument("--predict-only", action="store_true")
    options = parser.parse_args()

    from harmonize.errors import Report
    from harmonize.resolvers import read_corpus
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training, load, resolve, train
    from harmonize.resolvers.protocol import hold_out
    from harmonize.resolvers.rules import resolve_rules

    train_corpus = read_corpus(gum_split(options.data, "train"))
    dev_corpus = read_corpus(gum_split(options.data, "dev"))
    split = hold_out(train_corpus)
    train_words = sum(len(s.words) for d in train_corpus.documents for s in d.sentences)
    print(f"GUM V11.1.0: {len(train_corpus.documents)} train documents ({train_words:,} words), "
          f"{len(dev_corpus.documents)} dev documents", flush=True)
    results: dict[str, dict] = {}
    with scratch_folder("bench-resolver-") as scratch:
        folder = options.model or scratch / "model"
        if not options.predict_only:
            started = time.perf_counter()
            history = train(split.fit, split.tune, folder, ResolverConfig(encoder=options.encoder),
                            Training(epochs=options.epochs, device=options.device, max_minutes=options.minutes),
                            report=Report(), progress=sys.stderr.isatty())
            best = max(history, key=lambda e: e.conll)
            results["training"] = {"minutes": (time.perf_counter() - started) / 60, "epochs": len(history),
                                   "best_epoch": best.epoch, "peak_mb": peak_mb()}
        model, tokenizer, device = load(folder, options.device)
        rows = {
            "rule baseline": timed_resolution(lambda c: resolve_rules(c), dev_corpus),
            "resolver": timed_resolution(lambda c: resolve(model, tokenizer, c, device), dev_corpus),
        }
    print(f"\n{split.describe('the epoch kept', ['dev'])}")
    print(f"dev F1 (partial matching, no singletons); device {device}")
    print(f"{'':<15}{'MUC':>8}{'B3':>8}{'CEAF-e':>8}{'LEA':>8}{'CoNLL':>8}{'mentions':>10}{'docs/s':>9}{'words/s':>10}")
    for name, (scores, seconds, documents, words) in rows.items():
        print(f"{name:<15}{scores['muc']:>8.2f}{scores['bcub']:>8.2f}{scores['ceafe']:>8.2f}{scores['lea']:>8.2f}"
              f"{scores['conll']:>8.2f}{scores['mentions']:>10.2f}{documents / seconds:>9.2f}{words / seconds:>10,.0f}")
        results[name] = {"scores": scores, "seconds": seconds, "documents": documents, "words": words}
    gain = rows["resolver"][0]["conll"] - rows["rule baseline"][0]["conll"]
    if "training" in results:
        t = results["training"]
        print(f"training: {t['minutes']:.1f} min, {t['epochs']} epoch(s), best epoch {t['best_epoch']}, "
              f"peak {t['peak_mb']:,.0f} MB")
    print(f"resolver - rule baseline: {gain:+.2f} CoNLL")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
