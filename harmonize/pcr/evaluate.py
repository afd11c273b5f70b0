"""PCR4ALL evaluation (section 3.3, 5.4-5.6): error rate overall and per perspective and source, WinoGender
consistency, and against a training set: candidate frequency buckets (MFC, LFC, zero-shot), BM25 relevance
buckets (of equal size, or at given cut-offs: the paper's are 47, 71 and 120), both overall and per perspective
(its Figures 2 and 3, the same buckets in every perspective), and the polarity correlation (Spearman).

Predictions are paired with the gold questions by the question itself (`paired_answers`); a prediction's
``answer`` is 1 or 2, or 0 where a solver gave none (a coreference resolver that put neither or both options in
the pronoun's cluster): 0 is an error. Every function is pure: questions in, figures out.
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
    # perspective -> its rows, in the buckets of ``frequency`` and ``relevance``
    frequency_by_perspective: dict[str, list[Row]] = field(default_factory=dict)
    relevance_by_perspective: dict[str, list[Row]] = field(default_factory=dict)
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
        for (names, labels), overall, by_perspective in (
                (frequency_labels(scored, train), result.frequency, result.frequency_by_perspective),
                (relevance_labels(scored, train, buckets, cutoffs), result.relevance,
                 result.relevance_by_perspective)):
            overall += [_row(name, [pair for label, pair in labels if label == name]) for name in names]
            for perspective in PERSPECTIVES:
                chosen = [(label, pair) for label, pair in labels if getattr(pair[0], perspective)]
                if chosen:
                    by_perspective[perspective.removeprefix("is_")] = [
                        _row(name, [pair for label, pair in chosen if label == name]) for name in names]
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


def frequency_labels(pairs: Sequence[tuple[Question, int]], train: Sequence[Question]
                     ) -> tuple[list[str], list[tuple[str, tuple[Question, int]]]]:
    """The frequency buckets, and each pair's. Candidate frequency = occurrences of its content tokens in the training
    questions' text; a question's is the mean of its two candidates'. Zero-shot: 0; the rest split at their median
    into MFC (more frequent, >= median) and LFC."""
    counts: Counter[str] = Counter()
    for question in train:
        counts.update(content_tokens(f"{question.sentence} {question.option1} {question.option2}"))

    def frequency(question: Question) -> float:
        return sum(sum(counts[t] for t in content_tokens(o)) for o in (question.option1, question.option2)) / 2

    scored = [(frequency(q), (q, p)) for q, p in pairs]
    seen = sorted(f for f, _ in scored if f > 0)
    median = seen[len(seen) // 2] if seen else 0
    return ["MFC", "LFC", "zero-shot"], [("MFC" if f > 0 and f >= median else "LFC" if f > 0 else "zero-shot", pair)
                                         for f, pair in scored]


def relevance_labels(pairs: Sequence[tuple[Question, int]], train: Sequence[Question], buckets: int = 4,
                     cutoffs: Sequence[float] | None = None
                     ) -> tuple[list[str], list[tuple[str, tuple[Question, int]]]]:
    """The relevance buckets, least relevant first, and each pair's: BM25 (Okapi, the ``rank_bm25`` package) of
    the test question against every training question, the best score kept (its nearest training question, as
    Emami et al. 2020); buckets at the ``cutoffs`` ([0, c1], (c1, c2], ..., (cn, inf)), else ``buckets`` parts of
    equal size named by their score range."""
    best = best_bm25_scores([q.sentence for q in train], [q.sentence for q, _ in pairs])
    scores = sorted(zip(best, pairs, strict=True), key=lambda item: item[0])
    if cutoffs:
        bounds = sorted(cutoffs)
        names = [f"BM25 [0, {bounds[0]:g}]", *(f"BM25 ({a:g}, {b:g}]" for a, b in zip(bounds, bounds[1:])),
                 f"BM25 ({bounds[-1]:g}, inf)"]
        return names, [(names[sum(score > bound for bound in bounds)], pair) for score, pair in scores]
    labelled = []
    for part in range(buckets):
        chunk = scores[len(scores) * part // buckets: len(scores) * (part + 1) // buckets]
        if chunk:
            labelled += [(f"BM25 {chunk[0][0]:.1f}-{chunk[-1][0]:.1f}", pair) for _, pair in chunk]
    return list(dict.fromkeys(label for label, _ in labelled)), labelled


def best_bm25_scores(documents: Sequence[str], queries: Sequence[str]) -> list[float]:
    """Each query's best BM25 score (Okapi, as the ``rank_bm25`` package scores it) against ``documents``, equal to
    ``max(BM25Okapi(documents).get_scores(query))`` to the last bit, but through an inverted index: that package
    looks every query word up in every document, minutes for a thousand questions against ten thousand."""
    import numpy as np
    from rank_bm25 import BM25Okapi  # imported here: only evaluation with --train needs it

    index = BM25Okapi([tokens(text) or ["_"] for text in documents])
    postings: dict[str, tuple[list[int], list[int]]] = {}
    for number, frequencies in enumerate(index.doc_freqs):
        for word, count in frequencies.items():
            entry = postings.setdefault(word, ([], []))
            entry[0].append(number)
            entry[1].append(count)
    lengths = np.array(index.doc_len)
    # Each word's share of the score in the documents holding it, in rank_bm25's own expression and order, so that
    # the sums are the same floating-point numbers (a document without the word adds exactly 0 there).
    shares = {}
    for word, (numbers, counts) in postings.items():
        frequency, length = np.array(counts), lengths[numbers]
        shares[word] = (np.array(numbers), (index.idf.get(word) or 0) * (
            frequency * (index.k1 + 1) / (frequency + index.k1 * (1 - index.b + index.b * length / index.avgdl))))
    best = []
    for query in queries:
        score = np.zeros(index.corpus_size)
        for word in tokens(query):
            if word in shares:
                numbers, share = shares[word]
                score[numbers] += share
        best.append(float(score.max()))
    return best


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
    for title, by_perspective in (("frequency", result.frequency_by_perspective),
                                  ("relevance", result.relevance_by_perspective)):
        if by_perspective:
            lines += _by_perspective(f"{title} by perspective", by_perspective, style)
    if result.consistency is not None:
        same, groups = result.consistency
        lines.append(f"WinoGender consistency: {100 * same / groups:.2f}% ({same} of {groups} male/female pairs)")
    if result.polarity is not None:
        lines.append(f"polarity correlation (Spearman): rho {result.polarity[0]:.5f}, p {result.polarity[1]:.3g}")
    if result.unlabelled:
        lines.append(f"{result.unlabelled} questions without a label left out")
    return "\n".join(lines).rstrip() + "\n"


def _by_perspective(title: str, by_perspective: dict[str, list[Row]], style: str) -> list[str]:
    """Error rate (questions) per perspective (rows) and bucket (columns), as the paper's Figures 2 and 3."""
    buckets = [row.name for row in next(iter(by_perspective.values()))]
    header = [title, *buckets]
    rows = [[name, *(f"{_rate(row)} ({row.questions})" for row in rows)] for name, rows in by_perspective.items()]
    if style == "markdown":
        lines = [f"| {' | '.join(header)} |", "| --- |" + " ---: |" * len(buckets)]
        lines += [f"| {' | '.join(cells)} |" for cells in rows]
    elif style == "latex":
        lines = [r"\begin{tabular}{l" + "r" * len(buckets) + "}", r"\hline", " & ".join(header) + r" \\",
                 r"\hline", *(" & ".join(c.replace("_", r"\_") for c in cells) + r" \\" for cells in rows),
                 r"\hline", r"\end{tabular}"]
    else:
        widths = [max(len(row[i]) for row in [header, *rows]) + 2 for i in range(len(header))]
        lines = ["".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                         enumerate(zip(cells, widths, strict=True))) for cells in [header, *rows]]
    return [*lines, ""]


