"""GUM reader: WebAnno TSV coreference on the dep/ trees, checked against GUM's own CorefUD files and README."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from harmonize.converters.corefud import read_corefud
from harmonize.converters.gum import read_gum, tsv_files
from harmonize.errors import FormatError, Report
from harmonize.schemas.model import Document, Mention
from tests.conftest import shared

SUBTYPES_DROPPED = "GUM bridging subtype left out, as GUM's dep/ build writes bridges (-I bridge_types=keep keeps it)"


def _entities(document: Document) -> set[tuple[str | None, frozenset[tuple[int, tuple[str, ...]]]]]:
    return {(e.type, frozenset((m.sentence.index, tuple(w.id for w in m.words if not w.is_empty))
                               for m in e.mentions)) for e in document.entities}


def _relations(document: Document) -> tuple[list, list]:
    def where(mention: Mention) -> tuple[int, tuple[str, ...]]:
        return mention.sentence.index, tuple(w.id for w in mention.words)

    bridges = sorted((where(b.anaphor), where(b.antecedent.mentions[0])) for b in document.bridges)
    splits = sorted((where(s.entity.mentions[0]), sorted(where(a.mentions[0]) for a in s.antecedents))
                    for s in document.split_antecedents)
    return bridges, splits


@pytest.mark.parametrize("release", ["v11.1.0", "v7.2.0"])
def test_tsv_gives_the_entities_of_the_dep_files(release: str) -> None:
    """v11's dep/ is GUM's own CorefUD conversion: the TSV must give the same entities, bridges and split
    antecedents; v7's dep/ has the early Entity= format (entities only)."""
    folder = shared("gum", release)
    differing, relations_differing = [], []
    report = Report()
    for path in tsv_files(folder):
        ours = read_gum(path, True, report).documents[0]
        theirs = read_corefud(folder / "dep" / f"{path.stem}.conllu", True, Report()).documents[0]
        if _entities(ours) != _entities(theirs):
            differing.append(path.stem)
        if release == "v11.1.0" and _relations(ours) != _relations(theirs):
            relations_differing.append(path.stem)
    assert set(report.counts) <= {SUBTYPES_DROPPED}
    # v11's dep/ splits one chain of GUM_news_questionnaire in two (its TSV and coref_conll/ do not): the reader
    # groups as GUM's build does, so it splits it too.
    assert differing == []
    assert relations_differing == []


@pytest.mark.parametrize("release", ["v7.2.0", "v11.1.0"])
def test_a_mention_typed_unlike_its_chain_keeps_its_own_type(release: str) -> None:
    """v11 has one such mention (entity 39 of GUM_court_insanity, "abstract" in an "event" chain, as in its dep/),
    v7's TSV 46 (its dep/ gives one type per entity)."""
    own = [(m.entity.type, m.etype) for p in tsv_files(shared("gum", release)) for d in read_gum(p).documents
           for m in d.mentions if m.etype is not None]
    assert len(own) == (1 if release == "v11.1.0" else 46)
    assert all(entity_type is not None and entity_type != etype for entity_type, etype in own)
    if release == "v11.1.0":
        assert own == [("event", "abstract")]


def test_v11_counts_match_the_readme() -> None:
    folder = shared("gum", "v11.1.0")
    documents = [read_gum(p, True, Report(), bridge_types="keep").documents[0] for p in tsv_files(folder)]
    mentions = [m for d in documents for m in d.mentions]
    links = Counter(m.link for m in mentions)
    bridges = Counter(b.label for d in documents for b in d.bridges)
    # README: 75,697 mentions and 39,399 entities; the dep/ files have 39,400, GUM_news_questionnaire's chain split
    # by the build's grouping (see above), which the reader follows
    assert (len(documents), len(mentions), sum(len(d.entities) for d in documents)) == (281, 75697, 39400)
    assert bridges == {"other": 1248, "def": 982}  # README: bridge:other 1,248, bridge:def 982
    assert sum(len(s.antecedents) for d in documents for s in d.split_antecedents) == 401  # bridge:aggr 401
    assert links["pred"] > 0 and links["disc"] > 0 and links["appos"] > 0 and links["cata"] > 0 and links["sgl"] > 0
    first = documents[0].entities[0].mentions[0]
    assert set(first.attrs) >= {"infstat", "salience", "centering"}


# Documents whose coreference columns the build derives from what the release does not hold: the words of the
# masked Reddit documents (the pred link looks at determiners and "as"), TreeTagger tags of split words (GW), and
# one centering value the build computed where the TSV has none.
NOT_REPRODUCIBLE = {
    **dict.fromkeys(["GUM_reddit_bobby", "GUM_reddit_callout", "GUM_reddit_escape", "GUM_reddit_introverts",
                     "GUM_reddit_polygraph", "GUM_reddit_racial", "GUM_reddit_ring", "GUM_reddit_steak"],
                    "masked words"),
    "GUM_academic_lighting": "TreeTagger tag of a split word", "GUM_letter_zora": "TreeTagger tag of a split word",
    "GUM_letter_conference": "centering computed by the build, not in the TSV",
}


