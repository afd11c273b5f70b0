"""Statistics tables as text: aligned table, Markdown, CSV, LaTeX, JSON; or Parquet files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

FORMATS = ("table", "markdown", "csv", "latex", "json", "parquet")


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _cells(frame: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    header = ["group", *map(str, frame.columns)]
    rows = [[str(index), *(_cell(v) for v in row)] for index, row in zip(frame.index, frame.astype(object).values)]
    return header, rows


def render_table(name: str, frame: pd.DataFrame) -> str:
    header, rows = _cells(frame)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [name, "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))]
    lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
              for row in rows]
    return "\n".join(lines) + "\n"


def render_markdown(name: str, frame: pd.DataFrame) -> str:
    header, rows = _cells(frame)
    lines = [f"### {name}", "", "| " + " | ".join(header) + " |",
             "| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _latex_escape(text: str) -> str:
    for char, escaped in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"), ("#", r"\#"),
                          ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        text = text.replace(char, escaped)
    return text


def render_latex(name: str, frame: pd.DataFrame) -> str:
    header, rows = _cells(frame)
    lines = [f"% {name}", r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
             " & ".join(_latex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(_latex_escape(c) for c in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def render_csv(name: str, frame: pd.DataFrame) -> str:
    return f"# {name}\n" + frame.reset_index().to_csv(index=False)


def to_json(tables: dict[str, pd.DataFrame]) -> str:
    """``{"tables": {name: [row, ...]}}``, each row with its "group"; numbers unrounded, missing as null."""
    def clean(value: object) -> object:
        if isinstance(value, float) and math.isnan(value):
            return None
        return value.item() if hasattr(value, "item") else value

    return json.dumps({"tables": {
        name: [{"group": str(index), **{str(k): clean(v) for k, v in row.items()}}
               for index, row in frame.astype(object).iterrows()]
        for name, frame in tables.items()
    }}, ensure_ascii=False)


def render(tables: dict[str, pd.DataFrame], fmt: str) -> str:
    if fmt == "json":
        return to_json(tables) + "\n"
    one = {"table": render_table, "markdown": render_markdown, "csv": render_csv, "latex": render_latex}[fmt]
    return "\n".join(one(name, frame) for name, frame in tables.items())


def write_parquet(tables: dict[str, pd.DataFrame], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in tables.items():
        path = folder / f"{name}.parquet"
        frame.reset_index().to_parquet(path, index=False)
        written.append(path)
    return written


def write_plots(distributions: dict, folder: Path) -> list[Path]:
    """One PNG per group: entity lengths (mentions per entity) and mention lengths (words per mention)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for group, (entities, mentions) in distributions.items():
        figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
        for axis, counts, title in ((left, entities, "entity length (mentions)"),
                                    (right, mentions, "mention length (words)")):
            lengths = sorted(counts)
            axis.bar([str(n) for n in lengths[:30]], [counts[n] for n in lengths[:30]])
            axis.set_title(title)
            axis.set_ylabel("count")
        figure.suptitle(group)
        figure.tight_layout()
        path = folder / f"lengths-{''.join(c if c.isalnum() or c in '-_' else '_' for c in group)}.png"
        figure.savefig(path, dpi=80)
        plt.close(figure)
        written.append(path)
    return written
