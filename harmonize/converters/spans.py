"""Mentions as contiguous spans of words, for formats that know neither gaps nor empty nodes (CoNLL-2012, jsonlines).

Two things in the model have no place there, and each is handled by a named rule whose effect is reported:

* empty nodes (CorefUD zeros) are not tokens there: a mention loses its empty nodes, and a mention of empty nodes
  only is dropped;
* a discontinuous mention follows ``policy``: ``"drop"`` leaves it out, ``"head-part"`` keeps its largest
  contiguous part that contains its head (the largest part where the head is unknown or an empty node), ``"span"``
  widens it to its whole extent, first word to last (as the Potsdam Commentary Corpus' own CoNLL files do).
"""

from __future__ import annotations

from dataclasses import dataclass

from harmonize.converters.choices import DISCONTINUOUS_POLICIES
from harmonize.errors import Report
from harmonize.schemas.model import Document, Mention, Node, Sentence

POLICIES = DISCONTINUOUS_POLICIES


@dataclass(frozen=True, slots=True)
class WordSpan:
    """A mention's words: sentence index and the first and last word index in it (0-based, inclusive, empty nodes
    not counted)."""

    sentence: int
    start: int
    end: int


def word_index(sentence: Sentence) -> dict[int, int]:
    """``id(node)`` -> index among the sentence's words (empty nodes have none)."""
    index: dict[int, int] = {}
    for node in sentence.nodes:
        if not node.is_empty:
            index[id(node)] = len(index)
    return index


def contiguous_spans(document: Document, policy: str, report: Report, target: str) -> dict[Mention, WordSpan]:
    """Each mention of ``document`` that ``target`` (the format's name, for the report) can hold, as a WordSpan."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} for discontinuous mentions; choose one of {', '.join(POLICIES)}")
    indices: dict[int, dict[int, int]] = {}
    spans: dict[Mention, WordSpan] = {}
    for entity in document.entities:
        for mention in entity.mentions:
            sentence = mention.sentence
            index = indices.get(sentence.index)
            if index is None:
                index = indices[sentence.index] = word_index(sentence)
            words: list[Node] = [w for w in mention.words if not w.is_empty]
            where = f"{document.id}: {entity.id} {mention.text!r}"
            if not words:
                report.add(f"mention of empty nodes only dropped ({target} has no empty nodes)", where)
                continue
            runs: list[list[int]] = []
            for word in words:
                at = index[id(word)]
                if runs and runs[-1][-1] + 1 == at:
                    runs[-1].append(at)
                else:
                    runs.append([at])
            if len(words) < len(mention.words) and not (len(runs) > 1 and policy == "drop"):
                # Counted where the mention is written: a dropped one is counted as dropped alone.
                report.add(f"empty nodes left out of a mention ({target} has no empty nodes)", where)
            if len(runs) > 1:
                if policy == "drop":
                    report.add(f"discontinuous mention dropped (policy drop; {target} has no gaps)", where)
                    continue
                if policy == "span":
                    report.add(f"discontinuous mention widened over its gaps (policy span; {target} has no gaps)",
                               where)
                    spans[mention] = WordSpan(sentence.index, runs[0][0], runs[-1][-1])
                    continue
                head = index.get(id(mention.head)) if mention.head is not None else None
                with_head = [run for run in runs if head in run]
                runs = [with_head[0] if with_head else max(runs, key=len)]
                report.add(f"discontinuous mention cut to its part with the head (policy head-part; {target} has "
                           "no gaps)", where)
            spans[mention] = WordSpan(sentence.index, runs[0][0], runs[0][-1])
    return spans
