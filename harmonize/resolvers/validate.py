"""Prove a conversion end to end: read (and convert) train and dev, train the neural resolver on train, resolve dev
with it and with the rule baseline, and score both against dev with the scorer in CorefUD's primary setting
(partial matching, singletons left out). What ``harmonize validate`` runs."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harmonize.errors import Report
from harmonize.resolvers import read_corpus
from harmonize.resolvers.model import ResolverConfig
from harmonize.resolvers.neural import Epoch, Training, dev_scores, fresh_copy, load, resolve, train
from harmonize.resolvers.rules import resolve_rules

COLUMNS = (("muc", "MUC"), ("bcub", "B3"), ("ceafe", "CEAF-e"), ("lea", "LEA"), ("conll", "CoNLL"),
           ("mentions", "mentions"))


@dataclass
class Validation:
    """F1 per metric (percent) for the rule baseline and the resolver on dev, and the training history."""

    rows: dict[str, dict[str, float]]
    history: list[Epoch]
    train_documents: int
    dev_documents: int

    def table(self) -> str:
        width = max(map(len, self.rows)) + 2
        lines = [f"{'':<{width}}" + "".join(f"{title:>9}" for _, title in COLUMNS)]
        for name, scores in self.rows.items():
            lines.append(f"{name:<{width}}" + "".join(f"{scores[key]:>9.2f}" for key, _ in COLUMNS))
        return "\n".join(lines)


def validate(train_inputs: Sequence[str | Path], dev_inputs: Sequence[str | Path], source: str = "corefud", *,
             rules: str | None = None, read_options: Mapping[str, str] | None = None, lenient: bool = False,
             config: ResolverConfig | None = None, training: Training | None = None,
             model_dir: str | Path | None = None, report: Report | None = None, progress: bool = True,
             log: Callable[[str], None] | None = None) -> Validation:
    """Read both sides (``rules`` applied, as ``convert --rules`` would), train (into ``model_dir``, else a
    temporary folder), and score the rule baseline and the best epoch on dev."""
    report = report if report is not None else Report()
    train_corpus = read_corpus(train_inputs, source, lenient, report, read_options, rules)
    dev_corpus = read_corpus(dev_inputs, source, lenient, report, read_options, rules)
    with tempfile.TemporaryDirectory(prefix="harmonize-model-") as scratch:
        folder = Path(model_dir) if model_dir is not None else Path(scratch)
        history = train(train_corpus, dev_corpus, folder, config, training, report=report, progress=progress,
                        log=log)
        model, tokenizer, device = load(folder, training.device if training else "auto")
        predicted = fresh_copy(dev_corpus)
        resolve(model, tokenizer, predicted, device, Report())
    baseline = fresh_copy(dev_corpus)
    resolve_rules(baseline, report=Report())
    rows = {"rule baseline": dev_scores(dev_corpus, baseline), "resolver": dev_scores(dev_corpus, predicted)}
    return Validation(rows, history, len(train_corpus.documents), len(dev_corpus.documents))
