"""Where two annotations of the same documents differ: documents paired and tokens checked as the scorer does,
mentions put on the key's words, then Kummerfeld & Klein's classification (`.classify`) and the cost of each
error type (`.cost`) per document or cross-document partition."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harmonize.error_analysis.classify import (
    ERRORS,
    OPERATIONS,
    Classification,
    Clustering,
    Error,
    MentionKey,
    classify,
    error_counts,
)
from harmonize.error_analysis.cost import ORIGINAL, CostTable, cost_of
from harmonize.error_analysis.heads import PRONOUN, Head, SentenceHeads, mention_type
from harmonize.errors import HarmonizeError, Report
from harmonize.schemas.model import Corpus, Document, Mention, pairing_key
from harmonize.scoring.frame import check_words
from harmonize.scoring.matching import DEFAULT_MATCHING, MATCHING_MODES, entity_spans, match
from harmonize.scoring.score import partitions
from harmonize.scoring.scored import document_words

RESPONSE_NODE_MISSING = "response mention on a node the key lacks (an empty node only the response has): left out"


class PartitionFacts:
    """What the classification needs to know of the mentions of one document or cross-document partition, from the
    key's documents (both sides share their words)."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self.documents = list(documents)
        self.positions = [[{n.id: n.position for n in s.nodes} for s in d.sentences] for d in self.documents]
        self._sentences: dict[tuple[int, int], SentenceHeads] = {}
        self._heads: dict[MentionKey, Head] = {}
        self.annotated: dict[MentionKey, int] = {}

    def key_of(self, document_index: int, mention: Mention) -> MentionKey | None:
        """The mention as a key on the key document's words; None where a node is not there."""
        sentence = mention.words[0].sentence
        assert sentence is not None
        where = self.positions[document_index][sentence.index]
        positions = [where.get(w.id) for w in mention.words]
        if None in positions:
            return None
        ordered = tuple(sorted(positions))  # type: ignore[arg-type]
        start, end = ordered[0], ordered[-1] + 1
        key = (document_index, sentence.index, start, end)
        if len(ordered) != end - start:
            key = (*key, ordered)
        if mention.head is not None and key not in self.annotated:
            self.annotated[key] = where[mention.head.id]
        return key

    def _sentence(self, mention: MentionKey) -> SentenceHeads:
        found = self._sentences.get(mention[:2])
        if found is None:
            found = SentenceHeads(self.documents[mention[0]].sentences[mention[1]])
            self._sentences[mention[:2]] = found
        return found

    @staticmethod
    def positions_of(mention: MentionKey) -> tuple[int, ...]:
        return mention[4] if len(mention) > 4 else tuple(range(mention[2], mention[3]))

    def head(self, mention: MentionKey) -> Head:
        found = self._heads.get(mention)
        if found is None:
            sentence = self._sentence(mention)
            annotated = self.annotated.get(mention)
            found = sentence.head(self.positions_of(mention),
                                  sentence.nodes[annotated] if annotated is not None else None)
            self._heads[mention] = found
        return found

    def sentence_words(self, mention: MentionKey) -> list[str]:
        return [n.form for n in self._sentence(mention).nodes]

    def text(self, mention: MentionKey) -> str:
        nodes = self._sentence(mention).nodes
        return " ".join(nodes[p].form for p in self.positions_of(mention))

    def head_key(self, mention: MentionKey) -> Hashable:
        return (mention[0], mention[1], self.head(mention).position)

    def mention_type(self, mention: MentionKey) -> str:
        return mention_type(len(self.positions_of(mention)), self.head(mention))

    def head_is_pronoun(self, mention: MentionKey) -> bool:
        return mention_type(1, self.head(mention)) == PRONOUN


