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


def write_plots(tables: dict[str, pd.DataFrame], distributions: dict, folder: Path) -> list[Path]:
    """One PNG per table, its groups side by side: a panel per numeric column with a horizontal bar per group
    (group names on the vertical axis, where long names never overlap); and ``lengths.png``, the entity and mention
    length distributions of every group as two heat maps (share of the group's entities or mentions per length)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, frame in tables.items():
        numeric = frame.select_dtypes("number")
        if numeric.empty:
            continue
        figure = _table_figure(plt, name, numeric)
        written.append(_save(plt, figure, folder / f"{name}.png"))
    if distributions:
        written.append(_save(plt, _lengths_figure(plt, distributions), folder / "lengths.png"))
    return written


_PANELS_PER_ROW = 4
_LENGTH_BINS = 20  # lengths 1..19 and "20+"


def _table_figure(plt, name: str, numeric: pd.DataFrame):
    import textwrap

    from matplotlib.ticker import MaxNLocator

    groups = [str(g) for g in numeric.index]
    columns = list(numeric.columns)
    rows = math.ceil(len(columns) / _PANELS_PER_ROW)
    label_width = min(max(len(g) for g in groups), 30)
    height = max(1.6, 0.22 * len(groups) + 0.9)
    figure, axes = plt.subplots(rows, min(len(columns), _PANELS_PER_ROW), squeeze=False, sharey=True,
                                layout="constrained", figsize=(2.6 * min(len(columns), _PANELS_PER_ROW) + label_width * 0.07,
                                         height * rows))
    positions = range(len(groups))
    for index, column in enumerate(columns):
        axis = axes[index // _PANELS_PER_ROW][index % _PANELS_PER_ROW]
        values = numeric[column].fillna(0).tolist()
        axis.barh(positions, values, color="#4878a8")
        if not any(values):
            axis.set_xlim(0, 1)  # all zero: an axis from 0, not one centred on it
        axis.set_title(textwrap.fill(column.replace("_", " "), 18), fontsize=9)
        axis.xaxis.set_major_locator(MaxNLocator(3))
        axis.tick_params(labelsize=8)
        axis.set_yticks(list(positions), [textwrap.shorten(g, 30, placeholder="…") for g in groups])
    axes[0][0].invert_yaxis()  # the first group on top, as in the table (the axes share it)
    for index in range(len(columns), rows * _PANELS_PER_ROW):
        if index % _PANELS_PER_ROW < axes.shape[1]:
            axes[index // _PANELS_PER_ROW][index % _PANELS_PER_ROW].axis("off")
    figure.suptitle(f"{name} by group")
    return figure


def _lengths_figure(plt, distributions: dict):
    groups = sorted(distributions)  # as the tables order them
    figure, axes = plt.subplots(1, 2, figsize=(12, max(2.0, 0.25 * len(groups) + 1.2)), sharey=True,
                                layout="constrained")
    for axis, which, title in ((axes[0], 0, "entity length (mentions), % of entities"),
                               (axes[1], 1, "mention length (words), % of mentions")):
        shares = []
        for group in groups:
            counts = distributions[group][which]
            total = sum(counts.values()) or 1
            row = [100 * counts.get(n, 0) / total for n in range(1, _LENGTH_BINS)]
            row.append(100 * sum(c for n, c in counts.items() if n >= _LENGTH_BINS) / total)
            shares.append(row)
        image = axis.imshow(shares, aspect="auto", cmap="Blues", vmin=0)
        axis.set_xticks(range(_LENGTH_BINS), [str(n) if n % 2 else "" for n in range(1, _LENGTH_BINS)]
                        + [f"{_LENGTH_BINS}+"])
        axis.set_yticks(range(len(groups)), groups)
        axis.tick_params(labelsize=8)
        axis.set_title(title, fontsize=9)
        figure.colorbar(image, ax=axis, fraction=0.04)
    return figure


def _save(plt, figure, path: Path) -> Path:
    import io

    from harmonize.io import atomic_write_bytes

    buffer = io.BytesIO()
    figure.savefig(buffer, dpi=90, format="png", metadata={"Software": None})
    plt.close(figure)
    atomic_write_bytes(path, buffer.getvalue())
    return path
