"""MMAX2: both coreference encodings on hand-written projects, policies, bad input, and the real corpora against
their reference conversions (ParCorFull's official CorefUD files, the Potsdam Commentary Corpus' CoNLL files)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from harmonize.converters.corefud import format_corefud, read_corefud
from harmonize.converters.mmax2 import other_attributes, other_value, read_mmax2, write_mmax2
from harmonize.errors import FormatError, Report
from tests.conftest import SHARED_DATA, file_params, shared, shared_files

COMMON_PATHS = """<?xml version="1.0"?>
<!DOCTYPE common_paths>
<common_paths>
<basedata_path>Basedata/</basedata_path>
<scheme_path>Schemes/</scheme_path>
<markable_path>Markables/</markable_path>
<annotations>
<level name="{coref}" schemefile="{coref}_scheme.xml">$_{coref}_level.xml</level>
<level name="other" schemefile="other_scheme.xml">$_other_level.xml</level>
{sentence}</annotations>
</common_paths>
"""
WORDS = "The cat sat . It purred loudly . Then nobody came ."


def project(tmp_path: Path, coref_markables: str, *, kind: str = "markable_set", attribute: str = "Coref_class",
            sentences: bool = True, other_markables: str = "") -> Path:
    """A one-document MMAX2 project: words, a coreference level, an 'other' level, sentences unless told."""
    (tmp_path / "Basedata").mkdir()
    (tmp_path / "Markables").mkdir()
    (tmp_path / "Schemes").mkdir()
    sentence_level = '<level name="sentence" schemefile="s.xml">$_sentence_level.xml</level>\n' if sentences else ""
    (tmp_path / "common_paths.xml").write_text(COMMON_PATHS.format(coref="coref", sentence=sentence_level))
    (tmp_path / "doc.mmax").write_text('<?xml version="1.0"?>\n<mmax_project><words>doc_words.xml</words>'
                                       "</mmax_project>\n")
    words = "".join(f'<word id="word_{i}">{w}</word>\n' for i, w in enumerate(WORDS.split(), 1))
    (tmp_path / "Basedata" / "doc_words.xml").write_text(f'<?xml version="1.0"?>\n<words>\n{words}</words>\n')
    (tmp_path / "Schemes" / "coref_scheme.xml").write_text(
        f'<annotationscheme><attribute id="a" name="{attribute}" type="{kind}"/></annotationscheme>')
    (tmp_path / "Markables" / "doc_coref_level.xml").write_text(
        f'<?xml version="1.0"?>\n<markables xmlns="www.eml.org/NameSpaces/coref">\n{coref_markables}</markables>\n')
    (tmp_path / "Markables" / "doc_other_level.xml").write_text(
        f'<?xml version="1.0"?>\n<markables xmlns="www.eml.org/NameSpaces/other">\n{other_markables}</markables>\n')
    if sentences:
        (tmp_path / "Markables" / "doc_sentence_level.xml").write_text(
            '<markables xmlns="www.eml.org/NameSpaces/sentence">'
            '<markable id="markable_0" span="word_1..word_4" mmax_level="sentence"/>'
            '<markable mmax_level="sentence" span="word_5..word_8" id="markable_1"></markable>'
            '<markable id="markable_2" span="word_9..word_12" mmax_level="sentence"/></markables>')
    return tmp_path / "doc.mmax"


def spans(document) -> list[tuple[str, list[str]]]:
    return [(e.id, [f"{w.sentence.index + 1}:{w.id}" for w in m.words]) for e in document.entities for m in e.mentions]


SETS = """<markable id="markable_1" span="word_1..word_2" coref_class="set_4" mmax_level="coref" mention="np"/>
<markable mention="pronoun" mmax_level="coref" coref_class="set_4" span="word_5" id="markable_2"></markable>
<markable id="markable_3" span="word_1,word_3" coref_class="set_9" mmax_level="coref"/>
<markable id="markable_4" span="word_10" coref_class="empty" mmax_level="coref" type="pleonastic"/>
<markable id="markable_5" span="word_3..word_6" coref_class="set_9" mmax_level="coref"/>
"""


def test_set_based_project(tmp_path: Path) -> None:
    report = Report()
    document = read_mmax2(project(tmp_path, SETS), report=report).documents[0]
    assert [len(s.nodes) for s in document.sentences] == [4, 4, 4]
    assert spans(document) == [
        ("e1", ["1:1", "1:2"]), ("e1", ["2:1"]),  # set_4
        ("e2", ["1:1", "1:3"]), ("e2", ["1:3", "1:4"]),  # set_9: a gapped span; one over two sentences, first part
        ("e3", ["3:2"]),  # empty: a singleton
    ]
    assert document.entities[0].mentions[1].attrs == {"other": "mention:pronoun"}
    assert report.counts == {"markable over 2 sentences (first-part)": 1}


@pytest.mark.parametrize(("policy", "expected"), [
    ("parts", [["1:1", "1:3"], ["1:3", "1:4"], ["2:1", "2:2"]]),
    ("drop", [["1:1", "1:3"]]),
])
def test_cross_sentence_policies(tmp_path: Path, policy: str, expected: list) -> None:
    document = read_mmax2(project(tmp_path, SETS), cross_sentence=policy).documents[0]
    assert [words for entity, words in spans(document) if entity == "e2"] == expected


def test_empty_markables_can_be_dropped(tmp_path: Path) -> None:
    report = Report()
    document = read_mmax2(project(tmp_path, SETS), empty="drop", report=report).documents[0]
    assert len(document.entities) == 2
    assert report.counts["markable outside every set dropped (empty=drop)"] == 1


POINTERS = """<markable id="markable_1" span="word_1..word_2" anaphor_antecedent="empty" mmax_level="coref"/>
<markable id="markable_2" span="word_5" anaphor_antecedent="markable_1" mmax_level="coref"/>
<markable id="markable_3" span="word_10" anaphor_antecedent="other:markable_1" mmax_level="coref"/>
<markable id="markable_4" span="word_9" anaphor_antecedent="markable_2;markable_3" mmax_level="coref"/>
"""


def test_pointer_chains_cross_levels_and_ambiguous_lists(tmp_path: Path) -> None:
    path = project(tmp_path, POINTERS, kind="markable_pointer", attribute="Anaphor_antecedent", sentences=False,
                   other_markables='<markable id="markable_1" span="word_11" mmax_level="other"/>\n'
                                   '<markable id="markable_7" span="word_7" mmax_level="other"/>\n')
    report = Report()
    document = read_mmax2(path, report=report).documents[0]
    assert len(document.sentences) == 1  # no sentence level: one sentence, reported
    assert report.counts["no sentence markables: the document is one sentence"] == 1
    # markable_4 -> markable_2 -> markable_1; markable_3 -> other:markable_1; other:markable_7 is alone
    assert spans(document) == [("e1", ["1:1", "1:2"]), ("e1", ["1:5"]), ("e1", ["1:9"]),
                               ("e2", ["1:7"]), ("e3", ["1:10"]), ("e3", ["1:11"])]
    ambiguous = document.entities[0].mentions[2]
    assert other_attributes(ambiguous.attrs["other"]) == {"ambiguous_antecedents": "markable_2;markable_3"}
    assert report.counts["ambiguous antecedent list: linked to the first, the list kept"] == 1


def test_a_dangling_pointer_names_file_and_line(tmp_path: Path) -> None:
    markables = '<markable id="markable_1" span="word_1" anaphor_antecedent="markable_99" mmax_level="coref"/>\n'
    path = project(tmp_path, markables, kind="markable_pointer", attribute="anaphor_antecedent")
    with pytest.raises(FormatError) as error:
        read_mmax2(path)
    assert error.value.path.endswith("doc_coref_level.xml") and error.value.line == 3
    assert "pointer to a markable that does not exist" in error.value.reason
    report = Report()
    assert len(read_mmax2(path, lenient=True, report=report).documents[0].entities) == 1
    assert report.counts["pointer to a markable that does not exist"] == 1


@pytest.mark.parametrize(("damage", "reason", "line"), [
    (lambda p: (p / "Markables" / "doc_coref_level.xml").write_text("<markables>\n<<<<<<< HEAD\n"), "malformed XML", 2),
    (lambda p: (p / "Markables" / "doc_coref_level.xml").write_text(
        '<markables>\n<markable id="m" span="word_1..word_99"/>\n</markables>'), "span names a word", 2),
    (lambda p: (p / "Markables" / "doc_coref_level.xml").unlink(), "file missing", None),
])
def test_bad_input_names_file_line_and_reason(tmp_path: Path, damage, reason: str, line: int | None) -> None:
    path = project(tmp_path, SETS)
    damage(tmp_path)
    with pytest.raises(FormatError) as error:
        read_mmax2(path)
    assert error.value.path.endswith("doc_coref_level.xml") and error.value.line == line
    assert reason in error.value.reason
    report = Report()
    read_mmax2(path, lenient=True, report=report)
    assert any(reason in r for r in report.counts)


def test_other_field_round_trips_values_with_separators() -> None:
    attributes = {"split": "split reference", "position": "non-subject", "note": "a:b,c%d+e"}
    assert other_value(attributes) == "note:a%3Ab%2Cc%25d%2Be,position:non%2Dsubject,split:split+reference"
    assert other_attributes(other_value(attributes)) == attributes


def test_writer_round_trip_on_hand_written_projects(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    original = read_mmax2(project(tmp_path / "in", SETS), cross_sentence="parts")
    write_mmax2(original, tmp_path / "out")
    again = read_mmax2(tmp_path / "out", cross_sentence="parts")
    assert format_corefud(again) == format_corefud(original)


# -- real corpora ------------------------------------------------------------------------------------------------

PARCORFULL = SHARED_DATA / "mmax2" / "parcorfull"
# Documented in ../shared/data/mmax2/README.md: the official conversion was made from the 2018 release, which did
# not have these markables that repeat the span of an earlier markable of another set.
REPEATED_SPAN_MARKABLES = {"04": 2, "20": 1}


def mention_keys(document) -> dict[tuple, list[str]]:
    keys: dict[tuple, list[str]] = {}
    for entity in document.entities:
        for mention in entity.mentions:
            keys.setdefault((mention.sentence.index, tuple(w.position for w in mention.words)), []).append(
                mention.attrs.get("other", ""))
    return keys


@pytest.mark.parametrize("reference", file_params(
    shared_files("*.conllu", "mmax2", "parcorfull", "corefud_reference_en"), "ParCorFull CorefUD reference"))
def test_parcorfull_matches_the_official_corefud_conversion(reference: Path) -> None:
    number = re.search(r"doc(\d+)", reference.name)[1]
    official = read_corefud(reference).documents[0]
    ours = read_mmax2(PARCORFULL / "news" / "EN" / f"{number}.mmax").documents[0]
    assert [[n.form for n in s.nodes] for s in ours.sentences] == \
        [[n.form for n in s.nodes] for s in official.sentences]
    official_keys, our_keys = mention_keys(official), mention_keys(ours)
    extra = sum(len(v) for v in our_keys.values()) - sum(len(v) for v in official_keys.values())
    assert extra == REPEATED_SPAN_MARKABLES.get(number, 0)
    splits = sum("split:split+reference" in o for values in our_keys.values() for o in values)
    report = Report()
    read_mmax2(PARCORFULL / "news" / "EN" / f"{number}.mmax", report=report)
    assert report.counts.get("split reference kept as the attribute split (no antecedent list to link)", 0) == splits
    assert set(official_keys) == set(our_keys)
    assert all(set(official_keys[k]) <= set(our_keys[k]) for k in official_keys)  # the `other` field too
    if number not in REPEATED_SPAN_MARKABLES:
        def partition(document) -> set:
            return {frozenset((m.sentence.index, tuple(w.position for w in m.words)) for m in e.mentions)
                    for e in document.entities}
        assert partition(ours) == partition(official)


def potsdam_conll(path: Path) -> tuple[list[list[str]], dict[tuple[int, int, int], str]]:
    """The corpus' own CoNLL files: tokens per sentence, and (sentence, first, last) -> cluster (an inside token
    repeats the cluster id; `_` is no mention)."""
    sentences: list[list[str]] = [[]]
    mentions: dict[tuple[int, int, int], str] = {}
    open_at: dict[str, list[tuple[int, int]]] = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("#"):
            continue
        if not line.strip():
            if sentences[-1]:
                sentences.append([])
            continue
        columns = line.split("\t")
        sentence, token = len(sentences) - 1, len(sentences[-1])
        sentences[-1].append(columns[1])
        for part in columns[-1].split("|") if columns[-1] not in ("_", "-") else []:
            if part.startswith("(") and part.endswith(")"):
                mentions[sentence, token, token] = part[1:-1]
            elif part.startswith("("):
                open_at.setdefault(part[1:], []).append((sentence, token))
            elif part.endswith(")"):
                start = open_at[part[:-1]].pop()
                mentions[start[0], start[1], token] = part[:-1]
    return [s for s in sentences if s], mentions


def test_potsdam_against_its_own_conll_files() -> None:
    """Mentions as their whole extent (the CoNLL files write a gapped mention first word to last, as
    `-O discontinuous=span` does). Named differences on the 40 shared documents: the CoNLL files have 9
    mentions no MMAX2 markable has and resolve the ambiguous antecedent lists and a few cross-level pointers
    otherwise; the figures are in the issue's closing note."""
    folder = shared("mmax2", "potsdam_pcc2.2")
    total = found = same_clusters = documents = 0
    for project_file in sorted((folder / "coreference-mmax").glob("*.mmax")):
        tokens, mentions = potsdam_conll(folder / "coreference-conll" / f"{project_file.stem}.conll")
        document = read_mmax2(project_file).documents[0]
        assert [[n.form for n in s.nodes] for s in document.sentences] == tokens, project_file.stem
        ours = {(m.sentence.index, m.words[0].position, m.words[-1].position): e.id
                for e in document.entities for m in e.mentions}
        documents += 1
        total += len(mentions)
        found += len(set(mentions) & set(ours))

        def partition(assignment: dict) -> set:
            clusters: dict[str, set] = {}
            for key, cluster in assignment.items():
                clusters.setdefault(cluster, set()).add(key)
            return {frozenset(c) for c in clusters.values()}
        same_clusters += partition(mentions) == partition(ours)
    assert found >= 0.995 * total  # 1,184 of 1,189
    assert same_clusters >= 0.6 * documents  # 25 of 40


