"""Score a response corpus against a key corpus, document by document, summed as the reference scorers do.

Key and response must hold the same documents with the same words (empty nodes may differ: a system may add or
miss zeros); the first difference is an error. Mentions are matched exactly, partially or by head
(`harmonize.scoring.matching`). A mention that occurs twice in one side is kept in the first cluster that has
it (clusters in the order their first bracket opens) and the removal is counted, as the reference scorer's
de-duplication does. Singletons are left out of both sides unless asked for (the CorefUD convention).
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from pathlib import Path

from harmonize.converters import get_format
from harmonize.errors import HarmonizeError, Report
from harmonize.io import paused_gc
from harmonize.parsing import parser_for
from harmonize.schemas.model import Corpus, pairing_key
from harmonize.scoring.assignment import sparse_assignment
from harmonize.scoring.frame import (
    FEW_DOCUMENTS,
    CorpusScore,
    align,
    defined,
    read_scored,
    read_sides,
    scored_pieces,
    setup_lines,
    worker_pays,
)
from harmonize.scoring.matching import DEFAULT_MATCHING, MATCHING_MODES, Span, match
from harmonize.scoring.metrics import ALL_METRICS, MENTION_METRICS, METRICS, BlancScore, Score
from harmonize.scoring.scored import DocumentFacts, ScoredDocument, SplitRelation, scored_documents
from harmonize.scoring.shared_tasks import shared_task as get_shared_task
from harmonize.scoring.significance import add_intervals, score_groups


def mention_overlap(key: list[list[Span]], response: list[list[Span]]) -> Score:
    """MOR (CRAC 2022): one-to-one alignment of all key and response mentions maximising overlapping nodes;
    overlapping nodes over all key (recall) or response (precision) mention nodes.

    Mentions with the same nodes are aligned first: swapping them into any alignment never lowers its total
    (|k ∩ r'| + |k ∩ k'| <= |k| + |k' ∩ r'|), and nodes are unique per side once duplicates are dropped. The
    rest are aligned on their overlaps alone (mentions sharing no node gain nothing from being aligned)."""
    key_spans = [s for c in key for s in c]
    response_spans = [s for c in response for s in c]
    key_nodes = {s.nodes for s in key_spans}
    identical = {s.nodes for s in response_spans if s.nodes in key_nodes}
    total = sum(len(nodes) for nodes in identical)
    holders: dict[tuple, list[int]] = {}
    for i, span in enumerate(key_spans):
        if span.nodes not in identical:
            for node in span.nodes:
                holders.setdefault(node, []).append(i)
    overlap: dict[tuple[int, int], int] = {}
    for j, span in enumerate(response_spans):
        if span.nodes not in identical:
            for node in span.nodes:
                for i in holders.get(node, ()):
                    overlap[i, j] = overlap.get((i, j), 0) + 1
    total += sum(overlap[pair] for pair in sparse_assignment(overlap, overlap.__getitem__))
    return Score(Fraction(total), Fraction(sum(s.size for s in key_spans)),
                 Fraction(total), Fraction(sum(s.size for s in response_spans)))


def zero_anaphora(key: list[list[Span]], response: list[list[Span]], matched: dict[Span, Span]) -> Score:
    """Anaphor-decomposable score on zeros (Tuggener 2014, as CRAC 2022 applies it). An anaphoric zero is a zero
    mention that is not the first of its entity. A key one is a true positive when its response counterpart is
    anaphoric too and some earlier mention of its key entity is matched in the counterpart's entity before it;
    wrong linkage when the counterpart is anaphoric but no such mention exists; a false negative when there is no
    anaphoric counterpart. An anaphoric response zero without an anaphoric key counterpart is a false positive.
    Recall tp / (tp + wl + fn), precision tp / (tp + wl + fp)."""
    if not any(s.is_zero for c in key for s in c) and not any(s.is_zero for c in response for s in c):
        return Score(Fraction(0), Fraction(0), Fraction(0), Fraction(0))
    key_of = {r: k for r, k in matched.items()}
    response_of = {k: r for r, k in matched.items()}
    position: dict[Span, tuple[int, int]] = {}  # span -> (cluster, rank in its cluster by document order)
    for side in (key, response):
        for c, cluster in enumerate(side):
            for rank, span in enumerate(sorted(cluster, key=lambda s: s.order)):
                position[span] = (c, rank)
    tp = wl = fn = fp = 0
    for cluster in key:
        ordered = sorted(cluster, key=lambda s: s.order)
        for rank, span in enumerate(ordered):
            if rank == 0 or not span.is_zero:
                continue
            counterpart = response_of.get(span)
            if counterpart is None or position[counterpart][1] == 0:
                fn += 1
                continue
            cluster_index, counterpart_rank = position[counterpart]
            earlier = {s for s in response[cluster_index] if position[s][1] < counterpart_rank}
            if any(response_of.get(k) in earlier for k in ordered[:rank]):
                tp += 1
            else:
                wl += 1
    for cluster in response:
        for span in cluster:
            if span.is_zero and position[span][1] > 0:
                counterpart = key_of.get(span)
                if counterpart is None or position[counterpart][1] == 0:
                    fp += 1
    return Score(Fraction(tp), Fraction(tp + wl + fn), Fraction(tp), Fraction(tp + wl + fp))


def mention_detection(key: list[list[Span]], response: list[list[Span]]) -> Score:
    """Span P/R/F1 with exact match over every mention, singletons included (Cattan et al. 2021: mention
    detection is scored on its own, coreference without singletons)."""
    key_nodes = {s.nodes for c in key for s in c}
    response_nodes = {s.nodes for c in response for s in c}
    found = len(key_nodes & response_nodes)
    return Score(Fraction(found), Fraction(len(key_nodes)), Fraction(found), Fraction(len(response_nodes)))


def split_antecedent_lea(
    key: tuple[dict[str, list[Span]], list[SplitRelation]],
    response: tuple[dict[str, list[Span]], list[SplitRelation]],
    matched: dict[Span, Span],
) -> Score:
    """The split-antecedent part of RuCoCo's LEA, as the RuCoCo-2023 evaluation (the organisers' ``evaluate.py``)
    computes it, which is more than the paper's prose says: each entity with parts adds a dummy entity whose
    importance is its number of child mentions (the mentions of its parts, and of the leaves reached through parts
    of parts) and whose importance x resolution is the number of (mention, child mention) pairs the other side links
    too (a child mention listed under an entity there that holds the mention), over the entity's size.

    ``matched`` maps response spans to key spans over all mentions, singletons included (a part is often one)."""

    def translated(spans: list[Span]) -> list[Span]:
        return [matched.get(span, span) for span in spans]

    key_entities, key_relations = key
    response_entities = {entity: translated(spans) for entity, spans in response[0].items()}
    key_children = _child_mentions(key_entities, key_relations)
    response_children = _child_mentions(response_entities, response[1])
    recall = _part_links(key_entities, key_children, response_entities, response_children)
    precision = _part_links(response_entities, response_children, key_entities, key_children)
    return Score(recall[0], Fraction(recall[1]), precision[0], Fraction(precision[1]))


def _child_mentions(entities: dict[str, list[Span]], relations: list[SplitRelation]) -> dict[str, set[Span]]:
    """Entity -> the mentions of its parts and of the leaves (entities without parts) below them."""
    parts: dict[str, list[str]] = {}
    for entity, antecedents in relations:
        parts.setdefault(entity, []).extend(antecedents)
    children: dict[str, set[Span]] = {}
    for entity, direct in parts.items():
        found = {span for part in direct for span in entities.get(part, [])}
        stack, visited = list(direct), set()
        while stack:
            part = stack.pop()
            visited.add(part)
            if part in parts:
                stack.extend(p for p in parts[part] if p not in visited)
            else:
                found.update(entities.get(part, []))
        children[entity] = found
    return children


def _part_links(entities: dict[str, list[Span]], children: dict[str, set[Span]],
                other_entities: dict[str, list[Span]], other_children: dict[str, set[Span]]) -> tuple[Fraction, int]:
    """Summed importance x resolution and summed importance of one side's dummy entities against the other's."""
    holders: dict[Span, set[Span]] = {}  # child mention -> the mentions of the other side's entities listing it
    for entity, spans in other_children.items():
        mentions = other_entities.get(entity, [])
        for child in spans:
            holders.setdefault(child, set()).update(mentions)
    found, weight = Fraction(0), 0
    for entity, spans in children.items():
        mentions = entities.get(entity, [])
        if not spans or not mentions:
            continue
        weight += len(spans)
        hits = sum(1 for mention in mentions for child in spans if mention in holders.get(child, ()))
        found += Fraction(hits, len(mentions))
    return found, weight


def partitions(pairs: list[tuple[ScoredDocument, ScoredDocument]], cross_document: str | None):
    """Groups of (key, response) document pairs scored as one partition: each document alone, or (cross-document
    scoring, as for ECB+) the whole corpus, each topic or each subtopic, where an entity id names one entity across
    documents (Cattan et al. 2021 compare these settings)."""
    if cross_document is None:
        return [[pair] for pair in pairs]
    if cross_document == "corpus":
        return [pairs]
    if cross_document not in ("topic", "subtopic"):
        raise HarmonizeError(f"unknown cross-document grouping {cross_document!r}: corpus, topic or subtopic")
    groups: dict[tuple, list[tuple[ScoredDocument, ScoredDocument]]] = {}
    for pair in pairs:
        key = (pair[0].topic,) if cross_document == "topic" else (pair[0].topic, pair[0].subtopic)
        groups.setdefault(key, []).append(pair)
    return list(groups.values())


def _prefixed(span: Span, index: int) -> Span:
    """The span with its node keys (and order) prefixed by its document's index in a cross-document partition."""
    return Span(frozenset((index, *node) for node in span.nodes), (index, *span.order),
                (index, *span.head) if span.head is not None else None, span.head_deps,
                ((index, *span.sort_key[0]), (index, *span.sort_key[1]), span.sort_key[2]) if span.sort_key else (),
                span.zero)


