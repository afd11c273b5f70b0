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


def gum_as_xmi(tsv: Path, out: Path) -> harmonize.Document:
    """A real GUM document as INCEpTION would export its span + relation layers (webanno.custom.Referent and
    webanno.custom.Coref) in XMI: each chain's mentions linked one to the next, bridges and split antecedents as
    bridge relations. Returns the document as the GUM reader reads it."""
    from cassis import Cas

    from harmonize.converters.surface import document_text
    from harmonize.converters.xmi import dkpro_type_system

    document = read_webanno_tsv(tsv).documents[0]
    system = dkpro_type_system()
    referent = system.create_type("webanno.custom.Referent")
    for name in ("entity", "infstat", "salience", "identity", "centering"):
        system.create_feature(referent, name, "uima.cas.String")
    coref = system.create_type("webanno.custom.Coref")
    system.create_feature(coref, "Governor", referent)
    system.create_feature(coref, "Dependent", referent)
    system.create_feature(coref, "type", "uima.cas.String")
    surface = document_text(document)
    cas = Cas(typesystem=system, sofa_string=surface.text)
    token = system.get_type("de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token")
    sentence_type = system.get_type("de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Sentence")
    for sentence in document.sentences:
        words = [n for n in sentence.nodes if n in surface.offsets]
        cas.add(sentence_type(begin=surface.offsets[words[0]][0], end=surface.offsets[words[-1]][1]))
        for node in words:
            cas.add(token(begin=surface.offsets[node][0], end=surface.offsets[node][1]))
    spans = {}
    for entity in document.entities:
        for mention in entity.mentions:
            features = {"entity": mention.entity_type, **mention.attrs}
            if "identity" in entity.attrs:
                features["identity"] = entity.attrs["identity"]
            spans[id(mention)] = referent(begin=surface.offsets[mention.words[0]][0],
                                          end=surface.offsets[mention.words[-1]][1], **features)
            cas.add(spans[id(mention)])

    def relate(source: harmonize.Mention, target: harmonize.Mention, kind: str) -> None:
        cas.add(coref(begin=surface.offsets[source.words[0]][0], end=surface.offsets[source.words[-1]][1],
                      Dependent=spans[id(source)], Governor=spans[id(target)], type_=kind))

    for entity in document.entities:
        for earlier, later in zip(entity.mentions, entity.mentions[1:]):
            relate(earlier, later, later.link or "coref")
    for bridge in document.bridges:
        relate(bridge.antecedent.mentions[0], bridge.anaphor, f"bridge:{bridge.label}")
    for split in document.split_antecedents:
        for antecedent in split.antecedents:
            relate(antecedent.mentions[0], split.anchor or split.entity.mentions[0], "bridge:aggr")
    out.write_text(cas.to_xmi(), encoding="utf-8")
    (out.parent / "TypeSystem.xml").write_text(system.to_xml(), encoding="utf-8")
    return document  # the TSV's own links (the gum reader derives GUM's build fields from the trees instead)


@pytest.mark.parametrize("name", ["GUM_bio_byron", "GUM_news_iodine"])
@pytest.mark.filterwarnings("ignore:Trying to add feature `type`")
def test_gum_span_and_relation_layers_in_xmi(name: str, tmp_path: Path) -> None:
    gum = gum_as_xmi(shared("gum", "v11.1.0", "coref_tsv", f"{name}.tsv"), tmp_path / f"{name}.xmi")
    ours = read_xmi(tmp_path / f"{name}.xmi").documents[0]

    def key(mention: harmonize.Mention) -> tuple:
        return (mention.sentence.index, tuple(w.id for w in mention.words))

    def partition(document: harmonize.Document) -> set:
        return {frozenset(key(m) for m in e.mentions) for e in document.entities}

    assert partition(ours) == partition(gum)
    assert {(key(m), m.link, m.entity_type) for e in ours.entities for m in e.mentions[1:]} == {
        (key(m), m.link, m.entity_type) for e in gum.entities for m in e.mentions[1:]}
    assert {(key(b.anaphor), b.label) for b in ours.bridges} == {(key(b.anaphor), b.label) for b in gum.bridges}
    assert len(ours.split_antecedents) == len(gum.split_antecedents)
