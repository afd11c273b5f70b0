"""The OntoGUM rules one by one, on small documents built after the paper's examples (Zhu et al. 2021, section 3)."""

from __future__ import annotations

from harmonize.errors import Report
from harmonize.rules import ontogum
from harmonize.schemas.model import Corpus, Document, Mention, Node, Sentence

# A token: form, lemma, UPOS, XPOS, head (1-based, 0 = root), deprel, and optionally FEATS.
Token = tuple[str, ...]


def document(*sentences: list[Token], masked: bool = False) -> Document:
    """A document of the tokens; ``masked``: every form and lemma replaced by underscores, as GUM's Reddit."""
    doc = Document(id="d")
    for number, tokens in enumerate(sentences, 1):
        sentence = doc.add_sentence(Sentence(id=f"s{number}"))
        for index, (form, lemma, upos, xpos, head, deprel, *feats) in enumerate(tokens, 1):
            if masked:
                form, lemma = "_" * len(form), "_"
            sentence.add_node(Node(str(index), form, lemma, upos, xpos, feats[0] if feats else "_", str(head),
                                   deprel))
    return doc


def mention(doc: Document, entity: str, sentence: int, first: int, last: int, link: str | None = None) -> Mention:
    """A mention over words first..last (1-based) of sentence (1-based) in ``entity`` (created when new)."""
    target = doc.entity(entity) or doc.new_entity(entity)
    return doc.add_mention(target, doc.sentences[sentence - 1].nodes[first - 1 : last], link=link)


def chains(doc: Document) -> list[list[str]]:
    return sorted([m.text for m in e.mentions] for e in doc.entities)


def test_bridging_split_antecedents_and_cataphora_go() -> None:
    # "it 's good to win ." with "it" pointing forward to "to win" (cata); "we" split from two names.
    doc = document(
        [("it", "it", "PRON", "PRP", 3, "expl"), ("'s", "be", "AUX", "VBZ", 3, "cop"),
         ("good", "good", "ADJ", "JJ", 0, "root"), ("to", "to", "PART", "TO", 5, "mark"),
         ("win", "win", "VERB", "VB", 3, "csubj"), (".", ".", "PUNCT", ".", 3, "punct")],
        [("Ann", "Ann", "PROPN", "NNP", 0, "root"), ("and", "and", "CCONJ", "CC", 3, "cc"),
         ("Bo", "Bo", "PROPN", "NNP", 1, "conj"), ("we", "we", "PRON", "PRP", 1, "dep")])
    mention(doc, "e1", 1, 1, 1)
    mention(doc, "e1", 1, 4, 5, link="cata")
    ann, bo, we = mention(doc, "e2", 2, 1, 1), mention(doc, "e3", 2, 3, 3), mention(doc, "e4", 2, 4, 4)
    doc.add_split_antecedent(we.entity, [ann.entity, bo.entity])  # type: ignore[arg-type]
    doc.add_bridge(we, ann.entity)  # type: ignore[arg-type]
    report = Report()
    ontogum.remove_bridging_and_cataphora(doc, report)
    assert not doc.bridges and not doc.split_antecedents
    assert ["it"] in chains(doc) and ["to win"] in chains(doc)
    assert report.counts == {"ontogum 1 remove bridging: bridge removed": 1,
                             "ontogum 1 remove bridging: split antecedent removed": 1,
                             "ontogum 1 remove cataphora: cataphoric pronoun unlinked": 1}


def test_verbal_spans_contract_and_noun_phrases_take_their_clausal_modifiers() -> None:
    # "[they announced the plan] ... [this]"; "[a project] focusing on art" becomes one noun phrase.
    doc = document(
        [("they", "they", "PRON", "PRP", 2, "nsubj"), ("announced", "announce", "VERB", "VBD", 0, "root"),
         ("the", "the", "DET", "DT", 4, "det"), ("plan", "plan", "NOUN", "NN", 2, "obj")],
        [("this", "this", "PRON", "DT", 2, "nsubj"), ("helped", "help", "VERB", "VBD", 0, "root"),
         ("a", "a", "DET", "DT", 4, "det"), ("project", "project", "NOUN", "NN", 2, "obj"),
         ("focusing", "focus", "VERB", "VBG", 4, "acl"), ("on", "on", "ADP", "IN", 7, "case"),
         ("art", "art", "NOUN", "NN", 5, "obl")])
    mention(doc, "e1", 1, 1, 4)  # the verbal span, headed by "announced"
    mention(doc, "e1", 2, 1, 1)
    mention(doc, "e2", 2, 3, 4)
    report = Report()
    ontogum.contract_verbal_spans(doc, report)
    assert chains(doc) == [["a project focusing on art"], ["announced", "this"]]
    assert report.counts["ontogum 2 contract verbal spans: span contracted to its verb"] == 1
    assert report.counts["ontogum 2 span boundaries: noun phrase grown to its clausal modifier"] == 1