def _partition_spans(group: list[tuple[ScoredDocument, ScoredDocument]], side: int):
    """Entity id -> Spans over the partition's documents, its split antecedent relations, duplicates dropped."""
    if len(group) == 1:
        document = group[0][side]
        return document.entities, document.relations, document.duplicates
    merged: dict[str, list[Span]] = {}
    relations: list[SplitRelation] = []
    duplicates = 0
    for index, pair in enumerate(group):
        document = pair[side]
        duplicates += document.duplicates
        for entity_id, spans in document.entities.items():
            merged.setdefault(entity_id, []).extend(_prefixed(span, index) for span in spans)
        relations.extend(document.relations)
    return merged, relations, duplicates


def checked_metrics(metrics: list[str] | None, mode: str) -> list[str]:
    """The metric names to compute (all by default), after checking them and the matching mode."""
    names = metrics or list(ALL_METRICS)
    unknown = [n for n in names if n not in METRICS and n not in MENTION_METRICS]
    if unknown:
        raise HarmonizeError(f"unknown metric(s) {', '.join(unknown)}; known: "
                             f"{', '.join(ALL_METRICS)}")
    if mode not in MATCHING_MODES:
        raise HarmonizeError(f"unknown matching mode {mode!r}: exact, partial or head (min: --format ua only)")
    return names


