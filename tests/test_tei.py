"""PCC / NKJP TEI: the reader on the shared sample and on hand-written NKJP-style documents, the writer's round
trips, gzip and plain layers, bad input, and the command line."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

import harmonize
from harmonize.converters import nkjp_tags, surface, tei
from harmonize.converters.corefud import format_corefud, parse_corefud, read_corefud
from harmonize.converters.corefud_values import unescape_value
from harmonize.errors import FormatError, Report
from harmonize.io import safe_file_names
from harmonize.schemas.model import Corpus, Document
from harmonize.schemas.signature import corpus_signature
from tests.conftest import FIXTURES, shared, shared_files

NKJP_STYLE = FIXTURES / "tei" / "nkjp_style"
SAMPLE = ("pcc", "tei_format_sample_liner2", "pst20_00120445")


def by_text(document: Document) -> dict[str, list[str]]:
    """Entity -> its mentions' texts, keyed by the first mention's text (ids are the reader's numbering)."""
    return {e.mentions[0].text: [m.text for m in e.mentions] for e in document.entities}


def partition(corpus: Corpus) -> list:
    """What a round trip must keep, whatever the entity ids: words, sentences, paragraphs, and per entity its
    type, attributes (unescaped) and mentions with heads, links and attributes."""
    result = []
    for document in corpus.documents:
        def key(node):
            return (node.sentence.index, node.id)

        entities = sorted(
            (e.type or "", sorted((k, unescape_value(v)) for k, v in e.attrs.items()),
             sorted((tuple(key(w) for w in m.words), key(m.head) if m.head else (), m.link or "", m.etype or "",
                     sorted((k, unescape_value(v)) for k, v in m.attrs.items())) for m in e.mentions))
            for e in document.entities)
        bridges = sorted((tuple(key(w) for w in b.anaphor.words), b.antecedent.mentions[0].words[0].id, b.label)
                         for b in document.bridges)
        paragraphs = [i for i, s in enumerate(document.sentences)
                      if any(isinstance(c, str) and c.startswith("# newpar") for c in s.comments)]
        # Spacing is compared through the sentence texts (a multiword token's words come back as glued words).
        words = [(n.id, n.form) for n in document.nodes() if not n.is_empty]
        result.append((entities, bridges, paragraphs, words, [(s.id, s.text) for s in document.sentences]))
    return result


# -- the shared sample ----------------------------------------------------------------------------------------------


def test_sample_document_reads_with_every_character_of_its_text() -> None:
    folder = shared(*SAMPLE)
    report = Report()
    document = tei.read_tei(folder, report=report).documents[0]
    assert document.id == "pst20_00120445"
    assert len(document.sentences) == 23
    words = [n for n in document.nodes() if not n.is_empty]
    assert len(words) == 407  # the README: 407 segments
    assert len(document.mentions) == 118
    clusters = [e for e in document.entities if len(e.mentions) > 1]
    assert len(clusters) == 9 and sum(len(e.mentions) for e in clusters) == 34  # 9 clusters, 34 pointers
    assert len(document.entities) == 9 + (118 - 34)  # every other mention is a singleton
    assert not report  # the sample is well formed
    # Paragraph texts come back exactly from the words and their spacing (text.xml parsed independently).
    root = etree.parse(str(folder / "text.xml")).getroot()
    paragraphs = ["".join(p.itertext()) for p in root.iter("{http://www.tei-c.org/ns/1.0}p")]
    grouped: list[list] = []
    for sentence in document.sentences:
        if any(isinstance(c, str) and c.startswith("# newpar") for c in sentence.comments):
            grouped.append([])
        grouped[-1].extend(sentence.words)
    rebuilt = ["".join(w.form + surface.gap_after(w, last=w is group[-1]) for w in group) for group in grouped]
    assert rebuilt == paragraphs
    # Offsets point into the paragraphs joined by newlines.
    joined = "\n".join(paragraphs)
    assert all(joined[w.start_char:w.end_char] == w.form for w in words)


def test_sample_zero_subject_is_an_empty_node_after_its_verb() -> None:
    document = tei.read_tei(shared(*SAMPLE)).documents[0]
    empties = [n for n in document.nodes() if n.is_empty]
    assert len(empties) == 1
    zero = empties[0]
    verb = zero.sentence.nodes[zero.position - 1]
    assert verb.form == "odgrywał" and zero.id == f"{verb.id}.1" and zero.deps == f"{verb.id}:nsubj"
    mention = zero.mentions[0]
    assert mention.words == [zero] and mention.head is zero
    assert {m.text for m in mention.entity.mentions} == {"_", "Kalisza", "Kalisz"}
    assert mention.entity.attrs["dominant"] == "odgrywać"


def test_sample_plain_layer_is_read_where_both_exist() -> None:
    folder = shared(*SAMPLE)
    assert tei.layer_path(folder, "text") == folder / "text.xml"
    assert tei.layer_path(folder, "ann_mentions") == folder / "ann_mentions.xml.gz"


# -- hand-written NKJP-style document --------------------------------------------------------------------------------


def test_nkjp_style_document() -> None:
    report = Report()
    document = tei.read_tei(NKJP_STYLE, report=report).documents[0]
    # <ab> paragraphs inside a <div>; sentences from <s>, ids kept.
    assert [s.id for s in document.sentences] == ["segm_1.1-s", "segm_2.1-s", "segm_2.2-s"]
    assert [c for s in document.sentences for c in s.comments if isinstance(c, str)] == [
        "# newpar id = txt_1.1-ab", "# newpar id = txt_1.2-ab"]
    assert document.sentences[0].text == "Jan kupił psa,  a Maria kota."
    first = document.sentences[0].words
    assert first[3].misc == {"SpacesAfter": "\\s\\s"} and first[2].misc == {"SpaceAfter": "No"}
    # The segmentation choice: the rejected "Kupiłem" is counted, "Kupił" + "em" are the words.
    assert [w.form for w in document.sentences[1].words] == ["Kupił", "em", "go", "wczoraj", "."]
    assert report.counts["segmentation alternative not chosen"] == 1
    # Disambiguation: a vAlt of two msds and two lexes, each resolved by the choice pointer.
    assert first[2].xpos == "subst:sg:acc:m2" and first[2].feats == "Animacy=Anim|Case=Acc|Gender=Masc|Number=Sing"
    assert (first[4].lemma, first[4].upos, first[4].xpos) == ("a", "CCONJ", "conj")
    assert (first[0].upos, first[1].upos, first[3].upos) == ("PROPN", "VERB", "PUNCT")
    # The discontinuous mention: semantic head Jan, syntactic head "a" (second of its words).
    entities = by_text(document)
    jan_maria = next(e for e in document.entities if e.attrs.get("dominant") == "Jan%20i%20Maria")
    plural = jan_maria.mentions[0]
    assert plural.text == "Jan a Maria" and plural.is_discontinuous
    assert plural.head.form == "Jan" and plural.attrs["synh"] == "2"
    assert [m.text for m in jan_maria.mentions] == ["Jan a Maria", "Oni"]
    assert entities["psa"] == ["psa", "go"]
    # The zero subject: an empty node right after "Kupił", before "em".
    nodes = document.sentences[1].nodes
    assert [n.id for n in nodes[:3]] == ["1", "1.1", "2"] and nodes[1].deps == "1:nsubj"
    assert nodes[1].mentions[0].entity.is_singleton
    # The near-identity cluster: a bridge from "je" to the entity of "kota".
    (bridge,) = document.bridges
    assert (bridge.anaphor.text, bridge.antecedent.mentions[0].text, bridge.label) == ("je", "kota", "near-identity")
    assert report.counts["near-identity cluster kept as bridges labelled near-identity"] == 1
    assert report.counts["near-identity cluster's dominant not kept"] == 1
    # Ids follow first mentions.
    assert [e.id for e in document.entities] == [f"e{i}" for i in range(1, len(document.entities) + 1)]
    assert len(document.entities) == 7 and len(document.mentions) == 9


def test_zero_subjects_on_the_verb() -> None:
    document = tei.read_tei(NKJP_STYLE, zeros="verb").documents[0]
    assert not any(n.is_empty for n in document.nodes())
    zero = next(m for m in document.mentions if m.attrs.get("zero") == "true")
    assert zero.text == "Kupił" and zero.head is zero.words[0]


def test_nkjp_table() -> None:
    assert nkjp_tags.ud_tags("ppron3", "sg:acc:m2:ter:nakc:npraep", "on") == (
        "PRON", "Animacy=Anim|Case=Acc|Gender=Masc|Number=Sing|Person=3|PrepCase=Npr|PronType=Prs|Variant=Short")
    assert nkjp_tags.ud_tags("subst", "sg:nom:m1", "Jan")[0] == "PROPN"
    assert nkjp_tags.ud_tags("subst", "sg:nom:m1", "pies")[0] == "NOUN"
    assert nkjp_tags.ud_tags("NN", "", "dog") is None
    classes, values = nkjp_tags.nkjp_table()
    assert len(classes) >= 40 and {"sg", "pl", "m1", "perf"} <= set(values)


# -- round trips ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("zeros", tei.ZERO_POLICIES)
@pytest.mark.parametrize("compress", ["no", "yes"])
def test_tei_model_tei_model(tmp_path: Path, zeros: str, compress: str) -> None:
    for source in (NKJP_STYLE, *([SHARED] if (SHARED := _sample_or_none()) else [])):
        first = tei.read_tei(source, zeros=zeros)
        harmonize.write(first, tmp_path / "out", "tei", report=Report(), gzip=compress)
        folder = tmp_path / "out" / source.name
        assert {p.name for p in folder.iterdir()} == {f"{layer}.xml{'.gz' if compress == 'yes' else ''}"
                                                    for layer in (*tei.LAYERS, tei.HEADER)}
        again = tei.read_tei(folder, zeros=zeros)
        assert corpus_signature(again) == corpus_signature(first)


def _sample_or_none() -> Path | None:
    from tests.conftest import SHARED_DATA

    path = SHARED_DATA.joinpath(*SAMPLE)
    return path if path.exists() else None


def test_tei_corefud_tei_keeps_zero_subjects(tmp_path: Path) -> None:
    first = tei.read_tei(NKJP_STYLE)
    again = parse_corefud(format_corefud(first))
    tei.write_tei(again, tmp_path)
    back = tei.read_tei(tmp_path / "nkjp_style")
    assert partition(back) == partition(first)


COREFUD_FILES = shared_files("*.conllu", "corefud-samples", "udapi") + shared_files("GUM_[a-c]*.conllu", "gum", "v11.1.0",
                                                                                "dep")


@pytest.mark.parametrize("path", COREFUD_FILES or [None], ids=lambda p: p.name if p else "no-data")
def test_corefud_tei_corefud(tmp_path: Path, path: Path | None) -> None:
    if path is None:
        pytest.skip("no CorefUD files under the shared data: set HARMONIZE_SHARED_DATA")
    first = read_corefud(path)
    report = Report()
    tei.write_tei(first, tmp_path, report)
    back = tei.read_tei(tmp_path)
    assert len(back.documents) == len(first.documents)
    # Empty nodes that are no zero subject have no place in TEI: compare without them, and they are reported.
    for document in first.documents:
        for entity in list(document.entities):
            for mention in list(entity.mentions):
                words = [w for w in mention.words if not w.is_empty]
                if not words:
                    document.remove_mention(mention)
                elif len(words) < len(mention.words):
                    document.set_words(mention, words, mention.head if mention.head in words else None)
        for sentence in document.sentences:
            for node in [n for n in sentence.nodes if n.is_empty]:
                sentence.nodes.remove(node)
            for position, node in enumerate(sentence.nodes):
                node.position = position
        for split in list(document.split_antecedents):
            document.split_antecedents.remove(split)
        document.bridges = [b for b in document.bridges if b.label == tei.NEAR_IDENTITY]
    # A multiword token whose words do not spell it ("du" = de + le) is written as its words, and reported.
    split_tokens = 0
    for document in first.documents:
        for sentence in document.sentences:
            for mwt in sentence.multiwords:
                words = [w.form for w in sentence.words if mwt.first <= int(w.id) <= mwt.last]
                if "".join(words) != mwt.form:
                    sentence.text = sentence.text.replace(mwt.form, "".join(words), 1)
                    split_tokens += 1
    assert report.counts["multiword token written as its words (the text shows the words, not the token)"] == (
        split_tokens)
    by_name = dict(zip(safe_file_names([d.id for d in first.documents], "doc"), first.documents))
    first.documents = [by_name[d.id] for d in back.documents]
    assert partition(back) == partition(first)
    if any(n.head != "_" for d in first.documents for n in d.nodes()):
        assert report.counts["HEAD not written (TEI has no place for them)"] > 0


def test_corefud_zero_subject_comes_back_on_its_verb(tmp_path: Path) -> None:
    """The packaged sample's zero (3.1, DEPS 4:nsubj, entity of "Mary") is written as a zero mention on "asked" and
    read back as an empty node right after it."""
    sample = harmonize.read(Path(str(resources_sample())), report=Report())
    harmonize.write(sample, tmp_path, "tei", report=Report())
    back = tei.read_tei(tmp_path / "sample-1").documents[0]
    sentence = next(s for s in back.sentences if s.text == "Mary called and asked about the book.")
    (zero,) = [n for n in sentence.nodes if n.is_empty]
    assert (zero.id, zero.deps) == ("4.1", "4:nsubj")
    assert [m.text for m in zero.mentions[0].entity.mentions if m.sentence is sentence] == ["Mary", "_"]


def resources_sample() -> Path:
    from importlib import resources

    return Path(str(resources.files("harmonize") / "samples" / "sample.conllu"))


# -- gzip and plain -------------------------------------------------------------------------------------------------


def test_gzipped_layers_read_like_plain_ones(tmp_path: Path) -> None:
    folder = tmp_path / "doc"
    folder.mkdir()
    for layer in NKJP_STYLE.iterdir():
        (folder / f"{layer.name}.gz").write_bytes(gzip.compress(layer.read_bytes()))
    assert corpus_signature(tei.read_tei(folder)) != []
    plain, zipped = tei.read_tei(NKJP_STYLE).documents[0], tei.read_tei(folder).documents[0]
    zipped.id = plain.id
    assert corpus_signature(Corpus([zipped])) == corpus_signature(Corpus([plain]))
    # A plain layer beside a gzipped one wins; the gzipped one is not even opened.
    (folder / "ann_coreference.xml.gz").write_bytes(b"not gzip")
    shutil.copy(NKJP_STYLE / "ann_coreference.xml", folder / "ann_coreference.xml")
    assert len(tei.read_tei(folder).documents[0].entities) == 7


def test_a_corpus_is_every_document_folder_at_any_depth(tmp_path: Path) -> None:
    for place in ("a/one", "b/c/two"):
        shutil.copytree(NKJP_STYLE, tmp_path / place)
    (tmp_path / "b" / "notes.txt").write_text("not a document")
    corpus = tei.read_tei(tmp_path)
    assert [d.id for d in corpus.documents] == ["one", "two"]
    assert tei.document_folders(tmp_path / "a" / "one") == [tmp_path / "a" / "one"]


# -- bad input ------------------------------------------------------------------------------------------------------


def _broken(tmp_path: Path, layer: str, old: str, new: str) -> Path:
    folder = tmp_path / "doc"
    shutil.copytree(NKJP_STYLE, folder)
    path = folder / f"{layer}.xml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def _line_of(folder: Path, layer: str, needle: str) -> int:
    lines = (folder / f"{layer}.xml").read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines, 1) if needle in line)


