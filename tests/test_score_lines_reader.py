"""The scorer's CorefUD lines reader (`harmonize.scoring.corefud_lines`) gives exactly the documents the full
reader gives, and gives up (NotPlain) exactly where the full reader, strict, refuses: on real files of every kind
under the shared data, on a hand-written document with every construct, and on fuzzed copies of both."""

from __future__ import annotations

import gc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harmonize.converters.corefud import parse_corefud
from harmonize.errors import FormatError, Report
from harmonize.scoring.corefud_lines import NotPlain, scored_text
from harmonize.scoring.score import score_files
from harmonize.scoring.scored import scored_documents
from tests.conftest import file_params, shared, shared_files

MODES = ("exact", "partial", "head")

# Every construct the reader handles: a topic, a header with an entity-level field, heads, a multiword token,
# empty nodes (a zero), a discontinuous mention, nested and one-node brackets, a duplicate mention, a split
# antecedent, bridges (one labelled includes), a second document with another header.
EVERY_CONSTRUCT = """\
# newdoc id = doc1
# meta::topic = t1
# global.Entity = eid-etype-head-identity-other
# sent_id = 1
# text = Mary and John met Ann
1\tMary\tMary\tPROPN\t_\t_\t4\tnsubj\t4:nsubj\tEntity=(e1-person-1-Mary-(e2-person-1-Mary)
2\tand\tand\tCCONJ\t_\t_\t3\tcc\t3:cc\t_
3\tJohn\tJohn\tPROPN\t_\t_\t1\tconj\t1:conj\tEntity=(e3-person-1-John)e1)
4-5\tmetAnn\t_\t_\t_\t_\t_\t_\t_\t_
4\tmet\tmeet\tVERB\t_\t_\t0\troot\t0:root\t_
4.1\tthey\tthey\tPRON\t_\t_\t_\t_\t4:nsubj\tEntity=(e1-person-1)
5\tAnn\tAnn\tPROPN\t_\t_\t4\tobj\t4:obj\tEntity=(e4-person-1-Ann)|SpaceAfter=No

# sent_id = 2
# text = They and she saw the red old house
1\tThey\tthey\tPRON\t_\t_\t5\tnsubj\t5:nsubj\tEntity=(e5-person-1-(e1-person-1)|SplitAnte=e2<e5,e3<e5
2\tand\tand\tCCONJ\t_\t_\t3\tcc\t3:cc\t_
3\tshe\tshe\tPRON\t_\t_\t1\tconj\t1:conj\tEntity=(e4-person-1)e5)
4\tsaw\tsee\tVERB\t_\t_\t0\troot\t0:root\t_
5\tthe\tthe\tDET\t_\t_\t8\tdet\t8:det\tEntity=(e6[1/2]-object-3|Bridge=e3<e6:includes,e4<e6
6\tred\tred\tADJ\t_\t_\t8\tamod\t8:amod\tEntity=e6[1/2])
7\told\told\tADJ\t_\t_\t8\tamod\t8:amod\t_
8\thouse\thouse\tNOUN\t_\t_\t4\tobj\t4:obj\tEntity=(e6[2/2]-object-(e7-object)e6[2/2])

# newdoc id = doc2
# global.Entity = GRP-etype-infstat
# sent_id = 3
# text = It rained
1\tIt\tit\tPRON\t_\t_\t2\texpl\t2:expl\tEntity=(e1-abstract-new)
2\trained\train\tVERB\t_\t_\t0\troot\t0:root\tEntity=(e1-abstract-giv)

"""


def projection(documents: list) -> list:
    """What the scorer uses of each document, comparable across readers (Spans compare by identity)."""
    return [(d.id, d.topic, d.subtopic, d.words, d.relations, d.duplicates,
             {eid: [(s.nodes, s.order, s.head, s.head_deps, s.sort_key, s.is_zero) for s in spans]
              for eid, spans in d.entities.items()}) for d in documents]


def assert_same_as_full_reader(text: str) -> bool:
    """Both readers agree on ``text`` in every mode; returns whether the lines reader took it."""
    try:
        corpus = parse_corefud(text, "t.conllu")
    except FormatError:
        corpus = None
    for mode in MODES:
        for forms in (True, False):
            try:
                lines = scored_text(text, mode, forms)
            except NotPlain:
                assert corpus is None, "gave up on text the full reader takes without a word"
                return False
            assert corpus is not None, "took text the full reader refuses"
            assert projection(lines) == projection(scored_documents(corpus, mode, forms)), (mode, forms)
    return True


def test_every_construct_is_read_as_the_full_reader_reads_it() -> None:
    assert assert_same_as_full_reader(EVERY_CONSTRUCT)
    documents = scored_text(EVERY_CONSTRUCT, "head", True)
    first = documents[0]
    assert (first.id, first.topic, documents[1].id) == ("doc1", "t1", "doc2")
    assert first.duplicates == 0 and len(first.entities["e1"]) == 3
    assert any(span.is_zero for span in first.entities["e1"])
    assert [len(s.nodes) for s in first.entities["e6"]] == [3]  # the two parts of the discontinuous mention


