"""WebAnno TSV 3.x: INCEpTION's conformance cases, the DKPro coreference example, all of GUM's TSV against the GUM
reader, hand-written files with the hard cases, and writing the model as TSV 3.3."""

from __future__ import annotations

from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from harmonize.converters.webanno_tsv import (
    SUBTOKEN_WIDENED,
    ZERO_LENGTH,
    format_webanno_tsv,
    read_webanno_tsv,
    split_unescaped,
    unescape,
)
from harmonize.errors import FormatError, Report
from tests.conftest import file_params, shared, shared_files

SUITE = shared_files("*/reference.tsv", "webanno", "tsv3-suite")
GUM = shared_files("*.tsv", "gum", "v11.1.0", "coref_tsv")


@pytest.mark.parametrize("path", file_params(SUITE, "INCEpTION's TSV 3 conformance cases"))
def test_every_conformance_case_reads_and_writes_back_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        corpus = read_webanno_tsv(path)
    except FormatError as error:  # refused in one line naming the file
        assert str(error).startswith(str(path)) and "\n" not in str(error)
        return
    assert format_webanno_tsv(corpus.documents[0], Report()) == text


def test_the_suites_chain_cases() -> None:
    suite = shared("webanno", "tsv3-suite")
    chain = read_webanno_tsv(suite / "testMultiTokenChain" / "reference.tsv").documents[0]
    assert [[m.text for m in e.mentions] for e in chain.entities] == [["This is", "a test"]]
    report = Report()
    sub = read_webanno_tsv(suite / "testSubtokenChain" / "reference.tsv", report=report).documents[0]
    # "hi" in "This" and "es" in "test" widen to their tokens; the zero-length position in "is" is an empty node
    assert [[m.text for m in e.mentions] for e in sub.entities] == [["This", "_", "test"]]
    assert sub.entities[0].mentions[1].words[0].is_empty
    assert report.counts[SUBTOKEN_WIDENED] == 2 and report.counts[ZERO_LENGTH] == 1


def test_the_dkpro_coreference_layer_example() -> None:
    report = Report()
    document = read_webanno_tsv(shared("webanno", "tsv3", "coref.tsv"), report=report).documents[0]
    assert len(document.sentences) == 200 and sum(len(s.nodes) for s in document.sentences) == 5194
    assert len(document.entities) == 89 and sum(len(e.mentions) for e in document.entities) == 651
    first = document.entities[0].mentions[0]
    assert first.text == "Frau Grubach" and first.attrs["reftype"] == "CM"
    assert document.entities[0].mentions[1].link == "COREFERENTIAL"  # the first link's relation, into the second
    assert report.counts["layer not read as coreference (kept with the file as read)"] == 2  # NER, lemmas


@pytest.mark.parametrize("path", file_params(GUM[::7], "GUM V11.1.0 coref_tsv"))
def test_gum_tsv_read_as_webanno_equals_the_gum_reader_and_writes_back(path: Path) -> None:
    """The general reader gives GUM's spans, types, attributes, bridges and split antecedents as the gum reader
    does; the gum reader alone adds what GUM's build derives from the trees (minspan, link, the build's grouping
    of GUM_news_questionnaire, spans over empty nodes)."""
    def signature(document: harmonize.Document) -> tuple:
        def key(mention: harmonize.Mention) -> tuple:
            return (mention.sentence.index, tuple(w.id for w in mention.words if not w.is_empty))

        return (
            sorted(repr((key(m), m.entity.type, m.etype, sorted((k, v) for k, v in m.attrs.items() if k != "minspan"),
                         m.entity.attrs.get("identity"))) for e in document.entities for m in e.mentions),
            sorted(sorted(key(m) for m in e.mentions) for e in document.entities)
            if path.stem != "GUM_news_questionnaire" else None,
            sorted(repr((key(b.anaphor), min(key(m) for m in b.antecedent.mentions), b.label))
                   for b in document.bridges),
            sorted(repr((min(key(m) for m in s.entity.mentions), sorted(min(key(m) for m in a.mentions)
                                                                         for a in s.antecedents)))
                   for s in document.split_antecedents),
        )

    ours = read_webanno_tsv(path).documents[0]
    gum = harmonize.read(path, "gum", bridge_types="keep").documents[0]
    assert signature(ours) == signature(gum)
    assert format_webanno_tsv(ours, Report()) == path.read_text(encoding="utf-8")


HARD_CASES = """#FORMAT=WebAnno TSV 3.3
#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|value
#T_CH=de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink|referenceType|referenceRelation


#Text=Anna saw Bo .
1-1\t0-4\tAnna\tPER\tNAM[1]\tcoref->1-1\t
1-2\t5-8\tsaw\t_\t_\t_\t
1-2.1\t8-8\t\t_\tZERO[2]\t*->2-1\t
1-3\t9-11\tBo\tPER\tNAM[3]|NAM[2]\t*->3-1|coref->2-2\t
1-4\t12-13\t.\t_\tX[4]\t*->4-1\t

#Text=She\\|he left .
2-1\t14-20\tShe|he\t_\tPRO[1]|PRO[4]\t*->1-2|*->4-2\t
2-1.1\t14-17\tShe\t_\tPRO[5]\t*->5-1\t
2-2\t21-25\tleft\t_\t_\t_\t
2-3\t26-27\t.\t_\t_\t_\t
"""


