"""PCR4ALL evaluation (section 3.3, 5.4-5.6): error rate overall and per perspective and source, WinoGender
consistency, and against a training set: candidate frequency buckets (MFC, LFC, zero-shot), BM25 relevance
buckets of equal size, and the polarity correlation (Spearman).

Predictions are matched to the gold questions by position (one line each, same order); a prediction's
``answer`` is 1 or 2. Every function is pure: questions in, figures out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from harmonize.errors import HarmonizeError
from harmonize.pcr.questions import PERSPECTIVES, Question

# English stop words left out of candidate frequencies and polarity (PCR4ALL: "excluding the stop words").
STOP_WORDS = frozenset(["a", "an", "the", "this", "that", "these", "those", "of", "in", "on", "at", "to", "for", "with", "by", "from", "and", "or", "but", "is", "are", "was", "were", "be", "been", "being", "it", "its", "his", "her", "their", "he", "she", "they", "them", "him", "we", "you", "i", "my", "your", "our", "as", "not", "no", "so", "than", "then", "there", "here", "who", "whom", "which", "what", "some", "any", "all", "each", "every", "both", "either", "neither", "one", "own", "same", "such", "very", "can", "will", "just"])
_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def content_tokens(text: str) -> list[str]:
    return [t for t in tokens(text) if t not in STOP_WORDS]


@dataclass
class Row:
    name: str
    questions: int
    errors: int

    @property
    def error_rate(self) -> float | None:
        return 100 * self.errors / self.questions if self.questions else None


@dataclass
class Evaluation:
    rows: list[Row] = field(default_factory=list)  # overall, perspectives, sources
    consistency: tuple[int, int] | None = None  # (consistent groups, groups) of WinoGender
    frequency: list[Row] = field(default_factory=list)
    relevance: list[Row] = field(default_factory=list)
    polarity: tuple[float, float] | None = None  # Spearman rho, two-tailed p
    unlabelled: int = 0


def _row(name: str, pairs: Sequence[tuple[Question, int]]) -> Row:
    return Row(name, len(pairs), sum(gold.answer != predicted for gold, predicted in pairs))


def paired_answers(gold: Sequence[Question], predicted: Sequence[Question], where: str = "predictions"
                   ) -> list[int]:
    """Each gold question's predicted answer, the prediction found by the question itself (sentence, pronoun and
    the two options in their order), not by position: predictions for other questions, or in another order, would
    otherwise be scored against the wrong gold. A gold question without a prediction, a prediction without a gold
    question, or a prediction twice is an error naming how many and one example."""
    def identity(question: Question) -> tuple[str, str, str, str]:
        return (question.sentence, question.pronoun, question.option1, question.option2)

    answers: dict[tuple[str, str, str, str], int | None] = {}
    for question in predicted:
        if identity(question) in answers:
            raise HarmonizeError(f"{where}: the question {question.sentence!r} is predicted twice")
        answers[identity(question)] = question.answer
    missing = [question for question in gold if identity(question) not in answers]
    known = {identity(question) for question in gold}
    extra = [key for key in answers if key not in known]
    if missing or extra:
        example = missing[0].sentence if missing else extra[0][0]
        raise HarmonizeError(f"{where}: {len(missing)} gold question(s) without a prediction and {len(extra)} "
                             f"prediction(s) of no gold question (e.g. {example!r}); predictions are paired with "
                             "the gold by sentence, pronoun and options")
    found = [answers[identity(question)] for question in gold]
    if any(answer not in (0, 1, 2) for answer in found):
        raise HarmonizeError(f"{where}: every prediction needs answer 1 or 2 (0: none, counted as an error)")
    return found  # type: ignore[return-value]


def evaluate(gold: Sequence[Question], predicted: Sequence[int], train: Sequence[Question] | None = None,
             buckets: int = 4, cutoffs: Sequence[float] | None = None) -> Evaluation:
    """All of PCR4ALL's tables for predictions (1 or 2 per gold question, in order; 0 an error); relevance in
    ``buckets`` parts of equal size, or split at the BM25 ``cutoffs`` (47, 71, 120 in the paper: [0, 47], (47,
    71], (71, 120], (120, inf))."""
    if len(gold) != len(predicted):
        raise HarmonizeError(f"{len(predicted)} predictions for {len(gold)} questions")
    pairs = [(g, p) for g, p in zip(gold, predicted, strict=True) if g.answer in (1, 2)]
    result = Evaluation(unlabelled=len(gold) - len(pairs))
    result.rows.append(_row("all", pairs))
    for name in PERSPECTIVES:
        chosen = [pair for pair in pairs if getattr(pair[0], name)]
        if chosen:
            result.rows.append(_row(name.removeprefix("is_"), chosen))
    for source in sorted({g.data_source for g, _ in pairs}):
        result.rows.append(_row(f"source {source}", [pair for pair in pairs if pair[0].data_source == source]))
    result.consistency = consistency(pairs)
    if train:
        scored = [pair for pair in pairs if not pair[0].is_gender_bias]  # PCR4ALL: gender pairs left out here
        result.frequency = frequency_buckets(scored, train)
        result.relevance = relevance_buckets(scored, train, buckets)
        result.polarity = polarity_correlation(scored, train)
    return result


def consistency(pairs: Sequence[tuple[Question, int]]) -> tuple[int, int] | None:
    """WinoGender: of the groups with a male and a female variant, how many got the same prediction for both."""
    by_group: dict[str, dict[str, int]] = {}
    for question, predicted in pairs:
        if question.group and question.variant:
            by_group.setdefault(question.group, {})[question.variant] = predicted
    judged = [v for v in by_group.values() if "male" in v and "female" in v]
    return (sum(v["male"] == v["female"] for v in judged), len(judged)) if judged else None


def frequency_buckets(pairs: Sequence[tuple[Question, int]], train: Sequence[Question]) -> list[Row]:
    """Candidate frequency = occurrences of its content tokens in the training questions' text; a question's is
    the mean of its two candidates'. Zero-shot: 0; the rest split at their median into MFC (more frequent,
    >= median) and LFC."""
    counts: Counter[str] = Counter()
    for question in train:
        counts.update(content_tokens(f"{question.sentence} {question.option1} {question.option2}"))

    def frequency(question: Question) -> float:
        return sum(sum(counts[t] for t in content_tokens(o)) for o in (question.option1, question.option2)) / 2

    scored = [(frequency(q), (q, p)) for q, p in pairs]
    seen = sorted(f for f, _ in scored if f > 0)
    median = seen[len(seen) // 2] if seen else 0
    return [_row("MFC", [pair for f, pair in scored if f > 0 and f >= median]),
            _row("LFC", [pair for f, pair in scored if 0 < f < median]),
            _row("zero-shot", [pair for f, pair in scored if f == 0])]


def relevance_buckets(pairs: Sequence[tuple[Question, int]], train: Sequence[Question], buckets: int) -> list[Row]:
    """BM25 (Okapi, the ``rank_bm25`` package) of each test question against every training question, the best
    score kept (its nearest training question, as Emami et al. 2020); questions split into ``buckets`` parts of
    equal size by that score, least relevant first."""
    from rank_bm25 import BM25Okapi  # imported here: only evaluation with --train needs it

    index = BM25Okapi([tokens(q.sentence) or ["_"] for q in train])
    scores = sorted(((float(max(index.get_scores(tokens(q.sentence)))), (q, p)) for q, p in pairs),
                    key=lambda item: item[0])
    rows = []
    for part in range(buckets):
        chunk = scores[len(scores) * part // buckets : len(scores) * (part + 1) // buckets]
        if chunk:
            rows.append(_row(f"BM25 {chunk[0][0]:.1f}-{chunk[-1][0]:.1f}", [pair for _, pair in chunk]))
    return rows


def polarity_correlation(pairs: Sequence[tuple[Question, int]], train: Sequence[Question]) -> tuple[float, float]:
    """Candidate polarity = the sum over its content tokens of P(token in the right option | token in an option)
    in the training set; Spearman's rho (and two-tailed p) between polarity(option1) - polarity(option2) and
    the prediction of option 1."""
    from scipy.stats import spearmanr

    right: Counter[str] = Counter()
    any_option: Counter[str] = Counter()
    for question in train:
        if question.answer not in (1, 2):
            continue
        for number, option in ((1, question.option1), (2, question.option2)):
            for token in set(content_tokens(option)):
                any_option[token] += 1
                right[token] += number == question.answer

    def polarity(option: str) -> float:
        return sum(right[t] / any_option[t] for t in content_tokens(option) if any_option[t])

    differences = [polarity(q.option1) - polarity(q.option2) for q, _ in pairs]
    chose_first = [int(p == 1) for _, p in pairs]
    if len(set(differences)) < 2 or len(set(chose_first)) < 2:
        return (float("nan"), float("nan"))
    rho, p_value = spearmanr(differences, chose_first)
    return (float(rho), float(p_value))


def _rate(row: Row) -> str:
    return "-" if row.error_rate is None else f"{row.error_rate:.2f}"


def table(result: Evaluation, style: str = "text") -> str:
    """The tables as plain text, markdown or LaTeX (JSON: `as_json`)."""
    sections = [("perspective", result.rows), ("frequency", result.frequency), ("relevance", result.relevance)]
    lines = []
    for title, rows in sections:
        if not rows:
            continue
        cells = [(row.name, str(row.questions), str(row.errors), _rate(row)) for row in rows]
        header = (title, "questions", "errors", "error rate %")
        if style == "markdown":
            lines += [f"| {' | '.join(header)} |", "| --- | ---: | ---: | ---: |"]
            lines += [f"| {' | '.join(cell)} |" for cell in cells]
        elif style == "latex":
            lines += [r"\begin{tabular}{lrrr}", r"\hline", " & ".join(header) + r" \\", r"\hline"]
            lines += [" & ".join(c.replace("_", r"\_").replace("%", r"\%") for c in cell) + r" \\" for cell in cells]
            lines += [r"\hline", r"\end{tabular}"]
        else:
            width = max(len(c[0]) for c in [*cells, header]) + 2
            lines.append(f"{header[0]:<{width}}{header[1]:>10}{header[2]:>8}{header[3]:>14}")
            lines += [f"{c[0]:<{width}}{c[1]:>10}{c[2]:>8}{c[3]:>14}" for c in cells]
        lines.append("")
    if result.consistency is not None:
        same, groups = result.consistency
        lines.append(f"WinoGender consistency: {100 * same / groups:.2f}% ({same} of {groups} male/female pairs)")
    if result.polarity is not None:
        lines.append(f"polarity correlation (Spearman): rho {result.polarity[0]:.5f}, p {result.polarity[1]:.3g}")
    if result.unlabelled:
        lines.append(f"{result.unlabelled} questions without a label left out")
    return "\n".join(lines).rstrip() + "\n"


def as_json(result: Evaluation) -> dict:
    def rows(items: list[Row]) -> list[dict]:
        return [{"name": r.name, "questions": r.questions, "errors": r.errors, "error_rate": r.error_rate}
                for r in items]

    return {"perspectives": rows(result.rows), "frequency": rows(result.frequency),
            "relevance": rows(result.relevance),
            "consistency": None if result.consistency is None else
            {"consistent": result.consistency[0], "pairs": result.consistency[1]},
            "polarity": None if result.polarity is None else
            {"spearman_rho": result.polarity[0], "p_value": result.polarity[1]},
            "unlabelled": result.unlabelled}


def plot(result: Evaluation, path: str) -> None:
    """Error rate by frequency and relevance bucket, one panel each (PNG/SVG/PDF by the file's suffix)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(title, rows) for title, rows in (("frequency", result.frequency), ("relevance", result.relevance))
              if rows] or [("perspective", result.rows)]
    figure, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 3.5), squeeze=False)
    for axis, (title, rows) in zip(axes[0], panels, strict=True):
        axis.bar([r.name for r in rows], [r.error_rate or 0 for r in rows], color="#4c72b0")
        axis.set_title(f"error rate by {title}")
        axis.set_ylabel("error rate %")
        axis.tick_params(axis="x", labelrotation=30)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
