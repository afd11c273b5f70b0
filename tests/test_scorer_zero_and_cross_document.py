"""The zero-anaphora score and cross-document scoring on hand-made documents."""

from __future__ import annotations

from harmonize.converters.corefud import parse_corefud
from harmonize.schemas.model import Corpus
from harmonize.scoring.score import score_corpora
from tests.corefud_text import conllu

KEY = conllu("""
    1 Ann Entity=(e1-person-1)
    2 came
    2.1 _ Entity=(e1-person-1)
    3 and
    3.1 _ Entity=(e2-person-1)
    4 Bob Entity=(e2-person-1)
""")


def zero_score(response_text: str):
    return score_corpora(parse_corefud(KEY), parse_corefud(response_text), ["zero"], forms=False).metrics["zero"]


def test_a_correctly_linked_zero_is_a_true_positive() -> None:
    score = zero_score(KEY)
    assert (score.recall_num, score.recall_den, score.precision_den) == (1, 1, 1)  # 3.1 is first: not anaphoric


def test_a_zero_linked_to_the_wrong_entity_is_wrong_linkage() -> None:
    response = KEY.replace("2.1\t_\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1", "2.1\t_\t_\t_\t_\t_\t_\t_\t_\tEntity=(e3")
    response = response.replace("4\tBob\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2-person-1)",
                                "4\tBob\t_\t_\t_\t_\t_\t_\t_\tEntity=(e3-person-1)")
    score = zero_score(response)  # key zero 2.1 (after Ann) -> response entity {2.1, Bob}: 2.1 is first there
    assert (score.recall_num, score.recall_den) == (0, 1)


def test_a_missing_zero_is_a_false_negative_and_an_extra_one_a_false_positive() -> None:
    response = KEY.replace("2.1\t_\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1-person-1)", "2.1\t_\t_\t_\t_\t_\t_\t_\t_\t_")
    response = response.replace("4\tBob\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2-person-1)",
                                "4\tBob\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2-person-1)\n4.1\t_\t_\t_\t_\t_\t_\t_\t_"
                                "\tEntity=(e2-person-1)")
    score = zero_score(response)
    assert (score.recall_num, score.recall_den, score.precision_num, score.precision_den) == (0, 1, 0, 1)


def two_documents(second_entity: str) -> Corpus:
    first = parse_corefud(conllu("1 Ann Entity=(e1-person-1)\n2 she Entity=(e1-person-1)", doc="t1_a"))
    second = parse_corefud(conllu(f"1 Ann Entity=({second_entity}-person-1)\n2 she Entity=({second_entity}-person-1)",
                                  doc="t1_b"))
    corpus = Corpus(first.documents + second.documents)
    for document in corpus:
        document.topic = "t1"
    return corpus


def test_cross_document_scoring_joins_entities_with_one_id_across_documents() -> None:
    key, response = two_documents("e1"), two_documents("e2")
    per_document = score_corpora(key, response, ["muc"]).metrics["muc"]
    assert (per_document.recall, per_document.precision) == (1.0, 1.0)
    for grouping in ("corpus", "topic"):
        joined = score_corpora(key, response, ["muc"], cross_document=grouping).metrics["muc"]
        assert (joined.recall_num, joined.recall_den, joined.precision) == (2, 3, 1.0), grouping


def test_macro_average_leaves_out_documents_with_nothing_to_count() -> None:
    key = Corpus(two_documents("e1").documents + parse_corefud(conllu("1 x", doc="t2_empty")).documents)
    result = score_corpora(key, key, ["muc", "bcub"])
    assert [label for label, _ in result.partitions] == ["t1_a", "t1_b", "t2_empty"]
    assert result.macro("muc") == (1.0, 1)  # the document without links is left out, and counted as such


SPLIT_KEY = conllu("""
    1 John Entity=(e1-person-1)
    2 met
    3 Mary Entity=(e2-person-1)
""", """
    1 They Entity=(e3-person-1)|SplitAnte=e1<e3,e2<e3
    2 left
    3 John Entity=(e1-person-1)
    4 Mary Entity=(e2-person-1)
    5 they Entity=(e3-person-1)
""")


def test_lea_with_split_antecedents_adds_the_plural_anaphors_links() -> None:
    # RuCoCo-2023's evaluate.py: the dummy entity of e3 weighs its 4 child mentions (John, Mary, John, Mary).
    key = parse_corefud(SPLIT_KEY)
    plain = score_corpora(key, parse_corefud(SPLIT_KEY), ["lea"]).metrics["lea"]
    split = score_corpora(key, parse_corefud(SPLIT_KEY), ["lea"], split_antecedents=True).metrics["lea"]
    assert (plain.recall_den, split.recall_den) == (6, 10) and split.recall == split.precision == 1.0
    one_antecedent_lost = SPLIT_KEY.replace("SplitAnte=e1<e3,e2<e3", "SplitAnte=e1<e3,e4<e3").replace(
        "4\tMary\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2-person-1)", "4\tMary\t_\t_\t_\t_\t_\t_\t_\tEntity=(e4-person-1)")
    response = parse_corefud(one_antecedent_lost, lenient=True)
    split = score_corpora(key, response, ["lea"], split_antecedents=True, mode="exact").metrics["lea"]
    plain = score_corpora(key, response, ["lea"], mode="exact").metrics["lea"]
    # (They, they) x the 4 child mentions: the response lists John, John and the second Mary (now e4) under e3,
    # 2 x 3 pairs over e3's 2 mentions; the first Mary is e2 there, a singleton no longer among e3's parts.
    assert split.recall_num - plain.recall_num == 3


def test_mention_detection_counts_every_mention_exactly_singletons_included() -> None:
    key = parse_corefud(SPLIT_KEY)
    response = parse_corefud(SPLIT_KEY.replace("5\tthey\t_\t_\t_\t_\t_\t_\t_\tEntity=(e3-person-1)",
                                               "5\tthey\t_\t_\t_\t_\t_\t_\t_\t_"))
    score = score_corpora(key, response, ["mentions"]).metrics["mentions"]
    assert (score.recall_num, score.recall_den, score.precision_den) == (5, 6, 5)
