"""Real data against perturbed copies of itself: each perturbation moves the metrics as its definition says."""

from __future__ import annotations

import random

import pytest

from harmonize.converters.corefud import read_corefud, write_corefud
from harmonize.converters.gum import read_splits
from harmonize.schemas.model import Corpus, tree_head
from harmonize.scoring.score import score_corpora
from tests.conftest import shared


def gum_dev(limit: int = 4) -> Corpus:
    """The first documents of GUM dev and of GUM test (half each)."""
    folder = shared("gum", "v11.1.0")
    splits = read_splits(folder)
    names = splits["dev"][: (limit + 1) // 2] + splits["test"][: limit // 2]
    return Corpus([d for name in names for d in read_corefud(folder / "dep" / f"{name}.conllu").documents])


def parcorfull() -> Corpus:
    folder = shared("mmax2", "parcorfull", "corefud_reference_en")
    return Corpus([d for path in sorted(folder.glob("*.conllu")) for d in read_corefud(path).documents])


CORPORA = {"gum-dev": gum_dev, "parcorfull": parcorfull}


def metric_view(key: Corpus, response: Corpus, mode: str = "exact"):
    return score_corpora(key, response, mode=mode).metrics


@pytest.mark.parametrize("corpus", CORPORA)
def test_identity_scores_one_in_every_mode(corpus: str) -> None:
    key = CORPORA[corpus]()
    for mode in ("exact", "partial", "head"):
        for name, score in metric_view(key, CORPORA[corpus](), mode).items():
            if name == "zero" and score.recall_den == 0:  # no anaphoric zeros: nothing to score
                assert score.precision_den == 0
                continue
            assert (score.recall, score.precision) == (1.0, 1.0), (mode, name)


@pytest.mark.parametrize("corpus", CORPORA)
def test_dropping_mentions_lowers_recall_and_keeps_muc_precision_at_one(corpus: str) -> None:
    key, response = CORPORA[corpus](), CORPORA[corpus]()
    rng = random.Random(1)
    for document in response:
        for entity in list(document.entities):
            for mention in list(entity.mentions):
                if rng.random() < 0.25 and mention.entity is not None:
                    document.remove_mention(mention)
    scores = metric_view(key, response)
    assert scores["muc"].precision == 1.0 and scores["bcub"].precision == 1.0
    assert all(scores[name].recall < 1.0 for name in ("muc", "bcub", "ceafe", "ceafm", "lea", "mor"))


@pytest.mark.parametrize("corpus", CORPORA)
def test_merging_entities_lowers_precision_only(corpus: str) -> None:
    key, response = CORPORA[corpus](), CORPORA[corpus]()
    for document in response:
        multi = [e for e in document.entities if len(e.mentions) > 1]
        for keep, absorbed in zip(multi[::2], multi[1::2]):
            document.merge_entities(keep, absorbed)
    scores = metric_view(key, response)
    assert scores["muc"].recall == 1.0 and scores["bcub"].recall == 1.0 and scores["lea"].recall == 1.0
    assert scores["muc"].precision < 1.0 and scores["bcub"].precision < 1.0
    assert scores["mor"].recall == scores["mor"].precision == 1.0  # mentions untouched


@pytest.mark.parametrize("corpus", CORPORA)
def test_splitting_entities_lowers_recall_only(corpus: str) -> None:
    key, response = CORPORA[corpus](), CORPORA[corpus]()
    for document in response:
        for entity in [e for e in document.entities if len(e.mentions) > 3]:
            document.split_entity(entity, entity.mentions[: len(entity.mentions) // 2])
    scores = metric_view(key, response)
    assert scores["muc"].precision == 1.0 and scores["bcub"].precision == 1.0
    assert scores["muc"].recall < 1.0 and scores["bcub"].recall < 1.0


@pytest.mark.parametrize("mode,unchanged", [("exact", False), ("partial", True), ("head", True)])
def test_reducing_mentions_to_heads_hurts_only_exact_matching(mode: str, unchanged: bool) -> None:
    """CRAC 2022's post-processing: each mention becomes its head, except the largest of mentions sharing one."""
    key, response = gum_dev(2), gum_dev(2)
    for document in response:
        by_head: dict[int, list] = {}
        for mention in document.mentions:
            head = tree_head(mention)
            if head is not None:
                by_head.setdefault(id(head), []).append((mention, head))
        for group in by_head.values():
            largest = max(group, key=lambda item: len(item[0].words))[0]
            for mention, head in group:
                if mention is not largest or len(group) == 1:
                    document.set_words(mention, [head], head)
    scores = metric_view(key, response, mode)
    conll = (scores["muc"].f1 + scores["bcub"].f1 + scores["ceafe"].f1) / 3
    # Not exactly 1: a mention reduced to its head can land on a word that is another mention already.
    assert conll > 0.99 if unchanged else conll < 0.9
    assert scores["mor"].precision == 1.0 and scores["mor"].recall < 1.0


def test_gum_splits_match_the_corpus_readme() -> None:
    splits = read_splits(shared("gum", "v11.1.0"))
    assert {name: len(docs) for name, docs in splits.items()} == {"dev": 32, "test": 32, "test2": 26, "train": 191}


def gum_pair() -> tuple[Corpus, Corpus]:
    """GUM documents and a copy with mentions dropped, entities merged and mentions cut down to their heads."""
    key, response = gum_dev(), gum_dev()
    rng = random.Random(3)
    for document in response:
        for mention in document.mentions:
            if rng.random() < 0.1:
                document.remove_mention(mention)
            elif rng.random() < 0.1 and (head := tree_head(mention)) is not None:
                document.set_words(mention, [head], head)
        multi = [e for e in document.entities if len(e.mentions) > 1]
        for keep, absorbed in zip(multi[:4:2], multi[1:4:2]):
            document.merge_entities(keep, absorbed)
    return key, response


@pytest.mark.parametrize("mode", ["exact", "partial", "head"])
def test_reading_the_response_in_a_worker_changes_no_figure(tmp_path, monkeypatch, mode: str) -> None:
    """`harmonize score` reads a large response in a worker process, which sends back only what the scorer
    needs; every fraction must be what scoring the two read corpora gives."""
    from harmonize.scoring import frame
    from harmonize.scoring import score as scoring

    key_path, response_path = tmp_path / "key.conllu", tmp_path / "response.conllu"
    key, response = gum_pair()
    write_corefud(key, key_path)
    write_corefud(response, response_path)
    expected = score_corpora(read_corefud(key_path), read_corefud(response_path), mode=mode, singletons=True)
    monkeypatch.setattr(frame, "WORKER_BYTES", 0)
    for jobs in (1, 2):
        found = scoring.score_files(key_path, response_path, mode=mode, singletons=True, jobs=jobs)
        assert found.metrics == expected.metrics and found.duplicates == expected.duplicates
        assert [label for label, _ in found.partitions] == [label for label, _ in expected.partitions]


def test_an_error_in_the_response_read_by_the_worker_names_its_line(tmp_path, monkeypatch) -> None:
    from harmonize.errors import FormatError
    from harmonize.scoring import frame
    from harmonize.scoring import score as scoring

    key, _ = gum_pair()
    key_path, response_path = tmp_path / "key.conllu", tmp_path / "response.conllu"
    write_corefud(key, key_path)
    lines = key_path.read_text(encoding="utf-8").split("\n")
    token = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    lines[token] = lines[token].replace("\t", " ", 1)
    response_path.write_text("\n".join(lines), encoding="utf-8")
    monkeypatch.setattr(frame, "WORKER_BYTES", 0)
    with pytest.raises(FormatError) as error:
        scoring.score_files(key_path, response_path, jobs=2)
    assert error.value.path == str(response_path) and error.value.line == token + 1
