"""Corpus statistics tables, each named after the paper table it reproduces, as pandas DataFrames.

    tables = stats_tables(corpus, by="genre")          # {"corpus": DataFrame, "entities": ..., ...}

Tables (one row per group, a row "all" without grouping; percentages are 0-100):

* ``corpus`` (CorefUD findings Table 1, plus the UWB paper's singleton and discontinuity shares): documents,
  sentences, words, zeros (empty nodes), entities, mentions, avg_entity_length (mentions per entity),
  nonsingleton_mentions, singletons_pct (singleton entities among all entities, whether or not singletons are
  counted elsewhere), discontinuous_pct (discontinuous mentions among mentions).
* ``entities`` (findings Table 9): entities, entities_per_1k (per 1000 words), max_length, avg_length (in
  mentions), len_1 .. len_4, len_5plus (shares of entities with that many mentions).
* ``mentions`` (findings Table 10): mentions, mentions_per_1k, max_length, avg_length (in non-empty words),
  len_0 (zeros) .. len_4, len_5plus.
* ``mention_types`` (findings Table 11): with_empty, with_gap, non_treelet (not a connected subgraph of the
  dependency tree), head_upos_<UPOS> for NOUN PRON PROPN DET ADJ VERB ADV NUM, head_upos_unknown (no UPOS on
  the head, "_") and head_upos_other.
* ``genre`` (OntoGUM Table 1): documents, tokens, mentions, proper, pronominal, other (by head UPOS: PROPN,
  PRON, anything else), entities (the table's "clusters", singletons as counted).
* ``split_antecedents`` (RuCoCo paper, Table 1): whitespace_words (words as whitespace separates them in the text
  the tokens spell, as RuCoCo counts them), mentions, entities, plural_anaphors (entities with parts: split
  antecedents or an ``includes`` bridge; the paper's "PA entities") and their share, split_antecedents (distinct
  entities that are a part of one; "APA entities") and their share.
* ``cross_document`` (Cattan et al. 2021, Table 4, ECB+): topics, documents, sentences, annotated_sentences (with a
  mention), mentions, singletons and clusters (chains of two mentions or more, as the table counts them), each also
  for events and entities where mention types say so (a type starting with "ev" is an event). A chain is an entity
  id across the documents of the group where documents have topics (cross-document corpora), else within its
  document; all mentions count, singletons included, whatever ``singletons`` says.

"clusters" has one meaning wherever it appears: chains of two mentions or more. Singleton entities are counted
or left out (``singletons``) in every table but ``cross_document``, which counts every mention as Cattan et al.
do; each table's ``attrs["note"]`` says which, and the renderers print it beside the table's name. Without
``tables``, ``cross_document`` is given only where documents have topics.

Heads are the annotated ones; where a mention has none they are computed from the dependency tree as udapi's
``corefud.MoveHead`` does (`harmonize.schemas.model`), and ``heads_from_tree`` in the result's attributes
says how many (``heads_unknown``: mentions with neither, whose head UPOS is "_"). The definitions follow udapi's ``corefud.Stats`` where both compute a figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from harmonize.converters.surface import document_text
from harmonize.errors import HarmonizeError, Report
from harmonize.io import paused_gc
from harmonize.schemas.model import Corpus, Document, Mention, ud_head

SELECTED_UPOS = ("NOUN", "PRON", "PROPN", "DET", "ADJ", "VERB", "ADV", "NUM", "_")
UPOS_COLUMN = {"_": "unknown"}  # a head without UPOS: head_upos_unknown, not head_upos__
TABLES = ("corpus", "entities", "mentions", "mention_types", "genre", "split_antecedents", "cross_document")
GROUPINGS = ("genre", "document", "topic", "split", "file")
MAX_LENGTH = 5


@dataclass
class Counts:
    """What the tables are computed from, for one group; counts of several files add up (``merge``)."""

    documents: int = 0
    sentences: int = 0
    annotated_sentences: int = 0  # with a mention (ECB+ annotates a few sentences per document)
    words: int = 0
    whitespace_words: int = 0  # of the text the tokens spell (RuCoCo counts words so)
    zeros: int = 0
    topics: set = field(default_factory=set)
    entity_lengths: list[int] = field(default_factory=list)
    mention_lengths: list[int] = field(default_factory=list)
    singletons: int = 0
    all_entities: int = 0
    discontinuous: int = 0
    with_empty: int = 0
    with_gap: int = 0
    non_treelet: int = 0
    head_upos: Counter = field(default_factory=Counter)
    heads_from_tree: int = 0
    heads_unknown: int = 0  # no annotated head and no tree to find one in
    plural_anaphors: int = 0
    split_antecedents: int = 0
    # (cross-document key, "event"|"entity"|"") -> mentions: one chain across the documents of a topic (ECB+)
    chains: Counter = field(default_factory=Counter)

    def merge(self, other: Counts) -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            if isinstance(mine, set):
                mine |= value
            elif isinstance(mine, list):
                mine.extend(value)
            elif isinstance(mine, Counter):
                mine.update(value)
            else:
                setattr(self, name, mine + value)


ALL = "all"  # the whole corpus: the one group without --by, the last row of every grouped table


def group_key(document: Document, by: str | None) -> str:
    if by is None:
        return ALL
    if by not in GROUPINGS:
        raise ValueError(f"unknown grouping {by!r}: {', '.join(GROUPINGS)}")
    value = {
        "genre": document.genre,
        "document": document.id,
        "topic": document.topic,
        "split": document.meta.get("split"),
        "file": document.source,
    }[by]
    return str(value) if value is not None else "(none)"


def _is_treelet(mention: Mention, parents: list) -> bool:
    """A connected subgraph of the tree: exactly one node without a parent inside (enhanced parents for nodes
    without a basic one, such as empty nodes). ``parents``: each word's basic parent."""
    inside = set(map(id, mention.words))
    tops = 0
    for word, parent in zip(mention.words, parents):
        if parent is not None:
            tops += id(parent) not in inside
        else:
            parents = [word.sentence.word(item.split(":", 1)[0]) for item in word.deps.split("|")
                       if word.deps not in ("_", "") and word.sentence is not None]
            tops += not any(p is not None and id(p) in inside for p in parents)
    return tops <= 1