def _coreference_columns(path: Path) -> list[str]:
    kept = ("Entity=", "Bridge=", "SplitAnte=", "# global.Entity")
    lines = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("# global.Entity"):
            lines.append(line)
        elif line[:1].isdigit():
            lines.append("|".join(item for item in line.split("\t")[9].split("|") if item.startswith(kept)))
    return lines


def test_the_coreference_columns_equal_gums_own_build(tmp_path: Path) -> None:
    """Entity, Bridge and SplitAnte of every token and the global.Entity header, written from the TSV, equal GUM's
    own dep/ byte for byte, but for the documents named above."""
    import harmonize

    folder = shared("gum", "v11.1.0")
    harmonize.convert([folder], "gum", "corefud", tmp_path, warn_losses=False)
    differing = [path.stem for path in sorted(tmp_path.glob("*.conllu"))
                 if _coreference_columns(path) != _coreference_columns(folder / "dep" / path.name)]
    assert len(list(tmp_path.glob("*.conllu"))) == 281
    assert differing == sorted(NOT_REPRODUCIBLE)


def test_masked_reddit_raw_builds_read_and_report_what_they_lack() -> None:
    report = Report()
    files = tsv_files(shared("gum", "v7.2.0", "reddit_masked"))
    documents = [read_gum(p, True, report).documents[0] for p in files]
    assert len(documents) == 18 and all(d.entities for d in documents)
    assert sum(len(s.nodes) for d in documents for s in d.sentences) == 16286  # README: 16,286 tokens
    assert report.counts["link id 0 taken as the one span starting on its token (of the same type)"] > 0
    with pytest.raises(FormatError) as raised:
        read_gum(files[0])  # strict: a link naming no span is an error with its line
    assert raised.value.line is not None and "link to an unknown span" in raised.value.reason


def edited_art(tmp_path: Path, folder: str, edit) -> tuple[Path, int]:
    """GUM_academic_art alone in a v11.1.0 layout under ``tmp_path``, one line of its ``folder`` file (coref_tsv or
    dep) changed: ``edit`` takes a line and returns it changed or None. Returns the TSV's path and the (1-based)
    number of the line changed."""
    source = shared("gum", "v11.1.0")
    changed = 0
    for name in ("coref_tsv/GUM_academic_art.tsv", "dep/GUM_academic_art.conllu"):
        lines = (source / name).read_text(encoding="utf-8").split("\n")
        if name.startswith(folder):
            changed = next(n for n, line in enumerate(lines) if edit(line) is not None)
            lines[changed] = edit(lines[changed])
        (tmp_path / name).parent.mkdir()
        (tmp_path / name).write_text("\n".join(lines), encoding="utf-8")
    return tmp_path / "coref_tsv" / "GUM_academic_art.tsv", changed + 1


def test_token_mismatch_names_document_token_and_line(tmp_path: Path) -> None:
    path, line = edited_art(tmp_path, "coref_tsv", lambda row: row.replace("\tAppreciation\t", "\tAppraisal\t")
                            if "\tAppreciation\t" in row else None)
    with pytest.raises(FormatError) as raised:
        read_gum(path)
    assert raised.value.line == line
    assert raised.value.reason == ("token 1-2 is 'Appraisal' here and 'Appreciation' in dep/ (word 2 of "
                                   "GUM_academic_art)")


def test_a_short_line_is_an_error_or_a_token_without_annotation(tmp_path: Path) -> None:
    # id, offsets, form and one annotation column
    path, line = edited_art(tmp_path, "coref_tsv", lambda row: "\t".join(row.split("\t")[:4])
                            if row.startswith("1-1\t") else None)
    with pytest.raises(FormatError) as raised:
        read_gum(path)
    assert (raised.value.line, raised.value.reason.split(":")[0]) == (line, "wrong column count")
    report = Report()
    document = read_gum(path, True, report, bridge_types="keep").documents[0]
    assert report.counts == {"wrong column count": 1} and len(document.mentions) > 0


def test_a_value_past_the_declared_columns_is_an_error(tmp_path: Path) -> None:
    # in the empty column after the line's final tab
    path, line = edited_art(tmp_path, "coref_tsv", lambda row: row + "stray" if row.startswith("1-1\t") else None)
    with pytest.raises(FormatError) as raised:
        read_gum(path)
    assert (raised.value.line, raised.value.reason.split(":")[0]) == (line, "wrong column count")


def test_a_span_word_without_a_tree_head_is_an_error_or_keeps_the_tsv_link(tmp_path: Path) -> None:
    """GUM's minspan and link come from dep/'s tree: a span word whose HEAD is not a number is named with the TSV
    line (lenient: that mention goes without minspan and keeps the TSV's link), never a traceback."""
    def without_head(row: str) -> str | None:
        if not row.startswith("2\tAppreciation\t"):
            return None
        columns = row.split("\t")
        columns[6] = "_"
        return "\t".join(columns)

    path, _ = edited_art(tmp_path, "dep", without_head)
    with pytest.raises(FormatError) as raised:
        read_gum(path)
    assert raised.value.line is not None and raised.value.reason.startswith("a word of the span has no numeric HEAD")
    report = Report()
    document = read_gum(path, True, report).documents[0]
    reported = sum(count for reason, count in report.counts.items() if "no numeric HEAD" in reason)
    assert reported >= 1 and sum(1 for m in document.mentions if "minspan" not in m.attrs) == reported
