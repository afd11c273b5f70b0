"""Cross-document coreference: mentions detected (or given), clustered inside each scope by a pairwise model, and
the evaluation Cattan et al. (2021) ask for (events and entities apart; mention detection on its own, singletons
included; the coreference metrics without singletons, at the topic level).

The model: each document is read once by an encoder (MiniLM by default), frozen, in windows as the single-document
resolver reads it. Mentions are the input's (``gold_mentions``) or the detector's
(`harmonize.resolvers.mention_detection`); a mention is the mean, first and last of its words' vectors. A
pairwise scorer (a learned projection, then a small network over both projections, their product, whether the head
lemmas are the same and the cosine of the two mention vectors) is trained on the gold mention pairs of one kind
inside one scope of the training corpus, across documents and within: every coreferent pair and three times as
many others drawn at random (seeded), and, where the thresholds are chosen by cross-validation, as many pairs of a
span that a fold's detector found out of sample and that is no mention with any other (the wrong spans the model
meets on new topics, which a scorer trained on gold mentions alone never saw; the tutorial has what it changed).
The model holds ``members`` pair scorers and detectors (3 by default), each initialised and trained with its own
seed, their probabilities averaged: one network's choices and dev figures move with its seed by a CoNLL point and
more on ECB+, three move less, for three times the training time (the cross-document tutorial has the figures).
Prediction clusters each scope's mentions of each kind by average-linkage agglomerative clustering of
1 - P(coreferent), cut at a threshold chosen on training topics the model did not learn from (the best CoNLL F1
there, for gold and for detected mentions apart): by cross-validation over the training topics
(`train_model_folds`), or on topics held out (`train_model`; `harmonize.resolvers.protocol`), never on the topics
that are reported. Before the cut, the documents of a scope may be grouped (`document_groups`: by their encoder
vectors less the scope's mean, a cut chosen in the same way, or none) and mentions of two groups never linked: an
ECB+ topic holds two alike events (its subtopics) whose mentions share lemmas but hardly ever an entity (45 of
the 3,551 entities of its validated sentences span two subtopics). Memory: a scope's pair matrix is computed in blocks of rows, and a scope of more than ``MAX_CLUSTERED``
mentions of a kind (a corpus scope, typically) is clustered in blocks of whole documents, each at most that many
mentions, counted in the report: mentions of two blocks are never joined.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harmonize.errors import HarmonizeError, Report
from harmonize.resolvers.lemma import EVENT, head_lemma, mention_kind, scope_key
from harmonize.resolvers.mention_detection import (
    MentionDetector,
    choose_thresholds,
    detect_mentions,
    mention_extents,
    middle_of_best,
    scored_spans,
    train_detector,
)
from harmonize.resolvers.protocol import FOLDS, fold_count
from harmonize.resolvers.protocol import folds as topic_folds
from harmonize.schemas.model import Corpus, Mention, tree_head

KINDS = ("event", "entity")
THRESHOLDS = tuple(round(0.05 * step, 2) for step in range(1, 19))  # 0.05 .. 0.9
BLOCK = 64  # rows of a scope's pair matrix scored at once
DOCUMENTS_AT_ONCE = 8  # documents whose encoder windows run in one batch
MAX_CLUSTERED = 5000  # mentions clustered together at most (a 5000 x 5000 matrix is 100 MB)
MENTIONS = ("gold", "predicted")
MEMBERS = 3  # pair scorers and detectors whose probabilities are averaged
WEIGHTS, DESCRIPTION = "cross_document.pt", "cross_document.json"  # the model folder's files


def _lemma(mention: Mention) -> str:
    """The pair scorer's lemma: the baseline's (tree head, else last word), in lower case."""
    return head_lemma(tree_head(mention) or mention.words[-1]).lower()


@dataclass
class ScopeMentions:
    """The mentions of one scope and kind, their vectors and lemmas, and (for training) their gold entity."""

    mentions: list[Mention] = field(default_factory=list)
    vectors: list = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)


def encode_documents(corpus: Corpus, encoder_name: str, device: str = "cpu", window: int = 512,
                     context: int = 64) -> list:
    """Per document of ``corpus`` (in order), the frozen encoder's vector of each of its words ([words, dim], on
    CPU): computed once, shared by the mention detector and the pair scorer, and valid for any copy of the corpus."""
    import torch

    from harmonize.resolvers.encoders import load_encoder, pick_device
    from harmonize.resolvers.features import pool_words, subword_windows

    model, tokenizer = load_encoder(encoder_name)
    where = pick_device(device)
    model.to(where).eval()
    pieces = [subword_windows(tokenizer, list(d.nodes()), window, context) if any(True for _ in d.nodes()) else None
              for d in corpus.documents]
    encoded: list = [torch.zeros(0, model.config.hidden_size)] * len(pieces)
    with torch.no_grad():
        for start in range(0, len(pieces), DOCUMENTS_AT_ONCE):  # short documents: one encoder call for several
            batch = [(i, p) for i, p in enumerate(pieces[start:start + DOCUMENTS_AT_ONCE], start) if p is not None]
            if not batch:
                continue
            length = max(p[0].shape[1] for _, p in batch)
            windows = torch.cat([torch.nn.functional.pad(p[0], (0, length - p[0].shape[1]),
                                                         value=tokenizer.pad_token_id) for _, p in batch])
            attention = torch.cat([torch.nn.functional.pad(p[1], (0, length - p[1].shape[1])) for _, p in batch])
            states = model(input_ids=windows.to(where), attention_mask=attention.to(where)).last_hidden_state.float()
            first_row = 0
            for index, windows_of in batch:
                rows = windows_of.windows.shape[0]
                # The first subword's vector, with which the figures of the cross-document tutorial were made.
                encoded[index] = pool_words(states[first_row:first_row + rows], windows_of, "first").cpu()
                first_row += rows
    return encoded


def mention_vectors(corpus: Corpus, encoded: list) -> dict[int, object]:
    """id(mention) -> its vector: the mean, first and last of its words' vectors."""
    import torch

    result: dict[int, object] = {}
    for document, words in zip(corpus.documents, encoded):
        index = {id(n): i for i, n in enumerate(document.nodes())}
        for mention in document.mentions:
            rows = words[[index[id(w)] for w in mention.words]]
            result[id(mention)] = torch.cat([rows.mean(0), rows[0], rows[-1]])
    return result


