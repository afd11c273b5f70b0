"""Train, save, load and run the neural resolver (`harmonize.resolvers.model`).

A model folder holds ``model.safetensors`` (the best epoch's weights, encoder included), ``config.json`` (the
resolver's settings), ``encoder/`` (the encoder's config and tokenizer: loading needs nothing else) and
``training.json`` (loss and dev scores per epoch). While training, ``checkpoint/`` holds the last finished epoch's
weights, optimizer and schedule, so that ``resume=True`` continues from there; it is removed when training ends.

The same code runs on CPU and CUDA; on CUDA the encoder runs under bfloat16 autocast (the scorers in float32).
"""

from __future__ import annotations

import ctypes
import functools
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from harmonize.errors import HarmonizeError, Report
from harmonize.resolvers.documents import add_clusters, without_coreference
from harmonize.resolvers.encoders import load_encoder, pick_device, set_attention_dropout
from harmonize.resolvers.features import DocumentFeatures, document_features
from harmonize.resolvers.model import Resolver, ResolverConfig
from harmonize.schemas.model import Corpus

CONFIG, WEIGHTS, ENCODER, HISTORY, CHECKPOINT = "config.json", "model.safetensors", "encoder", "training.json", \
    "checkpoint"
# A model trained on trees finds mentions by them: on GUM's 27 held-out train documents, CoNLL 54.30 with their
# trees and 50.32 without (the mean of three seeds); on one dev document, 59.68 and 36.91.
TREELESS_DOCUMENT = ("documents without a dependency tree: resolved without the syntax the model learnt, less "
                     "well (--parse gives them one)")


@dataclass
class Training:
    """How to train: epochs, learning rates (the encoder's is smaller: it starts pretrained), seed, device, and an
    optional time budget. With a budget, the learning rate's schedule is fitted to it where the epochs asked for
    would not all fit (`schedule_end`): from the pace of the first documents (5% of the first epoch, counted in
    words; again at every 5% of it), then after each epoch (scoring the tuning split included), the rate reaches
    zero at the end of the last whole epoch the budget holds where it would leave less than a quarter of an epoch
    unspent, else where it runs out; the warm-up is its share of the steps so fitted, not of the epochs asked for
    (50 epochs asked for within 3 minutes would otherwise warm up for 5 and never reach the full rate). Training
    stops there; the epoch in progress is scored and may be the best. (On GUM, 5 epochs on a GPU: tuning CoNLL 53.86
    with the rate decayed over them, 51.29 after 5 epochs of a schedule over 8.)"""

    epochs: int = 10
    # Chosen on GUM's held-out train documents (mean CoNLL over seeds). The encoder's (8 epochs, 3 seeds against
    # 4): 1.5e-4 scored 54.30, 8e-5 53.04; later (4 seeds, 5 epochs) 3e-4 57.88 against 57.95. The heads' (4 seeds,
    # 5 epochs, the schedule fitted to a budget): 1e-3 57.95 and 2e-3 58.76 in one run; 2e-3, 3e-3, 4e-3 and 6e-3
    # 58.22, 58.46, 58.59 and 58.83 in another, mention F1 rising with it (82.7 to 84.7).
    encoder_rate: float = 1.5e-4
    head_rate: float = 6e-3
    warmup: float = 0.1  # fraction of the steps with a rising learning rate
    seed: int = 42
    device: str = "auto"
    max_minutes: float | None = None
    # Recompute the encoder's layers in the backward pass instead of keeping their activations: training on GUM
    # (MiniLM, a CPU, the attention dropout at 0) peaks at 1.9 GB instead of 2.9 on its longest document (14
    # windows), for a step 15% longer there (6% on a document of 4 windows).
    low_memory: bool = True
    # The encoder's attention dropout while training (None: the encoder's own, 0.1 for MiniLM). At 0, PyTorch's
    # fused attention runs (`set_attention_dropout`): on a CPU a step takes about half the time.
    attention_dropout: float | None = 0.0


@dataclass
class Epoch:
    epoch: int
    loss: float
    seconds: float
    dev: dict[str, float] = field(default_factory=dict)  # F1 per metric, CoNLL, mention F1
    share: float = 1.0  # the share of the training documents it went through (less where the time budget ran out)

    @property
    def conll(self) -> float:
        return self.dev.get("conll", float("-inf"))


def best_epoch(history: list[Epoch]) -> Epoch:
    """The epoch to keep: the best tuning CoNLL; on a tie the better mention F1, then the later epoch (a model
    that scores 0 everywhere, under-trained, keeps its most trained weights, not its first); the last one where
    nothing was scored."""
    return max(history, key=lambda e: (e.conll, e.dev.get("mentions", float("-inf")), e.epoch))


