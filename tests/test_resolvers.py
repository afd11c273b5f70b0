"""The resolvers: the rule baseline on hand-made cases; the neural resolver with a tiny random encoder (it learns a
document to CoNLL 100, saves and loads to the same predictions, resumes, writes valid CorefUD); the CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the resolvers need torch: pip install -e '.[resolver]'")
pytest.importorskip("transformers", reason="the resolvers need transformers: pip install -e '.[resolver]'")

import torch

from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.errors import HarmonizeError, Report
from harmonize.resolvers import resolve_files
from harmonize.resolvers.encoders import load_encoder, load_tokenizer, set_attention_dropout
from harmonize.resolvers.features import (
    NO_TREE,
    PART_OF_SUBTREE,
    SEVERAL_ROOTS,
    SUBTREE_LESS_FUNCTION_WORDS,
    TAG_VALUES,
    WHOLE_SUBTREE,
    document_features,
    mention_keys,
    pool_words,
    span_syntax,
    subtree_sizes,
    subword_windows,
)
from harmonize.resolvers.model import Resolver, ResolverConfig, non_crossing, non_overlapping
from harmonize.resolvers.neural import (
    TREELESS_DOCUMENT,
    Epoch,
    Training,
    best_epoch,
    dev_scores,
    evaluate,
    fresh_copy,
    load,
    rate_factor,
    resolve,
    schedule_end,
    train,
)
from harmonize.resolvers.rules import resolve_rules
from harmonize.schemas.model import Corpus
from tests.conftest import make_tiny_encoder
from tests.test_validator import validate


def row(number: int, form: str, lemma: str, upos: str, feats: str, head: int, deprel: str, misc: str = "_") -> str:
    return "\t".join([str(number), form, lemma, upos, "_", feats, str(head), deprel, "_", misc])


# Czech-like gender on nouns, so that agreement decides: "Petr koupil knihu . Ona byla drahá . Petr ji čte ."
RULES_DOC = "\n".join([
    "# newdoc id = rules",
    "# global.Entity = eid-etype-head-other",
    "# sent_id = 1",
    "# text = Petr koupil novou knihu .",
    row(1, "Petr", "Petr", "PROPN", "Gender=Masc|Number=Sing", 2, "nsubj", "Entity=(e1--1)"),
    row(2, "koupil", "koupit", "VERB", "_", 0, "root"),
    row(3, "novou", "nový", "ADJ", "Gender=Fem|Number=Sing", 4, "amod"),
    row(4, "knihu", "kniha", "NOUN", "Gender=Fem|Number=Sing", 2, "obj"),
    row(5, ".", ".", "PUNCT", "_", 2, "punct"),
    "",
    "# sent_id = 2",
    "# text = Ona byla drahá .",
    row(1, "Ona", "on", "PRON", "Gender=Fem|Number=Sing|Person=3|PronType=Prs", 3, "nsubj"),
    row(2, "byla", "být", "AUX", "_", 3, "cop"),
    row(3, "drahá", "drahý", "ADJ", "_", 0, "root"),
    row(4, ".", ".", "PUNCT", "_", 3, "punct"),
    "",
    "# sent_id = 3",
    "# text = Petr Novák ji čte , což je dobře .",
    row(1, "Petr", "Petr", "PROPN", "Gender=Masc|Number=Sing", 4, "nsubj", "Entity=(e1--1"),
    row(2, "Novák", "Novák", "PROPN", "Gender=Masc|Number=Sing", 1, "flat", "Entity=e1)"),
    row(3, "ji", "on", "PRON", "Gender=Fem|Number=Sing|Person=3|PronType=Prs", 4, "obj"),
    row(4, "čte", "číst", "VERB", "_", 0, "root"),
    row(5, ",", ",", "PUNCT", "_", 7, "punct"),
    row(6, "což", "což", "PRON", "PronType=Rel", 8, "nsubj"),
    row(7, "je", "být", "AUX", "_", 8, "cop"),
    row(8, "dobře", "dobře", "ADV", "_", 4, "advcl"),
    row(9, ".", ".", "PUNCT", "_", 4, "punct"),
    "",
    "",
])


def entity_texts(corpus) -> list[list[str]]:
    return sorted(sorted(m.text for m in e.mentions) for e in corpus.documents[0].entities)


def test_rule_baseline_links_pronouns_by_agreement_and_names_by_lemma() -> None:
    corpus = parse_corefud(RULES_DOC)
    report = Report()
    counts = resolve_rules(corpus, report=report)
    # "Ona"/"ji" (feminine) skip the masculine "Petr" for "knihu"; both "Petr" join by lemma; "Novák" (flat) and
    # the relative "což" are no mentions.
    assert entity_texts(corpus) == [["Ona", "ji", "knihu"], ["Petr", "Petr"]]
    assert counts["pronouns linked to a noun phrase"] == 2 and counts["names joined by lemma"] == 1
    assert counts["mentions"] == 5
    assert report.counts["input coreference ignored: entities"] == 1
    assert report.counts["input coreference ignored: mentions"] == 2
    assert all(m.head is m.words[0] for e in corpus.documents[0].entities for m in e.mentions)


def test_rule_baseline_with_gold_mentions_clusters_the_inputs_mentions() -> None:
    corpus = parse_corefud(RULES_DOC)
    resolve_rules(corpus, gold_mentions=True)
    assert entity_texts(corpus) == [["Petr", "Petr Novák"]]  # the same two mentions, joined by their heads' lemma
    heads = [m.head.form for e in corpus.documents[0].entities for m in e.mentions]
    assert heads == ["Petr", "Petr"]


def test_rule_baseline_pronoun_without_agreeing_antecedent_is_a_singleton() -> None:
    text = RULES_DOC.replace("Gender=Fem|Number=Sing|Person=3", "Gender=Neut|Number=Plur|Person=3")
    counts = resolve_rules(corpus := parse_corefud(text))
    assert counts["pronouns without an agreeing antecedent"] == 2
    assert ["Ona"] in entity_texts(corpus) and ["ji"] in entity_texts(corpus)


def test_rule_baseline_reports_documents_without_tags() -> None:
    report = Report()
    untagged = re.sub(r"^(\d+\t[^\t]*\t[^\t]*\t)[^\t]*", r"\1_", RULES_DOC, flags=re.MULTILINE)  # UPOS "_"
    corpus = parse_corefud(untagged)
    assert resolve_rules(corpus, report=report)["mentions"] == 0
    assert any(reason.startswith("document without part-of-speech tags") for reason in report.counts)


# --- the neural resolver -------------------------------------------------------------------------------------------

TRAIN_DOC = "\n".join([
    "# newdoc id = tiny",
    "# global.Entity = eid-etype-head-other",
    "# sent_id = 1",
    "# text = The old farmer bought a red cow .",
    row(1, "The", "the", "DET", "_", 3, "det", "Entity=(e1--3"),
    row(2, "old", "old", "ADJ", "_", 3, "amod"),
    row(3, "farmer", "farmer", "NOUN", "Number=Sing", 4, "nsubj", "Entity=e1)"),
    row(4, "bought", "buy", "VERB", "_", 0, "root"),
    row(5, "a", "a", "DET", "_", 7, "det", "Entity=(e2--3"),
    row(6, "red", "red", "ADJ", "_", 7, "amod"),
    row(7, "cow", "cow", "NOUN", "Number=Sing", 4, "obj", "Entity=e2)"),
    row(8, ".", ".", "PUNCT", "_", 4, "punct"),
    "",
    "# sent_id = 2",
    "# text = He milked it every day .",
    row(1, "He", "he", "PRON", "Gender=Masc|Number=Sing|Person=3|PronType=Prs", 2, "nsubj", "Entity=(e1--1)"),
    row(2, "milked", "milk", "VERB", "_", 0, "root"),
    row(3, "it", "it", "PRON", "Number=Sing|Person=3|PronType=Prs", 2, "obj", "Entity=(e2--1)"),
    row(4, "every", "every", "DET", "_", 5, "det"),
    row(5, "day", "day", "NOUN", "Number=Sing", 2, "obl:tmod"),
    row(6, ".", ".", "PUNCT", "_", 2, "punct"),
    "",
    "# sent_id = 3",
    "# text = The cow liked the farmer and his barn .",
    row(1, "The", "the", "DET", "_", 2, "det", "Entity=(e2--2"),
    row(2, "cow", "cow", "NOUN", "Number=Sing", 3, "nsubj", "Entity=e2)"),
    row(3, "liked", "like", "VERB", "_", 0, "root"),
    row(4, "the", "the", "DET", "_", 5, "det", "Entity=(e1--2"),
    row(5, "farmer", "farmer", "NOUN", "Number=Sing", 3, "obj", "Entity=e1)"),
    row(6, "and", "and", "CCONJ", "_", 8, "cc"),
    row(7, "his", "he", "PRON", "Gender=Masc|Number=Sing|Person=3|Poss=Yes|PronType=Prs", 8, "nmod:poss",
        "Entity=(e3--2(e1--1)"),
    row(8, "barn", "barn", "NOUN", "Number=Sing", 5, "conj", "Entity=e3)"),
    row(9, ".", ".", "PUNCT", "_", 3, "punct"),
    "",
    "",
])

FAST = Training(epochs=60, encoder_rate=1e-3, head_rate=3e-3, warmup=0.0, seed=1, device="cpu")
SMALL = ResolverConfig(encoder="", window=16, context=3, max_width=4, max_antecedents=8, hidden=32)


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    words = [n.form for n in parse_corefud(TRAIN_DOC).documents[0].nodes()]
    return str(make_tiny_encoder(tmp_path_factory.mktemp("encoder"), words))


@pytest.fixture(scope="module")
def trained(encoder: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("model")
    config = ResolverConfig(**{**SMALL.to_json(), "encoder": encoder})
    history = train(parse_corefud(TRAIN_DOC), parse_corefud(TRAIN_DOC), folder, config, FAST, progress=False,
                    log=lambda line: None)
    assert history, "training ran no epoch"
    return folder


def test_a_half_precision_checkpoint_is_trained_in_float32(encoder: str, tmp_path: Path) -> None:
    """A float16 checkpoint (a GPU user's download) loads as float32: trained in float16 the loss became NaN."""
    import torch
    from transformers import AutoModel

    half = tmp_path / "half"
    AutoModel.from_pretrained(encoder).half().save_pretrained(half)
    load_encoder(encoder)[1].save_pretrained(half)
    from safetensors.torch import load_file

    assert {t.dtype for t in load_file(half / "model.safetensors").values() if t.is_floating_point()} == {
        torch.float16}  # as stored
    model, _ = load_encoder(str(half))
    assert {parameter.dtype for parameter in model.parameters()} == {torch.float32}


def test_windows_give_every_word_its_most_central_window(encoder: str) -> None:
    _, tokenizer = load_encoder(encoder)
    nodes = list(parse_corefud(TRAIN_DOC).documents[0].nodes())  # 23 words, one subword each
    windows, attention, word_window, word_position, word_length = subword_windows(tokenizer, nodes, window=12,
                                                                                   context=2)
    assert word_length.tolist() == [1] * len(nodes)
    assert windows.shape[1] == 12 and bool(attention.all())  # 10 subwords between the special tokens
    assert windows.shape[0] == 4  # starts 0, 6, 12, 13: overlapping by twice the context, the last one flush
    for index, node in enumerate(nodes):
        window, position = int(word_window[index]), int(word_position[index])
        assert tokenizer.convert_ids_to_tokens(int(windows[window, position])) == node.form
        if 2 <= index < len(nodes) - 2:  # every word away from the document's edges has 2 words of context
            assert 3 <= position <= 10 - 2


def test_words_are_the_mean_of_their_subwords_even_where_the_tokenizer_spells_them_letter_by_letter() -> None:
    tokenizer = load_tokenizer("minilm")  # the default MiniLM's: Russian in single letters
    text = "# newdoc id = ru\n# sent_id = 1\n# text = Мама мыла раму .\n" + "".join(
        f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n" for i, w in enumerate(["Мама", "мыла", "раму", "."], 1)) + "\n"
    nodes = list(parse_corefud(text).documents[0].nodes())
    windows = subword_windows(tokenizer, nodes, window=8, context=1)  # 6 subwords a window: words run past
    pieces = [len(tokenizer(n.form, add_special_tokens=False)["input_ids"]) for n in nodes]
    assert pieces[0] > 1 and windows.windows.shape[0] > 1
    assert all(1 <= length <= count for length, count in zip(windows.word_length.tolist(), pieces))
    hidden = torch.randn(*windows.windows.shape, 4)
    pooled = pool_words(hidden, windows, "mean")
    first = pool_words(hidden, windows, "first")
    for index in range(len(nodes)):
        window, position = int(windows.word_window[index]), int(windows.word_position[index])
        length = int(windows.word_length[index])
        assert torch.allclose(pooled[index], hidden[window, position:position + length].mean(0))
        assert torch.equal(first[index], hidden[window, position])


def test_a_model_saved_before_words_were_pooled_keeps_its_first_subwords(trained: Path, tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(trained, old)
    description = json.loads((old / "config.json").read_text(encoding="utf-8"))
    assert description["resolver"]["word_pooling"] == "mean"
    del description["resolver"]["word_pooling"]
    (old / "config.json").write_text(json.dumps(description), encoding="utf-8")
    assert load(old, "cpu")[0].config.word_pooling == "first"


def test_mention_detection_starts_at_the_training_datas_rate_of_mentions(encoder: str) -> None:
    """Every span starts near the share of mentions among the candidates, not at even odds, so that a short budget
    is not spent learning that nearly no span is a mention."""
    model = Resolver(load_encoder(encoder)[0], ResolverConfig(**{**SMALL.to_json(), "encoder": encoder}))
    model.start_detection_at(0.02)
    assert float(torch.sigmoid(model.start_bias.bias.detach())) == pytest.approx(0.02)
    features = document_features(parse_corefud(TRAIN_DOC).documents[0], load_encoder(encoder)[1], 512, 64, 30, True)
    with torch.no_grad():
        words = model.word_vectors(features, torch.device("cpu"))
        logits = model.span_logits(words, features.candidates, features.candidate_syntax.long())
    assert float(torch.sigmoid(logits).mean()) < 0.2  # 0.77 without it, on this random encoder


def test_an_encoder_that_reads_fewer_subwords_gets_windows_it_can_read(tmp_path: Path) -> None:
    words = [n.form for n in parse_corefud(TRAIN_DOC).documents[0].nodes()]
    short = str(make_tiny_encoder(tmp_path / "short", words, positions=10))  # 23 words: several windows
    lines: list[str] = []
    train(parse_corefud(TRAIN_DOC), None, tmp_path / "m", ResolverConfig(**{**SMALL.to_json(), "encoder": short}),
          Training(epochs=1, device="cpu"), progress=False, log=lines.append)
    assert lines[0] == "the encoder reads at most 10 subwords at once: windows of 10, not 16"
    model, tokenizer, device = load(tmp_path / "m", "cpu")
    assert (model.config.window, model.config.context) == (10, 2)
    resolve(model, tokenizer, parse_corefud(TRAIN_DOC), device)  # reads the document in windows of 10


def test_an_encoder_whose_tokenizer_gives_words_no_subwords_is_refused_by_name(tmp_path: Path) -> None:
    """Such a tokenizer would give every word the unknown token's vector, in silence."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())  # no vocabulary: nothing comes out of any word
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                            sep_token="[SEP]").save_pretrained(tmp_path)
    with pytest.raises(HarmonizeError, match="gives no subwords to words given one by one"):
        load_tokenizer(str(tmp_path))


def test_model_learns_a_document_to_conll_100(trained: Path) -> None:
    history = json.loads((trained / "training.json").read_text(encoding="utf-8"))
    best = history["epochs"][history["best_epoch"] - 1]["dev"]
    assert best["conll"] == 100.0 and best["mentions"] == 100.0
    model, tokenizer, device = load(trained, "cpu")
    assert evaluate(model, tokenizer, parse_corefud(TRAIN_DOC), device)["conll"] == 100.0


def test_saved_and_loaded_models_predict_the_same(trained: Path) -> None:
    outputs = []
    for _ in range(2):
        model, tokenizer, device = load(trained, "cpu")
        corpus = parse_corefud(TRAIN_DOC)
        resolve(model, tokenizer, corpus, device)
        outputs.append(format_corefud(corpus))
    assert outputs[0] == outputs[1]
    assert "Entity=(e1" in outputs[0]


def test_the_neural_resolver_answers_pcr_questions_by_its_clusters(trained: Path, udpipe_model: Path) -> None:
    """A PCR question put to the trained model (harmonize pcr solve --solver neural): its text, the pronoun back in
    place, is parsed (the tiny model learnt with trees) and resolved, and the answer is the option in the pronoun's
    predicted cluster."""
    from harmonize.pcr.coreference import ANSWERED, CoreferenceSolver, solve_with_resolver
    from harmonize.pcr.sources import make_question

    question = make_question("The old farmer bought a red cow . _ milked it every day .", "a red cow",
                             "The old farmer", 2, "He", "test")
    report = Report()
    solver = CoreferenceSolver("neural", str(trained), parse=f"udpipe:{udpipe_model}", device="cpu")
    assert solve_with_resolver([question], solver, report) == [2]
    assert report.counts[ANSWERED] == 1
    with pytest.raises(HarmonizeError, match="needs the folder"):
        solve_with_resolver([question], CoreferenceSolver("neural"))


def test_a_model_saved_before_the_tag_embeddings_still_loads(trained: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    weights = load_file(trained / "model.safetensors")
    for name, dropped in (("old", lambda key: key.startswith("tags.")), ("cut", lambda key: key == "pair.0.weight")):
        shutil.copytree(trained, tmp_path / name)
        save_file({k: v for k, v in weights.items() if not dropped(k)}, tmp_path / name / "model.safetensors")
    shutil.copytree(trained, tmp_path / "narrow")
    save_file({**weights, "pair.0.weight": weights["pair.0.weight"][:, 1:].contiguous()},
              tmp_path / "narrow" / "model.safetensors")
    model, tokenizer, device = load(tmp_path / "old", "cpu")
    assert all(not embedding.weight.any() for embedding in model.tags)  # zero: the old model's own vectors
    assert resolve(model, tokenizer, parse_corefud(TRAIN_DOC), device)["documents"] == 1
    with pytest.raises(HarmonizeError, match=r"weights that do not fit this resolver \(pair.0.weight missing\)"):
        load(tmp_path / "cut", "cpu")
    with pytest.raises(HarmonizeError, match=r"do not fit this resolver \(size mismatch for pair.0.weight: .*\)$"):
        load(tmp_path / "narrow", "cpu")


def test_a_model_saved_before_the_sentence_distance_still_loads(trained: Path, encoder: str,
                                                                tmp_path: Path) -> None:
    """Its config.json has no ``sentence_distance`` and its pair scorer no input for it: it loads without it."""
    from safetensors.torch import save_model

    shutil.copytree(trained, tmp_path / "old")
    settings = json.loads((trained / "config.json").read_text(encoding="utf-8"))
    del settings["resolver"]["sentence_distance"]
    (tmp_path / "old" / "config.json").write_text(json.dumps(settings), encoding="utf-8")
    old = Resolver(load_encoder(encoder)[0], ResolverConfig(**{**settings["resolver"], "sentence_distance": False}))
    save_model(old, str(tmp_path / "old" / "model.safetensors"))
    model, tokenizer, device = load(tmp_path / "old", "cpu")
    assert model.sentence_distance is None and not model.config.sentence_distance
    assert resolve(model, tokenizer, parse_corefud(TRAIN_DOC), device)["documents"] == 1


def test_a_document_without_a_tree_is_resolved_and_counted(trained: Path) -> None:
    model, tokenizer, device = load(trained, "cpu")
    corpus = parse_corefud(TRAIN_DOC)
    for node in corpus.documents[0].nodes():
        node.head = "_"
    report = Report()
    counts = resolve(model, tokenizer, corpus, device, report)
    assert counts["documents"] == 1
    assert report.counts[TREELESS_DOCUMENT] == 1


def test_predict_parses_a_document_without_a_tree(trained: Path, udpipe_model: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.conllu"
    bare.write_text("\n".join("\t".join(c[:6] + ["_", "_"] + c[8:]) if (c := line.split("\t"))[0].isdigit()
                              else line for line in TRAIN_DOC.split("\n")), encoding="utf-8")
    unparsed = run_cli("resolve", "predict", trained, bare, "-o", tmp_path / "a.conllu", "--device", "cpu", "-v")
    assert unparsed.returncode == 0, unparsed.stderr
    assert f"1 x {TREELESS_DOCUMENT}" in unparsed.stderr
    parsed = run_cli("resolve", "predict", trained, bare, "-o", tmp_path / "b.conllu", "--device", "cpu",
                     "--parse", f"udpipe:{udpipe_model}")
    assert parsed.returncode == 0, parsed.stderr
    assert "without a dependency tree" not in parsed.stderr
    rows = [line.split("\t") for line in (tmp_path / "b.conllu").read_text(encoding="utf-8").splitlines()]
    assert all(row[6].isdigit() for row in rows if row[0].isdigit())


def test_predict_ignores_the_inputs_coreference_and_writes_valid_corefud(trained: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.conllu"
    stripped = "\n".join(line.rsplit("\t", 1)[0] + "\t_" if line[:1].isdigit() else line
                         for line in TRAIN_DOC.split("\n"))
    source.write_text(stripped, encoding="utf-8")
    with_gold = tmp_path / "gold.conllu"
    with_gold.write_text(TRAIN_DOC, encoding="utf-8")
    outputs = []
    for name, path in (("a", source), ("b", with_gold)):
        report = Report()
        counts = resolve_files([path], tmp_path / f"{name}.conllu", "model", model=trained, device="cpu",
                               report=report)
        assert counts["documents"] == 1 and counts["words"] == 23
        outputs.append((tmp_path / f"{name}.conllu").read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1]  # the second input's coreference changed nothing
    assert report.counts["input coreference ignored: entities"] == 3
    ok, messages = validate(tmp_path / "a.conllu")
    assert ok, messages
    predicted = parse_corefud(outputs[0])
    assert dev_scores(parse_corefud(TRAIN_DOC), predicted)["conll"] == 100.0


def test_training_resumes_where_it_stopped(encoder: str, tmp_path: Path) -> None:
    config = ResolverConfig(**{**SMALL.to_json(), "encoder": encoder})
    schedule = Training(epochs=3, encoder_rate=1e-3, head_rate=3e-3, seed=3, device="cpu")
    train(parse_corefud(TRAIN_DOC), None, tmp_path / "whole", config, schedule, progress=False, log=lambda _: None)

    def stop_in_epoch_2(line: str) -> None:
        if line.startswith("epoch 2"):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(parse_corefud(TRAIN_DOC), None, tmp_path / "cut", config, schedule, progress=False,
              log=stop_in_epoch_2)
    assert (tmp_path / "cut" / "checkpoint").is_dir()
    with pytest.raises(HarmonizeError, match="unfinished training"):
        train(parse_corefud(TRAIN_DOC), None, tmp_path / "cut", config, schedule, progress=False)
    history = train(parse_corefud(TRAIN_DOC), None, tmp_path / "cut", config, schedule, resume=True,
                    progress=False, log=lambda _: None)
    assert [e.epoch for e in history] == [1, 2, 3]
    assert not (tmp_path / "cut" / "checkpoint").exists()
    whole = (tmp_path / "whole" / "model.safetensors").read_bytes()
    assert (tmp_path / "cut" / "model.safetensors").read_bytes() == whole  # the same weights as one run


def test_the_epoch_kept_is_the_best_tuning_score_and_on_a_tie_the_better_mentions_then_the_later() -> None:
    def epoch(number: int, conll: float, mentions: float) -> Epoch:
        return Epoch(number, 1.0, 1.0, dev={"conll": conll, "mentions": mentions})

    assert best_epoch([epoch(1, 20.0, 50.0), epoch(2, 30.0, 40.0), epoch(3, 25.0, 60.0)]).epoch == 2
    assert best_epoch([epoch(1, 0.0, 0.0), epoch(2, 0.0, 3.5), epoch(3, 0.0, 1.0)]).epoch == 2
    # Nothing found in any epoch (an under-trained model): the most trained weights, not the first.
    assert best_epoch([epoch(1, 0.0, 0.0), epoch(2, 0.0, 0.0), epoch(3, 0.0, 0.0)]).epoch == 3
    assert best_epoch([Epoch(1, 1.0, 1.0), Epoch(2, 1.0, 1.0)]).epoch == 2  # nothing scored: the last


def test_a_time_budget_ends_the_learning_rate_with_a_whole_epoch_where_little_is_left_unspent() -> None:
    # Epochs of 10 steps, 10 s a step.
    assert schedule_end(200, step=10, seconds_per_step=10, epoch_steps=10, planned=80) == 30  # 2 more epochs
    assert schedule_end(220, step=10, seconds_per_step=10, epoch_steps=10, planned=80) == 30  # not 2.2
    assert schedule_end(250, step=10, seconds_per_step=10, epoch_steps=10, planned=80) == 35  # 2.5: spent
    assert schedule_end(50, step=3, seconds_per_step=10, epoch_steps=10, planned=80) == 8  # the first won't end
    assert schedule_end(50, step=10, seconds_per_step=10, epoch_steps=10, planned=80) == 15  # nor the second
    assert schedule_end(1000, step=10, seconds_per_step=10, epoch_steps=10, planned=25) == 25  # everything fits
    assert schedule_end(-40, step=10, seconds_per_step=10, epoch_steps=10, planned=80) == 10  # already spent
    assert schedule_end(300, step=0, seconds_per_step=0, epoch_steps=10, planned=80) == 80  # no pace yet


def test_the_warm_up_is_a_share_of_the_steps_that_will_run_not_of_the_epochs_asked_for() -> None:
    # 50 epochs of 60 documents asked for, the budget fitted to 2 of them: the full rate from step 11 of 120.
    assert rate_factor(11, end=120, warmup=0.1) == 1.0
    assert rate_factor(0, end=120, warmup=0.1) == pytest.approx(1 / 12)
    assert rate_factor(119, end=120, warmup=0.1) == pytest.approx(1 / 108)
    assert rate_factor(120, end=120, warmup=0.1) == 0.0


def test_training_stops_where_the_fitted_schedule_ends(encoder: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With a time budget the schedule's end moves to where the budget runs out (here: step 3, one document a
    step), and training stops there, its last epoch scored, instead of running out the epochs asked for."""
    import harmonize.resolvers.neural as neural

    monkeypatch.setattr(neural, "schedule_end", lambda left, step, seconds_per_step, epoch_steps, planned: 3)
    config = ResolverConfig(**{**SMALL.to_json(), "encoder": encoder})
    lines: list[str] = []
    history = train(parse_corefud(TRAIN_DOC), parse_corefud(TRAIN_DOC), tmp_path / "m", config,
                    Training(epochs=6, seed=3, device="cpu", max_minutes=60), progress=False, log=lines.append)
    assert [e.epoch for e in history] == [1, 2, 3] and all(e.dev for e in history)
    assert lines[1] == "at the pace so far: the learning rate reaches zero at the end of epoch 3"
    assert lines[-1].endswith("(time budget reached)")


def test_a_budget_says_early_how_many_epochs_it_holds(encoder: str, tmp_path: Path) -> None:
    """The first line of a budgeted training says how many epochs fit, from the pace of its first documents (a
    short budget may not see the first epoch end)."""
    from harmonize.resolvers.neural import PACE_DOCUMENTS

    config = ResolverConfig(**{**SMALL.to_json(), "encoder": encoder})
    copies = Corpus([document for _ in range(PACE_DOCUMENTS) for document in parse_corefud(TRAIN_DOC).documents])
    lines: list[str] = []
    train(copies, None, tmp_path / "m", config, Training(epochs=1, seed=3, device="cpu", max_minutes=60),
          progress=False, log=lines.append)
    assert re.fullmatch(r"at this pace an epoch takes about \d+ s: the budget of 60 minutes holds about [\d.]+ "
                        r"epochs", lines[0]), lines
    assert lines[1].startswith("epoch 1: loss")

    lines.clear()  # a budget that holds less than the first epoch: the rate reaches zero within it, and it stops
    history = train(copies, None, tmp_path / "short", config, Training(epochs=5, seed=3, device="cpu",
                                                                         max_minutes=1e-5), progress=False,
                    log=lines.append)
    assert lines[0].endswith(": the learning rate reaches zero 0.05 epochs in"), lines
    assert len(history) == 1 and lines[-1].endswith("(time budget reached)")


def test_training_sets_the_encoders_attention_dropout(encoder: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """0 by default (PyTorch's fused attention then runs), the encoder's own with None; an encoder with no
    self-attention layer to set is said so, not passed over."""
    from harmonize.resolvers import neural

    model, _ = load_encoder(encoder)
    assert set_attention_dropout(model, 0.0) == 2  # one per layer
    assert [m.dropout.p for m in model.modules() if type(m).__name__ == "BertSelfAttention"] == [0.0, 0.0]
    assert set_attention_dropout(torch.nn.Linear(2, 2), 0.0) == 0

    rates: list[float] = []
    monkeypatch.setattr(neural, "set_attention_dropout", lambda _, rate: rates.append(rate) or 0)
    config = ResolverConfig(**{**SMALL.to_json(), "encoder": encoder})
    lines: list[str] = []
    for number, rate in enumerate((0.0, None, 0.05)):
        train(parse_corefud(TRAIN_DOC), None, tmp_path / str(number), config,
              Training(epochs=1, device="cpu", attention_dropout=rate), progress=False, log=lines.append)
    assert rates == [0.0, 0.05]
    assert [line for line in lines if "dropout" in line] == [
        "the encoder has no self-attention layer whose dropout could be set: it keeps its own"] * 2


def test_features_count_what_the_model_cannot_learn(encoder: str) -> None:
    _, tokenizer = load_encoder(encoder)
    document = parse_corefud(TRAIN_DOC).documents[0]
    features = document_features(document, tokenizer, window=512, context=64, max_width=2, gold=True)
    assert features.left_out == {"longer than 2 nodes: not a mention detection target": 2}
    assert len(features.gold_spans) == 8 and features.gold_entities.tolist() == [0, 1, 0, 1, 1, 0, 2, 0]


def test_words_carry_their_tags(encoder: str) -> None:
    _, tokenizer = load_encoder(encoder)
    document = parse_corefud(RULES_DOC).documents[0]
    tags = document_features(document, tokenizer, window=512, context=64, max_width=9, gold=False).tags

    def named(row: list[int]) -> list[str]:
        return [values[index - 1] if index else "_" for values, index in zip(TAG_VALUES, row)]

    # "Petr": PROPN, nsubj, Sing, Masc, no Person; "koupil": no features; "Ona": Person=3 too (PronType is no tag)
    assert named(tags[0].tolist()) == ["PROPN", "nsubj", "Sing", "Masc", "_"]
    assert named(tags[1].tolist()) == ["VERB", "root", "_", "_", "_"]
    assert named(tags[5].tolist()) == ["PRON", "nsubj", "Sing", "Fem", "3"]
    for node in document.nodes():  # untagged text (tokenized, not parsed): every tag 0
        node.upos, node.feats, node.deprel = "_", "_", "_"
    assert not document_features(document, tokenizer, 512, 64, 9, gold=False).tags.any()


def test_pair_scores_are_the_pair_scorer_over_the_concatenation(encoder: str) -> None:
    torch.manual_seed(0)
    model = Resolver(load_encoder(encoder)[0], SMALL).eval()
    mentions = torch.randn(7, SMALL.hidden, requires_grad=True)
    candidates = torch.randint(0, 7, (7, 4))
    pair_features = [(model.distance, torch.randint(0, 10, (7, 4))), (model.speaker, torch.randint(0, 3, (7, 4))),
                     (model.match, torch.randint(0, 4, (7, 4))),
                     (model.sentence_distance, torch.randint(0, 10, (7, 4)))]
    anaphor, antecedent = mentions[:, None].expand(-1, 4, -1), mentions[candidates]
    concatenated = torch.cat([anaphor, antecedent, anaphor * antecedent,
                              *(embedding(indices) for embedding, indices in pair_features)], -1)
    expected = model.pair(concatenated)[..., 0]
    scores = model.pair_scores(mentions, candidates, pair_features)
    assert torch.allclose(scores, expected, atol=1e-5)
    expected_gradient = torch.autograd.grad(expected.sum(), mentions)[0]
    assert torch.allclose(torch.autograd.grad(scores.sum(), mentions)[0], expected_gradient, atol=1e-5)


def test_spans_have_their_place_in_the_tree_and_mentions_their_keys(encoder: str) -> None:
    _, tokenizer = load_encoder(encoder)
    document = parse_corefud(RULES_DOC).documents[0]
    features = document_features(document, tokenizer, window=512, context=64, max_width=9, gold=False)
    forms = [node.form for node in features.nodes]
    # Sentence 3 starts at node 9: "Petr Novák ji čte , což je dobře ."
    assert features.sentences[8:10].tolist() == [1, 2] and features.sentences[-1] == 2
    spans = torch.tensor([[9, 10], [9, 9], [10, 11], [13, 16], [0, 3], [9, 17], [2, 3]])
    syntax, roots = span_syntax(features, spans)
    assert syntax.tolist() == [WHOLE_SUBTREE, PART_OF_SUBTREE, SEVERAL_ROOTS, WHOLE_SUBTREE,
                               SUBTREE_LESS_FUNCTION_WORDS, WHOLE_SUBTREE, WHOLE_SUBTREE]
    assert [forms[r] for r in roots.tolist()] == ["Petr", "Petr", "ji", "dobře", "koupil", "čte", "knihu"]
    # "Ona" (node 5) and "ji" (node 11) share the lemma "on"; "Petr" at nodes 0 and 9 the words too.
    keys = mention_keys(features, torch.tensor([[0, 0], [5, 5], [9, 9], [11, 11]]), torch.tensor([0, 5, 9, 11]))
    assert keys[:, 0].tolist() == [0, 1, 0, 2] and keys[:, 1].tolist() == [0, 1, 0, 1]
    # A malformed tree (a HEAD cycle) does not hang the count.
    assert subtree_sizes([1, 0, -1], [False, False, True]).tolist() == [[4, 4], [4, 4], [1, 1]]
    # Without a tree every span is NO_TREE and rooted at its last word.
    for node in document.nodes():
        node.head = "_"
    bare = document_features(document, tokenizer, window=512, context=64, max_width=9, gold=False)
    assert bare.parents is None
    assert span_syntax(bare, spans)[0].tolist() == [NO_TREE] * 7 and span_syntax(bare, spans)[1].tolist() == [
        10, 9, 11, 16, 3, 17, 3]


ZERO_DOC = "\n".join([
    "# newdoc id = zero",
    "# global.Entity = eid-etype-head-other",
    "# sent_id = 1",
    "# text = Anna came home .",
    row(1, "Anna", "Anna", "PROPN", "_", 2, "nsubj", "Entity=(e1--1)"),
    row(2, "came", "come", "VERB", "_", 0, "root"),
    row(3, "home", "home", "ADV", "_", 2, "advmod"),
    row(4, ".", ".", "PUNCT", "_", 2, "punct"),
    "",
    "# sent_id = 2",
    "# text = Slept .",
    row(1, "Slept", "sleep", "VERB", "_", 0, "root"),
    "1.1\t_\t#PersPron\tPRON\t_\t_\t_\t_\t1:nsubj\tEntity=(e1--1)",  # a zero subject
    row(2, ".", ".", "PUNCT", "_", 1, "punct"),
    "",
    "",
])


def test_empty_nodes_of_the_input_are_read_learnt_and_resolved(tmp_path: Path) -> None:
    """A zero the training data annotates on an empty node is learnt; the input's empty node gets the mention."""
    words = [node.form for node in parse_corefud(ZERO_DOC).documents[0].nodes()] + ["#PersPron"]
    config = ResolverConfig(**{**SMALL.to_json(), "encoder": str(make_tiny_encoder(tmp_path / "enc", words))})
    _, tokenizer = load_encoder(config.encoder)
    features = document_features(parse_corefud(ZERO_DOC).documents[0], tokenizer, 16, 3, 4, gold=True)
    assert [n.id for n in features.nodes] == ["1", "2", "3", "4", "1", "1.1", "2"]
    assert features.gold_spans.tolist() == [[0, 0], [5, 5]]
    train(parse_corefud(ZERO_DOC), None, tmp_path / "m", config, FAST, progress=False, log=lambda _: None)
    model, tokenizer, device = load(tmp_path / "m", "cpu")
    corpus = parse_corefud(ZERO_DOC)  # its coreference is dropped before resolving
    resolve(model, tokenizer, corpus, device)
    assert [[m.words[0].id for m in e.mentions] for e in corpus.documents[0].entities] == [["1", "1.1"]]
    written = parse_corefud(format_corefud(corpus)).documents[0]
    assert [[m.words[0].id for m in e.mentions] for e in written.entities] == [["1", "1.1"]]


def test_non_crossing_keeps_nested_spans_and_drops_crossing_ones() -> None:
    kept = non_crossing([[0, 3], [2, 5], [1, 2], [4, 4]], [0.9, 0.8, 0.7, 0.1])
    assert kept == [(0, 3), (1, 2), (4, 4)]


def test_non_overlapping_drops_nested_spans_too() -> None:
    kept = non_overlapping([[0, 3], [2, 5], [1, 2], [4, 4], [5, 6]], [0.9, 0.8, 0.7, 0.1, 0.05])
    assert kept == [(0, 3), (4, 4), (5, 6)]


def test_a_missing_or_broken_model_folder_is_one_clear_error(trained: Path, tmp_path: Path) -> None:
    with pytest.raises(HarmonizeError, match="not a trained resolver"):
        load(tmp_path, "cpu")
    broken = tmp_path / "broken"
    shutil.copytree(trained, broken)
    (broken / "model.safetensors").write_bytes(b"not weights")
    with pytest.raises(HarmonizeError, match="model.safetensors: weights that do not fit"):
        load(broken, "cpu")
    shutil.rmtree(broken / "encoder")
    with pytest.raises(HarmonizeError, match="no encoder/ folder"):
        load(broken, "cpu")
    with pytest.raises(HarmonizeError, match="encoder 'no/such-encoder'"):
        train(parse_corefud(TRAIN_DOC), None, tmp_path / "m", ResolverConfig(encoder="no/such-encoder"),
              Training(epochs=1, device="cpu"), progress=False)
    if not torch.cuda.is_available():
        with pytest.raises(HarmonizeError, match="no CUDA GPU"):
            train(parse_corefud(TRAIN_DOC), None, tmp_path / "m2", SMALL, Training(epochs=1, device="cuda"),
                  progress=False)


def test_fresh_copy_shares_nothing() -> None:
    corpus = parse_corefud(TRAIN_DOC)
    copy = fresh_copy(corpus)
    resolve_rules(copy)
    assert entity_texts(corpus) != entity_texts(copy)
    assert format_corefud(corpus) == format_corefud(parse_corefud(TRAIN_DOC))


def test_fresh_copy_keeps_an_unknown_head_unknown() -> None:
    """ECB+ annotates no heads: a copy headed by first words changed the lemma baseline's and the cross-document
    model's lemmas (which fall back on the last word) between the training corpus and validate's copies."""
    corpus = parse_corefud(TRAIN_DOC)
    document = corpus.documents[0]
    long = [m for m in document.mentions if len(m.words) > 1]
    document.move_head(long[0], None)
    copy = fresh_copy(corpus).documents[0]
    heads = {tuple(w.order for w in m.words): m.head for m in copy.mentions}
    assert heads[tuple(w.order for w in long[0].words)] is None
    for mention in (m for m in document.mentions if m is not long[0]):
        copied = heads[tuple(w.order for w in mention.words)]
        assert (copied is None) == (mention.head is None)
        assert mention.head is None or copied.order == mention.head.order


def run_cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harmonize", *map(str, args)], capture_output=True, text=True,
                          check=False)


def test_cli_rules_validate_and_their_errors(encoder: str, tmp_path: Path) -> None:
    rules_doc, tiny = tmp_path / "rules.conllu", tmp_path / "tiny.conllu"
    rules_doc.write_text(RULES_DOC, encoding="utf-8")
    tiny.write_text(TRAIN_DOC, encoding="utf-8")
    done = run_cli("resolve", "rules", rules_doc, "-o", tmp_path / "out.conllu")
    assert done.returncode == 0, done.stderr
    assert "resolved 1 document(s), 5 mentions" in done.stderr
    assert "2 x input coreference ignored: mentions" in done.stderr
    assert entity_texts(parse_corefud((tmp_path / "out.conllu").read_text())) == [["Ona", "ji", "knihu"],
                                                                                  ["Petr", "Petr"]]
    done = run_cli("validate", tiny, tiny, "--encoder", encoder, "--epochs", "2", "--device", "cpu")
    assert done.returncode == 0, done.stderr
    header, baseline, gold_strings, own_strings, resolver = done.stdout.splitlines()[-5:]
    assert done.stdout.startswith("protocol: trained on 1 train document(s), too few to hold any out")
    assert header.split() == ["MUC", "B3", "CEAF-e", "LEA", "CoNLL", "mentions"]
    assert baseline.startswith("rule baseline") and resolver.startswith("resolver")
    assert gold_strings.startswith("string match, gold mentions") and gold_strings.split()[-1] == "100.00"
    assert own_strings.startswith("string match, resolver's mentions")
    assert "epoch 2: loss" in done.stderr
    done = run_cli("resolve", "predict", tmp_path, tiny, "-o", tmp_path / "p.conllu")
    assert done.returncode == 1 and done.stderr.startswith(f"harmonize: error: {tmp_path}: not a trained resolver")
    done = run_cli("resolve", "train", tiny, "-o", tmp_path / "m", "--encoder", "no/such-encoder")
    assert done.returncode == 1 and "harmonize: error: encoder 'no/such-encoder'" in done.stderr