# Above this size, key and response are read and scored a piece at a time, in step (see `_score_in_step`).
IN_STEP_BYTES = 64 << 20


def score_files(
    key: str | Path,
    response: str | Path,
    format: str = "corefud",
    read_options: dict[str, str] | None = None,
    metrics: list[str] | None = None,
    singletons: bool | None = None,
    forms: bool = True,
    mode: str | None = None,
    cross_document: str | None = None,
    split_antecedents: bool | None = None,
    zeros: str = "dependent",
    jobs: int = 0,
    parse: str | None = None,
    parse_overwrite: bool = False,
    lenient: bool = False,
    only_split_antecedents: bool = False,
    non_referring: bool = False,
    bridging: bool = False,
    discourse_deixis: bool = False,
    shared_task: str | None = None,
    key_format: str | None = None,
    response_format: str | None = None,
    by: str | None = None,
    ci: float | None = None,
    samples: int = 10_000,
    seed: int = 0,
) -> CorpusScore:
    """Read a key and a response file or folder and score them: what ``harmonize score`` runs. ``format`` is both
    sides' format; ``key_format`` or ``response_format`` name one side's where they differ (a CoNLL-2012 key against
    a CorefUD response: the words must agree, as always). ``mode`` None is the format's usual matching: head (the CorefUD scorer's default since its 1.1; see `DEFAULT_MATCHING`) for
    tokens, exact for character spans (RuCoCo). ``lenient`` drops broken annotation instead of raising; the result's
    ``report`` says what was dropped. With two cores or more (``jobs``: 0 for all) and a large response, the
    response is read in a worker process while this one reads the key; the worker sends back only what the scorer
    needs. ``parse`` names a parser (``udpipe:MODEL``...) that gives both sides' documents without trees trees, and
    so heads.

    ``singletons`` and ``split_antecedents`` None are the format's convention: left out (CorefUD), both kept for
    ``ua``, which is scored as the UA scorer does (`harmonize.scoring.ua`: ``mode`` exact or min, and
    ``only_split_antecedents``, ``non_referring``, ``bridging``, ``discourse_deixis``). ``shared_task`` names a
    shared task's settings (`harmonize.scoring.shared_tasks`), which replace the format, metrics, singletons,
    matching and the UA options; the result's ``settings`` says them.

    ``by`` adds the score of each group of documents (`harmonize.scoring.significance.grouping`: ``genre``,
    ``topic``, ``document``, ``id:REGEX`` or a metadata name), each scored as the whole is; ``ci`` (a level in
    percent, e.g. 95) adds a bootstrap interval over documents to every F1, the groups' too (``samples`` resamples
    drawn with ``seed``: the same seed gives the same interval)."""
    described = None
    if shared_task is not None:
        task = get_shared_task(shared_task)
        format, metrics, singletons, mode = task.format, list(task.metrics), task.singletons, task.mode
        split_antecedents, non_referring, bridging = task.split_antecedents, task.non_referring, task.bridging
        discourse_deixis, only_split_antecedents, described = task.discourse_deixis, False, task.describe()
    key_format, response_format = key_format or format, response_format or format
    if key_format != response_format:
        _check_mixed_formats(key_format, response_format, mode)
        format = "ua" if "ua" in (key_format, response_format) else key_format
    ua_only = [name for name, on in (("--only-split-antecedents", only_split_antecedents),
                                     ("--non-referring", non_referring), ("--bridging", bridging),
                                     ("--discourse-deixis", discourse_deixis)) if on]
    if format == "ua" and mode in ("head", "partial"):
        # The UA scorer matches exact or minimal spans only: other matching is the CorefUD scorer's, over what the
        # UA reader gives (heads from one-token Min or the trees), UA's non-referring markables left out.
        if ua_only:
            raise HarmonizeError(f"{', '.join(ua_only)}: the UA scorer's figures, with --match exact or min; "
                                 f"--match {mode} scores UA files' identity coreference as the CorefUD scorer does")
        singletons = True if singletons is None else singletons
        split_antecedents = True if split_antecedents is None else split_antecedents
        described = "\n".join(filter(None, [described, (
            f"UA files scored as the CorefUD scorer scores them, {mode} matching (the UA scorer has exact and min "
            "only): identity coreference, non-referring markables left out")]))
    elif format == "ua":
        from harmonize.scoring.ua import UASettings, score_ua_files

        if mode not in (None, "exact", "min"):
            raise HarmonizeError(f"--format ua matches markables exact, min (the UA scorer's), head or partial "
                                 f"(the CorefUD scorer's), not {mode!r}")
        if cross_document is not None or (parse is not None and parser_for(parse) is not None):
            raise HarmonizeError("--format ua is scored as the UA scorer does: no --cross-document, no --parse")
        settings = UASettings(singletons is not False, split_antecedents is not False, only_split_antecedents,
                              non_referring, bridging, discourse_deixis, mode == "min")
        result = score_ua_files(key, response, settings, metrics, forms, lenient, read_options, jobs)
        if described is not None:
            result.settings = f"{described}\n{result.settings}"
        return _grouped_with_intervals(result, by, ci, samples, seed, {
            "format": "ua", "matching": mode or "exact", "singletons": settings.singletons,
            "split_antecedents": settings.split_antecedents, "metrics": [*result.metrics]})
    elif ua_only:
        raise HarmonizeError(f"{', '.join(ua_only)}: Universal Anaphora figures, for --format ua only")
    singletons, split_antecedents = bool(singletons), bool(split_antecedents)
    reader = get_format(format, "read")  # an unknown format fails before any work
    if mode is None:
        mode = "exact" if reader.score_reader is not None else DEFAULT_MATCHING
    names = checked_metrics(metrics, mode)
    if reader.score_reader is not None and mode != "exact":
        raise HarmonizeError(f"{format} mentions are character spans without heads: they match exactly only "
                             f"(--match exact)")
    parser = parser_for(parse) if parse is not None else None  # a wrong engine or model fails before any work
    if parser is not None and reader.score_reader is not None:
        raise HarmonizeError(f"{format} is scored on character spans, without trees: --parse has no use there")
    if parser is None:
        parse = None
    setup = {"format": format if key_format == response_format else f"{key_format} key, {response_format} response",
             "matching": mode, "singletons": singletons, "split_antecedents": split_antecedents, "metrics": names,
             "cross_document": cross_document}
    key_sides = (key_format, read_options, mode, forms, parse, parse_overwrite, lenient)
    response_sides = (response_format, *key_sides[1:])
    may_use_worker = parser is None or parser.shares_processes
    key, response = Path(key), Path(response)
    if cross_document is None and key.is_file() and response.is_file() and \
            max(key.stat().st_size, response.stat().st_size) > IN_STEP_BYTES:
        result = _score_in_step(key, response, key_sides, response_sides, names, singletons, mode, split_antecedents,
                                zeros)
        result.settings = described
        return _grouped_with_intervals(result, by, ci, samples, seed, setup)
    with paused_gc():
        if "corefud" in (key_format, response_format):
            from harmonize.scoring import corefud_lines  # noqa: F401  (imported once, before a worker forks)
        (key_documents, key_report), (response_documents, response_report) = read_sides(
            partial(read_scored, key, *key_sides), partial(read_scored, response, *response_sides),
            may_use_worker and worker_pays(response, jobs))
        result = score_documents(key_documents, response_documents, names, singletons, mode, cross_document,
                                 split_antecedents, zeros)
        # Freed while the collector is paused: with it back on, its first pass would walk all they hold.
        del key_documents, response_documents
    result.report.merge(key_report)
    result.report.merge(response_report)
    result.settings = described
    _note_guessed_heads(result, key, response, key_format, response_format, read_options, mode, parse, exact_options={
        "metrics": metrics, "singletons": singletons, "forms": forms, "cross_document": cross_document,
        "split_antecedents": split_antecedents, "zeros": zeros, "jobs": jobs, "lenient": lenient})
    return _grouped_with_intervals(result, by, ci, samples, seed, setup)


