"""The frame every scorer shares: reading both sides (a worker process for a large response), pairing their
documents by id and checking that their words agree, and the corpus-level result (`CorpusScore`). Below the
CorefUD scoring (`harmonize.scoring.score`) and the UA scoring (`harmonize.scoring.ua`) that use it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harmonize.converters import get_format
from harmonize.errors import HarmonizeError, Report
from harmonize.parsing.trees import parse_corpus
from harmonize.schemas.model import Corpus, pairing_key
from harmonize.scoring.metrics import BlancScore, Score
from harmonize.scoring.scored import DocumentFacts, ScoredDocument, scored_documents


@dataclass
class CorpusScore:
    """Micro-averaged metrics (numerators and denominators summed over partitions, as the reference scorers do),
    the per-partition scores they came from, and duplicate mentions dropped per side."""

    metrics: dict[str, Score | BlancScore]
    documents: int
    duplicates: dict[str, int] = field(default_factory=dict)
    partitions: list[tuple[str, dict[str, Score | BlancScore]]] = field(default_factory=list)
    # What reading dropped (lenient) or parsing changed, both sides together.
    report: Report = field(default_factory=Report)
    # What was scored, in one line, where a shared task or the UA scorer's settings chose it.
    settings: str | None = None
    # How it was scored, every setting whether chosen or default (format, matching, singletons, split antecedents,
    # metrics, cross-document scope; with intervals their level, samples, seed): `setup_line` says it.
    setup: dict[str, Any] = field(default_factory=dict)
    # Lines about how to read the figures (a side whose heads look guessed under head matching).
    notes: list[str] = field(default_factory=list)
    # What each partition's document can be grouped by, in the order of ``partitions`` (a topic's partition: its
    # topic); empty where the scorer gives none.
    facts: list[DocumentFacts] = field(default_factory=list)
    # Metric (and "conll") -> the bootstrap interval of its F1 (`harmonize.scoring.significance`), at ``level``.
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    level: float | None = None
    # Group name -> the score of its documents alone (`harmonize.scoring.significance.score_groups`).
    groups: dict[str, CorpusScore] = field(default_factory=dict)

    def macro(self, name: str) -> tuple[float, int]:
        """Mean F1 over partitions, leaving out those where the metric has nothing to count on either side (MUC
        on a document without links): counting them as 0 or as 100 would both distort the mean. Returns the mean
        and how many partitions were left out."""
        counted = [s for _, scores in self.partitions for s in [scores[name]] if defined(s)]
        left_out = len(self.partitions) - len(counted)
        return (sum(s.f1 for s in counted) / len(counted) if counted else 0.0), left_out

    @property
    def conll(self) -> float | None:
        if not all(name in self.metrics for name in ("muc", "bcub", "ceafe")):
            return None
        return (self.metrics["muc"].f1 + self.metrics["bcub"].f1 + self.metrics["ceafe"].f1) / 3

    def merged(self, other: CorpusScore) -> CorpusScore:
        """The score of both parts' documents together (the sums the reference scorers take over documents)."""
        metrics = {name: score + other.metrics[name] for name, score in self.metrics.items()}  # type: ignore[operator]
        duplicates = {side: self.duplicates.get(side, 0) + other.duplicates.get(side, 0)
                      for side in {*self.duplicates, *other.duplicates}}
        report = Report()
        report.merge(self.report)
        report.merge(other.report)
        return CorpusScore(metrics, self.documents + other.documents, duplicates, self.partitions + other.partitions,
                           report, self.settings, facts=self.facts + other.facts)

    def to_json(self) -> dict:
        """``{"metrics": {name: {"recall", "precision", "f1"}}, "conll": ...}``; UA's bridging figures nested as
        ``metrics["bridging"]["recognition" | "markable" | "entity"]``; ``"settings"`` where chosen; with intervals
        ``"ci"`` (metric or ``"conll"`` -> ``[low, high]`` of its F1) and ``"level"``; by group ``"groups"`` (name ->
        this same object for the group's documents alone)."""
        metrics: dict[str, dict] = {}
        for name, s in self.metrics.items():
            figures = {"recall": s.recall, "precision": s.precision, "f1": s.f1}
            group, _, figure = name.partition(" ")
            if figure:
                metrics.setdefault(group, {})[figure] = figures
            else:
                metrics[name] = figures
        result: dict = {"metrics": metrics, "conll": self.conll}
        if self.setup:
            result["setup"] = self.setup
        if self.settings is not None:
            result["settings"] = self.settings
        if self.notes:
            result["notes"] = self.notes
        if self.ci:
            result["ci"] = {name: list(interval) for name, interval in self.ci.items()}
            result["level"] = self.level
        if self.groups:
            result["groups"] = {name: group.to_json() for name, group in self.groups.items()}
        return result


