"""The string-match baseline, which needs no lexicon and no tree: the floor for any language.

Mentions are the input's (gold mentions: what ``validate`` measures it on) or any given list. Two mentions are
one entity where

- their words are the same string (forms in lower case, joined by spaces), the field's exact-match baseline (the
  first sieve of Lee et al. 2013), pronouns included; or
- their heads have the same lemma (the form in lower case where there is no lemma): the head-match baseline. The
  head is the annotated one, else the tree's; a mention with neither (RuCoCo, brat imports without ``--parse``)
  takes part in exact matching only, and is counted.

Entities are the transitive closure of both links. Every mention is kept, singletons included.
"""

from __future__ import annotations

from collections import Counter

from harmonize.errors import Report
from harmonize.resolvers.documents import MentionSets, add_clusters, without_coreference
from harmonize.schemas.model import Corpus, Document, Node, tree_head

NO_HEAD = "string match: mention without a head (none annotated, no tree): matched by its whole string only"


def _text(words: list[Node]) -> str:
    return " ".join(w.form.lower() for w in words if not w.is_empty)


def _lemma(node: Node) -> str:
    return node.lemma.lower() if node.lemma not in ("", "_") else node.form.lower()


def resolve_document(document: Document, mentions: list[tuple[list[Node], Node | None]], counts: Counter) -> None:
    """Cluster ``mentions`` ((words, head or None) pairs) by exact string and head lemma; add them as entities."""
    sets = MentionSets(len(mentions))
    first: dict[tuple[str, str], int] = {}
    for index, (words, head) in enumerate(mentions):
        keys = [("text", _text(words))] if _text(words) else []
        if head is not None and not head.is_empty:
            keys.append(("head", _lemma(head)))
        for key in keys:
            if key in first:
                if sets.join(index, first[key]):
                    counts[f"joined by {'the same string' if key[0] == 'text' else 'the same head lemma'}"] += 1
            else:
                first[key] = index
    add_clusters(document, sets.clusters([words for words, _ in mentions]))
    counts["mentions"] += len(mentions)


def resolve_string_match(corpus: Corpus, report: Report | None = None) -> Counter:
    """Re-cluster the mentions of every document of ``corpus`` in place by string and head match (their entities
    are dropped first, counted in ``report``). Returns counts of what was joined."""
    report = report if report is not None else Report()
    counts: Counter = Counter()
    given = []
    for document in corpus.documents:
        mentions = []
        for mention in document.mentions:
            head = tree_head(mention)
            if head is None:
                report.add(NO_HEAD, f"{document.id}: {mention.text}")
            mentions.append((list(mention.words), head))
        given.append(mentions)
    without_coreference(corpus, report)
    for document, mentions in zip(corpus.documents, given):
        resolve_document(document, mentions, counts)
        counts["documents"] += 1
    return counts
