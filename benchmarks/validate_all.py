"""`harmonize validate` on every seed corpus, one table: the baselines (the rule baseline; string match on the
gold mentions and on the resolver's own) and the resolver, each corpus converted by its reader, trained within a
budget, scored on documents never tuned on.

    python benchmarks/validate_all.py [--minutes 3] [--device auto] [--corpora gum,litbank,...]
                                      [--output benchmarks/results/validate_all.md] [--data ../shared/data]
                                      [--render] [--update]

Each corpus' documents, in order of file name, are cut once: every 5th is dev (scored untouched), the others train
(of which `harmonize.resolvers.protocol` holds some out to choose the epoch on); ``--max-train``/``--max-dev`` bound
them where a corpus is large, the first ones of each taken. Training stops at ``--minutes`` (the learning rate
decays to zero as the budget runs out). The table gives CoNLL F1 (mention F1 in brackets) in CorefUD's primary
setting (partial matching, singletons left out), or the reason a row has no figure; the resolver's margin over
string match on its own mentions; the epochs trained (a share of one where the budget ran out within it); the
budget, the device and the time each corpus took. ECB+ across documents is scored Cattan et al.'s way (its standard
split, thresholds chosen by cross-validation over the train topics, a row for events and one for entities; the
same-lemma baseline is its string match); the PCC TEI sample (one document) says why it has no row. The docs include
the table this script writes; the figures go to the ``.json`` beside it (each row with the commit that made it),
from which ``--render`` writes the table again; ``--update`` reruns only ``--corpora`` and keeps the other rows.
"""

from __future__ import annotations

import json
import subprocess
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
    across_documents: bool = False  # ECB+'s standard split, `harmonize.resolvers.cross_document_validation`


SEEDS = (
    Seed("GUM 11.1.0", "en", "corefud", "gum/v11.1.0/dep", "GUM_*.conllu"),
    Seed("LitBank", "en", "conll2012", "litbank/conll", "*.conll"),
    Seed("ParCorFull EN (news)", "en", "mmax2", "mmax2/parcorfull/news/EN", "*.mmax"),
    Seed("ParCorFull DE (news)", "de", "mmax2", "mmax2/parcorfull/news/DE", "*.mmax"),
    Seed("Potsdam Commentary 2.2", "de", "mmax2", "mmax2/potsdam_pcc2.2/coreference-mmax", "*.mmax"),
    Seed("RuCoCo", "ru", "rucoco", "rucoco/json", "*.json"),
    Seed("ECB+ (within documents)", "en", "ecbplus", "ecbplus/ECB+", "*/*.xml"),
    Seed("ECB+ (across documents)", "en", "ecbplus", "ecbplus/ECB+", "*/*.xml", across_documents=True),
    Seed("PCC TEI sample", "pl", "tei", "pcc/tei_format_sample_liner2", "*"),
)
# The cross-document rows in the table's columns: the same-lemma baseline is ECB+'s string match (head lemmas
# across the documents of a topic), on the gold mentions and on the detected ones; no rule baseline crosses documents.
ACROSS_DOCUMENTS = {"string match, gold mentions": ("gold", "lemma baseline"),
                    "string match, resolver's mentions": ("predicted", "lemma baseline"),
                    "resolver": ("predicted", "model")}
NO_RULES_ACROSS = "no rule baseline links mentions across documents"


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
    from harmonize.resolvers.validate import trained_epochs, validate

    row = {"corpus": seed.name, "language": seed.language}
    if seed.across_documents:
        return run_across_documents(seed, data, row, device)
    files = sorted((data / seed.folder).glob(seed.pattern))
    if len(files) < 5:
        return {**row, "skipped": f"{seed.folder}: {len(files)} document(s), too few to cut into train and dev"}
    train, dev = split(files, max_train, max_dev)
    started = time.monotonic()
    result = validate(train, dev, seed.reader, lenient=True, config=ResolverConfig(),
                      training=Training(epochs=50, device=device, max_minutes=minutes), report=Report(),
                      progress=False, log=lambda line: print(f"  {seed.name}: {line}", file=sys.stderr))
    return {**row, "train": len(train), "dev": len(dev), "epochs": round(trained_epochs(result.history), 1),
            "minutes": round((time.monotonic() - started) / 60, 1), "reasons": result.reasons, "notes": result.notes,
            "scores": {name: {"conll": round(s["conll"], 2), "mentions": round(s["mentions"], 2)}
                       for name, s in result.rows.items()}}