def test_a_copular_clause_contracts_to_its_copula() -> None:
    # "[Huh ? is universal] ... [this]": the clause's verb is the copula.
    doc = document([("Huh", "huh", "INTJ", "UH", 4, "nsubj"), ("?", "?", "PUNCT", ".", 1, "punct"),
                    ("is", "be", "AUX", "VBZ", 4, "cop"), ("universal", "universal", "ADJ", "JJ", 0, "root")],
                   [("this", "this", "PRON", "DT", 0, "root")])
    mention(doc, "e1", 1, 1, 4)
    mention(doc, "e1", 2, 1, 1)
    report = Report()
    ontogum.contract_verbal_spans(doc, report)
    assert chains(doc) == [["is", "this"]]
    assert report.counts == {"ontogum 2 contract verbal spans: copular clause contracted to its copula": 1}


def test_an_auxiliary_be_is_the_verb_of_its_phrase() -> None:
    # "[prices have been rising] ... [this]": the official build contracts to the "be" of the phrase.
    doc = document([("prices", "price", "NOUN", "NNS", 4, "nsubj"), ("have", "have", "AUX", "VBP", 4, "aux"),
                    ("been", "be", "AUX", "VBN", 4, "aux"), ("rising", "rise", "VERB", "VBG", 0, "root")],
                   [("this", "this", "PRON", "DT", 0, "root")])
    mention(doc, "e1", 1, 1, 4)
    mention(doc, "e1", 2, 1, 1)
    report = Report()
    ontogum.contract_verbal_spans(doc, report)
    assert chains(doc) == [["been", "this"]]
    assert report.counts == {"ontogum 2 contract verbal spans: verb phrase contracted to its auxiliary 'be'": 1}


def test_a_short_clausal_modifier_stays_outside_the_noun_phrase() -> None:
    # "[the puppets] used": a modifier of one or two words is left out, as in the official build.
    doc = document([("the", "the", "DET", "DT", 2, "det"), ("puppets", "puppet", "NOUN", "NNS", 4, "nsubj"),
                    ("used", "use", "VERB", "VBN", 2, "acl"), ("spoke", "speak", "VERB", "VBD", 0, "root")])
    mention(doc, "e1", 1, 1, 2)
    report = Report()
    ontogum.contract_verbal_spans(doc, report)
    assert chains(doc) == [["the puppets"]] and not report.counts


def test_appositions_merge_into_one_mention() -> None:
    # "[Benjamin] , [the 13th] , left" with an appos link: OntoNotes marks "Benjamin , the 13th" once.
    doc = document([("Benjamin", "Benjamin", "PROPN", "NNP", 6, "nsubj"), (",", ",", "PUNCT", ",", 4, "punct"),
                    ("the", "the", "DET", "DT", 4, "det"), ("13th", "13th", "ADJ", "JJ", 1, "appos"),
                    (",", ",", "PUNCT", ",", 4, "punct"), ("left", "leave", "VERB", "VBD", 0, "root"),
                    ("he", "he", "PRON", "PRP", 6, "obj")])
    mention(doc, "e1", 1, 1, 1)
    mention(doc, "e1", 1, 3, 4, link="appos")
    mention(doc, "e1", 1, 7, 7, link="ana")
    report = Report()
    ontogum.merge_appositions(doc, report)
    assert chains(doc) == [["Benjamin , the 13th", "he"]]
    assert report.counts == {"ontogum 3 merge appositions: apposition merged into its anchor": 1}


