"""What the scorer sees of a document, and nothing more: its words, entity id -> mentions as Spans, split
antecedent relations. The bottom layer of scoring: the line reader (`harmonize.scoring.corefud_lines`), the frame
that reads and pairs both sides (`harmonize.scoring.frame`) and the scorers above it build on these."""

from __future__ import annotations

from dataclasses import dataclass, field

from harmonize.schemas.model import Corpus, Document
from harmonize.scoring.matching import Span, entity_spans

SplitRelation = tuple[str, list[str]]  # (entity id, antecedent entity ids)


@dataclass
class ScoredDocument:
    """A document as the scorer sees it: its words (`document_words`), entity id -> mentions as Spans (duplicates
    dropped and counted), split antecedent relations."""

    id: str | None
    topic: str | None
    words: list[str]
    entities: dict[str, list[Span]]
    relations: list[SplitRelation]
    duplicates: int
    subtopic: str | None = None
    genre: str | None = None
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def facts(self) -> DocumentFacts:
        return DocumentFacts(self.id, self.genre, self.topic, self.subtopic, self.meta)


@dataclass
class DocumentFacts:
    """What a document's scores can be grouped by (`harmonize.scoring.significance.grouping`): its id, genre,
    ECB+ topic and subtopic, metadata (``# meta::NAME`` comments, a release's ``corpus``)."""

    id: str | None
    genre: str | None = None
    topic: str | None = None
    subtopic: str | None = None
    meta: dict[str, str] = field(default_factory=dict)


def scored_documents(corpus: Corpus, mode: str = "exact", forms: bool = True) -> list[ScoredDocument]:
    """What the scorer needs of each document, and nothing more (exact matching needs no heads)."""
    result = []
    for document in corpus.documents:
        entities, duplicates = entity_spans(document, mode != "exact", by_head=mode == "head")
        relations = [(whole.id, [part.id for part in parts]) for whole, parts in document.inclusions().items()]
        result.append(ScoredDocument(document.id, document.topic, document_words(document, forms), entities,
                                     relations, duplicates, document.subtopic, document.genre,
                                     {key: str(value) for key, value in document.meta.items()
                                      if isinstance(value, (str, int))}))
    return result


def document_words(document: Document, forms: bool = True) -> list[str]:
    """The words the scorer compares, a string per sentence: its words' "ID<tab>FORM" (the ID alone when forms
    are not compared) one per line; empty nodes may differ between key and response. (A string a sentence, not a
    tuple a word: both sides' words are compared at once, and sent from a worker, at a fraction of the cost.)"""
    return ["\n".join([f"{n.id}\t{n.form}" if forms else n.id for n in s.nodes if "." not in n.id])
            for s in document.sentences]


def character_document(document_id: str | None, text: str, entities: dict[str, list[tuple[int, int]]],
                       relations: list[SplitRelation]) -> ScoredDocument:
    """A document whose mentions are character spans of its text, as the scorer sees it: a mention's nodes are its
    characters, so that two sides whose tokens differ (each cut at its own mention edges) still align, exact
    matching compares spans and MOR counts overlapping characters. Its "words" are the text's lines."""
    words = [f"1\t{line}" for line in text.split("\n")]
    clusters: dict[str, list[Span]] = {}
    seen: set[tuple[int, int]] = set()
    duplicates = 0
    for entity, spans in entities.items():
        cluster = clusters.setdefault(entity, [])
        for start, end in spans:
            if (start, end) in seen:
                duplicates += 1
                continue
            seen.add((start, end))
            cluster.append(Span(frozenset((0, str(c)) for c in range(start, end)), (0, start, -end), None))
    return ScoredDocument(document_id, None, words, clusters, relations, duplicates)
