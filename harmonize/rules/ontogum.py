"""The OntoGUM rules: GUM's coreference brought to the OntoNotes scheme (Zhu et al. 2021, Table 2), step by step.

Each step is a function ``step(document, report)`` that edits one document through the model's edit methods and
counts what it changed in ``report`` (reason "ontogum N name: what", with document, sentence and text as
examples); an optional third argument shares the document's indexed trees between steps. `STEPS` lists
them in the paper's order; `apply_ontogum` runs them all.

1. ``remove_bridging_and_cataphora``: bridging and split antecedents go; a pronoun that points forward
   (the mention before a ``cata`` link) leaves its chain.
2. ``contract_verbal_spans``: a mention whose head has a "be" among its words (copula or auxiliary) becomes that
   "be" ("Huh ? [is] universal", "prices have [been] rising", as the official build has it); else a mention headed
   by a verb becomes that verb. First, as OntoNotes noun phrases include their clausal modifiers and GUM's do not,
   a mention grows over its head's ``acl`` dependents where they add three words or more ("[the puppets] used"
   stays, as in the official build).
3. ``merge_appositions``: an apposition (``appos`` link, same sentence) and its anchor become one mention from the
   anchor's first word to the end of the apposition (with a closing bracket or quote right after it).
4. ``remove_compounds``: a mention whose head is a ``compound`` dependent and not a proper noun leaves its chain,
   and the chain is cut there (its links ran through the modifier).
5. ``remove_copula``: a predicate (see `is_predicate`: "X is [a Y]") leaves its chain; so does a mention
   that GUM (V8 on) links as ``pred`` ("X became [a Y]").
6. ``remove_nested``: a mention inside a longer mention of its own chain leaves the chain (i-within-i).
7. ``split_at_indefinites``: a mention that is not definite (see `is_definite`) starts a new chain with the
   mentions after it, except, as in the official build, right after a merged apposition, or where "he", "she" or
   a one-word name follows it in the chain within two sentences.
8. ``remove_singletons``: entities with one mention go (last, as the paper says, to catch the ones steps 1-7 made).

Heads come from the UD tree (`harmonize.schemas.model.ud_head`) where the annotation gives none. Every
decision reads tags, features and relations, not words, so that GUM's masked Reddit documents convert as their
text would; a lemma or form is read only where the tags make no difference (`is_be`,
`is_definite_determiner`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from harmonize.errors import Report
from harmonize.rules.relations import Relations, report_relation_changes
from harmonize.schemas.model import Corpus, Document, Mention, Node, ud_head

_CLOSING = frozenset({")", "]", "}", "）", '"', "'", "’", "”", "»"})
# Penn tags of closing brackets and quotes: the form may be masked, the tag is not.
_CLOSING_XPOS = frozenset({"-RRB-", "''"})


def _where(mention: Mention) -> str:
    document = mention.sentence.document
    return f"{document.id if document is not None else '?'} {mention.sentence.id}: {mention.text!r}"


class _Tree:
    """A document's basic dependency trees, indexed once per step (the rules change mentions, never the trees),
    the heads of the mentions that have none in the annotation, and the mentions step 3 made of appositions."""

    def __init__(self, document: Document) -> None:
        self._children: dict[int, list[Node]] = {}
        self._parents: dict[int, Node] = {}
        for sentence in document.sentences:
            by_id = {node.id: node for node in sentence.nodes}
            for node in sentence.nodes:
                parent = by_id.get(node.head)
                if parent is not None and not node.is_empty:
                    self._children.setdefault(id(parent), []).append(node)
                    self._parents[id(node)] = parent
        self._heads: dict[int, Node | None] = {}
        self.appositions: set[int] = set()  # id() of merged mentions

    def children(self, node: Node) -> list[Node]:
        return self._children.get(id(node), [])

    def parent(self, node: Node) -> Node | None:
        return self._parents.get(id(node))

    def head(self, mention: Mention) -> Node | None:
        """The annotated head, else the tree's (cached: a step that changes a mention's words sets its head)."""
        if mention.head is not None:
            return mention.head
        if id(mention) not in self._heads:
            self._heads[id(mention)] = ud_head(mention)
        return self._heads[id(mention)]

    def subtree_end(self, node: Node) -> int:
        """The last position in the sentence of ``node``'s basic subtree."""
        last, stack = node.position, [node]
        while stack:
            for child in self.children(stack.pop()):
                last = max(last, child.position)
                stack.append(child)
        return last


