"""Coreference resolvers as PCR solvers, as PCR4ALL runs CoreNLP, spaCy and AllenNLP (its section 4.1).

Each question's text, with its pronoun back in the place of the ``_``, becomes a document (harmonize's
rule-based splitter makes its sentences and words); the resolver clusters it; the answer is the option that a
mention of the pronoun's predicted cluster overlaps (a mention holding the pronoun's word is not counted), 1 or
2. Where neither option is in that cluster, or both are, or the pronoun is no predicted mention, the answer is 0:
an error to `harmonize.pcr.evaluate`, each case counted with its reason. (PCR4ALL counts a question right when
the right option shares the pronoun's cluster, so a cluster holding both options is right there and an error
here: a resolver that joins everything would otherwise score 100.) A question without a pronoun (WinoGrande's
``_``) cannot be put to a resolver: 0, counted.

Resolvers (`CoreferenceSolver`):

- ``rules`` (`harmonize.resolvers.rules`) needs UPOS and FEATS. With ``parse`` (``udpipe:MODEL``, ``stanza``)
  the text is tagged and parsed, and the rules find their own mentions in the tree (end to end, as the paper's
  systems do) or, with ``given_mentions``, cluster the pronoun and the two options. Without a parser the mentions
  are given and tagged from the English lexicon of `harmonize.pcr.perspectives` (the pronoun a PRON, each option
  a noun headed as `harmonize.pcr.generate.head_by_tags` reads it, with the number and gender its words say).
- ``neural``: a resolver folder `harmonize resolve train` wrote (``model``); it finds its own mentions (the
  text parsed first where ``parse`` is given: the model's syntax features).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from harmonize.converters.text import document_from_text, rule_sentences
from harmonize.errors import HarmonizeError, Report
from harmonize.pcr.generate import head_by_tags
from harmonize.pcr.perspectives import Agreement, from_text
from harmonize.pcr.questions import Question
from harmonize.schemas.model import Corpus, Document, Mention, Node, ud_head

RESOLVERS = ("rules", "neural")
NO_PRONOUN = "resolver: a question without a pronoun (only '_') cannot be resolved: answer 0"
OPTION_NOT_FOUND = "resolver: an option not found in the text: answer 0"
PRONOUN_SPLIT = "resolver: the pronoun is not one word to the splitter (\"It's\"): answer 0"
PRONOUN_NO_MENTION = "resolver: the pronoun is no predicted mention: answer 0"
NEITHER = "resolver: neither option in the pronoun's cluster: answer 0"
BOTH = "resolver: both options in the pronoun's cluster: answer 0 (PCR4ALL would count it right)"
ANSWERED = "resolver: one option in the pronoun's cluster: answered"


@dataclass(frozen=True)
class CoreferenceSolver:
    resolver: str = "rules"  # "rules" or "neural"
    model: str | None = None  # the neural resolver's folder
    parse: str | None = None  # a parser engine (udpipe:MODEL, stanza[:LANG]) for tags and trees
    given_mentions: bool = False  # rules: cluster the pronoun and the options only (always without a parser)
    device: str = "auto"


@dataclass
class _Asked:
    """A question as a document: the pronoun's word and each option's words in it."""

    document: Document
    pronoun: Node
    options: tuple[list[Node], list[Node]]


def _as_document(question: Question, number: int) -> _Asked | str:
    """The question's text with its pronoun in the place of its ``_`` as a document, or why it cannot be one."""
    if not question.pronoun:
        return NO_PRONOUN
    sentence, blank = question.sentence, question.blank
    if blank is None:
        return NO_PRONOUN
    shift = len(question.pronoun) - (blank[1] - blank[0])
    text = sentence[:blank[0]] + question.pronoun + sentence[blank[1]:]
    spans = []
    for name, option in (("option1", question.option1), ("option2", question.option2)):
        span = question.offsets.get(name)
        if span is None or sentence[span[0]:span[1]] != option:
            return OPTION_NOT_FOUND
        spans.append([p + shift if p >= blank[1] else p for p in span])
    document = document_from_text(text, f"question-{number}", _sentences_keeping(text, spans))
    nodes = list(document.nodes())

    def words(start: int, end: int) -> list[Node]:
        return [node for node in nodes if node.start_char < end and node.end_char > start]

    pronoun = words(blank[0], blank[0] + len(question.pronoun))
    options = (words(*spans[0]), words(*spans[1]))
    if len(pronoun) != 1:
        return PRONOUN_SPLIT
    if not all(options):
        return OPTION_NOT_FOUND
    return _Asked(document, pronoun[0], options)


def _sentences_keeping(text: str, spans: list[list[int]]) -> list[list[tuple[int, int]]]:
    """The splitter's sentences of ``text`` (word offsets), those an option's span crosses joined: a mention lies
    in one sentence ("Mr. Smith" split after "Mr." by a sentence end the splitter misread)."""
    sentences = rule_sentences(text)
    for start, end in spans:
        touched = [i for i, words in enumerate(sentences) if words[0][0] < end and words[-1][1] > start]
        if len(touched) > 1:
            first, last = touched[0], touched[-1]
            sentences[first:last + 1] = [[word for words in sentences[first:last + 1] for word in words]]
    return sentences


