"""The rule baseline, after the CRAC 2022 "simple-rule-based" system: the floor a learned model must beat.

Mentions are the input's (``gold_mentions``) or found from the tree: every noun, proper noun and pronoun that heads
its phrase (not ``compound``/``flat``/``fixed``/``goeswith`` inside a name or number, not an expletive, not a
relative or interrogative pronoun), empty nodes included, each as a one-word mention (partial matching credits a
mention that holds the key's head; the CRAC 2022 rule system also reduced mentions to heads). Then:

- a pronoun (UPOS PRON) joins the nearest preceding nominal mention (head not a pronoun) whose Number, Gender and
  Person (UD FEATS; no lexicon, so any language with UPOS and FEATS) do not contradict its own (a feature missing
  on either side agrees; pronouns with none are counted), as the CRAC 2022 system linked a pronoun to the
  nearest previous noun of the same gender (first- and second-person pronouns included: a stronger floor would
  chain them to each other, which is a different baseline);
- mentions headed by proper nouns with the same lemma (the form where there is no lemma) join.

Every mention is kept, singletons included.
"""

from __future__ import annotations

from collections import Counter

from harmonize.errors import Report
from harmonize.resolvers.documents import MentionSets, add_clusters, without_coreference
from harmonize.schemas.model import Corpus, Document, Node, tree_head

NOMINAL = ("NOUN", "PROPN")
NOT_A_PHRASE_HEAD = ("compound", "flat", "fixed", "goeswith")
NOT_REFERRING = ("Rel", "Int")  # PronType of pronouns that do not corefer by this rule
# UD features a pronoun and its antecedent must not contradict: the rules read them from FEATS and use no lexicon,
# so they work in any language whose corpus (or --parse) gives UPOS and FEATS.
AGREEMENT = ("Number", "Gender", "Person")


def tree_mentions(document: Document) -> list[tuple[list[Node], Node]]:
    """(words, head): one-word mentions for the phrase heads the module describes, in document order."""
    mentions = []
    for node in document.nodes():
        relation = node.deprel.split(":")[0]
        nominal = node.upos in NOMINAL and relation not in NOT_A_PHRASE_HEAD
        if nominal or (node.upos == "PRON" and relation != "expl"
                       and node.feats_dict().get("PronType") not in NOT_REFERRING):
            mentions.append(([node], node))
    return mentions


def _agrees(pronoun: dict[str, str], candidate: dict[str, str], features: tuple[str, ...]) -> bool:
    return all(pronoun.get(f) is None or candidate.get(f) is None or pronoun[f] == candidate[f] for f in features)


def resolve_document(document: Document, mentions: list[tuple[list[Node], Node]], counts: Counter) -> None:
    """Cluster ``mentions`` ((words, head) pairs) by the rules above and add them to ``document`` as entities."""
    heads = [head for _, head in mentions]
    sets = MentionSets(len(mentions))
    feats = [head.feats_dict() for head in heads]
    for index, head in enumerate(heads):
        if head.upos != "PRON":
            continue
        if not any(name in feats[index] for name in AGREEMENT):
            counts["pronouns without Number, Gender or Person (linked without agreement)"] += 1
        for earlier in range(index - 1, -1, -1):
            if heads[earlier].upos != "PRON" and _agrees(feats[index], feats[earlier], AGREEMENT):
                sets.join(index, earlier)
                counts["pronouns linked to a noun phrase"] += 1
                break
        else:
            counts["pronouns without an agreeing antecedent"] += 1
    first_of_name: dict[str, int] = {}
    for index, head in enumerate(heads):
        if head.upos == "PROPN":
            name = head.lemma if head.lemma not in ("", "_") else head.form
            if name in first_of_name:
                sets.join(index, first_of_name[name])
                counts["names joined by lemma"] += 1
            else:
                first_of_name[name] = index
    add_clusters(document, sets.clusters([words for words, _ in mentions]))
    counts["mentions"] += len(mentions)


def resolve_rules(corpus: Corpus, gold_mentions: bool = False, report: Report | None = None) -> Counter:
    """Resolve every document of ``corpus`` in place with the rule baseline; with ``gold_mentions`` its own
    mentions are clustered anew, else mentions are found from the tree. Its coreference is dropped first (counted
    in ``report``). Returns counts of what the rules did."""
    report = report if report is not None else Report()
    counts: Counter = Counter()
    given = [[(m.words, tree_head(m) or m.words[0]) for m in document.mentions] for document in corpus.documents] \
        if gold_mentions else None
    without_coreference(corpus, report)
    for number, document in enumerate(corpus.documents):
        if given is None and all(node.upos in ("", "_") for node in document.nodes()):
            report.add("document without part-of-speech tags: no mentions found (parse it first: convert --parse)",
                       str(document.id))
        resolve_document(document, given[number] if given is not None else tree_mentions(document), counts)
        counts["documents"] += 1
    return counts
