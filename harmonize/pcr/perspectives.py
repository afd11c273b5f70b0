"""PCR4ALL's perspectives on a question (section 3.3): agreement between the pronoun and each candidate
(linguistic: exactly one agrees, so that agreement alone answers it; knowledge: every other question, since
something beyond agreement must), and the per-source flags of ``sources.tsv`` (casual, else formal; medical;
gender bias): every question is in exactly one of linguistic/knowledge and one of formal/casual.

Agreement reads gender, number and person from FEATS where a corpus has them (`from_feats`), else from English
lexicons (`from_text`): pronouns by form (the rule baseline's, `harmonize.resolvers.pronoun_lexicons.ENGLISH`);
candidates by their last word before a modifier ("the mother of ..."): gendered nouns and titles, plural by "and"
or by an ``s`` ending of a lowercase noun; a name ("Susan King", "Mr. Hadid") by its title, else its first word in
``first_names.tsv`` (US Census first names borne over 90% by one sex), and neither singular nor plural from its
ending ("Carmen" is no plural in -men).
What neither tells (an unlisted or unisex name, "sheep") agrees with everything.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from harmonize.pcr.questions import Question
from harmonize.resolvers.pronoun_lexicons import ENGLISH


@dataclass(frozen=True)
class Agreement:
    person: str | None = None  # "1", "2", "3"
    number: str | None = None  # "Sing", "Plur"
    gender: str | None = None  # "Masc", "Fem", "Neut"


def _one(values: frozenset[str] | None) -> str | None:
    return next(iter(values)) if values is not None and len(values) == 1 else None


# The rule baseline's English pronoun lexicon, its personal, possessive, reflexive and demonstrative pronouns (the
# relative ones have no features there).
_PRONOUNS = {form: Agreement(_one(features.get("Person")), _one(features.get("Number")), _one(features.get("Gender")))
             for form, features in ENGLISH.pronouns.items() if features}
_MALE = frozenset(["man", "men", "boy", "boys", "father", "fathers", "dad", "son", "sons", "brother", "brothers", "husband", "husbands", "king", "kings", "prince", "uncle", "nephew", "grandfather", "grandson", "gentleman", "gentlemen", "mr", "mr.", "sir", "lord", "monk", "priest", "waiter", "actor", "boyfriend", "groom"])
_FEMALE = frozenset(["woman", "women", "girl", "girls", "mother", "mothers", "mom", "mum", "daughter", "daughters", "sister", "sisters", "wife", "wives", "queen", "queens", "princess", "aunt", "niece", "grandmother", "granddaughter", "lady", "ladies", "mrs", "mrs.", "ms", "ms.", "miss", "madam", "nun", "waitress", "actress", "girlfriend", "bride"])
_SINGULAR_S = frozenset(["bus", "boss", "class", "glass", "gas", "news", "series", "species", "lens", "status", "virus", "campus", "bonus", "census", "chaos", "analysis", "basis", "crisis", "thesis", "this", "his", "its", "is", "was", "us", "plus"])
# Nouns whose number the form does not tell (collectives, zero plurals): they agree with both.
_EITHER_NUMBER = frozenset(["sheep", "fish", "deer", "police", "staff", "team", "family", "government", "crew", "committee", "audience", "public", "class", "army", "company", "band", "group", "jury", "couple"])
_DETERMINERS = frozenset(["the", "a", "an", "this", "that", "these", "those", "my", "your", "his", "her", "our", "their"])
# Titles before a name that say its gender ("Mr. Smith", "Queen Victoria").
_TITLES = {**dict.fromkeys(("mr", "mr.", "sir", "lord", "king", "prince", "duke", "count", "uncle", "brother",
                             "father", "monsieur", "herr", "señor"), "Masc"),
           **dict.fromkeys(("mrs", "mrs.", "ms", "ms.", "miss", "lady", "dame", "queen", "princess", "duchess",
                             "countess", "aunt", "sister", "mother", "madam", "madame", "frau", "señora"), "Fem")}
_HEAD_END = re.compile(r"\s+(?:of|who|which|that|with|from|in|on|at|for|to)\s+|,")


def from_text(text: str) -> Agreement:
    """Person, number and gender of a pronoun or candidate written as text (English lexicon)."""
    words = text.strip().split()
    if not words:
        return Agreement()
    if len(words) == 1 and words[0].lower() in _PRONOUNS:
        return _PRONOUNS[words[0].lower()]
    if " and " in f" {text.lower()} ":
        return Agreement("3", "Plur")
    before_modifier = _HEAD_END.split(text.strip())[0].split()
    head = before_modifier[-1]
    lowered = head.lower()
    previous = before_modifier[-2] if len(before_modifier) > 1 else None
    if head[:1].isupper() and (previous is None or (previous[:1].isupper() and previous.lower() not in _DETERMINERS)):
        # A name ("Carmen", "Susan King"): its words are no common nouns ("-men" is no plural, "King" no man).
        return Agreement("3", None if lowered.endswith("s") else "Sing", name_gender(before_modifier))
    gender = "Masc" if lowered in _MALE else "Fem" if lowered in _FEMALE else None
    number = None
    if lowered in _EITHER_NUMBER:
        pass
    elif lowered.endswith("men") or lowered in ("men", "women", "people", "children", "boys", "girls", "fathers", "mothers", "brothers",
                   "sisters", "sons", "daughters", "wives", "ladies", "kings", "queens", "gentlemen") or head.islower() and lowered.endswith("s") and not lowered.endswith(("ss", "us", "is")) \
            and lowered not in _SINGULAR_S:
        number = "Plur"
    elif head.islower() or words[0].lower() in ("a", "an", "this", "that", "every", "each"):
        number = "Sing"
    return Agreement("3", number, gender)


@cache
def _first_names() -> dict[str, str]:
    text = resources.files("harmonize.pcr").joinpath("first_names.tsv").read_text(encoding="utf-8")
    return dict(line.split("\t") for line in text.splitlines() if line and not line.startswith("#"))


def name_gender(words: list[str]) -> str | None:
    """The gender a name's words say ("Masc", "Fem"), None where they do not: the title before it ("Mrs.
    Dalloway"), else its first word as a first name ("Susan King"); the run of capitalised words ending the list
    is the name."""
    start = len(words)
    while start and words[start - 1][:1].isupper():
        start -= 1
    name = words[start:]
    if not name:
        return None
    title = _TITLES.get(name[0].lower())
    if title is not None and len(name) > 1:
        return title
    return _first_names().get(name[0].capitalize())


def from_feats(feats: dict[str, str], entity_type: str | None = None) -> Agreement:
    """Person, number and gender from a word's FEATS; a ``person`` entity is not neuter."""
    gender = feats.get("Gender")
    if gender not in ("Masc", "Fem", "Neut"):
        gender = None
    if gender is None and entity_type == "person":
        gender = "Hum"  # a person: he, she or they, never "it"
    return Agreement(feats.get("Person") or "3", feats.get("Number") if feats.get("Number") in ("Sing", "Plur")
                     else None, gender)