def scopes(corpus: Corpus, scope: str, vectors: dict[int, object], report: Report | None = None
           ) -> dict[tuple, ScopeMentions]:
    """(scope, block, kind) -> its mentions in document order; a scope of more than ``MAX_CLUSTERED`` mentions of a
    kind is cut into blocks of whole documents (counted in ``report``)."""
    grouped: dict[tuple, ScopeMentions] = {}
    sizes: dict[tuple, int] = {}
    blocks: dict[tuple, int] = {}
    for document in corpus.documents:
        key = scope_key(document, scope)
        for kind in KINDS:
            mentions = [m for m in document.mentions if mention_kind(m) == kind]
            if not mentions:
                continue
            if sizes.get((*key, kind), 0) + len(mentions) > MAX_CLUSTERED and sizes.get((*key, kind), 0):
                blocks[(*key, kind)] = blocks.get((*key, kind), 0) + 1
                sizes[(*key, kind)] = 0
                if report is not None:
                    report.add(f"{scope} scope over {MAX_CLUSTERED} {kind} mentions: clustered in blocks of whole "
                               f"documents (mentions of two blocks never joined)", str(document.id))
            sizes[(*key, kind)] = sizes.get((*key, kind), 0) + len(mentions)
            group = grouped.setdefault((*key, blocks.get((*key, kind), 0), kind), ScopeMentions())
            for mention in mentions:
                group.mentions.append(mention)
                group.vectors.append(vectors[id(mention)])
                group.lemmas.append(_lemma(mention))
                group.entities.append(mention.entity.id)  # type: ignore[union-attr]
    return grouped


class PairScorer:
    """The pairwise scorer (torch module built on first use, so that importing this module needs no torch)."""

    def __init__(self, dimension: int, hidden: int = 256, seed: int = 0) -> None:
        import torch

        torch.manual_seed(seed)
        self.projection = torch.nn.Sequential(torch.nn.Linear(dimension, hidden), torch.nn.ReLU())
        self.pair = torch.nn.Sequential(torch.nn.Linear(3 * hidden + 2, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))

    def parameters(self) -> list:
        return [*self.projection.parameters(), *self.pair.parameters()]

    def to(self, device) -> PairScorer:
        self.projection.to(device)
        self.pair.to(device)
        return self

    def logits(self, left, right, same_lemma):
        """Scores of the pairs (left[k], right[k]); ``same_lemma`` 1.0 where their head lemmas are the same."""
        import torch

        similar = torch.nn.functional.cosine_similarity(left, right, dim=1)
        return self.joined(self.projection(left), self.projection(right), same_lemma, similar)

    def joined(self, a, b, same_lemma, similar):
        """Scores from projected mentions, as `logits` (so that a matrix projects each mention once)."""
        import torch

        return self.pair(torch.cat([a, b, a * b, same_lemma[:, None], similar[:, None]], dim=1)).squeeze(1)

    def state(self) -> dict:
        return {"projection": self.projection.state_dict(), "pair": self.pair.state_dict()}


