"""Cross-document coreference on ECB+ the way Cattan et al. (2021) evaluate it: train on the train topics, choose
thresholds by 5-fold cross-validation over them (--folds; 0: on 4 train topics held out; see
`harmonize.resolvers.protocol`), and score on the dev topics, untouched
(the standard split; the test topics are not in ../shared/data: --test-topics scores them where a copy has them), at the
topic level (or --scope subtopic / corpus), events and entities apart: mention detection (exact, singletons
included), then MUC, B3, CEAF-e, LEA and CoNLL without singletons (with them: --singletons), for the same-lemma
baseline and the model, on gold mentions and on the model's detected mentions (the baseline clusters the same
detected mentions). Reads only the validated sentences (``-I sentences=validated-text``): the only ones ECB+
annotates exhaustively. Prints the table, the training time, the prediction speed of the model and of the lemma
baseline (the peer measured in the same run; no reference system installs here) and peak memory.

    python benchmarks/cross_document.py [--encoder minilm] [--device cpu|cuda] [--epochs 4] [--scope topic]
                                        [--folds 5] [--members 3] [--model DIR] [--data ../shared/data]

The issue's target (2-core CPU, MiniLM, training at most 60 minutes): on dev, events, topic level, the model above
the lemma baseline on gold and on predicted mentions. The same script runs unchanged on a GPU (--device cuda) with
a larger encoder (--encoder roberta-large, where it is cached).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from common import arguments, peak_mb

from harmonize.resolvers.cross_document import MEMBERS
from harmonize.resolvers.protocol import FOLDS


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--encoder", default="minilm")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0, help="of initialisation and negative pairs (validate's)")
    parser.add_argument("--scope", default="topic")
    parser.add_argument("--singletons", action="store_true")
    parser.add_argument("--model", type=Path)
    parser.add_argument("--folds", type=int, default=FOLDS, help="cross-validation folds over the train topics that "
                        "choose the thresholds (0: 4 train topics held out)")
    parser.add_argument("--members", type=int, default=MEMBERS, help="pair scorers and detectors averaged")
    parser.add_argument("--test-topics", default="36,37,38,39,40,41,42,43,44,45")
    args = parser.parse_args()
    from harmonize import read
    from harmonize.converters.ecbplus import DEV_TOPICS
    from harmonize.errors import Report
    from harmonize.resolvers.cross_document_validation import validate_cross_document
    from harmonize.resolvers.protocol import select_topics
    from harmonize.schemas.model import Corpus

    release = args.data / "ecbplus" / "ECB+"
    if not release.is_dir():
        sys.exit(f"benchmark data not found: {release} (set HARMONIZE_SHARED_DATA or --data)")
    started = time.perf_counter()
    corpus = read(release, "ecbplus", report=Report(), sentences="validated-text")
    test, rest = select_topics(corpus, args.test_topics)
    train = Corpus(documents=[d for d in rest.documents if d.topic not in DEV_TOPICS])
    dev = Corpus(documents=[d for d in rest.documents if d.topic in DEV_TOPICS])
    print(f"read {len(corpus.documents)} documents in {time.perf_counter() - started:.1f} s: train "
          f"{len(train.documents)} documents, {sum(len(d.mentions) for d in train.documents)} mentions; dev "
          f"{len(dev.documents)} documents, {sum(len(d.mentions) for d in dev.documents)} mentions", flush=True)
    result = validate_cross_document(train, dev, args.scope, args.encoder, args.epochs, args.seed, device=args.device,
                                     singletons=args.singletons, log=lambda line: print(line, flush=True),
                                     model_dir=args.model, test=test if test.documents else None,
                                     folds=args.folds, members=args.members)
    print(f"\n{result.protocol}")
    print(f"per {args.scope}; coreference metrics {'with' if args.singletons else 'without'} singletons; "
          f"encoder {args.encoder} on {args.device}; {args.members} pair scorers and detectors averaged")
    print(result.table())
    print(f"training (encoding, pair scorers and detectors, choosing the thresholds): "
          f"{result.train_seconds:.1f} s")
    for (mentions, system), seconds in result.predict_seconds.items():
        what = "encoding included" if system == "model" else "clustering only"
        print(f"{system} on dev, {mentions} mentions ({what}): {seconds:.2f} s, {result.dev_words / seconds:,.0f} "
              f"words/s, {result.dev_mentions / seconds:,.0f} mentions/s")
    for mentions in ("gold", "predicted"):
        ratio = result.predict_seconds[(mentions, "model")] / result.predict_seconds[(mentions, "lemma baseline")]
        print(f"model / lemma baseline time, {mentions} mentions: {ratio:.1f}x")
    print(f"peak memory {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