FEW_DOCUMENTS = 5  # a bootstrap interval over fewer documents than this says little (flagged where printed)


def setup_lines(setup: dict[str, Any], documents: int) -> list[str]:
    """The settings a score was made with, as ``harmonize score`` prints them first."""
    if not setup:
        return []
    singletons = "singletons counted" if setup.get("singletons") else "singletons left out"
    parts = [f"{setup['format']}", f"{setup['matching']} matching", singletons]
    if "split_antecedents" in setup:
        parts.append("split antecedents " + ("scored" if setup["split_antecedents"] else "not scored"))
    if setup.get("cross_document"):
        parts.append(f"entities across documents per {setup['cross_document']}")
    lines = [f"scored: {', '.join(parts)}; metrics {', '.join(setup['metrics'])}; {documents} document(s)"]
    interval = setup.get("interval")
    if interval:
        lines.append(f"intervals: {interval['level']:g}% bootstrap over documents, {interval['samples']} samples, "
                     f"seed {interval['seed']}" + (f" (only {documents} documents: it says little)"
                                                   if documents < FEW_DOCUMENTS else ""))
    return lines


def defined(score: Score | BlancScore) -> bool:
    if isinstance(score, BlancScore):
        return defined(score.coreference) or defined(score.non_coreference)
    return bool(score.recall_den or score.precision_den)


def _word_list(words: list[str]) -> list[tuple[int, str, str]]:
    """`document_words` as (sentence index, word id, form or "") a word, to say where two sides differ."""
    return [(index, node_id, form) for index, sentence in enumerate(words) if sentence
            for node_id, _, form in (line.partition("\t") for line in sentence.split("\n"))]


def read_scored(path: str | Path, format: str, read_options: dict[str, str] | None, mode: str, forms: bool,
                parse: str | None = None, parse_overwrite: bool = False, lenient: bool = False
                ) -> tuple[list[ScoredDocument], Report]:
    """Read a file, or the format's files in a folder (parsing documents without trees with the ``parse``
    engine), and keep what the scorer needs (a worker process can send this back cheaply), with the report of
    what reading dropped (``lenient``) or parsing changed."""
    report = Report()
    documents = [document for piece in scored_pieces(path, format, read_options, mode, forms, parse, parse_overwrite,
                                                     lenient, report) for document in piece]
    return documents, report


def scored_pieces(path: str | Path, format: str, read_options: dict[str, str] | None, mode: str, forms: bool,
                  parse: str | None, parse_overwrite: bool, lenient: bool, report: Report
                  ) -> Iterator[list[ScoredDocument]]:
    """`read_scored`, a piece at a time: a large CorefUD file's pieces of whole documents one after another, any
    other file at once (what reading drops or parsing changes goes to ``report``)."""
    from harmonize.conversion import input_files, read_corpora

    reader = get_format(format, "read")
    for file in input_files([Path(path)], reader):
        if reader.score_reader is not None:
            yield list(reader.score_reader(file))
            report.opened(file)
            continue
        if reader.name == "corefud" and parse is None and not read_options:
            from harmonize.scoring import corefud_lines

            yield from corefud_lines.scored_pieces(file, mode, forms, lenient, report)
            continue
        for corpus in read_corpora(file, reader, lenient, report, read_options):
            if reader.name == "ua":
                _leave_out_non_referring(corpus, report)
            if parse is not None:
                parse_corpus(corpus, parse, report, parse_overwrite)
            yield scored_documents(corpus, mode, forms)
            corpus.release()  # freed now by reference counting, not later by a collector pass over the whole model


