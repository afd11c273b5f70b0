"""The string-match baseline: exact string and head-lemma match over given mentions, no lexicon, no tree needed;
and ``validate``'s table saying why a baseline has no figures instead of printing zeros, or how it made them."""

from __future__ import annotations

from collections import Counter

from harmonize.converters.corefud import parse_corefud
from harmonize.errors import Report
from harmonize.resolvers.string_match import NO_HEAD, resolve_string_match
from harmonize.resolvers.validate import RULES, STRING_GOLD, Validation, baseline_rows, rule_baseline_reason

# Russian without a tree or tags (as RuCoCo converts): heads only where a mention has one word.
RUSSIAN = """# newdoc id = ru
# global.Entity = eid-etype-head-other
# sent_id = ru-1
# text = Путин встретил Аснара. Путин улыбнулся.
1\tПутин\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1)
2\tвстретил\t_\t_\t_\t_\t_\t_\t_\t_
3\tАснара\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1)
4\t.\t_\t_\t_\t_\t_\t_\t_\t_
5\tпутин\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1)
6\tи\t_\t_\t_\t_\t_\t_\t_\t_
7\tпремьер\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1
8\tИспании\t_\t_\t_\t_\t_\t_\t_\tEntity=e2)
9\tпремьер\t_\t_\t_\t_\t_\t_\t_\tEntity=(e3--1)

"""


def _headless(text: str):
    """The corpus with its mentions of several words without a head (as RuCoCo's are: no tree, none annotated)."""
    corpus = parse_corefud(text)
    for document in corpus.documents:
        for mention in document.mentions:
            if len(mention.words) > 1:
                document.move_head(mention, None)
    return corpus


def test_same_strings_join_whatever_the_script_and_mentions_without_heads_are_counted() -> None:
    corpus = _headless(RUSSIAN)
    report = Report()
    counts = resolve_string_match(corpus, report)
    texts = sorted(sorted(m.text for m in entity.mentions) for entity in corpus.documents[0].entities)
    # "Путин" and "путин" are one string in lower case; "премьер Испании" has no head (two words, no tree), so
    # it does not join the one-word "премьер" by head: whole strings only.
    assert texts == [["Аснара"], ["Путин", "путин"], ["премьер"], ["премьер Испании"]]
    assert counts["joined by the same string"] == 1 and counts["mentions"] == 5
    assert report.counts[NO_HEAD] == 1


def test_head_lemmas_join_where_there_are_heads() -> None:
    text = RUSSIAN.replace("Entity=(e2--1\n", "Entity=(e2--1\n").replace(
        "7\tпремьер\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1", "7\tпремьер\tпремьер\t_\t_\t_\t0\troot\t_\tEntity=(e2--1").replace(
        "8\tИспании\t_\t_\t_\t_\t_\t_\t_\tEntity=e2)", "8\tИспании\tИспания\t_\t_\t_\t7\tnmod\t_\tEntity=e2)")
    corpus = _headless(text)  # the tree gives the head back
    counts = resolve_string_match(corpus, Report())
    texts = sorted(sorted(m.text for m in entity.mentions) for entity in corpus.documents[0].entities)
    assert ["премьер", "премьер Испании"] in texts and counts["joined by the same head lemma"] == 1


def test_without_tags_the_rule_baseline_says_why_and_string_match_still_scores() -> None:
    gold = parse_corefud(RUSSIAN)
    assert "no part-of-speech tags" in (rule_baseline_reason(gold) or "")
    rows, reasons, _ = baseline_rows(gold, None)
    assert RULES in reasons and RULES not in rows
    assert rows[STRING_GOLD]["mentions"] == 100.0 and rows[STRING_GOLD]["conll"] > 0
    table = Validation({**rows}, [], 1, 1, reasons=reasons).table()
    rule_line = next(line for line in table.splitlines() if line.startswith(RULES))
    assert "n/a: no part-of-speech tags" in rule_line and "0.00" not in rule_line
    assert Counter(line.split()[0] for line in table.splitlines()[1:])["string"] == 1


