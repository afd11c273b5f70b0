"""CoNLL-UA (Universal Anaphora): every shared UA case reads and writes back byte for byte, markables map to the
model as the UA scorer reads them, and CorefUD -> UA -> CorefUD keeps what UA can hold and names what it cannot."""

from __future__ import annotations

from pathlib import Path

import pytest

import harmonize
from harmonize.converters.ua import format_ua, parse_ua
from harmonize.errors import FormatError, Report
from tests.conftest import file_params, shared, shared_files

UA_CASES = "corefud-samples", "corefud-scorer", "tests-ua"
CASES = [p for pattern in ("**/*.key", "**/*.response", "**/*.sys") for p in shared_files(pattern, *UA_CASES)]


@pytest.mark.parametrize("path", file_params(sorted(CASES), "the UA scorer's test cases"))
def test_every_shared_ua_case_comes_back_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_ua(parse_ua(text, str(path)), Report()) == text


def test_split_antecedents_plural_markables_and_zeros() -> None:
    folder = shared(*UA_CASES)
    (plural,) = parse_ua((folder / "plural" / "TC-PB.key").read_text(encoding="utf-8")).documents
    splits = {s.entity.id: sorted(e.id for e in s.antecedents) for s in plural.split_antecedents}
    assert splits == {"4": ["1", "2"], "5": ["1", "3"]}  # ElementOf=4,5 on markable_a, ElementOf=4 and =5 elsewhere
    (zeros,) = parse_ua((folder / "zeros" / "TC-ZA.key").read_text(encoding="utf-8")).documents
    assert any(m.words[0].is_empty for m in zeros.mentions)
    (crafted,) = parse_ua((folder / "discontinuous-craft" / "TC-O.key").read_text(encoding="utf-8")).documents
    assert any(m.is_discontinuous for m in crafted.mentions)  # one MarkableID in two brackets


def test_crossing_markables_name_their_closings() -> None:
    folder = shared(*UA_CASES, "partial-match-corefud", "overlapping_mentions")
    text = (folder / "TC-OLMA.key").read_text(encoding="utf-8")
    corpus = parse_ua(text)
    assert "markable_1)" in text and format_ua(corpus, Report()) == text


BAD = [
    ("unbalanced markable brackets", "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t)\t_\t_\t_\t_"),
    ("a markable without EntityID or MarkableID", "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(SemType=dn)\t_\t_\t_\t_"),
    ("columns that disagree with global.columns", "1\ta\t_\t_\t_"),
    ("an ElementOf naming no entity",
     "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1|ElementOf=9)\t_\t_\t_\t_"),
    ("a bridging anchor to a missing markable",
     "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1)\t(MarkableID=m1|MentionAnchor=m7)\t_\t_\t_"),
]


