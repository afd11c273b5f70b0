"""CoNLL-2012 writer: byte-identical round trips on the real files, CorefUD -> CoNLL-2012 -> CorefUD, layouts, edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from harmonize.converters.conll2012 import format_conll2012, parse_conll2012, read_conll2012
from harmonize.converters.corefud import parse_corefud, read_corefud
from harmonize.errors import FormatError, Report
from harmonize.schemas.model import Corpus, Document
from tests.conftest import shared

# folder (under the shared data), file pattern, files that must fail in strict mode: name -> (line, reason)
CORPORA = {
    "litbank": ("litbank/conll", "*.conll", {}),
    "ontonotes-sample": ("conll2012/ontonotes_sample_allennlp", "*_conll", {}),
    "reference-scorer-cases": ("conll2012/scorer_testcases_conll", "TC-*", {}),
    "corefud-scorer-cases": ("corefud-samples/corefud-scorer/tests-conll", "TC-*", {}),
    "rucoco": ("rucoco/conll_skobinsky", "*.conll", {}),
    # The PCC continues mention 1 of maz-13946 into the next sentence, which no sentence-based model holds.
    "potsdam-pcc": ("mmax2/potsdam_pcc2.2/coreference-conll", "*.conll",
                    {"maz-13946.conll": (139, "mention not closed within its sentence")}),
    "gum-v11": ("gum/v11.1.0/coref_conll", "*.conll", {}),
    "gum-v7": ("gum/v7.2.0/coref_conll", "*.conll", {}),
    # The official OntoGUM output never closes "(10" at token 292 of GUM_bio_jerome.
    "ontogum-official": ("gum/ontogum_official_v7.2.0/conll", "*.conll",
                         {"GUM_bio_jerome.conll": (294, "mention not closed within its sentence")}),
}


@pytest.mark.parametrize("name", list(CORPORA))
def test_real_files_roundtrip_byte_identical(name: str) -> None:
    folder, pattern, broken = CORPORA[name]
    files = sorted(shared(*folder.split("/")).glob(pattern))
    assert files
    differing = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.name in broken:
            with pytest.raises(FormatError) as raised:
                parse_conll2012(text, str(path))
            line, reason = broken[path.name]
            assert (raised.value.line, raised.value.reason.split(":")[0]) == (line, reason)
            continue
        if format_conll2012(parse_conll2012(text, str(path))) != text:
            differing.append(path.name)
    assert not differing


def test_counts_match_the_litbank_readme() -> None:
    corpora = [read_conll2012(p) for p in sorted(shared("litbank", "conll").glob("*.conll"))]
    documents = [d for c in corpora for d in c.documents]
    entities = [e for d in documents for e in d.entities]
    tokens = sum(len(s.nodes) for d in documents for s in d.sentences)
    mentions = sum(len(e.mentions) for e in entities)
    assert (len(documents), tokens, mentions, len(entities), sum(e.is_singleton for e in entities)) == (
        100, 210532, 29103, 7927, 5763)


def test_ontonotes_columns_reach_the_model() -> None:
    corpus = read_conll2012(shared("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll"))
    document = corpus.documents[0]
    first = document.sentences[0]
    assert (document.id, document.genre, first.speaker) == ("bc/cctv/00/cctv_0000", "bc", "Speaker#1")
    assert [(n.form, n.xpos) for n in first.nodes[:3]] == [("In", "IN"), ("the", "DT"), ("summer", "NN")]
    # README: 3 parts, 8 sentences, 145 tokens, 12 mentions, 6 clusters
    assert (len(corpus.documents), sum(len(d.sentences) for d in corpus.documents),
            sum(len(s.nodes) for d in corpus.documents for s in d.sentences),
            sum(len(d.mentions) for d in corpus.documents),
            sum(len(d.entities) for d in corpus.documents)) == (3, 8, 145, 12, 6)


def _word_spans(document: Document) -> set[tuple[str | None, frozenset[tuple[int, ...]]]]:
    """Entities as (type, sets of document-level word positions), empty nodes left out."""
    offset: dict[int, int] = {}
    for node in document.nodes():
        if not node.is_empty:
            offset[id(node)] = len(offset)
    return {(entity.type, frozenset(tuple(offset[id(w)] for w in m.words if not w.is_empty) for m in entity.mentions))
            for entity in document.entities}


def test_gum_coref_conll_says_what_gum_corefud_says() -> None:
    """The typed labels of GUM's coref_conll give the same entities, types included, as its CorefUD files; the one
    exception is a real difference between the two releases of GUM_news_questionnaire."""
    base = shared("gum", "v11.1.0")
    differing = []
    for path in sorted((base / "dep").glob("*.conllu")):
        from_corefud = read_corefud(path, True, Report()).documents[0]
        from_conll = read_conll2012(base / "coref_conll" / f"{path.stem}.conll").documents[0]
        if _word_spans(from_corefud) != _word_spans(from_conll):
            differing.append(path.stem)
    assert differing == ["GUM_news_questionnaire"]


def _entity_sets(corpus: Corpus) -> list[set[frozenset[tuple[int, int, int]]]]:
    """Per document: entities as sets of (sentence, first word, last word), word indices without empty nodes."""
    result = []
    for document in corpus.documents:
        index = {id(node): at for sentence in document.sentences
                 for at, node in enumerate(n for n in sentence.nodes if not n.is_empty)}
        entities = set()
        for entity in document.entities:
            spans = set()
            for mention in entity.mentions:
                at = [index[id(w)] for w in mention.words if not w.is_empty]
                if at:
                    spans.add((mention.sentence.index, at[0], at[-1]))
            entities.add(frozenset(spans))
        result.append(entities)
    return result


@pytest.mark.parametrize("folder", ["gum/v11.1.0/dep", "mmax2/parcorfull/corefud_reference_en"])
def test_corefud_to_conll2012_and_back_keeps_mentions_and_entities(folder: str) -> None:
    dropped = 0
    for path in sorted(shared(*folder.split("/")).glob("*.conllu")):
        corpus = read_corefud(path, True, Report())
        report = Report()
        back = parse_conll2012(format_conll2012(corpus, report), f"{path.name}.conll")
        expected = _entity_sets(_without_discontinuous(corpus))
        assert _entity_sets(back) == expected, path.name
        dropped += report.counts["discontinuous mention dropped (policy drop; CoNLL-2012 has no gaps)"]
    # ParCorFull has 4 discontinuous mentions (doc23), GUM none; they are dropped and reported, not lost silently.
    assert dropped == (4 if "parcorfull" in folder else 0)


def _without_discontinuous(corpus: Corpus) -> Corpus:
    for document in corpus.documents:
        for mention in [m for m in document.mentions if m.is_discontinuous and all(not w.is_empty for w in m.words)]:
            document.remove_mention(mention)
    return corpus


def test_head_part_policy_keeps_the_part_with_the_head() -> None:
    corpus = parse_corefud("# newdoc id = d\n# global.Entity = eid-etype-head-other\n# sent_id = 1\n# text = a b c d\n"
                           + "".join(f"{i}\t{w}\t_\t_\t_\t_\t_\t_\t_\t_\n" for i, w in enumerate("abcd", 1)) + "\n")
    document = corpus.documents[0]
    a, b, _c, d = document.sentences[0].nodes
    document.add_mention(document.new_entity("e1"), [a, b, d], head=b)
    document.add_mention(document.new_entity("e2"), [d])
    cells = {}
    for policy in ("head-part", "drop"):
        report = Report()
        written = format_conll2012(corpus, report, discontinuous=policy)
        cells[policy] = [line.split("\t")[-1] for line in written.splitlines() if line.startswith("d\t")]
        assert sum(report.counts.values()) >= 1
        assert [r for r in report.counts if r.startswith("discontinuous")] == [
            "discontinuous mention cut to its part with the head (policy head-part; CoNLL-2012 has no gaps)"
            if policy == "head-part" else "discontinuous mention dropped (policy drop; CoNLL-2012 has no gaps)"]
    assert cells == {"head-part": ["(1", "1)", "-", "(2)"], "drop": ["-", "-", "-", "(2)"]}


def test_fresh_layouts_read_back_as_the_same_entities() -> None:
    corpus = read_corefud(shared("gum", "v11.1.0", "dep", "GUM_academic_art.conllu"))
    expected = _word_spans(corpus.documents[0])
    untyped = {(None, mentions) for _type, mentions in expected}
    for layout in ("ontonotes", "gum", "scorer"):
        report = Report()
        back = parse_conll2012(format_conll2012(corpus, report, layout=layout), "GUM_academic_art.conll")
        assert _word_spans(back.documents[0]) == (expected if layout == "gum" else untyped), layout
        assert report.counts.get("entity types not written (CoNLL-2012 has no place for them)", 0) == (
            0 if layout == "gum" else len(corpus.documents[0].entities))
    ontonotes = format_conll2012(corpus, layout="ontonotes").splitlines()
    assert ontonotes[0] == "#begin document (GUM_academic_art); part 000"
    assert ontonotes[1] == "GUM_academic_art\t0\t0\tAesthetic\tJJ\t*\t-\t-\t-\t-\t*\t(1"
    gum = format_conll2012(corpus, layout="gum").splitlines()
    assert gum[:2] == ["# begin document GUM_academic_art", "0\tAesthetic\t(abstract-1"]
    assert gum[-2:] == ["# end document", ""]  # as GUM writes it: a blank line after each document


def test_edits_change_only_what_was_edited_and_keep_alignment() -> None:
    path = shared("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll")
    text = path.read_text(encoding="utf-8")
    corpus = parse_conll2012(text, str(path))
    document = corpus.documents[0]
    hong_kong = document.mentions[0]
    assert hong_kong.text == "Hong Kong"
    document.remove_mention(hong_kong)
    document.sentences[0].nodes[0].form = "Within"
    changed = [(before, after) for before, after in zip(text.split("\n"), format_conll2012(corpus).split("\n"))
               if before != after]
    assert [(before.split()[3], before.split()[-1], after.split()[3], after.split()[-1])
            for before, after in changed] == [("In", "-", "Within", "-"), ("Hong", "(23", "Hong", "-"),
                                              ("Kong", "23)", "Kong", "-")]
    assert [len(after) - len(before) for before, after in changed] == [4, 0, 0]  # cells keep their right edge


@pytest.mark.parametrize("text,line,reason", [
    ("#begin document (d); part 000\nd 0 0 a (1)\n\n", 1, "#begin document without #end document"),
    ("#begin document (d); part 000\nd 0 0 a - (1)\nd 0 1 b (1)\n\n#end document\n", 3, "wrong column count"),
    ("#begin document (d); part 000\nd 0 0 a (1\nd 0 1 b 2)\n\n#end document\n", 3,
     "closing bracket without an open mention"),
    ("#begin document (d); part 000\nd 0 0 a (1)(\n\n#end document\n", 2, "malformed coreference"),
])
def test_broken_files_name_line_and_reason(text: str, line: int, reason: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.conll"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FormatError) as raised:
        read_conll2012(path)
    assert (raised.value.path, raised.value.line, raised.value.reason.split(":")[0]) == (str(path), line, reason)
    report = Report()
    read_conll2012(path, lenient=True, report=report)
    assert report.counts[reason] == 1