@dataclass
class PartitionDiff:
    """One document (or cross-document partition) compared: both clusterings, the classification, the cost rows."""

    label: str
    genre: str | None
    topic: str | None
    key_documents: list[Document]
    facts: PartitionFacts
    key: Clustering
    response: Clustering
    classification: Classification
    key_entity: dict[MentionKey, str]
    response_entity: dict[MentionKey, str]
    # Under head or partial matching: (key mention, response mention) pairs the scorer matches whose words differ;
    # the response's mention is compared as the key's, so these are no error there (span errors when exact).
    matched_spans: list[tuple[MentionKey, MentionKey]] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return len(self.matched_spans)

    def span_difference_json(self, pair: tuple[MentionKey, MentionKey]) -> dict:
        """A key mention and the response mention matched with it (same head) whose words differ."""
        key, response = pair
        document = self.key_documents[key[0]]
        return {"document": document.id, "sentence": document.sentences[key[1]].id or key[1] + 1,
                "head": self.facts.head(key).form,
                "key": {"text": self.facts.text(key), "words": [p + 1 for p in self.facts.positions_of(key)]},
                "response": {"text": self.facts.text(response),
                             "words": [p + 1 for p in self.facts.positions_of(response)]}}

    @property
    def errors(self) -> dict[str, int]:
        return error_counts(self.classification.errors)

    def error_properties(self, error: Error) -> dict:
        """What the paper's analysis looks at: mention types, the entity sizes, and how many sentences lie between
        the mentions involved and the rest of their cluster (None where there is no rest)."""
        facts = self.facts
        involved = set(error.mentions)
        rest = (error.key_cluster | error.response_cluster) - involved
        distance = min((abs(a[1] - b[1]) if a[0] == b[0] else None for a in involved for b in rest
                        if a[0] == b[0]), default=None)
        return {
            "mention types": dict(Counter(facts.mention_type(m) for m in error.mentions)),
            "key entity size": len(error.key_cluster),
            "response entity size": len(error.response_cluster),
            "sentence distance": distance,
        }

    def error_json(self, error: Error) -> dict:
        def mention(key: MentionKey) -> dict:
            document = self.key_documents[key[0]]
            return {"document": document.id, "sentence": document.sentences[key[1]].id or key[1] + 1,
                    "words": [p + 1 for p in self.facts.positions_of(key)], "text": self.facts.text(key),
                    "type": self.facts.mention_type(key), "head": self.facts.head(key).form,
                    "key entity": self.key_entity.get(key), "response entity": self.response_entity.get(key)}

        entry = {"type": error.type, "mentions": [mention(m) for m in error.mentions],
                 "operations": {name: count for name, count in error.operations.items() if count},
                 "properties": self.error_properties(error)}
        if error.absent:  # key mentions the response lacks that this error stands for (a deleted first mention)
            entry["absent from the response"] = [mention(m) for m in error.absent]
        if error.response_mention is not None:
            entry["response mention"] = {"text": self.facts.text(error.response_mention),
                                         "words": [p + 1 for p in self.facts.positions_of(error.response_mention)]}
        return entry


@dataclass(frozen=True)
class PartitionRow:
    """What a result keeps of every document (or partition) compared, without its documents: its counts, where its
    mentions' heads came from, and its error list as the JSON gives it."""

    label: str
    genre: str | None
    topic: str | None
    operations: dict[str, int]
    errors: dict[str, int]
    heads: Counter
    error_list: list[dict]
    span_differences: list[dict] = field(default_factory=list)
    conll: float | None = None  # the response's CoNLL F1 (percent) on this document alone, as the cost table has it

    @classmethod
    def of(cls, partition: PartitionDiff, conll: float | None = None) -> PartitionRow:
        error_list = [partition.error_json(error) for error in partition.classification.errors]
        return cls(partition.label, partition.genre, partition.topic, dict(partition.classification.operations),
                   partition.errors, Counter(head.source for head in partition.facts._heads.values()), error_list,
                   [partition.span_difference_json(pair) for pair in partition.matched_spans], conll)