def test_a_bracketed_apposition_takes_its_closing_bracket() -> None:
    # "[a System Under Test] ( [SUT] )": the merged mention ends with the ")".
    doc = document([("a", "a", "DET", "DT", 2, "det"), ("System", "system", "NOUN", "NN", 0, "root"),
                    ("(", "(", "PUNCT", "-LRB-", 4, "punct"), ("SUT", "SUT", "PROPN", "NNP", 2, "appos"),
                    (")", ")", "PUNCT", "-RRB-", 4, "punct"), ("runs", "run", "VERB", "VBZ", 2, "dep"),
                    ("it", "it", "PRON", "PRP", 6, "obj")])
    mention(doc, "e1", 1, 1, 2)
    mention(doc, "e1", 1, 4, 4, link="appos")
    mention(doc, "e1", 1, 7, 7, link="ana")
    ontogum.merge_appositions(doc, Report())
    assert chains(doc) == [["a System ( SUT )", "it"]]


def test_only_the_word_right_after_an_apposition_closes_it() -> None:
    # "[Takekurabe] ( " [Child 's Play] " )": the quote after the apposition joins, the bracket does not.
    doc = document([("Takekurabe", "Takekurabe", "PROPN", "NNP", 0, "root"), ("(", "(", "PUNCT", "-LRB-", 5, "punct"),
                    ('"', '"', "PUNCT", "``", 5, "punct"), ("Child", "child", "NOUN", "NN", 5, "nmod:poss"),
                    ("Play", "play", "NOUN", "NN", 1, "appos"), ('"', '"', "PUNCT", "''", 5, "punct"),
                    (")", ")", "PUNCT", "-RRB-", 5, "punct"), ("it", "it", "PRON", "PRP", 1, "dep")])
    mention(doc, "e1", 1, 1, 1)
    mention(doc, "e1", 1, 4, 5, link="appos")
    mention(doc, "e1", 1, 8, 8, link="ana")
    ontogum.merge_appositions(doc, Report())
    assert chains(doc) == [['Takekurabe ( " Child Play "', "it"]]


def test_common_noun_compound_modifiers_leave_their_chain() -> None:
    # "[cataract] surgery ... [cataract] surgery ... [Boston] hospitals": only the proper noun stays linked.
    doc = document([("cataract", "cataract", "NOUN", "NN", 2, "compound"), ("surgery", "surgery", "NOUN", "NN", 0,
                                                                             "root")],
                   [("cataract", "cataract", "NOUN", "NN", 2, "compound"), ("surgery", "surgery", "NOUN", "NN", 0,
                                                                             "root"),
                    ("Boston", "Boston", "PROPN", "NNP", 4, "compound"), ("hospitals", "hospital", "NOUN", "NNS", 2,
                                                                         "conj"),
                    ("Boston", "Boston", "PROPN", "NNP", 2, "nmod")])
    mention(doc, "e1", 1, 1, 1)
    mention(doc, "e1", 2, 1, 1)
    mention(doc, "e2", 2, 3, 3)
    mention(doc, "e2", 2, 5, 5)
    report = Report()
    ontogum.remove_compounds(doc, report)
    assert chains(doc) == [["Boston", "Boston"], ["cataract"], ["cataract"]]
    assert report.counts == {"ontogum 4 remove noun-noun compounds: compound modifier unlinked": 1}


def test_a_compound_modifier_inside_a_chain_cuts_it() -> None:
    # "[the surgery] ... [surgery] costs ... [it]": the chain's links ran through the compound modifier, so "the
    # surgery" and "it" no longer reach each other (as in the official conversion).
    doc = document([("the", "the", "DET", "DT", 2, "det"), ("surgery", "surgery", "NOUN", "NN", 0, "root")],
                   [("surgery", "surgery", "NOUN", "NN", 2, "compound"), ("costs", "cost", "NOUN", "NNS", 0, "root")],
                   [("it", "it", "PRON", "PRP", 0, "root")])
    mention(doc, "e1", 1, 1, 2)
    mention(doc, "e1", 2, 1, 1)
    mention(doc, "e1", 3, 1, 1)
    report = Report()
    ontogum.remove_compounds(doc, report)
    assert chains(doc) == [["it"], ["surgery"], ["the surgery"]]
    assert report.counts == {"ontogum 4 remove noun-noun compounds: chain cut at a compound modifier": 1,
                             "ontogum 4 remove noun-noun compounds: compound modifier unlinked": 1}


