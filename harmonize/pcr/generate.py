"""Binary-choice pronoun questions from any coreference corpus (PCR4ALL section 3.2, for every format harmonize
reads).

For each third-person pronoun mention (personal, possessive, demonstrative: from UPOS/FEATS, else the Penn tag,
else `PRONOUNS`) whose entity has a nominal mention (headed by a noun or proper noun, see
`not_an_option`) in the segment, the segment (the
pronoun's sentence and ``window - 1`` sentences before it) becomes a question: the pronoun replaced by ``_``, the
nearest nominal mention of its entity before it as the right option, a nominal mention of another entity in the
segment (before the pronoun first, nearest first, with a different text) as the wrong one, option order by a
coin seeded per question. With ``balance`` (the default), where the window has distractors both before and after
the right option in the text, the nearest on the side the document's questions so far have fewer of is taken:
otherwise the right option, the nearest antecedent, comes first in the text in most questions, which a solver
guessing by position exploits. Every pronoun without a question is counted with its reason.

Options need no tree: where a mention has no head (a CoNLL-2012 or LitBank file has no dependencies, and only
one-word mentions have an obvious head), the head is read from the tags, English-style (`head_by_tags`: the last
noun before what starts a post-modifier), and counted. With ``cataphora``, a pronoun whose entity is named only
after it in its own sentence gets that mention as the right option (PCR4ALL's CoNLL-2012 example: "With _ unique
charm, these cartoon images once again caused Hong Kong ..."); otherwise such a pronoun is counted and skipped.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from harmonize.converters.surface import gap_after, surface_tokens
from harmonize.errors import Report
from harmonize.pcr.perspectives import Agreement, from_feats, from_text, name_gender, set_perspectives
from harmonize.pcr.questions import Question
from harmonize.resolvers.pronoun_lexicons import ENGLISH
from harmonize.schemas.model import Corpus, Document, Mention, Node, Sentence, ud_head

# Third-person pronouns by language, for corpora without UPOS and Penn tags (the rule baseline's lexicon).
PRONOUNS = {
    "en": frozenset(form for form, features in ENGLISH.pronouns.items() if features.get("Person") == {"3"}),
}
# Words that head no option where a corpus has neither UPOS nor a POS column: pronouns of every kind, expletives.
NOT_NOMINAL_WORDS = {
    "en": PRONOUNS["en"] | frozenset([
        "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your", "yours", "yourself",
        "yourselves", "there", "here", "who", "whom", "whose", "which", "what", "one", "ones", "oneself",
        "something", "anything", "nothing", "everything", "someone", "anyone", "everyone", "somebody", "anybody",
        "nobody", "everybody", "none", "each", "all", "both", "either", "neither", "another", "other", "others"]),
}
_FIRST_SECOND = frozenset({"1", "2"})
# Penn Treebank (NN, NNS, NNP, NNPS) and STTS (NN, NE) noun tags.
_NOUN_TAGS = ("NN", "NE")
# What starts a post-modifier after a noun phrase's head ("the summer | of 2005", "a picture | that people ...",
# "the man | , who"): Penn and STTS tags of prepositions, wh-words and finite verbs, UPOS, clause punctuation
# (not a hyphen: "well - known"), and for a corpus without tags the words themselves.
_MODIFIER_TAGS = ("IN", "TO", "W", "VBD", "VBZ", "VBP", "MD", "APPR", "KOUS", "PREL", "VVFIN", "VAFIN")
_MODIFIER_UPOS = frozenset({"ADP", "SCONJ"})
_MODIFIER_PUNCTUATION = frozenset([",", ";", ":", "(", "--", "—"])
_MODIFIER_WORDS = {"en": frozenset(["of", "who", "whom", "whose", "which", "that", "with", "from", "in", "on", "at",
                                    "for", "to", "by", "about", "as", "like", "than", "is", "was", "are", "were"])}

NO_NOMINAL = "pronoun without a question: no nominal mention of its entity in the window"
CATAPHORA = "pronoun without a question: cataphora (its entity's nominal mentions in the window all follow it)"
NO_DISTRACTOR = "pronoun without a question: no nominal mention of another entity (with another text) in the window"
NOT_THIRD_PERSON = "pronoun mention left out: first or second person"
NOT_AN_OPTION = "mention never an option: {}"
# What the generator chose, counted per question so that a set's biases are said (a solver that always picks the
# option met first in the text exploits the first).
CHOSE_RIGHT_FIRST = "question chosen: the right option comes first in the text"
CHOSE_WRONG_AFTER = "question chosen: the wrong option follows the pronoun (none of another entity before it)"
CHOSE_WRONG_CONTAINS = "question chosen: the wrong option's words contain the right one's (no other distractor)"
CHOSE_PREDICATE = "question chosen: the right option is a predicate nominal (no other mention of its entity before)"
CHOSE_OWN_BLANK = ("question chosen: its text holds '_' of its own besides the blank (Gutenberg's italics in "
                   "LitBank): `offsets` says which is the blank; a tool that fills the first '_' misreads it")
CHOSE_CATAPHORA = "question chosen: the right option follows the pronoun in its sentence (cataphora)"
HEAD_FROM_TAGS = "option head read from the tags (no tree, no head annotated)"
MASKED = "document without questions: its text is masked or empty (GUM's Reddit documents ship as '____ __')"


# PCR4ALL's data_source names of the corpora it used, told from a document's id where the user gives none: a GUM
# document read as plain CorefUD (GUM_*, GENTLE_* ids), an OntoNotes document (genre/source/... ids).
_CORPUS_IDS = (("GUM", ("GUM_", "GENTLE_")), ("CoNLL", ("bc/", "bn/", "mz/", "nw/", "pt/", "tc/", "wb/")))


def corpus_source(document: Document) -> str | None:
    """The data_source a document's id says it comes from (GUM, CoNLL), None where it says nothing."""
    identifier = str(document.id or "")
    return next((name for name, prefixes in _CORPUS_IDS if identifier.startswith(prefixes)), None)