def _leave_chain(document: Document, mention: Mention, report: Report, reason: str) -> None:
    """Make the mention a singleton of its own (step 8 removes it if nothing joins it again); count it where that
    changed something."""
    entity = mention.entity
    if entity is not None and len(entity.mentions) > 1:
        document.split_entity(entity, [mention])
        report.add(reason, _where(mention))


def remove_bridging_and_cataphora(document: Document, report: Report, tree: _Tree | None = None) -> None:
    tree = tree if tree is not None else _Tree(document)
    for bridge in list(document.bridges):
        report.add("ontogum 1 remove bridging: bridge removed", _where(bridge.anaphor))
    document.bridges.clear()
    for split in list(document.split_antecedents):
        report.add("ontogum 1 remove bridging: split antecedent removed", str(document.id))
    document.split_antecedents.clear()
    for entity in list(document.entities):
        mentions = entity.mentions
        # The pronoun of a cataphora is the mention before the one its link reaches (as a chain's first mention
        # it also carries the link type itself).
        cataphors = [m for index, m in enumerate(mentions)
                     if (m.link == "cata" and index == 0)
                     or (index + 1 < len(mentions) and mentions[index + 1].link == "cata")]
        for pronoun in cataphors:
            head = tree.head(pronoun)
            if head is not None and head.upos == "PRON":
                _leave_chain(document, pronoun, report, "ontogum 1 remove cataphora: cataphoric pronoun unlinked")


def expand_clausal_modifiers(document: Document, report: Report, tree: _Tree | None = None) -> None:
    """OntoNotes noun phrases include their clausal modifiers (relative clauses, participles: ``acl``), which GUM
    leaves outside the markable: a mention grows to the end of its head's ``acl`` dependents where they add three
    words or more ("[the puppets] used" stays, as in the official build)."""
    tree = tree if tree is not None else _Tree(document)
    for mention in document.mentions:
        head = tree.head(mention)
        if head is None or mention.is_discontinuous:
            continue
        end = max((tree.subtree_end(child) for child in tree.children(head) if child.deprel.startswith("acl")),
                  default=-1)
        if end - mention.words[-1].position >= 3:
            nodes = mention.sentence.nodes
            report.add("ontogum 2 span boundaries: noun phrase grown to its clausal modifier", _where(mention))
            document.set_words(mention, [n for n in nodes[mention.words[0].position : end + 1] if not n.is_empty],
                               head=head)


def known_lemma(node: Node) -> str | None:
    """The word's lemma, lowercased; None where the text is masked (GUM's Reddit documents: lemma "_", or
    "*LOWER*" over a form of underscores)."""
    lemma = node.form if node.lemma == "*LOWER*" else node.lemma
    return lemma.lower() if lemma.strip("_") else None


def is_be(child: Node, head: Node, tree: _Tree) -> bool:
    """Whether ``child``, a dependent of ``head``, is a form of "be". The tree and the tags decide where they can
    (GUM masks the forms and lemmas of some documents): English UD's only copula; a passive auxiliary (GUM also
    tags the rarer passive "get" so); "been", the only auxiliary participle; the auxiliary closest to a gerund
    head (progressive "is / has been / will be running"). Other verbs and auxiliaries ("there [are] ...",
    "it ['s] gone") carry no tag or feature that sets "be" apart: their lemma decides, and a masked one is not
    "be"."""
    if child.deprel == "cop":
        return True
    if child.upos not in ("AUX", "VERB"):
        return False
    if child.upos == "AUX" and (child.deprel == "aux:pass" or (child.deprel == "aux" and child.xpos == "VBN")):
        return True
    if child.upos == "AUX" and child.deprel == "aux" and head.xpos == "VBG":
        before = [c for c in tree.children(head) if c.deprel == "aux" and c.position < head.position]
        if before and before[-1] is child:
            return True
    return known_lemma(child) == "be"