def test_copula_predicates_leave_their_chain() -> None:
    # "[The viewing experience] is [a complex one] ... [it]"
    doc = document([("The", "the", "DET", "DT", 3, "det"), ("viewing", "viewing", "NOUN", "NN", 3, "compound"),
                    ("experience", "experience", "NOUN", "NN", 6, "nsubj"), ("is", "be", "AUX", "VBZ", 6, "cop"),
                    ("a", "a", "DET", "DT", 6, "det"), ("one", "one", "NOUN", "NN", 0, "root")],
                   [("it", "it", "PRON", "PRP", 0, "root")])
    mention(doc, "e1", 1, 1, 3)
    mention(doc, "e1", 1, 5, 6)
    mention(doc, "e1", 2, 1, 1)
    report = Report()
    ontogum.remove_copula(doc, report)
    assert chains(doc) == [["The viewing experience", "it"], ["a one"]]
    assert report.counts == {"ontogum 5 remove copula: predicate unlinked": 1}


def test_a_conjoined_predicate_leaves_a_prepositional_one_stays() -> None:
    # "[He] was [a critic] and is [a socialist]" (the second predicate is conj of the first);
    # "[we] are from [Earth] ... [Earth]": after a preposition the copula's phrase is no predicate.
    doc = document([("He", "he", "PRON", "PRP", 4, "nsubj"), ("was", "be", "AUX", "VBD", 4, "cop"),
                    ("a", "a", "DET", "DT", 4, "det"), ("critic", "critic", "NOUN", "NN", 0, "root"),
                    ("and", "and", "CCONJ", "CC", 8, "cc"), ("is", "be", "AUX", "VBZ", 8, "cop"),
                    ("a", "a", "DET", "DT", 8, "det"), ("socialist", "socialist", "NOUN", "NN", 4, "conj")],
                   [("we", "we", "PRON", "PRP", 4, "nsubj"), ("are", "be", "AUX", "VBP", 4, "cop"),
                    ("from", "from", "ADP", "IN", 4, "case"), ("Earth", "Earth", "PROPN", "NNP", 0, "root"),
                    ("Earth", "Earth", "PROPN", "NNP", 4, "dep")])
    mention(doc, "e1", 1, 1, 1)
    mention(doc, "e1", 1, 3, 4)
    mention(doc, "e1", 1, 7, 8)
    mention(doc, "e2", 2, 4, 4)
    mention(doc, "e2", 2, 5, 5)
    ontogum.remove_copula(doc, Report())
    assert chains(doc) == [["Earth", "Earth"], ["He"], ["a critic"], ["a socialist"]]


def test_a_predicate_linked_as_pred_leaves_its_chain() -> None:
    # GUM V8+: "[Ann] became [a teacher] ... [she]", the predicate linked with type pred (no copula in the tree).
    doc = document([("Ann", "Ann", "PROPN", "NNP", 2, "nsubj"), ("became", "become", "VERB", "VBD", 0, "root"),
                    ("a", "a", "DET", "DT", 4, "det"), ("teacher", "teacher", "NOUN", "NN", 2, "xcomp")],
                   [("she", "she", "PRON", "PRP", 0, "root")])
    mention(doc, "e1", 1, 1, 1, link="pred")
    mention(doc, "e1", 1, 3, 4, link="pred")
    mention(doc, "e1", 2, 1, 1, link="ana")
    report = Report()
    ontogum.remove_copula(doc, report)
    assert chains(doc) == [["Ann", "she"], ["a teacher"]]
    assert report.counts == {"ontogum 5 remove copula: predicate (pred link) unlinked": 1}


def test_a_mention_inside_its_own_chains_mention_leaves_it() -> None:
    # "[the best way to reach her if [it] 's helpful]" with "it" = the way (i-within-i)
    doc = document([("the", "the", "DET", "DT", 3, "det"), ("best", "good", "ADJ", "JJS", 3, "amod"),
                    ("way", "way", "NOUN", "NN", 0, "root"), ("if", "if", "SCONJ", "IN", 6, "mark"),
                    ("it", "it", "PRON", "PRP", 6, "nsubj"), ("helps", "help", "VERB", "VBZ", 3, "acl")],
                   [("the", "the", "DET", "DT", 2, "det"), ("way", "way", "NOUN", "NN", 0, "root")])
    mention(doc, "e1", 1, 1, 6)
    mention(doc, "e1", 1, 5, 5)
    mention(doc, "e1", 2, 1, 2)
    report = Report()
    ontogum.remove_nested(doc, report)
    assert chains(doc) == [["it"], ["the best way if it helps", "the way"]]
    assert report.counts == {"ontogum 6 remove nested entities: mention inside its own chain's mention unlinked": 1}


