"""Byte-identical round trips of every CorefUD CoNLL-U file in the shared data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harmonize.converters.corefud import format_corefud, parse_corefud, read_corefud
from harmonize.errors import FormatError
from harmonize.schemas.signature import corpus_signature
from tests.conftest import file_params, shared, shared_files

SAMPLES = shared_files("**/*.key", "corefud-samples", "corefud-scorer", "tests-corefud") + shared_files(
    "**/*.response", "corefud-samples", "corefud-scorer", "tests-corefud"
) + shared_files("*.conllu", "corefud-samples", "udapi")
GUM = shared_files("*.conllu", "gum", "v11.1.0", "dep")
GUM_V7 = shared_files("*.conllu", "gum", "v7.2.0", "dep")
PARCORFULL = shared_files("*.conllu", "mmax2", "parcorfull", "corefud_reference_en")
# The one GUM file that is not valid CorefUD: entity 39 is typed "event", then "abstract" (line 484).
GUM_TYPE_CONFLICT = "GUM_court_insanity.conllu"


def _roundtrip(path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    return text, format_corefud(parse_corefud(text, str(path)))


@pytest.mark.parametrize("path", file_params(SAMPLES, "CorefUD samples"))
def test_corefud_samples_roundtrip_byte_identical(path: Path) -> None:
    text, written = _roundtrip(path)
    assert written == text


@pytest.mark.parametrize("path", file_params(GUM, "GUM v11.1.0 dep"))
def test_gum_v11_roundtrip_byte_identical(path: Path) -> None:
    text, written = _roundtrip(path)
    assert written == text


@pytest.mark.parametrize("path", file_params(GUM_V7, "GUM v7.2.0 dep"))
def test_gum_v7_roundtrip_byte_identical(path: Path) -> None:
    """GUM v7 header entity-GRP-identity: closing brackets and relation ends repeat the label."""
    text, written = _roundtrip(path)
    assert written == text


@pytest.mark.parametrize("path", file_params(PARCORFULL, "ParCorFull CorefUD reference files"))
def test_parcorfull_corefud_roundtrip_byte_identical(path: Path) -> None:
    text, written = _roundtrip(path)
    assert written == text


def test_a_mention_typed_unlike_its_entity_keeps_its_type() -> None:
    """GUM's entity 39 is an "event" with one "abstract" mention (line 484): the mention keeps its own type."""
    path = shared("gum", "v11.1.0", "dep", GUM_TYPE_CONFLICT)
    document = read_corefud(path).documents[0]
    entity = next(e for e in document.entities if e.id == "39")
    assert entity.type == "event"
    assert [(m.etype, m.entity_type) for m in entity.mentions if m.etype is not None] == [("abstract", "abstract")]
    assert format_corefud(read_corefud(path)) == path.read_text(encoding="utf-8")


def test_gum_v11_counts_match_the_corpus_readme() -> None:
    shared("gum", "v11.1.0", "dep")
    mentions = entities = bridges = split_pointers = 0
    links: dict[str, int] = {}
    for path in GUM:
        for document in read_corefud(path, lenient=True).documents:
            entities += len(document.entities)
            bridges += len(document.bridges)
            split_pointers += sum(len(s.antecedents) for s in document.split_antecedents)
            for entity in document.entities:
                mentions += len(entity.mentions)
                for mention in entity.mentions:
                    links[mention.link or ""] = links.get(mention.link or "", 0) + 1
    # ../shared/data/gum/README.md: 75,697 mentions, 2,230 Bridge and 401 SplitAnte pointers, and 39,399
    # entities; distinct (file, GRP) pairs in the Entity= openings are 39,400, which is what we read.
    distinct = sum(
        len({eid for value in re.findall(r"Entity=([^|\t\n]*)", p.read_text(encoding="utf-8"))
             for eid in re.findall(r"\((\d+)-", value)})
        for p in GUM
    )
    assert (mentions, entities, bridges, split_pointers) == (75697, distinct, 2230, 401)
    assert distinct == 39400
    assert links["sgl"] == 27866 and links["coref"] == 27471 and links["ana"] == 17254 and links["cata"] == 392


def test_semantic_identity_after_roundtrip_through_the_writer() -> None:
    """Byte identity could hide a reader that drops what the writer re-creates; compare the models too."""
    path = shared("corefud-samples", "udapi", "fr-democrat-dev-sample.conllu")
    first = read_corefud(path)
    second = parse_corefud(format_corefud(first))
    assert corpus_signature(first) == corpus_signature(second)
    assert sum(len(e.mentions) for d in first for e in d.entities) == 11


@pytest.mark.parametrize(
    "folder", ["tests-conll", "tests-ua"], ids=["CoNLL-2012 scorer cases", "CoNLL-UA scorer cases"]
)
def test_non_corefud_files_in_the_samples_are_rejected_with_a_reason(folder: str) -> None:
    """tests-conll (CoNLL-2012) and tests-ua (CoNLL-UA, space-separated) are other formats, not CorefUD."""
    base = shared("corefud-samples", "corefud-scorer", folder)
    path = sorted(base.rglob("*.key"))[0]
    with pytest.raises(FormatError) as raised:
        read_corefud(path)
    assert raised.value.path == str(path) and raised.value.line is not None

