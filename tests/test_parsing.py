"""--parse: trees for documents without them (UDPipe on a real model trained here, stanza against a stand-in with
its interface), source columns kept, mention heads from annotation or tree, and valid CorefUD out."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

import harmonize
from harmonize.converters.corefud import HEAD_WRITTEN_FIRST_WORD, parse_corefud
from harmonize.errors import HarmonizeError, Report
from harmonize.parsing import ParsedWord
from harmonize.parsing.stanza import StanzaParser
from harmonize.parsing.trees import (
    HEAD_ANNOTATED,
    HEAD_ONE_WORD,
    HEAD_PARSED_TREE,
    HEAD_SOURCE_TREE,
    NO_HEAD_WITHOUT_PARSING,
    onto_tokens,
    parse_corpus,
)
from harmonize.parsing.udpipe import UDPipeParser
from harmonize.schemas.model import ud_head
from tests.conftest import shared
from tests.corefud_text import conllu
from tests.test_validator import UDVALIDATE

TREE_COLUMNS = ("head", "deprel")
TAG_COLUMNS = ("lemma", "upos", "xpos", "feats")
# Two sentences without tags or trees; a two-word mention and a one-word one of entity e1.
UNPARSED = conllu("1 The Entity=(e1-person-\n2 old\n3 man Entity=e1)\n4 slept\n5 .",
                  "1 He Entity=(e1-person-)\n2 snored\n3 .")


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harmonize", *map(str, args)], capture_output=True, text=True, check=False,
                          env={**os.environ, **(env or {})})


def validate(path: Path, language: str, coref: bool = True) -> tuple[bool, str]:
    done = subprocess.run([UDVALIDATE, "--lang", language, "--level", "2", *(["--coref"] if coref else []),
                           str(path)], capture_output=True, text=True, check=False)
    return done.returncode == 0, done.stdout + done.stderr


def rows(corpus: harmonize.Corpus) -> list[tuple]:
    return [(d.id, s.id, n.id, n.form, *(getattr(n, c) for c in TAG_COLUMNS)) for d in corpus for s in d.sentences
            for n in s.nodes]


def test_tei_parsed_keeps_tokens_sentences_tags_and_semantic_heads(udpipe_model: Path, tmp_path: Path) -> None:
    document = shared("pcc", "tei_format_sample_liner2", "pst20_00120445")
    plain = harmonize.read(document, "tei", report=Report())
    parsed = harmonize.read(document, "tei", report=Report())
    report = harmonize.parse(parsed, f"udpipe:{udpipe_model}")
    assert rows(parsed) == rows(plain)  # the source's words, sentence breaks and tags, untouched
    words = [n for d in parsed for s in d.sentences for n in s.nodes if not n.is_empty]
    assert all(n.head.isdigit() and n.deprel != "_" for n in words)
    assert sum(n.head == "0" for n in words) == len(parsed.documents[0].sentences)  # one root per sentence
    assert [(m.head.id if m.head else None) for m in parsed.documents[0].mentions] == [
        (m.head.id if m.head else None) for m in plain.documents[0].mentions]  # semh kept
    assert report.counts[HEAD_ANNOTATED] == 118
    assert report.counts["document parsed by udpipe:gum-tiny.udpipe"] == 1
    assert report.examples["document parsed by udpipe:gum-tiny.udpipe"] == ["pst20_00120445: HEAD, DEPREL filled"]
    assert {r for r in report.counts if r.startswith("column the source filled")} == {
        f"column the source filled, kept while parsing: {c.upper()}" for c in TAG_COLUMNS}
    out = tmp_path / "pcc.conllu"
    harmonize.write(parsed, out, report=Report())
    ok, output = validate(out, "pl")  # a zero subject (empty node) makes the enhanced graph needed: it is there
    assert ok, output


def test_rucoco_parsed_from_the_command_line_is_valid_and_round_trips(udpipe_model: Path, tmp_path: Path) -> None:
    texts = sorted(shared("rucoco", "json").glob("*.json"))[:4]
    source = tmp_path / "json"
    source.mkdir()
    for text in texts:
        (source / text.name).write_bytes(text.read_bytes())
    done = run("convert", source, "--from", "rucoco", "--to", "corefud", "-o", tmp_path / "c",
               "--parse", f"udpipe:{udpipe_model}")
    assert done.returncode == 0, done.stderr
    assert "4 x document parsed by udpipe:gum-tiny.udpipe" in done.stderr
    assert "mention head unknown" not in done.stderr
    for path in sorted((tmp_path / "c").glob("*.conllu")):
        ok, output = validate(path, "ru")
        assert ok, output
        corpus = harmonize.read(path)
        assert all(m.head is not None for d in corpus for m in d.mentions)  # written in the head field
    back = run("convert", tmp_path / "c", "--to", "rucoco", "-o", tmp_path / "back")
    assert back.returncode == 0, back.stderr
    for text in texts:
        assert (tmp_path / "back" / text.name).read_bytes() == text.read_bytes()


@pytest.mark.parametrize("fmt, parts, language", [
    ("ecbplus", ("ecbplus", "ECB+", "1"), "en"),
    ("mmax2", ("mmax2", "parcorfull", "news", "EN", "01.mmax"), "en"),
    ("mmax2", ("mmax2", "potsdam_pcc2.2", "coreference-mmax"), "de"),
])
def test_other_readers_parse_into_valid_trees_with_heads(fmt: str, parts: tuple[str, ...], language: str,
                                                         udpipe_model: Path, tmp_path: Path) -> None:
    done = run("convert", shared(*parts), "--from", fmt, "--to", "corefud", "-o", tmp_path / "out",
               "--parse", f"udpipe:{udpipe_model}", "--report", tmp_path / "report.json")
    assert done.returncode == 0, done.stderr
    outputs = sorted((tmp_path / "out").glob("*.conllu")) or [tmp_path / "out"]
    for path in outputs[:5]:
        # Trees only: some source annotation breaks CorefUD's own rules (ECB+ entity types, MMAX2 same-span
        # mentions of two entities), which parsing neither causes nor repairs.
        ok, output = validate(path, language, coref=False)
        assert ok, output
        assert all(m.head is not None for d in harmonize.read(path) for m in d.mentions)


def test_documents_with_trees_are_not_parsed_and_heads_come_from_their_tree(udpipe_model: Path) -> None:
    corpus = harmonize.read(shared("gum", "v11.1.0", "dep", "GUM_academic_art.conllu"))
    before = rows(corpus)
    expected = {id(m): ud_head(m) for d in corpus for m in d.mentions}
    report = harmonize.parse(corpus, f"udpipe:{udpipe_model}")
    assert rows(corpus) == before
    assert not any(r.startswith("document parsed") for r in report.counts)
    assert report.counts[HEAD_SOURCE_TREE] + report.counts[HEAD_ONE_WORD] == len(expected)
    assert all(m.head is expected[id(m)] for d in corpus for m in d.mentions)


def test_columns_the_source_filled_are_kept_unless_overwritten(udpipe_model: Path) -> None:
    text = UNPARSED.replace("\t_\t_\t_\t_\t_\t_\t_\t", "\t_\tX\t_\t_\t_\t_\t_\t")  # UPOS given, nothing else
    parser = UDPipeParser(udpipe_model)
    own = parser.parse([["The", "old", "man", "slept", "."], ["He", "snored", "."]], None)
    kept = parse_corefud(text, "t.conllu")
    parse_corpus(kept, parser, Report())
    nodes = [n for s in kept.documents[0].sentences for n in s.nodes]
    assert {n.upos for n in nodes} == {"X"}
    assert [(n.lemma, n.head, n.deprel) for n in nodes] == [
        (w.lemma, str(w.head), w.deprel) for sentence in own for w in sentence]
    replaced = parse_corefud(text, "t.conllu")
    parse_corpus(replaced, parser, Report(), overwrite=True)
    assert [n.upos for s in replaced.documents[0].sentences for n in s.nodes] == [
        w.upos for sentence in own for w in sentence]


def test_without_a_parser_the_report_counts_mentions_left_without_a_head(tmp_path: Path) -> None:
    (tmp_path / "in.conllu").write_text(UNPARSED, encoding="utf-8")
    result = harmonize.convert([tmp_path / "in.conllu"], output=tmp_path / "out.conllu", warn_losses=False)
    assert result.total.counts[NO_HEAD_WITHOUT_PARSING] == 1  # "The old man"; "He" is its own head
    # Nothing else changes, but the empty head field, which udapi and the CorefUD scorer refuse, is written as the
    # mention's first word (udapi's default), counted, and said in the file, which reads back as no head.
    assert result.total.counts[HEAD_WRITTEN_FIRST_WORD] == 1
    written = (tmp_path / "out.conllu").read_text(encoding="utf-8")
    assert written == UNPARSED.replace("e1-person-", "e1-person-1").replace(
        "other\n", "other\n# meta::guessed_heads = 1\n", 1)
    assert [m.head for m in harmonize.read(tmp_path / "out.conllu").documents[0].mentions if len(m.words) > 1] == [None]


def test_parse_reaches_stats_and_score(udpipe_model: Path) -> None:
    document = shared("mmax2", "parcorfull", "news", "EN", "01.mmax")
    stats = run("stats", document, "--from", "mmax2", "--parse", f"udpipe:{udpipe_model}")
    assert stats.returncode == 0, stats.stderr
    assert "1 x document parsed by udpipe:gum-tiny.udpipe" in stats.stderr
    assert "mention heads were not annotated" not in stats.stderr  # the parser's trees gave them
    scored = harmonize.score(document, document, "mmax2", mode="head", metrics=["muc", "mentions"],
                             parse=f"udpipe:{udpipe_model}")
    assert scored.metrics["mentions"].f1 == 1 and scored.metrics["muc"].f1 == 1


def test_bad_engines_and_models_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "in.conllu").write_text(UNPARSED, encoding="utf-8")
    for engine, says in (("spacy", "--parse takes none, stanza[:...], udpipe[:...]; not 'spacy'"),
                         ("udpipe", "--parse udpipe needs a model: udpipe:NAME"),
                         (f"udpipe:{tmp_path / 'missing.udpipe'}", "missing.udpipe: no such model file")):
        done = run("convert", tmp_path / "in.conllu", "-o", tmp_path / "out.conllu", "--parse", engine)
        assert done.returncode == 1 and says in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.skipif(importlib.util.find_spec("stanza") is None, reason="stanza not installed: pip install '.[parse]'")
def test_stanza_without_models_says_which_and_how_to_get_them(tmp_path: Path) -> None:
    (tmp_path / "in.conllu").write_text(UNPARSED, encoding="utf-8")
    done = run("convert", tmp_path / "in.conllu", "-o", tmp_path / "out.conllu", "--parse", "stanza:en",
               env={"STANZA_RESOURCES_DIR": str(tmp_path / "models"), "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"stanza has no 'en' models in {tmp_path / 'models'}" in done.stderr
    assert "stanza.download('en', model_dir='stanza_resources'" in done.stderr
    assert "set STANZA_RESOURCES_DIR to it" in done.stderr
    assert not (tmp_path / "out.conllu").exists()
    no_language = run("convert", tmp_path / "in.conllu", "-o", tmp_path / "out.conllu", "--parse", "stanza")
    assert "stanza needs the documents' language: --parse stanza:LANG or -I lang=LANG" in no_language.stderr


class StandInPipeline:
    """stanza's interface as the adapter uses it (``Pipeline(list of token lists)`` -> Document with sentences,
    tokens and words), splitting the French token "du" into "de le" as stanza's mwt does."""

    def __init__(self) -> None:
        self.calls: list[list[list[str]]] = []

    def __call__(self, sentences: list[list[str]]) -> SimpleNamespace:
        self.calls.append(sentences)
        parsed = []
        for forms in sentences:
            words: list[tuple[str, str]] = []
            for form in forms:
                words.extend([("de", "ADP"), ("le", "DET")] if form == "du" else [(form, "NOUN")])
            tokens, at = [], 0
            for form in forms:
                size = 2 if form == "du" else 1
                tokens.append(SimpleNamespace(words=[
                    SimpleNamespace(lemma=lemma, upos=upos, xpos=None, feats=None, deprel="dep" if at + i else "root",
                                    head=0 if at + i == 0 else 1)
                    for i, (lemma, upos) in enumerate(words[at:at + size])]))
                at += size
            parsed.append(SimpleNamespace(tokens=tokens))
        return SimpleNamespace(sentences=parsed)