@dataclass
class DiffResult:
    """The whole comparison; `to_json` gives the documented JSON. ``rows`` has every document (or partition)
    compared; ``partitions`` the comparisons themselves (with their documents) where they were kept: not where
    pages were written as documents were compared (`diff` with ``pages``)."""

    partitions: list[PartitionDiff]
    cost: CostTable
    matching: str
    singletons: bool
    only_in_key: list[str] = field(default_factory=list)
    only_in_response: list[str] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    rows: list[PartitionRow] = field(default_factory=list)
    pages: list[Path] = field(default_factory=list)  # the HTML pages written (`diff` with ``pages``)
    # Lines about how to read it (a side whose heads look guessed under head matching).
    notes: list[str] = field(default_factory=list)

    def add(self, partition: PartitionDiff, keep: bool = True) -> None:
        """Count one compared document or partition (and keep it, unless ``keep`` is false)."""
        table = cost_of(partition.classification, partition.response, partition.key, partition.facts,
                        self.singletons)
        self.cost.add(table)
        original = table["alone"][ORIGINAL]
        self.rows.append(PartitionRow.of(partition, 100 * sum(original[n].f1 for n in ("muc", "bcub", "ceafe")) / 3))
        if keep:
            self.partitions.append(partition)

    @property
    def operations(self) -> dict[str, int]:
        total = dict.fromkeys(OPERATIONS, 0)
        for row in self.rows:
            for name, count in row.operations.items():
                total[name] += count
        return total

    @property
    def errors(self) -> dict[str, int]:
        total = dict.fromkeys(ERRORS, 0)
        for row in self.rows:
            for name, count in row.errors.items():
                total[name] += count
        return total

    @property
    def span_differences(self) -> list[dict]:
        """Under head or partial matching, each key mention whose matched response mention has other words
        (`PartitionDiff.span_difference_json`), over every document compared."""
        return [entry for row in self.rows for entry in row.span_differences]

    @property
    def heads(self) -> dict[str, int]:
        counts: Counter = Counter()
        for row in self.rows:
            counts.update(row.heads)
        return dict(sorted(counts.items()))

    def by_group(self, attribute: str) -> dict[str, dict[str, int]]:
        """Error counts per genre or topic (documents without one left out)."""
        groups: dict[str, dict[str, int]] = {}
        for row in self.rows:
            name = getattr(row, attribute)
            if name is None:
                continue
            counts = groups.setdefault(name, dict.fromkeys(ERRORS, 0))
            for error, count in row.errors.items():
                counts[error] += count
        return dict(sorted(groups.items()))

    def to_json(self, details: bool = True) -> dict:
        return {
            "matching": self.matching,
            "singletons": self.singletons,
            "operations": self.operations,
            "errors": self.errors,
            "genres": self.by_group("genre"),
            "topics": self.by_group("topic"),
            "documents": [
                {"id": row.label, "genre": row.genre, "topic": row.topic, "operations": row.operations,
                 "errors": row.errors, "spans differing under matching": len(row.span_differences),
                 **({"error list": row.error_list, "span differences": row.span_differences} if details else {})}
                for row in self.rows],
            "cost": self.cost.to_json(),
            "heads": self.heads,
            "only in key": self.only_in_key,
            "only in response": self.only_in_response,
            "report": self.report.to_dict(),
        }


def _clustering(documents: Sequence[Document], facts: PartitionFacts, singletons: bool,
                report: Report) -> tuple[Clustering, dict[MentionKey, str]]:
    pairs: list[tuple[Hashable, list[MentionKey]]] = []
    entity_of: dict[MentionKey, str] = {}
    by_entity: dict[str, list[MentionKey]] = {}
    for index, document in enumerate(documents):
        for entity in document.entities:
            members = by_entity.setdefault(entity.id, [])
            for mention in entity.mentions:
                key = facts.key_of(index, mention)
                if key is None:
                    report.add(RESPONSE_NODE_MISSING, f"{document.id}: {mention.text}")
                    continue
                members.append(key)
                entity_of.setdefault(key, entity.id)
    pairs = list(by_entity.items())
    return Clustering.of(pairs, singletons), entity_of


