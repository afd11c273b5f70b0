"""`harmonize validate` on every seed corpus, one table: the baselines (the rule baseline; string match on the
gold mentions and on the resolver's own) and the resolver, each corpus converted by its reader, trained within a
budget, scored on documents never tuned on.

    python benchmarks/validate_all.py [--minutes 3] [--device auto] [--corpora gum,litbank,...]
                                      [--output benchmarks/results/validate_all.md] [--data ../shared/data]

Each corpus' documents, in order of file name, are cut once: every 5th is dev (scored untouched), the others train
(of which `harmonize.resolvers.protocol` holds some out to choose the epoch on); ``--max-train``/``--max-dev``
bound them where a corpus is large, the first ones of each taken. Training stops at ``--minutes`` (the learning
rate decays to zero as the budget runs out). The table gives CoNLL F1 (mention F1 in brackets) in CorefUD's primary
setting (partial matching, singletons left out), or the reason a row has no figure; the budget, the device and the
time each corpus took are in the lines above it. The docs include the table this script writes.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from common import DEFAULT_DATA, arguments

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
    from harmonize.errors import Report
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training
    from harmonize.resolvers.validate import validate

    files = sorted((data / seed.folder).glob(seed.pattern))
    if len(files) < 5:
        return {"seed": seed, "skipped": f"{data / seed.folder}: fewer than 5 documents"}
    train, dev = split(files, max_train, max_dev)
    started = time.monotonic()
    report = Report()
    result = validate(train, dev, seed.reader, lenient=True, config=ResolverConfig(),
                      training=Training(epochs=50, device=device, max_minutes=minutes), report=report,
                      progress=False, log=lambda line: print(f"  {seed.name}: {line}", file=sys.stderr))
    return {"seed": seed, "result": result, "seconds": time.monotonic() - started, "train": len(train),
            "dev": len(dev), "epochs": len(result.history)}


def table(runs: list[dict], minutes: float, device: str) -> str:
    from harmonize.resolvers.validate import ROW_ORDER

    lines = [f"Budget: {minutes:g} minutes of training a corpus, device {device}; CoNLL F1 on dev (mention F1 in "
             "brackets), partial matching, singletons left out; dev never tuned on.", "",
             "| corpus | lang | train / dev docs | " + " | ".join(ROW_ORDER) + " | epochs | minutes |",
             "| --- | --- | ---: | " + " | ".join("---:" for _ in ROW_ORDER) + " | ---: | ---: |"]
    for run in runs:
        seed = run["seed"]
        if "skipped" in run:
            lines.append(f"| {seed.name} | {seed.language} | | " + " | ".join("" for _ in ROW_ORDER)
                         + f" | | | {run['skipped']} |")
            continue
        result = run["result"]
        cells = []
        for row in ROW_ORDER:
            if row in result.reasons:
                cells.append(f"n/a: {result.reasons[row]}")
            else:
                scores = result.rows[row]
                cells.append(f"{scores['conll']:.2f} ({scores['mentions']:.2f})")
        lines.append(f"| {seed.name} | {seed.language} | {run['train']} / {run['dev']} | " + " | ".join(cells)
                     + f" | {run['epochs']} | {run['seconds'] / 60:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--corpora", default="", help="Comma-separated start of names (default: all)")
    parser.add_argument("--max-train", type=int, default=60)
    parser.add_argument("--max-dev", type=int, default=15)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    options = parser.parse_args()
    wanted = [name.strip().lower() for name in options.corpora.split(",") if name.strip()]
    seeds = [s for s in SEEDS if not wanted or any(s.name.lower().startswith(w) for w in wanted)]
    runs = []
    for seed in seeds:
        print(f"{seed.name}...", file=sys.stderr)
        runs.append(run_seed(seed, options.data, options.minutes, options.device, options.max_train,
                             options.max_dev))
    text = table(runs, options.minutes, options.device)
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
