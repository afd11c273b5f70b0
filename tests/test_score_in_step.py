"""Large files are scored a piece at a time, key and response in step: the same figures as scoring them whole,
a response in another order still pairs, and a missing document is still named."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import harmonize
from harmonize.converters import corefud_pieces
from harmonize.errors import HarmonizeError, Report
from harmonize.scoring import score as scoring
from tests.conftest import shared


def gum_files(count: int) -> list[Path]:
    return sorted(shared("gum", "v11.1.0", "dep").glob("GUM_*.conllu"))[:count]


def write_pair(tmp_path: Path) -> tuple[Path, Path]:
    key, response = tmp_path / "key.conllu", tmp_path / "response.conllu"
    documents = [harmonize.read(path, report=Report()).documents[0] for path in gum_files(12)]
    harmonize.write(harmonize.Corpus(documents=documents), key, report=Report())
    rng = random.Random(5)
    changed = [harmonize.read(path, report=Report()).documents[0] for path in gum_files(12)]
    for document in changed:
        for mention in list(document.mentions):
            if rng.random() < 0.1:
                document.remove_mention(mention)
    changed.reverse()  # another order than the key's
    harmonize.write(harmonize.Corpus(documents=changed), response, report=Report())
    return key, response


def test_in_step_equals_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key, response = write_pair(tmp_path)
    whole = harmonize.score(key, response)
    monkeypatch.setattr(scoring, "IN_STEP_BYTES", 0)
    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", key.stat().st_size // 4)  # several pieces a side
    in_step = harmonize.score(key, response)
    assert in_step.to_json() == whole.to_json() and in_step.documents == whole.documents == 12
    assert [label for label, _ in in_step.partitions] == [label for label, _ in whole.partitions]
    short = tmp_path / "short.conllu"
    text = response.read_text(encoding="utf-8")
    short.write_text(text[:text.rindex("# newdoc")], encoding="utf-8")
    with pytest.raises(HarmonizeError, match="is in the key but not in the response"):
        harmonize.score(key, short)