@pytest.mark.parametrize(("layer", "old", "new", "reason"), [
    ("ann_mentions", 'target="ann_morphosyntax.xml#morph_1.3-seg"', 'target="ann_morphosyntax.xml#morph_9.9-seg"',
     "pointer to a segment that does not exist"),
    ("ann_coreference", "ann_mentions.xml#mention_7", "ann_mentions.xml#mention_77",
     "pointer to a mention that does not exist"),
    ("ann_segmentation", "string-range(txt_1.1-ab,24,4)", "string-range(txt_1.1-ab,27,4)",
     "string-range outside its paragraph"),
])
def test_broken_pointers_name_file_line_and_reason(tmp_path: Path, layer: str, old: str, new: str,
                                                    reason: str) -> None:
    folder = _broken(tmp_path, layer, old, new)
    with pytest.raises(FormatError) as caught:
        tei.read_tei(folder)
    needle = new.split('"')[1] if '"' in new else new
    assert caught.value.path == str(folder / f"{layer}.xml")
    assert caught.value.line == _line_of(folder, layer, needle)
    assert caught.value.reason.startswith(reason)
    report = Report()
    tei.read_tei(folder, lenient=True, report=report)
    assert report.counts[reason] == 1


def test_lenient_drops_a_mention_with_a_broken_pointer_whole(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "ann_mentions", 'target="ann_morphosyntax.xml#morph_1.5-seg"',
                     'target="ann_morphosyntax.xml#nothing"')
    report = Report()
    document = tei.read_tei(folder, lenient=True, report=report).documents[0]
    assert "Jan a Maria" not in {m.text for m in document.mentions}
    assert len(document.mentions) == 8
    # Its cluster keeps its other mention, and the pointer to the dropped mention is counted.
    assert report.counts["cluster pointer to a dropped mention"] == 1
    assert any(e.attrs.get("dominant") == "Jan%20i%20Maria" and [m.text for m in e.mentions] == ["Oni"]
               for e in document.entities)


