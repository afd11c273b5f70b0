"""Readers and writers, one module per format, all looked up through `harmonize.converters.registry`."""

from importlib import import_module
from types import ModuleType

from harmonize.converters.choices import (
    COMMENT_POLICIES,
    CONLL2012_LAYOUTS,
    CROSS_SENTENCE_HELP,
    CROSS_SENTENCE_POLICIES,
    DISCONTINUOUS_HELP,
    DISCONTINUOUS_POLICIES,
    ECBPLUS_SENTENCES,
    MMAX2_EMPTY,
    RUCOCO_ALIGNMENTS,
    TEI_ZERO_POLICIES,
    UA_CROSSING_POLICIES,
)
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
        document_writer=lambda path, report, kept: _module("corefud").CorefudWriter(
            path, report, _module("corefud").shared_header(kept)),
        keeps=lambda document: _module("corefud").header_wanted(document),
    )
)

register(
    Format(
        name="conll2012",
        summary="CoNLL-2012 / OntoNotes columns (also LitBank, GUM, PCC, scorer keys; read layouts written back)",
        extension=".conll",
        reader=lambda path, lenient, report: _module("conll2012").read_conll2012(path, lenient, report),
        writer=lambda corpus, path, report, layout=None, discontinuous="drop", comments="drop": _module(
            "conll2012").write_conll2012(corpus, path, report, layout, discontinuous, comments),
        document_writer=lambda path, report, kept: _module("conll2012").Conll2012Writer(
            path, report, _module("conll2012").cross_document_numbers(kept)),
        keeps=lambda document: _module("conll2012").numbering_facts(document),
        options={
            "layout": (CONLL2012_LAYOUTS, "rewrite every document in this layout (default: as read, else ontonotes)"),
            "discontinuous": (DISCONTINUOUS_POLICIES, DISCONTINUOUS_HELP),
            "comments": (COMMENT_POLICIES, "keep: each sentence's sent_id, text, other comments and multiword tokens "
                         "as '#' lines before its words, read back as such (for round trips through CoNLL-2012; "
                         "scorer.pl reads such lines as words and cannot score the file); drop (default): "
                         "report them"),
        },
        accepts=(".conll", "_conll", ".key", ".response"),
    )
)