def contract_verbal_spans(document: Document, report: Report, tree: _Tree | None = None) -> None:
    tree = tree if tree is not None else _Tree(document)
    expand_clausal_modifiers(document, report, tree)
    for mention in document.mentions:
        head = tree.head(mention)
        if head is None or len(mention.words) == 1:
            continue
        inside = {id(w) for w in mention.words}
        be = [c for c in tree.children(head) if id(c) in inside and is_be(c, head, tree)]
        if be:
            what = "copular clause contracted to its copula" if be[-1].deprel == "cop" else \
                "verb phrase contracted to its auxiliary 'be'"
            report.add(f"ontogum 2 contract verbal spans: {what}", _where(mention))
            document.set_words(mention, [be[-1]], head=be[-1])
        elif head.upos == "VERB" or head.xpos.startswith("V"):
            report.add("ontogum 2 contract verbal spans: span contracted to its verb", _where(mention))
            document.set_words(mention, [head], head=head)


def merge_appositions(document: Document, report: Report, tree: _Tree | None = None) -> None:
    tree = tree if tree is not None else _Tree(document)
    for entity in list(document.entities):
        index = 1
        while index < len(entity.mentions):
            anchor, apposition = entity.mentions[index - 1], entity.mentions[index]
            if apposition.link == "appos" and apposition.sentence is anchor.sentence:
                nodes = anchor.sentence.nodes
                # The construction takes a closing bracket or quote right after the apposition ("( SUT )").
                last = max(anchor.words[-1].position, apposition.words[-1].position)
                if (apposition.words[-1].position >= anchor.words[-1].position and last + 1 < len(nodes)
                        and (nodes[last + 1].xpos in _CLOSING_XPOS or nodes[last + 1].form in _CLOSING)):
                    last += 1
                first = anchor.words[0].position
                report.add("ontogum 3 merge appositions: apposition merged into its anchor", _where(apposition))
                document.remove_mention(apposition)
                document.set_words(anchor, nodes[first : last + 1], head=tree.head(anchor))
                tree.appositions.add(id(anchor))
                continue
            index += 1


def remove_compounds(document: Document, report: Report, tree: _Tree | None = None) -> None:
    """The compound modifier is taken out of the chain's sequence of links: the mentions after it no longer reach
    the ones before it (the chain is cut there), as the official conversion does."""
    tree = tree if tree is not None else _Tree(document)
    for mention in document.mentions:
        head = tree.head(mention)
        entity = mention.entity
        if (head is not None and head.deprel == "compound" and head.upos != "PROPN"
                and head.xpos not in ("NNP", "NNPS") and entity is not None and len(entity.mentions) > 1):
            at = entity.mentions.index(mention)
            after = entity.mentions[at + 1 :]
            if after and at > 0:
                document.split_entity(entity, after)
                report.add("ontogum 4 remove noun-noun compounds: chain cut at a compound modifier", _where(mention))
            _leave_chain(document, mention, report,
                         "ontogum 4 remove noun-noun compounds: compound modifier unlinked")


def is_predicate(mention: Mention, head: Node, tree: _Tree) -> bool:
    """The paper's copula test as the official build applies it: the head has a copula outside the mention ("X is
    [a complex one]"), unless the mention is a prepositional phrase ("we are from [Earth]": a preposition before
    it or a ``case`` dependent), or the mention is conjoined to such a predicate ("[he] was [one of the first
    opponents] , and is [a self-described socialist]")."""
    inside = {id(w) for w in mention.words}
    children = tree.children(head)
    if any(child.deprel == "cop" and id(child) not in inside for child in children):
        first = mention.words[0].position
        after_preposition = first > 0 and mention.sentence.nodes[first - 1].upos == "ADP"
        return not after_preposition and not any(child.deprel == "case" for child in children)
    parent = tree.parent(head)
    return head.deprel == "conj" and parent is not None and any(
        child.deprel == "cop" for child in tree.children(parent))