def test_missing_layer(tmp_path: Path) -> None:
    folder = tmp_path / "doc"
    shutil.copytree(NKJP_STYLE, folder)
    (folder / "ann_coreference.xml").unlink()
    with pytest.raises(FormatError, match="missing layer"):
        tei.read_tei(folder)
    report = Report()
    document = tei.read_tei(folder, lenient=True, report=report).documents[0]
    assert report.counts["missing layer"] == 1 and all(e.is_singleton for e in document.entities)
    (folder / "text.xml").unlink()
    report = Report()
    assert tei.read_tei(folder, lenient=True, report=report).documents == []
    assert report.counts["document skipped (no readable text or segmentation layer)"] == 1


def test_malformed_xml_and_gzip(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "ann_mentions", '<seg xml:id="mention_3">', '<seg xml:id="mention_3"')
    with pytest.raises(FormatError) as caught:
        tei.read_tei(folder)
    assert caught.value.line == _line_of(folder, "ann_mentions", 'mention_3"')
    assert "malformed XML" in caught.value.reason
    (folder / "ann_mentions.xml").unlink()
    (folder / "ann_mentions.xml.gz").write_bytes(gzip.compress(b"<x/>")[:-6])
    with pytest.raises(FormatError, match="malformed gzip file"):
        tei.read_tei(folder)
    report = Report()
    assert len(tei.read_tei(folder, lenient=True, report=report).documents) == 1
    assert report.counts["malformed gzip file"] == 1


