"""Heads that look guessed: a side without trees whose every mention of several words is headed by its first word.

That is what a conversion from a format without heads writes (CoNLL-2012 -> CorefUD: CorefUD needs a head on every
mention, and without a tree the writer can only name the first word, and says so in its report). Head matching
then compares first words, which has little to do with the key's heads: a round trip that scores 88 exactly can
score 34 under head matching. Our CorefUD writer says so in the file (``# meta::guessed_heads = N``, read back as
mentions without a head); a file from elsewhere cannot, so the scorer looks: `score_files` adds a note to its
result where a side says or looks so, with what exact matching gives.
"""

from __future__ import annotations

from pathlib import Path

from harmonize.converters.corefud import GUESSED_HEADS
from harmonize.errors import Report

# Enough mentions of several words to tell a pattern from chance (a short document may head a few by their first).
MIN_MENTIONS = 5
# Mentions looked at: the first ones of a side are enough to see the pattern, and a large file is not read twice.
MAX_MENTIONS = 2000


def heads_guessed(path: str | Path, format: str, read_options: dict[str, str] | None = None) -> str | None:
    """"said" where a document of the side at ``path`` says its heads were guessed (`GUESSED_HEADS`); "look" where
    it has no trees and heads every mention of several words by its first word (or by none), judged on its first
    `MAX_MENTIONS` such mentions (at least `MIN_MENTIONS`); None otherwise."""
    from harmonize.conversion import input_files, read_corpora
    from harmonize.converters import get_format

    reader = get_format(format, "read")
    if reader.score_reader is not None:
        return None  # character spans: no heads at all
    seen = 0
    for file in input_files([Path(path)], reader):
        for corpus in read_corpora(file, reader, True, Report(), read_options):
            try:
                for document in corpus.documents:
                    if document.meta.get(GUESSED_HEADS):
                        return "said"
                    for sentence in document.sentences:
                        if any(node.head not in ("_", "") for node in sentence.words):
                            return None  # a tree: heads come from it
                    for mention in document.mentions:
                        if len(mention.words) < 2:
                            continue
                        if mention.head is not None and mention.head is not mention.words[0]:
                            return None
                        seen += 1
                        if seen >= MAX_MENTIONS:
                            return "look"
            finally:
                corpus.release()
    return "look" if seen >= MIN_MENTIONS else None


def guessed_heads_note(side: str, exact_conll: float | None, how: str = "look") -> str:
    """The one line `score` prints about a side whose heads are guessed (``how``: as `heads_guessed` says)."""
    exact = f"--match exact gives CoNLL {100 * exact_conll:.2f}; " if exact_conll is not None else \
        "--match exact compares spans; "
    why = ("the file says so: # meta::guessed_heads, written where a conversion had no head and no tree"
           if how == "said" else "no trees, every mention of several words headed by its first word, as a "
                                 "conversion from a format without heads writes them")
    verb = "are" if how == "said" else "look"
    return (f"the {side}'s heads {verb} guessed ({why}): head matching compares first words; "
            f"{exact}--parse udpipe:MODEL gives heads from trees")