def remove_copula(document: Document, report: Report, tree: _Tree | None = None) -> None:
    tree = tree if tree is not None else _Tree(document)
    for entity in list(document.entities):
        for mention in entity.mentions[1:]:  # a chain's first mention has nothing to be predicated of
            head = tree.head(mention)
            if mention.entity is not entity:
                continue
            if head is not None and is_predicate(mention, head, tree):
                _leave_chain(document, mention, report, "ontogum 5 remove copula: predicate unlinked")
            elif mention.link == "pred":
                _leave_chain(document, mention, report, "ontogum 5 remove copula: predicate (pred link) unlinked")


def remove_nested(document: Document, report: Report, tree: _Tree | None = None) -> None:
    for entity in list(document.entities):
        for inner in list(entity.mentions):
            span = {id(w) for w in inner.words}
            if any(outer is not inner and outer.sentence is inner.sentence and len(outer.words) > len(inner.words)
                   and span <= {id(w) for w in outer.words} for outer in entity.mentions):
                _leave_chain(document, inner, report,
                             "ontogum 6 remove nested entities: mention inside its own chain's mention unlinked")


DEFINITE_DETERMINERS = frozenset({"the", "this", "that", "these", "those", "all", "every", "any", "no"})


def is_definite_determiner(node: Node) -> bool:
    """The definite and quantifying determiners of the official build (`DEFINITE_DETERMINERS`, and "such"),
    told from FEATS where they set them apart: ``Definite``, ``PronType=Dem|Neg|Tot`` (definite),
    ``PronType=Int|Rel|Art`` (not), ``Polarity=Neg`` (GUM 7's "no"). "all", "every" and "any" share
    ``PronType=Ind`` (GUM 7: no features) with "some", "each", "another", "both", and "such" is often tagged
    as an adjective: there the lemma decides, and a masked one is not definite."""
    if node.upos != "DET":
        return known_lemma(node) == "such" and node.deprel == "amod"
    feats = node.feats_dict()
    if "Definite" in feats:
        return feats["Definite"] == "Def"
    pron_type = feats.get("PronType")
    if pron_type in ("Dem", "Neg", "Tot") or feats.get("Polarity") == "Neg":
        return True
    if pron_type in ("Int", "Rel", "Art"):
        return False
    lemma = known_lemma(node)
    if lemma == "such":
        return node.deprel in ("amod", "det:predet")
    return node.deprel == "det" and lemma in DEFINITE_DETERMINERS


def is_definite(mention: Mention, tree: _Tree | None = None) -> bool:
    """The paper's test as the official build applies it: a mention is definite if it is a pronoun (UD also tags
    pronominal "this", "both", "each other" DET), a proper noun or foreign word, is possessed by a pronoun ("her
    parents"; a name or noun possessor, "Ann's dog", "the world's languages", does not count), is itself a
    possessor ("the fluid 's"), or its head has a definite or quantifying determiner
    (`is_definite_determiner`). Anything else (bare and indefinite nouns, adverbs, verbs) is not. Tags,
    features and relations decide, so that masked text gives the same answers.
    """
    tree = tree if tree is not None else _Tree(mention.sentence.document)  # type: ignore[arg-type]
    head = tree.head(mention)
    if head is None:
        return True  # no tree to judge by: leave the chain alone
    if head.upos in ("PRON", "PROPN", "DET") or head.xpos in ("NNP", "NNPS", "FW"):
        return True
    return any(
        (child.deprel == "nmod:poss" and child.upos == "PRON")
        or child.xpos == "POS"  # the phrase is a possessor itself
        or (child.deprel in ("det", "det:predet", "amod") and is_definite_determiner(child))
        for child in tree.children(head))