def run_across_documents(seed: Seed, data: Path, row: dict, device: str) -> dict:
    """ECB+ across documents, Cattan et al.'s way (`benchmarks/cross_document.py`): the train topics learnt, the
    thresholds chosen by cross-validation over them, the dev topics scored untouched; CoNLL at the topic level, exact
    matching, events and entities apart (a row each), no time budget (the encoder is frozen: training takes
    minutes)."""
    from harmonize import read
    from harmonize.converters.ecbplus import DEV_TOPICS
    from harmonize.errors import Report
    from harmonize.resolvers.cross_document_validation import validate_cross_document
    from harmonize.schemas.model import Corpus

    corpus = read(data / seed.folder, seed.reader, report=Report(), sentences="validated-text")
    train = Corpus(documents=[d for d in corpus.documents if d.topic not in DEV_TOPICS])
    dev = Corpus(documents=[d for d in corpus.documents if d.topic in DEV_TOPICS])
    started = time.monotonic()
    result = validate_cross_document(train, dev, "topic", device=device,
                                     log=lambda line: print(f"  {seed.name}: {line}", file=sys.stderr))
    minutes = round((time.monotonic() - started) / 60, 1)
    rows = []
    for kind, label in (("event", "events"), ("entity", "entities")):
        scores = {name: {"conll": round(result.rows[("dev", mentions, system, kind)]["conll"], 2),
                         "mentions": round(result.rows[("dev", mentions, system, kind)]["mention F1"], 2)}
                  for name, (mentions, system) in ACROSS_DOCUMENTS.items()}
        rows.append({**row, "corpus": f"{seed.name}, {label}", "train": len(train.documents),
                     "dev": len(dev.documents), "epochs": None, "minutes": minutes, "across_documents": True,
                     "reasons": {"rule baseline": NO_RULES_ACROSS}, "scores": scores})
    return {"rows": rows}


def table(results: dict) -> str:
    """The results as the docs show them: a row per corpus, the resolver's margin over string match on its own
    mentions, each reason a row has no figure, and how a row was made where not the usual way, as a numbered note."""
    from harmonize.resolvers.validate import RESOLVER, ROW_ORDER, STRING_PREDICTED

    notes: list[str] = []

    def note(reason: str) -> str:
        if reason not in notes:
            notes.append(reason)
        return f"n/a ({notes.index(reason) + 1})"

    def margin(run: dict) -> str:
        for name in (STRING_PREDICTED, RESOLVER):
            if name in run["reasons"]:
                return note(run["reasons"][name])
        return f"{run['scores'][RESOLVER]['conll'] - run['scores'][STRING_PREDICTED]['conll']:+.2f}"

    lines = [f"Budget: {results['minutes']:g} minutes of training a corpus, device {results['device']}; CoNLL F1 on "
             "dev (mention F1 in brackets), partial matching, singletons left out; dev never tuned on.", "",
             "| corpus | lang | train / dev docs | " + " | ".join(ROW_ORDER)
             + " | resolver - string match | epochs | minutes |",
             "| --- | --- | ---: | " + " | ".join("---:" for _ in ROW_ORDER) + " | ---: | ---: | ---: |"]
    across = "across documents: ECB+'s standard split (dev topics 2, 5, 12, 18, 21, 23, 34, 35), thresholds chosen " \
             "by cross-validation over the train topics; CoNLL at the topic level, exact matching, singletons left " \
             "out; mention F1 exact, singletons included; no budget (a frozen encoder: minutes)"
    for run in results["corpora"]:
        name = f"{run['corpus']} {note(across).replace('n/a ', '')}" if run.get("across_documents") else run["corpus"]
        if "skipped" in run:
            lines.append(f"| {name} | {run['language']} | | {note(run['skipped'])} | "
                         + " | ".join("" for _ in ROW_ORDER[1:]) + " | | | |")
            continue
        cells = [note(run["reasons"][row]) if row in run["reasons"]
                 else f"{run['scores'][row]['conll']:.2f} ({run['scores'][row]['mentions']:.2f})"
                 + (f", see {note(run['notes'][row]).replace('n/a ', '')}" if row in run.get("notes", {}) else "")
                 for row in ROW_ORDER]
        epochs = "" if run["epochs"] is None else f"{run['epochs']:g}"
        lines.append(f"| {name} | {run['language']} | {run['train']} / {run['dev']} | " + " | ".join(cells)
                     + f" | {margin(run)} | {epochs} | {run['minutes']:.1f} |")
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
    parser.add_argument("--update", action="store_true",
                        help="Rerun only --corpora, keeping the other rows of OUTPUT's .json (same budget and device)")
    options = parser.parse_args()
    figures = options.output.with_suffix(".json")
    if options.render:
        results = json.loads(figures.read_text(encoding="utf-8"))
    else:
        wanted = [name.strip().lower() for name in options.corpora.split(",") if name.strip()]
        seeds = [s for s in SEEDS if not wanted or any(s.name.lower().startswith(w) for w in wanted)]
        kept = json.loads(figures.read_text(encoding="utf-8")) if options.update else None
        if kept is not None and (kept["minutes"], kept["device"]) != (options.minutes, options.device):
            parser.error(f"--update: {figures} was made with {kept['minutes']:g} minutes on {kept['device']}")
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip()
        runs = {}
        for seed in seeds:
            print(f"{seed.name}...", file=sys.stderr)
            run = run_seed(seed, options.data, options.minutes, options.device, options.max_train, options.max_dev)
            runs[seed.name] = [{**row, "commit": commit} for row in run.get("rows", [run])]
        order = [seed.name for seed in SEEDS]
        for row in kept["corpora"] if kept is not None else ():
            seed = next(name for name in order if row["corpus"].startswith(name))
            if seed not in {s.name for s in seeds}:
                runs.setdefault(seed, []).append(row)
        results = {"minutes": options.minutes, "device": options.device,
                   "corpora": [row for name in order for row in runs.get(name, [])]}
        options.output.parent.mkdir(parents=True, exist_ok=True)
        figures.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    text = table(results)
    options.output.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
