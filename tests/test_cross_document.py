"""The cross-document model on two small hand-made topics: it learns to join events that share a lemma and to keep
apart those that share none, across documents; a saved model predicts the same; the CLI refuses input without
topics in one line (exit 2); prediction resolves all inputs together and writes the third-party JSON."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.errors import HarmonizeError
from harmonize.resolvers.cross_document import load_model, train_model
from harmonize.resolvers.cross_document_validation import kind_scores
from harmonize.resolvers.neural import fresh_copy
from harmonize.schemas.model import Corpus
from tests.conftest import make_tiny_encoder

# Each document: one sentence, two events (one per lemma) and an entity; the same lemma is the same event in a topic.
TOPICS = {"1": (("quake", "struck"), ("town",)), "2": (("storm", "flooded"), ("valley",)),
          "3": (("fire", "burned"), ("forest",)), "4": (("vote", "passed"), ("law",))}
FILLER = ("the", "and", "then", "near", "a", "of")


def document(doc_id: str, topic: str, words: list[tuple[str, str | None]]) -> str:
    """``words``: (form, Entity value or None); the lemma is the form."""
    lines = [f"# newdoc id = {doc_id}", "# global.Entity = eid-etype-head-other", f"# meta::topic = {topic}",
             f"# meta::subtopic = {topic}a", f"# sent_id = {doc_id}-1", f"# text = {' '.join(w for w, _ in words)}"]
    for number, (form, entity) in enumerate(words, 1):
        lines.append("\t".join([str(number), form, form, "NOUN", "_", "_", "_", "_", "_",
                                f"Entity={entity}" if entity else "_"]))
    return "\n".join(lines) + "\n\n"


def topic_documents(topic: str, count: int, words_of: str | None = None) -> str:
    """``count`` documents of ``topic`` with the words of TOPICS[words_of or topic]."""
    (first, second), (thing,) = TOPICS[words_of or topic]
    text = ""
    for number in range(count):
        filler = FILLER[number % len(FILLER)]
        words = [("the", None), (first, "(e1-event-1-)"), (filler, None), ("the", None), (thing, "(e3-place-1-)"),
                 ("then", None), (second, "(e2-event-1-)"), (filler, None)]
        if number % 2:
            words = words[3:] + words[:3]  # the events in another order, so that position does not tell them
        text += document(f"t{topic}d{number}", topic, words)
    return text


def events(corpus: Corpus) -> list[list[tuple[str, str]]]:
    """Each event entity as (document, text) of its mentions, across documents, sorted."""
    found: dict[str, list[tuple[str, str]]] = {}
    for document in corpus.documents:
        for entity in document.entities:
            if entity.type == "event":
                found.setdefault(entity.id, []).extend((str(document.id), m.text) for m in entity.mentions)
    return sorted(sorted(e) for e in found.values())


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    words = {w for t in TOPICS.values() for group in t for w in group} | set(FILLER)
    encoder = make_tiny_encoder(tmp_path_factory.mktemp("encoder"), sorted(words))
    train = parse_corefud(topic_documents("1", 8) + topic_documents("2", 8))
    dev = parse_corefud(topic_documents("3", 4))
    model = train_model(train, dev, "topic", str(encoder), epochs=12, seed=0, device="cpu", members=1)
    return model, tmp_path_factory.mktemp("model")


def test_joins_events_with_one_lemma_and_separates_events_without(trained) -> None:
    model, _ = trained
    test = parse_corefud(topic_documents("4", 3))
    model.resolve(test, gold_mentions=True, device="cpu")
    assert events(test) == [[("t4d0", "passed"), ("t4d1", "passed"), ("t4d2", "passed")],
                            [("t4d0", "vote"), ("t4d1", "vote"), ("t4d2", "vote")]]
    gold = parse_corefud(topic_documents("4", 3))
    assert kind_scores(gold, test, "topic", "event")["conll"] == pytest.approx(100.0)


def test_detected_mentions_are_clustered_with_shared_ids(trained) -> None:
    model, _ = trained
    gold = parse_corefud(topic_documents("5", 3, words_of="1"))  # new documents, words the detector was shown
    test = fresh_copy(gold)
    counts = model.resolve(test, gold_mentions=False, device="cpu")
    scores = kind_scores(gold, test, "topic", "event")
    assert counts["detected event mentions"] == 6 and scores["mention F1"] == pytest.approx(100.0)
    assert scores["conll"] == pytest.approx(100.0)
    text = format_corefud(test)
    assert text.count("Entity=(X") == counts["mentions"]  # one id per entity across the topic's documents


def test_a_saved_model_predicts_the_same(trained) -> None:
    model, folder = trained
    model.save(folder)
    loaded = load_model(folder)
    assert loaded.clustering == model.clustering and loaded.detection == model.detection
    assert loaded.lemma_prior == model.lemma_prior and set(model.lemma_prior) == {"gold", "predicted"}
    assert loaded.pair_gate == model.pair_gate and set(model.pair_gate) == {"event", "entity"}
    assert loaded.document_cut == model.document_cut and set(model.document_cut) == {"gold", "predicted"}
    assert all(len(set(cut.values())) == 1 for cut in model.document_cut.values())  # one grouping for both kinds
    assert loaded.detection_overlap == model.detection_overlap and set(model.detection_overlap) == {"event", "entity"}
    first, second = parse_corefud(topic_documents("4", 3)), parse_corefud(topic_documents("4", 3))
    model.resolve(first, device="cpu")
    loaded.resolve(second, device="cpu")
    assert format_corefud(first) == format_corefud(second)


def test_the_thresholds_are_chosen_on_the_conll_the_scorer_gives(trained) -> None:
    """`TuningConll` scores the clusterings the thresholds are chosen among from their labels: it must be
    `kind_scores`' CoNLL to the last bit, for gold and detected mentions, the same words twice included."""
    from harmonize.resolvers.cross_document import (
        THRESHOLDS,
        TuningConll,
        cluster,
        encode_documents,
        scope_matrices,
        scopes,
        with_lemma_prior,
        write_clusters,
    )
    from harmonize.resolvers.mention_detection import detect_mentions

    model, _ = trained
    text = topic_documents("3", 3) + topic_documents("4", 3)
    gold = parse_corefud(text.replace("(e3-place-1-)", "(e3-place-1-)(e9-place-1-)", 1))  # a duplicate span
    assert sum(len(d.mentions) for d in gold.documents) == 19
    words = encode_documents(gold, model.encoder)
    detected = fresh_copy(gold)
    detect_mentions(detected, model.detectors, words, model.detection)
    compared = set()
    for response in (gold, detected):
        groups, matrices = scope_matrices(response, words, model.scorers, "topic")
        for kind in ("event", "entity"):
            tuning = TuningConll(gold, "topic", kind)
            for prior in (0.0, 1.0):
                for threshold in THRESHOLDS[::4]:
                    labels = {key: cluster(with_lemma_prior(matrix, groups[key], prior), threshold)
                              for key, matrix in matrices.items()}
                    predicted = fresh_copy(response)
                    write_clusters(predicted, scopes(predicted, "topic", {id(m): None for d in predicted.documents
                                                                          for m in d.mentions}), labels)
                    expected = kind_scores(gold, predicted, "topic", kind)["conll"]
                    assert tuning.conll(groups, labels) == expected
                    compared.add(round(expected, 6))
    assert len(compared) > 3  # clusterings that score differently