# -- command line -----------------------------------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harmonize", *args], capture_output=True, text=True)


def test_cli_convert_stats_view(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(NKJP_STYLE, corpus / "docs" / "nkjp_style")
    done = run("convert", str(corpus), "--from", "tei", "--to", "corefud", "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    written = tmp_path / "out" / "nkjp_style.conllu"
    assert written.read_text(encoding="utf-8").startswith("# newdoc id = nkjp_style\n")
    assert "segmentation alternative not chosen" in done.stderr
    done = run("convert", str(written), "--to", "tei", "-o", str(tmp_path / "tei"), "-O", "gzip=yes")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "tei" / "nkjp_style" / "ann_mentions.xml.gz").exists()
    done = run("stats", str(corpus), "--from", "tei", "-I", "zeros=verb", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert '"mentions": 9' in done.stdout.replace(" ", "").replace('"mentions":9', '"mentions": 9')
    done = run("view", str(corpus), "--from", "tei", "-o", str(tmp_path / "view.html"))
    assert done.returncode == 0 and "Kupił" in (tmp_path / "view.html").read_text(encoding="utf-8")
    done = run("convert", str(corpus), "--from", "tei", "-I", "zeros=nowhere", "-o", str(tmp_path / "x"))
    assert done.returncode == 1 and done.stderr.strip() == (
        "harmonize: error: tei reader: zeros must be one of empty-node, verb")
    assert "-I zeros=empty-node|verb" in run("formats").stdout


def test_cli_bad_input_is_one_line(tmp_path: Path) -> None:
    folder = _broken(tmp_path, "ann_coreference", "ann_mentions.xml#mention_7", "ann_mentions.xml#mention_77")
    done = run("convert", str(folder), "--from", "tei", "-o", str(tmp_path / "out"))
    line = _line_of(folder, "ann_coreference", "mention_77")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"harmonize: error: {folder}/ann_coreference.xml:{line}: pointer to a mention that "
                                   "does not exist: coreference_1 -> ann_mentions.xml#mention_77")
    done = run("convert", str(folder), "--from", "tei", "--lenient", "-o", str(tmp_path / "out"))
    assert done.returncode == 0 and "1 x pointer to a mention that does not exist" in done.stderr


def test_field_values_with_escapes_tei_does_not_keep_are_counted(tmp_path: Path) -> None:
    """GUM writes a comma in an identity as %2C ("Austin%2C_Texas"); TEI writes the free text and reads it back in
    CorefUD's escaping, which leaves a comma as it is: counted, so that the accounting holds."""
    from tests.test_accounting import assert_accounted, write_and_read_back

    source = shared("gum", "v11.1.0", "dep", "GUM_reddit_bobby.conllu")
    back, report = write_and_read_back(harmonize.read(source, report=Report()), "tei", tmp_path)
    assert report.counts["TEI: entity fields whose escaping reads back otherwise"] >= 1
    assert_accounted(harmonize.read(source, report=Report()).documents, back, report)