def _grouped_with_intervals(result: CorpusScore, by: str | None, ci: float | None, samples: int,
                            seed: int, setup: dict | None = None) -> CorpusScore:
    """``result`` with its settings (``setup``), groups (``by``) and intervals (``ci``), where asked."""
    result.setup = dict(setup or {})
    if ci is not None:
        result.setup["interval"] = {"level": ci, "samples": samples, "seed": seed}
    if by is not None:
        score_groups(result, by)
        result.setup["by"] = by
        if set(result.groups) == {"(none)"}:
            result.notes.append(f"--by {by}: no document has it (no such genre, topic or # meta::{by}): all are "
                                "in (none)")
    if ci is not None:
        add_intervals(result, ci, samples, seed)
    return result


def _check_mixed_formats(key_format: str, response_format: str, mode: str | None) -> None:
    """Two formats can be scored against each other where both give tokens; the UA scorer's own figures need UA on
    both sides."""
    for name in (key_format, response_format):
        if get_format(name, "read").score_reader is not None:
            raise HarmonizeError(f"{name} is scored on character spans: both sides must be {name} "
                                 f"(got {key_format} and {response_format})")
    if "ua" in (key_format, response_format) and mode not in ("head", "partial"):
        raise HarmonizeError(f"the UA scorer's figures need UA on both sides (got {key_format} and "
                             f"{response_format}); --match head or partial scores them as the CorefUD scorer does")


