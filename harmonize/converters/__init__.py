"""Readers and writers, one module per format, all looked up through :mod:`harmonize.converters.registry`."""

from importlib import import_module
from types import ModuleType

from harmonize.converters.choices import CONLL2012_LAYOUTS, DISCONTINUOUS_POLICIES, TEI_ZERO_POLICIES
from harmonize.converters.registry import Format, formats, get_format, register


def _module(name: str) -> ModuleType:
    """A format's module, imported on first use: a command loads only the formats it reads and writes."""
    return import_module(f"harmonize.converters.{name}")



register(
    Format(
        name="corefud",
        summary="CorefUD CoNLL-U (Entity=, Bridge=, SplitAnte= in MISC; any global.Entity field order; lossless)",
        extension=".conllu",
        reader=lambda path, lenient, report: _module("corefud").read_corefud(path, lenient, report),
        writer=lambda corpus, path, report: _module("corefud").write_corefud(corpus, path, report),
    )
)

register(
    Format(
        name="conll2012",
        summary="CoNLL-2012 / OntoNotes columns (also LitBank, GUM, PCC, scorer keys; read layouts written back)",
        extension=".conll",
        reader=lambda path, lenient, report: _module("conll2012").read_conll2012(path, lenient, report),
        writer=lambda corpus, path, report, layout=None, discontinuous="drop": _module("conll2012").write_conll2012(
            corpus, path, report, layout, discontinuous),
        options={
            "layout": (CONLL2012_LAYOUTS, "rewrite every document in this layout (default: as read, else ontonotes)"),
            "discontinuous": (DISCONTINUOUS_POLICIES, "drop discontinuous mentions, or keep the part with the head"),
        },
        accepts=(".conll", "_conll", ".key", ".response"),
    )
)

register(
    Format(
        name="gum",
        summary="GUM release: WebAnno TSV 3.2 coreference (coref_tsv/) on the UD trees of dep/ (reader)",
        extension=".tsv",
        reader=lambda path, lenient, report: _module("gum").read_gum(path, lenient, report),
        find=lambda folder: _module("gum").tsv_files(folder),
    )
)

register(
    Format(
        name="jsonlines",
        summary="e2e-coref jsonlines (doc_key, sentences, speakers, clusters, pos), one document per line",
        extension=".jsonlines",
        reader=lambda path, lenient, report: _module("jsonlines").read_jsonlines(path, lenient, report),
        writer=lambda corpus, path, report, discontinuous="drop", singletons="keep": _module(
            "jsonlines").write_jsonlines(corpus, path, report, discontinuous, singletons),
        options={
            "discontinuous": (DISCONTINUOUS_POLICIES, "drop discontinuous mentions, or keep the part with the head"),
            "singletons": (("keep", "drop"), "keep one-mention clusters, or drop them"),
        },
        accepts=(".jsonlines", ".jsonl"),
    )
)

register(
    Format(
        name="parquet",
        summary="Parquet tables (documents, sentences, tokens, entities, mentions, relations), one folder per input",
        extension=".parquet",
        reader=lambda path, lenient, report: _module("parquet").read_parquet(path, lenient, report),
        writer=lambda corpus, path, report: _module("parquet").write_parquet(corpus, path, report),
    )
)

register(
    Format(
        name="tei",
        summary="PCC / NKJP TEI P5 layers, one folder per document (text, segmentation, morphosyntax, mentions, "
                "coreference; .xml or .xml.gz)",
        extension="",
        reader=lambda path, lenient, report, zeros="empty-node": _module("tei").read_tei(
            path, lenient, report, zeros),
        writer=lambda corpus, path, report, gzip="no": _module("tei").write_tei(corpus, path, report, gzip),
        options={"gzip": (("no", "yes"), "write the layers gzipped (NAME.xml.gz)")},
        reader_options={"zeros": (TEI_ZERO_POLICIES, ("a zero subject as an empty node after its verb (CorefUD), "
                                                      "or as the mention on the verb (the PCC's own convention)"))},
        find=lambda folder: _module("tei").document_folders(folder),
        writes_document_folders=True,
    )
)

__all__ = ["Format", "formats", "get_format", "register"]
