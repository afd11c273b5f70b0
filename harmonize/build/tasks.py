"""The work of a build: one task per corpus (`build_corpus`, run in a worker), then the release's top files
(`finish_release`). Tasks return summaries (plain data) and leave a cache entry behind them."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from pathlib import Path

from harmonize.build import opened_files
from harmonize.build.recipe import SPLITS, CorpusRecipe, Recipe, SplitShares
from harmonize.errors import HarmonizeError, Report
from harmonize.io import atomic_write_text
from harmonize.schemas.model import Corpus, Document

OVERVIEW = ("documents", "sentences", "words", "zeros", "mentions", "entities", "singletons", "mention_length",
            "entity_length", "split_antecedents")
ECBPLUS_DEV = ("2", "5", "12", "18", "21", "23", "34", "35")  # Cybulska & Vossen 2015, as ariecattan/coref uses it


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assign_splits(corpus: CorpusRecipe, documents: list[Document], report: Report | None = None) -> dict[str, str]:
    """Document id -> split, as the recipe's ``split`` says; the split file read goes into ``report``'s inputs."""
    ids = [str(d.id) for d in documents]
    if isinstance(corpus.split, SplitShares):
        return _by_shares(documents, corpus.split)
    if isinstance(corpus.split, Path):
        if report is not None:
            report.opened(corpus.split)
        named = {}
        for number, line in enumerate(corpus.split.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() and not line.startswith("#"):
                parts = line.split()
                if len(parts) != 2:
                    raise HarmonizeError(f"{corpus.split}:{number}: a line is 'DOCUMENT_ID SPLIT'")
                named[parts[0]] = parts[1]
        missing = [i for i in ids if i not in named]
        if missing:
            raise HarmonizeError(f"{corpus.split}: no split for {len(missing)} document(s), e.g. {missing[0]!r}")
        return {i: named[i] for i in ids}
    return _own_split(corpus, documents, report)


def _own_split(corpus: CorpusRecipe, documents: list[Document], report: Report | None) -> dict[str, str]:
    from harmonize.build.recipe import splits_file
    from harmonize.converters.gum import read_splits

    found = splits_file(corpus.source, corpus.inputs)
    if found is not None:
        if report is not None:
            report.opened(found)
        named = {doc: split for split, docs in read_splits(found.parent).items() for doc in docs}
        missing = [str(d.id) for d in documents if str(d.id) not in named]
        if missing:
            raise HarmonizeError(f"{found}: no split for {missing[0]!r}")
        return {str(d.id): named[str(d.id)] for d in documents}
    if corpus.source == "ecbplus":
        return {str(d.id): "dev" if d.topic in ECBPLUS_DEV else "test" if d.topic and d.topic.isdigit() and int(
            d.topic) >= 36 else "train" for d in documents}
    raise HarmonizeError(f"{corpus.source} input has no split of its own (GUM's splits.md, ECB+'s topics): give "
                         "split = {train = 8, dev = 1, test = 1, seed = 0} or a split file")


def _by_shares(documents: list[Document], shares: SplitShares) -> dict[str, str]:
    """Whole documents in a seeded order fill train, dev and test by their share of the words."""
    sizes = {str(d.id): sum(1 for n in d.nodes() if not n.is_empty) for d in documents}
    order = sorted(sizes)
    random.Random(shares.seed).shuffle(order)
    total, parts = sum(sizes.values()), (("train", shares.train), ("dev", shares.dev), ("test", shares.test))
    bounds, running = [], 0
    for name, share in parts:
        running += share
        bounds.append((name, total * running / (shares.train + shares.dev + shares.test)))
    result, done, index = {}, 0, 0
    for doc in order:
        while index < len(bounds) - 1 and done >= bounds[index][1]:
            index += 1
        result[doc] = bounds[index][0]
        done += sizes[doc]
    return result


def overview(documents: list[Document]) -> dict[str, float]:
    """The collection table's row for one corpus (the CorefUD paper's overview columns)."""
    mentions = [m for d in documents for e in d.entities for m in e.mentions]
    entities = [e for d in documents for e in d.entities]
    words = sum(1 for d in documents for n in d.nodes() if not n.is_empty)
    return {
        "documents": len(documents), "sentences": sum(len(d.sentences) for d in documents), "words": words,
        "zeros": sum(1 for d in documents for n in d.nodes() if n.is_empty), "mentions": len(mentions),
        "entities": len(entities), "singletons": sum(1 for e in entities if len(e.mentions) == 1),
        "mention_length": round(sum(len(m.words) for m in mentions) / len(mentions), 2) if mentions else 0.0,
        "entity_length": round(len(mentions) / len(entities), 2) if entities else 0.0,
        "split_antecedents": sum(len(d.split_antecedents) for d in documents),
    }


def _split_order(names: set[str]) -> list[str]:
    return [s for s in SPLITS if s in names] + sorted(names - set(SPLITS))


def build_corpus(corpus: CorpusRecipe, plan: Recipe, release_folder: str, key: str) -> dict:
    """Read, rule, parse, split and write one corpus with its statistics, views, questions and validation; write
    its cache entry last; return its summary."""
    from harmonize.conversion import Steps, input_files
    from harmonize.converters import get_format
    from harmonize.io import paused_gc

    release = Path(release_folder)
    reader = get_format(corpus.source, "read")
    report = Report()
    documents: list[Document] = []
    with paused_gc():
        for path in input_files(list(corpus.inputs), reader):
            documents.extend(reader.read(path, False, report, dict(corpus.options)).documents)
    if not documents:
        raise HarmonizeError(f"corpus {corpus.name}: no documents in its input")
    whole = Corpus(documents)
    Steps(",".join(corpus.rules) or None, None if corpus.parse == "none" else corpus.parse).apply(whole, report)
    split_of = assign_splits(corpus, documents, report)
    folder = release / corpus.name
    splits = _split_order(set(split_of.values()))
    parts = {split: [d for d in documents if split_of[str(d.id)] == split] for split in splits}
    written: dict[str, Report] = {}
    for split, members in parts.items():
        for name in plan.formats:
            writer = get_format(name, "write")
            target = folder / f"{corpus.name}-{name}-{split}{'' if writer.writes_per_document else writer.extension}"
            writer.writer(Corpus(members), target, written.setdefault(name, Report()))  # type: ignore[misc]
    opened = opened_files(report.inputs, corpus)
    summary: dict = {
        "name": corpus.name, "from": corpus.source, "options": dict(corpus.options), "rules": list(corpus.rules),
        "parse": corpus.parse, "split": _split_text(corpus),
        "inputs": {name: entry["sha256"] for name, entry in opened.items()},
        "splits": {s: overview(members) for s, members in parts.items()},
        "overview": overview(documents), "documents": len(documents),
        "words": overview(documents)["words"], "report": {r: c for r, c in sorted(report.counts.items())},
        "writer_report": {name: dict(sorted(r.counts.items())) for name, r in written.items() if r},
        "warnings": _empty_parts(corpus, parts),
    }
    if plan.stats:
        _corpus_statistics(documents, split_of, folder)
    if plan.views:
        from harmonize.views.html import write_views

        write_views(whole, release / "views" / corpus.name)
    summary["lengths"] = _lengths(documents)
    summary["questions"] = _questions(corpus, parts, plan) if plan.pcr is not None else []
    summary["validation"] = _validate(corpus, plan, folder, parts) if plan.validate != "none" else {}
    written = [p for p in sorted(folder.rglob("*")) if p.is_file()]
    if plan.views:
        written += [p for p in sorted((release / "views" / corpus.name).rglob("*")) if p.is_file()]
    summary["files"] = {p.relative_to(release).as_posix(): _digest(p) for p in written}
    atomic_write_text(release / ".cache" / f"{corpus.name}.json",
                      json.dumps({"key": key, "opened": opened, "summary": summary}, sort_keys=True, indent=1))
    return summary


def _split_text(corpus: CorpusRecipe) -> str:
    if isinstance(corpus.split, SplitShares):
        s = corpus.split
        return f"train {s.train} : dev {s.dev} : test {s.test}, seed {s.seed}, whole documents"
    if isinstance(corpus.split, Path):
        return f"split file {corpus.given_split or corpus.split.name}"
    return "the corpus' own"


def _empty_parts(corpus: CorpusRecipe, parts: dict[str, list[Document]]) -> list[str]:
    """A split the recipe gives a share that no document went to (too few documents for the shares)."""
    if not isinstance(corpus.split, SplitShares):
        return []
    documents = sum(len(members) for members in parts.values())
    return [f"{corpus.name}: the {name} part is empty ({documents} document(s) for the shares "
            f"{corpus.split.train}:{corpus.split.dev}:{corpus.split.test}; documents are never cut)"
            for name in SPLITS if getattr(corpus.split, name) > 0 and not parts.get(name)]


def _lengths(documents: list[Document]) -> dict[str, dict[str, int]]:
    entities = Counter(len(e.mentions) for d in documents for e in d.entities)
    mentions = Counter(len(m.words) for d in documents for e in d.entities for m in e.mentions)
    return {"entities": {str(k): v for k, v in sorted(entities.items())},
            "mentions": {str(k): v for k, v in sorted(mentions.items())}}


def _corpus_statistics(documents: list[Document], split_of: dict[str, str], folder: Path) -> None:
    from harmonize.stats import count, length_distributions, tables_from_counts
    from harmonize.stats.render import render, write_plots

    groups = count(documents, None, True, lambda d: split_of[str(d.id)])
    tables = tables_from_counts(groups)
    atomic_write_text(folder / "stats.json", render(tables, "json"))
    atomic_write_text(folder / "stats.md", render(tables, "markdown"))
    write_plots(tables, length_distributions(groups), folder / "plots", by="split")


def _questions(corpus: CorpusRecipe, parts: dict[str, list[Document]], plan: Recipe) -> list[dict]:
    from harmonize.pcr.generate import Settings, generate

    assert plan.pcr is not None
    settings = Settings(corpus.name, plan.pcr["seed"], plan.pcr["window"])
    result = []
    for split, members in parts.items():
        for question in generate(Corpus(members), settings, Report()):
            result.append({"split": split, **question.to_json()})
    return result


def _validator_failure(output: str, documents: list[Document]) -> str:
    """What udvalidate found, per class ("FORMAT 874, SYNTAX 874"), and why where it is plain: no trees."""
    import re

    classes = re.findall(r"^(\w+) errors: (\d+)$", output, re.MULTILINE)
    found = ", ".join(f"{name} {count}" for name, count in classes) or (output.strip().splitlines() or [""])[-1]
    treeless = all(node.head in ("", "_") for d in documents for s in d.sentences for node in s.words)
    return f"fails: {found}" + (" (no trees: level 2 needs them; parse = \"udpipe:MODEL\" gives them)"
                                if treeless else "")


def _validate(corpus: CorpusRecipe, plan: Recipe, folder: Path, parts: dict[str, list[Document]]) -> dict:
    """Our checks of the written CorefUD (udapi loads it; udvalidate where installed) and the rule baseline (and with
    validate = "neural" the resolver trained on the train part) on the dev part (else test, else all) in CorefUD's
    primary setting."""
    import shutil
    import subprocess

    from harmonize.converters.corefud import read_corefud
    from harmonize.resolvers.rules import resolve_rules

    split = next((s for s in ("dev", "test") if s in parts), next(iter(parts)))
    written = folder / f"{corpus.name}-corefud-{split}.conllu"
    checks: dict = {"split": split}
    try:
        import logging

        import udapi

        logging.disable(logging.WARNING)
        try:
            loaded = udapi.Document(str(written))
            checks["udapi"] = f"loads: {sum(len(e.mentions) for e in loaded.coref_entities)} mentions"
        finally:
            logging.disable(logging.NOTSET)
    except ImportError:
        checks["udapi"] = "not installed"
    except Exception as error:  # noqa: BLE001 - whatever udapi raises is the finding
        checks["udapi"] = f"fails: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    validator = shutil.which("udvalidate")
    if validator is None:
        checks["udvalidate"] = "not installed"
    else:
        language = corpus.name.split("_")[0]
        done = subprocess.run([validator, "--lang", language, "--level", "2", "--coref", str(written)],
                              capture_output=True, text=True, check=False)
        checks["udvalidate"] = "passes" if done.returncode == 0 else _validator_failure(done.stdout + done.stderr,
                                                                                    parts[split])
    gold = read_corefud(written)
    predicted = read_corefud(written)
    resolve_rules(predicted, False, Report())
    checks["rule baseline"] = _scores(gold, predicted)
    if plan.validate == "neural":
        checks["resolver"] = _neural(corpus, plan, folder, split, gold)
    return checks


def _scores(gold: Corpus, predicted: Corpus) -> dict[str, float]:
    """F1 (percent) in CorefUD's primary setting: partial matching, singletons left out."""
    from harmonize.scoring.score import score_corpora

    scores = score_corpora(gold, predicted, ["muc", "bcub", "ceafe", "lea", "mentions"], mode="partial")
    row = {name: round(100 * score.f1, 2) for name, score in scores.metrics.items()}
    row["conll"] = round(100 * (scores.conll or 0.0), 2)
    return row


