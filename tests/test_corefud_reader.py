"""What the CorefUD reader puts in the model, on small hand-written documents."""

from __future__ import annotations

from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.schemas.model import CommentSlot, Corpus
from tests.corefud_text import conllu


def _doc(text: str):
    corpus = parse_corefud(text)
    assert format_corefud(corpus) == text  # every fixture here also round-trips
    return corpus.documents[0]


def _spans(document) -> list[tuple[str, str]]:
    return [(m.entity.id, m.text) for m in document.mentions]


def test_nested_mentions_single_token_mentions_and_heads() -> None:
    document = _doc(conllu("""
        1 the Entity=(e1-person-2
        2 boss Entity=(e2-person-1)
        3 's Entity=e1)
        4 car Entity=(e3-object-1)
    """))
    assert _spans(document) == [("e1", "the boss 's"), ("e2", "boss"), ("e3", "car")]
    e1 = document.entity("e1")
    assert e1.type == "person" and e1.mentions[0].head.form == "boss"
    assert document.entity("e3").mentions[0].head.form == "car"


def test_crossing_brackets_and_same_entity_nesting() -> None:
    document = _doc(conllu("""
        1 a Entity=(e1--1
        2 b Entity=(e2--1
        3 c Entity=e1)
        4 d Entity=e2)(e1--1(e1--1)
        5 e Entity=e1)
    """))
    assert sorted(_spans(document)) == [("e1", "a b c"), ("e1", "d"), ("e1", "d e"), ("e2", "b c d")]


def test_discontinuous_mention_has_gap_and_head_counts_over_all_parts() -> None:
    document = _doc(conllu("""
        1 A Entity=(e1[1/2]-person-2
        2 man Entity=e1[1/2])
        3 came
        4 who Entity=(e1[2/2]-person-2
        5 smiled Entity=e1[2/2])
    """))
    (mention,) = document.entity("e1").mentions
    assert mention.text == "A man who smiled" and mention.is_discontinuous
    assert [len(p) for p in mention.parts()] == [2, 2] and mention.head.form == "man"


def test_mentions_on_empty_nodes_and_multiword_tokens() -> None:
    document = _doc(conllu("""
        1 She Entity=(e1--1)
        2-3 didn't
        2 did
        3 n't
        3.1 _ Entity=(e1--1)
        4 go
    """))
    zero = document.entity("e1").mentions[1]
    assert zero.words[0].is_empty and zero.words[0].id == "3.1"
    assert document.sentences[0].multiwords[0].id == "2-3"
    assert [n.id for n in document.sentences[0].words] == ["1", "2", "3", "4"]


def test_empty_node_inside_a_bracket_belongs_to_the_mention() -> None:
    document = _doc(conllu("""
        1 a Entity=(e1--1
        1.1 _
        2 b Entity=e1)
    """))
    assert [w.id for w in document.entity("e1").mentions[0].words] == ["1", "1.1", "2"]


def test_bridge_and_split_antecedent_relations() -> None:
    document = _doc(conllu("""
        1 John Entity=(e1-person-1)
        2 Mary Entity=(e2-person-1)
        3 house Entity=(e3-place-1)
    """, """
        1 they Entity=(e4-person-1)|SplitAnte=e1<e4,e2<e4
        2 the Bridge=e3<e5:part|Entity=(e5-object-2
        3 door Entity=e5)
    """))
    (split,) = document.split_antecedents
    assert split.entity.id == "e4" and [a.id for a in split.antecedents] == ["e1", "e2"]
    assert split.anchor is document.entity("e4").mentions[0]
    (bridge,) = document.bridges
    assert bridge.anaphor.text == "the door" and bridge.antecedent.id == "e3" and bridge.label == "part"


