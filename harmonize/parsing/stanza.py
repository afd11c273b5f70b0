"""stanza (``pip install 'harmonize[parse]'``): ``--parse stanza[:LANG]``.

The pipeline runs tokenize (pretokenized: the source's words are the tokens), mwt where the language has it, pos,
lemma and depparse, on the GPU when torch sees one. Readers of raw text (``--from text``, brat with ``-I
tokens=parser``) use its tokenize processor on the raw text through `StanzaParser.tokenize`. It never downloads
anything: models must already be in ``STANZA_RESOURCES_DIR`` (stanza's default:
``~/.cache/stanza/<version>/resources``); where they are not, the error says which language is missing and the
command that fetches it on a connected machine.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harmonize.errors import HarmonizeError
from harmonize.parsing import ParsedWord

PROCESSORS = ("tokenize", "pos", "lemma", "depparse")


def resources_dir() -> Path:
    """Where stanza looks for models: STANZA_RESOURCES_DIR, else its own default."""
    configured = os.environ.get("STANZA_RESOURCES_DIR")
    if configured:
        return Path(configured)
    try:
        from stanza.resources.common import DEFAULT_MODEL_DIR
    except ImportError:
        raise HarmonizeError("--parse stanza needs stanza: pip install 'harmonize[parse]'") from None
    return Path(DEFAULT_MODEL_DIR)


def missing_models(language: str, where: Path, detail: str = "") -> HarmonizeError:
    """The one-line error for models that are not there: which, and how to get them without a download here."""
    processors = "tokenize,mwt,pos,lemma,depparse"
    return HarmonizeError(
        f"stanza has no {language!r} models in {where}{f' ({detail})' if detail else ''}: on a machine with "
        f"internet run  python -c \"import stanza; stanza.download('{language}', model_dir='stanza_resources', "
        f"processors='{processors}')\"  then copy stanza_resources/ here and set STANZA_RESOURCES_DIR to it "
        f"(harmonize never downloads models)")


def load_tokenizer(language: str) -> Any:
    """A stanza pipeline that only tokenizes raw text (sentences, tokens with their character offsets)."""
    return load_pipeline(language, "tokenize", pretokenized=False)


def load_pipeline(language: str, processors: str | None = None, pretokenized: bool = True) -> Any:
    """A stanza pipeline for pretokenized text (else raw text) in ``language`` from the models on disk, or the error
    above."""
    where = resources_dir()
    try:
        resources = json.loads((where / "resources.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise missing_models(language, where, "resources.json missing or unreadable") from None
    entry = resources.get(language, {})
    language = entry.get("alias", language)
    if language not in resources or not (where / language).is_dir():
        raise missing_models(language, where)
    wanted = ("tokenize", "mwt", *PROCESSORS[1:]) if "mwt" in resources[language] else PROCESSORS
    import stanza

    try:
        return stanza.Pipeline(language, dir=str(where), processors=processors or ",".join(wanted),
                               tokenize_pretokenized=pretokenized, download_method=None, logging_level="WARN")
    except (OSError, ValueError, KeyError, RuntimeError) as error:  # stanza's own errors derive from these
        raise missing_models(language, where, f"{type(error).__name__}: {error}".splitlines()[0]) from None


class StanzaParser:
    """One stanza pipeline per language, loaded on first use. ``make_pipeline(language)`` is
    `load_pipeline`; tests pass a stand-in with stanza's interface (``pipeline(list of token lists)`` returns
    a document with ``.sentences``, each with ``.tokens``, each with ``.words`` carrying ``lemma``, ``upos``,
    ``xpos``, ``feats``, ``head``, ``deprel``)."""

    # A pipeline holds a few GB (on the GPU where there is one): one process serves the whole run.
    shares_processes = False

    def __init__(self, language: str | None = None,
                 make_pipeline: Callable[[str], Any] = load_pipeline,
                 make_tokenizer: Callable[[str], Any] = load_tokenizer) -> None:
        self.language = language
        self.name = f"stanza:{language}" if language else "stanza"
        self._make_pipeline = make_pipeline
        self._make_tokenizer = make_tokenizer
        self._pipelines: dict[str, Any] = {}
        self._tokenizer: Any = None

    def tokenize(self, text: str) -> list[list[tuple[int, int]]]:
        """Sentences of raw text as lists of token [begin, end) character offsets (stanza's tokenize processor;
        a multiword token is one token)."""
        if not self.language:
            raise HarmonizeError("stanza tokenizes in one language: tokenizer=stanza:LANG")
        if self._tokenizer is None:
            self._tokenizer = self._make_tokenizer(self.language)
        document = self._tokenizer(text)
        return [[(token.start_char, token.end_char) for token in sentence.tokens]
                for sentence in document.sentences if sentence.tokens]

    def parse(self, sentences: list[list[str]], language: str | None) -> list[list[ParsedWord]]:
        language = self.language or language
        if not language:
            raise HarmonizeError("stanza needs the documents' language: --parse stanza:LANG or -I lang=LANG")
        if language not in self._pipelines:
            self._pipelines[language] = self._make_pipeline(language)
        if not sentences:
            return []
        document = self._pipelines[language](sentences)
        return [[ParsedWord(index, word.lemma or "_", word.upos or "_", word.xpos or "_", word.feats or "_",
                            word.head, word.deprel or "_")
                 for index, token in enumerate(sentence.tokens) for word in token.words]
                for sentence in document.sentences]