def _neural(corpus: CorpusRecipe, plan: Recipe, folder: Path, split: str, gold: Corpus) -> dict[str, float]:
    """The neural resolver trained on the corpus' train part (as [outputs.train] says), scored on ``split``."""
    import tempfile

    from harmonize.converters.corefud import read_corefud
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training, fresh_copy, load, resolve, train

    settings = plan.train
    train_file = folder / f"{corpus.name}-corefud-train.conllu"
    if not train_file.is_file():
        raise HarmonizeError(f"corpus {corpus.name}: validate = \"neural\" needs a train part")
    training = Training(epochs=settings["epochs"], seed=settings["seed"], device=settings["device"],
                        max_minutes=settings["max_minutes"])
    with tempfile.TemporaryDirectory(prefix="harmonize-build-model-") as scratch:
        train(read_corefud(train_file), gold, scratch, ResolverConfig(encoder=settings["encoder"]), training,
              report=Report(), progress=False, log=lambda line: None)
        model, tokenizer, device = load(scratch, settings["device"])
        predicted = fresh_copy(gold)
        resolve(model, tokenizer, predicted, device, Report())
    return _scores(gold, predicted)


# -- the release's top files ----------------------------------------------------------------------------------------

def finish_release(plan: Recipe, release: Path, summaries: list[dict]) -> None:
    """Comparative statistics and plots, the questions of every corpus, validation, README and MANIFEST.sha256;
    skipped where the corpus summaries and the recipe are what the last finish was made from."""
    import pandas as pd

    from harmonize import __version__

    key = hashlib.sha256(json.dumps([__version__, plan.text, summaries], sort_keys=True).encode()).hexdigest()
    marker = release / ".cache" / "_release.json"
    manifest = release / "MANIFEST.sha256"
    if marker.is_file() and manifest.is_file() and json.loads(marker.read_text(encoding="utf-8")).get("key") == key \
            and _manifest_holds(release, manifest):
        return
    frame = pd.DataFrame([{"corpus": s["name"], **s["overview"]} for s in summaries]).set_index("corpus")
    frame.index.name = "group"
    tables = {"collection": frame}
    if plan.stats:
        from harmonize.stats.render import render, write_plots

        atomic_write_text(release / "stats.md", render(tables, "markdown"))
        atomic_write_text(release / "stats.json", render(tables, "json"))
        lengths = {s["name"]: (Counter({int(k): v for k, v in s["lengths"]["entities"].items()}),
                               Counter({int(k): v for k, v in s["lengths"]["mentions"].items()})) for s in summaries}
        write_plots(tables, lengths, release / "plots", by="corpus")
    if plan.pcr is not None:
        for split in _split_order({q["split"] for s in summaries for q in s["questions"]}):
            records = [{k: v for k, v in q.items() if k != "split"} for s in summaries for q in s["questions"]
                       if q["split"] == split]
            atomic_write_text(release / "pcr" / f"{split}.jsonl",
                              "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    if plan.validate != "none":
        validation = {s["name"]: s["validation"] for s in summaries}
        atomic_write_text(release / "validation.json", json.dumps(validation, indent=1, sort_keys=True) + "\n")
        atomic_write_text(release / "validation.md", _validation_markdown(validation))
    atomic_write_text(release / "README.md", _readme(plan, summaries, tables))
    _write_manifest(release, manifest)
    atomic_write_text(marker, json.dumps({"key": key}))


def _validation_markdown(validation: dict) -> str:
    header = ("| corpus | split | udapi | udvalidate --level 2 --coref | rule baseline CoNLL | mentions F1 | "
              "resolver CoNLL | mentions F1 |")
    lines = ["# Validation", "", header, "| --- | --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for name, checks in validation.items():
        baseline, resolver = checks.get("rule baseline", {}), checks.get("resolver", {})
        lines.append(f"| {name} | {checks.get('split', '')} | {checks.get('udapi', '')} | "
                     f"{checks.get('udvalidate', '')} | {baseline.get('conll', '')} | {baseline.get('mentions', '')} "
                     f"| {resolver.get('conll', '-')} | {resolver.get('mentions', '-')} |")
    return "\n".join(lines) + "\n"


def _readme(plan: Recipe, summaries: list[dict], tables: dict) -> str:
    from harmonize import __version__
    from harmonize.stats.render import render

    lines = [f"# {plan.name}" + (f" {plan.version}" if plan.version else ""), ""]
    if plan.description:
        lines += [plan.description, ""]
    if plan.license:
        lines += [f"License: {plan.license}", ""]
    built_by = (f"Built by harmonize {__version__} (`harmonize build`) from the recipe below; every file is listed "
                "with its SHA-256 in `MANIFEST.sha256` (`sha256sum -c MANIFEST.sha256`).")
    lines += [built_by, "", "## Corpora", "", "| corpus | from | split | files |", "| --- | --- | --- | --- |"]
    for s in summaries:
        parts = ", ".join(f"{split}: {row['documents']} documents, {row['words']} words"
                          for split, row in s["splits"].items())
        lines.append(f"| {s['name']} | {s['from']} | {s['split']} | {parts} |")
    layout = ("Each corpus folder holds `NAME-FORMAT-SPLIT` files in every format of the recipe, `stats.md`, "
              "`stats.json` and `plots/`; `views/NAME/` the HTML pages; `pcr/` the questions of every corpus; "
              "`validation.md` the checks.")
    lines += ["", layout, "", "## The collection", "", render(tables, "markdown").strip(), "",
              "## Provenance", ""]
    for s in summaries:
        lines.append(f"### {s['name']}")
        lines.append("")
        lines.append(f"- reader `{s['from']}`, options {json.dumps(s['options'], sort_keys=True)}, rules "
                     f"{', '.join(s['rules']) or 'none'}, parse `{s['parse']}`")
        for warning in s.get("warnings", []):
            lines.append(f"- **warning**: {warning}")
        for reason, count in s["report"].items():
            lines.append(f"- reading and rules: {count} x {reason}")
        for writer, counts in s.get("writer_report", {}).items():
            for reason, count in counts.items():
                lines.append(f"- writing {writer}: {count} x {reason}")
        lines.append("")
    lines += ["## Input files", "", "Every file the readers opened, named as the recipe names its inputs:", "",
              "```"]
    for s in summaries:
        for name, digest in s["inputs"].items():
            lines.append(f"{digest}  {name}")
    lines += ["```", "", "## Recipe", "", "```toml", plan.text.rstrip(), "```", ""]
    return "\n".join(lines)


def _manifest_files(release: Path, manifest: Path) -> list[Path]:
    return sorted(p for p in release.rglob("*") if p.is_file() and p != manifest
                  and ".cache" not in p.relative_to(release).parts)


def _write_manifest(release: Path, manifest: Path) -> None:
    atomic_write_text(manifest, "".join(f"{_digest(p)}  {p.relative_to(release).as_posix()}\n"
                                        for p in _manifest_files(release, manifest)))


def _manifest_holds(release: Path, manifest: Path) -> bool:
    """Whether every file the manifest lists is there unchanged, and no other."""
    listed = {}
    for line in manifest.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    present = {p.relative_to(release).as_posix(): p for p in _manifest_files(release, manifest)}
    return set(listed) == set(present) and all(_digest(present[n]) == d for n, d in listed.items())