def _count(document: Document, group: Counts, singletons: bool) -> None:
    group.documents += 1
    if document.topic is not None:
        group.topics.add(document.topic)
    for sentence in document.sentences:
        group.sentences += 1
        group.annotated_sentences += any(node.mentions for node in sentence.nodes)
        zeros = sum(1 for node in sentence.nodes if "." in node.id)
        group.zeros += zeros
        group.words += len(sentence.nodes) - zeros
    group.whitespace_words += len(document_text(document).text.split())
    parts = document.inclusions()
    plural = {id(whole) for whole in parts}
    antecedents = {id(part) for listed in parts.values() for part in listed}
    # An entity id names one chain across the documents of the group where documents have topics (cross-document
    # corpora, as the scorer's --cross-document reads ids), else within its document.
    scope = None if document.topic is not None else document.id
    for entity in document.entities:
        for mention in entity.mentions:
            kind = mention.entity_type or ""
            group.chains[scope, entity.id, "event" if kind.lower().startswith("ev") else "entity" if kind else ""] += 1
        size = len(entity.mentions)
        group.all_entities += 1
        if size == 1:
            group.singletons += 1
            if not singletons:
                continue
        group.entity_lengths.append(size)
        group.plural_anaphors += id(entity) in plural
        group.split_antecedents += id(entity) in antecedents
        for mention in entity.mentions:
            words = mention.words
            non_empty = sum(1 for w in words if not w.is_empty)
            group.mention_lengths.append(non_empty)
            group.with_empty += non_empty < len(words)
            gap = mention.is_discontinuous
            group.with_gap += gap
            group.discontinuous += gap
            parents = [w.parent for w in words]
            if any(w.head != "_" for w in words):  # without a tree, a treelet is undefined
                group.non_treelet += not _is_treelet(mention, parents)
            head = mention.head
            if head is None:
                head = ud_head(mention, parents)
                if head is None:
                    group.heads_unknown += 1
                else:
                    group.heads_from_tree += 1
            upos = head.upos if head is not None else "_"
            group.head_upos[upos if upos in SELECTED_UPOS else "other"] += 1