def test_stanza_adapter_on_a_stand_in_pipeline() -> None:
    corpus = parse_corefud(conllu("1 Pierre Entity=(e1-person-\n2 du Entity=e1)\n3 pain"), "fr.conllu")
    pipeline = StandInPipeline()
    languages: list[str] = []
    parser = StanzaParser(make_pipeline=lambda language: languages.append(language) or pipeline)
    for document in corpus:
        document.language = "fr"
    report = Report()
    parse_corpus(corpus, parser, report)
    assert languages == ["fr"] and pipeline.calls == [[["Pierre", "du", "pain"]]]  # pretokenized, as read
    nodes = corpus.documents[0].sentences[0].nodes
    assert [(n.lemma, n.upos, n.xpos, n.head, n.deprel) for n in nodes] == [
        ("Pierre", "NOUN", "_", "0", "root"), ("de", "ADP", "_", "1", "dep"), ("pain", "NOUN", "_", "1", "dep")]
    assert report.counts["word the parser split into several (its tree put back on the word)"] == 1
    assert report.counts[HEAD_PARSED_TREE] == 1 and corpus.documents[0].mentions[0].head is nodes[0]


def test_onto_tokens_puts_a_split_token_back_as_one_node() -> None:
    # "au chat": au = à + le, both attached to chat (the root).
    words = [ParsedWord(0, "à", "ADP", "_", "_", 3, "case"), ParsedWord(0, "le", "DET", "_", "_", 3, "det"),
             ParsedWord(1, "chat", "NOUN", "_", "_", 0, "root")]
    tokens, split = onto_tokens(words, 2, "test")
    assert split == 1
    assert tokens == [ParsedWord(0, "à", "ADP", "_", "_", 2, "case"), ParsedWord(1, "chat", "NOUN", "_", "_", 0, "root")]
    with pytest.raises(HarmonizeError, match="do not cover the sentence's 3 tokens"):
        onto_tokens(words, 3, "test")