def agrees(pronoun: Agreement, candidate: Agreement) -> bool:
    """Whether nothing known sets the two apart."""
    for attribute in ("person", "number"):
        a, b = getattr(pronoun, attribute), getattr(candidate, attribute)
        if a is not None and b is not None and a != b:
            return False
    a, b = pronoun.gender, candidate.gender
    if a is None or b is None or a == b:
        return True
    return b == "Hum" and a in ("Masc", "Fem")


@cache
def _source_table() -> dict[tuple[str, str], tuple[bool, bool, bool, bool]]:
    text = resources.files("harmonize.pcr").joinpath("sources.tsv").read_text(encoding="utf-8")
    rows = csv.reader((line for line in text.splitlines() if line and not line.startswith("#")), delimiter="\t")
    return {(row[0], row[1]): tuple(value == "1" for value in row[2:6]) for row in rows}  # type: ignore[misc]


def source_flags(data_source: str, genre: str = "") -> tuple[bool, bool, bool, bool]:
    """(formal, casual, medical, gender bias) of a data source and genre, from ``sources.tsv``."""
    table = _source_table()
    for key in ((data_source, genre), (data_source, "*"), ("*", "*")):
        if key in table:
            return table[key]
    raise KeyError(data_source)  # unreachable: the table has a default row


def set_perspectives(question: Question, pronoun: Agreement, option1: Agreement, option2: Agreement,
                     genre: str = "") -> Question:
    """Fill the six PCR4ALL flags of a question."""
    agreeing = agrees(pronoun, option1) + agrees(pronoun, option2)
    question.is_linguistic = agreeing == 1
    question.is_knowledge = not question.is_linguistic
    _formal, question.is_casual, question.is_medical, question.is_gender_bias = source_flags(
        question.data_source, genre)
    question.is_formal = not question.is_casual
    return question


def perspectives_from_text(question: Question) -> Question:
    """The flags of a question read from a set: agreement from the lexicon (the pronoun from ``pronoun``; a
    question without one, WinoGrande's, is knowledge only where neither candidate can be told apart)."""
    pronoun = from_text(question.pronoun) if question.pronoun else Agreement()
    return set_perspectives(question, pronoun, from_text(question.option1), from_text(question.option2))
