"""The rule baseline on documents without part-of-speech tags: pronouns among the gold mentions found by a lexicon
of the document's language (given or guessed), agreement from the lexicon."""

from __future__ import annotations

from harmonize.converters.corefud import parse_corefud
from harmonize.errors import Report, section_of
from harmonize.resolvers.pronoun_lexicons import GERMAN, LEXICONS, guess_language
from harmonize.resolvers.rules import BY_LEXICON, GUESSED, resolve_rules


def untagged(language: str | None, *sentences: list[tuple[str, str]]) -> str:
    """A CorefUD document with forms and Entity columns only (no lemma, tags or tree), as RuCoCo and the MMAX2
    corpora convert; words "_" with an Entity column are zeros (empty nodes after the word before)."""
    lines = ["# newdoc id = doc", "# global.Entity = eid-etype-head-other"]
    if language:
        lines.append(f"# meta::language = {language}")
    for number, words in enumerate(sentences, 1):
        lines += [f"# sent_id = s{number}", f"# text = {' '.join(form for form, _ in words if form != '_')}"]
        word = 0
        zero = 0
        for form, entity in words:
            if form == "_":
                zero += 1
                lines.append(f"{word}.{zero}\t_\t_\t_\t_\t_\t_\t_\t_\t{entity}")
            else:
                word, zero = word + 1, 0
                lines.append(f"{word}\t{form}\t_\t_\t_\t_\t_\t_\t_\t{entity}")
        lines.append("")
    return "\n".join(lines) + "\n"


def entities(corpus) -> list[list[str]]:
    return sorted(sorted(m.text or "_" for m in e.mentions) for e in corpus.documents[0].entities)


# "Ein Mann kam . Eine Frau sah ihn . Sie lachte ."
GERMAN_DOC = untagged("de", [("Ein", "Entity=(e1--1"), ("Mann", "Entity=e1)"), ("kam", "_"), (".", "_")],
                      [("Eine", "Entity=(e2--1"), ("Frau", "Entity=e2)"), ("sah", "_"), ("ihn", "Entity=(e1--1)"),
                       (".", "_")],
                      [("Sie", "Entity=(e2--1)"), ("lachte", "_"), (".", "_")])


def test_pronouns_agree_by_the_lexicon_and_the_articles() -> None:
    corpus = parse_corefud(GERMAN_DOC)
    report = Report()
    counts = resolve_rules(corpus, gold_mentions=True, report=report)
    # "ihn" (masculine) passes over "Eine Frau" (feminine by its article) to "Ein Mann"; "Sie" (she, they or formal
    # you: no gender) takes the nearest noun phrase.
    assert entities(corpus) == [["Ein Mann", "ihn"], ["Eine Frau", "Sie"]]
    assert counts["pronouns linked to a noun phrase"] == 2
    reason = BY_LEXICON.format("German")
    assert report.counts[reason] == 1 and section_of(reason) == "choices"


def test_a_pronoun_never_joins_a_mention_that_contains_it_and_zeros_are_pronouns() -> None:
    # "John came . [his] mother saw _ ." with "his" inside "his mother" and a zero object after "saw".
    text = untagged(None, [("John", "Entity=(e1--1)"), ("came", "_"), (".", "_")],
                    [("his", "Entity=(e2--1(e1--1)"), ("mother", "Entity=e2)"), ("saw", "_"),
                     ("_", "Entity=(e1--1)"), (".", "_")])
    corpus = parse_corefud(text)
    report = Report()
    resolve_rules(corpus, gold_mentions=True, report=report)
    # The zero has no features: it takes the nearest noun phrase, "his mother" (a baseline's error, as the rule says).
    assert entities(corpus) == [["John", "his"], ["_", "his mother"]]
    assert report.counts[GUESSED.format("English")] == 1


def test_the_language_is_guessed_only_from_forms_that_tell() -> None:
    assert guess_language("The man said that he would come on Monday".split()) == "en"
    assert guess_language("Ich glaube , er hat die Zeit".split()) == "de"
    assert guess_language("Он сказал , что она придёт".split()) == "ru"
    assert guess_language("Powiedział , że się spóźni".split()) == "pl"
    # "on", "to" and "i" are Polish pronouns (or "and") and English words: they tell nothing.
    assert guess_language("on to i".split()) is None
    # German "sie" is she, they or formal you: the union of their persons, number and gender left open.
    assert LEXICONS["de"] is GERMAN and GERMAN.pronouns["sie"] == {"Person": {"2", "3"}}


def test_without_a_lexicon_nothing_is_linked_and_the_report_says_why() -> None:
    text = untagged("cs", [("Petr", "Entity=(e1--1)"), ("přišel", "_"), (".", "_")],
                    [("On", "Entity=(e1--1)"), ("spal", "_"), (".", "_")])
    report = Report()
    counts = resolve_rules(corpus := parse_corefud(text), gold_mentions=True, report=report)
    assert counts["pronouns linked to a noun phrase"] == 0 and len(corpus.documents[0].entities) == 2
    assert any("no pronoun lexicon for language 'cs'" in reason for reason in report.counts)