def _tag_from_lexicon(asked: _Asked) -> list[tuple[list[Node], Node]]:
    """The pronoun and both options as the rules' mentions, their heads tagged from the lexicon."""
    def tag(node: Node, upos: str, agreement: Agreement, pronoun: bool) -> None:
        node.upos = upos
        feats = {"Number": agreement.number, "Gender": agreement.gender if agreement.gender != "Hum" else None,
                 "Person": agreement.person if pronoun else None, "PronType": "Prs" if pronoun else None}
        node.feats = "|".join(f"{key}={value}" for key, value in sorted(feats.items()) if value) or "_"

    tag(asked.pronoun, "PRON", from_text(asked.pronoun.form), True)
    mentions: list[tuple[list[Node], Node]] = [([asked.pronoun], asked.pronoun)]
    for option in asked.options:
        mention = Mention(words=option)
        head = head_by_tags(mention) or option[-1]
        text = " ".join(node.form for node in option)
        tag(head, "PROPN" if head.form[:1].isupper() else "NOUN", from_text(text), False)
        mentions.append((option, head))
    return sorted(mentions, key=lambda pair: pair[0][0].order)


def _given(asked: _Asked) -> list[tuple[list[Node], Node]]:
    """The pronoun and both options as the rules' mentions, headed by the tree (parsed text)."""
    mentions: list[tuple[list[Node], Node]] = [([asked.pronoun], asked.pronoun)]
    for option in asked.options:
        mentions.append((option, ud_head(Mention(words=option)) or option[-1]))
    return sorted(mentions, key=lambda pair: pair[0][0].order)


def answer_from_clusters(asked: _Asked) -> tuple[int, str]:
    """1 or 2: the option a mention of the pronoun's predicted cluster overlaps; else 0, with the reason."""
    own = [m for m in asked.document.mentions if m.words == [asked.pronoun]]
    if not own or own[0].entity is None:
        return 0, PRONOUN_NO_MENTION
    pronoun_id = id(asked.pronoun)
    others = [m for m in own[0].entity.mentions if pronoun_id not in {id(w) for w in m.words}]
    inside = [any({id(w) for w in m.words} & {id(w) for w in option} for m in others) for option in asked.options]
    if inside == [True, False]:
        return 1, ANSWERED
    if inside == [False, True]:
        return 2, ANSWERED
    return 0, BOTH if all(inside) else NEITHER


def solve_with_resolver(questions: Sequence[Question], solver: CoreferenceSolver | None = None,
                        report: Report | None = None) -> list[int]:
    """1, 2 or 0 (unresolved) for each question, from a coreference resolver (see the module)."""
    solver = solver or CoreferenceSolver()
    report = report if report is not None else Report()
    if solver.resolver not in RESOLVERS:
        raise HarmonizeError(f"unknown resolver {solver.resolver!r}: one of {', '.join(RESOLVERS)}")
    if solver.resolver == "neural" and not solver.model:
        raise HarmonizeError("the neural resolver needs the folder `harmonize resolve train` wrote (--model)")
    asked: list[_Asked | str] = [_as_document(question, number) for number, question in enumerate(questions, 1)]
    documents = [a.document for a in asked if isinstance(a, _Asked)]
    corpus = Corpus(documents=documents)
    if solver.parse and documents:
        from harmonize.parsing.trees import parse_corpus

        parse_corpus(corpus, solver.parse, report)
    if solver.resolver == "rules":
        _resolve_by_rules(asked, solver, report)
    elif documents:
        from harmonize.resolvers import neural

        model, tokenizer, device = neural.load(solver.model, solver.device)
        neural.resolve(model, tokenizer, corpus, device, report)
    answers = []
    for number, item in enumerate(asked, 1):
        if isinstance(item, str):
            answers.append(0)
            report.add(item, f"question {number}")
            continue
        answer, why = answer_from_clusters(item)
        answers.append(answer)
        report.add(why, f"question {number}: {item.pronoun.form}")
    return answers


def _resolve_by_rules(asked: list[_Asked | str], solver: CoreferenceSolver, report: Report) -> None:
    from harmonize.resolvers.rules import resolve_document, tree_mentions

    counts: Counter = Counter()
    for item in asked:
        if isinstance(item, str):
            continue
        if not solver.parse:
            mentions = _tag_from_lexicon(item)
        elif solver.given_mentions:
            mentions = _given(item)
        else:
            mentions = tree_mentions(item.document)
        resolve_document(item.document, mentions, counts)
    if not solver.parse:
        report.add("resolver: no parser: the pronoun and both options are the mentions, tagged from the lexicon",
                   "rules", sum(not isinstance(item, str) for item in asked))
