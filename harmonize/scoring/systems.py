"""Several systems against one key, as a paper compares them: each scored on the same documents (with intervals and
groups where asked), and each pair tested by paired bootstrap and approximate randomization on the metrics asked
(`harmonize.scoring.significance`); tables to paste (text, Markdown, LaTeX), JSON, and one plot. What ``harmonize
score KEY SYS_A SYS_B ...`` runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from harmonize.errors import HarmonizeError
from harmonize.scoring.frame import FEW_DOCUMENTS, CorpusScore, setup_lines
from harmonize.scoring.score import score_files
from harmonize.scoring.significance import PairTest, compare_pair, per_document_counts

TABLE_STYLES = ("text", "markdown", "latex")


@dataclass
class SystemsComparison:
    """Each system's score (``scores``, in the order given, named by ``systems``) and each pair's tests."""

    systems: list[str]
    scores: list[CorpusScore]
    pairs: list[PairTest] = field(default_factory=list)
    tested: list[str] = field(default_factory=list)  # the metrics the pairs were tested on
    level: float = 95
    samples: int = 10_000
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        """``{"systems": {name: score JSON}, "pairs": [{"a", "b", "metric", "difference", "ci", "p_bootstrap",
        "p_randomization", "exact"}], "level", "samples", "seed", "tested"}``."""
        return {"systems": {name: score.to_json() for name, score in zip(self.systems, self.scores)},
                "pairs": [pair.to_json() for pair in self.pairs], "level": self.level, "samples": self.samples,
                "seed": self.seed, "tested": self.tested}

    def setup_lines(self) -> list[str]:
        """How the systems were scored and tested, as ``harmonize score`` prints it first."""
        first = self.scores[0]
        return [*setup_lines(first.setup, first.documents),
                f"pairs tested on {', '.join(self.tested)}: paired bootstrap ({self.level:g}% interval) and "
                f"approximate randomization, {self.samples} samples, seed {self.seed}, over documents"
                + (f" (only {first.documents}: the tests say little)" if first.documents < FEW_DOCUMENTS else "")]


def system_names(responses: list[Path]) -> list[str]:
    """Each response's name: its file or folder name, with its parent's where two would be the same."""
    names = [path.name for path in responses]
    if len(set(names)) < len(names):
        names = [f"{path.parent.name}/{path.name}" for path in responses]
    if len(set(names)) < len(names):
        names = [str(path) for path in responses]
    return names


def compare_systems(key: str | Path, responses: list[str | Path], *, metrics: list[str] | None = None,
                    tested: list[str] | None = None, level: float = 95, samples: int = 10_000, seed: int = 0,
                    exact: bool = False, intervals: bool = True, **options: Any) -> SystemsComparison:
    """Score every response against ``key`` (``options``: those of `harmonize.scoring.score.score_files`, ``by``
    included) and test each pair on ``tested`` (default: the CoNLL score where the metrics give it, else the first
    metric). ``intervals`` adds each system's bootstrap intervals at ``level``. The same ``seed`` gives the same
    figures; ``exact`` enumerates the randomization test's assignments (few documents only)."""
    paths = [Path(response) for response in responses]
    if len(paths) < 1:
        raise HarmonizeError("give at least one system's output")
    scores = [score_files(key, path, metrics=metrics, ci=level if intervals else None, samples=samples, seed=seed,
                          **options) for path in paths]
    names = system_names(paths)
    labels = [label for label, _ in scores[0].partitions]
    for name, score in zip(names[1:], scores[1:]):
        if [label for label, _ in score.partitions] != labels:
            raise HarmonizeError(f"{name} is not scored on the documents of {names[0]}")
    available = list(scores[0].metrics) + (["conll"] if scores[0].conll is not None else [])
    tested = tested or (["conll"] if "conll" in available else available[:1])
    unknown = [metric for metric in tested if metric not in available]
    if unknown:
        raise HarmonizeError(f"cannot test {', '.join(unknown)}: the scores have {', '.join(available)}")
    counts = [per_document_counts(score) for score in scores]
    pairs = [compare_pair(counts[i], counts[j], metric, (names[i], names[j]), level, samples, seed, exact)
             for i, j in combinations(range(len(paths)), 2) for metric in tested]
    return SystemsComparison(names, scores, pairs, list(tested), level, samples, seed)


# -- tables --------------------------------------------------------------------------------------------------------

def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}"


def _p(value: float) -> str:
    return f"{value:.4f}" if value >= 0.0001 else f"{value:.1e}"


