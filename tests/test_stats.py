"""Statistics tables: known answers on a hand-made corpus, golden Markdown and LaTeX, udapi's corefud.Stats on
GUM, and the official OntoGUM output's counts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harmonize.converters.conll2012 import read_conll2012
from harmonize.converters.corefud import parse_corefud, read_corefud
from harmonize.converters.gum import read_splits
from harmonize.errors import Report
from harmonize.schemas.model import Corpus
from harmonize.stats import stats_tables
from harmonize.stats.render import render
from tests.conftest import FIXTURES, shared

HAND_MADE = """# newdoc id = GUM_news_one
# global.Entity = eid-etype-head-other
# meta::genre = news
# sent_id = 1
1\tAnn\tAnn\tPROPN\t_\t_\t2\tnsubj\t_\tEntity=(e1-person-1)
2\tsaw\tsee\tVERB\t_\t_\t0\troot\t_\t_
3\tBob\tBob\tPROPN\t_\t_\t2\tobj\t_\tEntity=(e2-person-1)
4\tand\tand\tCCONJ\t_\t_\t6\tcc\t_\t_
5\tthe\tthe\tDET\t_\t_\t6\tdet\t_\tEntity=(e3-object-2
6\tdog\tdog\tNOUN\t_\t_\t3\tconj\t_\tEntity=e3)
7\tin\tin\tADP\t_\t_\t8\tcase\t_\t_
8\tParis\tParis\tPROPN\t_\t_\t2\tobl\t_\tEntity=(e4-place-1)

# sent_id = 2
1\tThey\tthey\tPRON\t_\t_\t2\tnsubj\t_\tEntity=(e5-person-1)|SplitAnte=e1<e5,e2<e5
2\tleft\tleave\tVERB\t_\t_\t0\troot\t_\t_
2.1\t_\t_\tPRON\t_\t_\t_\t_\t2:obj\tEntity=(e3-object-1)
3\tit\tit\tPRON\t_\t_\t2\tobj\t_\tEntity=(e3-object-1)
4\tquickly\tquickly\tADV\t_\t_\t2\tadvmod\t_\t_
5\tAnn\tAnn\tPROPN\t_\t_\t2\tobl\t_\tEntity=(e1[1/2]-person-1)
6\tindeed\tindeed\tADV\t_\t_\t2\tadvmod\t_\t_
7\tsmiled\tsmile\tVERB\t_\t_\t2\tconj\t_\tEntity=(e1[2/2]-person-1)

