"""`harmonize diff` compares documents as they are read and writes their pages at once: the same analysis, JSON and
pages as comparing whole corpora kept in memory, with large files read a piece at a time and the response in
another order; an error late in the input leaves the output as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

import harmonize
from harmonize.converters import corefud_pieces
from harmonize.error_analysis.render import write_pages
from harmonize.errors import HarmonizeError
from tests.test_score_in_step import write_pair


def _files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_pages_written_as_documents_are_compared_equal_those_of_the_kept_comparison(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key, response = write_pair(tmp_path)  # 12 GUM documents; the response reversed, a tenth of its mentions gone
    text = response.read_text(encoding="utf-8")
    short = tmp_path / "short.conllu"  # and one document only in the key
    short.write_text(text[text.index("# newdoc", 1):], encoding="utf-8")
    kept = harmonize.diff(key, short)
    assert len(kept.partitions) == len(kept.rows) == 11 and len(kept.only_in_key) == 1
    write_pages(kept, tmp_path / "kept")
    write_pages(kept, tmp_path / "kept.html")

    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", key.stat().st_size // 4)  # several pieces a side
    streamed = harmonize.diff(key, short, pages=tmp_path / "streamed")
    assert streamed.partitions == [] and streamed.to_json() == kept.to_json()
    assert {path.name for path in streamed.pages} == set(_files(tmp_path / "kept")) and len(streamed.pages) == 12
    assert _files(tmp_path / "streamed") == _files(tmp_path / "kept")
    one_page = harmonize.diff(key, short, pages=tmp_path / "streamed.html")
    assert one_page.pages[-1] == tmp_path / "streamed.html" and len(one_page.pages) == 13  # the index, and 12 pages
    assert _files(tmp_path / "streamed") == _files(tmp_path / "kept")
    assert (tmp_path / "streamed.html").read_text(encoding="utf-8").replace("streamed/", "") == (
        tmp_path / "kept.html").read_text(encoding="utf-8").replace("kept/", "")
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []  # nothing staged left
    with pytest.raises(HarmonizeError, match="kept no comparisons"):  # not an empty index, silently
        write_pages(streamed, tmp_path / "again")


def test_an_error_late_in_the_response_leaves_the_output_as_it_was(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    key, _ = write_pair(tmp_path)
    response = tmp_path / "response.conllu"  # the key's documents in its order, the last one broken
    lines = key.read_text(encoding="utf-8").split("\n")
    late = max(i for i, line in enumerate(lines) if "Entity=(" in line)
    lines[late] = lines[late].replace("Entity=(", "Entity=((", 1)
    response.write_text("\n".join(lines), encoding="utf-8")
    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", key.stat().st_size // 4)  # earlier pages come first
    for output in (tmp_path / "pages", tmp_path / "page.html"):
        with pytest.raises(HarmonizeError, match=rf"response\.conllu:{late + 1}:"):
            harmonize.diff(key, response, pages=output)
        assert not output.exists()
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] == []


def test_a_document_twice_on_one_side_is_refused(tmp_path: Path) -> None:
    key, response = write_pair(tmp_path)
    folder = tmp_path / "twice"
    folder.mkdir()
    for name in ("a.conllu", "b.conllu"):
        (folder / name).write_bytes(key.read_bytes())
    with pytest.raises(HarmonizeError, match="is also in .*a.conllu: each document once on a side"):
        harmonize.diff(folder, response)
