"""The evaluation protocol of the resolvers: everything a resolver chooses (the epoch it keeps, its clustering and
detection thresholds) is chosen on a part of the training data held out for it, never on the split that is
reported. Dev is scored untouched, and a further split (``--test``) likewise.

The held-out part is fixed, not drawn: the training documents (or, for cross-document coreference, the training
topics, so that no topic is both learnt and tuned on) in sorted order of their ids, every ``round(1 / fraction)``-th
from the middle of the first stride. Rerunning gives the same part. Cross-document thresholds are chosen by
cross-validation over the training topics by default (`folds`): every training topic is then scored by a model that
never saw it, and the thresholds are chosen on all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from harmonize.errors import HarmonizeError
from harmonize.schemas.model import Corpus, Document

TUNE_FRACTION = 0.15  # of the training documents (or topics) held out for choosing
FOLDS = 5  # cross-validation folds over the training topics (cross-document thresholds)


@dataclass
class Split:
    """Training data cut for the protocol: ``fit`` is learnt from, ``tune`` chooses; ``by`` says what was held out
    (``document`` or ``topic``) and ``held_out`` which."""

    fit: Corpus
    tune: Corpus
    by: str
    held_out: list[str]

    @property
    def tuning(self) -> Corpus | None:
        """What to choose on: ``tune``, or None where nothing was held out (the last epoch is then kept)."""
        return self.tune if self.held_out else None

    def describe(self, chosen: str, reported: list[str]) -> str:
        """One line: what was learnt from, what ``chosen`` was chosen on, what is reported."""
        units = "topics" if self.by == "topic" else "documents"
        if not self.held_out:
            return (f"protocol: trained on {len(self.fit.documents)} train document(s), too few to hold any out: "
                    f"nothing chosen, the last epoch kept; reported: {' and '.join(reported)}, untouched")
        shown = ", ".join(self.held_out[:8]) + (", ..." if len(self.held_out) > 8 else "")
        return (f"protocol: trained on {len(self.fit.documents)} train documents; {chosen} chosen on "
                f"{len(self.held_out)} train {units} held out ({shown}: {len(self.tune.documents)} documents); "
                f"reported: {' and '.join(reported)}, untouched")


def _key(document: Document, by: str) -> str:
    if by == "topic":
        if document.topic is None:
            raise HarmonizeError(f"document {document.id!r} has no topic: topics are held out for cross-document "
                                 "tuning")
        return document.topic
    return str(document.id)


def hold_out(train: Corpus, by: str = "document", fraction: float = TUNE_FRACTION) -> Split:
    """Cut ``train`` into a part to learn from and a part to choose on (see the module); a single training
    document is all learnt from (nothing held out, nothing chosen)."""
    keys = _sorted_keys(train, by)
    stride = max(2, round(1 / fraction))
    if len(keys) < 2:
        if by == "topic":
            raise HarmonizeError(f"training data of {len(keys)} topic(s): cross-document thresholds are chosen on "
                                 "training topics held out, so training needs two topics or more")
        return Split(train, Corpus(meta=dict(train.meta)), by, [])
    return _split(train, by, keys, set(keys[stride // 2::stride]) or {keys[-1]})


def _sorted_keys(train: Corpus, by: str) -> list[str]:
    return sorted({_key(d, by) for d in train.documents}, key=lambda k: (len(k), k) if k.isdigit() else (0, k))


def _split(train: Corpus, by: str, keys: list[str], held: set[str]) -> Split:
    fit = Corpus(documents=[d for d in train.documents if _key(d, by) not in held], meta=dict(train.meta))
    tune = Corpus(documents=[d for d in train.documents if _key(d, by) in held], meta=dict(train.meta))
    return Split(fit, tune, by, [k for k in keys if k in held])


def fold_count(train: Corpus, wanted: int, by: str = "topic") -> int:
    """The folds `folds` cuts ``train`` into when ``wanted``: as many, or one a topic (document) where there are
    fewer."""
    return min(wanted, len({_key(d, by) for d in train.documents}))


def folds(train: Corpus, count: int, by: str = "topic") -> list[Split]:
    """``train`` cut ``count`` ways for cross-validation: each `Split` holds one part out (every ``count``-th topic,
    or document, in the sorted order `hold_out` uses) and learns from the rest; every topic is held out once."""
    keys = _sorted_keys(train, by)
    if count < 2 or len(keys) < count:
        units = "topics" if by == "topic" else "documents"
        raise HarmonizeError(f"{count}-fold cross-validation needs at least 2 folds and {max(2, count)} training "
                             f"{units} ({len(keys)} given)")
    return [_split(train, by, keys, set(keys[start::count])) for start in range(count)]


def cross_validation_line(count: int, train: Corpus, chosen: str, reported: list[str]) -> str:
    """`Split.describe`'s line for ``chosen`` chosen by ``count``-fold cross-validation over ``train``'s topics."""
    topics = len({d.topic for d in train.documents})
    return (f"protocol: trained on {len(train.documents)} train documents; {chosen} chosen by {count}-fold "
            f"cross-validation over the {topics} train topics (each scored by a model that never saw it); reported: "
            f"{' and '.join(reported)}, untouched")


def select_topics(corpus: Corpus, topics: str | None) -> tuple[Corpus, Corpus]:
    """``corpus`` cut by topic: (the documents of the comma-separated ``topics``, the others)."""
    chosen = {t.strip() for t in (topics or "").split(",") if t.strip()}
    return (Corpus(documents=[d for d in corpus.documents if d.topic in chosen]),
            Corpus(documents=[d for d in corpus.documents if d.topic not in chosen]))