def test_chains_split_at_indefinites() -> None:
    # "[Carroll] went [home] ... [her parents] lived on [a farm] ... [they] left [the farm]": "a farm" is
    # indefinite, so home and the farm are no longer one chain; "her parents" (possessed) and "they" stay.
    doc = document([("Carroll", "Carroll", "PROPN", "NNP", 2, "nsubj"), ("went", "go", "VERB", "VBD", 0, "root"),
                    ("home", "home", "ADV", "RB", 2, "advmod")],
                   [("her", "she", "PRON", "PRP$", 2, "nmod:poss"), ("parents", "parent", "NOUN", "NNS", 3, "nsubj"),
                    ("lived", "live", "VERB", "VBD", 0, "root"), ("on", "on", "ADP", "IN", 6, "case"),
                    ("a", "a", "DET", "DT", 6, "det"), ("farm", "farm", "NOUN", "NN", 3, "obl")],
                   [("they", "they", "PRON", "PRP", 2, "nsubj"), ("left", "leave", "VERB", "VBD", 0, "root"),
                    ("the", "the", "DET", "DT", 4, "det"), ("farm", "farm", "NOUN", "NN", 2, "obj")])
    mention(doc, "e1", 1, 3, 3)
    mention(doc, "e1", 2, 5, 6)
    mention(doc, "e1", 3, 3, 4)
    mention(doc, "e2", 2, 1, 2)
    mention(doc, "e2", 3, 1, 1)
    report = Report()
    ontogum.split_at_indefinites(doc, report)
    assert chains(doc) == [["a farm", "the farm"], ["her parents", "they"], ["home"]]
    assert report.counts == {"ontogum 7 adjust chains by definiteness: chain split at an indefinite": 1}
    assert [ontogum.is_definite(m) for m in doc.mentions] == [False, True, False, True, True]


def test_a_pronoun_possessor_makes_a_mention_definite_a_name_or_noun_does_not() -> None:
    # The paper: "the head noun is possessed"; the official build counts possessive pronouns ("her parents")
    # only, and a phrase that is itself the possessor ("the fluid 's").
    doc = document([("the", "the", "DET", "DT", 2, "det"), ("world", "world", "NOUN", "NN", 4, "nmod:poss"),
                    ("'s", "'s", "PART", "POS", 2, "case"), ("languages", "language", "NOUN", "NNS", 0, "root")],
                   [("Ann", "Ann", "PROPN", "NNP", 3, "nmod:poss"), ("'s", "'s", "PART", "POS", 1, "case"),
                    ("dog", "dog", "NOUN", "NN", 0, "root")],
                   [("its", "its", "PRON", "PRP$", 2, "nmod:poss"), ("tail", "tail", "NOUN", "NN", 0, "root")],
                   [("fluid", "fluid", "NOUN", "NN", 3, "nmod:poss"), ("'s", "'s", "PART", "POS", 1, "case"),
                    ("speed", "speed", "NOUN", "NN", 0, "root")])
    general, owned = mention(doc, "e1", 1, 1, 4), mention(doc, "e2", 2, 1, 3)
    its_tail, possessor = mention(doc, "e3", 3, 1, 2), mention(doc, "e4", 4, 1, 2)
    assert [ontogum.is_definite(m) for m in (general, owned, its_tail, possessor)] == [False, False, True, True]


def test_quantifying_determiners_and_foreign_words_are_definite() -> None:
    # The official list of definite determiners has all, every, any and no besides the, this, that, these,
    # those; a foreign word (FW: "encabalgamiento") counts as a name.
    doc = document([("all", "all", "DET", "DT", 2, "det"), ("languages", "language", "NOUN", "NNS", 0, "root")],
                   [("no", "no", "DET", "DT", 2, "det"), ("exposure", "exposure", "NOUN", "NN", 0, "root")],
                   [("encabalgamiento", "encabalgamiento", "X", "FW", 0, "root")],
                   [("some", "some", "DET", "DT", 2, "det"), ("exposure", "exposure", "NOUN", "NN", 0, "root")])
    found = [ontogum.is_definite(mention(doc, f"e{n}", n, 1, len(doc.sentences[n - 1].nodes))) for n in range(1, 5)]
    assert found == [True, True, True, False]


