"""Plain text (``.txt``, one document per file) into documents with sentences and words, the text kept exactly.

Paragraphs are separated by blank lines (``# newpar``). Sentences and words come from a small rule-based
splitter (`split_sentences`, `split_words`): a sentence ends at ``.``, ``!``, ``?`` (with closing
quotes and brackets) before white space and an upper-case letter, digit or opening quote, unless the word before is
a known abbreviation or an initial; words are runs of letters and digits (with inner hyphens, apostrophes and
periods: "e-mail", "O'Brien", "U.S."), English clitics split off ("do|n't", "John|'s"), and every other
non-space character alone ("..." and "--" stay whole). The whitespace between words is kept in ``SpaceAfter`` /
``SpacesAfter`` (and ``SpacesBefore`` for the first word), so that the document's text is rebuilt exactly
(`harmonize.converters.surface.document_text`). The report says that the built-in splitter was used.

With ``-I tokenizer=udpipe:MODEL`` or ``stanza:LANG`` (also set by ``convert --parse ENGINE``) the engine's
tokenizer makes the sentences and words instead (a multiword token is one word), said in the report; paragraphs
stay at blank lines.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from harmonize.converters.surface import escape_spaces, set_gap
from harmonize.errors import HarmonizeError, Report
from harmonize.io import read_text
from harmonize.schemas.model import CommentSlot, Corpus, Document, Node, Sentence

SPLITTER = "sentences and words from harmonize's rule-based splitter"
_ABBREVIATIONS = frozenset(["mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "cf", "no", "vol", "fig", "al", "approx", "dept", "est", "inc", "ltd", "co", "corp", "gen", "gov", "rev", "sgt", "capt", "col", "lt", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mt", "ave", "bros"])
_WORD = re.compile(
    r"(?:[^\W_]\.){2,}"                      # U.S., e.g.
    r"|[^\W_]+(?:[-'’][^\W_]+)*"             # words with inner hyphens and apostrophes
    r"|\.\.\.|--|[^\w\s]|_"                  # ellipsis, dash, any other character alone
)
_CLITIC = re.compile(r"(?i)(n't|'s|'re|'ve|'ll|'d|'m)\Z")
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]’”]*")
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")


def split_words(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The [begin, end) offsets of the words of ``text[start:end]``."""
    spans: list[tuple[int, int]] = []
    limit = len(text) if end is None else end
    for match in _WORD.finditer(text, start, limit):
        begin, finish = match.span()
        if match.group() == "." and spans and spans[-1][1] == begin and _is_abbreviation(text[spans[-1][0]:begin]):
            spans[-1] = (spans[-1][0], finish)  # "Dr.", "Jan.": the abbreviation keeps its period
            continue
        clitic = _CLITIC.search(match.group())
        if clitic and clitic.start() > 0:
            spans.append((begin, begin + clitic.start()))
            begin += clitic.start()
        spans.append((begin, finish))
    return spans


def split_sentences(text: str, words: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The words grouped into sentences (see the module for where a sentence ends)."""
    sentences: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    for index, (begin, end) in enumerate(words):
        current.append((begin, end))
        if not _SENTENCE_END.fullmatch(text[begin:end]) or index + 1 == len(words):
            continue
        following = text[words[index + 1][0]]
        if not (following.isupper() or following.isdigit() or following in "\"'“‘(["):
            continue
        if text[end - 1] == "." and _is_abbreviation(text[begin:end]):
            continue
        if begin == words[index + 1][0]:
            continue
        sentences.append(current)
        current = []
    if current:
        sentences.append(current)
    return sentences


def _is_abbreviation(word: str) -> bool:
    """A known abbreviation or an initial ("J"), with or without its period."""
    bare = word.rstrip(".")
    return bare.lower() in _ABBREVIATIONS or (len(bare) == 1 and bare.isupper())


def rule_sentences(text: str) -> list[list[tuple[int, int]]]:
    """The splitter's sentences, as lists of word offsets, paragraph by paragraph."""
    starts = [0] + [m.end() for m in _PARAGRAPH.finditer(text)]
    ends = [m.start() for m in _PARAGRAPH.finditer(text)] + [len(text)]
    return [sentence for start, end in zip(starts, ends) for sentence in split_sentences(text,
                                                                                          split_words(text, start,
                                                                                                      end))]


def document_from_text(text: str, document_id: str, sentences: list[list[tuple[int, int]]] | None = None
                       ) -> Document:
    """A document of the text's paragraphs and sentences of words (``sentences``: word offsets a tokenizer made,
    else the splitter's), spacing kept so that the text is rebuilt exactly."""
    document = Document(id=document_id)
    breaks = [m.start() for m in _PARAGRAPH.finditer(text)]
    nodes: list[tuple[Node, int, int]] = []
    paragraph = -1
    for sentence_words in (sentences if sentences is not None else rule_sentences(text)):
        opened = bisect.bisect_right(breaks, sentence_words[0][0])  # blank lines before the sentence
        sentence = Sentence(id=f"{document_id}-{len(document.sentences) + 1}",
                            text=" ".join(text[sentence_words[0][0]:sentence_words[-1][1]].split()))
        sentence.comments = [CommentSlot.SENT_ID, CommentSlot.TEXT]
        if opened != paragraph:
            sentence.comments.insert(0, f"# newpar id = {document_id}-p{opened + 1}")
            paragraph = opened
        if not document.sentences:
            sentence.comments.insert(0, CommentSlot.NEWDOC)
        document.add_sentence(sentence)
        for index, (begin, finish) in enumerate(sentence_words, 1):
            node = sentence.add_node(Node(str(index), text[begin:finish]))
            node.start_char, node.end_char = begin, finish
            nodes.append((node, begin, finish))
    if nodes:
        lead = text[: nodes[0][1]]
        if lead:
            nodes[0][0].misc["SpacesBefore"] = escape_spaces(lead)
    for (node, _begin, finish), following in zip(nodes, [*nodes[1:], None]):
        gap = text[finish: following[1]] if following is not None else text[finish:]
        set_gap(node, gap, last=following is None)
    return document


def tokenized(text: str, tokenizer: str, where: str, report: Report) -> list[list[tuple[int, int]]]:
    """Sentences of word offsets from ``tokenizer`` (``udpipe:MODEL``, ``stanza:LANG``), else from the splitter."""
    if not tokenizer or tokenizer == "rules":
        report.add(SPLITTER, where)
        return rule_sentences(text)
    from harmonize.parsing import parser_for

    engine = parser_for(tokenizer)
    if engine is None or not hasattr(engine, "tokenize"):
        raise HarmonizeError(f"tokenizer={tokenizer}: udpipe:MODEL, stanza:LANG or rules (the built-in splitter)")
    report.add(f"sentences and words from the tokenizer of {engine.name}", where)
    return engine.tokenize(text)


def read_text_file(path: str | Path, lenient: bool = False, report: Report | None = None,
                   tokenizer: str = "") -> Corpus:
    """A ``.txt`` file as a one-document corpus (id: the file name without ``.txt``)."""
    report = report if report is not None else Report()
    path = Path(path)
    text = read_text(path, report)
    document = document_from_text(text, path.stem, tokenized(text, tokenizer, str(path), report))
    return Corpus([document], meta={"source": str(path)})
