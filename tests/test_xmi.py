"""UIMA CAS XMI through dkpro-cassis: INCEpTION's conformance cases (the chain cases equal their TSV), a zip of
XMI files as a project export, and the model written as XMI with its type system reading back the same."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from harmonize.converters.webanno_tsv import read_webanno_tsv
from harmonize.converters.xmi import read_xmi, write_xmi
from harmonize.errors import FormatError, Report
from tests.conftest import file_params, shared, shared_files

SUITE = shared_files("*/reference.xmi", "webanno", "tsv3-suite")


def typesystem() -> str:
    return str(shared("webanno", "typesystems", "suite-typesystem.xml"))


def content(document: harmonize.Document) -> tuple:
    return ([[n.form for n in s.nodes] for s in document.sentences],
            [[(m.text, sorted(m.attrs.items()), m.link) for m in e.mentions] for e in document.entities])


@pytest.mark.parametrize("path", file_params(SUITE, "INCEpTION's XMI conformance cases"))
def test_every_case_reads_or_is_refused_in_one_line(path: Path) -> None:
    try:
        document = read_xmi(path, typesystem=typesystem()).documents[0]
    except FormatError as error:
        assert str(error).startswith(str(path)) and "\n" not in str(error)
        return
    if (path.parent / "reference.tsv").is_file() and "Chain" in path.parent.name:
        assert content(document) == content(read_webanno_tsv(path.parent / "reference.tsv").documents[0])


def test_the_chain_cases_are_read() -> None:
    suite = shared("webanno", "tsv3-suite")
    report = Report()
    document = read_xmi(suite / "testSubtokenChain" / "reference.xmi", typesystem=typesystem(),
                        report=report).documents[0]
    assert [[m.text for m in e.mentions] for e in document.entities] == [["This", "_", "test"]]
    assert report.counts["link inside a word widened to the word"] == 2


def test_the_model_as_xmi_reads_back_and_a_zip_is_a_corpus(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    report = Report()
    write_xmi(corpus, tmp_path / "out", report)
    assert (tmp_path / "out" / "TypeSystem.xml").read_text(encoding="utf-8").count("CoreferenceLink") >= 1
    back = read_xmi(tmp_path / "out")
    first = corpus.documents[0]
    assert [[m.text for m in e.mentions] for e in back.documents[0].entities] == [
        [m.text for m in e.mentions] for e in first.entities]
    assert back.documents[0].sentences[0].text == first.sentences[0].text
    assert report.counts["discontinuous mention written over its whole extent"] == 1
    archive = tmp_path / "project.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for file in (tmp_path / "out").iterdir():
            out.write(file, f"annotation/{file.name}")
    zipped = read_xmi(archive)
    assert [d.id for d in zipped.documents] == ["sample-1", "sample-2"]


def test_broken_xmi_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.xmi").write_text("<xmi:XMI", encoding="utf-8")
    with pytest.raises(FormatError, match="bad.xmi.*not a readable UIMA XMI"):
        read_xmi(tmp_path / "bad.xmi")