def _note_guessed_heads(result: CorpusScore, key: Path, response: Path, key_format: str, response_format: str,
                        read_options: dict[str, str] | None, mode: str, parse: str | None,
                        exact_options: dict) -> None:
    """Under head matching, a note for each side whose heads look guessed (`harmonize.scoring.guessed_heads`), with
    the CoNLL score exact matching gives (the files scored once more, only then)."""
    if mode != "head" or parse is not None:
        return
    from harmonize.scoring.guessed_heads import guessed_heads_note, heads_guessed

    sides = [(side, how) for side, path, format in (("key", key, key_format),
                                                    ("response", response, response_format))
             if (how := heads_guessed(path, format, read_options)) is not None]
    if not sides:
        return
    exact = score_files(key, response, key_format, read_options, mode="exact", response_format=response_format,
                        **exact_options).conll
    result.notes.extend(guessed_heads_note(side, exact, how) for side, how in sides)


def _score_in_step(key: Path, response: Path, key_sides: tuple, response_sides: tuple, names: list[str],
                   singletons: bool, mode: str, split_antecedents: bool, zeros: str) -> CorpusScore:
    """Score two large files a piece of the key at a time, each against its documents of the response, summing as
    `score_documents` sums over documents, so that memory follows a piece, not the files. A response whose
    documents come in another order still pairs: the response documents read ahead wait for their key piece
    (memory grows with how far apart the orders are)."""
    key_report, response_report = Report(), Report()
    responses = scored_pieces(response, *response_sides, response_report)
    waiting: dict[tuple, ScoredDocument] = {}
    result: CorpusScore | None = None
    with paused_gc():
        for key_documents in scored_pieces(key, *key_sides, key_report):
            wanted = [pairing_key(d.id) for d in key_documents]
            while any(k not in waiting for k in wanted):
                piece = next(responses, None)
                if piece is None:
                    break
                waiting.update((pairing_key(d.id), d) for d in piece)
            missing = next((d for d in key_documents if pairing_key(d.id) not in waiting), None)
            if missing is not None:
                raise HarmonizeError(f"document {missing.id!r} is in the key but not in the response")
            part = score_documents(key_documents, [waiting.pop(k) for k in wanted], names, singletons, mode, None,
                                   split_antecedents, zeros)
            result = part if result is None else result.merged(part)
        for piece in responses:
            waiting.update((pairing_key(d.id), d) for d in piece)
    if waiting:
        raise HarmonizeError(f"document {next(iter(waiting.values())).id!r} is in the response but not in the key")
    if result is None:
        align([], [])  # raises: neither side held a document
    assert result is not None
    result.report.merge(key_report)
    result.report.merge(response_report)
    return result


