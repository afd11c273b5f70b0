"""The work of a build: one task per corpus (`build_corpus`, run in a worker), then the release's top files
(`finish_release`). Tasks return summaries (plain data) and leave a cache entry behind them."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harmonize.errors import HarmonizeError, Report
from harmonize.io import atomic_write_text, file_sha256
from harmonize.releases.cache import opened_files
from harmonize.releases.recipe import SPLITS, CorpusRecipe, Recipe, SplitShares
from harmonize.schemas.model import Corpus, Document

if TYPE_CHECKING:
    from harmonize.conversion import Steps
    from harmonize.converters.registry import Format

ECBPLUS_DEV = ("2", "5", "12", "18", "21", "23", "34", "35")  # Cybulska & Vossen 2015, as ariecattan/coref uses it


@dataclass(frozen=True)
class DocumentFacts:
    """What choosing a document's split needs of it: its id, topic and words (empty nodes left out)."""

    id: str
    topic: str | None
    words: int

    @classmethod
    def of(cls, document: Document) -> DocumentFacts:
        return cls(str(document.id), document.topic, sum(1 for n in document.nodes() if not n.is_empty))


def assign_splits(corpus: CorpusRecipe, documents: list[DocumentFacts], report: Report | None = None
                  ) -> dict[str, str]:
    """Document id -> split, as the recipe's ``split`` says; the split file read goes into ``report``'s inputs."""
    ids = [d.id for d in documents]
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


def _own_split(corpus: CorpusRecipe, documents: list[DocumentFacts], report: Report | None) -> dict[str, str]:
    from harmonize.converters.gum import read_splits
    from harmonize.releases.recipe import splits_file

    found = splits_file(corpus.source, corpus.inputs)
    if found is not None:
        if report is not None:
            report.opened(found)
        named = {doc: split for split, docs in read_splits(found.parent).items() for doc in docs}
        missing = [d.id for d in documents if d.id not in named]
        if missing:
            raise HarmonizeError(f"{found}: no split for {missing[0]!r}")
        return {d.id: named[d.id] for d in documents}
    if corpus.source == "ecbplus":
        return {d.id: "dev" if d.topic in ECBPLUS_DEV else "test" if d.topic and d.topic.isdigit() and int(
            d.topic) >= 36 else "train" for d in documents}
    raise HarmonizeError(f"{corpus.source} input has no split of its own (GUM's splits.md, ECB+'s topics): give "
                         "split = {train = 8, dev = 1, test = 1, seed = 0} or a split file")


def _by_shares(documents: list[DocumentFacts], shares: SplitShares) -> dict[str, str]:
    """Whole documents in a seeded order fill train, dev and test by their share of the words."""
    sizes = {d.id: d.words for d in documents}
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


class Overview:
    """The collection table's row for one corpus or split (the CorefUD paper's overview columns), counted a
    document at a time (``add``)."""

    def __init__(self) -> None:
        self.documents = self.sentences = self.words = self.zeros = self.mentions = self.mention_words = 0
        self.entities = self.singletons = self.split_antecedents = 0

    def add(self, document: Document) -> None:
        self.documents += 1
        self.sentences += len(document.sentences)
        for node in document.nodes():
            if node.is_empty:
                self.zeros += 1
            else:
                self.words += 1
        for entity in document.entities:
            self.entities += 1
            self.singletons += len(entity.mentions) == 1
            self.mentions += len(entity.mentions)
            self.mention_words += sum(len(m.words) for m in entity.mentions)
        self.split_antecedents += len(document.split_antecedents)

    def row(self) -> dict[str, float]:
        return {
            "documents": self.documents, "sentences": self.sentences, "words": self.words, "zeros": self.zeros,
            "mentions": self.mentions, "entities": self.entities, "singletons": self.singletons,
            "mention_length": round(self.mention_words / self.mentions, 2) if self.mentions else 0.0,
            "entity_length": round(self.mentions / self.entities, 2) if self.entities else 0.0,
            "split_antecedents": self.split_antecedents,
        }


