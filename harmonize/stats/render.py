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


def _title(name: str, frame: pd.DataFrame) -> str:
    """The table's name and what it counts (singletons in or out), as every renderer heads it."""
    note = frame.attrs.get("note")
    return f"{name} ({note})" if note else name


def render_table(name: str, frame: pd.DataFrame) -> str:
    header, rows = _cells(frame)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [_title(name, frame),
             "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))]
    lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
              for row in rows]
    return "\n".join(lines) + "\n"


def render_markdown(name: str, frame: pd.DataFrame) -> str:
    header, rows = _cells(frame)
    lines = [f"### {_title(name, frame)}", "", "| " + " | ".join(header) + " |",
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
    lines = [f"% {_title(name, frame)}", r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\toprule",
             " & ".join(_latex_escape(h) for h in header) + r" \\", r"\midrule"]
    lines += [" & ".join(_latex_escape(c) for c in row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def render_csv(name: str, frame: pd.DataFrame) -> str:
    return f"# {_title(name, frame)}\n" + frame.reset_index().to_csv(index=False)


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


def write_plots(tables: dict[str, pd.DataFrame], distributions: dict, folder: Path, by: str | None = None
                ) -> list[Path]:
    """One PNG per table, its groups side by side: a panel per numeric column with a horizontal bar per group
    (group names on the vertical axis, where long names never overlap), columns with nothing to show (all empty or
    all zero) left out, and the shares of one table (``len_*``, ``*_pct``, percentages) on one scale so that they
    compare by eye; and ``lengths.png``, the entity and mention length distributions of every group as two
    labelled heat maps (share of the group's entities or mentions per length). Titles name the grouping ``by``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    grouping = f"by {by}" if by else "whole corpus"
    for name, frame in tables.items():
        if len(frame.index) > 1:
            frame = frame.drop(index="all", errors="ignore")  # the whole's counts would dwarf the groups' bars
        numeric = frame.select_dtypes("number").astype(float)
        numeric = numeric.loc[:, [c for c in numeric.columns if numeric[c].fillna(0).any()]]
        if numeric.empty:
            continue
        figure = _table_figure(plt, f"{name}, {grouping}", numeric, name == "mention_types")
        written.append(_save(plt, figure, folder / f"{name}.png"))
    if distributions:
        written.append(_save(plt, _lengths_figure(plt, distributions, by, grouping), folder / "lengths.png"))
    return written


_PANELS_PER_ROW = 4
_LENGTH_BINS = 20  # lengths 1..19 and "20+"


def _is_share(column: str, all_shares: bool) -> bool:
    return all_shares or column.startswith("len_") or column.endswith("_pct")


def _table_figure(plt, title: str, numeric: pd.DataFrame, all_shares: bool = False):
    import textwrap

    from matplotlib.ticker import MaxNLocator

    groups = [str(g) for g in numeric.index]
    columns = list(numeric.columns)
    shares = [c for c in columns if _is_share(c, all_shares)]
    share_limit = max(float(numeric[shares].max().max()), 1.0) * 1.05 if shares else None
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
        share = column in shares
        axis.barh(positions, values, color="#e08a3c" if share else "#4878a8")
        if share:
            axis.set_xlim(0, share_limit)  # every share of the table on one scale
        label = column.replace("_", " ") + (" (%)" if share and not column.endswith("_pct") else "")
        axis.set_title(textwrap.fill(label.replace(" pct", " (%)"), 18), fontsize=9)
        axis.xaxis.set_major_locator(MaxNLocator(3))
        axis.tick_params(labelsize=8)
        axis.set_yticks(list(positions), [textwrap.shorten(g, 30, placeholder="…") for g in groups])
    axes[0][0].invert_yaxis()  # the first group on top, as in the table (the axes share it)
    for index in range(len(columns), rows * _PANELS_PER_ROW):
        if index % _PANELS_PER_ROW < axes.shape[1]:
            axes[index // _PANELS_PER_ROW][index % _PANELS_PER_ROW].axis("off")
    figure.suptitle(title)
    return figure


def _lengths_figure(plt, distributions: dict, by: str | None, grouping: str):
    groups = sorted(distributions)  # as the tables order them
    figure, axes = plt.subplots(1, 2, figsize=(12, max(2.4, 0.25 * len(groups) + 1.6)), sharey=True,
                                layout="constrained")
    for axis, which, title, unit in ((axes[0], 0, "entity length", "mentions"),
                                     (axes[1], 1, "mention length", "words")):
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
        axis.set_xlabel(f"length ({unit})", fontsize=9)
        axis.set_title(f"{title}: % of each group's {'entities' if which == 0 else 'mentions'}", fontsize=9)
        figure.colorbar(image, ax=axis, fraction=0.04).set_label("% of the group", fontsize=8)
    axes[0].set_ylabel(by or "group", fontsize=9)
    figure.suptitle(f"length distributions, {grouping}")
    return figure


def _save(plt, figure, path: Path) -> Path:
    import io

    from harmonize.io import atomic_write_bytes

    buffer = io.BytesIO()
    figure.savefig(buffer, dpi=90, format="png", metadata={"Software": None})
    plt.close(figure)
    atomic_write_bytes(path, buffer.getvalue())
    return path