def score_corpora(
    key: Corpus,
    response: Corpus,
    metrics: list[str] | None = None,
    singletons: bool = False,
    forms: bool = True,
    mode: str = "exact",
    cross_document: str | None = None,
    split_antecedents: bool = False,
    zeros: str = "dependent",
) -> CorpusScore:
    """Score two corpora in memory (see `score_files` for files, and the module for the conventions)."""
    names = checked_metrics(metrics, mode)
    return score_documents(scored_documents(key, mode, forms), scored_documents(response, mode, forms), names,
                           singletons, mode, cross_document, split_antecedents, zeros)


def score_documents(
    key: list[ScoredDocument],
    response: list[ScoredDocument],
    names: list[str],
    singletons: bool,
    mode: str,
    cross_document: str | None,
    split_antecedents: bool,
    zeros: str,
) -> CorpusScore:
    """`score_corpora` on documents already reduced to what the scorer needs (checked arguments)."""
    totals: dict[str, Score | BlancScore] = {}
    duplicates = {"key": 0, "response": 0}
    pairs = align(key, response)
    per_partition: list[tuple[str, dict[str, Score | BlancScore]]] = []
    facts: list[DocumentFacts] = []
    for group in partitions(pairs, cross_document):
        scores: dict[str, Score | BlancScore] = {}
        key_entities, key_relations, key_duplicates = _partition_spans(group, 0)
        response_entities, response_relations, response_duplicates = _partition_spans(group, 1)
        duplicates["key"] += key_duplicates
        duplicates["response"] += response_duplicates
        every_key, every_response = [c for c in key_entities.values() if c], [c for c in response_entities.values() if c]
        key_spans = [c for c in every_key if len(c) > 1 or singletons]
        response_spans = [c for c in every_response if len(c) > 1 or singletons]
        matched = match(key_spans, response_spans, mode, zeros)
        # Split antecedents link singletons too: their mentions are matched among all mentions.
        every_matched = matched if singletons or not split_antecedents else match(every_key, every_response, mode,
                                                                                    zeros)
        key_clusters = [frozenset(c) for c in key_spans]
        response_clusters = [frozenset(matched.get(s, s) for s in c) for c in response_spans]
        for name in names:
            if name == "mor":
                result: Score | BlancScore = mention_overlap(key_spans, response_spans)
            elif name == "zero":
                result = zero_anaphora(key_spans, response_spans, matched)
            elif name == "mentions":
                result = mention_detection(every_key, every_response)
            else:
                result = METRICS[name](key_clusters, response_clusters)
                if name == "lea" and split_antecedents:
                    result = result + split_antecedent_lea(  # type: ignore[operator]
                        (key_entities, key_relations), (response_entities, response_relations), every_matched)
            scores[name] = result
            totals[name] = totals[name] + result if name in totals else result  # type: ignore[operator]
        label = group[0][0].id if cross_document is None else "corpus" if cross_document == "corpus" else (
            group[0][0].subtopic if cross_document == "subtopic" else group[0][0].topic) or "(none)"
        per_partition.append((str(label), scores))
        facts.append(group[0][0].facts if cross_document is None else DocumentFacts(
            str(label), topic=group[0][0].topic if cross_document != "corpus" else None,
            subtopic=group[0][0].subtopic if cross_document == "subtopic" else None))
    return CorpusScore(totals, len(pairs), duplicates, per_partition, facts=facts)


