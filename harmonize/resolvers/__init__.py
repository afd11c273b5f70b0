"""Coreference resolvers that run on any corpus harmonize reads: what ``harmonize resolve`` and ``harmonize validate``
run.

    import harmonize
    from harmonize.conversion import read_corpus
    from harmonize.resolvers import resolve_files

    resolve_files(["dev.conllu"], "pred.conllu", "rules")                 # the rule baseline
    harmonize.resolvers.neural.train(train, dev, "model")                # see harmonize.resolvers.neural
    resolve_files(["dev.conllu"], "pred.conllu", "model", model="model")  # the trained resolver
    resolve_files(["ECB+/"], "out", "lemma", source="ecbplus", gold_mentions=True)  # cross-document baseline
    harmonize.resolvers.cross_document.train_model_folds(train).save("xdoc")  # cross-document model
    resolve_files(["ECB+/"], "out", "model", model="xdoc", source="ecbplus")  # ... run: a model folder says which

- `rules`: the CRAC 2022 rule baseline;
- `neural`: the neural resolver (training, saving, prediction), its network in
  `model` and its inputs in `features`;
- `validate`: convert, train, predict and score in one call;
- `lemma`: the cross-document same-lemma baseline;
- `cross_document`: the cross-document model (mention detection in
  `mention_detection`); `cross_document_validation`: its evaluation the paper's way.

A resolver first drops the coreference its input came with (entities, bridges, split antecedents, the entity
header; counted in the report), then adds what it finds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from harmonize.conversion import Steps, input_files, plan_outputs
from harmonize.converters import get_format
from harmonize.errors import HarmonizeError, Report
from harmonize.schemas.model import Corpus

RESOLVERS = ("rules", "model", "lemma")


def resolve_files(inputs: Sequence[str | Path], output: str | Path, resolver: str, *, model: str | Path | None = None,
                  source: str = "corefud", target: str = "corefud", gold_mentions: bool = False,
                  device: str = "auto", lenient: bool = False, read_options: Mapping[str, str] | None = None,
                  options: Mapping[str, str] | None = None, report: Report | None = None, scope: str = "topic",
                  parse: str | None = None) -> Counter:
    """Resolve every input file with ``resolver`` (``rules``; ``model`` with the folder ``model`` that
    `harmonize.resolvers.neural.train` wrote; ``lemma``, the cross-document same-lemma baseline over
    ``scope``) and write each to ``output`` (a file for one input, else a folder, as ``convert`` plans it).
    ``parse`` gives documents without trees trees and lemmas first. A cross-document model folder (see
    `harmonize.resolvers.cross_document`) resolves every input together, so that a topic split over files is
    one scope. Returns counts (documents, words, mentions...)."""
    if resolver not in RESOLVERS:
        raise HarmonizeError(f"unknown resolver {resolver!r}: one of {', '.join(RESOLVERS)}")
    reader, writer = get_format(source, "read"), get_format(target, "write")
    checked_read = reader.read_options([f"{key}={value}" for key, value in (read_options or {}).items()])
    checked_write = writer.writer_options([f"{key}={value}" for key, value in (options or {}).items()])
    if checked_write.pop("newline", "lf") != "lf":
        raise HarmonizeError("-O newline=crlf is for convert and write; resolvers write LF line endings")
    report = report if report is not None else Report()
    loaded = None
    if resolver == "model":
        from harmonize.resolvers.cross_document import is_cross_document_model, load_model
        from harmonize.resolvers.neural import load

        if model is None:
            raise HarmonizeError("the neural resolver needs a model folder")
        if is_cross_document_model(model):
            cross_document = load_model(model)
            return _resolve_across_files(lambda corpus: cross_document.resolve(corpus, gold_mentions, device, report),
                                         inputs, output, reader, writer, checked_read, checked_write, lenient, report,
                                         parse)
        loaded = load(model, device)  # a bad folder fails before any input is read
    if resolver == "lemma" and writer.joins_inputs:
        from harmonize.resolvers.lemma import resolve_lemma

        return _resolve_across_files(lambda corpus: resolve_lemma(corpus, scope, gold_mentions, report), inputs,
                                     output, reader, writer, checked_read, checked_write, lenient, report, parse)
    counts: Counter = Counter()
    lemma_ids: dict = {}  # one numbering of the lemma baseline's entities over every file of the run
    for in_path, out_path in plan_outputs(input_files([Path(p) for p in inputs], reader), Path(output), reader,
                                          writer):
        corpus = reader.read(in_path, lenient, report, checked_read)
        Steps(None, parse).apply(corpus, report)
        if resolver == "lemma":
            from harmonize.resolvers.lemma import resolve_lemma

            counts.update(resolve_lemma(corpus, scope, gold_mentions, report, lemma_ids))
        elif loaded is None:
            from harmonize.resolvers.rules import resolve_rules

            counts.update(resolve_rules(corpus, gold_mentions, report))
        else:
            from harmonize.resolvers.neural import resolve

            counts.update(resolve(loaded[0], loaded[1], corpus, loaded[2], report))
        out_path.parent.mkdir(parents=True, exist_ok=True)
        writer.writer(corpus, out_path, report, **checked_write)
        counts["files"] += 1
    return counts


def _resolve_across_files(resolve, inputs, output, reader, writer, read_options, write_options, lenient: bool,
                          report: Report, parse: str | None) -> Counter:
    """Read every input, ``resolve`` them as one corpus, and write each back (or all in one, for a writer that
    joins its inputs, such as ``mentions-json``)."""
    files = input_files([Path(p) for p in inputs], reader)
    if not files:
        raise HarmonizeError(f"no input files in {', '.join(map(str, inputs))}")
    planned = [(path, None) for path in files] if writer.joins_inputs else \
        plan_outputs(files, Path(output), reader, writer)
    corpora = []
    for in_path, _ in planned:
        corpus = reader.read(in_path, lenient, report, read_options)
        Steps(None, parse).apply(corpus, report)
        corpora.append(corpus)
    whole = Corpus(documents=[d for corpus in corpora for d in corpus.documents])
    counts = Counter(resolve(whole))
    written = [(whole, Path(output))] if writer.joins_inputs else \
        [(corpus, out_path) for corpus, (_, out_path) in zip(corpora, planned)]
    for corpus, out_path in written:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        writer.writer(corpus, out_path, report, **write_options)
        counts["files"] += 1
    counts["words"] = sum(len(s.words) for d in whole.documents for s in d.sentences)
    return counts
