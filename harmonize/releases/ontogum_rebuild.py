"""GUM's own OntoGUM files rebuilt from GUM's source: the recipe ``ontogum/gum`` reads a GUM release (the catalog's
``gum``, or ``--source gum=PATH``), applies the OntoGUM rules (the paper's eight steps) and writes
``coref/ontogum/conll/NAME.conll`` in the official 3-column layout, one file per document, with a README. The
comparison is with the release's own ``coref/ontogum/conll`` (or the folder ``reference`` names): per genre, tokens,
mention precision, recall and F1 and CoNLL, then every difference by kind.

    harmonize build ontogum/gum -o rebuilt/
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harmonize.errors import HarmonizeError, Report

if TYPE_CHECKING:
    from harmonize.scoring.compare import Comparison

RECIPE = "ontogum/gum"
SOURCE = "gum"  # the catalog's default GUM: its coref/ontogum/ is the official output to compare with
OUTPUT = Path("coref") / "ontogum" / "conll"


@dataclass
class BuiltOntoGUM:
    """What the OntoGUM recipe wrote, what the rules reported, and the comparison with the official files."""

    folder: Path
    files: int
    report: Report
    comparison: Comparison | None = None
    lines: list[str] = field(default_factory=list)


def rebuild_ontogum(output: str | Path, source: str | Path | None = None, reference: str | Path | None = None,
                    lenient: bool = True, progress: Callable[[str], None] | None = None) -> BuiltOntoGUM:
    """Build GUM's ``coref/ontogum/conll`` under ``output`` from the GUM release at ``source`` (default: the
    cached catalog ``gum``), compared with ``reference`` (default: the release's own ``coref/ontogum/conll``).
    ``lenient``: the official files hold one broken bracket (GENTLE_poetry_road), read and counted."""
    from harmonize import corpora
    from harmonize.conversion import convert, read_corpus
    from harmonize.io import atomic_write_text
    from harmonize.scoring.compare import compare_corpora

    say = progress or (lambda message: None)
    if source is None:
        if corpora.fetch_wanted() and not corpora.is_cached(SOURCE):
            corpora.fetch([SOURCE])
        root = corpora.path(SOURCE)
    else:
        root = Path(source)
        if not root.is_dir():
            raise HarmonizeError(f"--source gum={source}: no such folder")
    folder = Path(output) / OUTPUT
    say(f"{RECIPE}: converting {root} with the OntoGUM rules")
    done = convert([root], "gum", "conll2012", folder, lenient=lenient, rules="ontogum",
                   options={"layout": "ontogum"}, warn_losses=False)
    built = BuiltOntoGUM(folder, len(done.outputs), done.report)
    official = Path(reference) if reference is not None else root / OUTPUT
    if official.is_dir():
        say(f"{RECIPE}: comparing with {official}")
        compare_report = Report()
        comparison = compare_corpora(read_corpus([folder], "conll2012", True, compare_report),
                                     read_corpus([official], "conll2012", True, compare_report))
        built.comparison = comparison
        built.lines = _lines(comparison)
    atomic_write_text(Path(output) / "README-ontogum.md", _readme(built, root))
    return built


def _lines(comparison: Comparison) -> list[str]:
    every = comparison.groups[-1]
    lines = [f"{every.documents} documents, {every.same_tokens} with the same tokens; mention P "
             f"{100 * every.mention_precision:.2f} R {100 * every.mention_recall:.2f} F1 "
             f"{100 * every.mention_f1:.2f}; CoNLL {100 * every.conll:.2f}"]
    lines += [f"tokens differ: {line}" for line in comparison.token_differences]
    for kind, count in comparison.differences.counts.most_common():
        lines.append(f"differs: {count} x {kind} (e.g. {comparison.differences.examples[kind][0][:200]})")
    return lines


def _readme(built: BuiltOntoGUM, root: Path) -> str:
    lines = ["# OntoGUM rebuilt by harmonize", "", f"Recipe `{RECIPE}`: the GUM release at `{root.name}` read with "
             "`--from gum`, the OntoGUM rules (the paper's eight steps, `harmonize rules`), written as GUM's "
             f"`{OUTPUT.as_posix()}` files (3 columns, `-O layout=ontogum`): {built.files} documents.", "",
             "## What the rules changed", ""]
    lines += [f"- {count} x {reason}" for reason, count in sorted(built.report.counts.items())] or ["- nothing"]
    if built.lines:
        lines += ["", "## Compared with the official OntoGUM files", "", *(f"    {line}" for line in built.lines)]
    return "\n".join(lines) + "\n"
