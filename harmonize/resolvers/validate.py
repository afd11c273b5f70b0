"""Prove a conversion end to end: read (and convert) train and dev, train the neural resolver on train (the epoch
it keeps chosen on training documents held out for it: `harmonize.resolvers.protocol`), resolve dev (and test) with
it and with the rule baseline, and score both in CorefUD's primary setting (partial matching, singletons left out).
What ``harmonize validate`` runs."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harmonize.conversion import read_corpus
from harmonize.errors import Report
from harmonize.resolvers.model import ResolverConfig
from harmonize.resolvers.neural import Epoch, Training, dev_scores, fresh_copy, load, resolve, train
from harmonize.resolvers.protocol import hold_out
from harmonize.resolvers.rules import resolve_rules

COLUMNS = (("muc", "MUC"), ("bcub", "B3"), ("ceafe", "CEAF-e"), ("lea", "LEA"), ("conll", "CoNLL"),
           ("mentions", "mentions"))


@dataclass
class Validation:
    """F1 per metric (percent) for the rule baseline and the resolver on dev (rows "rule baseline", "resolver")
    and test (rows "test: ..."), the training history (scores on the held-out part) and the protocol line."""

    rows: dict[str, dict[str, float]]
    history: list[Epoch]
    train_documents: int
    dev_documents: int
    protocol: str = ""

    def table(self) -> str:
        width = max(map(len, self.rows)) + 2
        lines = [f"{'':<{width}}" + "".join(f"{title:>9}" for _, title in COLUMNS)]
        for name, scores in self.rows.items():
            lines.append(f"{name:<{width}}" + "".join(f"{scores[key]:>9.2f}" for key, _ in COLUMNS))
        return "\n".join(lines)


def check_settings(rules: str | None, config: ResolverConfig | None, training: Training | None) -> None:
    """Rules, encoder and device that cannot be had fail here, before any input is read."""
    from harmonize.resolvers.encoders import load_tokenizer, pick_device
    from harmonize.rules import rule_list

    if rules is not None:
        rule_list(rules)
    load_tokenizer((config or ResolverConfig()).encoder)
    pick_device(training.device if training is not None else "auto")


def validate(train_inputs: Sequence[str | Path], dev_inputs: Sequence[str | Path], source: str = "corefud", *,
             rules: str | None = None, read_options: Mapping[str, str] | None = None, lenient: bool = False,
             config: ResolverConfig | None = None, training: Training | None = None,
             model_dir: str | Path | None = None, report: Report | None = None, progress: bool = True,
             log: Callable[[str], None] | None = None,
             test_inputs: Sequence[str | Path] | None = None) -> Validation:
    """Read the sides (``rules`` applied, as ``convert --rules`` would), train (into ``model_dir``, else a
    temporary folder) on train less its held-out part, keep the epoch best there, and score the rule baseline and
    the kept epoch on dev, and on test where given."""
    report = report if report is not None else Report()
    check_settings(rules, config, training)
    train_corpus = read_corpus(train_inputs, source, lenient, report, read_options, rules)
    reported = {"dev": read_corpus(dev_inputs, source, lenient, report, read_options, rules)}
    if test_inputs:
        reported["test"] = read_corpus(test_inputs, source, lenient, report, read_options, rules)
    split = hold_out(train_corpus)
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="harmonize-model-") as scratch:
        folder = Path(model_dir) if model_dir is not None else Path(scratch)
        history = train(split.fit, split.tuning, folder, config, training, report=report, progress=progress,
                        log=log)
        model, tokenizer, device = load(folder, training.device if training else "auto")
        for name, corpus in reported.items():
            prefix = "" if name == "dev" else f"{name}: "
            baseline, predicted = fresh_copy(corpus), fresh_copy(corpus)
            resolve_rules(baseline, report=Report())
            resolve(model, tokenizer, predicted, device, Report())
            rows[f"{prefix}rule baseline"] = dev_scores(corpus, baseline)
            rows[f"{prefix}resolver"] = dev_scores(corpus, predicted)
    protocol = split.describe("the epoch kept", list(reported))
    return Validation(rows, history, len(train_corpus.documents), len(reported["dev"].documents), protocol)