def test_thresholds_chosen_by_cross_validation_over_the_training_topics(tmp_path: Path) -> None:
    """Each fold's model scores topics it never saw; the thresholds are chosen on all of them, and the model kept
    learns from every training topic. Fewer topics than folds: a fold a topic."""
    from harmonize.resolvers.cross_document import train_model_folds

    words = {w for t in TOPICS.values() for group in t for w in group} | set(FILLER)
    encoder = make_tiny_encoder(tmp_path / "encoder", sorted(words))
    train = parse_corefud(topic_documents("1", 6) + topic_documents("2", 6) + topic_documents("3", 6))
    said: list[str] = []
    model = train_model_folds(train, 5, "topic", str(encoder), epochs=12, seed=0, device="cpu", log=said.append,
                              members=2)
    folds = ("fold 1/3: ", "fold 2/3: ", "fold 3/3: ")
    assert [line.split(" epoch 1:")[0] for line in said if "epoch 1:" in line] == [
        *(f"{fold}member {m}: mention detector" for fold in folds for m in (1, 2)),  # the folds' detectors detect,
        *(f"{fold}member {m}: pair scorer" for fold in folds for m in (1, 2)),  # their wrong spans are learnt,
        *(f"member {m}: {what}" for what in ("pair scorer", "mention detector") for m in (1, 2))]  # then by all
    assert any("spans detected out of sample that are no mentions" in line for line in said)
    assert len(model.scorers) == len(model.detectors) == 2
    assert set(model.clustering) == {"gold", "predicted"} and set(model.detection) == {"event", "entity"}
    test = parse_corefud(topic_documents("4", 3))
    model.resolve(test, gold_mentions=True, device="cpu")
    assert kind_scores(parse_corefud(topic_documents("4", 3)), test, "topic", "event")["conll"] == \
        pytest.approx(100.0)
    model.save(tmp_path / "model")  # both members saved, and loaded
    again = parse_corefud(topic_documents("4", 3))
    load_model(tmp_path / "model").resolve(again, device="cpu")
    detected = parse_corefud(topic_documents("4", 3))
    model.resolve(detected, device="cpu")
    assert format_corefud(again) == format_corefud(detected)


