"""Score a response corpus against a key corpus, document by document, summed as the reference scorers do.

Mentions are matched exactly (same nodes). Key and response must hold the same documents with the same tokens;
the first difference is an error. A mention that occurs twice in one side is kept in the first cluster that has
it (clusters in the order their first bracket opens) and the removal is counted, as the reference scorer's
de-duplication does. Singletons are left out unless asked for (the CorefUD convention).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harmonize.errors import HarmonizeError
from harmonize.schemas.model import Corpus, Document
from harmonize.scoring.metrics import METRICS, BlancScore, Score

MentionKey = tuple[tuple[int, str], ...]


@dataclass
class CorpusScore:
    metrics: dict[str, Score | BlancScore]
    documents: int
    duplicates: dict[str, int] = field(default_factory=dict)

    @property
    def conll(self) -> float | None:
        if not all(name in self.metrics for name in ("muc", "bcub", "ceafe")):
            return None
        return (self.metrics["muc"].f1 + self.metrics["bcub"].f1 + self.metrics["ceafe"].f1) / 3

    def to_json(self) -> dict:
        return {
            "metrics": {name: {"recall": s.recall, "precision": s.precision, "f1": s.f1}
                        for name, s in self.metrics.items()},
            "conll": self.conll,
        }


def clusters(document: Document, singletons: bool) -> tuple[list[frozenset[MentionKey]], int]:
    """The document's clusters of exact mention keys, and how many duplicate mentions were dropped."""
    seen: set[MentionKey] = set()
    result: list[frozenset[MentionKey]] = []
    duplicates = 0
    for entity in document.entities:
        cluster = []
        for mention in entity.mentions:
            key = tuple((w.sentence.index, w.id) for w in mention.words)  # type: ignore[union-attr]
            if key in seen:
                duplicates += 1
                continue
            seen.add(key)
            cluster.append(key)
        if len(cluster) > 1 or (singletons and cluster):
            result.append(frozenset(cluster))
    return result, duplicates


def check_alignment(key: Corpus, response: Corpus, forms: bool = True) -> list[tuple[Document, Document]]:
    """Pair documents by id and check that their tokens agree, in both directions. With ``forms`` off only the
    token positions must agree (the reference scorer's own test cases rename tokens in responses)."""
    responses = {d.id: d for d in response.documents}
    keys = {d.id: d for d in key.documents}
    for document in key.documents:
        if document.id not in responses:
            raise HarmonizeError(f"document {document.id!r} is in the key but not in the response")
    for document in response.documents:
        if document.id not in keys:
            raise HarmonizeError(f"document {document.id!r} is in the response but not in the key")
    pairs = []
    for document in key.documents:
        other = responses[document.id]
        key_tokens = [(s.index, n.id, n.form if forms else "") for s in document.sentences for n in s.nodes]
        response_tokens = [(s.index, n.id, n.form if forms else "") for s in other.sentences for n in s.nodes]
        for a, b in zip(key_tokens, response_tokens):
            if a != b:
                raise HarmonizeError(
                    f"document {document.id!r}, sentence {a[0] + 1}, token {a[1]}: key has {a[2]!r}, "
                    f"response has sentence {b[0] + 1}, token {b[1]} {b[2]!r}")
        if len(key_tokens) != len(response_tokens):
            shorter = "response" if len(response_tokens) < len(key_tokens) else "key"
            raise HarmonizeError(f"document {document.id!r}: the {shorter} is truncated "
                                 f"({len(key_tokens)} key tokens, {len(response_tokens)} response tokens)")
        pairs.append((document, other))
    return pairs


def score_corpora(
    key: Corpus, response: Corpus, metrics: list[str] | None = None, singletons: bool = False, forms: bool = True
) -> CorpusScore:
    names = metrics or list(METRICS)
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise HarmonizeError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")
    totals: dict[str, Score | BlancScore] = {}
    duplicates = {"key": 0, "response": 0}
    pairs = check_alignment(key, response, forms)
    for key_document, response_document in pairs:
        key_clusters, key_duplicates = clusters(key_document, singletons)
        response_clusters, response_duplicates = clusters(response_document, singletons)
        duplicates["key"] += key_duplicates
        duplicates["response"] += response_duplicates
        for name in names:
            result = METRICS[name](key_clusters, response_clusters)
            totals[name] = totals[name] + result if name in totals else result  # type: ignore[operator]
    return CorpusScore(totals, len(pairs), duplicates)