@dataclass(frozen=True)
class Settings:
    source: str | None  # the data_source given; None: told per document (corpus_source), else fallback_source
    seed: int = 0
    window: int = 2  # sentences: the pronoun's and the one before
    masked: bool = False  # also ask from documents whose text is masked (their options chosen by tags)
    balance: bool = True  # the distractor before or after the right option as the document needs (see _question)
    cataphora: bool = False  # a pronoun named only after it in its sentence asks about that mention
    fallback_source: str = "corpus"  # the data_source where neither the user nor the document says one


def _head(mention: Mention) -> Node | None:
    return (mention.head or (mention.words[0] if len(mention.words) == 1 else ud_head(mention))
            or head_by_tags(mention))


def head_by_tags(mention: Mention) -> Node | None:
    """The head of a mention without a tree, read from its tags: the last noun before the first word (after its
    start) that begins a post-modifier ("these well - known cartoon images" -> images, "the summer of 2005" ->
    summer); where there is no noun there, the last word there, so that the caller says why it is no option.
    Without tags, the last word before a word of ``_MODIFIER_WORDS``. None for a discontinuous mention."""
    if mention.is_discontinuous:
        return None
    words = [w for w in mention.words if not w.is_empty]
    if not words:
        return None
    language = (mention.sentence.document.language if mention.sentence.document else None) or "en"
    modifier_words = _MODIFIER_WORDS.get(language[:2], _MODIFIER_WORDS["en"])
    end = len(words)
    for index, word in enumerate(words[1:], 1):
        if word.form in _MODIFIER_PUNCTUATION:
            starts = True
        elif word.upos not in ("_", ""):
            starts = word.upos in _MODIFIER_UPOS
        elif word.xpos not in ("_", ""):
            starts = word.xpos.startswith(_MODIFIER_TAGS)
        else:
            starts = word.form.lower() in modifier_words
        if starts:
            end = index
            break
    nouns = [w for w in words[:end] if w.upos in ("NOUN", "PROPN") or w.upos in ("_", "") and w.xpos.startswith(
        _NOUN_TAGS)]
    return nouns[-1] if nouns else words[end - 1]


