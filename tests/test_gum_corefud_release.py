"""GUM to CorefUD as the CorefUD release does it: `--rules corefud` on GUM's dep/ files gives the header, the field
order, `other` (GUM's salience), Bridge and SplitAnte of CorefUD 1.3's English-GUM, ids in its e<number> style."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harmonize
from tests.conftest import shared

_BRACKET = re.compile(r"\([^()]*\)?|[^()]+\)")
_RELATION_ID = re.compile(r"[^<,]+")


def entity_ids(value: str) -> list[str]:
    """The entity ids of an Entity value's brackets, in order: ``(e1-x-1(e2-y-1)e1)`` -> e1, e2, e1."""
    return [item[1:].split("-")[0].rstrip(")") if item.startswith("(") else item.rstrip(")")
            for item in _BRACKET.findall(value)]


def replaced_ids(value: str, key: str) -> str:
    if key != "Entity":
        return _RELATION_ID.sub("#", value)
    return "".join(re.sub(r"^(\(?)[^-()]+", r"\1#", item) for item in _BRACKET.findall(value))


def coref_values(path: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """The global.Entity headers, and each token's Entity, Bridge and SplitAnte values in order."""
    headers, values = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# global.Entity"):
            headers.append(line)
        elif line and not line.startswith("#"):
            for item in line.split("\t")[9].split("|"):
                key, _, value = item.partition("=")
                if key in ("Entity", "Bridge", "SplitAnte"):
                    values.append((key, value))
    return headers, values


def equal_with_ids_mapped(ours: list[tuple[str, str]], theirs: list[tuple[str, str]]) -> tuple[int, int]:
    """How many values are equal once our entity ids are mapped one to one onto theirs (the mapping taken from
    where each id first appears), of how many."""
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    equal = 0
    for (key, mine), (their_key, value) in zip(ours, theirs, strict=True):
        my_ids, their_ids = ((entity_ids(mine), entity_ids(value)) if key == "Entity" else
                             (_RELATION_ID.findall(mine), _RELATION_ID.findall(value)))
        consistent = key == their_key and len(my_ids) == len(their_ids)
        for a, b in zip(my_ids, their_ids):
            if mapping.get(a, b) != b or (a not in mapping and b in taken):
                consistent = False
            else:
                mapping[a] = b
                taken.add(b)
        if consistent and replaced_ids(mine, key) == replaced_ids(value, their_key):
            equal += 1
    return equal, len(theirs)


@pytest.mark.parametrize(("source", "path"), [("corefud", ("dep", "GUM_academic_exposure.conllu")),
                                            ("gum", ("coref_tsv", "GUM_academic_exposure.tsv"))])
def test_gum_through_corefud_rules_is_corefuds_english_gum(source: str, path: tuple[str, str], tmp_path: Path) -> None:
    """From GUM's dep/ (its own CorefUD build) and from its TSV: the same, CorefUD's."""
    official = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu")
    out = tmp_path / "exposure.conllu"
    harmonize.convert([shared("gum", "v11.1.0", *path)], source, "corefud", out, rules="corefud", warn_losses=False)
    our_headers, ours = coref_values(out)
    their_headers, theirs = coref_values(official)
    assert our_headers == their_headers == [
        "# global.Entity = eid-etype-head-other-infstat-centering-minspan-link-identity"]
    equal, total = equal_with_ids_mapped(ours, theirs)
    assert (equal, total) == (total, 337)
    assert all(re.fullmatch(r"e\d+", i) for key, v in ours if key == "Entity" for i in entity_ids(v))
