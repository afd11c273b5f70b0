"""XML readers never resolve external entities: a document that declares one naming a local file reads without
that file's text (or is refused in one line), for every reader of XML (MMAX2, TEI, ECB+)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from harmonize.converters import get_format
from harmonize.errors import HarmonizeError, Report
from tests.conftest import shared

SECRET = "TOP-SECRET-CONTENT"


def poison(xml: Path, secret: Path) -> None:
    """Declare an external entity naming ``secret`` and use it as the text of the first element with text."""
    text = xml.read_text(encoding="utf-8")
    text = re.sub(r"^(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?", lambda m: (m.group(1) or "")
                  + f'<!DOCTYPE r [<!ENTITY xxe SYSTEM "{secret.as_uri()}">]>\n', text, count=1)
    text = re.sub(r">([^<>\s][^<>]*)</", ">&xxe;</", text, count=1)
    xml.write_text(text, encoding="utf-8")


def read_without_secret(fmt: str, path: Path) -> None:
    for lenient in (False, True):
        try:
            corpus = get_format(fmt, "read").read(path, lenient, Report())
        except HarmonizeError:
            continue
        forms = " ".join(n.form for d in corpus.documents for s in d.sentences for n in s.nodes)
        assert SECRET not in forms


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text(SECRET, encoding="utf-8")
    return path


def test_mmax2_words_do_not_resolve_external_entities(tmp_path: Path, secret: Path) -> None:
    harmonize.convert([sample_path()], "corefud", "mmax2", tmp_path / "p", warn_losses=False)
    words = tmp_path / "p" / "sample-1" / "Basedata" / "sample-1_words.xml"
    poison(words, secret)
    assert "&xxe;" in words.read_text(encoding="utf-8")
    read_without_secret("mmax2", tmp_path / "p")


def test_tei_text_does_not_resolve_external_entities(tmp_path: Path, secret: Path) -> None:
    harmonize.convert([sample_path()], "corefud", "tei", tmp_path / "t", warn_losses=False)
    for layer in (tmp_path / "t" / "sample-1").glob("*.xml"):
        poison(layer, secret)
    read_without_secret("tei", tmp_path / "t")


def test_xmi_with_a_doctype_is_refused(tmp_path: Path, secret: Path) -> None:
    harmonize.convert([sample_path()], "corefud", "xmi", tmp_path / "x", warn_losses=False)
    poison(tmp_path / "x" / "sample-1.xmi", secret)
    for lenient in (False, True):
        with pytest.raises(HarmonizeError, match="DOCTYPE"):
            get_format("xmi", "read").read(tmp_path / "x" / "sample-1.xmi", lenient, Report())


def test_ecbplus_tokens_do_not_resolve_external_entities(tmp_path: Path, secret: Path) -> None:
    topic = tmp_path / "1"
    topic.mkdir()
    shutil.copy(shared("ecbplus", "ECB+", "1", "1_1ecb.xml"), topic)
    poison(topic / "1_1ecb.xml", secret)
    assert "&xxe;" in (topic / "1_1ecb.xml").read_text(encoding="utf-8")
    read_without_secret("ecbplus", topic)
