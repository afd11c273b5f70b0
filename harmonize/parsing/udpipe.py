"""UDPipe 1 through ``ufal.udpipe`` (``pip install 'harmonize[parse]'``): ``--parse udpipe:MODEL``.

MODEL is a UDPipe 1 model file, e.g. one of the UD 2.5 models of the LINDAT repository
(https://lindat.mff.cuni.cz/repository/xmlui/handle/11234/1-3131, ``english-ewt-ud-2.5-191206.udpipe``), or one
trained from CoNLL-U with `train_model`. Words go in as they are (UDPipe's tokenizer is not used), the
tagger tags them and the parser parses from those tags. Readers of raw text (``--from text``, brat with
``-I tokens=parser``) use the model's tokenizer through `UDPipeParser.tokenize` where it has one.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harmonize.errors import HarmonizeError
from harmonize.parsing import ParsedWord

MODELS_URL = "https://lindat.mff.cuni.cz/repository/xmlui/handle/11234/1-3131"
# Quickly trained models for tests and benchmarks, not for real use. "small": a tiny network; "default": the
# network sizes of UDPipe's own defaults (those of the LINDAT models), so that parsing costs what theirs does.
TAGGER = ("models=1;templates_1=tagger;iterations_1={iterations};guesser_suffix_rules_1=4;use_lemma_1=1;"
          "provide_lemma_1=1;use_xpostag_1=1;provide_xpostag_1=1;use_feats_1=1;provide_feats_1=1")
# A tokenizer trained in seconds (tests): a real model's tokenizer is trained with UDPipe's defaults.
TOKENIZER = "epochs=3;dimension=16;segment_size=50;early_stopping=0"
PARSERS = {
    "small": "hidden_layer=32;embedding_form=16;embedding_upostag=8;embedding_feats=8;embedding_deprel=8",
    "default": "hidden_layer=200;embedding_form=50;embedding_upostag=20;embedding_feats=20;embedding_deprel=20",
}


def _udpipe():  # the extension module, imported when a UDPipe parser is made
    try:
        from ufal import udpipe
    except ImportError:
        raise HarmonizeError("--parse udpipe needs ufal.udpipe: pip install 'harmonize[parse]'") from None
    return udpipe


class UDPipeParser:
    """A loaded UDPipe model; cheap enough to load in every worker process."""

    shares_processes = True

    def __init__(self, model_path: str | Path) -> None:
        udpipe = _udpipe()
        path = Path(model_path)
        if not path.is_file():
            raise HarmonizeError(f"udpipe: {path}: no such model file (UDPipe 1 models for UD 2.5: {MODELS_URL})")
        model = udpipe.Model.load(str(path))
        if model is None:
            raise HarmonizeError(f"udpipe: {path}: not a UDPipe 1 model")
        self.name = f"udpipe:{path.name}"
        self._model = model
        self._udpipe = udpipe

    def tokenize(self, text: str) -> list[list[tuple[int, int]]]:
        """Sentences of the text as lists of token [begin, end) character offsets (a multiword token is one token)."""
        udpipe = self._udpipe
        tokenizer = self._model.newTokenizer("ranges")
        if tokenizer is None:
            raise HarmonizeError(f"{self.name}: the model has no tokenizer (use one that does, or harmonize's "
                                 "rule-based splitter)")
        tokenizer.setText(text)
        error = udpipe.ProcessingError()
        sentences: list[list[tuple[int, int]]] = []
        sentence = udpipe.Sentence()
        while tokenizer.nextSentence(sentence, error):
            inside = {i for mwt in sentence.multiwordTokens for i in range(mwt.idFirst + 1, mwt.idLast + 1)}
            ranges = [_token_range(mwt.misc) for mwt in sentence.multiwordTokens]
            ranges += [_token_range(w.misc) for w in list(sentence.words)[1:] if w.id not in inside]
            sentences.append(sorted(r for r in ranges if r is not None))
            sentence = udpipe.Sentence()
        if error.occurred():
            raise HarmonizeError(f"{self.name}: {error.message}")
        return [s for s in sentences if s]

    def parse(self, sentences: list[list[str]], language: str | None) -> list[list[ParsedWord]]:
        udpipe, model = self._udpipe, self._model
        error = udpipe.ProcessingError()
        results = []
        for forms in sentences:
            sentence = udpipe.Sentence()
            for form in forms:
                sentence.addWord(form)
            if not model.tag(sentence, udpipe.Model.DEFAULT, error) or not model.parse(
                    sentence, udpipe.Model.DEFAULT, error):
                raise HarmonizeError(f"{self.name}: {error.message or 'the model cannot tag and parse'}")
            results.append([ParsedWord(index, w.lemma, w.upostag, w.xpostag, w.feats, w.head, w.deprel)
                            for index, w in enumerate(list(sentence.words)[1:])])  # words[0] is the root
        return results


def _token_range(misc: str) -> tuple[int, int] | None:
    for item in misc.split("|"):
        if item.startswith("TokenRange="):
            begin, _, end = item[len("TokenRange="):].partition(":")
            return int(begin), int(end)
    return None


def train_model(conllu_files: Iterable[str | Path], output: str | Path, max_sentences: int | None = None,
                iterations: int = 2, size: str = "small", tokenizer: bool = False) -> Path:
    """Train a UDPipe tagger and parser of ``size`` (see PARSERS), and with ``tokenizer`` a (quick) tokenizer, from
    CoNLL-U files and save it to ``output``. Meant for tests and benchmarks (a few hundred sentences train in
    seconds); real models are trained with UDPipe's defaults on a whole treebank."""
    udpipe = _udpipe()
    sentences = udpipe.Sentences()
    error = udpipe.ProcessingError()
    for path in conllu_files:
        reader = udpipe.InputFormat.newConlluInputFormat()
        reader.setText(Path(path).read_text(encoding="utf-8"))
        sentence = udpipe.Sentence()
        while (max_sentences is None or len(sentences) < max_sentences) and reader.nextSentence(sentence, error):
            sentences.push_back(sentence)
            sentence = udpipe.Sentence()
        if error.occurred():
            raise HarmonizeError(f"{path}: {error.message}")
    if not len(sentences):
        raise HarmonizeError("no sentences to train a UDPipe model on")
    parser = f"iterations={iterations};{PARSERS[size]};embedding_xpostag=0;embedding_lemma=0;structured_interval=0"
    model = udpipe.Trainer.train("morphodita_parsito", sentences, udpipe.Sentences(),
                                 TOKENIZER if tokenizer else udpipe.Trainer.NONE,
                                 TAGGER.format(iterations=iterations), parser, error)
    if error.occurred():
        raise HarmonizeError(f"training a UDPipe model failed: {error.message}")
    output = Path(output)
    output.write_bytes(model if isinstance(model, bytes) else model.encode("latin-1"))
    return output