def _pct(part: float, whole: float) -> float:
    return 100 * part / whole if whole else 0.0


def _rows(groups: dict[str, Counts]) -> dict[str, list[dict]]:
    tables: dict[str, list[dict]] = {name: [] for name in TABLES}
    for name, g in groups.items():
        entities = len(g.entity_lengths)
        mentions = len(g.mention_lengths)
        words = g.words
        nonsingleton_mentions = sum(n for n in g.entity_lengths if n > 1)
        tables["corpus"].append({
            "group": name, "documents": g.documents, "sentences": g.sentences, "words": words, "zeros": g.zeros,
            "entities": entities, "mentions": mentions, "avg_entity_length": mentions / entities if entities else 0.0,
            "nonsingleton_mentions": nonsingleton_mentions,
            "singletons_pct": _pct(g.singletons, g.all_entities),
            "discontinuous_pct": _pct(g.discontinuous, mentions),
        })
        entity_row = {
            "group": name, "entities": entities, "entities_per_1k": 1000 * entities / words if words else 0.0,
            "max_length": max(g.entity_lengths, default=0), "avg_length": mentions / entities if entities else 0.0,
        }
        for n in range(1, MAX_LENGTH):
            entity_row[f"len_{n}"] = _pct(sum(1 for x in g.entity_lengths if x == n), entities)
        entity_row["len_5plus"] = _pct(sum(1 for x in g.entity_lengths if x >= MAX_LENGTH), entities)
        tables["entities"].append(entity_row)
        mention_row = {
            "group": name, "mentions": mentions, "mentions_per_1k": 1000 * mentions / words if words else 0.0,
            "max_length": max(g.mention_lengths, default=0),
            "avg_length": sum(g.mention_lengths) / mentions if mentions else 0.0,
        }
        for n in range(0, MAX_LENGTH):
            mention_row[f"len_{n}"] = _pct(sum(1 for x in g.mention_lengths if x == n), mentions)
        mention_row["len_5plus"] = _pct(sum(1 for x in g.mention_lengths if x >= MAX_LENGTH), mentions)
        tables["mentions"].append(mention_row)
        types_row = {"group": name, "with_empty": _pct(g.with_empty, mentions), "with_gap": _pct(g.with_gap, mentions),
                     "non_treelet": _pct(g.non_treelet, mentions)}
        for upos in (*SELECTED_UPOS, "other"):
            types_row[f"head_upos_{UPOS_COLUMN.get(upos, upos)}"] = _pct(g.head_upos[upos], mentions)
        tables["mention_types"].append(types_row)
        # Without POS on the heads (a 3-column CoNLL file) proper/pronominal/other are unknown, not 0.
        known = g.head_upos["_"] < mentions or not mentions
        tables["genre"].append({
            "group": name, "documents": g.documents, "tokens": words, "mentions": mentions,
            "proper": g.head_upos["PROPN"] if known else None, "pronominal": g.head_upos["PRON"] if known else None,
            "other": mentions - g.head_upos["PROPN"] - g.head_upos["PRON"] if known else None,
            "entities": entities,
        })
        tables["split_antecedents"].append({
            "group": name, "whitespace_words": g.whitespace_words, "mentions": mentions, "entities": entities,
            "plural_anaphors": g.plural_anaphors, "plural_anaphors_pct": _pct(g.plural_anaphors, entities),
            "split_antecedents": g.split_antecedents, "split_antecedents_pct": _pct(g.split_antecedents, entities),
        })
        chains = g.chains
        typed = any(kind for _, _, kind in chains)

        def by_kind(kind: str, test: Callable[[int], bool], weight: bool = False) -> int:
            return sum(n if weight else 1 for (_, _, k), n in chains.items() if k == kind and test(n))

        tables["cross_document"].append({
            "group": name, "topics": len(g.topics), "documents": g.documents, "sentences": g.sentences,
            "annotated_sentences": g.annotated_sentences, "mentions": sum(chains.values()),
            "singletons": sum(1 for n in chains.values() if n == 1),
            "clusters": sum(1 for n in chains.values() if n > 1),
            "event_mentions": by_kind("event", bool, True) if typed else None,
            "entity_mentions": by_kind("entity", bool, True) if typed else None,
            "event_singletons": by_kind("event", lambda n: n == 1) if typed else None,
            "entity_singletons": by_kind("entity", lambda n: n == 1) if typed else None,
            "event_clusters": by_kind("event", lambda n: n > 1) if typed else None,
            "entity_clusters": by_kind("entity", lambda n: n > 1) if typed else None,
        })
    return tables


