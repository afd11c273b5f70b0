"""Written files pass the official UD validator (`udvalidate --level 2 --coref`, PyPI udtools) where the input did."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harmonize.converters.corefud import format_corefud, read_corefud
from harmonize.schemas.model import Corpus, Document, Node, Sentence
from tests.conftest import shared
from tests.test_model_edits import sample

UDVALIDATE = shutil.which("udvalidate") or str(Path(sys.executable).with_name("udvalidate"))


def validate(path: Path) -> tuple[bool, str]:
    if not Path(UDVALIDATE).exists():
        pytest.skip("udvalidate not installed: pip install -e '.[test]' brings udtools")
    done = subprocess.run(
        [UDVALIDATE, "--lang", "ud", "--level", "2", "--coref", str(path)], capture_output=True, text=True
    )
    return done.returncode == 0, done.stdout + done.stderr


def write(tmp_path: Path, corpus: Corpus, name: str) -> Path:
    path = tmp_path / name
    path.write_text(format_corefud(corpus), encoding="utf-8")
    return path


def test_validator_accepts_the_roundtrip_of_a_valid_corefud_file(tmp_path: Path) -> None:
    source = shared("corefud-samples", "udapi", "fr-democrat-dev-sample.conllu")
    assert validate(source)[0]
    ok, output = validate(write(tmp_path, read_corefud(source), "fr.conllu"))
    assert ok, output


def test_validator_accepts_edited_documents(tmp_path: Path) -> None:
    corpus = sample()
    first = corpus.documents[0]
    first.remove_mention(first.entity("e1").mentions[0])  # shrinks the split antecedent
    first.merge_entities(first.entity("e3"), first.entity("e5"))  # removes the bridge
    book = first.sentences[2].nodes[7]
    first.add_mention(first.new_entity("e10", "object"), [book], head=book)  # nested in "the book"
    second = corpus.documents[1]
    came, wore = second.sentences[0].nodes[2], second.sentences[0].nodes[5]
    second.add_mention(second.new_entity("e11", "event"), [came, wore], head=came)  # discontinuous
    ok, output = validate(write(tmp_path, corpus, "edited.conllu"))
    assert ok, output


def test_validator_accepts_a_document_built_from_scratch(tmp_path: Path) -> None:
    document = Document(id="built")
    sentence = document.add_sentence(Sentence(id="built-1", text="Ann saw herself"))
    for number, (form, upos, head, deprel) in enumerate(
        [("Ann", "PROPN", "2", "nsubj"), ("saw", "VERB", "0", "root"), ("herself", "PRON", "2", "obj")], 1
    ):
        sentence.add_node(Node(str(number), form, upos=upos, head=head, deprel=deprel))
    ann = document.new_entity(type="person")
    document.add_mention(ann, [sentence.nodes[0]], head=sentence.nodes[0])
    document.add_mention(ann, [sentence.nodes[2]], head=sentence.nodes[2], link="ana")
    path = write(tmp_path, Corpus([document]), "built.conllu")
    assert "# global.Entity = eid-etype-head-other-link" in path.read_text(encoding="utf-8")
    ok, output = validate(path)
    assert ok, output
