"""A document id is data, not a path: no writer and no command puts a file outside its output folder."""

from __future__ import annotations

from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from harmonize.converters import formats
from harmonize.converters.corefud import read_corefud
from harmonize.io import ID_RENAMED, safe_file_names
from harmonize.views.html import write_views


def hostile_ids(tmp_path: Path) -> list[str]:
    return ["../../up", str(tmp_path / "absolute-target"), "..", ".", "CON", "a/b", "a\\b", "x" * 300, "same",
            "SAME", "index", "nul.txt", "ok"]


def hostile_corpus_file(tmp_path: Path) -> Path:
    """The packaged sample's first document repeated under every hostile id."""
    text = sample_path().read_text(encoding="utf-8")
    first = text.split("# newdoc id = sample-2")[0]
    documents = [first.replace("# newdoc id = sample-1", f"# newdoc id = {doc_id}") for doc_id in hostile_ids(tmp_path)]
    path = tmp_path / "work" / "in" / "hostile.conllu"
    path.parent.mkdir(parents=True)
    path.write_text("".join(documents), encoding="utf-8")
    return path


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*")}


def test_safe_file_names_keep_ids_apart_and_inside() -> None:
    names = safe_file_names(["../../x", "/etc/passwd", "..", "CON", "a/b", "a_b", "A_B", None, "y" * 300],
                            reserved=["index"])
    assert names[:7] == ["x", "etc_passwd", "document3", "_CON", "a_b", "a_b-2", "A_B-3"]
    assert names[7] == "document8"
    assert len(names[8]) <= 100 and names[8].startswith("yyy")
    assert len({n.lower() for n in names}) == len(names)
    assert safe_file_names(["index"], reserved=["index"]) == ["index-2"]
    assert all("/" not in n and "\\" not in n and n not in (".", "..") for n in names)


@pytest.mark.parametrize("fmt", [f.name for f in formats() if f.writer is not None])
def test_no_writer_writes_outside_its_output_folder(tmp_path: Path, fmt: str) -> None:
    source = hostile_corpus_file(tmp_path)
    before = files_under(tmp_path)
    out = tmp_path / "work" / "out" / "deep"
    result = harmonize.convert([source], "corefud", fmt, out, warn_losses=False)
    created = files_under(tmp_path) - before
    assert created, f"{fmt} wrote nothing"
    outside = sorted(p for p in created if out not in p.parents and p != out and p not in out.parents)
    assert not outside, f"{fmt} wrote outside {out}: {outside}"
    assert not (tmp_path / "absolute-target").exists()
    writer = next(f for f in formats() if f.name == fmt)
    if writer.writes_per_document:
        # every hostile document got a place of its own, and the renaming is reported
        # (the XMI writer's TypeSystem.xml is shared by the documents)
        stems = {p.stem for p in out.iterdir() if not p.name.startswith(".")} - {"TypeSystem"}
        assert len(stems) == len(hostile_ids(tmp_path))
        assert result.total.counts[ID_RENAMED] == len(hostile_ids(tmp_path)) - 3  # "same", "index" and "ok" stay


def test_view_pages_stay_inside_and_apart(tmp_path: Path) -> None:
    corpus = read_corefud(hostile_corpus_file(tmp_path))
    out = tmp_path / "work" / "views"
    before = files_under(tmp_path)
    written = write_views(corpus, out)
    created = files_under(tmp_path) - before
    assert all(out in p.parents or p == out for p in created)
    assert len(set(written)) == len(hostile_ids(tmp_path)) + 1  # pages and the index, none overwritten
    assert "index.html" in {p.name for p in written}


def test_mentions_json_name_must_be_a_plain_name(tmp_path: Path) -> None:
    with pytest.raises(harmonize.HarmonizeError, match="not a plain file name"):
        harmonize.convert([sample_path()], "corefud", "mentions-json", tmp_path / "out", options={"name": "../x"})