def score_lines(result: CorpusScore, per_document: bool = False) -> list[str]:
    """The score as ``harmonize score`` prints it: a recall / precision / F1 table (n/a where a metric has nothing
    to count on either side), the CoNLL score, and with ``per_document`` each partition's F1 and their macro
    average first."""
    names = list(result.metrics)
    width = max(10, *(len(name) + 2 for name in names))
    lines = [*([result.settings] if result.settings is not None else []),
             *setup_lines(result.setup, result.documents)]
    lines += [""] if lines else []
    if per_document:
        label = max([18, *(len(label) for label, _ in result.partitions)]) + 2
        lines.append(f"{'document (F1)':<{label}}" + "".join(f"{n:>{width}}" for n in names))
        for name, scores in result.partitions:
            lines.append(f"{name:<{label}}" + "".join(_cell(scores[n], width) for n in names))
        macro = [result.macro(n) for n in names]
        lines.append(f"{'macro average':<{label}}" + "".join(
            f"{100 * mean:>{width}.2f}" if left < len(result.partitions) else f"{'n/a':>{width}}"
            for mean, left in macro))
        left = [f"{name} {out}" for name, (_, out) in zip(names, macro) if out]
        if left:
            lines.append("left out of the macro average, having nothing to count: " + ", ".join(left)
                         + " document(s)")
        lines.append("")
    interval = f"{result.level:g}% interval of F1" if result.ci else ""
    lines.append(f"{'metric':<{width}}{'recall':>9}{'precision':>11}{'F1':>9}" + (f"  {interval}" if interval else ""))
    for name, value in result.metrics.items():
        if defined(value):
            lines.append(f"{name:<{width}}{100 * value.recall:>9.2f}{100 * value.precision:>11.2f}"
                         f"{100 * value.f1:>9.2f}" + _interval(result, name))
        else:
            lines.append(f"{name:<{width}}{'n/a':>9}{'n/a':>11}{'n/a':>9}")
    if result.conll is not None:
        lines.append(f"{'conll':<{width}}{'':>9}{'':>11}{100 * result.conll:>9.2f}" + _interval(result, "conll"))
    if result.groups:
        lines += ["", *group_lines(result)]
    return lines