"""


@pytest.fixture()
def hand_made() -> dict[str, pd.DataFrame]:
    return stats_tables(parse_corefud(HAND_MADE))


def test_corpus_table(hand_made) -> None:
    row = hand_made["corpus"].loc["all"]
    # 15 words, 1 zero; entities e1 (2 mentions: Ann; Ann..smiled), e2, e3 (3: the dog, zero, it), e4, e5
    assert (row.documents, row.sentences, row.words, row.zeros, row.entities, row.mentions) == (1, 2, 15, 1, 5, 8)
    assert row.avg_entity_length == 8 / 5 and row.nonsingleton_mentions == 5
    assert row.singletons_pct == 60.0 and row.discontinuous_pct == 100 / 8


def test_entities_and_mentions_tables(hand_made) -> None:
    entities = hand_made["entities"].loc["all"]
    assert (entities.entities, entities.max_length) == (5, 3)
    assert entities.entities_per_1k == 1000 * 5 / 15
    assert (entities.len_1, entities.len_2, entities.len_3, entities.len_4, entities.len_5plus) == (60, 20, 20, 0, 0)
    mentions = hand_made["mentions"].loc["all"]
    # lengths in non-empty words: Ann 1, Bob 1, the dog 2, Paris 1, They 1, zero 0, it 1, Ann..smiled 2 (gap)
    assert (mentions.mentions, mentions.max_length, mentions.avg_length) == (8, 2, 9 / 8)
    assert (mentions.len_0, mentions.len_1, mentions.len_2) == (12.5, 62.5, 25.0)


def test_mention_types_table(hand_made) -> None:
    row = hand_made["mention_types"].loc["all"]
    assert (row.with_empty, row.with_gap) == (12.5, 12.5)
    assert row.non_treelet == 12.5  # "Ann ... smiled": two words whose parents lie outside
    # heads: Ann PROPN, Bob PROPN, dog NOUN (tree), Paris PROPN, They PRON, zero PRON, it PRON, Ann PROPN (annotated)
    assert (row.head_upos_PROPN, row.head_upos_PRON, row.head_upos_NOUN) == (50.0, 37.5, 12.5)


def test_genre_and_split_antecedent_tables(hand_made) -> None:
    genre = hand_made["genre"].loc["all"]
    assert (genre.documents, genre.tokens, genre.mentions, genre.proper, genre.pronominal, genre.other,
            genre.entities) == (1, 15, 8, 4, 3, 1, 5)
    split = hand_made["split_antecedents"].loc["all"]
    assert (split.plural_anaphors, split.split_antecedents) == (1, 2)
    assert (split.plural_anaphors_pct, split.split_antecedents_pct) == (20.0, 40.0)


def test_no_singletons_and_grouping() -> None:
    corpus = parse_corefud(HAND_MADE)
    without = stats_tables(corpus, singletons=False)
    assert without["entities"].loc["all"].entities == 2 and without["mentions"].loc["all"].mentions == 5
    assert list(stats_tables(corpus, by="genre")["corpus"].index) == ["news"]


def test_cross_document_table_counts_topics_and_event_clusters() -> None:
    corpus = parse_corefud(HAND_MADE)
    corpus.documents[0].topic = "t1"
    corpus.documents[0].entities[2].type = "event"
    assert "cross_document" not in stats_tables(parse_corefud(HAND_MADE))  # no topics: not given by default
    row = stats_tables(corpus)["cross_document"].loc["all"]
    # Clusters leave singletons out (Cattan et al.'s Table 4): e1 and the event e3; e2, e4, e5 are singletons.
    assert (row.topics, row.documents, row.singletons, row.clusters, row.event_clusters, row.entity_clusters) == (
        1, 1, 3, 2, 1, 1)


@pytest.mark.parametrize("fmt,golden", [("markdown", "stats_golden.md"), ("latex", "stats_golden.tex")])
def test_golden_markdown_and_latex(hand_made, fmt: str, golden: str) -> None:
    expected = (FIXTURES / golden).read_text(encoding="utf-8")
    assert render(hand_made, fmt) == expected


def udapi_stats(files: list[Path], tmp_path: Path) -> dict[str, str]:
    udapy = shutil.which("udapy") or str(Path(sys.executable).with_name("udapy"))
    if not Path(udapy).exists():
        pytest.skip("udapi not installed: pip install -e '.[test]' brings it")
    joined = tmp_path / "joined.conllu"
    joined.write_text("".join(f.read_text(encoding="utf-8") for f in files), encoding="utf-8")
    done = subprocess.run([udapy, "-q", "read.Conllu", f"files={joined}", "corefud.MoveHead", "corefud.Stats"],
                          capture_output=True, text=True, check=True)
    return {m[1]: m[2] for m in re.finditer(r"^\s*(\S+) =\s+(\S+)$", done.stdout, re.M)}


def test_tables_agree_with_udapi_corefud_stats_on_gum_dev_and_test(tmp_path: Path) -> None:
    folder = shared("gum", "v11.1.0")
    splits = read_splits(folder)
    files = [folder / "dep" / f"{name}.conllu" for name in splits["dev"] + splits["test"]]
    theirs = udapi_stats(files, tmp_path)
    corpus = Corpus([d for f in files for d in read_corefud(f, lenient=True, report=Report()).documents])
    tables = stats_tables(corpus)
    e, m, t = tables["entities"].loc["all"], tables["mentions"].loc["all"], tables["mention_types"].loc["all"]
    ours = {
        "entities": f"{int(e.entities):,}", "entities_per1k": f"{e.entities_per_1k:.0f}",
        "longest_entity": str(int(e.max_length)), "avg_entity": f"{e.avg_length:.1f}",
        **{f"c_len_{n}": f"{e[f'len_{n}']:.1f}" for n in range(1, 5)}, "c_len_5+": f"{e.len_5plus:.1f}",
        "mentions": f"{int(m.mentions):,}", "mentions_per1k": f"{m.mentions_per_1k:.0f}",
        "longest_mention": str(int(m.max_length)), "avg_mention": f"{m.avg_length:.1f}",
        **{f"m_len_{n}": f"{m[f'len_{n}']:.1f}" for n in range(0, 5)}, "m_len_5+": f"{m.len_5plus:.1f}",
        "with_empty": f"{t.with_empty:.1f}", "with_gaps": f"{t.with_gap:.1f}", "nontreelet": f"{t.non_treelet:.1f}",
        **{f"head_upos={u}": f"{t[f'head_upos_{u}']:.1f}" for u in
           ("NOUN", "PRON", "PROPN", "DET", "ADJ", "VERB", "ADV", "NUM", "other")},
        "head_upos=_": f"{t.head_upos_unknown:.1f}",
    }
    differing = {name: (value, theirs.get(name)) for name, value in ours.items() if theirs.get(name) != value}
    assert not differing, differing


def test_genre_table_of_the_official_ontogum_output_matches_its_readme() -> None:
    folder = shared("gum", "ontogum_official_v7.2.0", "conll")
    report = Report()
    corpus = Corpus([d for f in sorted(folder.glob("*.conll")) for d in read_conll2012(f, True, report).documents])
    table = stats_tables(corpus, by="genre")["genre"]
    genre = table.drop(index="all")
    # README: 150 docs, 134,488 tokens, 17,099 mentions, 3,913 clusters (our "entities"); one mention of
    # GUM_bio_jerome never closes its bracket ("(10" at token 292), so it is dropped and reported.
    assert report.counts == {"mention not closed within its sentence": 1}
    assert (genre.documents.sum(), genre.tokens.sum(), genre.mentions.sum() + 1, genre.entities.sum()) == (
        150, 134488, 17099, 3913)
    assert len(genre) == 11 and genre.proper.isna().all()  # no POS in the 3-column files: unknown, not 0
    # The last row is the whole corpus, counted as one group is.
    assert list(table.index)[-1] == "all"
    assert (table.loc["all"].documents, table.loc["all"].tokens, table.loc["all"].mentions,
            table.loc["all"].entities) == (150, 134488, 17098, 3913)


def test_stats_command_json_contract_parquet_and_plots(tmp_path: Path) -> None:
    source = tmp_path / "hand.conllu"
    source.write_text(HAND_MADE, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "harmonize", "stats", str(source), "--format", "json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    tables = json.loads(done.stdout)["tables"]
    assert set(tables) >= {"corpus", "entities", "mentions", "mention_types"}
    assert tables["corpus"][0] == {**tables["corpus"][0], "group": "all", "documents": 1, "words": 15, "zeros": 1}
    assert set(tables["mentions"][0]) >= {"mentions", "mentions_per_1k", "len_0", "len_5plus"}
    done = subprocess.run([sys.executable, "-m", "harmonize", "stats", str(source), "--format", "parquet", "-o",
                           str(tmp_path / "pq"), "--plots", str(tmp_path / "plots")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert pd.read_parquet(tmp_path / "pq" / "entities.parquet").entities.tolist() == [5]
    assert (tmp_path / "plots" / "lengths.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "plots" / "entities.png").read_bytes()[:4] == b"\x89PNG"  # one figure per table