@st.composite
def split_trees(draw: st.DrawFn) -> tuple[list[ParsedWord], int]:
    """A random tree over n words, cut into tokens of consecutive words."""
    size = draw(st.integers(1, 12))
    order = draw(st.permutations(range(size)))  # order[0] is the root; each later word hangs from an earlier one
    heads = [0] * size
    for rank in range(1, size):
        heads[order[rank]] = order[draw(st.integers(0, rank - 1))] + 1
    cuts = sorted(draw(st.sets(st.integers(1, size - 1), max_size=size - 1))) if size > 1 else []
    token_of, token = [], 0
    for index in range(size):
        if index in cuts:
            token += 1
        token_of.append(token)
    return [ParsedWord(token_of[i], "_", "_", "_", "_", heads[i], "dep") for i in range(size)], token + 1


@given(split_trees())
def test_onto_tokens_always_gives_a_tree(case: tuple[list[ParsedWord], int]) -> None:
    words, count = case
    tokens, _ = onto_tokens(words, count, "property")
    assert [t.token for t in tokens] == list(range(count))
    assert sum(t.head == 0 for t in tokens) == 1
    for token in tokens:  # every token reaches the root without a cycle
        seen, at = set(), token
        while at.head != 0:
            assert at.token not in seen and at.head != at.token + 1
            seen.add(at.token)
            at = tokens[at.head - 1]


