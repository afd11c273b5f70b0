"""diff shows the mention that is gone: the error a missing key mention causes names it, unmatched mentions are
marked in the page's text, each error says which operations it stands for, and NAME.html is one page."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harmonize.error_analysis import diff
from harmonize.error_analysis.analysis import diff_corpora
from harmonize.error_analysis.classify import INTRODUCE, MERGE, OPERATIONS
from harmonize.error_analysis.render import render_partition
from harmonize.schemas.model import Corpus
from tests.test_diff import BARN, CAT, DOG, HE, IT, ROME, document, kummerfeld_pair

CHAIN = [DOG, CAT, IT, BARN, ROME, HE]  # one entity of six mentions, the first a noun phrase


def test_deleting_the_first_mention_names_it_in_the_divided_entity() -> None:
    result = diff_corpora(Corpus([document([CHAIN])]), Corpus([document([CHAIN[1:]])]), matching="exact")
    (error,) = result.partitions[0].classification.errors
    partition = result.partitions[0]
    assert error.type == "divided entity" and len(error.mentions) == 5
    assert [partition.facts.text(m) for m in error.absent] == ["big dog"]
    assert error.operations == {MERGE: 2, INTRODUCE: 1}
    listed = partition.error_json(error)
    assert [m["text"] for m in listed["absent from the response"]] == ["big dog"]
    assert listed["operations"] == {"merge into cluster": 2, "introduce mention": 1}


def test_one_deleted_pronoun_is_one_introduce_and_the_two_merges_the_analyser_counts() -> None:
    result = diff_corpora(Corpus([document([[DOG, IT, HE]])]), Corpus([document([[DOG, HE]])]), matching="exact")
    (error,) = result.partitions[0].classification.errors
    assert error.type == "missing mention" and error.operations == {INTRODUCE: 1, MERGE: 2}
    assert result.operations[INTRODUCE] == 1 and result.operations[MERGE] == 2


def test_the_errors_operations_add_up_to_the_analysers_totals(tmp_path: Path) -> None:
    key, response = kummerfeld_pair(tmp_path)
    result = diff(key, response, "conll2012", matching="exact")
    summed = dict.fromkeys(OPERATIONS, 0)
    for partition in result.partitions:
        for error in partition.classification.errors:
            for name, count in error.operations.items():
                summed[name] += count
    assert summed == result.operations and sum(summed.values()) > 0


def test_unmatched_mentions_are_marked_in_the_text() -> None:
    result = diff_corpora(Corpus([document([CHAIN])]), Corpus([document([CHAIN[1:], [(8, 9), (17, 18)]])]),
                          matching="exact")
    page = render_partition(result.partitions[0])
    for view in (page.split('<div class="nested">')[1].split('<table class="pairs"')[0],  # nested brackets
                 page.split('<table class="pairs"')[1].split("</table>")[0]):  # side by side
        assert len(re.findall(r'class="k miss"[^>]*>\[<', view)) == 1  # "big dog", which the response lacks
        assert len(re.findall(r'class="r extra"[^>]*>⟨<', view)) == 2  # "ran" and "slept", which the key lacks
    assert "not in the response: big dog" in page and "2 merge into cluster, 1 introduce mention" in page


def test_an_html_output_of_several_documents_is_an_index_with_a_page_per_document(tmp_path: Path) -> None:
    """A corpus never becomes one page of megabytes: ``-o report.html`` is the index (genre, CoNLL F1 per document,
    errors, sortable), the documents' pages are in ``report/`` beside it."""
    key, response = kummerfeld_pair(tmp_path)
    done = subprocess.run([sys.executable, "-m", "harmonize", "diff", key, response, "--format", "conll2012",
                           "-o", tmp_path / "report.html"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    index = (tmp_path / "report.html").read_text(encoding="utf-8")
    pages = sorted((tmp_path / "report").glob("*.html"))
    assert len(pages) == 3 and (tmp_path / "report" / "index.html") in pages  # two documents and the index
    links = re.findall(r'<td><a href="(report/[^"]+)">', index)
    assert len(links) == 2 and all((tmp_path / link).is_file() for link in links)
    assert 'class=sortable' in index and "<th data-col=\"2\">CoNLL F1</th>" in index and "genre" in index
    for page in pages:
        if page.name != "index.html":
            text = page.read_text(encoding="utf-8")
            ids = re.findall(r' id="([^"]+)"', text)
            assert len(ids) == len(set(ids)) and '<table class="pairs" hidden>' in text  # the side-by-side view
    view = subprocess.run([sys.executable, "-m", "harmonize", "view", key, "--from", "conll2012", "-o",
                           tmp_path / "view.html"], capture_output=True, text=True, check=False)
    assert view.returncode == 0 and (tmp_path / "view.html").is_file()
    assert (tmp_path / "view.html").read_text(encoding="utf-8").count("<section id=") == 2
    folder = subprocess.run([sys.executable, "-m", "harmonize", "diff", key, response, "--format", "conll2012",
                             "-o", tmp_path / "pages"], capture_output=True, text=True, check=False)
    assert folder.returncode == 0 and (tmp_path / "pages" / "index.html").is_file()


def test_the_pages_work_in_a_real_browser(tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium): the browser check needs it")
    key, response = kummerfeld_pair(tmp_path)
    diff(key, response, "conll2012", pages=tmp_path / "report.html")  # several documents: the index, and pages
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
             "--enable-logging=stderr", "--v=0"]
    shown = []
    for page in [tmp_path / "report.html", *sorted((tmp_path / "report").glob("*.html"))]:
        done = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                              check=False, timeout=120)
        assert "Uncaught" not in done.stderr, page
        shown.append(done.stdout)
    assert any('class="k miss"' in dom for dom in shown) and "documents compared" in shown[0]