def test_pronominal_determiners_are_definite() -> None:
    doc = document([("both", "both", "DET", "DT", 2, "nsubj"), ("left", "leave", "VERB", "VBD", 0, "root")])
    assert ontogum.is_definite(mention(doc, "e1", 1, 1, 1))


def test_an_indefinite_followed_soon_by_he_she_or_a_name_stays_in_its_chain() -> None:
    # "[Moreau] ... When [a young girl] , [Moreau] moved": the official build does not split there (it guards
    # against annotation slips); a "he" or name more than two sentences on does not hold the chain.
    girl = [("a", "a", "DET", "DT", 2, "det"), ("girl", "girl", "NOUN", "NN", 0, "root")]
    name = [("Moreau", "Moreau", "PROPN", "NNP", 0, "root")]
    other = [("rain", "rain", "NOUN", "NN", 0, "root")]
    doc = document(name, girl, name, name, girl, other, other, other, name)
    for entity, sentences in (("e1", (1, 2, 3)), ("e2", (4, 5, 9))):
        for sentence in sentences:
            mention(doc, entity, sentence, 1, len(doc.sentences[sentence - 1].nodes))
    ontogum.split_at_indefinites(doc, Report())
    assert chains(doc) == [["Moreau"], ["Moreau", "a girl", "Moreau"], ["a girl", "Moreau"]]


def test_a_merged_apposition_keeps_the_indefinite_after_it() -> None:
    # "[the village of Mazirat] , [a town of 30 houses] ... [there]": the merged mention's chain is not split.
    doc = document([("the", "the", "DET", "DT", 2, "det"), ("village", "village", "NOUN", "NN", 0, "root"),
                    (",", ",", "PUNCT", ",", 5, "punct"), ("a", "a", "DET", "DT", 5, "det"),
                    ("town", "town", "NOUN", "NN", 2, "appos")],
                   [("we", "we", "PRON", "PRP", 2, "nsubj"), ("stayed", "stay", "VERB", "VBD", 0, "root"),
                    ("there", "there", "ADV", "RB", 2, "advmod")])
    mention(doc, "e1", 1, 1, 2)
    mention(doc, "e1", 1, 4, 5, link="appos")
    mention(doc, "e1", 2, 3, 3, link="coref")
    report = Report()
    ontogum.apply_ontogum(Corpus([doc]), report)
    assert chains(doc) == [["the village , a town", "there"]]
    assert "ontogum 7 adjust chains by definiteness: chain split at an indefinite" not in report.counts


def test_singletons_go_last_and_the_chain_runs_in_order() -> None:
    doc = document([("Ann", "Ann", "PROPN", "NNP", 2, "nsubj"), ("saw", "see", "VERB", "VBD", 0, "root"),
                    ("a", "a", "DET", "DT", 4, "det"), ("dog", "dog", "NOUN", "NN", 2, "obj")],
                   [("she", "she", "PRON", "PRP", 0, "root")])
    mention(doc, "e1", 1, 1, 1)
    mention(doc, "e1", 2, 1, 1, link="ana")
    mention(doc, "e2", 1, 3, 4)
    report = Report()
    ontogum.remove_singletons(doc, report)
    assert chains(doc) == [["Ann", "she"]]
    assert report.counts == {"ontogum 8 remove singletons: singleton removed": 1}
    assert [step.__name__ for step in ontogum.STEPS] == [
        "remove_bridging_and_cataphora", "contract_verbal_spans", "merge_appositions", "remove_compounds",
        "remove_copula", "remove_nested", "split_at_indefinites", "remove_singletons"]


def spans(doc: Document) -> list[list[tuple[int, int, int]]]:
    """The chains as (sentence, first word, last word) triples: masked words have no text to compare."""
    return sorted([(m.sentence.index, m.words[0].position, m.words[-1].position) for m in e.mentions]
                  for e in doc.entities)