def test_reader_option_lang_sets_the_documents_language(tmp_path: Path) -> None:
    (tmp_path / "in.conllu").write_text(UNPARSED, encoding="utf-8")
    assert [d.language for d in harmonize.read(tmp_path / "in.conllu", lang="fr")] == ["fr"]
    assert "-I lang=VALUE" in run("formats").stdout


def test_a_udpipe_model_named_by_catalog_id_is_fetched_once_and_parses(udpipe_model: Path, tmp_path: Path) -> None:
    """``--parse udpipe:NAME`` takes the catalog's ``udpipe-NAME`` from the cache (here a lab's catalog whose entry
    points at a model on disk, as a LINDAT model's would point at LINDAT); before it is fetched, the error names the
    command that fetches it; the brat import it parses passes `harmonize check` and udvalidate."""
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(f'''[[corpus]]
id = "udpipe-gum-tiny"
version = "1"
kind = "parser model"
name = "A tiny UDPipe model"
languages = ["en"]
access = "public"
license = {{ spdx = "CC-BY-4.0" }}
path = "gum-tiny.udpipe"
data = ["gum-tiny.udpipe"]
citation = "@misc{{tiny}}"
[[corpus.source]]
kind = "file"
url = "{udpipe_model.as_uri()}"
to = "gum-tiny.udpipe"
''', encoding="utf-8")
    env = {"HARMONIZE_CATALOG": str(catalog), "HARMONIZE_DATA_DIR": str(tmp_path / "cache")}
    brat = shared("litbank", "brat", "105_persuasion_brat.ann")
    before = run("convert", brat, "--from", "brat", "-o", tmp_path / "out.conllu", "--parse", "udpipe:gum-tiny",
                 env=env)
    assert before.returncode == 1 and "harmonize corpora fetch udpipe-gum-tiny" in before.stderr
    done = run("--fetch", "convert", brat, "--from", "brat", "-o", tmp_path / "out.conllu", "--parse",
               "udpipe:gum-tiny", env=env)
    assert done.returncode == 0, done.stderr
    assert "documents without dependency trees" not in done.stderr
    assert run("check", tmp_path / "out.conllu").returncode == 0
    ok, output = validate(tmp_path / "out.conllu", "en")
    assert ok, output
    unparsed = run("convert", brat, "--from", "brat", "-o", tmp_path / "bare.conllu", env=env)
    assert "documents without dependency trees (HEAD, DEPREL empty): --parse udpipe:MODEL" in unparsed.stderr