register(
    Format(
        name="gum",
        summary="GUM release: WebAnno TSV 3.2 coreference (coref_tsv/) on the UD trees of dep/ (reader)",
        extension=".tsv",
        reader=lambda path, lenient, report, bridge_types=None: _module("gum").read_gum(path, lenient, report,
                                                                                        bridge_types),
        find=lambda folder: _module("gum").tsv_files(folder),
        reader_options={"bridge_types": (("drop", "keep"), (
            "GUM's bridging subtypes (def, other) left out, as GUM's own dep/ build writes bridges (counted; the "
            "default for releases whose dep/ is that build, v8 on), or kept as the bridges' labels (the default "
            "for earlier releases)"))},
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
        document_writer=lambda path, report, kept: _module("jsonlines").JsonlinesWriter(path, report),
        options={
            "discontinuous": (DISCONTINUOUS_POLICIES, DISCONTINUOUS_HELP),
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
        find=lambda folder: _module("parquet").parquet_folders(folder),
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
        document_writer=lambda path, report, kept: _module("tei").tei_files(path, report),
        options={"gzip": (("no", "yes"), "write the layers gzipped (NAME.xml.gz)")},
        reader_options={"zeros": (TEI_ZERO_POLICIES, ("a zero subject as an empty node after its verb (CorefUD), "
                                                      "or as the mention on the verb (the PCC's own convention)"))},
        find=lambda folder: _module("tei").document_folders(folder),
        writes_per_document=True,
    )
)

register(
    Format(
        name="mmax2",
        summary="MMAX2 projects (.mmax + common_paths.xml; set- or pointer-based coreference), one folder per document",
        extension=".mmax",
        reader=lambda path, lenient, report, levels="", cross_sentence="first-part", empty="keep": _module(
            "mmax2").read_mmax2(path, lenient, report, levels, cross_sentence, empty),
        writer=lambda corpus, path, report: _module("mmax2").write_mmax2(corpus, path, report),
        document_writer=lambda path, report, kept: _module("mmax2").mmax2_files(path, report),
        reader_options={
            "levels": ((), ("the levels whose markables are mentions, comma-separated (default: the levels whose "
                            "scheme declares a set or pointer attribute, the levels pointed into, and in pointer-based "
                            "projects the levels whose scheme declares only a pointer level's attributes, as the "
                            "PCC's secmark)")),
            "cross_sentence": (CROSS_SENTENCE_POLICIES, CROSS_SENTENCE_HELP),
            "empty": (MMAX2_EMPTY, "a markable outside every coreference set: a singleton entity, or dropped"),
        },
        find=lambda folder: _module("mmax2").project_files(folder),
        writes_per_document=True,
    )
)

register(
    Format(
        name="rucoco",
        summary="RuCoCo JSON (raw text, entities as character spans, includes = split antecedents), one file per text",
        extension=".json",
        reader=lambda path, lenient, report, alignment="split": _module("rucoco").read_rucoco(
            path, lenient, report, alignment),
        writer=lambda corpus, path, report: _module("rucoco").write_rucoco(corpus, path, report),
        document_writer=lambda path, report, kept: _module("rucoco").rucoco_files(path, report),
        reader_options={"alignment": (RUCOCO_ALIGNMENTS, (
            "a mention edge inside a razdel token: cut the token there, refuse it, or move the edge to the tokens "
            "inside (contract) or overlapping (expand) the span"))},
        find=lambda folder: _module("rucoco").json_files(folder),
        score_reader=lambda path: _module("rucoco").scored_rucoco(path),
        writes_per_document=True,
    )
)

register(
    Format(
        name="ecbplus",
        summary="ECB+ CAT XML (topic folders of N_Mecb.xml / N_Mecbplus.xml; cross-document event and entity chains)",
        extension=".xml",
        reader=lambda path, lenient, report, cross_sentence="first-part", sentences="all", sentences_csv="": _module(
            "ecbplus").read_ecbplus(path, lenient, report, cross_sentence, sentences, sentences_csv),
        reader_options={
            "cross_sentence": (CROSS_SENTENCE_POLICIES, CROSS_SENTENCE_HELP),
            "sentences": (ECBPLUS_SENTENCES, ("read the mentions of every sentence, or of the validated ones "
                                              "(ECBplus_coreference_sentences.csv; documents without one left out), or the validated "
                                              "sentences alone, text included (validated-text)")),
            "sentences_csv": ((), "where ECBplus_coreference_sentences.csv is (default: beside the input or above)"),
        },
        find=lambda folder: _module("ecbplus").topic_folders(folder),
    )
)

register(
    Format(
        name="webanno-tsv",
        summary="WebAnno TSV 3.2/3.3 (INCEpTION, WebAnno): chain layers, or span + relation layers (GUM); one document "
                "per file",
        extension=".tsv",
        reader=lambda path, lenient, report, cross_sentence="first-part", chain_layer="", span_layer="",
        relation_layer="": _module("webanno_tsv").read_webanno_tsv(path, lenient, report, cross_sentence, chain_layer,
                                                                    span_layer, relation_layer),
        writer=lambda corpus, path, report: _module("webanno_tsv").write_webanno_tsv(corpus, path, report),
        document_writer=lambda path, report, kept: _module("webanno_tsv").webanno_tsv_files(path, report),
        reader_options={
            "cross_sentence": (CROSS_SENTENCE_POLICIES, CROSS_SENTENCE_HELP),
            "chain_layer": ((), "the chain layer to read (default: the first #T_CH layer)"),
            "span_layer": ((), "the span layer whose spans are mentions (with relation_layer; default: GUM's layout "
                                "found by itself)"),
            "relation_layer": ((), "the relation layer whose relations link the mentions (coref types; bridge:*)"),
        },
        find=lambda folder: _module("gum").tsv_files(folder),
        writes_per_document=True,
    )
)

register(
    Format(
        name="xmi",
        summary="UIMA CAS XMI (INCEpTION, DKPro Core; a .zip of XMI files as a corpus): coreference chains, via "
                "dkpro-cassis",
        extension=".xmi",
        reader=lambda path, lenient, report, typesystem="", span_layer="", relation_layer="": _module(
            "xmi").read_xmi(path, lenient, report, typesystem, span_layer, relation_layer),
        writer=lambda corpus, path, report: _module("xmi").write_xmi(corpus, path, report),
        document_writer=lambda path, report, kept: _module("xmi").xmi_files(path, report),
        reader_options={
            "typesystem": ((), "the type system XML (default: TypeSystem.xml beside the input, else the DKPro Core "
                               "types harmonize writes)"),
            "span_layer": ((), "a span type whose spans are mentions (with relation_layer; GUM's layout)"),
            "relation_layer": ((), "a relation type (Governor, Dependent) whose relations link the mentions"),
        },
        accepts=(".xmi", ".zip"),
        writes_per_document=True,
    )
)

register(
    Format(
        name="brat",
        summary="brat standoff (NAME.ann beside NAME.txt): T mentions; coreference as equivalences, relations or "
                "LitBank's entity labels",
        extension=".ann",
        reader=lambda path, lenient, report, tokens="whitespace", coref="auto", relation="Coreference",
        tokenizer="": _module("brat").read_brat(path, lenient, report, tokens, coref, relation, tokenizer),
        writer=lambda corpus, path, report: _module("brat").write_brat(corpus, path, report),
        document_writer=lambda path, report, kept: _module("brat").brat_files(path, report),
        reader_options={
            "tokens": (("whitespace", "rules", "parser"), "words at white space, one sentence per line (pretokenized "
                       "text, LitBank), from harmonize's rule-based splitter, or from the tokenizer= engine"),
            "tokenizer": ((), "with tokens=parser: udpipe:MODEL (a model with a tokenizer; convert --parse "
                              "udpipe:MODEL sets it)"),
            "coref": (("auto", "equiv", "relation", "entity-label"), "how coreference is encoded: * lines, binary "
                      "relations of one type, or a second T line naming the entity (LitBank); auto: found"),
            "relation": ((), "the relation type that links coreferent mentions (coref=relation; default "
                             "Coreference)"),
        },
        find=lambda folder: _module("brat").ann_files(folder),
        locate=lambda path: _module("brat").ann_for(path),
        writes_per_document=True,
    )
)

register(
    Format(
        name="ua",
        summary="CoNLL-UA (Universal Anaphora: IDENTITY, BRIDGING, DISCOURSE_DEIXIS, REFERENCE, NOM_SEM columns; "
                "CODI-CRAC)",
        extension=".conllua",
        reader=lambda path, lenient, report, cross_sentence="parts": _module("ua").read_ua(
            path, lenient, report, cross_sentence),
        writer=lambda corpus, path, report, crossing="drop": _module("ua").write_ua(corpus, path, report, crossing),
        reader_options={"cross_sentence": (CROSS_SENTENCE_POLICIES, CROSS_SENTENCE_HELP + " (UA: parts, the default, "
                                           "writes the markable back as it was)")},
        options={"crossing": (UA_CROSSING_POLICIES, "markables that cross others: drop (default; counted: "
                              "ua-scorer.py cannot read them) or named (closings name their markables: markable_1), which "
                              "ua-scorer.py cannot read); a document read with named closings keeps them")},
        accepts=(".conllua", ".CONLLUA", ".ua", ".key", ".response", ".sys"),
    )
)

register(
    Format(
        name="text",
        summary="plain text (.txt), one document per file: paragraphs, sentences and words from a rule-based "
                "splitter, the text kept exactly (reader)",
        extension=".txt",
        reader=lambda path, lenient, report, tokenizer="": _module("text").read_text_file(path, lenient, report,
                                                                                         tokenizer),
        reader_options={"tokenizer": ((), "rules (the built-in splitter, the default) or udpipe:MODEL (a model "
                                          "with a tokenizer; convert --parse udpipe:MODEL sets it)")},
    )
)

register(
    Format(
        name="mentions-json",
        summary="ariecattan/coref mention lists: NAME_event_gold_mentions.json, NAME_entity_gold_mentions.json, "
                "NAME_text.txt",
        extension="",
        writer=lambda corpus, path, report, name="corpus": _module("ecbplus").write_mentions_json(
            corpus, path, report, name),
        options={"name": ((), "the prefix of the three files (default: corpus)")},
        joins_inputs=True,
    )
)

__all__ = ["Format", "formats", "get_format", "register"]