def count(
    documents: Iterable[Document], by: str | None = None, singletons: bool = True,
    key: Callable[[Document], str] | None = None,
) -> dict[str, Counts]:
    """Per-group counts of ``documents`` (``key`` overrides the grouping)."""
    groups: dict[str, Counts] = {}
    with paused_gc():  # a full corpus may be alive: collector passes would rescan all of it
        for document in documents:
            count_document(groups, document, key(document) if key is not None else group_key(document, by),
                           singletons)
    return groups


def count_document(groups: dict[str, Counts], document: Document, group: str, singletons: bool = True) -> None:
    """Add one document's counts to ``groups`` under ``group``, as `count` does for each of its documents (for
    documents handed over one at a time)."""
    _count(document, groups.setdefault(group, Counts()), singletons)


def merge_counts(groups: dict[str, Counts], more: dict[str, Counts]) -> None:
    """Add the per-group counts ``more`` into ``groups``."""
    for name, counts in more.items():
        if name in groups:
            groups[name].merge(counts)
        else:
            groups[name] = counts


def count_file(path: Path, source: str = "corefud", lenient: bool = False, by: str | None = None,
               singletons: bool = True, split_of: dict[str, str] | None = None,
               read_options: dict[str, str] | None = None, parse: str = "none", parse_overwrite: bool = False
               ) -> tuple[dict[str, Counts], Report]:
    """Per-group counts of one input file (``split_of``: document -> split, for ``by="split"``), with the report
    of reading it. A large CorefUD file is read a piece of whole documents at a time, each counted and freed, so
    that memory follows a piece, not the file."""
    from harmonize.conversion import read_corpora
    from harmonize.converters import get_format
    from harmonize.parsing import NO_PARSING

    report = Report()
    groups: dict[str, Counts] = {}
    for corpus in read_corpora(path, get_format(source, "read"), lenient, report, read_options):
        if parse != NO_PARSING:
            from harmonize.parsing.trees import parse_corpus

            parse_corpus(corpus, parse, report, parse_overwrite)
        if split_of:
            for document in corpus:
                document.meta.setdefault("split", split_of.get(document.id))
        merge_counts(groups, count(corpus, by, singletons))
        corpus.release()
    return groups, report


def count_files(files: list[Path], source: str = "corefud", lenient: bool = False, by: str | None = None,
                singletons: bool = True, split_of: dict[str, str] | None = None,
                read_options: dict[str, str] | None = None, parse: str = "none", parse_overwrite: bool = False,
                progress: Callable[[int, int], None] | None = None) -> tuple[dict[str, Counts], Report]:
    """Per-group counts of several files (what ``harmonize stats`` counts), with the report of reading them: each
    file read and counted apart, on every core (one process where the parser cannot share processes), so that
    only the small per-group counts come back. ``progress(done, total)`` is called as files are counted."""
    from concurrent.futures import ProcessPoolExecutor

    from harmonize.conversion import worker_count
    from harmonize.parsing import parser_for

    parser = parser_for(parse)  # a wrong engine or model fails before any work
    workers = worker_count(0) if parser is None or parser.shares_processes else 1
    jobs = [(path, source, lenient, by, singletons, split_of, read_options, parse, parse_overwrite) for path in files]
    groups: dict[str, Counts] = {}
    report = Report()
    with ProcessPoolExecutor(max_workers=max(1, min(len(jobs), workers))) as pool:
        for done, (file_groups, file_report) in enumerate(pool.map(_count_job, jobs, chunksize=8), 1):
            report.merge(file_report)
            merge_counts(groups, file_groups)
            if progress is not None:
                progress(done, len(jobs))
    if not any(counts.documents for counts in groups.values()):
        raise HarmonizeError(f"nothing to count: no document in {', '.join(map(str, files))}")
    return groups, report


