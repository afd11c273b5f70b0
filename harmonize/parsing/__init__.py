"""Dependency trees for documents that have none, from a parser engine, and mention heads from the trees.

    import harmonize
    corpus = harmonize.read("text.json", "rucoco")
    report = harmonize.parse(corpus, "udpipe:russian-syntagrus-ud-2.5-191206.udpipe")

An engine is one module holding a class with the `Parser` interface, and one entry in `ENGINES`
(``stanza[:LANG]``, ``udpipe:MODEL``; ``none`` parses nothing). The parser sees the source's words exactly
(pretokenized, sentence breaks kept), tags them with its own model and parses from its own tags; then only the
columns the source left empty are filled (see `harmonize.parsing.trees`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import Protocol

from harmonize.errors import HarmonizeError


@dataclass(frozen=True, slots=True)
class ParsedWord:
    """One word as a parser returns it. ``token`` is the index of the input token it belongs to (a parser that
    splits multiword tokens returns several words for one token); ``head`` is the 1-based index of the governing
    word among the sentence's parsed words, 0 for the root."""

    token: int
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: int
    deprel: str


class Parser(Protocol):
    """What an engine provides: a name for reports, whether several processes may each load one, and parsing."""

    name: str
    # False where one instance should serve a whole run (a GPU pipeline of a few GB): conversions then use one
    # process instead of one per core.
    shares_processes: bool

    def parse(self, sentences: list[list[str]], language: str | None) -> list[list[ParsedWord]]:
        """Tag, lemmatize and parse pretokenized sentences (each a list of token forms) of one document in
        ``language`` (an ISO 639 code, None where unknown): per sentence, its words in order."""
        ...


def _udpipe(argument: str | None) -> Parser:
    if not argument:
        raise HarmonizeError("--parse udpipe needs a model: udpipe:NAME (udpipe-NAME of the corpus catalog, "
                             "`harmonize corpora list`) or udpipe:PATH/TO/MODEL.udpipe")
    return import_module("harmonize.parsing.udpipe").UDPipeParser(model_file(argument))


def model_file(name: str) -> str:
    """A UDPipe model named by path (a file that exists wins) or by its catalog name (``english-gum`` for the
    catalog's ``udpipe-english-gum``, ``@VERSION`` allowed): its file in the corpus cache, fetched first where
    ``--fetch`` (or ``HARMONIZE_FETCH``) says so, else an error naming the command that fetches it."""
    from pathlib import Path

    if Path(name).is_file() or name.endswith(".udpipe"):
        return name
    from harmonize import corpora

    spec = name if name.startswith("udpipe-") else f"udpipe-{name}"
    config = corpora.settings()
    entry = config.the_catalog().find(spec)
    if entry is None or entry.kind != "parser model":
        known = sorted(e.id.removeprefix("udpipe-") for e in config.the_catalog().entries if e.kind == "parser model")
        raise HarmonizeError(f"udpipe:{name}: no such model file, and no model of that name in the catalog "
                             f"({', '.join(known)})")
    resolved = corpora.resolve(spec, config, fetch_missing=corpora.fetch_wanted())
    assert resolved is not None  # a catalog id that is no existing path
    return str(resolved.path)


def _stanza(argument: str | None) -> Parser:
    return import_module("harmonize.parsing.stanza").StanzaParser(argument or None)


# name -> (what makes a parser from the text after "name:", one line for the help)
ENGINES: dict[str, tuple[Callable[[str | None], Parser], str]] = {
    "stanza": (_stanza, ("stanza[:LANG]: the stanza pipeline (tokenize pretokenized, mwt, pos, lemma, depparse) "
                         "with models already in STANZA_RESOURCES_DIR; GPU when torch sees one")),
    "udpipe": (_udpipe, "udpipe:MODEL: UDPipe 1 (ufal.udpipe) with a model file, or a LINDAT UD 2.5 model by "
                        "name (udpipe:english-gum; `harmonize corpora fetch udpipe-english-gum` gets it)"),
}
NO_PARSING = "none"
PARSE_HELP = ("Give documents without trees UD trees and mentions heads: none (the default), "
              + "; ".join(help_line for _, help_line in ENGINES.values()) + ".")


@lru_cache(maxsize=4)  # a model loads once per process, however many files a worker converts
def parser_for(spec: str) -> Parser | None:
    """The parser a ``--parse`` value names; None for ``none``. Errors name the engines there are."""
    name, _, argument = spec.partition(":")
    if name == NO_PARSING and not argument:
        return None
    if name not in ENGINES:
        raise HarmonizeError(f"--parse takes none, {', '.join(f'{n}[:...]' for n in ENGINES)}; not {spec!r}")
    return ENGINES[name][0](argument)