def test_reading_leaves_nothing_for_the_garbage_collector() -> None:
    """Score runs with the collector paused: the sentences built for heads from the trees must be freed by
    reference counting, or a large file's nodes would all stay (3.7 GB for the 224 MB file)."""
    gc.collect()
    gc.disable()
    try:
        for mode in MODES:
            scored_text(EVERY_CONSTRUCT, mode, True)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_relations_and_duplicates() -> None:
    first = scored_text(EVERY_CONSTRUCT, "exact", True)[0]
    assert first.relations == [("e5", ["e2", "e3"]), ("e6", ["e3"])]  # the split, then the includes bridge
    doubled = EVERY_CONSTRUCT.replace("(e7-object)e6[2/2])", "(e7-object)(e8)e6[2/2])")
    assert assert_same_as_full_reader(doubled)
    assert scored_text(doubled, "exact", True)[0].duplicates == 1  # e8 has the house's one node as e7 has


@pytest.mark.parametrize("problem", [
    "1\tMary\tMary\tPROPN\t_\t_\t4\tnsubj\t4:nsubj\tEntity=(e1-person-9-Mary-",  # head beyond the mention
    "1\tMary\tMary\tPROPN\t_\t_\t4\tnsubj\t4:nsubj\tEntity=((e1-person-1-Mary-",  # an empty bracket
    "1\tMary\tMary\tPROPN\t_\t_\t4\tnsubj\t4:nsubj\tEntity=(e1-person-1-Maria-",  # identity conflicts
    "1\tMary\tMary\tPROPN\t_\t_\t4\tnsubj\t4:nsubj\tEntity=(e1-person-1-Mary-|Bridge=e9<e1",  # an unknown entity
    "1\tMary\tMary\tPROPN\t_\t_\t4\tnsubj",  # a broken token line
])
def test_what_the_full_reader_reports_is_left_to_it(problem: str) -> None:
    text = EVERY_CONSTRUCT.replace(EVERY_CONSTRUCT.splitlines()[5], problem)
    assert not assert_same_as_full_reader(text)


REAL = [*shared_files("*.key", "corefud-samples", "corefud-scorer", "tests-corefud"),
        *shared_files("*.conllu", "corefud-real"), *shared_files("*.conllu", "corefud-samples", "udapi"),
        *shared_files("GUM_[a-c]*.conllu", "gum", "v11.1.0", "dep"),
        *shared_files("GUM_[a-c]*.conllu", "gum", "v7.2.0")]


@pytest.mark.parametrize("path", file_params(REAL, "CorefUD files"))
def test_real_files_read_as_the_full_reader_reads_them(path) -> None:
    assert_same_as_full_reader(path.read_text(encoding="utf-8"))


MUTATION_CHARACTERS = "()-[]/,<:|=e12 \t"


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["character", "character", "delete", "duplicate", "swap", "truncate"]))
        at = draw(st.integers(0, len(lines) - 1))
        if kind == "character" and lines[at]:
            line = lines[at]
            where = draw(st.integers(max(0, line.rfind("\t")), len(line)))  # in the MISC column mostly
            replaced = draw(st.integers(0, 1))  # 0: the character is inserted, 1: it replaces one
            lines[at] = line[:where] + draw(st.sampled_from(MUTATION_CHARACTERS)) + line[where + replaced:]
        elif kind == "delete":
            del lines[at]
        elif kind == "duplicate":
            lines.insert(at, lines[at])
        elif kind == "swap" and at + 1 < len(lines):
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
        elif kind == "truncate":
            lines = lines[: at + 1]
        if not lines:
            lines = [""]
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(EVERY_CONSTRUCT))
def test_fuzzed_text_is_read_alike_or_left_to_the_full_reader(text: str) -> None:
    assert_same_as_full_reader(text)


def test_fuzzed_real_file_is_read_alike_or_left_to_the_full_reader() -> None:
    text = shared("corefud-real", "en_gum-corefud-dev-GUM_academic_exposure.conllu").read_text(encoding="utf-8")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(mutated(text))
    def check(mutated_text: str) -> None:
        assert_same_as_full_reader(mutated_text)

    check()


def test_a_file_the_full_reader_refuses_gives_its_error_and_lenient_its_report(tmp_path) -> None:
    key = tmp_path / "key.conllu"
    key.write_text(EVERY_CONSTRUCT)
    broken = tmp_path / "broken.conllu"
    broken.write_text(EVERY_CONSTRUCT.replace("(e7-object)e6[2/2])", "(e7-object)"))
    with pytest.raises(FormatError) as refused:
        score_files(key, broken)
    with pytest.raises(FormatError) as full:
        parse_corefud(broken.read_text(), str(broken))
    assert str(refused.value) == str(full.value)
    result = score_files(key, broken, lenient=True)
    report = Report()
    parse_corefud(broken.read_text(), str(broken), lenient=True, report=report)
    assert result.report.counts == report.counts and sum(report.counts.values()) > 0
