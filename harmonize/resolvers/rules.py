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

Where a document has no part-of-speech tags (RuCoCo, LitBank, ParCorFull, Potsdam and ECB+ as their readers give
them) and its mentions are given, a pronoun lexicon of its language (`harmonize.resolvers.pronoun_lexicons`:
English, German, Russian, Polish; the language the document's, else guessed from its words) takes the tags' place: a
mention that is one word of the lexicon, or only empty nodes (a zero), is a pronoun with the lexicon's features, and
a noun phrase takes its first word's where that is a determiner that tells (German "eine"). Names are not joined
there: without tags a name is not told from a noun (German capitalizes both); string match covers them. The report
says which lexicon each document took (a choice: ``convert --parse`` gives tags instead).

A pronoun never joins a mention that contains it ("[his] mother").

Every mention is kept, singletons included.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harmonize.errors import Report
from harmonize.resolvers.documents import MentionSets, add_clusters, without_coreference
from harmonize.resolvers.pronoun_lexicons import LEXICONS, Features, Lexicon, guess_language
from harmonize.schemas.model import Corpus, Document, Node, tree_head

NOMINAL = ("NOUN", "PROPN")
NOT_A_PHRASE_HEAD = ("compound", "flat", "fixed", "goeswith")
NOT_REFERRING = ("Rel", "Int")  # PronType of pronouns that do not corefer by this rule
# UD features a pronoun and its antecedent must not contradict: read from FEATS, so the rules work in any language
# whose corpus (or --parse) gives UPOS and FEATS; without tags, from a pronoun lexicon of four languages.
AGREEMENT = ("Number", "Gender", "Person")
BY_LEXICON = "rule baseline: no part-of-speech tags: pronouns found by the {} lexicon"
GUESSED = ("rule baseline: no part-of-speech tags: pronouns found by the {} lexicon (the language guessed from its "
           "words)")
NO_LEXICON = "rule baseline: no part-of-speech tags and no pronoun lexicon for {}: no pronoun found"


@dataclass(frozen=True)
class RuleMention:
    """A mention as the rules see it: its words, whether it is a pronoun, its agreement features (each a set of
    values it allows) and, for a name, what names match by."""

    words: list[Node]
    pronoun: bool = False
    features: Features = field(default_factory=dict)
    name: str | None = None


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


def tagged(words: list[Node], head: Node) -> RuleMention:
    """A mention read by its head's UPOS and FEATS (a multi-valued feature, "Gender=Fem,Masc", allows each)."""
    feats = head.feats_dict()
    features = {name: frozenset(feats[name].split(",")) for name in AGREEMENT if name in feats}
    name = (head.lemma if head.lemma not in ("", "_") else head.form) if head.upos == "PROPN" else None
    return RuleMention(words, head.upos == "PRON", features, name)


def by_lexicon(words: list[Node], lexicon: Lexicon) -> RuleMention:
    """A mention read by ``lexicon``: a pronoun where it is one word of it or only empty nodes (a zero)."""
    spoken = [word for word in words if not word.is_empty]
    if not spoken:
        return RuleMention(words, pronoun=True)
    if len(spoken) == 1 and spoken[0].form.lower() in lexicon.pronouns:
        return RuleMention(words, True, lexicon.pronouns[spoken[0].form.lower()])
    return RuleMention(words, features=lexicon.determiners.get(spoken[0].form.lower(), {}))


def _agrees(pronoun: Features, candidate: Features) -> bool:
    return all(not pronoun.get(f) or not candidate.get(f) or bool(pronoun[f] & candidate[f]) for f in AGREEMENT)


def resolve_mentions(document: Document, mentions: list[RuleMention], counts: Counter) -> None:
    """Cluster ``mentions`` (in document order) by the rules above and add them to ``document`` as entities."""
    sets = MentionSets(len(mentions))
    for index, mention in enumerate(mentions):
        if not mention.pronoun:
            continue
        if not mention.features:
            counts["pronouns without Number, Gender or Person (linked without agreement)"] += 1
        inside = {id(word) for word in mention.words}
        for earlier in range(index - 1, -1, -1):
            candidate = mentions[earlier]
            if candidate.pronoun or inside <= {id(word) for word in candidate.words}:
                continue
            if _agrees(mention.features, candidate.features):
                sets.join(index, earlier)
                counts["pronouns linked to a noun phrase"] += 1
                break
        else:
            counts["pronouns without an agreeing antecedent"] += 1
    first_of_name: dict[str, int] = {}
    for index, mention in enumerate(mentions):
        if mention.name is None:
            continue
        if mention.name in first_of_name:
            sets.join(index, first_of_name[mention.name])
            counts["names joined by lemma"] += 1
        else:
            first_of_name[mention.name] = index
    add_clusters(document, sets.clusters([mention.words for mention in mentions]))
    counts["mentions"] += len(mentions)


def resolve_document(document: Document, mentions: list[tuple[list[Node], Node]], counts: Counter) -> None:
    """Cluster ``mentions`` ((words, head) pairs, heads tagged) by the rules above; add them as entities."""
    resolve_mentions(document, [tagged(words, head) for words, head in mentions], counts)


def document_lexicon(document: Document) -> tuple[Lexicon | None, str]:
    """The pronoun lexicon for an untagged ``document`` and the report's reason for it."""
    language = (document.language or "").split("-")[0].lower() or None
    if language is None:
        language = guess_language(node.form for node in document.nodes())
        if language is None:
            return None, NO_LEXICON.format("an unknown language (none guessed from its words)")
        return LEXICONS[language], GUESSED.format(LEXICONS[language].name)
    if language not in LEXICONS:
        return None, NO_LEXICON.format(f"language {language!r} (there are: {', '.join(LEXICONS)})")
    return LEXICONS[language], BY_LEXICON.format(LEXICONS[language].name)


def untagged(document: Document) -> bool:
    """Whether no word of ``document`` has a UPOS."""
    return all(node.upos in ("", "_") for node in document.nodes())


def resolve_rules(corpus: Corpus, gold_mentions: bool = False, report: Report | None = None) -> Counter:
    """Resolve every document of ``corpus`` in place with the rule baseline; with ``gold_mentions`` its own
    mentions are clustered anew (read by a pronoun lexicon where a document has no tags), else mentions are found
    from the tree. Its coreference is dropped first (counted in ``report``). Returns counts of what the rules did."""
    report = report if report is not None else Report()
    counts: Counter = Counter()
    given = [sorted(document.mentions, key=lambda mention: mention.order) for document in corpus.documents] \
        if gold_mentions else None
    without_coreference(corpus, report)
    for number, document in enumerate(corpus.documents):
        if given is None:
            if untagged(document):
                report.add("document without part-of-speech tags: no mentions found (parse it first: convert "
                           "--parse; or cluster its own mentions: --gold-mentions)", str(document.id))
            resolve_document(document, tree_mentions(document), counts)
        elif untagged(document):
            lexicon, reason = document_lexicon(document)
            report.add(reason, str(document.id))
            resolve_mentions(document, [by_lexicon(m.words, lexicon) if lexicon else RuleMention(m.words)
                                        for m in given[number]], counts)
        else:
            resolve_mentions(document, [tagged(m.words, tree_head(m) or m.words[0]) for m in given[number]], counts)
        counts["documents"] += 1
    return counts