def _split_order(names: set[str]) -> list[str]:
    return [s for s in SPLITS if s in names] + sorted(names - set(SPLITS))


def _streams(plan: Recipe) -> bool:
    """Whether every format the recipe asks for has a writer that takes documents one at a time
    (`harmonize.converters.registry.Format.document_writer`)."""
    from harmonize.converters import get_format

    return all(get_format(name, "write").document_writer is not None for name in plan.formats)


def build_corpus(corpus: CorpusRecipe, plan: Recipe, release_folder: str, key: str) -> dict:
    """Read, rule, parse, split and write one corpus with its statistics, views, questions and validation; write
    its cache entry last; return its summary.

    Where every format asked for has a writer that takes documents one at a time (`_streams`), the corpus goes
    through a document at a time, so that
    memory follows a piece of the input (a file, or a piece of a large CorefUD file), not the corpus: a first pass
    reads and rules it for what splitting and the writers' headers need of each document (`DocumentFacts`, the
    header it wants), a second reads and rules it again and hands each document to its split's writer, the counts,
    the views and the questions. Otherwise the corpus is read whole and each split written at once. Both give the
    same release, byte for byte."""
    from harmonize.conversion import Steps
    from harmonize.converters import get_format
    from harmonize.io import paused_gc

    release = Path(release_folder)
    reader = get_format(corpus.source, "read")
    report = Report()
    steps = Steps(",".join(corpus.rules) or None, None if corpus.parse == "none" else corpus.parse)
    folder = release / corpus.name
    written: dict[str, Report] = {name: Report() for name in plan.formats}
    with paused_gc():
        if _streams(plan):
            tally = _build_streamed(corpus, plan, release, reader, steps, report, written)
        else:
            tally = _build_held(corpus, plan, release, reader, steps, report, written)
    opened = opened_files(report.inputs, corpus)
    splits = list(tally.overviews)
    summary: dict = {
        "name": corpus.name, "from": corpus.source, "options": dict(corpus.options), "rules": list(corpus.rules),
        "parse": corpus.parse, "split": _split_text(corpus),
        "inputs": {name: entry["sha256"] for name, entry in opened.items()},
        "splits": {s: counted.row() for s, counted in tally.overviews.items()},
        "overview": tally.whole.row(), "documents": tally.whole.documents,
        "words": tally.whole.words, "report": {r: c for r, c in sorted(report.counts.items())},
        "writer_report": {name: dict(sorted(r.counts.items())) for name, r in written.items() if r},
        "warnings": _empty_parts(corpus, {s: counted.documents for s, counted in tally.overviews.items()})
        + _verify_release(corpus, plan, folder, reader, steps, written, list(tally.overviews)),
    }
    if plan.stats:
        _corpus_statistics(tally.counts, folder)
    summary["lengths"] = {"entities": {str(k): v for k, v in sorted(tally.entity_lengths.items())},
                          "mentions": {str(k): v for k, v in sorted(tally.mention_lengths.items())}}
    summary["questions"] = [question for split in splits for question in tally.questions.get(split, [])]
    summary["validation"] = _validate(corpus, plan, folder, splits, tally.has_trees) \
        if plan.validate != "none" else {}
    files = [p for p in sorted(folder.rglob("*")) if p.is_file()]
    if plan.views:
        files += [p for p in sorted((release / "views" / corpus.name).rglob("*")) if p.is_file()]
    summary["files"] = {p.relative_to(release).as_posix(): file_sha256(p) for p in files}
    atomic_write_text(release / ".cache" / f"{corpus.name}.json",
                      json.dumps({"key": key, "opened": opened, "summary": summary}, sort_keys=True, indent=1))
    return summary


