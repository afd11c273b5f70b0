"""The same-lemma baseline for cross-document coreference, the classic floor (Cattan et al. 2021): mentions whose
heads have the same lemma, events and entities apart, in the same scope (a topic, a subtopic, or the corpus) are one
entity, across the documents of the scope.

- Mentions: the input's (``gold_mentions``), keeping their attributes (ECB+'s ``tag``), or found from the tree: the
  rule baseline's nominal and pronoun heads (`harmonize.resolvers.rules.tree_mentions`) and every verb that is
  not an auxiliary, each a one-word mention.
- Events and entities: a mention of an entity typed ``event`` (ECB+'s ACTION and NEG chains) or, for mentions
  found from the tree, headed by a verb, is an event; every other mention an entity.
- Head: the annotated head, else the tree's, else (no tree) the mention's last word; lemma: the head's LEMMA, else
  its form in lower case (``--parse`` gives lemmas); both fallbacks are counted.
- Entity ids are the same across the documents of a scope (``L1``, ``L2``... numbered over the whole run), so that
  the CorefUD writer and ``score --cross-document`` see one entity; documents keep their own mention order.
"""

from __future__ import annotations

from collections import Counter

from harmonize.errors import HarmonizeError, Report
from harmonize.resolvers.documents import without_coreference
from harmonize.resolvers.rules import tree_mentions
from harmonize.schemas.model import Corpus, Document, Mention, Node, tree_head

SCOPES = ("topic", "subtopic", "corpus")
EVENT, ENTITY = "event", "entity"
HEAD_LAST_WORD = "lemma baseline: no annotated head and no tree, the mention's last word taken as its head"
LEMMA_FROM_FORM = "lemma baseline: no lemma, the head's form in lower case taken"


class ScopeError(HarmonizeError):
    """A cross-document scope the input cannot give (no topics): a usage error."""


def mention_kind(mention: Mention) -> str:
    """``event`` for a mention of an entity typed ``event`` (ECB+'s ACTION and NEG chains), else ``entity``."""
    return EVENT if mention.entity_type == EVENT else ENTITY


def scope_key(document: Document, scope: str) -> tuple:
    if scope == "corpus":
        return ("corpus",)
    if document.topic is None:
        raise ScopeError(f"--scope {scope} needs documents grouped in topics (ECB+ topics, CorefUD "
                         f"'# meta::topic'); document {document.id!r} has none: use --scope corpus")
    return (document.topic,) if scope == "topic" else (document.topic, document.subtopic)


def _mentions(document: Document, gold_mentions: bool, report: Report) -> list[tuple[list[Node], Node, str, dict]]:
    """(words, head, event or entity, attributes) of the mentions to cluster."""
    found = []
    if gold_mentions:
        for mention in document.mentions:
            head = tree_head(mention)
            if head is None:
                head = mention.words[-1]
                report.add(HEAD_LAST_WORD, f"{document.id}: {mention.text}")
            found.append((list(mention.words), head, mention_kind(mention), dict(mention.attrs)))
        return found
    for words, head in tree_mentions(document):
        found.append((words, head, ENTITY, {}))
    for node in document.nodes():
        if node.upos == "VERB":
            found.append(([node], node, EVENT, {}))
    return sorted(found, key=lambda item: item[0][0].order)


def head_lemma(head: Node) -> str:
    """The head's LEMMA, else its form in lower case."""
    return head.lemma if head.lemma not in ("", "_") else head.form.lower()


def _lemma(head: Node, document: Document, report: Report) -> str:
    if head.lemma in ("", "_"):
        report.add(LEMMA_FROM_FORM, f"{document.id}: {head.form}")
    return head_lemma(head)


def resolve_lemma(corpus: Corpus, scope: str = "topic", gold_mentions: bool = False, report: Report | None = None,
                  ids: dict[tuple, str] | None = None) -> Counter:
    """Resolve ``corpus`` in place with the same-lemma baseline (see the module). ``ids`` maps (scope, kind, lemma)
    to entity ids and is shared by the calls of one run, so that files of one scope get the same ids."""
    if scope not in SCOPES:
        raise HarmonizeError(f"unknown scope {scope!r}: {', '.join(SCOPES)}")
    report = report if report is not None else Report()
    ids = ids if ids is not None else {}
    keys = [scope_key(document, scope) for document in corpus.documents]  # a wrong scope fails before any change
    given = [_mentions(document, gold_mentions, report) for document in corpus.documents]
    without_coreference(corpus, report)
    counts: Counter = Counter()
    for document, key, mentions in zip(corpus.documents, keys, given):
        if not gold_mentions and all(node.upos in ("", "_") for node in document.nodes()):
            report.add("document without part-of-speech tags: no mentions found (parse it first: --parse)",
                       str(document.id))
        for words, head, kind, attrs in mentions:
            group = (*key, kind, _lemma(head, document, report))
            entity_id = ids.setdefault(group, f"L{len(ids) + 1}")
            entity = document.entity(entity_id) or document.new_entity(entity_id, EVENT if kind == EVENT else None)
            mention = document.add_mention(entity, words, **attrs)
            if len(words) > 1 and head in mention.words:
                document.move_head(mention, head)
            counts[f"{kind} mentions"] += 1
        document.entities.sort(key=lambda e: e.mentions[0].order)
        counts["documents"] += 1
        counts["mentions"] += len(mentions)
    return counts
