"""Prove a conversion end to end: read (and convert) train and dev, train the neural resolver on train (the epoch
it keeps chosen on training documents held out for it: `harmonize.resolvers.protocol`), resolve dev (and test) with
it and with the baselines (the rule baseline; string match, on the gold mentions and on the resolver's), and score
them in CorefUD's primary setting (partial matching, singletons left out).
What ``harmonize validate`` runs."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harmonize.conversion import read_corpus
from harmonize.errors import HarmonizeError, Report
from harmonize.resolvers.features import WORD_POOLING
from harmonize.resolvers.model import ResolverConfig
from harmonize.resolvers.neural import Epoch, Training, dev_scores, fresh_copy, load, resolve, train
from harmonize.resolvers.protocol import hold_out
from harmonize.resolvers.rules import document_lexicon, resolve_rules, untagged
from harmonize.resolvers.string_match import resolve_string_match
from harmonize.schemas.model import Corpus

COLUMNS = (("muc", "MUC"), ("bcub", "B3"), ("ceafe", "CEAF-e"), ("lea", "LEA"), ("conll", "CoNLL"),
           ("mentions", "mentions"))


ROW_ORDER = RULES, STRING_GOLD, STRING_PREDICTED, RESOLVER = (
    "rule baseline", "string match, gold mentions", "string match, resolver's mentions", "resolver")


@dataclass
class Validation:
    """F1 per metric (percent) on dev (and test, rows "test: ...") of the baselines and the resolver: the rule
    baseline, string match on the gold mentions and on the resolver's own (`harmonize.resolvers.string_match`),
    the resolver; ``reasons``: rows that have no figures, and why (printed in their place); ``notes``: how a row was
    made where the usual way could not be taken (printed under the table); the training history
    (scores on the held-out part) and the protocol line."""

    rows: dict[str, dict[str, float]]
    history: list[Epoch]
    train_documents: int
    dev_documents: int
    protocol: str = ""
    reasons: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def table(self) -> str:
        width = max(map(len, [*self.rows, *self.reasons])) + 2
        lines = [f"{'':<{width}}" + "".join(f"{title:>9}" for _, title in COLUMNS)]
        names = [*self.rows, *(r for r in self.reasons if r not in self.rows)]

        def place(name: str) -> tuple[int, int]:  # dev before test; baselines first, in ROW_ORDER
            split, _, row = name.rpartition(": ") if name.startswith("test: ") else ("", "", name)
            return (bool(split), ROW_ORDER.index(row) if row in ROW_ORDER else len(ROW_ORDER))

        for name in sorted(names, key=place):
            if name in self.reasons:
                lines.append(f"{name:<{width}}   n/a: {self.reasons[name]}")
            else:
                lines.append(f"{name:<{width}}" + "".join(f"{self.rows[name][key]:>9.2f}" for key, _ in COLUMNS))
        if self.notes:  # under a blank line: they are sentences, not rows
            lines += ["", *(f"{name}: {note}" for name, note in sorted(self.notes.items(),
                                                                    key=lambda item: place(item[0])))]
        return "\n".join(lines)


def rule_baseline_reason(corpus: Corpus) -> str | None:
    """Why the rule baseline has nothing to say on ``corpus``, or None: it finds mentions and pronouns from UPOS
    and the tree, or, where there are no tags, pronouns among the gold mentions by a lexicon of their language."""
    if all(untagged(document) for document in corpus.documents):
        lexicons = [document_lexicon(document) for document in corpus.documents]
        if lexicons and all(lexicon is None for lexicon, _ in lexicons):
            missing = sorted({why.partition("no pronoun lexicon for ")[2].partition(":")[0] for _, why in lexicons})
            return (f"no part-of-speech tags to find mentions and pronouns by, and no pronoun lexicon for "
                    f"{'; '.join(missing)} (convert --parse gives tags)")
        return None
    if not any(node.upos == "PRON" for document in corpus.documents for node in document.nodes()):
        return "no word tagged PRON: no pronoun to link"
    return None


def rule_baseline_note(report: Report) -> str:
    """How the rule baseline read an untagged corpus, from the choices ``resolve_rules`` reported: "on the gold
    mentions, pronouns by the Russian lexicon"."""
    found = {reason.partition("found by the ")[2]: count for reason, count in sorted(report.counts.items())
             if "found by the " in reason}
    lexicons = [lexicon.replace(" (the language guessed from its words)", ", the language guessed from the words")
                + (f" ({count} document{'s' if count > 1 else ''})" if len(report.counts) > 1 else "")
                for lexicon, count in found.items()]
    return (f"no part-of-speech tags: on the gold mentions, pronouns by the {'; '.join(lexicons)} (convert --parse "
            "gives tags, and mentions from the trees)")