def test_gum_v11_header_maps_fields_to_model() -> None:
    header = "GRP-etype-infstat-salience-centering-minspan-link-identity"
    document = _doc(conllu("""
        1 Paris Entity=(1-place-new-sssss-cf1-1-sgl-Paris)
        2 the Entity=(2-place-giv:act-nnnnn-cf2-1-ana
        3 city Entity=2)
    """, header=header))
    paris = document.entity("1")
    assert paris.type == "place" and paris.attrs == {"identity": "Paris"}
    mention = paris.mentions[0]
    assert mention.link == "sgl" and mention.head is None
    assert mention.attrs == {"infstat": "new", "salience": "sssss", "centering": "cf1", "minspan": "1"}
    assert document.entity("2").mentions[0].link == "ana"


def test_gum_v7_header_with_eid_in_second_place() -> None:
    document = _doc(conllu("""
        1 Emperor Entity=(person-1-Emperor_Norton
        2 Norton Entity=person-1)
        3 he Entity=(person-1)
    """, header="entity-GRP-identity"))
    entity = document.entity("1")
    assert entity.type == "person" and entity.attrs == {"identity": "Emperor_Norton"}
    assert [m.text for m in entity.mentions] == ["Emperor Norton", "he"]


def test_gum_v7_labels_in_closings_and_bridges_and_unescaped_hyphens() -> None:
    document = _doc(conllu("""
        1 Quidditch Entity=(abstract-1-Quidditch_%28real-life_sport%29)
        2 the Bridge=abstract-1-Quidditch_%28real-life_sport%29<object-2|Entity=(object-2
        3 ball Entity=object-2)
    """, header="entity-GRP-identity"))
    assert document.entity("1").attrs == {"identity": "Quidditch_%28real-life_sport%29"}
    (bridge,) = document.bridges
    assert bridge.antecedent.id == "1" and bridge.anaphor.text == "the ball"


def test_several_documents_and_model_owned_comments() -> None:
    text = conllu("1 a Entity=(e1--1)") + conllu("1 b Entity=(e1--1)", doc="d2")
    corpus = parse_corefud(text)
    assert [d.id for d in corpus] == ["d1", "d2"]
    first = corpus.documents[0].sentences[0]
    assert first.comments[:3] == [CommentSlot.NEWDOC, CommentSlot.GLOBAL_ENTITY, CommentSlot.SENT_ID]
    assert format_corefud(corpus) == text


def test_misc_keys_keep_their_place_and_coref_keys_are_not_in_misc() -> None:
    document = _doc(conllu("1 a Aa=1|Entity=(e1--1)|SpaceAfter=No|Zz"))
    node = document.sentences[0].nodes[0]
    assert node.misc == {"Aa": "1", "SpaceAfter": "No", "Zz": None}



def test_a_mention_typed_otherwise_than_its_entity_keeps_its_own_type() -> None:
    document = _doc(conllu("1 a Entity=(e1-person-1)", "1 b Entity=(e1-place-1)\n2 c Entity=(e1-person-1)"))
    first, second, third = document.entity("e1").mentions
    assert document.entity("e1").type == "person"
    assert [m.etype for m in (first, second, third)] == [None, "place", None]
    assert [m.entity_type for m in (first, second, third)] == ["person", "place", "person"]


def test_fields_added_to_a_gum_v7_header_go_before_its_unescaped_identity() -> None:
    # GUM v7 leaves "-" unescaped in the last field, identity; a link type written later must not follow it.
    document = _doc(conllu("1 chi Entity=(abstract-1-Pearson's_chi-squared_test)\n2 it Entity=(abstract-1-"
                           "Pearson's_chi-squared_test)", header="entity-GRP-identity"))
    document.mentions[1].link = "ana"
    again = parse_corefud(format_corefud(Corpus([document]))).documents[0]
    assert again.entity_fields == ("entity", "GRP", "link", "identity")
    assert [(m.link, m.entity.attrs["identity"]) for m in again.mentions] == [
        (None, "Pearson's_chi-squared_test"), ("ana", "Pearson's_chi-squared_test")]
