"""The evaluation protocol of the resolvers: everything a resolver chooses (the epoch it keeps, its clustering and
detection thresholds) is chosen on a part of the training data held out for it, never on the split that is
reported. Dev is scored untouched, and a further split (``--test``) likewise.

The held-out part is fixed, not drawn: the training documents (or, for cross-document coreference, the training
topics, so that no topic is both learnt and tuned on) in sorted order of their ids, every ``round(1 / fraction)``-th
from the middle of the first stride. Rerunning gives the same part.
"""

from __future__ import annotations

from dataclasses import dataclass

from harmonize.errors import HarmonizeError
from harmonize.schemas.model import Corpus, Document

TUNE_FRACTION = 0.15  # of the training documents (or topics) held out for choosing


@dataclass
class Split:
    """Training data cut for the protocol: ``fit`` is learnt from, ``tune`` chooses; ``by`` says what was held out
    (``document`` or ``topic``) and ``held_out`` which."""

    fit: Corpus
    tune: Corpus
    by: str
    held_out: list[str]

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
    keys = sorted({_key(d, by) for d in train.documents}, key=lambda k: (len(k), k) if k.isdigit() else (0, k))
    stride = max(2, round(1 / fraction))
    if len(keys) < 2:
        if by == "topic":
            raise HarmonizeError(f"training data of {len(keys)} topic(s): cross-document thresholds are chosen on "
                                 "training topics held out, so training needs two topics or more")
        return Split(train, Corpus(meta=dict(train.meta)), by, [])
    held = set(keys[stride // 2::stride]) or {keys[-1]}
    fit = Corpus(documents=[d for d in train.documents if _key(d, by) not in held], meta=dict(train.meta))
    tune = Corpus(documents=[d for d in train.documents if _key(d, by) in held], meta=dict(train.meta))
    return Split(fit, tune, by, [k for k in keys if k in held])


def select_topics(corpus: Corpus, topics: str | None) -> tuple[Corpus, Corpus]:
    """``corpus`` cut by topic: (the documents of the comma-separated ``topics``, the others)."""
    chosen = {t.strip() for t in (topics or "").split(",") if t.strip()}
    return (Corpus(documents=[d for d in corpus.documents if d.topic in chosen]),
            Corpus(documents=[d for d in corpus.documents if d.topic not in chosen]))