def as_json(result: Evaluation) -> dict:
    def rows(items: list[Row]) -> list[dict]:
        return [{"name": r.name, "questions": r.questions, "errors": r.errors, "error_rate": r.error_rate}
                for r in items]

    return {"perspectives": rows(result.rows), "frequency": rows(result.frequency),
            "relevance": rows(result.relevance),
            "frequency_by_perspective": {name: rows(items) for name, items in result.frequency_by_perspective.items()},
            "relevance_by_perspective": {name: rows(items) for name, items in result.relevance_by_perspective.items()},
            "consistency": None if result.consistency is None else
            {"consistent": result.consistency[0], "pairs": result.consistency[1]},
            "polarity": None if result.polarity is None else
            {"spearman_rho": result.polarity[0], "p_value": result.polarity[1]},
            "unlabelled": result.unlabelled}


def plot(result: Evaluation, path: str) -> None:
    """Error rate by frequency and by relevance bucket, a line per perspective and one for all questions (the
    paper's Figures 2 and 3; PNG/SVG/PDF by the file's suffix); without a training set, by perspective."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(title, overall, by) for title, overall, by in (
        ("frequency", result.frequency, result.frequency_by_perspective),
        ("relevance", result.relevance, result.relevance_by_perspective)) if overall]
    if not panels:
        figure, axis = plt.subplots(figsize=(5, 3.5))
        axis.bar([r.name for r in result.rows], [r.error_rate or 0 for r in result.rows], color="#4c72b0")
        axis.set_title("error rate by perspective")
        axis.set_ylabel("error rate %")
        axis.tick_params(axis="x", labelrotation=30)
    else:
        figure, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), squeeze=False)
        for axis, (title, overall, by_perspective) in zip(axes[0], panels, strict=True):
            names = [row.name for row in overall]
            for label, rows, style in [("all", overall, "k-o"), *((name, rows, "-o") for name, rows in
                                                                    by_perspective.items())]:
                axis.plot(names, [float("nan") if r.error_rate is None else r.error_rate for r in rows], style,
                          label=label)
            axis.set_title(f"error rate by {title}")
            axis.set_ylabel("error rate %")
            axis.tick_params(axis="x", labelrotation=20)
            axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
