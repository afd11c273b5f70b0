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


OFFICIAL = ("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")


@pytest.mark.parametrize("through", ["ua", "parquet", "corefud"])
def test_an_official_file_through_a_format_that_keeps_trees_still_validates(through: str, tmp_path: Path) -> None:
    """An official CorefUD file (it passes udvalidate) through UA, Parquet or CorefUD and back: the result passes
    too, scores 100 against its source, and UA's own markable fields come back where udvalidate can parse them
    (``other``: MarkableID:markable_1) rather than as a field global.Entity cannot declare."""
    import harmonize

    source = shared(*OFFICIAL)
    middle = tmp_path / f"middle.{through}"
    harmonize.convert([source], "corefud", through, middle, warn_losses=False, verify=True)
    back = tmp_path / "back.conllu"
    harmonize.convert([middle], through, "corefud", back, warn_losses=False, verify=True)
    ok, output = validate(back)
    assert ok, output
    assert harmonize.score(source, back, mode="exact", singletons=True).conll == 1.0
    if through == "ua":
        assert "MarkableID:markable_1" in back.read_text(encoding="utf-8")
        again = tmp_path / "again.conllua"
        harmonize.convert([back], "corefud", "ua", again, warn_losses=False, verify=True)
        assert again.read_text(encoding="utf-8") == middle.read_text(encoding="utf-8")  # MarkableIDs as they were


def test_a_round_trip_through_conll2012_keeping_comments_pairs_with_its_source_in_the_corefud_scorer(
        tmp_path: Path) -> None:
    """CorefUD -> CoNLL-2012 (-O comments=keep) -> CorefUD keeps every sentence id and multiword token, so the
    CorefUD scorer pairs the result with its source (without it: "Sent IDs ... not aligned"). The scorer itself
    runs where COREFUD_SCORER names its corefud-scorer.py (ufal/corefud-scorer, with udapi installed)."""
    import os

    import harmonize

    source = shared(*OFFICIAL)
    middle, back = tmp_path / "middle.conll", tmp_path / "back.conllu"
    harmonize.convert([source], "corefud", "conll2012", middle, warn_losses=False, verify=True,
                      options={"comments": "keep"})
    harmonize.convert([middle], "conll2012", "corefud", back, warn_losses=False, verify=True)
    original, returned = harmonize.read(source).documents[0], harmonize.read(back).documents[0]
    assert [s.id for s in returned.sentences] == [s.id for s in original.sentences]
    assert harmonize.score(source, back, mode="exact", singletons=True).conll == 1.0
    scorer = os.environ.get("COREFUD_SCORER")
    if not scorer or not Path(scorer).is_file():
        pytest.skip("set COREFUD_SCORER to corefud-scorer.py of ufal/corefud-scorer to run it on the round trip")
    done = subprocess.run([sys.executable, scorer, "-a", "exact", str(source), str(back)], capture_output=True,
                          text=True, cwd=Path(scorer).parent, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "CoNLL score: 100.00" in done.stdout
