"""PCR4ALL's settings (section 3.4 and 5): one seeded 8:1:1 split pooled over every source, the training-size
curve (Figure 1), training on one perspective and testing on all (Table 4).

`pooled_split` pools questions from any number of sets and corpora: gender-bias questions (WinoGender) all go to
``gender_test``, as the paper keeps them whole for testing; the rest are shuffled by the seed and fill train, dev
and test by their shares, a generated question's document whole in one part (its ``doc_id``; a set's question is
its own group). `training_subsets` cuts one seeded shuffle of the training part at the paper's thresholds (1, 10,
1,000, 10,000, 50,000, 100,000; a size the part does not reach is the whole part), so each subset
holds the smaller ones. `perspective_training_sets` gives the training questions of each perspective. `run`
trains a solver on each training set and evaluates it on one test set; `matrix` prints the rows as the paper's
tables (error rate per test perspective, WinoGender consistency).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from harmonize.errors import HarmonizeError
from harmonize.pcr.evaluate import Evaluation, consistency, evaluate
from harmonize.pcr.questions import PERSPECTIVES, Question

PAPER_SIZES = (1, 10, 1000, 10000, 50000, 100000)
PARTS = ("train", "dev", "test")
# Table 4's training sets: every training question, then each perspective's (gender bias has no training part).
TRAINING_PERSPECTIVES = ("is_linguistic", "is_knowledge", "is_formal", "is_casual", "is_medical")


def _numbers(text: str, kind: type, separator: str = ",") -> list:
    """``text``'s items as numbers of ``kind``; empty where one is no such number."""
    try:
        return [kind(item) for item in text.split(separator)]
    except ValueError:
        return []


def parse_shares(text: str) -> tuple[int, int, int]:
    """``8:1:1`` as three shares, or an error saying what a split is."""
    shares = _numbers(text, int, ":")
    if len(shares) != 3 or min(shares) < 0 or not sum(shares):
        raise HarmonizeError(f"split {text!r}: three whole numbers, e.g. 8:1:1")
    return tuple(shares)  # type: ignore[return-value]


def parse_sizes(text: str) -> list[int]:
    """``1,10,1000`` as training sizes, or an error."""
    sizes = _numbers(text, int)
    if not sizes or min(sizes) < 1:
        raise HarmonizeError(f"sizes {text!r}: positive whole numbers, e.g. 1,10,1000")
    return sizes


def parse_cutoffs(text: str) -> list[float]:
    """``47,71,120`` as BM25 cut-offs (`harmonize.pcr.evaluate.evaluate`), or an error."""
    cutoffs = _numbers(text, float)
    if not cutoffs or min(cutoffs) < 0:
        raise HarmonizeError(f"BM25 cut-offs {text!r}: non-negative numbers, e.g. 47,71,120")
    return cutoffs


def statistics(questions: Sequence[Question]) -> str:
    """PCR4ALL's Table 2: questions per perspective in each part (``Question.part``)."""
    parts = [name for name in (*PARTS, "gender_test") if any(q.part == name for q in questions)]
    header = ["perspective", *parts, "overall"]
    rows = []
    for name in (*PERSPECTIVES, None):
        chosen = [q for q in questions if name is None or getattr(q, name)]
        label = "overall" if name is None else name.removeprefix("is_")
        rows.append([label, *(str(sum(q.part == part for q in chosen)) for part in parts), str(len(chosen))])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                               enumerate(zip(row, widths, strict=True))) for row in [header, *rows]) + "\n"


def split_groups(questions: Iterable[Question], shares: tuple[int, ...], seed: int) -> list[list[Question]]:
    """Parts of about the given shares of the questions, each group whole in one part (a generated question's
    document; a question without one is its own group): groups in a seeded random order fill the parts one after
    another."""
    groups: dict[str, list[Question]] = {}
    for index, question in enumerate(questions):
        groups.setdefault(f"d{question.doc_id}" if question.doc_id else f"q{index:09d}", []).append(question)
    order = sorted(groups)
    random.Random(seed).shuffle(order)
    total = sum(len(group) for group in groups.values())
    parts: list[list[Question]] = [[] for _ in shares]
    bounds = [total * sum(shares[: i + 1]) / sum(shares) for i in range(len(shares))]
    done = 0
    part = 0
    for key in order:
        while part < len(parts) - 1 and done >= bounds[part]:
            part += 1
        parts[part] += groups[key]
        done += len(groups[key])
    return parts


def pooled_split(questions: Sequence[Question], shares: tuple[int, ...] = (8, 1, 1), seed: int = 0
                 ) -> dict[str, list[Question]]:
    """train, dev, test (and gender_test where there are gender-bias questions), each question's ``part`` set."""
    if len(shares) != 3 or any(share < 0 for share in shares) or not sum(shares):
        raise HarmonizeError(f"a split is three non-negative shares, e.g. 8:1:1 (not {shares})")
    parts = dict(zip(PARTS, split_groups([q for q in questions if not q.is_gender_bias], shares, seed),
                     strict=True))
    gender = [q for q in questions if q.is_gender_bias]
    if gender:
        parts["gender_test"] = gender
    for name, part in parts.items():
        for question in part:
            question.part = name
    return parts


