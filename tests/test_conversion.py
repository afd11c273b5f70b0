"""`harmonize.convert`, and one large CorefUD file converted in pieces on several cores: the same bytes, reports
and errors as a conversion in one go."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harmonize
from harmonize import conversion
from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.converters.corefud_pieces import document_pieces
from harmonize.errors import FormatError, Report
from tests.conftest import shared


def gum_file(tmp_path: Path, count: int, header_once: bool = False) -> Path:
    """``count`` GUM V11.1.0 documents in one file; ``header_once`` keeps only the first global.Entity line."""
    files = sorted(shared("gum", "v11.1.0", "dep").glob("*.conllu"))[:count]
    text = "".join(p.read_text(encoding="utf-8") for p in files)
    if header_once:
        first = text.index("# global.Entity")
        head, tail = text[: first + 1], text[first + 1 :]
        text = head + "\n".join(line for line in tail.split("\n") if not line.startswith("# global.Entity"))
    path = tmp_path / "gum.conllu"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversion, "PIECE_BYTES", 0)  # any file goes in pieces


@pytest.mark.parametrize("header_once", [False, True], ids=["header-per-document", "header-once"])
def test_pieces_give_the_bytes_of_one_go(tmp_path: Path, in_pieces: None, header_once: bool) -> None:
    source = gum_file(tmp_path, 12, header_once)
    data = source.read_bytes()
    pieces = document_pieces(data, 4)
    assert len(pieces) == 4 and pieces[0].start == 0 and pieces[-1].end == len(data)
    assert all(data[p.start :].startswith(b"# newdoc") for p in pieces)
    assert all(p.first_line == data.count(b"\n", 0, p.start) + 1 for p in pieces)
    result = harmonize.convert([source], output=tmp_path / "out.conllu", jobs=2)
    assert (tmp_path / "out.conllu").read_bytes() == data
    assert not result.total
    assert not list(tmp_path.glob(".*part"))  # part files are gone


def test_a_piece_reads_and_writes_as_in_the_whole_file(tmp_path: Path) -> None:
    data = gum_file(tmp_path, 6, header_once=True).read_bytes()
    whole = parse_corefud(data.decode())
    texts = []
    for piece in document_pieces(data, 3):
        corpus = parse_corefud(data[piece.start : piece.end].decode(), piece=piece)
        assert corpus.documents[0].entity_fields == whole.documents[0].entity_fields
        texts.append(format_corefud(corpus, Report(), piece))
    assert "".join(texts) == format_corefud(whole)


def test_rules_in_pieces_give_what_one_go_gives(tmp_path: Path, in_pieces: None) -> None:
    source = gum_file(tmp_path, 8)
    one = harmonize.convert([source], output=tmp_path / "one.conllu", rules="ontogum", jobs=1, warn_losses=False)
    two = harmonize.convert([source], output=tmp_path / "two.conllu", rules="ontogum", jobs=2, warn_losses=False)
    assert (tmp_path / "one.conllu").read_bytes() == (tmp_path / "two.conllu").read_bytes()
    assert one.total.to_dict() == two.total.to_dict()


def test_the_first_error_in_file_order_names_its_line(tmp_path: Path, in_pieces: None) -> None:
    source = gum_file(tmp_path, 8)
    lines = source.read_text(encoding="utf-8").split("\n")
    broken = [i for i, line in enumerate(lines) if line[:1].isdigit()]
    early, late = broken[100], broken[-100]
    for index in (early, late):
        lines[index] = lines[index].replace("\t", " ", 1)  # nine columns
    source.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(FormatError) as error:
        harmonize.convert([source], output=tmp_path / "out.conllu", jobs=2)
    assert error.value.line == early + 1 and "broken token line" in error.value.reason
    assert not (tmp_path / "out.conllu").exists()
    lenient = harmonize.convert([source], output=tmp_path / "out.conllu", jobs=2, lenient=True, warn_losses=False)
    sequential = harmonize.convert([source], output=tmp_path / "seq.conllu", jobs=1, lenient=True, warn_losses=False)
    assert lenient.total.to_dict() == sequential.total.to_dict()
    assert lenient.total.counts["sentence dropped"] == 2  # both, each at its own line (to_dict has examples)
    assert (tmp_path / "out.conllu").read_bytes() == (tmp_path / "seq.conllu").read_bytes()


def test_newdocument_comments_are_not_cut_points() -> None:
    data = b"# newdoc id = a\n1\tx\t_\t_\t_\t_\t0\troot\t_\t_\n\n# newdocument = b\n1\ty\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
    assert len(document_pieces(data, 2)) == 1
    assert len(document_pieces(data.replace(b"newdocument", b"newdoc"), 2)) == 2


def test_convert_is_the_cli_conversion(tmp_path: Path) -> None:
    result = harmonize.convert([], output=tmp_path / "sample.conllu", sample=True)
    assert result.outputs == [(conversion.sample_path(), tmp_path / "sample.conllu")]
    assert (tmp_path / "sample.conllu").read_bytes() == conversion.sample_path().read_bytes()


def test_a_header_inside_token_lines_is_not_the_one_in_force(tmp_path: Path) -> None:
    """The reader drops (lenient) a comment among token lines; the header a piece starts with must be the last one
    the reader took."""
    token = "1\tx\t_\t_\t_\t_\t0\troot\t_\tEntity=(e1-person-1)"
    text = (f"# newdoc id = a\n# global.Entity = eid-etype-head\n{token}\n# global.Entity = eid-head\n\n"
            f"# newdoc id = b\n{token}\n\n")
    data = text.encode()
    pieces = document_pieces(data, 2)
    assert len(pieces) == 2 and pieces[1].header == "eid-etype-head"
    whole = parse_corefud(text, lenient=True, report=Report())
    second = parse_corefud(data[pieces[1].start :].decode(), lenient=True, report=Report(), piece=pieces[1])
    assert second.documents[0].entity_fields == whole.documents[1].entity_fields == ("eid", "etype", "head")
    assert second.documents[0].entities[0].type == "person"


def test_a_rule_over_the_corpus_in_pieces_gives_what_one_go_gives(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """unique-ids needs the ids of every document before: the pieces of a large file go one after another and
    carry them, with the bytes and the report of one go."""
    from harmonize.converters import corefud_pieces

    source = gum_file(tmp_path, 8)
    whole = harmonize.convert([source], output=tmp_path / "whole.conllu", rules="corefud", jobs=2, warn_losses=False)
    monkeypatch.setattr(conversion, "PIECE_BYTES", 0)
    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", source.stat().st_size // 5)  # several pieces
    pieces = harmonize.convert([source], output=tmp_path / "pieces.conllu", rules="corefud", jobs=2,
                               warn_losses=False)
    assert (tmp_path / "pieces.conllu").read_bytes() == (tmp_path / "whole.conllu").read_bytes()
    assert pieces.total.to_dict() == whole.total.to_dict()
    renamed = sum(len(d.entities) for d in harmonize.read(source))  # every numeric id, counted per entity
    assert whole.total.counts["corefud unique-ids: numeric entity ids written e<number>, numbers continuing over the "
                              "file's documents"] == renamed


def _ruled_both_ways(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lenient: bool = False):
    """The file ruled (corefud) in pieces by two workers and in pieces one after another: (bytes, report) each."""
    from harmonize.converters import corefud_pieces

    monkeypatch.setattr(conversion, "PIECE_BYTES", 0)
    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", source.stat().st_size // 5)  # several pieces
    results = []
    for jobs in (2, 1):
        out = tmp_path / f"jobs{jobs}.conllu"
        done = harmonize.convert([source], output=out, rules="corefud", jobs=jobs, lenient=lenient, warn_losses=False)
        results.append((out.read_bytes(), done.total.to_dict()))
    return results


def test_ids_an_earlier_piece_used_are_prefixed_in_workers_as_one_after_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces ruled at once get unique-ids planned from a scan of the bytes: ids that clash with an earlier
    piece's (prefixed d<N>.) and a topic's shared ids (kept) come out as ruling them in turn gives."""
    ruled = tmp_path / "ruled.conllu"
    harmonize.convert([gum_file(tmp_path, 4)], output=ruled, rules="corefud", warn_losses=False)
    text = ruled.read_text(encoding="utf-8")
    again = text.replace("# newdoc id = ", "# newdoc id = again-").replace("# sent_id = ", "# sent_id = again-")
    first = text[: text.index("# newdoc", 1)]
    topical = "".join(re.sub(r"(# newdoc id = )([^\n]*\n)", rf"\g<1>{n}-\2# meta::topic = t1\n", first)
                      .replace("# sent_id = ", f"# sent_id = {n}-") for n in ("a", "b"))
    source = tmp_path / "clashing.conllu"
    source.write_text(topical + text + again, encoding="utf-8")  # the topic's two copies share their ids
    (parallel, parallel_report), (sequential, sequential_report) = _ruled_both_ways(source, tmp_path, monkeypatch)
    assert parallel == sequential and parallel_report == sequential_report
    reasons = " ".join(reason for section in parallel_report.values() for reason in section)
    assert "prefixed with the document's number" in reasons and "shared across the documents of a topic" in reasons


def test_a_piece_read_otherwise_than_scanned_is_ruled_one_after_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lenient reader drops a malformed mention the byte scan counted: the plan does not hold, and the pieces
    are ruled in turn, with the same bytes and report as without workers."""
    source = gum_file(tmp_path, 8)
    text = source.read_text(encoding="utf-8")
    cut = text.index("# newdoc", len(text) * 3 // 4)
    at = text.index("Entity=(", cut) + len("Entity=(")
    source.write_text(text[:at] + "-" + text[at:], encoding="utf-8")  # an opening without entity id
    (parallel, parallel_report), (sequential, sequential_report) = _ruled_both_ways(source, tmp_path, monkeypatch,
                                                                                    lenient=True)
    assert parallel == sequential and parallel_report == sequential_report
    assert any(reason.startswith("malformed") for reason in parallel_report["losses"])


def test_workers_are_never_more_than_the_cores() -> None:
    """Each worker holds a piece or a file: more of them than cores would add memory and no speed."""
    from harmonize.conversion import usable_cores, worker_count

    cores = usable_cores()
    assert worker_count(0) == cores and worker_count(10 * cores) == cores and worker_count(1) == 1