def _leave_out_non_referring(corpus: Corpus, report: Report) -> None:
    """UA's non-referring markables (expletives, predicatives: ``EntityID`` ending ``-Pseudo``) are never
    coreference, as the UA scorer has it: out of the documents to score, counted."""
    from harmonize.converters.corefud_values import escape_value
    from harmonize.converters.ua import NON_REFERRING

    ending = escape_value(NON_REFERRING)
    for document in corpus:
        for entity in [e for e in document.entities if e.id.endswith(ending)]:
            report.add("UA non-referring markables left out of identity scoring", f"{document.id}: {entity.id}",
                       len(entity.mentions))
            document.remove_entity(entity)


def align(key: list[ScoredDocument], response: list[ScoredDocument]) -> list[tuple[ScoredDocument, ScoredDocument]]:
    """Pair documents by id (a CoNLL-2012 part by its number: see `pairing_key`)
    and check that their words agree, in both directions (with forms left out, only the
    word positions must agree: the reference scorer's own test cases rename tokens in responses). Two sides without
    a document are an error: nothing was read, so no figure would mean anything."""
    if not key and not response:
        raise HarmonizeError("nothing to score: neither the key nor the response holds a document")
    responses = {pairing_key(d.id): d for d in response}
    keys = {pairing_key(d.id): d for d in key}
    for document in key:
        if pairing_key(document.id) not in responses:
            raise HarmonizeError(f"document {document.id!r} is in the key but not in the response")
    for document in response:
        if pairing_key(document.id) not in keys:
            raise HarmonizeError(f"document {document.id!r} is in the response but not in the key")
    pairs = []
    for document in key:
        other = responses[pairing_key(document.id)]
        check_words(document.id, document.words, other.words)
        pairs.append((document, other))
    return pairs


def check_words(document_id: str | None, key: list[str], response: list[str]) -> None:
    """That one document's key and response words (`document_words`) agree, or an error naming the first place
    where they do not."""
    if key == response:
        return
    key_words, response_words = _word_list(key), _word_list(response)
    for a, b in zip(key_words, response_words):
        if a != b:
            raise HarmonizeError(f"document {document_id!r}, sentence {a[0] + 1}, token {a[1]}: key has {a[2]!r}, "
                                 f"response has sentence {b[0] + 1}, token {b[1]} {b[2]!r}")
    if len(key_words) == len(response_words):
        return  # the same words, one side with a sentence of empty nodes only
    shorter = "response" if len(response_words) < len(key_words) else "key"
    raise HarmonizeError(f"document {document_id!r}: the {shorter} is truncated ({len(key_words)} key words, "
                         f"{len(response_words)} response words)")


# Below this response size a worker process costs more than reading the response beside the key saves.
WORKER_BYTES = 1 << 20


def worker_pays(response: Path, jobs: int) -> bool:
    """Whether reading ``response`` in a worker process, beside the key, saves time: two cores or more (``jobs``: 0
    for all) and a response file large enough to pay for the process."""
    from harmonize.conversion import usable_cores

    return (jobs or usable_cores()) > 1 and response.is_file() and response.stat().st_size >= WORKER_BYTES


def read_sides(read_key: Callable[[], Any], read_response: Callable[[], Any], worker: bool) -> tuple[Any, Any]:
    """What the two readers give; with ``worker`` the response is read in a worker process while this one reads the
    key (``read_response`` must pickle: a `functools.partial` of a module's function)."""
    if not worker:
        return read_key(), read_response()
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1) as pool:
        future = pool.submit(read_response)
        key_side = read_key()
        return key_side, future.result()