# Tokens with GUM's FEATS: the rules must read these, not the forms and lemmas.
THE = "Definite=Def|PronType=Art"
A = "Definite=Ind|PronType=Art"
HE = "Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs"
HIS = "Gender=Masc|Number=Sing|Person=3|Poss=Yes|PronType=Prs"
MASKED_CASES = (
    # "[the farm] was built ... [a farm] grew ... [this farm] ... [no farm]": definiteness from Definite/PronType.
    [("the", "the", "DET", "DT", 2, "det", THE), ("farm", "farm", "NOUN", "NN", 4, "nsubj:pass", "Number=Sing"),
     ("was", "be", "AUX", "VBD", 4, "aux:pass"), ("built", "build", "VERB", "VBN", 0, "root")],
    [("a", "a", "DET", "DT", 2, "det", A), ("farm", "farm", "NOUN", "NN", 3, "nsubj"),
     ("grew", "grow", "VERB", "VBD", 0, "root")],
    [("the", "the", "DET", "DT", 2, "det", THE), ("farm", "farm", "NOUN", "NN", 0, "root")],
    [("no", "no", "DET", "DT", 2, "det", "PronType=Neg"), ("farm", "farm", "NOUN", "NN", 0, "root")],
    # "[a man] came ... [he] ... [prices are rising] ... [his] ... [it 's universal]" and an apposition with a
    # closing quote told by its tag.
    [("a", "a", "DET", "DT", 2, "det", A), ("man", "man", "NOUN", "NN", 3, "nsubj"),
     ("came", "come", "VERB", "VBD", 0, "root")],
    [("he", "he", "PRON", "PRP", 0, "root", HE)],
    [("prices", "price", "NOUN", "NNS", 3, "nsubj"), ("are", "be", "AUX", "VBP", 3, "aux"),
     ("rising", "rise", "VERB", "VBG", 0, "root"), ("his", "his", "PRON", "PRP$", 3, "obj", HIS)],
    [("it", "it", "PRON", "PRP", 3, "nsubj"), ("'s", "be", "AUX", "VBZ", 3, "cop"),
     ("universal", "universal", "ADJ", "JJ", 0, "root"), ("this", "this", "PRON", "DT", 3, "dep")],
    [("Ann", "Ann", "PROPN", "NNP", 0, "root"), (",", ",", "PUNCT", ",", 4, "punct"),
     ('"', '"', "PUNCT", "``", 4, "punct"), ("Nan", "Nan", "PROPN", "NNP", 1, "appos"),
     ('"', '"', "PUNCT", "''", 4, "punct"), ("she", "she", "PRON", "PRP", 1, "dep", HE.replace("Masc", "Fem"))],
    [("it", "it", "PRON", "PRP", 0, "root")],
    [("a", "a", "DET", "DT", 2, "det", A), ("man", "man", "NOUN", "NN", 0, "root")],
    [("he", "he", "PRON", "PRP", 0, "root", HE)],
    [("this", "this", "DET", "DT", 2, "det", "Number=Sing|PronType=Dem"), ("farm", "farm", "NOUN", "NN", 0, "root")],
)


def annotate(doc: Document) -> None:
    for entity, sentence, first, last, link in (
            ("e1", 1, 1, 2, None), ("e1", 2, 1, 2, None), ("e1", 3, 1, 2, None), ("e1", 4, 1, 2, None),
            ("e2", 5, 1, 2, None), ("e2", 6, 1, 1, "ana"), ("e3", 7, 1, 3, None), ("e3", 7, 4, 4, None),
            ("e4", 8, 1, 3, None), ("e4", 8, 4, 4, None), ("e5", 9, 1, 1, None), ("e5", 9, 4, 4, "appos"),
            ("e5", 9, 6, 6, "ana"), ("e6", 1, 1, 4, None), ("e6", 10, 1, 1, "ana"), ("e2", 11, 1, 2, None),
            ("e2", 12, 1, 1, "ana"), ("e1", 13, 1, 2, None)):
        mention(doc, entity, sentence, first, last, link=link)


def test_masked_text_converts_as_its_original() -> None:
    original, masked = document(*MASKED_CASES), document(*MASKED_CASES, masked=True)
    reports = Report(), Report()
    for doc, report in zip((original, masked), reports, strict=True):
        annotate(doc)
        ontogum.apply_ontogum(Corpus([doc]), report)
    # "the farm" leaves its chain at the indefinite "a farm", which keeps the definite ones after it; the second
    # "a man" stays in its chain, as "he" follows it.
    assert chains(original) == [["'s", "this"], ['Ann , " Nan "', "she"], ["a farm", "the farm", "no farm", "this farm"],
                                ["a man", "he", "a man", "he"], ["are", "his"], ["was", "it"]]
    assert spans(masked) == spans(original)
    assert reports[0].counts == reports[1].counts
