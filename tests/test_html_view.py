"""HTML views: what a page shows, that it is self-contained and small enough, and that a real browser renders it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from harmonize.converters.corefud import parse_corefud, read_corefud
from harmonize.schemas.model import Corpus
from harmonize.views.html import render_document, write_views
from tests.conftest import shared


def sample() -> Corpus:
    text = (resources.files("harmonize") / "samples" / "sample.conllu").read_text(encoding="utf-8")
    return parse_corefud(text)


def test_page_shows_every_mention_part_nesting_zeros_and_heads() -> None:
    corpus = sample()
    first, second = corpus.documents
    page = render_document(first)
    brackets = sum(len(m.parts()) for m in first.mentions)
    assert page.count('<span class="b ') == 2 * brackets  # an opening and a closing per part
    assert "∅" in page and 'title="entity e5 · type object · head streets' in page
    discontinuous = render_document(second)
    assert "]…<sub>e7</sub>" in discontinuous and ">…[</span>" in discontinuous  # a man … who wore a hat
    assert not re.search(r"(src|href)=\"?https?:|<link ", page)  # nothing to fetch: works offline


def test_views_of_several_documents_get_an_index(tmp_path: Path) -> None:
    written = write_views(sample(), tmp_path / "out")
    assert [p.name for p in written] == ["sample-1.html", "sample-2.html", "index.html"]
    assert 'href="sample-2.html"' in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    single = Corpus(sample().documents[:1])
    assert write_views(single, tmp_path / "one.html") == [tmp_path / "one.html"]


def test_page_size_stays_reasonable_for_ten_thousand_tokens() -> None:
    folder = shared("gum", "v11.1.0", "dep")
    size = tokens = 0
    for path in sorted(folder.glob("GUM_bio_*.conllu")):
        for document in read_corefud(path).documents:
            size += len(render_document(document).encode("utf-8"))
            tokens += sum(len(s.nodes) for s in document.sentences)
        if tokens >= 10_000:
            break
    assert tokens >= 10_000
    assert size / tokens * 10_000 < 3_000_000, f"{size / tokens * 10_000:,.0f} bytes per 10k tokens"


def test_a_real_headless_browser_renders_the_page(tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium): the browser check needs it")
    page = tmp_path / "sample-1.html"
    write_views(Corpus(sample().documents[:1]), page)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    assert dom.count('class="b ') == 18 and "sample-1" in dom
    subprocess.run([browser, *flags, "--window-size=1000,600", f"--screenshot={tmp_path / 'shot.png'}",
                    page.as_uri()], capture_output=True, timeout=120)
    assert (tmp_path / "shot.png").read_bytes()[:4] == b"\x89PNG"


def test_view_command(tmp_path: Path) -> None:
    source = tmp_path / "s.conllu"
    source.write_text((resources.files("harmonize") / "samples" / "sample.conllu").read_text(encoding="utf-8"),
                      encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harmonize", "view", str(source), "-o", str(tmp_path / "v")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "v" / "index.html").exists() and "wrote 3 page(s)" in done.stderr


def test_page_keeps_the_texts_spacing() -> None:
    """"Hello, world." reads as written: no space before the comma or the full stop, none inside a multiword
    token, a space after an empty node."""
    text = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = 1\n# text = Hello, world.\n"
            "1\tHello\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
            "2\t,\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "3\tworld\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1-place-1-)|SpaceAfter=No\n"
            "4\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    page = render_document(parse_corefud(text).documents[0])
    body = page.split('<span class="sid">', 1)[1].split("</span>", 1)[1]  # after the sentence id
    shown = re.sub(r"<sub>.*?</sub>", "", re.sub(r"<(?!/?sub)[^>]+>", "", body)).split("\n")[0]
    assert shown.startswith("Hello, [world].")
    sample_text = re.sub(r"<[^>]+>", "", render_document(sample().documents[0]).split("<body>")[1].split("<script>")[0])
    assert " ," not in sample_text and " ." not in sample_text


def test_a_large_file_is_viewed_a_piece_at_a_time_with_the_pages_of_one_go(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """`harmonize view` renders documents as they are read (only index rows kept): a file read in several pieces
    gives the bytes of reading it whole, on one page and as a folder; ECB+'s topics keep their entity index."""
    from harmonize.conversion import read_documents
    from harmonize.converters import corefud_pieces, get_format
    from harmonize.errors import Report
    from harmonize.views.html import render_documents, render_index

    ecb = harmonize_read_ecb()
    source = tmp_path / "corpus.conllu"
    files = sorted(shared("gum", "v11.1.0", "dep").glob("*.conllu"))[:6]
    source.write_text("".join(p.read_text(encoding="utf-8") for p in files), encoding="utf-8")
    whole = read_corefud(source)
    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", source.stat().st_size // 4)
    reader = get_format("corefud", "read")
    write_views(read_documents([source], reader, False, Report()), tmp_path / "one.html")
    assert (tmp_path / "one.html").read_text(encoding="utf-8") == render_documents(whole)
    written = write_views(read_documents([source], reader, False, Report()), tmp_path / "pages")
    assert written[-1].read_text(encoding="utf-8") == render_index(whole, [p.name for p in written[:-1]])
    assert written[0].read_text(encoding="utf-8") == render_document(whole.documents[0])
    alone = tmp_path / "alone.conllu"  # one document, freed by the reader once the next is asked for
    alone.write_text(files[0].read_text(encoding="utf-8"), encoding="utf-8")
    write_views(read_documents([alone], reader, False, Report()), tmp_path / "alone.html")
    assert (tmp_path / "alone.html").read_text(encoding="utf-8") == render_document(read_corefud(alone).documents[0])
    write_views(ecb, tmp_path / "ecb.html")
    assert (tmp_path / "ecb.html").read_text(encoding="utf-8") == render_documents(ecb)
    assert "Entities across documents" in render_documents(ecb)