class _Tally:
    """What a build keeps of a corpus' documents, taken a document at a time: each split's overview and the whole
    corpus', the length counts, the statistics' counts, the questions of each split, whether a split has trees."""

    def __init__(self, corpus: CorpusRecipe, plan: Recipe, split_of: dict[str, str]) -> None:
        from harmonize.stats import Counts

        self.split_of = split_of
        self.overviews = {split: Overview() for split in _split_order(set(split_of.values()))}
        self.whole = Overview()
        self.entity_lengths: Counter = Counter()
        self.mention_lengths: Counter = Counter()
        self.counts: dict[str, Counts] = {}
        self.stats = plan.stats
        self.questions: dict[str, list[dict]] = {}
        self.settings = None
        if plan.pcr is not None:
            from harmonize.pcr.generate import Settings

            self.settings = Settings(corpus.name, plan.pcr["seed"], plan.pcr["window"])
        self.has_trees = dict.fromkeys(self.overviews, False)

    def add(self, document: Document) -> str:
        """Count the document in; returns its split."""
        split = self.split_of[str(document.id)]
        self.overviews[split].add(document)
        self.whole.add(document)
        for entity in document.entities:
            self.entity_lengths[len(entity.mentions)] += 1
            self.mention_lengths.update(len(m.words) for m in entity.mentions)
        if self.stats:
            from harmonize.stats import count_document

            count_document(self.counts, document, split)
        if self.settings is not None:
            from harmonize.pcr.generate import questions_of_document

            self.questions.setdefault(split, []).extend(
                {"split": split, **question.to_json()}
                for question in questions_of_document(document, self.settings, Report()))
        if not self.has_trees[split]:
            self.has_trees[split] = any(n.head not in ("", "_") for s in document.sentences for n in s.words)
        return split


def _ruled_pieces(corpus: CorpusRecipe, reader: Format, steps: Steps, report: Report) -> Iterator[Corpus]:
    """The corpus' inputs a piece at a time (a file; a large CorefUD file a piece of whole documents), each read,
    parsed and ruled (a rule over the corpus carries what it needs from one piece to the next, so that the pieces
    are ruled as the whole corpus would be). The caller frees each piece (`Corpus.release`) before the next."""
    from harmonize.conversion import input_files, read_corpora
    from harmonize.rules import carried_between_pieces

    carried = carried_between_pieces()
    for path in input_files(list(corpus.inputs), reader):
        for piece in read_corpora(path, reader, False, report, dict(corpus.options)):
            piece.meta.update(carried)
            steps.apply(piece, report)
            yield piece


def _build_streamed(corpus: CorpusRecipe, plan: Recipe, release: Path, reader: Format, steps: Steps, report: Report,
                    written: dict[str, Report]) -> _Tally:
    """`build_corpus` a document at a time: what splitting and each split's writers need, then the documents again
    to their split's writers, the tally and the views."""
    from harmonize.converters import get_format

    formats = {name: get_format(name, "write") for name in plan.formats}
    facts: list[DocumentFacts] = []
    kept: dict[str, list] = {name: [] for name in formats}  # per format, what its writer needs of each document
    for piece in _ruled_pieces(corpus, reader, steps, Report()):  # what the second pass reports is the report
        for document in piece.documents:
            facts.append(DocumentFacts.of(document))
            for name, writer in formats.items():
                kept[name].append(writer.keeps(document) if writer.keeps is not None else None)
        piece.release()
    if not facts:
        raise HarmonizeError(f"corpus {corpus.name}: no documents in its input")
    split_of = assign_splits(corpus, facts, report)
    tally = _Tally(corpus, plan, split_of)
    folder = release / corpus.name
    writers = {split: [writer.document_writer(  # type: ignore[misc]
        _target(folder, corpus.name, name, split), written[name],
        [k for f, k in zip(facts, kept[name]) if split_of[f.id] == split]) for name, writer in formats.items()]
        for split in tally.overviews}
    del facts, kept

    def documents() -> Iterator[Document]:
        for piece in _ruled_pieces(corpus, reader, steps, report):
            for document in piece.documents:
                for writer in writers[tally.add(document)]:
                    writer.add(document)
                yield document
            piece.release()

    try:
        if plan.views:
            from harmonize.views.html import write_views

            write_views(documents(), release / "views" / corpus.name)
        else:
            for _document in documents():
                pass
    except BaseException:
        for split_writers in writers.values():
            for writer in split_writers:
                writer.discard()
        raise
    for split_writers in writers.values():
        for writer in split_writers:
            writer.publish()
    return tally


