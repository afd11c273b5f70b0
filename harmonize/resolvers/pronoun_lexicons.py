"""Pronoun lexicons for the rule baseline where a corpus has no part-of-speech tags (RuCoCo, LitBank, ParCorFull,
the Potsdam Commentary Corpus, ECB+ as their readers give them): English, German, Russian and Polish, the seed
corpora's languages.

A lexicon maps a word form (in lower case) to the UD agreement features (Person, Number, Gender) it allows, each
a set of values: a form that stands for several pronouns (German "sie": she, they, formal you) allows the union, and
a feature some reading leaves open (plural "sie" has no gender) is left open. Possessives carry their possessor's
features, which are what agree with the antecedent. Relative and interrogative pronouns are listed without features:
the rule baseline links them like any pronoun. Determiners give a noun phrase's features from its first word where
a language has articles that tell (German "eine": feminine singular); the others give none.

Where a document does not say its language (an MMAX2 project, a brat folder), it is guessed from the forms that
only one lexicon holds and that are no common word of another of these languages (English "the" and "he", German
"der" and "er"; not "on", a Polish pronoun and an English preposition, nor English "i", Polish for "and"): the
language whose telling forms occur most, where any occur. A document's language (CorefUD's ``# meta::language``,
the reader's ``lang`` option) is taken as it is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Features = Mapping[str, frozenset[str]]


def _table(text: str) -> dict[str, Features]:
    """Forms -> features from lines ``form form ...: Feature=Value|Value ...``; a form on several lines allows the
    union of their values, a feature missing on any of its lines is left open."""
    readings: dict[str, list[dict[str, frozenset[str]]]] = {}
    for line in text.strip().splitlines():
        forms, _, features = line.partition(":")
        reading = {name: frozenset(values.split("|"))
                   for name, values in (item.split("=") for item in features.split())}
        for form in forms.split():
            readings.setdefault(form, []).append(reading)
    merged: dict[str, Features] = {}
    for form, options in readings.items():
        shared = set.intersection(*(set(option) for option in options))
        merged[form] = {name: frozenset().union(*(option[name] for option in options)) for name in sorted(shared)}
    return merged


@dataclass(frozen=True)
class Lexicon:
    """One language's pronouns and, where its articles tell, determiners, each form -> its agreement features."""

    language: str  # ISO 639-1
    name: str
    pronouns: Mapping[str, Features]
    determiners: Mapping[str, Features]


ENGLISH = Lexicon("en", "English", _table("""
i me my mine myself: Person=1 Number=Sing
we us our ours ourselves: Person=1 Number=Plur
you your yours: Person=2
yourself: Person=2 Number=Sing
yourselves: Person=2 Number=Plur
he him his himself: Person=3 Number=Sing Gender=Masc
she her hers herself: Person=3 Number=Sing Gender=Fem
it its itself: Person=3 Number=Sing Gender=Neut
they them their theirs themselves: Person=3 Number=Plur
this that: Person=3 Number=Sing
these those: Person=3 Number=Plur
who whom whose which:
"""), _table("""
a an this that every each: Number=Sing
these those: Number=Plur
the:
"""))

GERMAN = Lexicon("de", "German", _table("""
ich mich mir mein meine meinem meinen meiner meines: Person=1 Number=Sing
wir uns unser unsere unserem unseren unserer unseres: Person=1 Number=Plur
du dich dir dein deine deinem deinen deiner deines: Person=2 Number=Sing
ihr euch euer eure eurem euren eurer eures: Person=2 Number=Plur
er ihn: Person=3 Number=Sing Gender=Masc
ihm sein seine seinem seinen seiner seines: Person=3 Number=Sing Gender=Masc|Neut
es: Person=3 Number=Sing Gender=Neut
sie ihr ihre ihrem ihren ihrer ihres: Person=3 Number=Sing Gender=Fem
sie ihnen ihr ihre ihrem ihren ihrer ihres: Person=3 Number=Plur
sie ihnen ihr ihre ihrem ihren ihrer ihres: Person=2
sich:
dieser diesen: Number=Sing Gender=Masc
dieser diese: Number=Sing Gender=Fem
dieses diesem: Number=Sing Gender=Masc|Neut
diese diesen dieser: Number=Plur
der den: Number=Sing Gender=Masc
der die: Number=Sing Gender=Fem
das dem dessen: Number=Sing Gender=Masc|Neut
die den denen deren der: Number=Plur
welcher welche welches welchem welchen wer wen wem was:
"""), _table("""
das: Number=Sing Gender=Neut
dem des: Number=Sing Gender=Masc|Neut
ein eines einem: Number=Sing Gender=Masc|Neut
einen: Number=Sing Gender=Masc
eine: Number=Sing Gender=Fem
"""))