def test_potsdam_secmark_markables_no_pointer_reaches_are_singletons() -> None:
    """maz-11177's two secmark markables are reached by no pointer (its primmark level never points into secmark):
    they are mentions all the same, singletons, as in the corpus' CoNLL file; naming the levels reads only those."""
    project = shared("mmax2", "potsdam_pcc2.2", "coreference-mmax", "maz-11177.mmax")
    document = read_mmax2(project).documents[0]
    only_primmark = read_mmax2(project, levels="primmark").documents[0]
    assert len(document.mentions) == len(only_primmark.mentions) + 2
    added = {m.text for m in document.mentions} - {m.text for m in only_primmark.mentions}
    assert added and all(m.entity.is_singleton for m in document.mentions if m.text in added)


@pytest.mark.parametrize("folder", ["parcorfull/news/EN", "parcorfull/news/DE", "potsdam_pcc2.2/coreference-mmax"])
def test_mmax2_model_mmax2_model_is_identical(tmp_path: Path, folder: str) -> None:
    original = read_mmax2(shared("mmax2", *folder.split("/")))
    write_mmax2(original, tmp_path)
    assert format_corefud(read_mmax2(tmp_path)) == format_corefud(original)


def test_cli_convert_stats_and_view(tmp_path: Path) -> None:
    source = shared("mmax2", "parcorfull", "news", "EN")

    def run(*arguments: object) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "harmonize", *map(str, arguments)], check=False,
                              capture_output=True, text=True)

    done = run("convert", source, "--from", "mmax2", "--to", "corefud", "-o", tmp_path / "en")
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "en").glob("*.conllu"))) == 16
    done = run("stats", source, "--from", "mmax2", "--format", "json")
    assert done.returncode == 0 and '"documents": 16' in done.stdout.replace(" ", "").replace('":', '": ')
    done = run("view", source / "18.mmax", "--from", "mmax2", "-o", tmp_path / "18.html")
    assert done.returncode == 0 and "Biles" in (tmp_path / "18.html").read_text(encoding="utf-8")
    done = run("convert", tmp_path / "en" / "18.conllu", "--to", "mmax2", "-o", tmp_path / "back")
    assert done.returncode == 0 and (tmp_path / "back" / "18" / "18.mmax").exists()


def test_conll2012_writer_widens_gapped_mentions_with_span(tmp_path: Path) -> None:
    from harmonize.converters.conll2012 import read_conll2012, write_conll2012

    corpus = read_mmax2(shared("mmax2", "potsdam_pcc2.2", "coreference-mmax", "maz-11280.mmax"))
    gapped = [m for m in corpus.documents[0].mentions if m.is_discontinuous]
    assert gapped
    report = Report()
    write_conll2012(corpus, tmp_path / "out.conll", report, discontinuous="span")
    assert report.counts["discontinuous mention widened over its gaps (policy span; CoNLL-2012 has no gaps)"] == \
        len(gapped)
    again = read_conll2012(tmp_path / "out.conll").documents[0]
    extents = {(m.sentence.index, m.words[0].position, m.words[-1].position) for m in again.mentions}
    assert all((m.sentence.index, m.words[0].position, m.words[-1].position) in extents for m in gapped)
    assert sum(1 for _ in again.mentions) == sum(1 for _ in corpus.documents[0].mentions)
