"""Mention detection for the cross-document resolver: which spans are event mentions, which entity mentions.

Every span inside one sentence and at most ``max_width`` words long is a candidate; it is read as the mean, first
and last of its words' vectors (a frozen encoder's, `harmonize.resolvers.cross_document.encode_documents`)
and a width embedding, and a small network gives it three scores: not a mention, an event, an entity. A span is
kept as its likelier kind when that probability passes the kind's threshold; of two kept spans of one kind that
overlap, the better stays where the kind's overlap policy is ``flat``, and only where they cross (overlap without
nesting) where it is ``nested``. Each kind's threshold and policy are the ones with the best exact mention F1 on
data held out for choosing (`choose_thresholds`): a corpus that nests mentions of one kind keeps them nested, one
that does not (ECB+: 4 of the 6,234 entity mentions and 10 of the 5,053 event mentions of its validated sentences
overlap another of their kind, over the 770 documents in ../shared/data) is not given nested spans it never
annotates.

Training targets are the gold mentions; one the detector cannot give is counted, never silently lost: longer than
``max_width`` or over a sentence break (left out), discontinuous (learnt as the span from its first to its last
word), one span annotated as both kinds (learnt as the event).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from harmonize.errors import Report
from harmonize.resolvers.lemma import mention_kind
from harmonize.schemas.model import Corpus, Document, Mention

NOT_MENTION, EVENT_LABEL, ENTITY_LABEL = 0, 1, 2
LABEL_KINDS = {EVENT_LABEL: "event", ENTITY_LABEL: "entity"}
MAX_WIDTH = 12
THRESHOLDS = tuple(round(0.05 * step, 2) for step in range(2, 19))  # 0.1 .. 0.9
NESTED, FLAT = "nested", "flat"  # the overlap policies of `kept_spans`


class MentionDetector:
    """The span scorer (torch modules built here, so that importing this module needs no torch)."""

    def __init__(self, dimension: int, max_width: int = MAX_WIDTH, hidden: int = 256, seed: int = 0) -> None:
        import torch

        torch.manual_seed(seed)
        self.max_width = max_width
        self.width = torch.nn.Embedding(max_width, 32)
        self.scorer = torch.nn.Sequential(torch.nn.Linear(3 * dimension + 32, hidden), torch.nn.ReLU(),
                                          torch.nn.Dropout(0.2), torch.nn.Linear(hidden, 3))

    def parameters(self) -> list:
        return [*self.width.parameters(), *self.scorer.parameters()]

    def train(self, mode: bool = True) -> None:
        self.scorer.train(mode)

    def to(self, device) -> MentionDetector:
        self.width.to(device)
        self.scorer.to(device)
        return self

    def logits(self, words, spans):
        """[spans, 3] scores of the (first, last) ``spans`` over the word vectors ``words``."""
        import torch

        sums = torch.cat([torch.zeros(1, words.shape[1], device=words.device), words.cumsum(0)])
        first, last = spans[:, 0], spans[:, 1]
        width = last - first + 1
        mean = (sums[last + 1] - sums[first]) / width[:, None]
        return self.scorer(torch.cat([mean, words[first], words[last], self.width(width - 1)], dim=1))

    def state(self) -> dict:
        return {"width": self.width.state_dict(), "scorer": self.scorer.state_dict(), "max_width": self.max_width}

    @classmethod
    def from_state(cls, state: dict, dimension: int) -> MentionDetector:
        detector = cls(dimension, int(state["max_width"]))
        detector.width.load_state_dict(state["width"])
        detector.scorer.load_state_dict(state["scorer"])
        detector.train(False)
        return detector


def candidate_spans(document: Document, max_width: int) -> list[tuple[int, int]]:
    """Every (first, last) word index of the document inside one sentence, at most ``max_width`` words (the
    neural resolver's candidates)."""
    from harmonize.resolvers import features

    return [(first, last) for first, last in features.candidate_spans(list(document.nodes()), max_width).tolist()]


def mention_extents(document: Document) -> list[tuple[Mention, int, int]]:
    """Each mention with the word indices of its first and last word."""
    index = {id(node): i for i, node in enumerate(document.nodes())}
    return [(m, index[id(m.words[0])], index[id(m.words[-1])]) for m in document.mentions]


def gold_labels(document: Document, spans: Sequence[tuple[int, int]], max_width: int, report: Report) -> list[int]:
    """The label of each candidate span from the document's mentions (what cannot be learnt is counted)."""
    wanted: dict[tuple[int, int], int] = {}
    for mention, first, last in mention_extents(document):
        if last - first + 1 > max_width:
            report.add(f"mention detection: gold mention longer than {max_width} words not learnt", str(document.id))
            continue
        if last - first + 1 != len(mention.words):
            report.add("mention detection: discontinuous gold mention learnt as its whole extent", str(document.id))
        label = EVENT_LABEL if mention_kind(mention) == "event" else ENTITY_LABEL
        if wanted.get((first, last), label) != label:
            report.add("mention detection: span annotated as event and entity learnt as the event", str(document.id))
            label = EVENT_LABEL
        wanted[(first, last)] = label
    return [wanted.get(span, NOT_MENTION) for span in spans]


def train_detector(corpus: Corpus, encoded: Sequence, epochs: int = 8, seed: int = 0, report: Report | None = None,
                   log: Callable[[str], None] | None = None, max_width: int = MAX_WIDTH,
                   device: str = "cpu") -> MentionDetector:
    """A detector trained on the gold mentions of ``corpus`` (``encoded``: its documents' word vectors) on
    ``device`` (a torch device's name), returned on the CPU, where it detects and is saved."""
    import torch

    report = report if report is not None else Report()
    examples = []
    for document, words in zip(corpus.documents, encoded):
        spans = candidate_spans(document, max_width)
        if spans:
            examples.append((words.to(device), torch.tensor(spans, device=device),
                             torch.tensor(gold_labels(document, spans, max_width, report), device=device)))
    detector = MentionDetector(encoded[0].shape[1], max_width, seed=seed).to(device)
    optimizer = torch.optim.Adam(detector.parameters(), lr=1e-3)
    loss_function = torch.nn.CrossEntropyLoss()
    rng = random.Random(seed)
    detector.train(True)
    for epoch in range(epochs):
        rng.shuffle(examples)
        total, count = 0.0, 0
        for words, spans, labels in examples:
            loss = loss_function(detector.logits(words, spans), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total, count = total + loss.item() * len(labels), count + len(labels)
        if log is not None:
            log(f"mention detector epoch {epoch + 1}: loss {total / max(1, count):.4f} on {count} candidate spans")
    detector.train(False)
    return detector.to("cpu")


def scored_spans(detectors: Sequence[MentionDetector], document: Document, words
                 ) -> list[tuple[int, int, str, float]]:
    """(first, last, kind, probability) of each candidate, as its likelier kind by the mean of the ``detectors``'
    probabilities (candidates up to the narrowest one's width)."""
    import torch

    spans = candidate_spans(document, min(detector.max_width for detector in detectors))
    if not spans:
        return []
    with torch.no_grad():
        candidates = torch.tensor(spans)
        probabilities = sum(torch.softmax(detector.logits(words, candidates), dim=1)
                            for detector in detectors) / len(detectors)
    kinds = probabilities[:, 1:].argmax(1) + 1
    best = probabilities.gather(1, kinds[:, None]).squeeze(1)
    return [(first, last, LABEL_KINDS[int(kind)], float(p)) for (first, last), kind, p in zip(spans, kinds, best)]


def kept_spans(scored: Sequence[tuple[int, int, str, float]], thresholds: dict[str, float],
               overlap: dict[str, str] | None = None) -> list[tuple[int, int, str]]:
    """The spans over their kind's threshold; of two of one kind that cross, or that overlap at all where the
    kind's ``overlap`` policy is ``flat`` (the default: ``nested``), the better stays."""
    from harmonize.resolvers.model import non_crossing, non_overlapping

    kept = []
    for kind in LABEL_KINDS.values():
        chosen = [(first, last, p) for first, last, k, p in scored if k == kind and p >= thresholds[kind]]
        survive = non_overlapping if (overlap or {}).get(kind, NESTED) == FLAT else non_crossing
        kept.extend((first, last, kind) for first, last in
                    survive([[f, ll] for f, ll, _ in chosen], [p for *_, p in chosen]))
    return sorted(kept)


def choose_thresholds(scored: Sequence[list[tuple[int, int, str, float]]], tune: Corpus,
                      log: Callable[[str], None] | None = None) -> tuple[dict[str, float], dict[str, str]]:
    """Each kind's threshold and overlap policy (`kept_spans`) with the best exact mention F1 on ``tune`` (data
    held out for choosing, never the reported split), from each of its documents' `scored_spans` (by one detector,
    or by several, each scoring documents it did not learn from); ``flat`` only where it does better."""
    gold = [{(first, last, mention_kind(m)) for m, first, last in mention_extents(document)
             if len(m.words) == last - first + 1} for document in tune.documents]
    kinds = list(LABEL_KINDS.values())
    f1: dict[tuple[str, str], dict[float, float]] = {}  # (kind, policy) -> threshold -> F1
    for policy in (NESTED, FLAT):
        for threshold in THRESHOLDS:
            found, right, wanted = Counter(), Counter(), Counter()
            for spans, expected in zip(scored, gold):
                predicted = set(kept_spans(spans, dict.fromkeys(kinds, threshold), dict.fromkeys(kinds, policy)))
                for kind in kinds:
                    mine = {s for s in predicted if s[2] == kind}
                    truth = {s for s in expected if s[2] == kind}
                    found[kind], right[kind], wanted[kind] = (found[kind] + len(mine), right[kind] + len(mine & truth),
                                                              wanted[kind] + len(truth))
            for kind in kinds:
                total = found[kind] + wanted[kind]
                f1.setdefault((kind, policy), {})[threshold] = 2 * right[kind] / total if total else 0.0
    thresholds, overlap = {}, {}
    for kind in kinds:
        best: tuple[float, str, float] | None = None  # (F1, policy, threshold)
        for policy in (NESTED, FLAT):
            threshold = middle_of_best(f1[(kind, policy)])
            if best is None or f1[(kind, policy)][threshold] > best[0] + 1e-9:
                best = (f1[(kind, policy)][threshold], policy, threshold)
        assert best is not None
        thresholds[kind], overlap[kind] = best[2], best[1]
        if log is not None:
            log(f"mention detection: {kind} threshold {best[2]}, {best[1]} (tuning mention F1 {100 * best[0]:.2f}, "
                f"contiguous mentions)")
    return thresholds, overlap


def middle_of_best(scores: dict[float, float]) -> float:
    """The threshold with the best score; of several equally good, the middle one (the safest on unseen data)."""
    best = max(scores.values())
    tied = sorted(t for t, score in scores.items() if score >= best - 1e-9)
    return tied[len(tied) // 2]


def detect_mentions(corpus: Corpus, detectors: Sequence[MentionDetector], encoded: Sequence,
                    thresholds: dict[str, float], report: Report | None = None,
                    confidence: dict[int, float] | None = None, overlap: dict[str, str] | None = None) -> Counter:
    """Replace the corpus' coreference by the mentions the ``detectors`` find together (`scored_spans`,
    `kept_spans`), each its own entity (typed ``event`` for events); ``confidence`` (where given) gets id(mention)
    -> the detectors' probability of the mention's kind."""
    from harmonize.resolvers.documents import without_coreference

    report = report if report is not None else Report()
    scored = [scored_spans(detectors, d, w) for d, w in zip(corpus.documents, encoded)]
    found = [kept_spans(spans, thresholds, overlap) for spans in scored]
    without_coreference(corpus, report)
    counts: Counter = Counter()
    for document, spans, candidates in zip(corpus.documents, found, scored):
        nodes = list(document.nodes())
        probability = {(first, last, kind): p for first, last, kind, p in candidates} if confidence is not None else {}
        for first, last, kind in spans:
            entity = document.new_entity(None, "event" if kind == "event" else None)
            mention = document.add_mention(entity, nodes[first:last + 1])
            if confidence is not None:
                confidence[id(mention)] = probability[(first, last, kind)]
            counts[f"detected {kind} mentions"] += 1
        document.entities.sort(key=lambda e: e.mentions[0].order)
    return counts


__all__ = ["MentionDetector", "choose_thresholds", "detect_mentions", "train_detector"]
