"""Cross-document resolution evaluated the paper's way (what ``harmonize validate --cross-document`` runs): train on
train, thresholds chosen by cross-validation over its topics (or on topics held out), then score on dev and test,
untouched, the same-lemma baseline and the model, on gold and on detected mentions, events and entities apart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harmonize.errors import HarmonizeError, Report
from harmonize.resolvers.cross_document import (
    KINDS,
    MEMBERS,
    MENTIONS,
    encode_documents,
    train_model,
    train_model_folds,
)
from harmonize.resolvers.lemma import EVENT, mention_kind, scope_key
from harmonize.resolvers.mention_detection import detect_mentions
from harmonize.resolvers.protocol import FOLDS, cross_validation_line, fold_count, hold_out
from harmonize.schemas.model import Corpus


def only_kind(corpus: Corpus, kind: str) -> Corpus:
    """A copy holding only the mentions of one kind."""
    from harmonize.resolvers.neural import fresh_copy

    copy = fresh_copy(corpus)
    for document in copy.documents:
        for mention in [m for m in document.mentions if mention_kind(m) != kind]:
            document.remove_mention(mention)
    return copy


def kind_scores(key: Corpus, response: Corpus, scope: str, kind: str, singletons: bool = False) -> dict[str, float]:
    """Cattan et al.'s figures for one kind: mention detection (exact, singletons included) and MUC, B3, CEAF-e, LEA,
    CoNLL across the documents of each scope (singletons left out unless ``singletons``), in percent."""
    from harmonize.scoring.score import score_corpora

    gold, predicted = only_kind(key, kind), only_kind(response, kind)
    detected = score_corpora(gold, predicted, ["mentions"], singletons=True, mode="exact")
    scores = score_corpora(gold, predicted, ["muc", "bcub", "ceafe", "lea"], singletons=singletons, mode="exact",
                           cross_document=scope)
    mentions = detected.metrics["mentions"]
    row = {"mention recall": 100 * mentions.recall, "mention precision": 100 * mentions.precision,
           "mention F1": 100 * mentions.f1}
    row.update({name: 100 * score.f1 for name, score in scores.metrics.items()})
    row["conll"] = 100 * (scores.conll or 0.0)
    return row


@dataclass
class Validation:
    """What `validate_cross_document` measured: figures per (split, mentions, system, kind) for dev (and test),
    the protocol (what was tuned on what), and timings."""

    rows: dict[tuple[str, str, str, str], dict[str, float]]
    scope: str
    singletons: bool
    protocol: str
    train_seconds: float
    # (mentions, system) -> seconds on dev: the model's with its encoding (and detection); the lemma baseline's
    # clustering alone (on detected mentions, the model's detection is not counted again)
    predict_seconds: dict[tuple[str, str], float]
    dev_mentions: int
    dev_words: int
    train_documents: int = 0
    dev_documents: int = 0

    def table(self) -> str:
        columns = ("mention recall", "mention precision", "mention F1", "muc", "bcub", "ceafe", "lea", "conll")
        titles = ("MD R", "MD P", "MD F1", "MUC", "B3", "CEAF-e", "LEA", "CoNLL")
        lines = [f"{'split / mentions / system / kind':<42}" + "".join(f"{t:>8}" for t in titles)]
        for (split, mentions, system, kind), row in self.rows.items():
            name = f"{split} / {mentions} / {system} / {'events' if kind == EVENT else 'entities'}"
            lines.append(f"{name:<42}" + "".join(f"{row[c]:>8.2f}" for c in columns))
        return "\n".join(lines) + "\n"


def validate_cross_document(train: Corpus, dev: Corpus, scope: str = "topic", encoder: str = "minilm",
                            epochs: int = 4, seed: int = 0, device: str = "cpu", singletons: bool = False,
                            log: Callable[[str], None] | None = None, model_dir: str | Path | None = None,
                            report: Report | None = None, test: Corpus | None = None, folds: int = FOLDS,
                            members: int = MEMBERS) -> Validation:
    """Train on ``train``, its thresholds chosen by ``folds``-fold cross-validation over its topics
    (`train_model_folds`; 0: on train topics held out, `harmonize.resolvers.protocol.hold_out`), then score on
    ``dev`` (and ``test``), untouched, the same-lemma baseline and the model, on gold mentions and on the detector's
    mentions (the lemma baseline clusters the same detected mentions); the model (of ``members`` pair scorers and
    detectors) is kept in ``model_dir`` where given."""
    import time

    from harmonize.resolvers.lemma import resolve_lemma
    from harmonize.resolvers.neural import fresh_copy

    reported = {"dev": dev, **({"test": test} if test is not None else {})}
    for corpus in (train, *reported.values()):
        for document in corpus.documents:
            scope_key(document, scope)  # a ScopeError names what the scope needs
    started = time.perf_counter()
    chosen = "the detection and clustering thresholds"
    if folds:
        folds = fold_count(train, folds)
        model = train_model_folds(train, folds, scope, encoder, epochs, seed, device, log, report, members=members)
        protocol = cross_validation_line(folds, train, chosen, list(reported))
    else:
        split = hold_out(train, "topic")
        encoded = (encode_documents(split.fit, encoder, device), encode_documents(split.tune, encoder, device))
        model = train_model(split.fit, split.tune, scope, encoder, epochs, seed, device, log, report, encoded,
                            members)
        protocol = split.describe(chosen, list(reported))
    train_seconds = time.perf_counter() - started
    if model_dir is not None:
        model.save(model_dir)
    rows: dict[tuple[str, str, str, str], dict[str, float]] = {}
    predict_seconds: dict[tuple[str, str], float] = {}
    for name, corpus in reported.items():
        words = encode_documents(corpus, encoder, device)
        for mentions in MENTIONS:
            predicted = fresh_copy(corpus)
            started = time.perf_counter()
            model.resolve(predicted, mentions == "gold", device, Report())  # timed with its encoding
            seconds = time.perf_counter() - started
            baseline = fresh_copy(corpus)
            if mentions == "predicted":
                detect_mentions(baseline, model.detectors, words, model.detection, overlap=model.detection_overlap)
            started = time.perf_counter()
            resolve_lemma(baseline, scope, gold_mentions=True, report=Report())
            if name == "dev":
                predict_seconds[(mentions, "model")] = seconds
                predict_seconds[(mentions, "lemma baseline")] = time.perf_counter() - started
            for system, response in (("lemma baseline", baseline), ("model", predicted)):
                for kind in KINDS:
                    rows[(name, mentions, system, kind)] = kind_scores(corpus, response, scope, kind, singletons)
    return Validation(rows, scope, singletons, protocol, train_seconds, predict_seconds,
                      sum(len(d.mentions) for d in dev.documents), sum(len(list(d.nodes())) for d in dev.documents),
                      len(train.documents), len(dev.documents))


def validate_cross_document_files(train: str | Path, dev: str | Path, source: str = "ecbplus", scope: str = "topic",
                                  dev_topics: str | None = None, test: str | Path | None = None,
                                  test_topics: str | None = None, read_options: dict[str, str] | None = None,
                                  lenient: bool = False, report: Report | None = None,
                                  log: Callable[[str], None] | None = None, **options) -> Validation:
    """`validate_cross_document` on files, as ``harmonize validate --cross-document`` runs it: ``train``, ``dev``
    and ``test`` read (one path given twice is read once), dev and test topics cut out of the corpus that holds
    them (``dev_topics``, ``test_topics``: comma-separated; what is cut leaves train). ``options`` go to
    `validate_cross_document`."""
    from harmonize.conversion import read_corpus
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training
    from harmonize.resolvers.protocol import select_topics
    from harmonize.resolvers.validate import check_settings

    check_settings(None, ResolverConfig(encoder=options.get("encoder", "minilm")),
                   Training(device=options.get("device", "auto")))
    report = report if report is not None else Report()
    train, dev = Path(train), Path(dev)
    test = Path(test) if test is not None else None
    train_corpus = read_corpus([train], source, lenient, report, read_options)
    dev_corpus = read_corpus([dev], source, lenient, report, read_options) if dev != train else None
    test_corpus = read_corpus([test], source, lenient, report, read_options) if test not in (None, train, dev) \
        else None
    if dev_topics:
        dev_corpus, rest = select_topics(dev_corpus or train_corpus, dev_topics)
        if dev == train:
            train_corpus = rest
    if test_topics:
        test_corpus, rest = select_topics(test_corpus or train_corpus, test_topics)
        if test in (None, train):
            train_corpus = rest
        if not test_corpus.documents:
            if log is not None:
                log(f"no documents of the test topics {test_topics}: no test split scored")
            test_corpus = None
    if dev_corpus is None or not dev_corpus.documents or not train_corpus.documents:
        raise HarmonizeError("train and dev need documents: give two inputs, or one and dev topics")
    return validate_cross_document(train_corpus, dev_corpus, scope, log=log, report=report, test=test_corpus,
                                   **options)