RUSSIAN = Lexicon("ru", "Russian", _table("""
я меня мне мной мною мой моя моё мое мои моего моей моему моим моих моими моём моем мою: Person=1 Number=Sing
мы нас нам нами наш наша наше наши нашего нашей нашему нашим наших нашими нашем нашу: Person=1 Number=Plur
ты тебя тебе тобой тобою: Person=2 Number=Sing
твой твоя твоё твое твои твоего твоей твоему твоим твоих твоими твоём твоем твою: Person=2 Number=Sing
вы вас вам вами ваш ваша ваше ваши вашего вашей вашему вашим ваших вашими вашем вашу: Person=2
он: Person=3 Number=Sing Gender=Masc
его него ему нему им ним нём нем: Person=3 Number=Sing Gender=Masc|Neut
она её ее неё нее ей ней ею нею: Person=3 Number=Sing Gender=Fem
оно: Person=3 Number=Sing Gender=Neut
они их них им ним ими ними: Person=3 Number=Plur
себя себе собой собою свой своя своё свое свои своего своей своему своим своих своими своём своем свою:
этот тот который: Number=Sing Gender=Masc
эта та эту ту которая которую: Number=Sing Gender=Fem
это то которое: Number=Sing Gender=Neut
этого того этому тому этом том которого которому котором: Number=Sing Gender=Masc|Neut
этой той которой: Number=Sing Gender=Fem
этим тем которым: Number=Sing Gender=Masc|Neut
эти те этих тех этим тем этими теми которые которых которым которыми: Number=Plur
кто кого кому кем ком что чего чему чем чём:
"""), {})

POLISH = Lexicon("pl", "Polish", _table("""
ja mnie mi mną mój moja moje moi mojego mojej mojemu moim moich moimi moją: Person=1 Number=Sing
my nas nam nami nasz nasza nasze nasi naszego naszej naszemu naszym naszych naszymi naszą: Person=1 Number=Plur
ty ciebie cię tobie ci tobą twój twoja twoje twoi twojego twojej twojemu twoim twoich twoimi twoją: Person=2 Number=Sing
wy was wam wami wasz wasza wasze wasi waszego waszej waszemu waszym waszych waszymi waszą: Person=2 Number=Plur
on: Person=3 Number=Sing Gender=Masc
jego go niego jemu mu niemu nim: Person=3 Number=Sing Gender=Masc|Neut
ona jej niej ją nią: Person=3 Number=Sing Gender=Fem
ono je: Person=3 Number=Sing Gender=Neut
oni one ich nich im nimi je: Person=3 Number=Plur
się siebie sobie sobą swój swoja swoje swoi swojego swojej swojemu swoim swoich swoimi swoją:
ten tego temu tym który którego któremu którym: Number=Sing Gender=Masc|Neut
ta tej tą tę która której którą: Number=Sing Gender=Fem
to które: Number=Sing Gender=Neut
ci te tych tym tymi którzy które których którym którymi: Number=Plur
kto kogo komu kim co czego czemu czym:
"""), {})

LEXICONS: dict[str, Lexicon] = {lexicon.language: lexicon for lexicon in (ENGLISH, GERMAN, RUSSIAN, POLISH)}


# Forms of one lexicon that are frequent other words in another of its languages: they tell no language apart.
COMMON_ELSEWHERE = frozenset({
    "i", "we", "a", "on", "to", "go", "one", "ten", "te", "ta", "mi", "ci", "ja", "je", "im", "was", "die"})


def _telling_forms() -> dict[str, str]:
    """Form -> language, for the forms (pronouns and determiners) only one lexicon holds and that are no common word
    of another of its languages."""
    holders: dict[str, set[str]] = {}
    for lexicon in LEXICONS.values():
        for form in (*lexicon.pronouns, *lexicon.determiners):
            holders.setdefault(form, set()).add(lexicon.language)
    return {form: next(iter(languages)) for form, languages in holders.items()
            if len(languages) == 1 and form not in COMMON_ELSEWHERE}


TELLING_FORMS = _telling_forms()


def guess_language(forms: Iterable[str]) -> str | None:
    """The lexicon language whose telling forms occur most among ``forms`` (any case), or None where none occurs or
    two tie."""
    hits = Counter(TELLING_FORMS[form.lower()] for form in forms if form.lower() in TELLING_FORMS)
    ranked = hits.most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]