def _matched_onto_key(key_documents: Sequence[Document], response_documents: Sequence[Document],
                      facts: PartitionFacts, mode: str) -> dict[MentionKey, MentionKey]:
    """Response mention -> the key mention the scorer's partial or head matching pairs it with."""
    key_spans: list[list] = []
    response_spans: list[list] = []
    span_key: dict[int, MentionKey] = {}
    for spans, documents in ((key_spans, key_documents), (response_spans, response_documents)):
        for index, document in enumerate(documents):
            clusters, _duplicates = entity_spans(document, True, (index,))
            # entity_spans keeps each entity's mentions in order, the first of a repeated node set only
            seen: set = set()
            for entity in document.entities:
                kept = clusters.get(entity.id, [])
                mentions = []
                for mention in entity.mentions:
                    nodes = frozenset((mention.sentence.index, w.id) for w in mention.words)
                    if nodes not in seen:
                        seen.add(nodes)
                        mentions.append(mention)
                for span, mention in zip(kept, mentions):
                    found = facts.key_of(index, mention)
                    if found is not None:
                        span_key[id(span)] = found
                spans.append(kept)
    matched = match(key_spans, response_spans, mode)
    return {span_key[id(r)]: span_key[id(k)] for r, k in matched.items()
            if id(r) in span_key and id(k) in span_key and span_key[id(r)] != span_key[id(k)]}


def diff_partition(label: str, key_documents: Sequence[Document], response_documents: Sequence[Document],
                   singletons: bool = False, matching: str = "exact", report: Report | None = None) -> PartitionDiff:
    """Compare one document, or the documents of one cross-document partition, in the same order on both sides."""
    report = report if report is not None else Report()
    facts = PartitionFacts(key_documents)
    key, key_entity = _clustering(key_documents, facts, singletons, report)
    response, response_entity = _clustering(response_documents, facts, singletons, report)
    matched_spans = []
    if matching != "exact":
        moves = _matched_onto_key(key_documents, response_documents, facts, matching)
        for old, new in moves.items():
            if old in response.cluster_of and new not in response.cluster_of:
                response.move(old, new)
                response_entity[new] = response_entity.pop(old)
                matched_spans.append((new, old))
    classification = classify(key, response, facts)
    first = key_documents[0]
    return PartitionDiff(label, first.genre, first.topic, list(key_documents), facts, key, response, classification,
                         key_entity, response_entity, sorted(matched_spans))


def diff_corpora(key: Corpus, response: Corpus, singletons: bool = False, matching: str = DEFAULT_MATCHING,
                 cross_document: str | None = None, forms: bool = True) -> DiffResult:
    """Compare two corpora of the same documents (see `diff`)."""
    if matching not in MATCHING_MODES:
        raise HarmonizeError(f"unknown matching mode {matching!r}: {', '.join(MATCHING_MODES)}")
    responses = {pairing_key(d.id): d for d in response.documents}
    keys = {pairing_key(d.id) for d in key.documents}
    only_in_key = [str(d.id) for d in key.documents if pairing_key(d.id) not in responses]
    only_in_response = [str(d.id) for d in response.documents if pairing_key(d.id) not in keys]
    paired = [(d, responses[pairing_key(d.id)]) for d in key.documents if pairing_key(d.id) in responses]
    check_pair_words(paired, forms)
    report = Report()
    result = DiffResult([], CostTable(), matching, singletons, only_in_key, only_in_response, report)
    groups = partitions(paired, cross_document)  # type: ignore[arg-type]
    for group in groups:
        first = group[0][0]
        label = str(first.id) if cross_document is None else "corpus" if cross_document == "corpus" else str(
            (first.subtopic if cross_document == "subtopic" else first.topic) or "(none)")
        result.add(diff_partition(label, [k for k, _ in group], [r for _, r in group], singletons, matching, report))
    return result


def check_pair_words(pairs: list[tuple[Document, Document]], forms: bool) -> None:
    """The scorer's check that both sides have the same words (empty nodes may differ)."""
    for key, response in pairs:
        check_words(key.id, document_words(key, forms), document_words(response, forms))