def _count_job(job: tuple) -> tuple[dict[str, Counts], Report]:
    """Worker: `count_file` (errors travel back as HarmonizeError)."""
    return count_file(*job)


def check_tables(names: Iterable[str] | None) -> None:
    """Table names that are no table fail here (None: all of them)."""
    from harmonize.errors import HarmonizeError

    unknown = [name for name in names or () if name not in TABLES]
    if unknown:
        raise HarmonizeError(f"unknown table(s) {', '.join(unknown)}: {', '.join(TABLES)}")


def tables_from_counts(groups: dict[str, Counts], singletons: bool = True, tables: Iterable[str] | None = None
                       ) -> dict[str, pd.DataFrame]:
    """The tables named (default: every table, ``cross_document`` only where documents have topics) as
    DataFrames indexed by group; ``attrs`` say how many heads were computed or unknown, and (``note``) whether
    singletons were counted."""
    if tables is None:
        has_topics = any(g.topics for g in groups.values())
        chosen = [name for name in TABLES if name != "cross_document" or has_topics]
    else:
        chosen = list(tables)
        check_tables(chosen)
    from_tree = sum(g.heads_from_tree for g in groups.values())
    unknown_heads = sum(g.heads_unknown for g in groups.values())
    ordered = dict(sorted(groups.items()))
    if len(ordered) > 1:
        # Every grouped table ends with the whole corpus, counted as one group is (not a mean of the groups).
        whole = Counts()
        for counts in ordered.values():
            whole.merge(counts)
        ordered[ALL] = whole
    every = _rows(ordered)
    result = {}
    for name in chosen:
        rows = every[name]
        frame = pd.DataFrame(rows).set_index("group") if rows else pd.DataFrame()
        frame.attrs["heads_from_tree"] = from_tree
        frame.attrs["heads_unknown"] = unknown_heads
        frame.attrs["note"] = ("every mention, singletons included; clusters: chains of 2 mentions or more"
                               if name == "cross_document" else
                               "singletons included" if singletons else "singletons left out")
        result[name] = frame
    return result


def stats_tables(
    documents: Corpus | Iterable[Document], by: str | None = None, singletons: bool = True,
    key: Callable[[Document], str] | None = None, tables: Iterable[str] | None = None,
) -> dict[str, pd.DataFrame]:
    """The statistics tables (``tables`` names them, default all that apply) as DataFrames indexed by group.
    ``singletons=False`` leaves singleton entities (and their mentions) out of the entity and mention counts;
    ``key`` overrides the grouping.

    Examples:
        >>> import harmonize
        >>> from harmonize.conversion import sample_path
        >>> tables = stats_tables(harmonize.read(sample_path()), tables=["corpus"])
        >>> int(tables["corpus"].loc["all", "mentions"]), tables["corpus"].attrs["note"]
        (14, 'singletons included')
    """
    return tables_from_counts(count(documents, by, singletons, key), singletons, tables)


def length_distributions(groups: dict[str, Counts]) -> dict[str, tuple[Counter, Counter]]:
    """group -> (entity lengths in mentions, mention lengths in words) as counters, for plots."""
    return {name: (Counter(g.entity_lengths), Counter(g.mention_lengths)) for name, g in groups.items()}