@pytest.mark.parametrize(("reason", "line"), BAD, ids=[b[0] for b in BAD])
def test_bad_lines_name_file_line_and_reason(reason: str, line: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.conllua"
    path.write_text(f"# newdoc id = d\n# sent_id = s1\n{line}\n", encoding="utf-8")
    with pytest.raises(FormatError, match=reason) as caught:
        harmonize.read(path, "ua")
    assert str(caught.value).startswith(str(path))
    lenient = Report()
    harmonize.read(path, "ua", lenient=True, report=lenient)
    assert any(reason in counted for counted in lenient.counts)


@pytest.mark.parametrize("name", ["GUM_academic_exposure", "GENTLE_poetry_death"])
def test_corefud_through_ua_keeps_what_ua_holds_and_names_the_rest(name: str, tmp_path: Path) -> None:
    source = shared("gum", "v11.1.0", "dep", f"{name}.conllu")
    original = harmonize.read(source).documents[0]
    written = harmonize.convert([source], "corefud", "ua", tmp_path / f"{name}.conllua", rules="corefud",
                                warn_losses=False)
    back = harmonize.read(tmp_path / f"{name}.conllua", "ua").documents[0]
    ruled = harmonize.read(tmp_path / f"{name}.conllua", "ua")  # heads came from the rules: UA's Min keeps them

    def entities(document) -> list:
        return sorted((tuple((m.sentence.index, tuple(w.id for w in m.words)) for m in e.mentions), e.type)
                      for e in document.entities)

    assert entities(back) == entities(original)
    assert len(back.bridges) == len(original.bridges) and len(back.split_antecedents) == len(
        original.split_antecedents)
    assert all(m.head is not None for d in ruled for m in d.mentions)
    lost = written.report.counts
    assert any("link types not written" in reason for reason in lost)
    assert any("MarkableID made" in reason for reason in lost)
    again = tmp_path / "again.conllu"
    harmonize.convert([tmp_path / f"{name}.conllua"], "ua", "corefud", again, warn_losses=False)
    assert harmonize.score(source, again, mode="exact", singletons=True).conll == 1.0


def test_multiword_tokens_go_through_ua_as_comments_the_ua_scorer_skips() -> None:
    """GUM's "I'm" (a multiword token) is written as a comment before its sentence's words: every line the UA scorer
    reads as a word is still a word, and reading the file back gives the token again, columns and all."""
    source = shared("gum", "v11.1.0", "dep", "GUM_vlog_studying.conllu")
    original = harmonize.read(source)
    report = Report()
    text = format_ua(original, report)
    assert not any("multiword" in reason for reason in report.counts)
    words = [line for line in text.split("\n") if line and not line.startswith("#")]
    assert all(line.split("\t")[0].replace(".", "").isdigit() for line in words)
    assert "# multiword = 2-3\tI'm\t_\t_\t_\t_\t_\t_\t_\t_" in text
    back = parse_ua(text)
    tokens = [[(t.id, t.form, t.columns) for t in s.multiwords] for s in original.documents[0].sentences]
    assert [[(t.id, t.form, t.columns) for t in s.multiwords] for s in back.documents[0].sentences] == tokens
    assert sum(map(len, tokens)) == 49


def test_a_multiword_comment_over_words_the_sentence_lacks_is_an_error_naming_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.conllua"
    path.write_text("# newdoc id = d\n# sent_id = s1\n# multiword = 1-3\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n"
                    "1\tde\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad.conllua:3: multiword token over words the sentence does not have"):
        harmonize.read(path, "ua")


def test_a_non_referring_markable_goes_through_corefud_and_back(tmp_path: Path) -> None:
    path = tmp_path / "pseudo.conllua"
    path.write_text("# newdoc id = d\n# sent_id = s1\n1\tIt\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=5-Pseudo|MarkableID=m1)"
                    "\t_\t_\t_\t_\n2\trains\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n", encoding="utf-8")
    conllu = tmp_path / "pseudo.conllu"
    result = harmonize.convert([path], "ua", "corefud", conllu, warn_losses=False)
    assert any("non-referring" in reason for reason in result.report.counts)
    back = tmp_path / "back.conllua"
    harmonize.convert([conllu], "corefud", "ua", back, warn_losses=False)
    assert "(EntityID=5-Pseudo|MarkableID=m1|" in back.read_text(encoding="utf-8")


def test_a_markable_over_two_sentences_follows_the_cross_sentence_option() -> None:
    path = shared(*UA_CASES, "discontinuous-craft", "TC-Q.key")
    parts = harmonize.read(path, "ua", report=Report()).documents[0]
    dropped = harmonize.read(path, "ua", report=Report(), cross_sentence="drop").documents[0]
    assert len(dropped.mentions) < len(parts.mentions)


GUM_WITH_SPACES = ("GUM_academic_exposure", "GUM_bio_emperor", "GUM_reddit_bobby")


def test_every_line_we_write_splits_at_white_space_into_its_columns(tmp_path: Path) -> None:
    """The UA scorer reads a line as ``line.split()``: GUM's MISC values with spaces (``XML=<hi rend:::"italic">``)
    made it fail on every document. White space inside a value is written as ``_`` and counted, per column."""
    dep = shared("gum", "v11.1.0", "dep")
    for name in GUM_WITH_SPACES:
        report = Report()
        text = format_ua(harmonize.read(dep / f"{name}.conllu", report=Report()), report)
        columns = [line.split("\t") for line in text.split("\n") if line and not line.startswith("#")]
        assert all(len(line.split()) == len(cells) == 15 for line, cells in
                   zip((line for line in text.split("\n") if line and not line.startswith("#")), columns))
        misc = "UA: white space inside MISC written as _ (the UA scorer splits lines at any white space)"
        if name == "GUM_academic_exposure":
            assert report.counts[misc] > 0 and 'XML=<hi_rend:::"italic"></hi>' in text


def test_the_ua_scorer_reads_our_ua_output_of_gum(tmp_path: Path) -> None:
    """Our UA output of GUM (and of a PCC document with crossing markables) scored against itself by ua-scorer.py
    (juntaoy/universal-anaphora-scorer): 100 on every metric (all 281 GUM v11.1.0 documents checked by hand the same way). Set UA_SCORER to its ua-scorer.py."""
    import os
    import subprocess
    import sys

    scorer = os.environ.get("UA_SCORER")
    if not scorer or not Path(scorer).is_file():
        pytest.skip("set UA_SCORER to ua-scorer.py of juntaoy/universal-anaphora-scorer to run it on our output")
    dep = shared("gum", "v11.1.0", "dep")
    corpus = harmonize.Corpus([d for name in GUM_WITH_SPACES
                               for d in harmonize.read(dep / f"{name}.conllu", report=Report()).documents])
    path = tmp_path / "gum.conllua"
    harmonize.write(corpus, path, format="ua", report=Report())
    crossing = tmp_path / "pcc.conllua"  # a markable crossing another, left out by default
    harmonize.write(harmonize.read(shared("mmax2", "potsdam_pcc2.2", "coreference-mmax", "maz-6918.mmax"), "mmax2",
                                   report=Report()), crossing, format="ua", report=Report())
    for written in (path, crossing):
        done = subprocess.run([sys.executable, scorer, str(written), str(written)], capture_output=True, text=True,
                              cwd=Path(scorer).parent, timeout=600)
        assert done.returncode == 0, done.stderr
        assert "CoNLL score: 100.00" in done.stdout


def _brackets_nest(text: str) -> bool:
    """Whether every closing of the IDENTITY column pops the markable it closes, as ua-scorer.py reads them."""
    stack: list[str] = []
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        cell = line.split("\t")[10]
        if cell == "_":
            continue
        closings, *openings = cell.split("(")
        for _ in closings:
            if not stack:
                return False
            stack.pop()
        stack.extend(o for o in openings if not o.endswith(")"))
    return not stack


def test_crossing_markables_are_left_out_and_counted_unless_named(tmp_path: Path) -> None:
    """PCC's maz-6918 has a markable that crosses another ("zwischen Jüterbog , Luckenwalde und Treuenbrietzen"):
    bare closings cannot say which one closes, so by default it is left out and counted (with its entity, which
    has no other markable), every bracket nests, and the accounting holds; ``crossing="named"`` keeps it with
    closings that name their markables, and reads back whole."""
    from tests.test_accounting import assert_accounted, write_and_read_back

    source = shared("mmax2", "potsdam_pcc2.2", "coreference-mmax", "maz-6918.mmax")
    original = harmonize.read(source, "mmax2", report=Report())
    back, report = write_and_read_back(original, "ua", tmp_path / "drop")
    assert report.counts["UA: crossing markables left out (ua-scorer.py's bracket stack cannot read them; -O "
                         "crossing=named writes them with named closings)"] == 1
    differences = assert_accounted(harmonize.read(source, "mmax2", report=Report()).documents, back, report)
    assert differences.counts["mention dropped"] == 1
    assert _brackets_nest(format_ua(original, Report()))
    named, report = write_and_read_back(original, "ua", tmp_path / "named", crossing="named")
    assert "markable_" in format_ua(original, Report(), "named") and not _brackets_nest(
        format_ua(original, Report(), "named"))
    assert not assert_accounted(harmonize.read(source, "mmax2", report=Report()).documents, named,
                                report).counts.get("mention dropped")


def test_a_newdoc_line_as_written_survives_ua_and_back(tmp_path: Path) -> None:
    # The CorefUD scorer's TC-O files end their newdoc line with a space: the line is kept as it was, not rewritten.
    source = tmp_path / "in.conllu"
    source.write_text("# newdoc id = doc \n# global.Entity = eid-etype-head-other\n# sent_id = doc-1\n# text = a b\n"
                      "1\ta\t_\t_\t_\t_\t0\t_\t_\tEntity=(e1--1)\n2\tb\t_\t_\t_\t_\t0\t_\t_\t_\n\n", encoding="utf-8")
    harmonize.convert([source], "corefud", "ua", tmp_path / "out.conllua", warn_losses=False, verify=True)
    assert "# newdoc id = doc \n" in (tmp_path / "out.conllua").read_text(encoding="utf-8")
    harmonize.convert([tmp_path / "out.conllua"], "ua", "corefud", tmp_path / "back.conllu", warn_losses=False)
    assert (tmp_path / "back.conllu").read_text(encoding="utf-8").startswith("# newdoc id = doc \n")