def comparison_rows(comparison: SystemsComparison) -> tuple[list[list[str]], list[list[str]]]:
    """The two tables as rows of cells, headers first: systems x the tested metrics (F1 and its interval), and the
    pairs (difference a - b, its interval, the two p-values)."""
    systems = [["system", *(f"{metric} F1" for metric in comparison.tested),
                *(f"{comparison.level:g}% interval" for _ in comparison.tested if comparison.scores[0].ci)]]
    for name, score in zip(comparison.systems, comparison.scores):
        cells = [name, *(_percent(_f1(score, metric)) for metric in comparison.tested)]
        if score.ci:
            cells += [f"{_percent(score.ci[metric][0])}-{_percent(score.ci[metric][1])}" for metric in
                      comparison.tested]
        systems.append(cells)
    pairs = [["a", "b", "metric", "a - b", f"{comparison.level:g}% interval", "p (bootstrap)",
              "p (randomization" + (", exact)" if any(p.exact for p in comparison.pairs) else ")")]]
    for pair in comparison.pairs:
        pairs.append([pair.a, pair.b, pair.metric, f"{100 * pair.difference:+.2f}",
                      f"{100 * pair.ci[0]:+.2f} to {100 * pair.ci[1]:+.2f}", _p(pair.p_bootstrap),
                      _p(pair.p_randomization)])
    return systems, pairs


def group_rows(comparison: SystemsComparison) -> list[list[str]]:
    """Where the systems were scored by group: a row per group (and "all"), the first tested metric's F1 of each
    system, with its interval where there is one; no rows otherwise."""
    first = comparison.scores[0]
    if not first.groups:
        return []
    metric = comparison.tested[0]
    rows = [["group", "docs", *(f"{name} {metric}" for name in comparison.systems)]]
    for group in [*first.groups, "all"]:
        scores = [score if group == "all" else score.groups[group] for score in comparison.scores]
        cells = []
        for score in scores:
            cell = _percent(_f1(score, metric))
            if metric in score.ci:
                cell += f" ({_percent(score.ci[metric][0])}-{_percent(score.ci[metric][1])})"
            cells.append(cell)
        rows.append([group, str(scores[0].documents), *cells])
    return rows


def _f1(score: CorpusScore, metric: str) -> float | None:
    return score.conll if metric == "conll" else score.metrics[metric].f1


def render_table(rows: list[list[str]], style: str = "text") -> str:
    """Rows (the first is the header) as an aligned text table, a Markdown table or a LaTeX tabular."""
    if style not in TABLE_STYLES:
        raise HarmonizeError(f"a table is {', '.join(TABLE_STYLES)}, not {style!r}")
    if style == "latex":
        escape = str.maketrans({"_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$", "{": r"\{", "}": r"\}"})
        lines = [r"\begin{tabular}{l" + "r" * (len(rows[0]) - 1) + "}", r"\toprule"]
        for number, row in enumerate(rows):
            lines.append(" & ".join(cell.translate(escape) for cell in row) + r" \\")
            if number == 0:
                lines.append(r"\midrule")
        return "\n".join([*lines, r"\bottomrule", r"\end{tabular}"]) + "\n"
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    if style == "markdown":
        lines = ["| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |" for row in rows]
        lines.insert(1, "|" + "|".join("-" * (width + 1) + ":" if column else "-" * (width + 2)
                                       for column, width in enumerate(widths)) + "|")
        return "\n".join(lines) + "\n"
    return "\n".join("  ".join(cell.ljust(width) if column == 0 else cell.rjust(width)
                               for column, (cell, width) in enumerate(zip(row, widths))) for row in rows) + "\n"


def plot_systems(comparison: SystemsComparison, path: str | Path) -> Path:
    """One plot (PNG or SVG, by ``path``'s extension): each tested metric's F1 per system as a point, its interval
    drawn where there is one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    if path.suffix not in (".png", ".svg"):
        raise HarmonizeError(f"{path}: a plot is written as .png or .svg")
    figure, axes = plt.subplots(figsize=(1.6 + 1.2 * len(comparison.systems) * len(comparison.tested), 3.6))
    width = 0.8 / len(comparison.tested)
    for number, metric in enumerate(comparison.tested):
        positions = [index + number * width for index in range(len(comparison.systems))]
        values = [100 * (_f1(score, metric) or 0.0) for score in comparison.scores]
        errors = None
        if all(score.ci for score in comparison.scores):
            errors = [[value - 100 * score.ci[metric][0] for value, score in zip(values, comparison.scores)],
                      [100 * score.ci[metric][1] - value for value, score in zip(values, comparison.scores)]]
        # Points with their intervals, not bars from 0: the differences a comparison is about stay visible.
        axes.errorbar(positions, values, yerr=errors, fmt="o", capsize=4, label=metric)
    axes.set_xticks([index + width * (len(comparison.tested) - 1) / 2 for index in range(len(comparison.systems))],
                    comparison.systems)
    axes.set_ylabel("F1 (%)")
    axes.set_xlim(-0.5, len(comparison.systems) - 0.5 + width * (len(comparison.tested) - 1))
    axes.grid(axis="y", alpha=0.3)
    if comparison.scores[0].ci:
        axes.set_title(f"{comparison.level:g}% bootstrap intervals over documents", fontsize=9)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    # No date, no software version in the file: the same comparison gives the same bytes.
    metadata = {"Date": None, "Creator": None} if path.suffix == ".svg" else {"Software": None}
    figure.savefig(path, metadata=metadata)
    plt.close(figure)
    return path