def train(train_corpus: Corpus, dev_corpus: Corpus | None, output: str | Path, config: ResolverConfig | None = None,
          training: Training | None = None, resume: bool = False, report: Report | None = None,
          progress: bool = True, log: Callable[[str], None] | None = None) -> list[Epoch]:
    """Train on ``train_corpus`` (its gold coreference), score each epoch on ``dev_corpus`` (CorefUD's primary
    setting: partial matching, no singletons) and keep the best epoch in ``output`` (the last one without dev).
    Returns the history. ``report`` counts the gold mentions the model cannot learn, per reason."""
    config = config or ResolverConfig()
    training = training or Training()
    report = report if report is not None else Report()
    log = log or (lambda line: print(line, file=sys.stderr))
    output = Path(output)
    checkpoint = output / CHECKPOINT
    if checkpoint.exists() and not resume:
        raise HarmonizeError(f"{output}: an unfinished training is there (checkpoint/): resume it, or train into "
                             "another folder")
    if resume and not checkpoint.exists():
        raise HarmonizeError(f"{output}: nothing to resume (no checkpoint/)")
    documents = [d for d in train_corpus.documents if d.entities]
    if not documents:
        raise HarmonizeError("the training data has no coreference to learn from")
    device = pick_device(training.device)
    torch.manual_seed(training.seed)
    if resume:
        model, tokenizer = _load_model(output, device, checkpoint / WEIGHTS)
        config = model.config
    else:
        encoder, tokenizer = load_encoder(config.encoder)
        limit = encoder_window(encoder, tokenizer)
        if config.window > limit:
            log(f"the encoder reads at most {limit} subwords at once: windows of {limit}, not {config.window}")
            config = replace(config, window=limit, context=min(config.context, limit // 4))
        model = Resolver(encoder, config).to(device)
    if training.low_memory:
        _recompute_encoder_layers(model.encoder)
    if training.attention_dropout is not None and not set_attention_dropout(model.encoder,
                                                                            training.attention_dropout):
        log("the encoder has no self-attention layer whose dropout could be set: it keeps its own")
    features = []
    for document in documents:
        features.append(document_features(document, tokenizer, config.window, config.context, config.max_width,
                                          gold=True))
        for reason, count in features[-1].left_out.items():
            report.add(f"training: {reason}", str(document.id), count)
    if not resume:
        mentions, candidates = sum(len(f.gold_spans) for f in features), sum(len(f.candidates) for f in features)
        model.start_detection_at(mentions / max(1, candidates))
    steps = training.epochs * len(features)
    encoder_parameters = list(model.encoder.parameters())
    encoder_ids = set(map(id, encoder_parameters))
    optimizer = torch.optim.AdamW([
        {"params": encoder_parameters, "lr": training.encoder_rate},
        {"params": [p for p in model.parameters() if id(p) not in encoder_ids], "lr": training.head_rate},
    ])
    decay_end = [steps]  # the step at which the rate reaches zero: fitted to a time budget (`schedule_end`)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: rate_factor(step, decay_end[0],
                                                                                     training.warmup))
    history: list[Epoch] = []
    first_epoch = 1
    if resume:
        state = torch.load(checkpoint / "state.pt", weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        history = [Epoch(**e) for e in state["history"]]
        first_epoch = history[-1].epoch + 1 if history else 1
        decay_end[0] = state.get("decay_end", steps)
        torch.set_rng_state(state["rng"])
    else:
        output.mkdir(parents=True, exist_ok=True)
        _save_description(model, tokenizer, output)
    started, first_step = time.monotonic(), schedule.last_epoch
    words = [len(f.nodes) for f in features]
    # Scoring the tuning split after each epoch: its share of the words, read forward only (about a third of a step).
    scoring_share = (sum(len(s.nodes) for d in dev_corpus.documents for s in d.sentences) / max(1, sum(words)) / 3
                     if dev_corpus is not None else 0.0)
    budget = None if training.max_minutes is None else 60 * training.max_minutes
    out_of_time = False
    for epoch in range(first_epoch, training.epochs + 1):
        model.train()
        order = list(range(len(features)))
        random.Random(training.seed * 1000 + epoch).shuffle(order)
        epoch_started, totals, done, words_done = time.monotonic(), Counter(), 0, 0
        bar = _progress(progress, len(order), f"epoch {epoch}/{training.epochs}")
        for index in order:
            loss, parts = model.loss(features[index], device)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            _return_freed_memory()
            totals.update(parts)
            done += 1
            words_done += words[index]
            pace_point = max(1, len(order) // 20)
            if budget is not None and epoch == first_epoch and done % pace_point == 0 \
                    and len(order) >= PACE_DOCUMENTS:
                # Fitted and said at once, not after the first epoch (which may not end within a short budget);
                # fitted again every 5% of it, at the pace of more documents (the first steps are the slowest).
                epoch_seconds = (time.monotonic() - epoch_started) * sum(words) / words_done * (1 + scoring_share)
                left = max(0.0, budget - (time.monotonic() - started))
                decay_end[0] = schedule_end(left, schedule.last_epoch, epoch_seconds / len(order), len(order), steps)
                if done == pace_point:
                    log(f"at this pace an epoch takes about {epoch_seconds:.0f} s: the budget of {budget / 60:g} "
                        f"minutes holds about {left / epoch_seconds + done / len(order):.1f} epochs"
                        + _schedule_said(decay_end[0], len(order), steps))
            if bar is not None:
                bar.set_postfix({name: f"{value / done:.3f}" for name, value in totals.items()})
                bar.update(1)
            schedule_spent = decay_end[0] < steps and schedule.last_epoch >= decay_end[0]
            if budget is not None and (schedule_spent or time.monotonic() - started > budget):
                out_of_time = True
                break
        if bar is not None:
            bar.close()
        record = Epoch(epoch, sum(totals.values()) / max(done, 1), time.monotonic() - epoch_started,
                       share=round(done / len(order), 4))
        if dev_corpus is not None:
            record.dev = evaluate(model, tokenizer, dev_corpus, device)
        history.append(record)
        best = best_epoch(history)
        if best is record:
            _save_weights(model, output / WEIGHTS)
        log(f"epoch {epoch}: loss {record.loss:.3f}, {record.seconds:.0f} s"
            + (f", tuning CoNLL {record.conll:.2f}, mentions F1 {record.dev['mentions']:.2f}" if record.dev else "")
            + (" (best)" if best is record else "") + (" (time budget reached)" if out_of_time else ""))
        _write_history(output, history, best)
        if out_of_time or epoch == training.epochs:
            break
        if budget is not None:
            elapsed = time.monotonic() - started
            fitted = schedule_end(budget - elapsed, schedule.last_epoch,
                                  elapsed / max(1, schedule.last_epoch - first_step), len(features), steps)
            if fitted <= schedule.last_epoch:
                log("the time budget holds no further epoch")
                break
            said = _schedule_said(fitted, len(features), steps)
            if said and abs(fitted - decay_end[0]) >= max(1, len(features) // 4):  # not every small drift
                log(f"at the pace so far{said}")
            decay_end[0] = fitted
        checkpoint.mkdir(exist_ok=True)
        _save_weights(model, checkpoint / WEIGHTS)
        torch.save({"optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(),
                    "history": [e.__dict__ for e in history], "rng": torch.get_rng_state(),
                    "decay_end": decay_end[0]}, checkpoint / "state.pt")
    if checkpoint.exists():
        for path in checkpoint.iterdir():
            path.unlink()
        checkpoint.rmdir()
    return history


def encoder_window(encoder, tokenizer) -> int:
    """The most subwords, special tokens included, that ``encoder`` reads at once: its tokenizer's limit and its
    position table's, whichever is smaller (a tokenizer without a limit says about 10^30; RoBERTa's table holds two
    more rows than it reads)."""
    limits = [tokenizer.model_max_length] if tokenizer.model_max_length < 1_000_000 else []
    positions = getattr(encoder.config, "max_position_embeddings", None)
    if positions:
        limits.append(positions)
    return min(limits, default=512)


def rate_factor(step: int, end: int, warmup: float) -> float:
    """The share of the full learning rate at ``step``: rising over the first ``warmup`` share of the ``end`` steps,
    then falling linearly to zero at ``end``."""
    rising = max(1, int(warmup * end))
    return min((step + 1) / rising, max(0.0, (end - step) / max(1, end - rising)))


EPOCH_SLACK = 0.25  # of an epoch: what a budget may leave unspent to end with a whole epoch


def schedule_end(left: float, step: int, seconds_per_step: float, epoch_steps: int, planned: int) -> int:
    """The step at which the learning rate should reach zero, ``left`` seconds before the budget runs out, at step
    ``step``, at ``seconds_per_step``: the end of the last whole epoch (of ``epoch_steps``) that the time reaches,
    where one lies ahead and what the budget holds beyond it is less than `EPOCH_SLACK` of an epoch; else the step
    where the time runs out (the budget is spent on learning: holding 1.4 epochs, it trains 1.4, not 1). Never before
    ``step``, never after ``planned``."""
    if seconds_per_step <= 0:
        return planned
    reached = step + int(max(0.0, left) / seconds_per_step)
    whole = reached // epoch_steps * epoch_steps
    close = reached - whole < EPOCH_SLACK * epoch_steps
    return max(step, min(planned, whole if whole > step and close else reached))


def _schedule_said(end: int, epoch_steps: int, planned: int) -> str:
    """Where the learning rate now reaches zero, as the training log says it; nothing where the schedule is the one
    asked for."""
    if end >= planned:
        return ""
    if end % epoch_steps == 0:
        return f": the learning rate reaches zero at the end of epoch {end // epoch_steps}"
    return f": the learning rate reaches zero {end / epoch_steps:.2f} epochs in"


@functools.cache
def _malloc_trim():
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to do
        return None


def _return_freed_memory() -> None:
    """Give the memory a training step freed back to the system (glibc). A step's tensors change size with every
    document, and glibc keeps what they free in a heap that fragments: on GUM, a process held 1.6 GB between steps
    after 5 of them, 2.3 GB after 45, and peaked at 4.1 GB over 8 epochs; trimmed after each step, it held 1.0 GB."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _recompute_encoder_layers(encoder) -> None:
    """Activation checkpointing of a Hugging Face encoder (its method's name changed in transformers 5)."""
    kwargs = {"use_reentrant": False}
    if hasattr(encoder, "activation_checkpointing_enable"):
        encoder.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
    else:
        encoder.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
    if getattr(encoder.config, "use_cache", None):
        encoder.config.use_cache = False  # no cache to keep between steps: an encoder


def _progress(enabled: bool, total: int, description: str):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit="doc", file=sys.stderr, leave=False)


METRICS = ("muc", "bcub", "ceafe", "lea", "mentions")
PACE_DOCUMENTS = 20  # an epoch of this many documents or more says early how many epochs the budget holds


def dev_scores(gold: Corpus, response: Corpus) -> dict[str, float]:
    """F1 in percent of MUC, B3, CEAF-e, LEA, mentions and CoNLL of ``response`` against ``gold``, in CorefUD's
    primary setting (partial matching, singletons left out)."""
    from harmonize.scoring.score import score_corpora

    result = score_corpora(gold, response, list(METRICS), mode="partial")
    scores = {name: 100 * score.f1 for name, score in result.metrics.items()}
    scores["conll"] = 100 * (result.conll or 0.0)
    return scores


def evaluate(model: Resolver, tokenizer, gold: Corpus, device: torch.device) -> dict[str, float]:
    """`dev_scores` of ``model`` on a fresh copy of ``gold``."""
    response = fresh_copy(gold)
    resolve(model, tokenizer, response, device)
    return dev_scores(gold, response)


def fresh_copy(corpus: Corpus) -> Corpus:
    """A copy sharing nothing with ``corpus``, through the CorefUD writer and reader (the model's parent pointers
    defeat copy.deepcopy). The writer gives every mention a head (its first word where none is annotated); a
    mention with none in ``corpus`` gets none in the copy, so that what falls back on the tree or the last word
    (the lemma baseline, the cross-document model's lemmas) reads the copy as it reads the original: ECB+'s
    mentions have no head, and a copy headed by first words clustered "Academy" where the original has "ceremony"."""
    from harmonize.converters.corefud import read_corefud, write_corefud

    with tempfile.TemporaryDirectory(prefix="harmonize-dev-") as folder:
        path = Path(folder) / "dev.conllu"
        write_corefud(corpus, path, Report())
        copy = read_corefud(path, report=Report())
    for original, copied in zip(corpus.documents, copy.documents):
        unknown = Counter(tuple(w.order for w in m.words) for m in original.mentions if m.head is None)
        for mention in copied.mentions if unknown else ():
            key = tuple(w.order for w in mention.words)
            if unknown[key]:
                unknown[key] -= 1
                copied.move_head(mention, None)
    return copy


def resolve(model: Resolver, tokenizer, corpus: Corpus, device: torch.device, report: Report | None = None) -> Counter:
    """Drop the coreference of every document of ``corpus`` (counted in ``report``) and add the entities ``model``
    finds; returns counts of documents, words, mentions and entities. A document without a dependency tree is
    resolved without the model's syntax features (counted in ``report``: parse it first for the model's best)."""
    report = report if report is not None else Report()
    without_coreference(corpus, report)
    model.eval()
    counts: Counter = Counter()
    config = model.config
    for document in corpus.documents:
        features = document_features(document, tokenizer, config.window, config.context, config.max_width, False)
        if features.parents is None:
            report.add(TREELESS_DOCUMENT, str(document.id))
        spans, antecedents = model.predict(features, device)
        add_clusters(document, _clusters(features, spans, antecedents))
        counts["documents"] += 1
        counts["words"] += sum(len(s.words) for s in document.sentences)
        counts["mentions"] += len(spans)
        counts["entities"] += len(document.entities)
    return counts


def _clusters(features: DocumentFeatures, spans: list[tuple[int, int]], antecedents: list[int]):
    cluster_of: list[int] = []
    clusters: list[list[list]] = []
    for (first, last), antecedent in zip(spans, antecedents):
        if antecedent < 0:
            cluster_of.append(len(clusters))
            clusters.append([])
        else:
            cluster_of.append(cluster_of[antecedent])
        clusters[cluster_of[-1]].append(features.nodes[first:last + 1])
    return clusters


def load(model_dir: str | Path, device: str = "auto") -> tuple[Resolver, object, torch.device]:
    """(model, tokenizer, device) from a folder `train` wrote."""
    folder = Path(model_dir)
    if not (folder / CONFIG).exists() or not (folder / WEIGHTS).exists():
        raise HarmonizeError(f"{folder}: not a trained resolver (no {CONFIG} and {WEIGHTS})")
    chosen = pick_device(device)
    model, tokenizer = _load_model(folder, chosen, folder / WEIGHTS)
    return model, tokenizer, chosen


def _load_model(folder: Path, device: torch.device, weights: Path):
    from safetensors.torch import load_model
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    try:
        description = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
        # A model saved before the sentence distance was a pair feature, or before words were pooled, has no such
        # setting: it was trained without them.
        config = ResolverConfig(**{"sentence_distance": False, "word_pooling": "first", **description["resolver"]})
    except (ValueError, KeyError, TypeError) as error:
        raise HarmonizeError(f"{folder / CONFIG}: not a resolver configuration ({error})") from error
    if not (folder / ENCODER).is_dir():
        raise HarmonizeError(f"{folder}: no {ENCODER}/ folder (the encoder's config and tokenizer)")
    try:
        encoder = AutoModel.from_config(AutoConfig.from_pretrained(folder / ENCODER))
        tokenizer = AutoTokenizer.from_pretrained(folder / ENCODER)
    except (OSError, ValueError) as error:
        raise HarmonizeError(f"{folder / ENCODER}: no encoder config and tokenizer ({error})") from error
    model = Resolver(encoder, config)
    try:
        missing, unexpected = load_model(model, str(weights), strict=False, device=str(device))
    except Exception as error:  # safetensors' own error type, or torch's on mismatched tensors
        # torch's first line is only a header ("Error(s) in loading state_dict for Resolver:"): the next names the
        # tensor, e.g. "size mismatch for pair.0.weight: ...".
        lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [type(error).__name__]
        reason = lines[1] if len(lines) > 1 and lines[0].endswith(":") else lines[0]
        raise HarmonizeError(f"{weights}: weights that do not fit this resolver ({reason})") from error
    # A model saved before words had tag embeddings lacks them: zero, as they start, they give its own predictions.
    missing = [name for name in missing if not name.startswith("tags.")]
    if missing or unexpected:
        names = ", ".join([*(f"{n} missing" for n in missing[:3]), *(f"{n} unexpected" for n in unexpected[:3])])
        raise HarmonizeError(f"{weights}: weights that do not fit this resolver ({names})")
    return model.to(device), tokenizer


def _save_description(model: Resolver, tokenizer, output: Path) -> None:
    (output / CONFIG).write_text(json.dumps({"resolver": model.config.to_json()}, indent=2) + "\n", encoding="utf-8")
    model.encoder.config.save_pretrained(output / ENCODER)
    tokenizer.save_pretrained(output / ENCODER)


def _save_weights(model: Resolver, path: Path) -> None:
    from safetensors.torch import save_model

    partial = path.with_name(path.name + ".partial")
    save_model(model, str(partial))
    partial.replace(path)  # a crash while saving leaves the previous weights whole


def _write_history(output: Path, history: list[Epoch], best: Epoch) -> None:
    text = json.dumps({"best_epoch": best.epoch, "epochs": [e.__dict__ for e in history]}, indent=2)
    (output / HISTORY).write_text(text + "\n", encoding="utf-8")
