"""Coreference resolvers that run on any corpus harmonize reads: what ``harmonize resolve`` and ``harmonize validate``
run.

    import harmonize
    from harmonize.resolvers import read_corpus, resolve_files

    resolve_files(["dev.conllu"], "pred.conllu", "rules")                 # the rule baseline
    harmonize.resolvers.neural.train(train, dev, "model")                # see harmonize.resolvers.neural
    resolve_files(["dev.conllu"], "pred.conllu", "model", model="model")  # the trained resolver

- :mod:`~harmonize.resolvers.rules`: the CRAC 2022 rule baseline;
- :mod:`~harmonize.resolvers.neural`: the neural resolver (training, saving, prediction), its network in
  :mod:`~harmonize.resolvers.model` and its inputs in :mod:`~harmonize.resolvers.features`;
- :mod:`~harmonize.resolvers.validate`: convert, train, predict and score in one call.

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


def read_corpus(inputs: Sequence[str | Path], source: str = "corefud", lenient: bool = False,
                report: Report | None = None, read_options: Mapping[str, str] | None = None,
                rules: str | None = None, parse: str | None = None) -> Corpus:
    """Every input file (folders searched for the format's files) in one corpus, parsed and converted by the named
    scheme rules as ``convert`` would."""
    reader = get_format(source, "read")
    checked = reader.read_options([f"{key}={value}" for key, value in (read_options or {}).items()])
    report = report if report is not None else Report()
    corpus = Corpus()
    files = input_files([Path(p) for p in inputs], reader)
    if not files:
        raise HarmonizeError(f"no {source} files in {', '.join(map(str, inputs))}")
    for path in files:
        corpus.documents.extend(reader.read(path, lenient, report, checked).documents)
    Steps(rules, parse).apply(corpus, report)
    return corpus


def resolve_files(inputs: Sequence[str | Path], output: str | Path, resolver: str, *, model: str | Path | None = None,
                  source: str = "corefud", target: str = "corefud", gold_mentions: bool = False,
                  device: str = "auto", lenient: bool = False, read_options: Mapping[str, str] | None = None,
                  options: Mapping[str, str] | None = None, report: Report | None = None, scope: str = "topic",
                  parse: str | None = None) -> Counter:
    """Resolve every input file with ``resolver`` (``rules``; ``model`` with the folder ``model`` that
    :func:`harmonize.resolvers.neural.train` wrote; ``lemma``, the cross-document same-lemma baseline over
    ``scope``) and write each to ``output`` (a file for one input, else a folder, as ``convert`` plans it).
    ``parse`` gives documents without trees trees and lemmas first. Returns counts (documents, words, mentions...)."""
    if resolver not in RESOLVERS:
        raise HarmonizeError(f"unknown resolver {resolver!r}: one of {', '.join(RESOLVERS)}")
    reader, writer = get_format(source, "read"), get_format(target, "write")
    checked_read = reader.read_options([f"{key}={value}" for key, value in (read_options or {}).items()])
    checked_write = writer.writer_options([f"{key}={value}" for key, value in (options or {}).items()])
    report = report if report is not None else Report()
    loaded = None
    if resolver == "model":
        from harmonize.resolvers.neural import load

        if model is None:
            raise HarmonizeError("the neural resolver needs a model folder")
        loaded = load(model, device)  # a bad folder fails before any input is read
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
