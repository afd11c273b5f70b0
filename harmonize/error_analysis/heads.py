"""Heads and mention types for error analysis, from the best source a document has.

A mention's head is, in this order: the head its annotation gives; the highest of its words in the UD tree
(`harmonize.schemas.model.tree_head`); the head of the constituency parse that CoNLL-2012 files carry in
their sixth column, found with the Collins/Magerman head rules as Kummerfeld & Klein's analyser applies them (the
lowest constituent with exactly the mention's span, else the word node of its last word); else its last word.
Each head says which of these it came from (`HEAD_SOURCES`).

The mention type (pronoun, name, nominal) follows the analyser: a one-word mention whose head has a pronoun tag
(Penn PRP, PRP$, WP, WP$, WDT, WRB, DT, or UD PRON/DET) or is in `PRONOUN_WORDS` is a pronoun; a head tagged
NNP/NNPS or PROPN makes a name; anything else is nominal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harmonize.schemas.model import Document, Mention, Node, Sentence, tree_head

ANNOTATED, UD_TREE, CONSTITUENCY, LAST_WORD = "annotated", "UD tree", "constituency parse", "last word"
HEAD_SOURCES = (ANNOTATED, UD_TREE, CONSTITUENCY, LAST_WORD)

PRONOUN, NAME, NOMINAL = "pronoun", "name", "nominal"
_PRONOUN_TAGS = frozenset({"PRP", "PRP$", "WP", "WP$", "WDT", "WRB", "DT"})
_NAME_TAGS = frozenset({"NNP", "NNPS"})
# The words the analyser takes for pronouns whatever their tag (English; its pronoun property table).
PRONOUN_WORDS = frozenset(["her", "hers", "herself", "she", "he", "him", "himself", "his", "our", "ours", "yours", "ourselves", "yourselves", "they", "their", "theirs", "them", "'em", "em", "themselves", "us", "we", "whoever", "whomever", "whose", "i", "me", "mine", "my", "myself", "one", "thyself", "ya", "you", "your", "yourself", "it", "its", "itself", "what", "when", "where", "which", "how", "everybody", "everyone", "anybody", "anyone", "somebody", "someone", "nobody", "all", "few", "several", "some", "many", "most", "none", "noone", "that", "this", "these", "those", "whatever", "who", "whom", "something", "nothing", "everything"])


@dataclass
class Constituent:
    """A node of a constituency tree over word positions [start, end): a phrase, or a word (``word`` set, ``label``
    its POS tag). ``head`` is the word node that heads it."""

    label: str
    start: int
    end: int = -1
    word: str | None = None
    children: list[Constituent] = field(default_factory=list)
    head: Constituent | None = None


def parse_bits_tree(bits: list[str], tags: list[str], words: list[str]) -> Constituent | None:
    """The tree that CoNLL-2012 parse bits (``(TOP(S(NP*``, ``*)``...) describe, one bit per word; None where the
    bits do not make one tree."""
    stack: list[Constituent] = []
    root: Constituent | None = None
    for position, (bit, tag, word) in enumerate(zip(bits, tags, words)):
        before, star, after = bit.partition("*")
        if not star:
            return None
        for label in before.split("(")[1:]:
            node = Constituent(label.strip(), position)
            if stack:
                stack[-1].children.append(node)
            elif root is None:
                root = node
            else:
                return None  # a second tree in one sentence
            stack.append(node)
        if not stack:
            return None
        stack[-1].children.append(Constituent(tag, position, position + 1, word))
        for _ in range(after.count(")")):
            if not stack:
                return None
            stack.pop().end = position + 1
    if stack or root is None:
        return None
    _find_heads(root)
    return root


# Head rules per phrase label: the direction children are searched in and the labels (or head tags) wanted, in order
# of preference; the analyser's table (Collins' with its additions). NP and NML have rules of their own.
_RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "ADJP": ("right", ("NNS", "QP", "NN", "$", "ADVP", "JJ", "VBN", "VBG", "ADJP", "JJR", "NP", "JJS", "DT", "FW",
                       "RBR", "RBS", "SBAR", "RB")),
    "ADVP": ("left", ("RB", "RBR", "RBS", "FW", "ADVP", "TO", "CD", "JJR", "JJ", "IN", "NP", "JJS", "NN")),
    "CONJP": ("left", ("CC", "RB", "IN")),
    "FRAG": ("left", ()),
    "INTJ": ("right", ()),
    "LST": ("left", ("LS", ":")),
    "NAC": ("right", ("NN", "NNS", "NNP", "NNPS", "NP", "NAC", "EX", "$", "CD", "QP", "PRP", "VBG", "JJ", "JJS",
                      "JJR", "ADJP", "FW")),
    "PP": ("left", ("IN", "TO", "VBG", "VBN", "RP", "FW")),
    "PRN": ("right", ()),
    "PRT": ("left", ("RP",)),
    "QP": ("right", ("$", "IN", "NNS", "NN", "JJ", "RB", "DT", "CD", "NCD", "QP", "JJR", "JJS")),
    "RRC": ("left", ("VP", "NP", "ADVP", "ADJP", "PP")),
    "S": ("right", ("TO", "IN", "VP", "S", "SBAR", "ADJP", "UCP", "NP")),
    "SBAR": ("right", ("WHNP", "WHPP", "WHADVP", "WHADJP", "IN", "DT", "S", "SQ", "SINV", "SBAR", "FRAG")),
    "SBARQ": ("right", ("SQ", "S", "SINV", "SBARQ", "FRAG")),
    "SINV": ("right", ("VBZ", "VBD", "VBP", "VB", "MD", "VP", "S", "SINV", "ADJP", "NP")),
    "SQ": ("right", ("VBZ", "VBD", "VBP", "VB", "MD", "VP", "SQ")),
    "UCP": ("left", ()),
    "VP": ("right", ("TO", "VBD", "VBN", "MD", "VBZ", "VB", "VBG", "VBP", "VP", "ADJP", "NN", "NNS", "NP")),
    "WHADJP": ("right", ("CC", "WRB", "JJ", "ADJP")),
    "WHADVP": ("left", ("CC", "WRB")),
    "WHNP": ("right", ("WDT", "WP", "WP$", "WHADJP", "WHPP", "WHNP")),
    "WHPP": ("left", ("IN", "TO", "FW")),
    "NX": ("right", ("NN", "NNS", "NNP", "NNPS", "NP", "NAC", "EX", "$", "CD", "QP", "PRP", "VBG", "JJ", "JJS",
                     "JJR", "ADJP", "FW")),
    "X": ("right", ("NN", "NNS", "NNP", "NNPS", "NP", "NAC", "EX", "$", "CD", "QP", "PRP", "VBG", "JJ", "JJS",
                    "JJR", "ADJP", "FW")),
    "META": ("right", ()),
}
# The noun phrase rules, tried in order: search from the right (True) or the left for a child with one of these.
_NP_RULES: tuple[tuple[bool, frozenset[str]], ...] = (
    (True, frozenset({"NN", "NNP", "NNPS", "NNS", "NX", "POS", "JJR"})),
    (False, frozenset({"NP", "NML"})),
    (True, frozenset({"$", "ADJP", "PRN"})),
    (True, frozenset({"CD"})),
    (True, frozenset({"JJ", "JJS", "RB", "QP"})),
)


def _matches(child: Constituent, wanted: frozenset[str] | tuple[str, ...]) -> bool:
    assert child.head is not None
    return child.label in wanted or child.head.label in wanted


def _find_heads(node: Constituent) -> None:
    for child in node.children:
        _find_heads(child)
    if node.word is not None:
        node.head = node
        return
    children = node.children
    if node.label in ("NP", "NML"):
        last = children[-1].head
        assert last is not None
        if last.label == "POS":
            node.head = last
            return
        for from_right, wanted in _NP_RULES:
            for child in (reversed(children) if from_right else children):
                if _matches(child, wanted):
                    node.head = child.head
                    return
        node.head = last
        return
    rule = _RULES.get(node.label)
    if rule is None:
        node.head = children[-1].head
        return
    direction, wanted = rule
    ordered = list(reversed(children)) if direction == "right" else children
    for label in wanted:
        for child in ordered:
            if _matches(child, (label,)):
                node.head = child.head
                return
    node.head = (children[0] if direction == "left" else children[-1]).head


def _lowest_by_span(root: Constituent) -> dict[tuple[int, int], Constituent]:
    """(start, end) -> the lowest constituent with exactly that span."""
    found: dict[tuple[int, int], Constituent] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        # Pre-order: a descendant with the same span is met later and replaces its ancestor.
        found[(node.start, node.end)] = node
        stack.extend(reversed(node.children))
    return found


def _parse_bits(sentence: Sentence) -> tuple[list[str], list[str]] | None:
    """The parse bits and POS tags of a sentence read from OntoNotes-layout CoNLL-2012 (None: it has none)."""
    bits, tags = [], []
    for node in sentence.nodes:
        if node.conll2012 is None:
            return None
        columns = node.conll2012[0].split()
        if len(columns) < 6 or "*" not in columns[5]:
            return None
        bits.append(columns[5])
        tags.append(columns[4])
    return bits, tags


@dataclass(frozen=True)
class Head:
    """A mention's head word: its position in the sentence, form, tags and where it came from."""

    position: int
    form: str
    tag: str  # XPOS (Penn for OntoNotes) where there is one, else UPOS, else ""
    upos: str
    source: str


class SentenceHeads:
    """Head finding for the mentions of one sentence (of the key document: both sides share its words)."""

    def __init__(self, sentence: Sentence) -> None:
        self.sentence = sentence
        self.nodes = sentence.nodes
        bits = _parse_bits(sentence)
        tree = parse_bits_tree(bits[0], bits[1], [n.form for n in self.nodes]) if bits is not None else None
        self.constituents = _lowest_by_span(tree) if tree is not None else None
        first = next((n for n in self.nodes if not n.is_empty), None)
        self.has_tree = first is not None and first.head not in ("_", "")

    def head(self, positions: tuple[int, ...], annotated: Node | None) -> Head:
        nodes = self.nodes
        if annotated is not None:
            return self._head(annotated.position, ANNOTATED)
        if self.has_tree:
            found = tree_head(Mention([nodes[p] for p in positions]))
            if found is not None:
                return self._head(found.position, UD_TREE)
        if self.constituents is not None:
            start, end = positions[0], positions[-1] + 1
            node = self.constituents.get((start, end)) or self.constituents[(end - 1, end)]
            assert node.head is not None
            return self._head(node.head.start, CONSTITUENCY)
        return self._head(positions[-1], LAST_WORD)

    def _head(self, position: int, source: str) -> Head:
        node = self.nodes[position]
        xpos, upos = node.xpos, node.upos
        tag = xpos if xpos not in ("_", "", "-") else upos if upos not in ("_", "") else ""
        return Head(position, node.form, tag, upos if upos not in ("_", "") else "", source)


def mention_type(length: int, head: Head) -> str:
    """pronoun, name or nominal, as the analyser decides it (see the module)."""
    if length == 1 and (head.tag in _PRONOUN_TAGS or head.upos in ("PRON", "DET")
                        or head.form.lower() in PRONOUN_WORDS):
        return PRONOUN
    if head.tag in _NAME_TAGS or head.upos == "PROPN":
        return NAME
    return NOMINAL


def document_heads(document: Document) -> list[SentenceHeads]:
    return [SentenceHeads(sentence) for sentence in document.sentences]