def is_pronoun(node: Node, language: str | None) -> bool:
    """A personal, possessive or demonstrative pronoun (any person)."""
    if node.upos not in ("_", ""):
        pron_type = node.feats_dict().get("PronType")
        return node.upos in ("PRON", "DET") and pron_type in ("Prs", "Dem") if pron_type else node.upos == "PRON"
    if node.xpos not in ("_", ""):
        return node.xpos in ("PRP", "PRP$", "WP$") or (node.xpos == "DT" and node.form.lower() in PRONOUNS["en"])
    return node.form.lower() in PRONOUNS.get((language or "en")[:2], PRONOUNS["en"])


def _pronoun_mention(mention: Mention, language: str | None) -> Node | None:
    head = _head(mention)
    return head if len(mention.words) == 1 and head is not None and is_pronoun(head, language) else None


def not_an_option(mention: Mention, language: str | None) -> str | None:
    """Why the mention cannot be an option (None: it can): an option is a contiguous mention headed by a noun or
    proper noun by UPOS, else by the POS column, else (no tags at all) by not being in the pronoun lexicon."""
    head = _head(mention)
    if head is None:
        return "head unknown"
    if mention.is_discontinuous:
        return "discontinuous"
    if head.deprel.split(":")[0] == "expl":
        return "expletive"
    if head.upos not in ("_", ""):
        return None if head.upos in ("NOUN", "PROPN") else f"headed by {head.upos}"
    if head.xpos not in ("_", ""):
        return None if head.xpos.startswith(_NOUN_TAGS) else f"headed by {head.xpos}"
    words = NOT_NOMINAL_WORDS.get((language or "en")[:2], NOT_NOMINAL_WORDS["en"])
    return "headed by a pronoun (lexicon)" if head.form.lower() in words else None


def _segment_text(sentences: list[Sentence]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The segment's text as the corpus has it (its tokens, multiword tokens included, and the spacing their MISC
    records: "the chicken's beak", "didn't", not "chicken 's", "did n't"; any white space shown as one space,
    sentences joined by a space) and each word's [start, end) in it. The words of a multiword token that glue into
    it ("did" + "n't") get their own characters; where they do not (Spanish "del" = "de" + "el") they share the
    token's."""
    parts: list[str] = []
    spans: dict[int, tuple[int, int]] = {}
    at = 0
    for sentence in sentences:
        if parts and not parts[-1].endswith(" "):
            parts.append(" ")
            at += 1
        tokens = surface_tokens(sentence)
        for index, (form, spacing, words) in enumerate(tokens):
            if "".join(word.form for word in words) == form:
                start = at
                for word in words:
                    spans[id(word)] = (start, start + len(word.form))
                    start += len(word.form)
            else:
                for word in words:
                    spans[id(word)] = (at, at + len(form))
            parts.append(form)
            at += len(form)
            if index + 1 < len(tokens) and gap_after(spacing, last=False):
                parts.append(" ")
                at += 1
    return "".join(parts), spans


def _option_text(mention: Mention, text: str, spans: dict[int, tuple[int, int]]) -> tuple[str, list[int]]:
    start, end = spans[id(mention.words[0])][0], spans[id(mention.words[-1])][1]
    return text[start:end], [start, end]