def test_detectors_and_pair_scorers_train_on_the_device_asked_for_and_come_back_to_the_cpu(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not only the encoder: on a GPU, where ``auto`` finds one, every network trains there."""
    from harmonize.resolvers import cross_document
    from harmonize.resolvers.encoders import pick_device

    used: list[tuple[str, str]] = []
    for name in ("train_detector", "train_pairs"):
        real = getattr(cross_document, name)

        def recording(*args, real=real, name=name, **kwargs):
            used.append((name, kwargs["device"] if "device" in kwargs else args[-1]))
            return real(*args, **kwargs)

        monkeypatch.setattr(cross_document, name, recording)
    words = {w for t in TOPICS.values() for group in t for w in group} | set(FILLER)
    encoder = make_tiny_encoder(tmp_path / "encoder", sorted(words))
    model = train_model(parse_corefud(topic_documents("1", 4) + topic_documents("2", 4)),
                        parse_corefud(topic_documents("3", 2)), "topic", str(encoder), epochs=1, device="auto",
                        members=1)
    assert used == [("train_detector", str(pick_device("auto"))), ("train_pairs", str(pick_device("auto")))]
    tensors = [*model.detectors[0].parameters(), *model.scorers[0].parameters()]
    assert {t.device.type for t in tensors} == {"cpu"}


def test_training_without_dev_chooses_by_cross_validation_or_says_what_it_needs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harmonize.cli import app

    words = {w for t in TOPICS.values() for group in t for w in group} | set(FILLER)
    encoder = make_tiny_encoder(tmp_path / "encoder", sorted(words))
    (tmp_path / "train.conllu").write_text("".join(topic_documents(t, 2) for t in "123"), encoding="utf-8")
    train = ["resolve", "train", str(tmp_path / "train.conllu"), "--cross-document", "topic", "--encoder",
             str(encoder), "--epochs", "1", "--device", "cpu", "-o", str(tmp_path / "model")]
    done = CliRunner().invoke(app, train)
    assert done.exit_code == 0, done.output
    assert "fold 3/3: member 3: pair scorer epoch 1" in done.output and (tmp_path / "model" / "cross_document.json").is_file()
    done = CliRunner().invoke(app, [*train, "--folds", "0"])
    assert done.exit_code == 2 and "by cross-validation (--folds 2 or more) or on --dev" in done.output


def test_the_lemma_prior_raises_same_lemma_pairs_only() -> None:
    import numpy as np

    from harmonize.resolvers.cross_document import ScopeMentions, with_lemma_prior

    group = ScopeMentions(lemmas=["attack", "attack", "strike"])
    matrix = np.full((3, 3), 0.3, dtype=np.float32)
    assert with_lemma_prior(matrix, group, 0.0) is matrix  # off: the scorer alone
    raised = with_lemma_prior(matrix, group, 0.8)
    assert raised[0, 1] == raised[1, 0] == np.float32(0.8) and raised[0, 2] == raised[1, 2] == np.float32(0.3)


def test_wrong_detections_are_negatives_as_many_as_the_coreferent_pairs() -> None:
    import random

    from harmonize.resolvers.cross_document import ScopeMentions, _pairs

    group = ScopeMentions(mentions=[None] * 6, entities=["a", "a", "a", "b", "b", "c"])  # type: ignore[list-item]
    plain = _pairs(group, random.Random(0))
    pairs = _pairs(group, random.Random(0), wrong=5)  # mentions 6..10 are wrong detections
    positive = [(i, j) for i, j, label in pairs if label]
    assert positive == [(i, j) for i, j, label in plain if label] == [(0, 1), (0, 2), (1, 2), (3, 4)]
    unmentioned = [(i, j, label) for i, j, label in pairs if j >= 6]
    assert len(unmentioned) == len(positive) and all(label == 0.0 for *_, label in unmentioned)
    assert [p for p in pairs if p[1] < 6] == plain  # the mentions' own pairs as without them
    assert len(_pairs(ScopeMentions(mentions=[None] * 2, entities=["a", "a"]), random.Random(0), wrong=1)) == 2


def test_the_pair_gate_leaves_unsure_detected_mentions_to_the_lemma_prior() -> None:
    import numpy as np

    from harmonize.resolvers.cross_document import ScopeMentions, cluster, with_lemma_prior, with_pair_gate
    from harmonize.schemas.model import Mention

    mentions = [Mention([]), Mention([]), Mention([])]
    group = ScopeMentions(mentions=mentions, lemmas=["attack", "attack", "strike"])
    matrix = np.full((3, 3), 0.9, dtype=np.float32)
    confidence = {id(mentions[0]): 0.9, id(mentions[1]): 0.45, id(mentions[2]): 0.7}
    assert with_pair_gate(matrix, group, confidence, 0.0) is matrix  # off: the scorer links every detected mention
    gated = with_pair_gate(matrix, group, confidence, 0.5)
    assert gated[0, 2] == gated[2, 0] == np.float32(0.9) and not gated[1].any() and not gated[:, 1].any()
    assert matrix[0, 1] == np.float32(0.9)  # the matrix itself untouched
    assert cluster(gated, 0.3) == [1, 2, 1]  # the scorer alone: the unsure mention linked to none
    raised = with_lemma_prior(gated, group, 1.0)  # the prior after the gate: the same lemma still links it
    assert raised[0, 1] == raised[1, 0] == 1.0 and raised[1, 2] == 0.0 and raised[0, 2] == np.float32(0.9)
    labels = cluster(raised, 0.3)
    assert labels[0] == labels[1] != labels[2]


def test_documents_of_a_scope_are_grouped_by_what_sets_them_apart() -> None:
    """Two events in one topic (ECB+'s subtopics): documents alike after the topic's mean vector is taken away are
    one group, and no lemma prior links mentions of two groups; a scope of fewer than `MIN_GROUPED` documents
    is never grouped (its documents less their mean are opposites)."""
    import numpy as np
    import torch

    from harmonize.resolvers.cross_document import (
        MIN_GROUPED,
        clustering_matrix,
        document_groups,
        scopes,
    )

    corpus = parse_corefud(topic_documents("1", 6) + topic_documents("2", MIN_GROUPED - 1))
    generator = torch.Generator().manual_seed(0)
    common, first, second = (torch.randn(16, generator=generator) for _ in range(3))
    vectors = {}
    for number, document in enumerate(corpus.documents):
        event = first if number < 3 or document.topic == "2" and number % 2 else second
        vectors[id(document)] = 5 * common + event + 0.1 * torch.randn(16, generator=generator)
    names = {id(document): str(document.id) for document in corpus.documents}

    def grouped(cut: float) -> list[set[str]]:
        members: dict[int, set[str]] = {}
        for document, group in document_groups(corpus, "topic", vectors, cut).items():
            members.setdefault(group, set()).add(names[document])
        return sorted(members.values(), key=sorted)

    assert grouped(1.0) == [{"t1d0", "t1d1", "t1d2"}, {"t1d3", "t1d4", "t1d5"}, {"t2d0", "t2d1", "t2d2"}]
    assert grouped(0.0) == [{f"t1d{n}" for n in range(6)}, {"t2d0", "t2d1", "t2d2"}]  # 0: not grouped
    group = scopes(corpus, "topic", {id(m): None for d in corpus.documents for m in d.mentions})[("1", 0, "event")]
    matrix = np.full((len(group.mentions),) * 2, 0.2, dtype=np.float32)
    raised = clustering_matrix(matrix, group, {}, 0.0, 1.0, document_groups(corpus, "topic", vectors, 1.0))
    document_of = [names[id(m.sentence.document)] for m in group.mentions]
    for i, left in enumerate(group.mentions):
        for j, right in enumerate(group.mentions):
            together = (document_of[i] < "t1d3") == (document_of[j] < "t1d3")
            same_lemma = group.lemmas[i] == group.lemmas[j]
            assert raised[i, j] == (0.0 if not together else 1.0 if same_lemma else np.float32(0.2))
    assert clustering_matrix(matrix, group, {}, 0.0, 0.0, None) is matrix  # nothing chosen: as it is


def test_a_model_saved_with_the_old_link_gate_asks_to_be_retrained(trained, tmp_path) -> None:
    """The link gate of models saved before 2026-11-26 also kept the lemma prior's links: loading one that used it
    would cluster differently without a word."""
    import json

    model, _ = trained
    model.save(tmp_path / "old")
    description = json.loads((tmp_path / "old" / "cross_document.json").read_text(encoding="utf-8"))
    del description["pair_gate"], description["document_cut"]  # saved before both: no documents grouped
    description["link_gate"] = {"event": 0.0, "entity": 0.0}  # never used: loads
    (tmp_path / "old" / "cross_document.json").write_text(json.dumps(description), encoding="utf-8")
    old = load_model(tmp_path / "old")
    assert old.pair_gate == {} and old.document_cut == {}
    description["link_gate"] = {"event": 0.4, "entity": 0.0}
    (tmp_path / "old" / "cross_document.json").write_text(json.dumps(description), encoding="utf-8")
    with pytest.raises(HarmonizeError, match="link gate .*retrain"):
        load_model(tmp_path / "old")


def test_the_overlap_policy_is_the_one_the_tuning_mentions_follow() -> None:
    """Flat where no two gold mentions of a kind overlap (ECB+), nested where the gold mentions nest: each kind's
    policy and threshold are chosen together for the best mention F1."""
    from harmonize.resolvers.mention_detection import FLAT, NESTED, choose_thresholds, kept_spans

    flat = document("d1", "1", [("the", "(e2-person-2-"), ("mayor", "e2)"), ("of", None), ("the", "(e3-place-2-"),
                                ("town", "e3)"), ("spoke", "(e1-event-1-)")])
    nested = document("d1", "1", [("the", "(e2-person-2-"), ("mayor", None), ("of", None), ("the", "(e3-place-2-"),
                                  ("town", "e3)e2)"), ("spoke", "(e1-event-1-)")])
    # the detector's view of "the mayor of the town spoke": spans nested in each other, and the verb an event
    scored = [[(0, 4, "entity", 0.5), (0, 1, "entity", 0.9), (1, 1, "entity", 0.8), (3, 4, "entity", 0.7),
               (4, 4, "entity", 0.6), (5, 5, "event", 0.9)]]
    assert choose_thresholds(scored, parse_corefud(flat))[1] == {"event": NESTED, "entity": FLAT}
    assert choose_thresholds(scored, parse_corefud(nested))[1] == {"event": NESTED, "entity": NESTED}
    assert kept_spans(scored[0], {"event": 0.5, "entity": 0.5}, {"entity": FLAT}) == [
        (0, 1, "entity"), (3, 4, "entity"), (5, 5, "event")]
    assert kept_spans(scored[0], {"event": 0.5, "entity": 0.65}) == [
        (0, 1, "entity"), (1, 1, "entity"), (3, 4, "entity"), (5, 5, "event")]


def test_input_without_topics_is_a_one_line_usage_error(tmp_path: Path) -> None:
    text = topic_documents("1", 2).replace("# meta::topic = 1\n", "").replace("# meta::subtopic = 1a\n", "")
    (tmp_path / "train.conllu").write_text(text, encoding="utf-8")
    (tmp_path / "dev.conllu").write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "harmonize", "validate", str(tmp_path / "train.conllu"),
                          str(tmp_path / "dev.conllu"), "--cross-document", "topic"],
                         check=False, capture_output=True, text=True,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().count("\n") == 0 and "--scope corpus" in run.stderr


def test_predict_resolves_all_inputs_together_and_writes_mentions_json(trained, tmp_path: Path) -> None:
    from harmonize.resolvers import resolve_files

    model, folder = trained
    model.save(folder)
    (tmp_path / "a.conllu").write_text(topic_documents("5", 2, words_of="1"), encoding="utf-8")
    (tmp_path / "b.conllu").write_text(topic_documents("5", 2, words_of="1").replace("t5d", "t5e"),
                                       encoding="utf-8")
    inputs = [tmp_path / "a.conllu", tmp_path / "b.conllu"]
    counts = resolve_files(inputs, tmp_path / "out", "model", model=folder, gold_mentions=True, device="cpu")
    assert counts["files"] == 2 and counts["documents"] == 4
    written = {name: (tmp_path / "out" / name).read_text(encoding="utf-8") for name in ("a.conllu", "b.conllu")}
    quake = {line.split("Entity=")[1] for text in written.values() for line in text.splitlines()
             if "\tquake\t" in line}
    assert len(quake) == 1  # the topic's four "quake" mentions, two files, one entity id
    resolve_files(inputs, tmp_path / "json", "model", model=folder, target="mentions-json", device="cpu",
                  options={"name": "dev"})
    assert {p.name for p in (tmp_path / "json").iterdir()} == {"dev_event_gold_mentions.json",
                                                             "dev_entity_gold_mentions.json", "dev_text.txt"}


def test_a_large_scope_is_clustered_in_blocks_of_whole_documents_and_says_so(monkeypatch) -> None:
    from harmonize.errors import Report
    from harmonize.resolvers import cross_document

    monkeypatch.setattr(cross_document, "MAX_CLUSTERED", 5)  # each document has 2 events: blocks of 2 documents
    corpus = parse_corefud(topic_documents("1", 5) + topic_documents("2", 2))
    report = Report()
    groups = cross_document.scopes(corpus, "corpus", {id(m): None for d in corpus.documents for m in d.mentions},
                                   report)
    events = {key: [str(m.sentence.document.id) for m in group.mentions] for key, group in groups.items()
              if key[-1] == "event"}
    assert list(events.values()) == [["t1d0"] * 2 + ["t1d1"] * 2, ["t1d2"] * 2 + ["t1d3"] * 2,
                                     ["t1d4"] * 2 + ["t2d0"] * 2, ["t2d1"] * 2]
    assert sum(n for reason, n in report.counts.items() if "clustered in blocks" in reason) == 4  # 3 + 1 entity


def test_a_broken_model_folder_is_named_in_one_line(trained, tmp_path: Path) -> None:
    import json

    from harmonize.errors import HarmonizeError

    model, folder = trained
    model.save(folder)
    (tmp_path / "cross_document.json").write_text((folder / "cross_document.json").read_text(encoding="utf-8"),
                                                  encoding="utf-8")
    (tmp_path / "cross_document.pt").write_bytes(b"not weights")
    with pytest.raises(HarmonizeError, match=r"cross_document\.pt: not the weights") as raised:
        load_model(tmp_path)
    assert "\n" not in str(raised.value)
    (tmp_path / "cross_document.json").write_text("{", encoding="utf-8")
    with pytest.raises(HarmonizeError, match=r"cross_document\.json: not a cross-document model description"):
        load_model(tmp_path)
    description = json.loads((folder / "cross_document.json").read_text(encoding="utf-8"))
    for name, wrong in (("document_cut", "1.1"), ("lemma_prior", {"gold": {"event": "high"}}), ("pair_gate", [0.4])):
        (tmp_path / "cross_document.json").write_text(json.dumps({**description, name: wrong}), encoding="utf-8")
        with pytest.raises(HarmonizeError, match=rf"cross_document\.json: '{name}' is not a mapping of"):
            load_model(tmp_path)  # before any clustering meets it
