"""The encoder solver of PCR4ALL questions, with a tiny random encoder: it learns a two-way choice with the option
beside the pronoun or in its place, is deterministic for a seed, cuts long inputs keeping the pronoun's sentence,
and the CLI refuses it without training questions."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers", reason="the encoder solver needs transformers: pip install -e '.[resolver]'")

from harmonize.errors import HarmonizeError, Report
from harmonize.pcr import write_questions
from harmonize.pcr.encoder import EncoderSettings, filled, fitted, train_and_solve
from harmonize.pcr.questions import Question
from tests.conftest import make_tiny_encoder

ANIMALS = ["cat", "dog", "horse", "cow", "goat", "sheep", "mouse", "duck"]
THINGS = ["table", "chair", "lamp", "door", "cup", "spoon", "book", "box"]


def questions(count: int, seed: int) -> list[Question]:
    """'The ANIMAL sat by the THING because _ was tired': the animal is always right, in either option slot."""
    coin = random.Random(seed)
    made = []
    for _ in range(count):
        animal, thing = coin.choice(ANIMALS), coin.choice(THINGS)
        first, second = (animal, thing) if coin.random() < 0.5 else (thing, animal)
        sentence = f"the {first} sat by the {second} because _ was tired"
        start = sentence.index("_")
        made.append(Question(sentence, animal if coin.random() < 0.5 else thing, "", 0, "it",
                             offsets={"pronoun": [start, start + 1]}))
        question = made[-1]
        question.option2 = thing if question.option1 == animal else animal
        question.answer = 1 if question.option1 == animal else 2
    return made


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> str:
    words = ["the", "sat", "by", "because", "was", "tired", "it", ",", ".", *ANIMALS, *THINGS]
    return str(make_tiny_encoder(tmp_path_factory.mktemp("pcr-encoder"), words, punctuation=True))


def test_filled_puts_the_option_beside_the_pronoun_or_in_its_place() -> None:
    sentence = "Anna met _ and _ smiled"
    question = Question(sentence, "Eva", "Jan", 1, "she", offsets={"pronoun": [sentence.rindex("_"), len(sentence) - 7]})
    # PCR4ALL: the option as an apposition of the pronoun ("it" -> "it, candidate,").
    assert filled(question, 1) == "Anna met _ and she, Eva, smiled"
    assert filled(question, 1, "replace") == "Anna met _ and Eva smiled"
    assert filled(question, 2, "replace") == "Anna met _ and Jan smiled"
    question.offsets = {}
    assert filled(question, 2, "replace") == "Anna met Jan and _ smiled"  # without offsets: the first "_"
    assert filled(Question("Tom beat _.", "Ann", "Eva", 1, "her"), 2) == "Tom beat her, Eva."  # no ",."
    assert filled(Question("Tom beat _.", "Ann", "Eva", 1, ""), 2) == "Tom beat Eva."  # no pronoun: its place


def test_a_long_input_is_cut_keeping_the_pronouns_sentence(encoder: str) -> None:
    """The context before the pronoun's sentence goes first, then what follows; a sentence longer than the limit
    keeps a window around the pronoun (the tiny tokenizer: a subword per word or punctuation, no special tokens)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(encoder)
    text = "the cat sat . the dog sat by the box . it, the cow, was tired . the duck sat ."
    start = text.index("it,")
    end = text.index("was") - 1
    assert fitted(tokenizer, text, start, end, 30) == (text, None)
    kept, cut = fitted(tokenizer, text, start, end, 12)
    assert cut == "context" and kept == "by the box . it, the cow, was tired ."  # 12 subwords
    kept, cut = fitted(tokenizer, text, start, end, 8)
    assert cut == "context" and kept == "it, the cow, was tired ."
    kept, cut = fitted(tokenizer, text, start, end, 5)
    assert cut == "sentence" and kept == "it, the cow,"
    # The pronoun's sentence first in the text: what follows it fills the room.
    text = "it, the cow, was tired . the duck sat by the box ."
    assert fitted(tokenizer, text, 0, text.index("was") - 1, 10) == ("it, the cow, was tired . the duck", "context")


@pytest.mark.parametrize("placement", ["apposition", "replace"])
def test_the_encoder_solver_learns_a_two_way_choice_and_is_seeded(encoder: str, placement: str) -> None:
    train, test = questions(96, seed=1), questions(40, seed=2)
    settings = EncoderSettings(encoder=encoder, epochs=8, rate=3e-3, batch=8, device="cpu", placement=placement)
    answers = train_and_solve(train, test, settings, progress=False, log=lambda _: None)
    right = sum(a == q.answer for a, q in zip(answers, test, strict=True))
    assert right >= 38, f"{right} of 40 right after training"
    assert train_and_solve(train, test, settings, progress=False, log=lambda _: None) == answers


def test_questions_left_out_or_cut_are_counted_and_no_training_question_is_an_error(encoder: str) -> None:
    train = questions(8, seed=3)
    train[0].answer = None
    report = Report()
    settings = EncoderSettings(encoder=encoder, epochs=1, device="cpu", max_length=9, placement="replace")
    train_and_solve(train, questions(4, seed=4), settings, report, progress=False, log=lambda _: None)
    assert report.counts["training questions without answer 1 or 2 left out"] == 1
    # "the cat sat by the table because cat was tired": 10 words, one subword each (no special tokens here), one
    # sentence: cut around the pronoun.
    cut = "longer than 9 subwords: the pronoun's sentence itself cut around the pronoun"
    assert report.counts[f"training questions {cut}"] == 7 and report.counts[f"answered questions {cut}"] == 4
    for question in train:
        question.answer = 3
    with pytest.raises(HarmonizeError, match="needs training questions"):
        train_and_solve(train, train, settings, progress=False)


def test_the_cli_solves_with_the_encoder_and_refuses_it_without_training_questions(encoder: str,
                                                                                    tmp_path: Path) -> None:
    train, test = tmp_path / "train.jsonl", tmp_path / "test.jsonl"
    write_questions(questions(32, seed=5), train)
    write_questions(questions(8, seed=6), test)

    def run(*args: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harmonize", "pcr", "solve", *map(str, args)],
                              capture_output=True, text=True, check=False)

    done = run(test, "--solver", "encoder", "-o", tmp_path / "p.jsonl")
    assert done.returncode == 1 and "give --train" in done.stderr
    done = run(test, "--solver", "encoder", "--train", train, "--encoder", encoder, "--epochs", "1", "--device",
               "cpu", "-o", tmp_path / "p.jsonl")
    assert done.returncode == 0, done.stderr
    assert "epoch 1: loss" in done.stderr
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 8