def _build_held(corpus: CorpusRecipe, plan: Recipe, release: Path, reader: Format, steps: Steps, report: Report,
                written: dict[str, Report]) -> _Tally:
    """`build_corpus` with the corpus read whole and each split written at once."""
    from harmonize.conversion import input_files
    from harmonize.converters import get_format

    documents: list[Document] = []
    for path in input_files(list(corpus.inputs), reader):
        documents.extend(reader.read(path, False, report, dict(corpus.options)).documents)
    if not documents:
        raise HarmonizeError(f"corpus {corpus.name}: no documents in its input")
    whole = Corpus(documents)
    steps.apply(whole, report)
    tally = _Tally(corpus, plan, assign_splits(corpus, [DocumentFacts.of(d) for d in documents], report))
    parts: dict[str, list[Document]] = {split: [] for split in tally.overviews}
    for document in documents:
        parts[tally.add(document)].append(document)
    folder = release / corpus.name
    for split, members in parts.items():
        for name in plan.formats:
            write = get_format(name, "write").writer
            write(Corpus(members), _target(folder, corpus.name, name, split), written[name])  # type: ignore[misc]
    if plan.views:
        from harmonize.views.html import write_views

        write_views(whole, release / "views" / corpus.name)
    return tally


def _verify_release(corpus: CorpusRecipe, plan: Recipe, folder: Path, reader: Format, steps: Steps,
                    written: dict[str, Report], splits: list[str]) -> list[str]:
    """Each format's files of the corpus read back and compared with the documents written (read and ruled once
    more), kind by kind against what writing and reading back reported (`harmonize.accounting`): one warning per
    format whose files differ in a way its report does not name. Formats harmonize only writes are not read back.
    Costs a further read and ruling of the input, a read of each output and one comparison of the models."""
    from harmonize.accounting.differ import diff_corpora
    from harmonize.accounting.ledger import check
    from harmonize.conversion import input_files
    from harmonize.converters import get_format

    readable = [name for name in plan.formats if get_format(name, "write").reader is not None]
    if not readable:
        return []
    originals = [document for piece in _ruled_pieces(corpus, reader, steps, Report()) for document in piece.documents]
    warnings = []
    for name in readable:
        back_reader = get_format(name, "read")
        report = Report(counts=written[name].counts.copy())
        back: list[Document] = []
        for split in splits:
            target = _target(folder, corpus.name, name, split)
            if target.exists():
                for path in input_files([target], back_reader):
                    back.extend(back_reader.read(path, False, report, {}).documents)
        silent = check(diff_corpora(originals, back), report).silent
        if silent:
            warnings.append(f"{corpus.name}: {name} read back differs in ways its report does not name: "
                            + "; ".join(str(m) for m in silent))
    return warnings


def _target(folder: Path, corpus: str, format_name: str, split: str) -> Path:
    """Where a split is written in a format: ``CORPUS-FORMAT-SPLIT`` with the format's extension, or a folder of
    that name for a format written as a file per document."""
    from harmonize.converters import get_format

    writer = get_format(format_name, "write")
    return folder / f"{corpus}-{format_name}-{split}{'' if writer.writes_per_document else writer.extension}"


def _split_text(corpus: CorpusRecipe) -> str:
    if isinstance(corpus.split, SplitShares):
        s = corpus.split
        return f"train {s.train} : dev {s.dev} : test {s.test}, seed {s.seed}, whole documents"
    if isinstance(corpus.split, Path):
        return f"split file {corpus.given_split or corpus.split.name}"
    return "the corpus' own"