def harmonize_read_ecb() -> Corpus:
    import harmonize

    return harmonize.read(shared("ecbplus", "ECB+", "1"), "ecbplus", report=harmonize.Report())


def test_a_broken_document_late_in_the_input_leaves_no_pages(tmp_path: Path) -> None:
    """Pages are written as documents are read, but kept beside the output until the last one: a malformed
    document after good ones is a one-line error and the output folder is not made."""
    from harmonize.conversion import read_documents
    from harmonize.converters import get_format
    from harmonize.errors import FormatError, Report

    files = sorted(shared("gum", "v11.1.0", "dep").glob("*.conllu"))[:3]
    text = "".join(p.read_text(encoding="utf-8") for p in files)
    last = text.rindex("# newdoc")  # the third document
    at = text.index("Entity=(", last) + len("Entity=")
    source = tmp_path / "corpus.conllu"
    source.write_text(text[:at] + "((" + text[at + 1:], encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        write_views(read_documents([source], get_format("corefud", "read"), False, Report()), tmp_path / "pages")
    assert raised.value.line is not None and "malformed Entity value" in raised.value.reason
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.conllu"]


def test_a_multiword_token_shows_as_the_text_has_it() -> None:
    """Spanish "del" is shown as "del", not as its words run together ("deel"); a mention that begins at its second
    word is bracketed around the whole token, and hovering the token names its words."""
    text = ("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = 1\n# text = Voy del mercado.\n"
            "1\tVoy\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "2-3\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "2\tde\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "3\tel\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1-place-2-\n"
            "4\tmercado\t_\t_\t_\t_\t_\t_\t_\tEntity=e1)|SpaceAfter=No\n"
            "5\t.\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    page = render_document(parse_corefud(text).documents[0])
    body = page.split('<span class="sid">', 1)[1].split("</span>", 1)[1]
    shown = re.sub(r"<sub>.*?</sub>", "", re.sub(r"<(?!/?sub)[^>]+>", "", body)).split("\n")[0]
    assert shown == "Voy [del mercado]."
    assert 'title="words: de + el">del</span>' in page and "«el mercado»" in page


def test_a_page_lists_its_entities_to_filter_and_mark_one_by_one() -> None:
    """Colours repeat past a hundred entities or so: the list beside the text marks every mention of the one
    clicked, and filters by id, type or words."""
    document = sample().documents[0]
    page = render_document(document)
    entries = re.findall(r'<li data-s="(e\d+)"><span class="eid \1">([^<]+)</span>', page)
    assert sorted(entity_id for _, entity_id in entries) == sorted(e.id for e in document.entities if e.mentions)
    assert 'class=filter' in page and "li[data-s]" in page  # the filter and the marking script


def test_the_index_has_the_genre_and_links_each_document_to_its_diff_page(tmp_path: Path) -> None:
    dep = shared("gum", "v11.1.0", "dep")
    files = [dep / "GUM_academic_art.conllu", dep / "GUM_bio_byron.conllu"]
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "harmonize", "diff", *files[:1], *files[:1], "-o",
                           site / "diff"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    write_views(Corpus([d for f in files for d in read_corefud(f).documents]), site)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "<td class=l>academic</td>" in index and "<td class=l>bio</td>" in index
    assert index.count('">diff</a>') == 1 and 'href="diff/GUM_academic_art.html"' in index  # byron has no diff page