def is_he_or_she(node: Node) -> bool:
    """The personal pronoun "he" or "she" ("him", "her" as object), from FEATS: third person singular masculine
    or feminine with a case, neither possessive nor reflexive; from the lemma where the word has no features."""
    feats = node.feats_dict()
    if not feats:
        return known_lemma(node) in ("he", "she")
    return (node.upos == "PRON" and feats.get("PronType") == "Prs" and feats.get("Person") == "3"
            and feats.get("Number") == "Sing" and feats.get("Gender") in ("Masc", "Fem") and "Case" in feats
            and "Poss" not in feats and "Reflex" not in feats)


def _confirmed(mentions: list[Mention], index: int, tree: _Tree) -> bool:
    """An indefinite followed within two sentences by "he"/"she" or a one-word name stays in its chain."""
    if index + 1 >= len(mentions):
        return False
    following = mentions[index + 1]
    head = tree.head(following)
    if head is None or following.sentence.index > mentions[index].sentence.index + 2:
        return False
    return is_he_or_she(head) or (len(following.words) == 1 and head.xpos == "NNP")


def split_at_indefinites(document: Document, report: Report, tree: _Tree | None = None) -> None:
    tree = tree if tree is not None else _Tree(document)
    pending = list(document.entities)
    while pending:
        entity = pending.pop()
        mentions = entity.mentions
        for index, mention in enumerate(mentions[1:], 1):
            if (not is_definite(mention, tree) and id(mentions[index - 1]) not in tree.appositions
                    and not _confirmed(mentions, index, tree)):
                report.add("ontogum 7 adjust chains by definiteness: chain split at an indefinite", _where(mention))
                pending.append(document.split_entity(entity, entity.mentions[index:]))
                break


def remove_singletons(document: Document, report: Report, tree: _Tree | None = None) -> None:
    relations = Relations.of(document)
    for entity in [e for e in document.entities if len(e.mentions) == 1]:
        report.add("ontogum 8 remove singletons: singleton removed", _where(entity.mentions[0]))
        document.remove_entity(entity)
    report_relation_changes(document, relations, report, "ontogum 8 remove singletons")


def _relations_follow_splits(step: Callable[[Document, Report, _Tree | None], None], label: str
                             ) -> Callable[[Document, Report, _Tree | None], None]:
    """``step``, also counting what its chain splits do to relations: a bridge to a split chain, or a split
    antecedent with one among its entities, now has one of the chain's parts at that end (the chain it named is
    gone: dropped and added, as `harmonize.accounting` sees it), once per relation however often its chain split."""

    @wraps(step)
    def counted(document: Document, report: Report, tree: _Tree | None = None) -> None:
        before = {id(e): (e, [id(m) for m in e.mentions]) for e in document.entities}
        step(document, report, tree)
        now = {id(m): id(m.entity) for m in document.mentions}
        split = {key for key, (_e, mentions) in before.items()
                 if len({now[m] for m in mentions if m in now}) > 1}
        if not split:
            return
        bridges = sum(1 for b in document.bridges if id(b.antecedent) in split)
        if bridges:
            report.add(f"{label}: bridges to a split chain now to one of its parts", str(document.id), bridges)
        splits = sum(1 for s in document.split_antecedents
                     if id(s.entity) in split or any(id(a) in split for a in s.antecedents))
        if splits:
            report.add(f"{label}: split antecedents with a split chain now with one of its parts", str(document.id),
                       splits)

    return counted


STEPS: tuple[Callable[[Document, Report, _Tree | None], None], ...] = (
    _relations_follow_splits(remove_bridging_and_cataphora, "ontogum 1 remove cataphora"), contract_verbal_spans,
    merge_appositions, _relations_follow_splits(remove_compounds, "ontogum 4 remove noun-noun compounds"),
    _relations_follow_splits(remove_copula, "ontogum 5 remove copula"),
    _relations_follow_splits(remove_nested, "ontogum 6 remove nested entities"),
    _relations_follow_splits(split_at_indefinites, "ontogum 7 adjust chains by definiteness"), remove_singletons,
)


def apply_ontogum(corpus: Corpus, report: Report) -> None:
    """Run every step, in order, on every document."""
    for document in corpus.documents:
        tree = _Tree(document)  # the trees do not change, and heads are only recomputed where words change
        for step in STEPS:
            step(document, report, tree)