def _interval(result: CorpusScore, name: str) -> str:
    if name not in result.ci:
        return ""
    low, high = result.ci[name]
    return f"  {100 * low:6.2f} - {100 * high:6.2f}"


def group_lines(result: CorpusScore) -> list[str]:
    """The scores by group as ``harmonize score --by`` prints them: a row per group and one for all documents,
    each metric's F1 (with its interval where there is one) and the CoNLL score."""
    names = [*result.metrics, *(["conll"] if result.conll is not None else [])]
    rows = [(name, group) for name, group in result.groups.items()] + [("all", result)]
    label = max(12, *(len(name) for name, _ in rows)) + 2
    width = 20 if result.ci else 9
    lines = [f"{'group (F1)':<{label}}{'docs':>6}" + "".join(f"  {name:>{max(width, len(name))}}" for name in names)]
    for name, score in rows:
        cells = []
        for metric in names:
            value = score.conll if metric == "conll" else score.metrics[metric].f1
            defined_here = metric == "conll" or defined(score.metrics[metric])
            text = f"{100 * value:.2f}" if defined_here and value is not None else "n/a"
            if metric in score.ci and defined_here:
                low, high = score.ci[metric]
                text += f" ({100 * low:.1f}-{100 * high:.1f})"
            cells.append(f"  {text:>{max(width, len(metric))}}")
        few = "*" if result.ci and score.documents < FEW_DOCUMENTS else " "
        lines.append(f"{name:<{label}}{score.documents:>5}{few}" + "".join(cells))
    if result.ci and any(score.documents < FEW_DOCUMENTS for _, score in rows):
        lines.append(f"* fewer than {FEW_DOCUMENTS} documents: a bootstrap interval over so few says little")
    return lines


def _cell(score: Score | BlancScore, width: int) -> str:
    return f"{100 * score.f1:>{width}.2f}" if defined(score) else f"{'n/a':>{width}}"