def test_a_resolver_that_found_no_mention_is_said_so_with_how_long_it_trained() -> None:
    from harmonize.resolvers.documents import without_coreference
    from harmonize.resolvers.neural import Epoch
    from harmonize.resolvers.validate import STRING_PREDICTED, trained_epochs

    gold, nothing = parse_corefud(RUSSIAN), parse_corefud(RUSSIAN)
    without_coreference(nothing, Report())
    rows, reasons, _ = baseline_rows(gold, nothing)
    assert reasons[STRING_PREDICTED] == "the resolver found no mention" and STRING_PREDICTED not in rows
    assert trained_epochs([Epoch(1, 0.5, 60.0), Epoch(2, 0.4, 20.0, share=0.25)]) == 1.25


# German without tags (as the MMAX2 corpora convert): "Ein Mann kam . Eine Frau sah ihn ."
GERMAN = """# newdoc id = de
# global.Entity = eid-etype-head-other
# meta::language = de
# sent_id = de-1
# text = Ein Mann kam .
1\tEin\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1
2\tMann\t_\t_\t_\t_\t_\t_\t_\tEntity=e1)
3\tkam\t_\t_\t_\t_\t_\t_\t_\t_
4\t.\t_\t_\t_\t_\t_\t_\t_\t_

# sent_id = de-2
# text = Eine Frau sah ihn .
1\tEine\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2--1
2\tFrau\t_\t_\t_\t_\t_\t_\t_\tEntity=e2)
3\tsah\t_\t_\t_\t_\t_\t_\t_\t_
4\tihn\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1--1)
5\t.\t_\t_\t_\t_\t_\t_\t_\t_

"""


def test_without_tags_a_language_with_a_lexicon_gets_the_rule_baseline_on_gold_mentions_and_a_note() -> None:
    gold = parse_corefud(GERMAN)
    assert rule_baseline_reason(gold) is None
    rows, reasons, notes = baseline_rows(gold, None)
    assert RULES not in reasons and rows[RULES]["conll"] == 100.0 and rows[RULES]["mentions"] == 100.0
    assert notes[RULES].startswith("no part-of-speech tags: on the gold mentions, pronouns by the German lexicon")
    table = Validation(rows, [], 1, 1, notes=notes).table()
    assert table.splitlines()[-1] == f"{RULES}: {notes[RULES]}"
    # Czech has no lexicon here: the row says so, naming the language.
    reason = rule_baseline_reason(parse_corefud(GERMAN.replace("meta::language = de", "meta::language = cs"))) or ""
    assert "no pronoun lexicon for language 'cs'" in reason and "convert --parse" in reason


def test_a_resolver_not_above_string_match_on_its_own_mentions_gets_a_note_saying_by_how_much() -> None:
    from harmonize.resolvers.validate import RESOLVER, STRING_PREDICTED, below_string_match

    rows = {STRING_PREDICTED: {"conll": 12.43}, RESOLVER: {"conll": 9.2, "mentions": 29.82}}
    assert below_string_match(rows, "", 20.8, 10) == (
        "not above string match on its own mentions (-3.23 CoNLL; its mention F1 29.82), after 21 epochs on 10 "
        "training documents")
    # Mentions found but none right: both rows 0, which is no win either.
    zero = {STRING_PREDICTED: {"conll": 0.0}, RESOLVER: {"conll": 0.0, "mentions": 0.0}}
    assert "(+0.00 CoNLL; its mention F1 0.00)" in (below_string_match(zero, "", 1.5, 51) or "")
    ahead = {STRING_PREDICTED: {"conll": 9.2}, RESOLVER: {"conll": 12.43, "mentions": 40.0}}
    assert below_string_match(ahead, "", 2.0, 10) is None
    # No mention found: the string-match row has a reason instead, and the resolver no note.
    assert below_string_match({RESOLVER: {"conll": 0.0, "mentions": 0.0}}, "", 2.0, 10) is None