def training_subsets(train: Sequence[Question], sizes: Sequence[int] = PAPER_SIZES, seed: int = 0
                     ) -> dict[int, list[Question]]:
    """Nested training subsets: the first ``size`` questions of one seeded shuffle for each size, a size beyond
    the training part being the whole part; no size is added unasked, so a curve on a CPU can stop at 1,000."""
    if any(size < 1 for size in sizes):
        raise HarmonizeError(f"training sizes are positive numbers of questions (not {list(sizes)})")
    order = list(train)
    random.Random(seed).shuffle(order)
    kept = sorted({min(size, len(order)) for size in sizes})
    return {size: order[:size] for size in kept if size}


def perspective_training_sets(train: Sequence[Question]) -> dict[str, list[Question]]:
    """Table 4's training sets: "all", then each perspective that has training questions."""
    sets = {"all": list(train)}
    for name in TRAINING_PERSPECTIVES:
        chosen = [q for q in train if getattr(q, name)]
        if chosen:
            sets[name.removeprefix("is_")] = chosen
    return sets


@dataclass
class Result:
    label: str  # the training set: a size, or a perspective
    trained_on: int  # its questions
    evaluation: Evaluation


Solver = Callable[[Sequence[Question], Sequence[Question]], list[int]]  # (train, test) -> answers


def trained_solver(name: str = "encoder", report=None, log: Callable[[str], None] | None = None,
                   **settings) -> Solver:
    """(train, test) -> answers for the solvers that learn: ``encoder`` (`harmonize.pcr.encoder`; ``settings``
    those of its `EncoderSettings`), or ``agreement``, which ignores its training set (a flat baseline)."""
    if name == "agreement":
        from harmonize.pcr.solve import solve

        return lambda _train, test: solve(test, "agreement")
    if name != "encoder":
        raise HarmonizeError(f"solver {name!r}: encoder or agreement (the others do not train)")
    from harmonize.pcr.encoder import EncoderSettings, train_and_solve

    chosen = EncoderSettings(**settings)
    return lambda train, test: train_and_solve(train, test, chosen, report, progress=False, log=log)


def run(training_sets: dict, test: Sequence[Question], solver: Solver,
        log: Callable[[str], None] | None = None) -> list[Result]:
    """Train ``solver`` on each training set and evaluate it on ``test``: error rates over its questions that are
    no gender test, WinoGender consistency over those that are (where given)."""
    results = []
    for label, train in training_sets.items():
        if log is not None:
            log(f"training on {label} ({len(train)} questions)")
        answers = solver(train, test)
        # Error rates over the questions that are no gender test; those give the consistency column.
        plain = [(q, a) for q, a in zip(test, answers, strict=True) if not q.is_gender_bias]
        evaluation = evaluate([q for q, _ in plain], [a for _, a in plain])
        evaluation.consistency = consistency(list(zip(test, answers, strict=True)))
        results.append(Result(str(label), len(train), evaluation))
    return results


def matrix(results: Sequence[Result], style: str = "text", first: str = "train") -> str:
    """One row per training set: error rate per test perspective (as PCR4ALL's Tables 3 and 4), WinoGender
    consistency; ``style`` text, markdown or latex."""
    names = ["all", *(name.removeprefix("is_") for name in PERSPECTIVES if name != "is_gender_bias")]
    header = [first, "questions", *names, "consistency"]
    rows = []
    for result in results:
        rates = {row.name: row for row in result.evaluation.rows}
        cells = [result.label, str(result.trained_on)]
        cells += [f"{rates[name].error_rate:.2f}" if name in rates and rates[name].questions else "-"
                  for name in names]
        consistency = result.evaluation.consistency
        cells.append(f"{100 * consistency[0] / consistency[1]:.2f}" if consistency else "-")
        rows.append(cells)
    if style == "markdown":
        lines = [f"| {' | '.join(header)} |", "| --- |" + " ---: |" * (len(header) - 1)]
        lines += [f"| {' | '.join(cells)} |" for cells in rows]
    elif style == "latex":
        lines = [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\hline", " & ".join(header) + r" \\",
                 r"\hline", *(" & ".join(c.replace("_", r"\_") for c in cells) + r" \\" for cells in rows),
                 r"\hline", r"\end{tabular}"]
    else:
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in
                           enumerate(zip(cells, widths, strict=True))) for cells in [header, *rows]]
    return "\n".join(lines) + "\n"


def plot_curve(results: Sequence[Result], path: str) -> None:
    """Figure 1: error rate per test perspective against the training size (log scale)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 4))
    sizes = [result.trained_on for result in results]
    names = ["all", *(name.removeprefix("is_") for name in PERSPECTIVES if name != "is_gender_bias")]
    for name in names:
        rates = [next((row.error_rate for row in result.evaluation.rows if row.name == name), None)
                 for result in results]
        if any(rate is not None for rate in rates):
            axis.plot(sizes, [float("nan") if rate is None else rate for rate in rates], marker="o", label=name)
    axis.set_xscale("log")
    axis.set_xlabel("training questions")
    axis.set_ylabel("error rate %")
    axis.legend()
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
