"""`harmonize validate` on every seed corpus, one table: the baselines (the rule baseline; string match on the
gold mentions and on the resolver's own) and the resolver, each corpus converted by its reader, trained within a
budget, scored on documents never tuned on.

    python benchmarks/validate_all.py [--minutes 3] [--device auto] [--corpora gum,litbank,...]
                                      [--output benchmarks/results/validate_all.md] [--data ../shared/data]
                                      [--render]

Each corpus' documents, in order of file name, are cut once: every 5th is dev (scored untouched), the others train
(of which `harmonize.resolvers.protocol` holds some out to choose the epoch on); ``--max-train``/``--max-dev``
bound them where a corpus is large, the first ones of each taken. Training stops at ``--minutes`` (the learning
rate decays to zero as the budget runs out). The table gives CoNLL F1 (mention F1 in brackets) in CorefUD's primary
setting (partial matching, singletons left out), or the reason a row has no figure; the budget, the device and the
time each corpus took are in the lines above it. The docs include the table this script writes; the figures go
to the ``.json`` beside it, from which ``--render`` writes the table again.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import arguments

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "validate_all.md"


@dataclass(frozen=True)
class Seed:
    """A seed corpus as the suite's shared data holds it: its reader and files (a folder's files in name order)."""

    name: str
    language: str
    reader: str
    folder: str
    pattern: str


SEEDS = (
    Seed("GUM 11.1.0", "en", "corefud", "gum/v11.1.0/dep", "GUM_*.conllu"),
    Seed("LitBank", "en", "conll2012", "litbank/conll", "*.conll"),
    Seed("ParCorFull EN (news)", "en", "mmax2", "mmax2/parcorfull/news/EN", "*.mmax"),
    Seed("ParCorFull DE (news)", "de", "mmax2", "mmax2/parcorfull/news/DE", "*.mmax"),
    Seed("Potsdam Commentary 2.2", "de", "mmax2", "mmax2/potsdam_pcc2.2/coreference-mmax", "*.mmax"),
    Seed("RuCoCo", "ru", "rucoco", "rucoco/json", "*.json"),
    Seed("ECB+ (within documents)", "en", "ecbplus", "ecbplus/ECB+", "*/*.xml"),
)


def split(files: list[Path], max_train: int, max_dev: int) -> tuple[list[Path], list[Path]]:
    """Every 5th file dev, the others train, each bounded (the first ones kept)."""
    dev = files[4::5][:max_dev]
    train = [f for i, f in enumerate(files) if i % 5 != 4][:max_train]
    return train, dev


def run_seed(seed: Seed, data: Path, minutes: float, device: str, max_train: int, max_dev: int) -> dict:
    """One corpus' row: its figures (CoNLL and mention F1 per system) or the reasons it has none."""
    from harmonize.errors import Report
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training
    from harmonize.resolvers.validate import validate

    row = {"corpus": seed.name, "language": seed.language}
    files = sorted((data / seed.folder).glob(seed.pattern))
    if len(files) < 5:
        return {**row, "skipped": f"{data / seed.folder}: fewer than 5 documents"}
    train, dev = split(files, max_train, max_dev)
    started = time.monotonic()
    result = validate(train, dev, seed.reader, lenient=True, config=ResolverConfig(),
                      training=Training(epochs=50, device=device, max_minutes=minutes), report=Report(),
                      progress=False, log=lambda line: print(f"  {seed.name}: {line}", file=sys.stderr))
    return {**row, "train": len(train), "dev": len(dev), "epochs": len(result.history),
            "minutes": round((time.monotonic() - started) / 60, 1), "reasons": result.reasons,
            "scores": {name: {"conll": round(s["conll"], 2), "mentions": round(s["mentions"], 2)}
                       for name, s in result.rows.items()}}


def table(results: dict) -> str:
    """The results as the docs show them: a row per corpus, each reason a row has no figure as a numbered note."""
    from harmonize.resolvers.validate import ROW_ORDER

    notes: list[str] = []

    def note(reason: str) -> str:
        if reason not in notes:
            notes.append(reason)
        return f"n/a ({notes.index(reason) + 1})"

    lines = [f"Budget: {results['minutes']:g} minutes of training a corpus, device {results['device']}; CoNLL F1 on "
             "dev (mention F1 in brackets), partial matching, singletons left out; dev never tuned on.", "",
             "| corpus | lang | train / dev docs | " + " | ".join(ROW_ORDER) + " | epochs | minutes |",
             "| --- | --- | ---: | " + " | ".join("---:" for _ in ROW_ORDER) + " | ---: | ---: |"]
    for run in results["corpora"]:
        if "skipped" in run:
            lines.append(f"| {run['corpus']} | {run['language']} | " + " | ".join("" for _ in ROW_ORDER)
                         + f" | | | {note(run['skipped'])} |")
            continue
        cells = [note(run["reasons"][name]) if name in run["reasons"]
                 else f"{run['scores'][name]['conll']:.2f} ({run['scores'][name]['mentions']:.2f})" for name in ROW_ORDER]
        lines.append(f"| {run['corpus']} | {run['language']} | {run['train']} / {run['dev']} | " + " | ".join(cells)
                     + f" | {run['epochs']} | {run['minutes']:.1f} |")
    lines += ["", *(f"({number}) {reason}" + ("  " if number < len(notes) else "")
                    for number, reason in enumerate(notes, 1))]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--corpora", default="", help="Comma-separated start of names (default: all)")
    parser.add_argument("--max-train", type=int, default=60)
    parser.add_argument("--max-dev", type=int, default=15)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--render", action="store_true", help="Only write the table again from OUTPUT's .json")
    options = parser.parse_args()
    figures = options.output.with_suffix(".json")
    if options.render:
        results = json.loads(figures.read_text(encoding="utf-8"))
    else:
        wanted = [name.strip().lower() for name in options.corpora.split(",") if name.strip()]
        seeds = [s for s in SEEDS if not wanted or any(s.name.lower().startswith(w) for w in wanted)]
        runs = []
        for seed in seeds:
            print(f"{seed.name}...", file=sys.stderr)
            runs.append(run_seed(seed, options.data, options.minutes, options.device, options.max_train,
                                 options.max_dev))
        results = {"minutes": options.minutes, "device": options.device, "corpora": runs}
        options.output.parent.mkdir(parents=True, exist_ok=True)
        figures.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    text = table(results)
    options.output.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