def questions_of_document(document: Document, settings: Settings, report: Report) -> list[Question]:
    language = document.language
    questions = []
    candidates: list[Mention] = []
    for mention in sorted((m for e in document.entities for m in e.mentions),
                          key=lambda m: (m.sentence.index, m.words[0].position)):
        reason = not_an_option(mention, language)
        if reason is None:
            candidates.append(mention)
            if not mention.head and len(mention.words) > 1 and ud_head(mention) is None:
                report.add(HEAD_FROM_TAGS, f"{document.id} {mention.sentence.id}: {mention.text}")
        else:
            report.add(NOT_AN_OPTION.format(reason), f"{document.id} {mention.sentence.id}: {mention.text}")
    order = [0, 0] if settings.balance else None
    for entity in document.entities:
        for pronoun_mention in entity.mentions:
            pronoun = _pronoun_mention(pronoun_mention, language)
            if pronoun is None:
                continue
            if pronoun.feats_dict().get("Person") in _FIRST_SECOND or pronoun.form.lower() in (
                    "i", "me", "my", "we", "us", "our", "you", "your"):
                report.add(NOT_THIRD_PERSON, f"{document.id} {pronoun_mention.sentence.id}: {pronoun.form}")
                continue
            question = _question(document, pronoun_mention, pronoun, candidates, settings, report, order)
            if question is not None:
                questions.append(question)
    return questions


def _question(document: Document, pronoun_mention: Mention, pronoun: Node, candidates: list[Mention],
              settings: Settings, report: Report, order: list[int] | None = None) -> Question | None:
    """The question of one pronoun; ``candidates``: the document's mentions that can be options, in order;
    ``order``: with ``settings.balance``, the document's questions so far with the right option first in the
    text and with the wrong one first (updated)."""
    where = f"{document.id} {pronoun_mention.sentence.id}: {pronoun.form}"
    last = pronoun_mention.sentence.index
    first = max(0, last - settings.window + 1)
    in_window = [m for m in candidates if first <= m.sentence.index <= last]
    at = (last, pronoun.position)

    def before(m: Mention) -> bool:
        return (m.sentence.index, m.words[-1].position) < at

    own = [m for m in in_window if m.entity is pronoun_mention.entity]
    if not own:
        report.add(NO_NOMINAL, where)
        return None
    antecedents = [m for m in own if before(m)]
    if antecedents:
        # The nearest antecedent that is no predicate nominal ("an Iraqi-British architect" after "Dame Zaha Hadid
        # was"): a predicate says what the entity is, and a question about it reads as one about the predicate.
        referring = [m for m in antecedents if not is_predicate_nominal(m)]
        right = referring[-1] if referring else antecedents[-1]
        if not referring:
            report.add(CHOSE_PREDICATE, where)
    else:
        following = [m for m in own if m.sentence.index == last and not _overlaps(m, pronoun_mention)]
        if not settings.cataphora or not following:
            report.add(CATAPHORA, where)
            return None
        right = following[0]
        report.add(CHOSE_CATAPHORA, where)
    sentences = document.sentences[first : last + 1]
    text, spans = _segment_text(sentences)
    right_text, right_span = _option_text(right, text, spans)
    others = [m for m in in_window if m.entity is not pronoun_mention.entity
              and _option_text(m, text, spans)[0].lower() != right_text.lower()
              and not _overlaps(m, pronoun_mention) and not _overlaps(m, right)]
    # Nearest before the pronoun first; a distractor whose words hold the right option's ("the storm's damage"
    # beside "the storm") only where there is no other.
    others.sort(key=lambda m: (f" {right_text.lower()} " in f" {_option_text(m, text, spans)[0].lower()} ",
                               not before(m), abs(m.sentence.index - last) * 1000 + abs(m.words[0].position
                                                                                         - pronoun.position)))
    if not others:
        report.add(NO_DISTRACTOR, where)
        return None
    coin = random.Random(f"{settings.seed}:{document.id}:{last}:{pronoun.position}")
    if order is not None:
        # The nearest distractor on the side of the right option (before it in the text, or after) that the
        # document's questions so far have fewer of, where the window has one there (a tie: a coin).
        sides = [any(m.words[0].order < right.words[0].order for m in others),
                 any(m.words[0].order >= right.words[0].order for m in others)]
        if all(sides):
            wrong_first = order[0] > order[1] or (order[0] == order[1] and coin.random() < 0.5)
            others.sort(key=lambda m: (m.words[0].order < right.words[0].order) is not wrong_first)
    wrong_text, wrong_span = _option_text(others[0], text, spans)
    start, end = spans[id(pronoun)]
    sentence = f"{text[:start]}_{text[end:]}"

    def shifted(span: list[int]) -> list[int]:
        return [p - (end - start - 1) if p >= end else p for p in span]

    options = [(right_text, shifted(right_span), right), (wrong_text, shifted(wrong_span), others[0])]
    if coin.random() < 0.5:
        options.reverse()
    answer = 1 if options[0][2] is right else 2
    question = Question(sentence, options[0][0], options[1][0], answer, pronoun.form,
                        settings.source or corpus_source(document) or settings.fallback_source,
                        doc_id=str(document.id), sentence_ids=[str(s.id) for s in sentences],
                        offsets={"pronoun": [start, start + 1], "option1": options[0][1], "option2": options[1][1]})
    if right_span[0] < wrong_span[0]:
        report.add(CHOSE_RIGHT_FIRST, where)
    if order is not None:
        order[0 if right_span[0] < wrong_span[0] else 1] += 1
    if not before(others[0]):
        report.add(CHOSE_WRONG_AFTER, where)
    if f" {right_text.lower()} " in f" {wrong_text.lower()} ":
        report.add(CHOSE_WRONG_CONTAINS, where)
    if sentence.count("_") > 1:
        report.add(CHOSE_OWN_BLANK, where)
    agreement = [_agreement(m) for _, _, m in options]
    return set_perspectives(question, _agreement_of_node(pronoun), *agreement, genre=document.genre or "")