def baseline_rows(gold: Corpus, predicted: Corpus | None, prefix: str = "") -> tuple[
        dict[str, dict[str, float]], dict[str, str], dict[str, str]]:
    """The baselines' rows on ``gold`` (and string match on the mentions of ``predicted``, the resolver's output,
    where given), the reasons of those without figures and notes on how a row was made where the usual way could
    not be taken (the rule baseline on an untagged corpus)."""
    rows: dict[str, dict[str, float]] = {}
    reasons: dict[str, str] = {}
    notes: dict[str, str] = {}
    reason = rule_baseline_reason(gold)
    if reason is None:
        baseline = fresh_copy(gold)
        if all(untagged(document) for document in gold.documents):
            lexicons = Report()
            resolve_rules(baseline, gold_mentions=True, report=lexicons)
            notes[prefix + RULES] = rule_baseline_note(lexicons.section("choices"))
        else:
            resolve_rules(baseline, report=Report())
        rows[prefix + RULES] = dev_scores(gold, baseline)
    else:
        reasons[prefix + RULES] = reason
    matched = fresh_copy(gold)
    resolve_string_match(matched, Report())
    rows[prefix + STRING_GOLD] = dev_scores(gold, matched)
    if predicted is not None:
        if any(document.mentions for document in predicted.documents):
            again = fresh_copy(predicted)
            resolve_string_match(again, Report())
            rows[prefix + STRING_PREDICTED] = dev_scores(gold, again)
        else:
            reasons[prefix + STRING_PREDICTED] = "the resolver found no mention"
    return rows, reasons, notes


def below_string_match(rows: dict[str, dict[str, float]], prefix: str, epochs: float, documents: int) -> str | None:
    """What the table says under it where the resolver's CoNLL is not above string match's on the resolver's own
    mentions (the floor its linking must beat), else None."""
    if prefix + STRING_PREDICTED not in rows:
        return None
    resolver = rows[prefix + RESOLVER]
    margin = resolver["conll"] - rows[prefix + STRING_PREDICTED]["conll"]
    if margin > 0:
        return None
    return (f"not above string match on its own mentions ({margin:+.2f} CoNLL; its mention F1 "
            f"{resolver['mentions']:.2f}), after {epochs:.2g} epochs on {documents} training documents")


def trained_epochs(history: list[Epoch]) -> float:
    """How many passes over the training documents ``history`` made (the last one cut short by a budget counted
    in part)."""
    return sum(epoch.share for epoch in history)


def check_settings(rules: str | None, config: ResolverConfig | None, training: Training | None) -> None:
    """Rules, encoder and device that cannot be had fail here, before any input is read."""
    from harmonize.resolvers.encoders import load_tokenizer, pick_device
    from harmonize.rules import rule_list

    if rules is not None:
        rule_list(rules)
    config = config or ResolverConfig()
    if config.word_pooling not in WORD_POOLING:
        raise HarmonizeError(f"unknown word pooling {config.word_pooling!r}: one of {', '.join(WORD_POOLING)}")
    load_tokenizer(config.encoder)
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
    reasons: dict[str, str] = {}
    notes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="harmonize-model-") as scratch:
        folder = Path(model_dir) if model_dir is not None else Path(scratch)
        history = train(split.fit, split.tuning, folder, config, training, report=report, progress=progress,
                        log=log)
        model, tokenizer, device = load(folder, training.device if training else "auto")
        for name, corpus in reported.items():
            prefix = "" if name == "dev" else f"{name}: "
            predicted = fresh_copy(corpus)
            resolve(model, tokenizer, predicted, device, Report())
            baselines, why, how = baseline_rows(corpus, predicted, prefix)
            if prefix + STRING_PREDICTED in why:
                why[prefix + STRING_PREDICTED] += f" (after {trained_epochs(history):.2g} epochs of training)"
            rows.update(baselines)
            reasons.update(why)
            notes.update(how)
            rows[prefix + RESOLVER] = dev_scores(corpus, predicted)
            shortfall = below_string_match(rows, prefix, trained_epochs(history), len(split.fit.documents))
            if shortfall:
                notes[prefix + RESOLVER] = shortfall
    protocol = split.describe("the epoch kept", list(reported))
    return Validation(rows, history, len(train_corpus.documents), len(reported["dev"].documents), protocol, reasons,
                      notes)
