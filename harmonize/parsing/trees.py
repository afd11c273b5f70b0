"""Parsing a corpus: trees into the columns its source left empty, then mention heads, each case reported.

Per document and column (LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL), a column with any value is the source's and is
kept; the parser fills the others (all of them with ``overwrite``). A document whose columns are all the source's
is not parsed. The parser gets the source's words (not empty nodes, not multiword-token surface forms) and
sentence breaks as they are; where it splits a word into several (stanza's mwt), its tree is put back on the word
(`onto_tokens`).

Heads (`find_heads`): a mention's head is the annotated one where the source has one, else the word of a
one-word mention, else the highest node of the mention in the tree (``ud_head``, as udapi's ``corefud.MoveHead``),
else unknown.
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from harmonize.errors import HarmonizeError, Report
from harmonize.parsing import ParsedWord, Parser, parser_for
from harmonize.schemas.model import Corpus, Document, Mention, Node, ud_head

COLUMNS = ("lemma", "upos", "xpos", "feats", "head", "deprel")
# CorefUD and UD file names start with the language code: en_gum-corefud-train.conllu, cs_pdt-ud-dev.conllu.
_LANGUAGE_PREFIX = re.compile(r"([a-z]{2,3})_")

HEAD_ANNOTATED = "mention head: annotated in the source"
HEAD_ONE_WORD = "mention head: the mention's only word"
HEAD_SOURCE_TREE = "mention head: highest node in the source's tree (as corefud.MoveHead)"
HEAD_PARSED_TREE = "mention head: highest node in the parser's tree (as corefud.MoveHead)"
HEAD_UNKNOWN = "mention head unknown: none annotated and no tree"
NO_HEAD_WITHOUT_PARSING = "mention without a head: none annotated and no tree (--parse ENGINE gives one)"
NO_TREES = ("documents without dependency trees (HEAD, DEPREL empty): --parse udpipe:MODEL gives them (e.g. "
            "udpipe:english-gum, after `harmonize corpora fetch udpipe-english-gum`; `harmonize corpora list` has "
            "the models)")


def parse_corpus(corpus: Corpus, engine: str | Parser | None, report: Report, overwrite: bool = False) -> None:
    """Parse every document that lacks trees with ``engine`` (a ``--parse`` value such as ``udpipe:MODEL``, or a
    `Parser`), then give mentions heads; with ``none`` (or None) only count the mentions that have no head
    and could get one from a parser."""
    parser = parser_for(engine) if isinstance(engine, str) else engine
    if parser is None:
        _count_headless(corpus, report)
        return
    parsed: set[int] = set()
    for document in corpus.documents:
        if parse_document(document, parser, report, overwrite):
            parsed.add(id(document))
    for document in corpus.documents:
        find_heads(document, report, id(document) in parsed)


def parse_document(document: Document, parser: Parser, report: Report, overwrite: bool = False) -> bool:
    """Fill the document's empty columns (all six with ``overwrite``) from ``parser``; False where it had nothing
    to fill."""
    sentences = [s for s in document.sentences if any(not n.is_empty for n in s.nodes)]
    words = [[n for n in s.nodes if not n.is_empty] for s in sentences]
    filled = [c for c in COLUMNS if overwrite or all(getattr(w, c) in ("_", "") for ws in words for w in ws)]
    if not filled:
        return False
    results = parser.parse([[w.form for w in ws] for ws in words], document_language(document))
    if len(results) != len(words):
        raise HarmonizeError(f"{parser.name} returned {len(results)} sentences for the {len(words)} of document "
                             f"{document.id}")
    split = 0
    for sentence, sentence_words, parsed_words in zip(sentences, words, results):
        tokens, merged = onto_tokens(parsed_words, len(sentence_words), f"{parser.name}, {sentence.id}")
        split += merged
        for node, token in zip(sentence_words, tokens):
            for column in filled:
                setattr(node, column, _value(token, column, sentence_words))
    columns = ", ".join(c.upper() for c in filled)
    report.add(f"document parsed by {parser.name}", f"{document.id}: {columns} filled")
    for column in COLUMNS:
        if column not in filled:
            report.add(f"column the source filled, kept while parsing: {column.upper()}", str(document.id))
    if split:
        report.add("word the parser split into several (its tree put back on the word)", str(document.id), split)
    # Empty nodes live in the enhanced graph, which then needs every word of the file: the basic tree is its
    # backbone where the source gave words no DEPS.
    if "head" in filled and any(n.is_empty for s in sentences for n in s.nodes) and all(
            w.deps in ("_", "") for ws in words for w in ws):
        for node in (w for ws in words for w in ws):
            node.deps = f"{node.head}:{node.deprel}"
        report.add("document with empty nodes: words' DEPS set to the parsed HEAD:DEPREL", str(document.id))
    return True


def _value(token: ParsedWord, column: str, words: list[Node]) -> str:
    if column == "head":
        return "0" if token.head == 0 else words[token.head - 1].id
    return getattr(token, column) or "_"


def onto_tokens(words: list[ParsedWord], count: int, where: str) -> tuple[list[ParsedWord], int]:
    """One word per input token: a token the parser split into several words takes the word of the group closest
    to the root (its tags, its relation, its head); relations into the group go to the token. The result is a tree
    wherever ``words`` is one (a group's highest word has no ancestor in the group). Returns the tokens' words,
    heads counted in tokens, and how many tokens were split."""
    if [w.token for w in words] == list(range(count)):
        return words, 0
    if not words or words[0].token != 0 or words[-1].token != count - 1 or any(
            b.token - a.token not in (0, 1) for a, b in pairwise(words)):
        raise HarmonizeError(f"{where}: the parser's words do not cover the sentence's {count} tokens in order")
    depth = [_depth(words, i) for i in range(len(words))]
    highest: dict[int, int] = {}
    for index, word in enumerate(words):
        if word.token not in highest or depth[index] < depth[highest[word.token]]:
            highest[word.token] = index
    tokens = []
    for token in range(count):
        word = words[highest[token]]
        head = 0 if word.head == 0 else words[word.head - 1].token + 1
        tokens.append(ParsedWord(token, word.lemma, word.upos, word.xpos, word.feats, head, word.deprel))
    return tokens, len({a.token for a, b in pairwise(words) if a.token == b.token})


def _depth(words: list[ParsedWord], index: int) -> int:
    depth, seen = 0, set()
    while words[index].head != 0 and index not in seen:
        seen.add(index)
        index = words[index].head - 1
        depth += 1
    return depth


def document_language(document: Document) -> str | None:
    """The document's language, else the one its source file's name starts with (``en_gum-...``)."""
    if document.language:
        return document.language
    if document.source:
        match = _LANGUAGE_PREFIX.match(Path(document.source).name)
        if match:
            return match.group(1)
    return None


def find_heads(document: Document, report: Report, parsed: bool = False) -> None:
    """Give every mention without an annotated head one where its words or the tree tell (see the module), and
    count each case; ``parsed``: the document's trees came from the parser."""
    cases: dict[str, list[Mention]] = {}
    for mention in document.mentions:
        if mention.head is not None:
            reason = HEAD_ANNOTATED
        elif len(mention.words) == 1:
            document.move_head(mention, mention.words[0])
            reason = HEAD_ONE_WORD
        elif _has_tree(mention):
            document.move_head(mention, ud_head(mention))
            reason = HEAD_PARSED_TREE if parsed else HEAD_SOURCE_TREE
        else:
            reason = HEAD_UNKNOWN
        cases.setdefault(reason, []).append(mention)
    _tally(document, cases, report)


def _count_headless(corpus: Corpus, report: Report) -> None:
    for document in corpus.documents:
        trees: dict[int, bool] = {}  # sentence -> whether it has a tree, looked at once
        headless = [m for e in document.entities for m in e.mentions if m.head is None and len(m.words) > 1
                    and not (trees[id(m.sentence)] if id(m.sentence) in trees
                             else trees.setdefault(id(m.sentence), _has_tree(m)))]
        _tally(document, {NO_HEAD_WITHOUT_PARSING: headless} if headless else {}, report)
        words = (n for s in document.sentences for n in s.nodes if not n.is_empty)
        if document.sentences and all(n.head in ("_", "") for n in words):
            report.add(NO_TREES, str(document.id))


def _tally(document: Document, cases: dict[str, list[Mention]], report: Report) -> None:
    """One report entry per reason and document, with its first mention as the example (mentions are many)."""
    for reason, mentions in cases.items():
        report.add(reason, _where(document, mentions[0]), len(mentions))


def _has_tree(mention: Mention) -> bool:
    """Whether the mention's sentence has a basic tree (a sentence is parsed whole or not at all: its first word
    tells, without splitting the lines of every word)."""
    first = next((n for n in mention.sentence.nodes if not n.is_empty), None)
    return first is not None and first.head not in ("_", "")


def _where(document: Document, mention: Mention) -> str:
    return f"{document.id}, {mention.sentence.id}: {mention.text}"
