"""The neural resolver: an encoder, a span scorer for mention detection (nested spans within a sentence), and an
antecedent scorer over the mentions with a dummy antecedent (score 0) that stands for "starts a new entity".

A word's vector is the encoder's (the mean of its subwords', `features.pool_words`) plus an embedding of each of its
tags (UPOS, relation, Number, Gender, Person; `features.word_tags`, each from zero). The tags were chosen on GUM's
held-out train documents (5 epochs on a GPU, seeds 3, 7, 11, 42): CoNLL 54.82 with them against 53.56 without,
mention F1 79.66 against 78.55. An embedding of whether a pair agrees in Number, Gender and Person scored lower
there (beside the tags 54.45 against 54.82, the same seeds; alone 53.17 against 53.32, seeds 3, 7, 42) and is not
used.

200 antecedents and the sentence distance were chosen the same way (5 epochs on a GPU, seeds 3, 7, 11, 42, the
tags in every run; held-out CoNLL, the mean): 50 antecedents 54.87, 100 56.63 (two runs), 150 57.23, 200 57.10
(two runs), 400 57.33; the sentence distance added 0.49 at 50, 0.30 at 100, 0.28 at 200, 0.20 at 400. 400 gains
little for a slower step on a CPU, which has an hour (GUM's four longest documents: 29.4 s a pass at 400, 22.8 at
200, 16.7 at 50). A wider pair scorer (hidden 512) scored 53.92 and is not used.

Mention detection scores every candidate span from its first and last word (a biaffine product plus a width bias
and a bias for its place in the dependency tree, `features.span_syntax`) and is trained with a binary loss against
the gold spans. A mention's vector holds its first, last and root words, an attention-weighted sum of its words, its
width and its place in the tree. Antecedent selection is coarse-to-fine: a bilinear score keeps each mention's
``max_antecedents`` best earlier mentions, a feed-forward scorer over the pair (both mentions, their product, the
distance in mentions and in sentences, whether the speakers are the same, and whether the two have the same words
and the same root lemma) refines them, and training maximises the probability of the gold antecedents (any earlier
mention of the same entity, else the dummy). Training uses the gold mentions for antecedents, prediction the
detected ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch
from torch import nn

from harmonize.resolvers.features import (
    OTHER_SPEAKER,
    SAME_SPEAKER,
    SYNTAX_CLASSES,
    TAG_VALUES,
    UNKNOWN_SPEAKER,
    DocumentFeatures,
    mention_keys,
    pool_words,
    span_positions,
    span_syntax,
)


@dataclass
class ResolverConfig:
    """What defines a trained resolver besides its weights (saved as config.json beside them)."""

    encoder: str = "minilm"
    window: int = 512
    context: int = 64
    max_width: int = 30
    max_antecedents: int = 200
    hidden: int = 256
    encoder_batch: int = 8  # windows per encoder call
    mention_threshold: float = 0.0  # a span is a mention where its logit exceeds this
    mentions_per_word: float = 0.5  # at most this many detected mentions per word, the best kept
    sentence_distance: bool = True  # a pair feature; False in models saved before it (their config.json lacks it)
    word_pooling: str = "mean"  # `WORD_POOLING`; "first" in models saved before it (their config.json lacks it)

    def to_json(self) -> dict:
        return asdict(self)


def distance_bucket(distance: torch.Tensor) -> torch.Tensor:
    """0..9: 1, 2, 3, 4, 5-7, 8-15, 16-31, 32-63, 64+ (log-scaled, as in e2e-coref), 0 for 0."""
    bucket = torch.where(distance < 5, distance, 3 + torch.log2(distance.clamp(min=1).float()).long())
    return bucket.clamp(0, 9)


def _feed_forward(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.GELU(), nn.Dropout(0.1), nn.Linear(hidden, outputs))


class Resolver(nn.Module):
    def __init__(self, encoder: nn.Module, config: ResolverConfig):
        super().__init__()
        self.encoder = encoder
        self.config = config
        size, hidden = encoder.config.hidden_size, config.hidden
        self.span_start = _feed_forward(size, hidden, hidden)
        self.span_end = _feed_forward(size, hidden, hidden)
        self.start_bias = nn.Linear(size, 1)
        self.end_bias = nn.Linear(size, 1)
        self.width_bias = nn.Embedding(config.max_width, 1)
        self.syntax_bias = nn.Embedding(SYNTAX_CLASSES, 1)
        self.width = nn.Embedding(config.max_width + 1, 32)  # the last one for every longer gold mention
        self.syntax = nn.Embedding(SYNTAX_CLASSES, 16)
        self.attention = nn.Linear(size, 1)
        self.mention = nn.Linear(4 * size + 32 + 16, hidden)
        self.coarse = nn.Linear(hidden, hidden, bias=False)
        self.distance = nn.Embedding(10, 32)
        self.speaker = nn.Embedding(3, 16)
        self.match = nn.Embedding(4, 16)  # same words (2) x same root lemma (1)
        self.tags = nn.ModuleList(nn.Embedding(len(values) + 1, size) for values in TAG_VALUES)
        for embedding in self.tags:  # from zero, so that training starts from the encoder's own vectors
            nn.init.zeros_(embedding.weight)
        self.sentence_distance = nn.Embedding(10, 32) if config.sentence_distance else None
        self.pair = _feed_forward(3 * hidden + 32 + 16 + 16 + (32 if config.sentence_distance else 0), hidden, 1)

    # -- encoder ------------------------------------------------------------------------------------------------
    def word_vectors(self, features: DocumentFeatures, device: torch.device) -> torch.Tensor:
        """[nodes, hidden size]: each node's subwords in its most central window, pooled (`pool_words`), plus its
        tags' embeddings."""
        outputs = []
        for first in range(0, len(features.windows), self.config.encoder_batch):
            ids = features.windows[first:first + self.config.encoder_batch].to(device)
            mask = features.attention[first:first + self.config.encoder_batch].to(device)
            # Mixed precision on CUDA for the encoder only: the scorers' log-sum-exps stay in float32.
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda"):
                outputs.append(self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state)
        words = pool_words(torch.cat(outputs), features, self.config.word_pooling).float()
        tags = features.tags.to(device)
        return words + sum(embedding(tags[:, column]) for column, embedding in enumerate(self.tags))

    # -- mentions -----------------------------------------------------------------------------------------------
    def start_detection_at(self, rate: float) -> None:
        """Start every span's mention probability near ``rate`` (the training data's share of mentions among the
        candidates): its log-odds as a bias, as detectors of rare things start (RetinaNet's prior). From 0 (even
        odds), the first steps go on learning that nearly no span is a mention, and a short budget ends before any
        span scores above the threshold: on GUM's held-out training documents, 3 CPU minutes (one epoch) gave
        mention F1 5.88 and CoNLL 4.13 from 0, 29.47 and 21.75 from the prior."""
        rate = min(max(rate, 1e-6), 0.5)
        with torch.no_grad():
            self.start_bias.bias.fill_(float(torch.logit(torch.tensor(rate))))

    def span_logits(self, words: torch.Tensor, spans: torch.Tensor, syntax: torch.Tensor) -> torch.Tensor:
        first, last = spans[:, 0], spans[:, 1]
        start, end = self.span_start(words), self.span_end(words)
        return ((start[first] * end[last]).sum(-1) + self.start_bias(words)[first, 0] + self.end_bias(words)[last, 0]
                + self.width_bias((last - first).clamp(max=self.config.max_width - 1))[:, 0]
                + self.syntax_bias(syntax)[:, 0])

    def mention_vectors(self, words: torch.Tensor, spans: torch.Tensor, syntax: torch.Tensor,
                        roots: torch.Tensor) -> torch.Tensor:
        """[mentions, hidden]: first, last and root word, an attention-weighted sum of its words, its width, its
        place in the tree."""
        first, last = spans[:, 0], spans[:, 1]
        widths = last - first + 1
        inside, positions = span_positions(first, last, len(words))
        scores = self.attention(words)[positions, 0].masked_fill(~inside, float("-inf"))
        pooled = (scores.softmax(-1)[..., None] * words[positions]).sum(1)
        width = self.width((widths - 1).clamp(max=self.config.max_width))
        return self.mention(torch.cat([words[first], words[last], words[roots], pooled, width, self.syntax(syntax)],
                                      -1))

    # -- antecedents --------------------------------------------------------------------------------------------
    def antecedent_scores(self, mentions: torch.Tensor, speakers: torch.Tensor, sentences: torch.Tensor,
                          keys: torch.Tensor):
        """(candidates [mentions, k], scores [mentions, k], valid [mentions, k]) for each mention's k best earlier
        mentions; ``speakers`` holds a speaker index per mention (-1 unknown), ``sentences`` its sentence's number,
        ``keys`` its `mention_keys`."""
        count = len(mentions)
        k = min(self.config.max_antecedents, max(count - 1, 1))
        earlier = torch.ones(count, count, dtype=torch.bool, device=mentions.device).tril(-1)
        coarse = (self.coarse(mentions) @ mentions.T).masked_fill(~earlier, float("-inf"))
        coarse_top, candidates = coarse.topk(k, dim=1)
        valid = coarse_top > float("-inf")
        distance = distance_bucket((torch.arange(count, device=mentions.device)[:, None] - candidates).clamp(min=0))
        anaphor_speaker, antecedent_speaker = speakers[:, None].expand_as(candidates), speakers[candidates]
        speaker = torch.where((anaphor_speaker < 0) | (antecedent_speaker < 0), UNKNOWN_SPEAKER,
                              torch.where(anaphor_speaker == antecedent_speaker, SAME_SPEAKER, OTHER_SPEAKER))
        same = (keys[:, None, :] == keys[candidates]).long()
        pair_features = [(self.distance, distance), (self.speaker, speaker),
                         (self.match, 2 * same[..., 0] + same[..., 1])]
        if self.sentence_distance is not None:
            apart = (sentences[:, None] - sentences[candidates]).clamp(min=0)
            pair_features.append((self.sentence_distance, distance_bucket(apart)))
        pair = self.pair_scores(mentions, candidates, pair_features)
        scores = (coarse_top.masked_fill(~valid, 0) + pair).masked_fill(~valid, float("-inf"))
        return candidates, scores, valid

    def pair_scores(self, mentions: torch.Tensor, candidates: torch.Tensor,
                    pair_features: list[tuple[nn.Embedding, torch.Tensor]]) -> torch.Tensor:
        """[mentions, k]: ``self.pair`` over each mention and each of its ``candidates`` [mentions, k]: over both
        mentions, their product and the embeddings of ``pair_features`` ((embedding, indices [mentions, k]), in
        order), concatenated. Its first layer is applied a part at a time, so that only the product is multiplied
        per pair (the two mentions once each, each embedding table once): the same scores as over the
        concatenation, for a third of its multiplications and about half its memory (GUM's longest documents
        hold 100,000 pairs and more). The features' parts are summed in one table over all their combinations
        (1,200 rows), so that a pair takes them in one lookup, and the parts are added in place."""
        first = self.pair[0]
        count, k = candidates.shape
        size, hidden_size = mentions.shape[1], first.out_features
        weights = first.weight.split([size, size, size, *(e.embedding_dim for e, _ in pair_features)], 1)
        table, combination = first.bias[None], torch.zeros_like(candidates)
        for (embedding, indices), weight in zip(pair_features, weights[3:]):
            table = (table[:, None] + (embedding.weight @ weight.T)[None]).flatten(0, 1)
            combination = combination * embedding.num_embeddings + indices
        hidden = (mentions @ weights[1].T)[candidates]
        hidden += (mentions @ weights[0].T)[:, None]
        hidden += table[combination]
        product = (mentions[:, None] * mentions[candidates]).view(-1, size)
        hidden = hidden.view(-1, hidden_size).addmm_(product, weights[2].T).view(count, k, hidden_size)
        return self.pair[1:](hidden)[..., 0]

    # -- training -----------------------------------------------------------------------------------------------
    def loss(self, features: DocumentFeatures, device: torch.device) -> tuple[torch.Tensor, dict[str, float]]:
        """Mention detection loss (binary, over the candidate spans) plus antecedent loss (negative log of the
        gold antecedents' probability, the dummy's where there is none), each summed per gold mention."""
        words = self.word_vectors(features, device)
        spans = features.candidates.to(device)
        gold_spans = features.gold_spans.to(device)
        gold_entities = features.gold_entities.to(device)
        logits = self.span_logits(words, spans, features.candidate_syntax.to(device).long())
        gold_keys = set(map(tuple, features.gold_spans.tolist()))
        targets = torch.tensor([tuple(s) in gold_keys for s in features.candidates.tolist()], dtype=torch.float,
                               device=device)
        count = max(len(gold_spans), 1)
        mention_loss = nn.functional.binary_cross_entropy_with_logits(logits, targets, reduction="sum") / count
        if len(gold_spans) < 2:
            return mention_loss, {"mentions": float(mention_loss.detach()), "antecedents": 0.0}
        candidates, scores, valid = self._antecedents(features, words, features.gold_spans, device)
        gold = (gold_entities[candidates] == gold_entities[:, None]) & valid
        dummy = torch.zeros(len(scores), 1, device=device)
        all_scores = torch.cat([dummy, scores], 1)
        gold_scores = torch.cat([dummy.masked_fill(gold.any(1, keepdim=True), float("-inf")),
                                 scores.masked_fill(~gold, float("-inf"))], 1)
        antecedent_loss = (all_scores.logsumexp(1) - gold_scores.logsumexp(1)).sum() / count
        return mention_loss + antecedent_loss, {"mentions": float(mention_loss.detach()),
                                                "antecedents": float(antecedent_loss.detach())}

    def _antecedents(self, features: DocumentFeatures, words: torch.Tensor, spans: torch.Tensor,
                     device: torch.device):
        """`antecedent_scores` of ``spans`` (given on the CPU, in document order)."""
        syntax, roots = span_syntax(features, spans)
        keys = mention_keys(features, spans, roots).to(device)
        spans, syntax, roots = spans.to(device), syntax.to(device), roots.to(device)
        mentions = self.mention_vectors(words, spans, syntax, roots)
        sentences = features.sentences.to(device)[spans[:, 0]]
        return self.antecedent_scores(mentions, self._speaker_ids(features, spans), sentences, keys)

    @staticmethod
    def _speaker_ids(features: DocumentFeatures, spans: torch.Tensor) -> torch.Tensor:
        names: dict[str, int] = {}
        ids = [-1 if s is None else names.setdefault(s, len(names)) for s in features.speakers]
        return torch.tensor(ids, device=spans.device)[spans[:, 0]]

    # -- prediction ---------------------------------------------------------------------------------------------
    @torch.no_grad()
    def predict(self, features: DocumentFeatures, device: torch.device) -> tuple[list[tuple[int, int]], list[int]]:
        """(mention spans in document order, each one's antecedent index or -1 for a new entity)."""
        words = self.word_vectors(features, device)
        spans = features.candidates.to(device)
        logits = self.span_logits(words, spans, features.candidate_syntax.to(device).long())
        above = logits > self.config.mention_threshold
        spans, logits = spans[above], logits[above]
        most = max(1, int(self.config.mentions_per_word * len(words)))
        if len(logits) > most:  # a bound on the antecedent matrix, as e2e-coref prunes
            best = logits.topk(most).indices
            spans, logits = spans[best], logits[best]
        chosen = non_crossing(spans.tolist(), logits.tolist())
        if not chosen:
            return [], []
        candidates, scores, _ = self._antecedents(features, words, torch.tensor(chosen), device)
        best_score, best = scores.max(1)
        antecedents = torch.where(best_score > 0, candidates.gather(1, best[:, None])[:, 0], -1)
        return [tuple(s) for s in chosen], antecedents.tolist()


def non_crossing(spans: list[list[int]], scores: list[float]) -> list[tuple[int, int]]:
    """The spans that survive, best first, when a span crossing an already kept one (overlapping without
    nesting) is dropped; in document order (first word, longer first)."""
    return _best_first(spans, scores, lambda first, last, f, l: not (
        last < f or first > l or (f <= first and last <= l) or (first <= f and l <= last)))


def non_overlapping(spans: list[list[int]], scores: list[float]) -> list[tuple[int, int]]:
    """As `non_crossing`, but a span overlapping an already kept one in any way (nested too) is dropped."""
    return _best_first(spans, scores, lambda first, last, f, l: not (last < f or first > l))


def _best_first(spans: list[list[int]], scores: list[float], clash: Callable[[int, int, int, int], bool]
                ) -> list[tuple[int, int]]:
    """The spans kept, best score first, each unless it ``clash``es with one kept before; in document order."""
    kept: list[tuple[int, int]] = []
    for index in sorted(range(len(spans)), key=lambda i: -scores[i]):
        first, last = spans[index]
        if not any(clash(first, last, f, l) for f, l in kept):
            kept.append((first, last))
    return sorted(kept, key=lambda s: (s[0], -s[1]))