def test_hand_written_hard_cases(tmp_path: Path) -> None:
    """A chain across sentences, stacked links on one token, a zero-length position, a sub-token, escaping; a file
    with a named-entity layer besides the chain layer."""
    path = tmp_path / "hard.tsv"
    path.write_text(HARD_CASES, encoding="utf-8")
    report = Report()
    document = read_webanno_tsv(path, report=report).documents[0]
    chains = {e.id: [(m.sentence.index, m.text) for m in e.mentions] for e in document.entities}
    assert chains["1"] == [(0, "Anna"), (1, "She|he")]  # across sentences; the escaped | is part of the word
    assert chains["2"] == [(0, "_"), (0, "Bo")]  # a zero-length position: an empty node; stacked with chain 3 on Bo
    assert chains["3"] == [(0, "Bo")] and chains["5"] == [(1, "She|he")]  # the sub-token "She" widened
    assert document.entities[0].mentions[1].link == "coref" and document.entities[0].mentions[1].attrs == {
        "reftype": "PRO"}
    assert report.counts[ZERO_LENGTH] == 1 and report.counts[SUBTOKEN_WIDENED] == 1
    assert report.counts["layer not read as coreference (kept with the file as read)"] == 1
    assert format_webanno_tsv(document, Report()) == HARD_CASES  # unchanged: written back as read
    document.remove_entity(document.entities[-1])
    rewritten = format_webanno_tsv(document, Report())
    assert rewritten.startswith("#FORMAT=WebAnno TSV 3.3\n#T_CH=") and "She\\|he" not in rewritten.split("\n")[5]
    (tmp_path / "again.tsv").write_text(rewritten, encoding="utf-8")
    again = read_webanno_tsv(tmp_path / "again.tsv").documents[0]
    assert {e.id: [m.text for m in e.mentions] for e in again.entities} == {
        "1": ["Anna", "She|he"], "2": ["_", "Bo"], "3": ["Bo"], "4": [".", "She|he"]}


def test_a_mention_over_two_sentences_keeps_its_first_part(tmp_path: Path) -> None:
    path = tmp_path / "cross.tsv"
    path.write_text(HARD_CASES.replace("1-4\t12-13\t.\t_\tX[4]\t*->4-1\t", "1-4\t12-13\t.\t_\tX[6]\t*->6-1\t")
                    .replace("PRO[1]|PRO[4]\t*->1-2|*->4-2", "PRO[1]|X[6]\t*->1-2|*->6-1"), encoding="utf-8")
    report = Report()
    document = read_webanno_tsv(path, report=report).documents[0]
    assert [m.text for m in document.entity("6").mentions] == ["."]
    assert report.counts["mention over several sentences (first-part)"] == 1


def test_escaping_helpers() -> None:
    assert split_unescaped("a\\|b|c") == ["a\\|b", "c"]
    assert unescape("a\\|b\\_c\\->d\\\\") == "a|b_c->d\\"


def test_the_model_written_as_tsv_reads_back_with_the_same_chains(tmp_path: Path) -> None:
    corpus = harmonize.read(sample_path())
    report = Report()
    harmonize.write(corpus, tmp_path / "out", "webanno-tsv", report)
    assert report.counts["bridging not written (WebAnno TSV has no place for them)"] == 1
    assert report.counts["split antecedents not written (WebAnno TSV has no place for them)"] == 1
    for document in corpus.documents:
        back = read_webanno_tsv(tmp_path / "out" / f"{document.id}.tsv").documents[0]
        assert back.sentences[0].text == document.sentences[0].text  # the text, spacing included

        def chains(doc: harmonize.Document) -> list:
            return sorted(sorted((m.sentence.index, m.words[0].id if not m.words[0].is_empty else "zero", len(
                m.words)) for m in e.mentions) for e in doc.entities)

        if not any(m.is_discontinuous for m in document.mentions):
            assert chains(back) == chains(document)


def test_bad_input_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(HARD_CASES.replace("1-2\t5-8\tsaw", "1-2\t5-x\tsaw"), encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad.tsv:8: malformed token line"):
        read_webanno_tsv(path)
    report = Report()
    assert read_webanno_tsv(path, lenient=True, report=report).documents and report.counts["malformed token line"]
    (tmp_path / "other.tsv").write_text("hello\n", encoding="utf-8")
    with pytest.raises(FormatError, match="not WebAnno TSV 3"):
        read_webanno_tsv(tmp_path / "other.tsv")


@pytest.mark.parametrize("case", ["TC-ZB.key", "TC-ZC.key", "TC-ZG-2.response"])
def test_two_zeros_after_one_word_come_back_in_their_order(case: str, tmp_path: Path) -> None:
    """Zero-length sub-tokens 5.1 and 5.2 of different chains: their empty nodes are made in file order whichever
    chain is read first (they swapped before, merging two entities), so the round trip verifies."""
    source = shared("corefud-samples", "corefud-scorer", "tests-corefud", "zeros", case)
    result = harmonize.convert([source], "corefud", "webanno-tsv", tmp_path / "out", verify=True, warn_losses=False)
    assert result.outputs