def _overlaps(a: Mention, b: Mention) -> bool:
    return bool({id(w) for w in a.words} & {id(w) for w in b.words})


def _agreement_of_node(node: Node) -> Agreement:
    feats = node.feats_dict()
    return from_feats(feats) if feats else from_text(node.form)


def is_predicate_nominal(mention: Mention) -> bool:
    """A predicate nominal: linked as one (GUM's ``pred``) or headed by a word with a copula ("was [an
    architect]")."""
    if mention.link == "pred":
        return True
    head = _head(mention)
    sentence = mention.sentence
    return head is not None and any(node.deprel == "cop" and node.head == head.id for node in sentence.words)


def _agreement(mention: Mention) -> Agreement:
    head = _head(mention)
    entity_type = mention.entity.type if mention.entity is not None else None
    if head is not None and head.feats_dict():
        agreement = from_feats(head.feats_dict(), entity_type)
        if agreement.gender in (None, "Hum") and head.upos == "PROPN":
            # UD gives an English name no Gender: its title or first name may ("Susan King").
            upto = [w.form for w in mention.words[: mention.words.index(head) + 1]]
            agreement = replace(agreement, gender=name_gender(upto) or agreement.gender)
        return agreement
    return from_text(mention.text)


def generate(corpus: Corpus, settings: Settings, report: Report) -> list[Question]:
    """Every question of the corpus, in document order (`harmonize.pcr.generate_questions` removes the
    duplicates of all its inputs at once)."""
    questions: list[Question] = []
    for document in corpus.documents:
        if not settings.masked and is_masked(document):
            report.add(MASKED, str(document.id))
            continue
        questions += questions_of_document(document, settings, report)
    return questions


def is_masked(document: Document) -> bool:
    """Whether the document's text is not there to read: no word at all, or most words only underscores (a
    release that masks its text, as GUM's Reddit documents, which a script fills in from Reddit)."""
    forms = [node.form for node in document.nodes() if not node.is_empty]
    masked = sum(1 for form in forms if not form.strip("_"))
    return not forms or masked > len(forms) / 2