def _pairs(group: ScopeMentions, rng: random.Random, negatives: int = 3, wrong: int = 0
           ) -> list[tuple[int, int, float]]:
    """Every coreferent pair of the group's mentions, ``negatives`` times as many others drawn at random, and (where
    the scope has ``wrong`` detections, numbered after the mentions) as many pairs of a wrong detection with any
    other as there are coreferent pairs: a span that is no mention corefers with nothing."""
    by_entity: dict[str, list[int]] = {}
    for index, entity in enumerate(group.entities):
        by_entity.setdefault(entity, []).append(index)
    positive = [(i, j, 1.0) for members in by_entity.values() for n, i in enumerate(members) for j in members[n + 1:]]
    size = len(group.mentions)
    wanted = min(negatives * max(1, len(positive)), size * (size - 1) // 2 - len(positive))
    negative: set[tuple[int, int]] = set()
    for _ in range(20 * wanted):
        if len(negative) >= wanted:
            break
        i, j = sorted(rng.sample(range(size), 2)) if size > 1 else (0, 0)
        if i != j and group.entities[i] != group.entities[j]:
            negative.add((i, j))
    unmentioned: set[tuple[int, int]] = set()
    wanted = min(max(1, len(positive)), wrong * (wrong - 1) // 2 + wrong * size)
    for _ in range(20 * wanted):
        if len(unmentioned) >= wanted:
            break
        i, j = size + rng.randrange(wrong), rng.randrange(size + wrong)
        if i != j:
            unmentioned.add((min(i, j), max(i, j)))
    return positive + [(i, j, 0.0) for i, j in sorted(negative | unmentioned)]


def train_pairs(groups: dict[tuple, ScopeMentions], epochs: int = 4, seed: int = 0,
                log: Callable[[str], None] | None = None, wrong: dict[tuple, ScopeMentions] | None = None,
                device: str = "cpu") -> PairScorer:
    """A pair scorer trained on the pairs of every scope and kind of the training corpus; ``wrong``: the spans a
    detector found there that are no mentions (`wrong_detections`, by the same keys), learnt as negatives. Trained
    on ``device`` (a torch device's name, where every mention vector is copied once), returned on the CPU."""
    import torch

    rng = random.Random(seed)
    vectors, examples = [], []  # examples: (row of one mention, row of the other, same lemma, label)
    for key, group in groups.items():
        spurious = (wrong or {}).get(key, ScopeMentions())
        if len(group.mentions) > 1:
            first = len(vectors)
            vectors.extend(group.vectors + spurious.vectors)
            lemmas = group.lemmas + spurious.lemmas
            for i, j, label in _pairs(group, rng, wrong=len(spurious.mentions)):
                examples.append((first + i, first + j, float(lemmas[i] == lemmas[j]), label))
    if not examples:
        raise HarmonizeError("no mention pairs to learn from (no scope has two mentions of one kind)")
    table = torch.stack(vectors).to(device)
    scorer = PairScorer(table.shape[1], seed=seed).to(device)
    optimizer = torch.optim.Adam(scorer.parameters(), lr=1e-3)
    loss_function = torch.nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        rng.shuffle(examples)
        total = 0.0
        for start in range(0, len(examples), 256):
            batch = examples[start:start + 256]
            rows = torch.tensor([(i, j) for i, j, _, _ in batch], device=device)
            same, labels = torch.tensor([(same, label) for _, _, same, label in batch], device=device).T
            loss = loss_function(scorer.logits(table[rows[:, 0]], table[rows[:, 1]], same), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
        if log is not None:
            log(f"pair scorer epoch {epoch + 1}: loss {total / len(examples):.4f} on {len(examples)} pairs")
    return scorer.to("cpu")


def probabilities(scorers: Sequence[PairScorer], group: ScopeMentions):
    """The scope's matrix of P(coreferent), the mean of the ``scorers``', computed in blocks of rows."""
    import numpy as np
    import torch

    size = len(group.mentions)
    matrix = np.zeros((size, size), dtype=np.float32)
    vectors = torch.stack(group.vectors)
    numbered: dict[str, int] = {}
    lemmas = torch.tensor([numbered.setdefault(lemma, len(numbered)) for lemma in group.lemmas])
    with torch.no_grad():
        projected = [scorer.projection(vectors) for scorer in scorers]
        unit = torch.nn.functional.normalize(vectors, dim=1, eps=1e-8)
        for start in range(0, size, BLOCK):
            end = min(size, start + BLOCK)
            rows = end - start
            same = (lemmas[start:end, None] == lemmas[None, :]).float().reshape(-1)
            similar = (unit[start:end] @ unit.T).reshape(-1)
            mean = sum(torch.sigmoid(scorer.joined(mine[start:end].repeat_interleave(size, dim=0),
                                                   mine.repeat(rows, 1), same, similar))
                       for scorer, mine in zip(scorers, projected)) / len(scorers)
            matrix[start:end] = mean.reshape(rows, size).numpy()
    return (matrix + matrix.T) / 2


LEMMA_PRIORS = (0.0, 0.6, 0.8, 1.0)  # 0: the pair scorer alone


def with_lemma_prior(matrix, group: ScopeMentions, weight: float):
    """P(coreferent) raised to ``weight`` for mentions with the same head lemma: a prior towards the same-lemma
    baseline, whose clusters the scorer's own lemma feature does not always reach (its weight is chosen on the
    tuning topics; 0 leaves the matrix as it is)."""
    import numpy as np

    if not weight:
        return matrix
    lemmas = np.array(group.lemmas, dtype=object)
    return np.maximum(matrix, weight * (lemmas[:, None] == lemmas[None, :]).astype(np.float32))


PAIR_GATES = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)  # 0: the pair scorer links every detected mention


def with_pair_gate(matrix, group: ScopeMentions, confidence: dict[int, float], gate: float):
    """The pair scorer's P(coreferent) 0 for every pair with a mention the detector found with less than ``gate``
    probability: such a mention is linked by the lemma prior alone (`with_lemma_prior`, applied after the gate), as
    the lemma baseline links it, since the scorer's links of a detected mention that is no mention are wrong links
    (the gate is chosen on the tuning topics; 0 leaves the matrix as it is). Gating the prior's links too, no gate
    ever did better than none for detected entities on ECB+'s tuning topics (the tutorial has the figures)."""
    import numpy as np

    if not gate:
        return matrix
    unsure = np.array([confidence.get(id(mention), 1.0) < gate for mention in group.mentions])
    if not unsure.any():
        return matrix
    gated = matrix.copy()
    gated[unsure, :] = 0.0
    gated[:, unsure] = 0.0
    return gated


DOCUMENT_CUTS = (0.0, 1.0, 1.1, 1.2, 1.3)  # 0: the documents of a scope are not grouped
MIN_GROUPED = 4  # fewer documents in a scope: never grouped (two documents less their mean are opposites)


def document_vectors(corpus: Corpus, encoded: list) -> dict[int, object]:
    """id(document) -> the mean of its words' vectors (documents without words have none)."""
    return {id(document): words.mean(0) for document, words in zip(corpus.documents, encoded) if len(words)}


def document_groups(corpus: Corpus, scope: str, vectors: dict[int, object], cut: float) -> dict[int, int]:
    """id(document) -> its group: inside each scope of at least ``MIN_GROUPED`` documents, average-linkage clusters
    of 1 - the cosine of the documents' vectors less the scope's mean vector (what sets a document apart from the
    others of its scope: on ECB+ a topic's two events, its subtopics), cut at ``cut`` (0: one group per scope)."""
    import numpy as np
    import torch

    by_scope: dict[tuple, list] = {}
    for document in corpus.documents:
        if id(document) in vectors:
            by_scope.setdefault(scope_key(document, scope), []).append(document)
    groups: dict[int, int] = {}
    offset = 0
    for documents in by_scope.values():
        labels = [1] * len(documents)
        if cut and len(documents) >= MIN_GROUPED:
            stacked = torch.stack([vectors[id(document)] for document in documents]).float()
            centred = torch.nn.functional.normalize(stacked - stacked.mean(0), dim=1)
            cosines = np.clip((centred @ centred.T).numpy(), -1.0, 1.0)
            labels = cut_tree(average_linkage(cosines), len(documents), cut)
        groups.update({id(document): offset + label for document, label in zip(documents, labels)})
        offset += max(labels)
    return groups


def with_document_groups(matrix, group: ScopeMentions, documents: dict[int, int] | None):
    """P(coreferent) 0 for mentions of documents in different groups (`document_groups`; none: as it is)."""
    import numpy as np

    if not documents:
        return matrix
    labels = np.array([documents[id(mention.sentence.document)] for mention in group.mentions])  # type: ignore
    apart = labels[:, None] != labels[None, :]
    if not apart.any():
        return matrix
    kept = matrix.copy()
    kept[apart] = 0.0
    return kept


def clustering_matrix(matrix, group: ScopeMentions, confidence: dict[int, float], gate: float, prior: float,
                      documents: dict[int, int] | None = None):
    """What the cut is made on: the pair gate first (`with_pair_gate`), then the lemma prior (`with_lemma_prior`),
    so that a mention under the gate keeps its same-lemma links, then the document groups (`with_document_groups`),
    so that no prior links two documents kept apart."""
    return with_document_groups(with_lemma_prior(with_pair_gate(matrix, group, confidence, gate), group, prior),
                                group, documents)


def cluster(matrix, threshold: float) -> list[int]:
    """Average-linkage clusters of 1 - P, cut at ``threshold`` (a label per mention)."""
    return cut_tree(average_linkage(matrix), matrix.shape[0], threshold)


def average_linkage(matrix):
    """The average-linkage tree of 1 - P (None for fewer than two mentions): `cut_tree` cuts it at any threshold,
    so that choosing among thresholds builds each tree once."""
    import numpy as np
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    if matrix.shape[0] < 2:
        return None
    distances = 1.0 - matrix
    np.fill_diagonal(distances, 0.0)
    return linkage(squareform(distances, checks=False), method="average")


def cut_tree(tree, size: int, threshold: float) -> list[int]:
    """The clusters of `average_linkage`'s ``tree`` of ``size`` mentions at ``threshold`` (a label per mention)."""
    from scipy.cluster.hierarchy import fcluster

    return [1] * size if tree is None else fcluster(tree, t=threshold, criterion="distance").tolist()


def write_clusters(corpus: Corpus, groups: dict[tuple, ScopeMentions], labels: dict[tuple, list[int]]) -> None:
    """Replace the corpus' entities by the clusters: ids shared across the documents of a scope; each mention keeps
    its words, head and attributes, each entity the type of its first mention (events typed ``event``)."""
    from harmonize.resolvers.documents import without_coreference

    placed = []
    for key, group in groups.items():
        for mention, label in zip(group.mentions, labels[key]):
            kind_type = EVENT if key[-1] == EVENT else mention.entity_type
            placed.append((mention.sentence.document, list(mention.words), mention.head, dict(mention.attrs),
                           kind_type, (key, label)))
    without_coreference(corpus, Report())
    numbers: dict[tuple, str] = {}
    for document, words, head, attrs, entity_type, name in placed:
        entity_id = numbers.setdefault(name, f"X{len(numbers) + 1}")
        entity = document.entity(entity_id) or document.new_entity(entity_id, entity_type)
        mention = document.add_mention(entity, words, head=head, **attrs)
        if entity_type != entity.type:
            mention.etype = entity_type  # a mention typed otherwise than its cluster keeps its own type
    for document in corpus.documents:
        document.entities.sort(key=lambda e: e.mentions[0].order)


@dataclass
class CrossDocumentModel:
    """The pair scorers and mention detectors (their probabilities averaged) and the thresholds chosen on
    held-out training topics:
    ``clustering[mentions][kind]`` (the cut of average linkage, for gold and for predicted mentions),
    ``lemma_prior[mentions][kind]`` (`with_lemma_prior`'s weight; none: 0), ``detection[kind]``,
    ``detection_overlap[kind]`` (`harmonize.resolvers.mention_detection.kept_spans`' policy; none: nested) and
    ``pair_gate[kind]`` (`with_pair_gate`'s detection probability below which a detected mention is linked by the
    lemma prior alone; none: 0) and ``document_cut[mentions][kind]`` (`document_groups`' cut; none: 0, a model
    saved before document groups)."""

    scorers: list[PairScorer]
    detectors: list[MentionDetector]
    clustering: dict[str, dict[str, float]]
    detection: dict[str, float]
    encoder: str
    scope: str
    lemma_prior: dict[str, dict[str, float]] = field(default_factory=dict)
    pair_gate: dict[str, float] = field(default_factory=dict)
    detection_overlap: dict[str, str] = field(default_factory=dict)
    document_cut: dict[str, dict[str, float]] = field(default_factory=dict)

    def resolve(self, corpus: Corpus, gold_mentions: bool = False, device: str = "cpu",
                report: Report | None = None, encoded: list | None = None) -> Counter:
        """Replace the corpus' coreference: detect mentions (or keep the input's, ``gold_mentions``) and cluster
        them inside each scope, events and entities apart."""
        for document in corpus.documents:
            scope_key(document, self.scope)  # a wrong scope fails before any work
        encoded = encoded if encoded is not None else encode_documents(corpus, self.encoder, device)
        counts: Counter = Counter()
        confidence: dict[int, float] = {}
        if not gold_mentions:
            counts.update(detect_mentions(corpus, self.detectors, encoded, self.detection, report, confidence,
                                          self.detection_overlap))
        groups = scopes(corpus, self.scope, mention_vectors(corpus, encoded), report)
        mentions = "gold" if gold_mentions else "predicted"
        cut, prior = self.clustering[mentions], self.lemma_prior.get(mentions, {})
        gate = self.pair_gate if not gold_mentions else {}
        document_cut = self.document_cut.get(mentions, {})
        vectors = document_vectors(corpus, encoded)
        grouped = {apart: document_groups(corpus, self.scope, vectors, apart) for apart in set(document_cut.values())}
        labels = {key: cluster(clustering_matrix(probabilities(self.scorers, group), group, confidence,
                                                 gate.get(key[-1], 0.0), prior.get(key[-1], 0.0),
                                                 grouped.get(document_cut.get(key[-1], 0.0))), cut[key[-1]])
                  for key, group in groups.items()}
        write_clusters(corpus, groups, labels)
        counts["documents"] += len(corpus.documents)
        counts["mentions"] += sum(len(group.mentions) for group in groups.values())
        counts["scopes"] += len({key[:-2] for key in groups})
        return counts

    def save(self, folder: str | Path) -> None:
        import json

        import torch

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        torch.save({"pair": [scorer.state() for scorer in self.scorers],
                    "detector": [detector.state() for detector in self.detectors]}, folder / WEIGHTS)
        (folder / DESCRIPTION).write_text(json.dumps(
            {"kind": "cross-document", "encoder": self.encoder, "scope": self.scope,
             "dimension": self.scorers[0].projection[0].in_features // 3, "clustering": self.clustering,
             "lemma_prior": self.lemma_prior, "pair_gate": self.pair_gate, "document_cut": self.document_cut,
             "detection": self.detection, "detection_overlap": self.detection_overlap}, indent=1)
            + "\n", encoding="utf-8")


def is_cross_document_model(folder: str | Path) -> bool:
    return (Path(folder) / DESCRIPTION).is_file()


def load_model(folder: str | Path) -> CrossDocumentModel:
    """The model `CrossDocumentModel.save` wrote (its encoder is loaded by name when it runs)."""
    import json

    import torch

    folder = Path(folder)
    try:
        description = json.loads((folder / DESCRIPTION).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise HarmonizeError(f"{folder / DESCRIPTION}: not a cross-document model description "
                             f"({type(error).__name__}: {error})") from None
    if isinstance(description, dict) and isinstance(description.get("link_gate"), dict) \
            and any(description["link_gate"].values()):
        raise HarmonizeError(f"{folder}: saved with a link gate (before 2026-11-26), which also kept the lemma "
                             f"prior's links from unsure detected mentions; models now gate the pair scorer's alone "
                             f"(pair_gate): retrain it")
    for name, depth in (("lemma_prior", 2), ("document_cut", 2), ("pair_gate", 1)):
        if isinstance(description, dict) and not _numbers_by_name(description.get(name, {}), depth):
            raise HarmonizeError(f"{folder / DESCRIPTION}: {name!r} is not a mapping of "
                                 + ("mentions to kinds to numbers" if depth == 2 else "kinds to numbers"))
    try:
        state = torch.load(folder / WEIGHTS, weights_only=True)
    except Exception as error:  # noqa: BLE001 - torch.load raises whatever its unpickler meets in a broken file
        raise HarmonizeError(f"{folder / WEIGHTS}: not the weights `resolve train --cross-document` saves "
                             f"({type(error).__name__})") from None
    try:
        scorers = []
        for pair_state in _members(state["pair"]):
            scorers.append(PairScorer(3 * description["dimension"]))
            scorers[-1].projection.load_state_dict(pair_state["projection"])
            scorers[-1].pair.load_state_dict(pair_state["pair"])
        detectors = [MentionDetector.from_state(detector_state, description["dimension"])
                     for detector_state in _members(state["detector"])]
        return CrossDocumentModel(scorers, detectors, description["clustering"], description["detection"],
                                  description["encoder"], description["scope"], description.get("lemma_prior", {}),
                                  description.get("pair_gate", {}), description.get("detection_overlap", {}),
                                  description.get("document_cut", {}))
    except (TypeError, ValueError, RuntimeError, KeyError) as error:
        raise HarmonizeError(f"{folder}: weights and description do not fit ({type(error).__name__}: "
                             f"{str(error).splitlines()[0] if str(error) else ''})") from None


def _numbers_by_name(value: object, depth: int) -> bool:
    """Whether ``value`` maps names to numbers, or (``depth`` 2) names to such mappings."""
    if not isinstance(value, dict):
        return False
    if depth == 1:
        return all(isinstance(number, (int, float)) and not isinstance(number, bool) for number in value.values())
    return all(_numbers_by_name(inner, depth - 1) for inner in value.values())


def _members(state: dict | list) -> list[dict]:
    """The members' states (a model saved before ensembles holds one, not in a list)."""
    return state if isinstance(state, list) else [state]


class TuningConll:
    """The CoNLL F1 of clusterings of one kind's mentions of the tuning part, as `kind_scores` counts it (exact
    spans, singletons left out, MUC, B3 and CEAF-e summed over the scopes), from cluster labels, without a corpus
    written and read per clustering: thresholds are chosen among a few hundred clusterings. A mention is its
    document and words; the same words twice in a document count once on each side (the scorer drops duplicates)."""

    def __init__(self, key: Corpus, scope: str, kind: str) -> None:
        self.kind = kind
        clusters: dict[tuple, set] = {}
        for document in key.documents:
            part, seen = scope_key(document, scope), set()
            for entity in document.entities:
                for mention in entity.mentions:
                    identity = _identity(mention)
                    if mention_kind(mention) == kind and identity not in seen:
                        seen.add(identity)
                        clusters.setdefault((part, entity.id), set()).add(identity)
        self.key: dict[tuple, list[frozenset]] = {}
        # id(group) -> (group, its mentions' identities): a group is scored hundreds of times; the group is held
        # so that its id is not reused
        self.identities: dict[int, tuple[ScopeMentions, list[tuple]]] = {}
        for (part, _), members in clusters.items():
            if len(members) > 1:
                self.key.setdefault(part, []).append(frozenset(members))

    def conll(self, groups: dict[tuple, ScopeMentions], labels: dict[tuple, list[int]]) -> float:
        """``labels``: (scope, block, kind) -> a cluster label per mention of ``groups``' scope (`cluster`)."""
        from harmonize.scoring.metrics import b_cubed, ceaf_e, muc

        clusters: dict[tuple, set] = {}
        for key, group in groups.items():
            if key[-1] == self.kind:
                if id(group) not in self.identities:
                    self.identities[id(group)] = (group, [_identity(mention) for mention in group.mentions])
                for identity, label in zip(self.identities[id(group)][1], labels[key]):
                    clusters.setdefault((key[:-2], key, label), set()).add(identity)
        response: dict[tuple, list[frozenset]] = {}
        for (part, *_), members in clusters.items():
            if len(members) > 1:
                response.setdefault(part, []).append(frozenset(members))
        totals = []
        for metric in (muc, b_cubed, ceaf_e):
            scores = [metric(self.key.get(part, []), response.get(part, [])) for part in {*self.key, *response}]
            totals.append(sum(scores[1:], scores[0]).f1 if scores else 0.0)
        return 100 * ((totals[0] + totals[1] + totals[2]) / 3)  # as CorpusScore.conll, to the last bit


def _identity(mention: Mention) -> tuple:
    return (mention.sentence.document.id, frozenset(w.order for w in mention.words))  # type: ignore[union-attr]


def scope_matrices(response: Corpus, encoded: list, scorers: Sequence[PairScorer], scope: str
                   ) -> tuple[dict[tuple, ScopeMentions], dict[tuple, object]]:
    """The response's scopes (`scopes`) and each one's matrix of P(coreferent) by ``scorers``."""
    groups = scopes(response, scope, mention_vectors(response, encoded))
    return groups, {key: probabilities(scorers, group) for key, group in groups.items()}


def _choose_cut(dev: Corpus, response: Corpus, groups: dict[tuple, ScopeMentions], matrices: dict[tuple, object],
                scope: str, log: Callable[[str], None] | None, what: str, vectors: dict[int, object],
                confidence: dict[int, float] | None = None
                ) -> tuple[dict[str, float], dict[str, float], dict[str, float], dict[str, float]]:
    """Each kind's clustering threshold, lemma prior (`with_lemma_prior`) and pair gate, and the document cut of
    both kinds, with the best CoNLL F1 of ``response``'s mentions (in ``groups``, scored in ``matrices``:
    `scope_matrices`, or several scorers' for the scopes each did not learn from) against ``dev`` (the tuning
    part). For each document cut (`document_groups` of ``response``'s document ``vectors``; none first), each
    kind's threshold and prior, of equally good priors the smallest; then, for detected mentions (their
    ``confidence``), the pair gate (`with_pair_gate`) and threshold with that prior, where a gate does better than
    none. The cut kept is the one whose kinds' CoNLL add up to the most, of equally good ones the smallest: the
    groups stand for what the documents are about, which both kinds' mentions tell."""
    grouped = {cut: document_groups(response, scope, vectors, cut) if cut else None for cut in DOCUMENT_CUTS}
    tunings = {kind: TuningConll(dev, scope, kind) for kind in KINDS}

    def best_cut(gate: float, prior: float, apart: float, kind: str) -> tuple[float, float]:
        trees = {key: (average_linkage(clustering_matrix(matrix, groups[key], confidence or {}, gate, prior,
                                                         grouped[apart])), matrix.shape[0])
                 for key, matrix in matrices.items() if key[-1] == kind}
        conll = {threshold: tunings[kind].conll(groups, {key: cut_tree(*tree, threshold)
                                                         for key, tree in trees.items()})
                 for threshold in THRESHOLDS}
        threshold = middle_of_best(conll)
        return conll[threshold], threshold

    def best_for(apart: float, kind: str) -> tuple[float, float, float, float]:
        """(tuning CoNLL, gate, prior, threshold) of one kind with the documents grouped at ``apart``."""
        best: tuple[float, float, float, float] | None = None
        for prior in LEMMA_PRIORS:
            score, threshold = best_cut(0.0, prior, apart, kind)
            if best is None or score > best[0] + 1e-9:
                best = (score, 0.0, prior, threshold)
        assert best is not None
        for gate in PAIR_GATES[1:] if confidence is not None else ():
            score, threshold = best_cut(gate, best[2], apart, kind)
            if score > best[0] + 1e-9:
                best = (score, gate, best[2], threshold)
        return best

    chosen: tuple[float, float, dict[str, tuple[float, float, float, float]]] | None = None  # (sum, cut, kinds)
    for apart in DOCUMENT_CUTS:
        kinds = {kind: best_for(apart, kind) for kind in KINDS}
        total = sum(best[0] for best in kinds.values())
        if chosen is None or total > chosen[0] + 1e-9:
            chosen = (total, apart, kinds)
    assert chosen is not None
    _, apart, kinds = chosen
    if log is not None:
        for kind, (score, gate, prior, threshold) in kinds.items():
            log(f"{what} mentions: {kind} clustering threshold {threshold}, lemma prior {prior}"
                + (f", pair gate {gate}" if confidence is not None else "")
                + f", document cut {apart or 'none'} (tuning CoNLL {score:.2f})")
    return ({kind: best[3] for kind, best in kinds.items()}, {kind: best[2] for kind, best in kinds.items()},
            {kind: best[1] for kind, best in kinds.items()}, {kind: apart for kind in kinds})


def train_model(train: Corpus, tune: Corpus, scope: str = "topic", encoder: str = "minilm", epochs: int = 4,
                seed: int = 0, device: str = "cpu", log: Callable[[str], None] | None = None,
                report: Report | None = None, encoded: tuple[list, list] | None = None, members: int = MEMBERS
                ) -> CrossDocumentModel:
    """Train ``members`` pair scorers on ``train``'s gold mentions and as many mention detectors on its mentions,
    then choose the detection thresholds and, for gold and for detected mentions, the clustering thresholds on
    ``tune`` (topics held out of the training data: `harmonize.resolvers.protocol.hold_out`; never the reported
    split). ``encoded``: the two corpora's word vectors where already computed. (Without folds, no detector has
    read the training topics without learning from them: the pair scorers learn no wrong detections.)"""
    train_words, tune_words = encoded or (encode_documents(train, encoder, device),
                                          encode_documents(tune, encoder, device))
    detectors = _detectors(train, train_words, epochs, seed, members, report, log, device)
    scorers = _pair_scorers(train, train_words, scope, epochs, seed, members, None, log, device)
    parts = [(tune, tune_words, scorers, detectors)]
    detection = _detection(parts, log)
    return _model(scorers, detectors, _choose(parts, detection, _detect(parts, detection), scope, log), encoder,
                  scope)


def train_model_folds(train: Corpus, folds: int = FOLDS, scope: str = "topic", encoder: str = "minilm",
                      epochs: int = 4, seed: int = 0, device: str = "cpu", log: Callable[[str], None] | None = None,
                      report: Report | None = None, encoded: list | None = None, members: int = MEMBERS
                      ) -> CrossDocumentModel:
    """`train_model` with its thresholds chosen by cross-validation over the training topics (the default of
    ``validate`` and of ``resolve train`` without ``--dev``): each of ``folds`` sets of detectors learns from the
    other folds' topics and detects mentions in its own; the detection thresholds are chosen on all the training
    topics so detected, and the spans detected there that are no mentions (out of sample, as the model will meet
    them) are learnt as negative pairs by each fold's pair scorers (from the other folds' topics) and by the model's;
    the clustering thresholds are chosen on all the training topics scored by the fold that did not learn them, and
    the model kept learns from every training topic. (Chosen on four held-out topics, the thresholds did not carry
    to others: detected entities stayed below the lemma baseline on dev.) Fewer training topics than ``folds``: as
    many folds as topics. ``encoded``: ``train``'s word vectors where already computed."""
    folds = fold_count(train, folds)
    splits = topic_folds(train, folds)  # too few topics fail before any work
    words = encoded or encode_documents(train, encoder, device)
    vectors = {id(document): w for document, w in zip(train.documents, words)}
    parts = []
    for number, split in enumerate(splits, 1):
        fold_log = None if log is None else (lambda line, n=number: log(f"fold {n}/{folds}: {line}"))
        detectors = _detectors(split.fit, [vectors[id(d)] for d in split.fit.documents], epochs, seed, members,
                               Report(), fold_log, device)
        parts.append((split.tune, [vectors[id(d)] for d in split.tune.documents], [], detectors))
    detection = _detection(parts, log)
    detected = _detect(parts, detection)
    wrong = wrong_detections(Corpus(documents=[d for held, *_ in parts for d in held.documents]),
                             Corpus(documents=[d for found in detected[0] for d in found.documents]),
                             [w for _, held_words, *_ in parts for w in held_words], scope, log)
    for number, (split, (_, _, scorers, _)) in enumerate(zip(splits, parts), 1):
        fold_log = None if log is None else (lambda line, n=number: log(f"fold {n}/{folds}: {line}"))
        scorers.extend(_pair_scorers(split.fit, [vectors[id(d)] for d in split.fit.documents], scope, epochs, seed,
                                     members, wrong, fold_log, device))
    choices = _choose(parts, detection, detected, scope, log)
    return _model(_pair_scorers(train, words, scope, epochs, seed, members, wrong, log, device),
                  _detectors(train, words, epochs, seed, members, report, log, device), choices, encoder, scope)


def wrong_detections(key: Corpus, detected: Corpus, words: list, scope: str,
                     log: Callable[[str], None] | None = None) -> dict[tuple, ScopeMentions]:
    """The mentions of ``detected`` (a copy of ``key`` with a detector's mentions, `_detect`) that are no mention of
    ``key``'s (by first and last word), grouped as `scopes` groups them (``words``: the documents' word vectors)."""
    wrong: set[int] = set()
    for document, found in zip(key.documents, detected.documents):
        extents = {(first, last) for _, first, last in mention_extents(document)}
        wrong.update(id(mention) for mention, first, last in mention_extents(found) if (first, last) not in extents)
    groups = {}
    for group_key, group in scopes(detected, scope, mention_vectors(detected, words)).items():
        kept = [i for i, mention in enumerate(group.mentions) if id(mention) in wrong]
        if kept:
            groups[group_key] = ScopeMentions(*([column[i] for i in kept] for column in
                                                (group.mentions, group.vectors, group.lemmas, group.entities)))
    if log is not None:
        log(f"{len(wrong)} spans detected out of sample that are no mentions: learnt as negative pairs")
    return groups


def _detectors(corpus: Corpus, words: list, epochs: int, seed: int, members: int, report: Report | None,
               log: Callable[[str], None] | None, device: str) -> list[MentionDetector]:
    """``members`` mention detectors trained on ``corpus`` (``words``: its documents' word vectors) on ``device``,
    member m with seed ``seed + 1000 m`` (so that the first is the one-member model of ``seed``, and the members of
    seeds 0 and 1 differ)."""
    if members < 1:
        raise HarmonizeError(f"a cross-document model needs at least one member, not {members}")
    return [train_detector(corpus, words, 2 * epochs, seed + 1000 * member, report if member == 0 else Report(),
                           _member_log(log, member, members), device=_torch_device(device))
            for member in range(members)]


def _pair_scorers(corpus: Corpus, words: list, scope: str, epochs: int, seed: int, members: int,
                  wrong: dict[tuple, ScopeMentions] | None, log: Callable[[str], None] | None,
                  device: str) -> list[PairScorer]:
    """``members`` pair scorers trained on ``corpus``' gold mentions and the ``wrong`` detections of its scopes
    (`wrong_detections`, perhaps of a larger corpus: other scopes' are not read) on ``device``, seeded as
    `_detectors` (which are trained first, and refuse fewer than one member)."""
    groups = scopes(corpus, scope, mention_vectors(corpus, words))
    return [train_pairs(groups, epochs, seed + 1000 * member, _member_log(log, member, members), wrong,
                        _torch_device(device)) for member in range(members)]


def _torch_device(device: str) -> str:
    """The torch device that ``device`` (``auto``, ``cpu``, ``cuda``) names here."""
    from harmonize.resolvers.encoders import pick_device

    return str(pick_device(device))


def _member_log(log: Callable[[str], None] | None, member: int, members: int) -> Callable[[str], None] | None:
    return log if members == 1 or log is None else (lambda line: log(f"member {member + 1}: {line}"))


def _detection(parts: list[tuple[Corpus, list, list[PairScorer], list[MentionDetector]]],
               log: Callable[[str], None] | None) -> tuple[dict[str, float], dict[str, str]]:
    """The detection thresholds and overlap policies chosen on the tuning parts (each: documents, their word
    vectors, the pair scorers and the detectors that did not learn from them), all together."""
    tune = Corpus(documents=[d for held, *_ in parts for d in held.documents])
    return choose_thresholds([scored_spans(detectors, d, w) for held, words, _, detectors in parts
                              for d, w in zip(held.documents, words)], tune, log)


def _detect(parts: list[tuple[Corpus, list, list[PairScorer], list[MentionDetector]]],
            detection: tuple[dict[str, float], dict[str, str]]) -> tuple[list[Corpus], dict[int, float]]:
    """A copy of each tuning part (as `_detection`'s) with the mentions its detectors find (``detection``), and
    id(mention) -> the detectors' probability of it."""
    from harmonize.resolvers.neural import fresh_copy

    thresholds, overlap = detection
    detected = []
    confidence: dict[int, float] = {}
    for held, words, _, detectors in parts:
        detected.append(fresh_copy(held))
        detect_mentions(detected[-1], detectors, words, thresholds, confidence=confidence, overlap=overlap)
    return detected, confidence


def _choose(parts: list[tuple[Corpus, list, list[PairScorer], list[MentionDetector]]],
            detection: tuple[dict[str, float], dict[str, str]], detected: tuple[list[Corpus], dict[int, float]],
            scope: str, log: Callable[[str], None] | None) -> tuple[dict[str, float], dict[str, str], dict[str, tuple]]:
    """For gold and detected mentions (``detection``: `_detection`'s; ``detected``: `_detect`'s), the cuts
    (`_choose_cut`) on the tuning parts (as `_detection`'s), chosen on all of them together."""
    tune = Corpus(documents=[d for held, *_ in parts for d in held.documents])
    found, confidence = detected
    matrices: dict[str, tuple[dict, dict]] = {"gold": ({}, {}), "predicted": ({}, {})}
    vectors: dict[int, object] = {}
    for (held, words, scorers, _), part in zip(parts, found):
        for what, corpus in (("gold", held), ("predicted", part)):
            groups, scored = scope_matrices(corpus, words, scorers, scope)
            matrices[what][0].update(groups)
            matrices[what][1].update(scored)
            vectors.update(document_vectors(corpus, words))
    response = Corpus(documents=[d for part in found for d in part.documents])
    return *detection, {
        "gold": _choose_cut(tune, tune, *matrices["gold"], scope, log, "gold", vectors),
        "predicted": _choose_cut(tune, response, *matrices["predicted"], scope, log, "predicted", vectors,
                                 confidence)}


def _model(scorers: list[PairScorer], detectors: list[MentionDetector],
           choices: tuple[dict[str, float], dict[str, str], dict[str, tuple]], encoder: str, scope: str
           ) -> CrossDocumentModel:
    detection, overlap, cuts = choices
    return CrossDocumentModel(scorers, detectors, {what: cut for what, (cut, *_) in cuts.items()}, detection,
                              encoder, scope, {what: prior for what, (_, prior, *_) in cuts.items()},
                              cuts["predicted"][2], overlap, {what: apart for what, (*_, apart) in cuts.items()})


def train_cross_document(train: Corpus, dev: Corpus | None, scope: str = "topic", encoder: str = "minilm",
                         epochs: int = 4, seed: int = 0, device: str = "cpu", log: Callable[[str], None] | None = None,
                         report: Report | None = None, folds: int = FOLDS, members: int = MEMBERS
                         ) -> CrossDocumentModel:
    """What ``harmonize resolve train --cross-document`` trains: its thresholds chosen on ``dev`` where one is given
    (`train_model`), else by ``folds``-fold cross-validation over the training topics (`train_model_folds`)."""
    if dev is None and folds < 2:
        raise HarmonizeError("cross-document training chooses its thresholds by cross-validation (folds 2 or more) "
                             "or on a dev corpus: give one")
    if dev is None:
        return train_model_folds(train, folds, scope, encoder, epochs, seed, device, log, report, members=members)
    return train_model(train, dev, scope, encoder, epochs, seed, device, log, report, members=members)


__all__ = ["CrossDocumentModel", "encode_documents", "is_cross_document_model", "load_model", "train_cross_document",
           "train_model", "train_model_folds"]