def _empty_parts(corpus: CorpusRecipe, sizes: dict[str, int]) -> list[str]:
    """A split the recipe gives a share that no document went to (too few documents for the shares)."""
    if not isinstance(corpus.split, SplitShares):
        return []
    documents = sum(sizes.values())
    return [f"{corpus.name}: the {name} part is empty ({documents} document(s) for the shares "
            f"{corpus.split.train}:{corpus.split.dev}:{corpus.split.test}; documents are never cut)"
            for name in SPLITS if getattr(corpus.split, name) > 0 and not sizes.get(name)]


def _corpus_statistics(groups: dict, folder: Path) -> None:
    from harmonize.stats import length_distributions, tables_from_counts
    from harmonize.stats.render import render, write_plots

    tables = tables_from_counts(groups)
    atomic_write_text(folder / "stats.json", render(tables, "json"))
    atomic_write_text(folder / "stats.md", render(tables, "markdown"))
    write_plots(tables, length_distributions(groups), folder / "plots", by="split")


def _validator_failure(output: str, has_trees: bool) -> str:
    """What udvalidate found, per class ("FORMAT 874, SYNTAX 874"), and why where it is plain: no trees."""
    import re

    classes = re.findall(r"^(\w+) errors: (\d+)$", output, re.MULTILINE)
    found = ", ".join(f"{name} {count}" for name, count in classes) or (output.strip().splitlines() or [""])[-1]
    return f"fails: {found}" + ("" if has_trees else
                                " (no trees: level 2 needs them; parse = \"udpipe:MODEL\" gives them)")


def _validate(corpus: CorpusRecipe, plan: Recipe, folder: Path, splits: list[str], has_trees: dict[str, bool]
              ) -> dict:
    """Our checks of the written CorefUD (udapi loads it; udvalidate where installed) and the rule baseline (and with
    validate = "neural" the resolver trained on the train part) on the dev part (else test, else all) in CorefUD's
    primary setting."""
    import shutil
    import subprocess

    from harmonize.converters.corefud import read_corefud
    from harmonize.resolvers.rules import resolve_rules

    split = next((s for s in ("dev", "test") if s in splits), splits[0])
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
                                                                                    has_trees[split])
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
    """The neural resolver trained on the corpus' train part (as [outputs.train] says), its epoch chosen on train
    documents held out for it (`harmonize.resolvers.protocol`), scored on ``split``, untouched."""
    import tempfile

    from harmonize.converters.corefud import read_corefud
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training, fresh_copy, load, resolve, train
    from harmonize.resolvers.protocol import hold_out

    settings = plan.train
    train_file = folder / f"{corpus.name}-corefud-train.conllu"
    if not train_file.is_file():
        raise HarmonizeError(f"corpus {corpus.name}: validate = \"neural\" needs a train part")
    training = Training(epochs=settings["epochs"], seed=settings["seed"], device=settings["device"],
                        max_minutes=settings["max_minutes"])
    with tempfile.TemporaryDirectory(prefix="harmonize-build-model-") as scratch:
        held = hold_out(read_corefud(train_file))
        train(held.fit, held.tuning, scratch, ResolverConfig(encoder=settings["encoder"]), training,
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

    from harmonize.version import __version__

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
    from harmonize.stats.render import render
    from harmonize.version import __version__

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
    atomic_write_text(manifest, "".join(f"{file_sha256(p)}  {p.relative_to(release).as_posix()}\n"
                                        for p in _manifest_files(release, manifest)))


def _manifest_holds(release: Path, manifest: Path) -> bool:
    """Whether every file the manifest lists is there unchanged, and no other."""
    listed = {}
    for line in manifest.read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    present = {p.relative_to(release).as_posix(): p for p in _manifest_files(release, manifest)}
    return set(listed) == set(present) and all(file_sha256(present[n]) == d for n, d in listed.items())
