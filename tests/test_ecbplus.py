"""ECB+: the shared topics against the release counts, Cattan et al.'s Table 4 (validated sentences, dev topics) and
ariecattan/coref's preprocessed dev files; CorefUD round trips with topics; cross-document scoring settings;
hand-written bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harmonize.conversion import convert
from harmonize.converters.corefud import format_corefud, parse_corefud
from harmonize.converters.ecbplus import read_ecbplus
from harmonize.errors import FormatError, Report
from harmonize.schemas.signature import corpus_signature
from harmonize.scoring.score import score_corpora
from harmonize.stats import count, tables_from_counts
from tests.conftest import shared

DEV_TOPICS = ("2", "5", "12", "18", "21", "23", "34", "35")


def test_the_shared_topics_give_the_readme_counts() -> None:
    report = Report()
    corpus = read_ecbplus(shared("ecbplus", "ECB+"), report=report)
    documents = corpus.documents
    # The README's train and dev rows together (every train and dev topic of the standard split).
    assert len(documents) == 772
    assert sum(d.subtopic.endswith("ecb") for d in documents) == 391  # type: ignore[union-attr]
    assert sum(len(s.nodes) for d in documents for s in d.sentences) == 289196
    assert sum(len(d.sentences) for d in documents) == 12595
    mentions = [m for d in documents for e in d.entities for m in e.mentions]
    assert len(mentions) == 23693
    families = {}
    for mention in mentions:
        prefix = next(p for p in ("ACTION", "NEG", "HUMAN", "NON_HUMAN", "LOC", "TIME")
                      if mention.attrs["tag"].startswith(p))
        families[prefix] = families.get(prefix, 0) + 1
    assert families == {"ACTION": 10603, "NEG": 226, "HUMAN": 7160, "NON_HUMAN": 2243, "LOC": 1578, "TIME": 1883}
    # The README's 71 discontinuous markables include 18_9ecb m_id 30, which anchors one token twice.
    assert sum(1 for m in mentions if m.is_discontinuous) == 70
    assert report.counts["token anchored twice in one markable (once)"] == 1
    # 1,800 instance ids in CROSS_DOC_COREF relations (the README's 1,423 + 381 per split; 4 ids are in both):
    # one has its only source in an earlier relation too (counted).
    cross = {e.id for d in documents for e in d.entities if not e.id.startswith(("INTRA_", "Singleton_"))}
    assert len(cross) == 1799 and report.counts["mention in two relations (kept in the first)"] == 1
    assert report.counts["chain with an UNKNOWN_INSTANCE_TAG instance (typed by its first mention)"] == 61


def test_validated_dev_topics_give_cattan_et_al_table_4() -> None:
    folder = shared("ecbplus", "ECB+")
    documents = [d for topic in DEV_TOPICS for d in read_ecbplus(folder / topic, sentences="validated").documents]
    row = tables_from_counts(count(documents))["cross_document"].iloc[0]
    assert (row.documents, row.annotated_sentences) == (196, 346)
    assert (row.event_mentions, row.entity_mentions) == (1245, 1476)
    assert (row.event_singletons, row.entity_singletons) == (280, 205)
    assert (row.event_clusters, row.entity_clusters) == (129, 125)  # 409 event and 330 entity chains in all


def test_dev_mention_lists_equal_ariecattans_preprocessing_but_for_subtopics(tmp_path: Path) -> None:
    folder = shared("ecbplus", "ECB+")
    reference = shared("ecbplus", "reference_ariecattan_preprocessed")
    convert([folder / t for t in DEV_TOPICS], "ecbplus", "mentions-json", tmp_path, read_options={
        "sentences": "validated"}, options={"name": "dev"}, warn_losses=False)
    for kind in ("event", "entity"):
        theirs = {(m["doc_id"], m["m_id"]): m for m in json.loads(
            (reference / f"dev_{kind}_gold_mentions.json").read_text(encoding="utf-8"))}
        ours = {(m["doc_id"], m["m_id"]): m for m in json.loads(
            (tmp_path / f"dev_{kind}_gold_mentions.json").read_text(encoding="utf-8"))}
        assert ours.keys() == theirs.keys()
        for key, mention in theirs.items():
            differing = {f for f in mention if mention[f] != ours[key][f]}
            # Their subtopic is "<topic>ecb+" for every document; a token anchored twice (18_9ecb m_id 30) is
            # one token here; a token text with a tab (2_5ecbplus "Awards\t") is trimmed here.
            if mention["tokens_ids"] == [15, 15]:
                assert differing <= {"subtopic", "tokens_ids", "tokens_str"}
            elif "\t" in mention["full_sentence"]:
                assert differing <= {"subtopic", "full_sentence", "left_sentence", "right_sentence", "tokens_str"}
            else:
                assert differing <= {"subtopic"}, (key, differing)
            expected = mention["topic"] + ("ecb+" if "ecbplus" in mention["doc_id"] else "ecb")
            assert ours[key]["subtopic"] == expected
    text = (tmp_path / "dev_text.txt").read_text(encoding="utf-8")
    theirs_text = (reference / "dev_text.txt").read_text(encoding="utf-8")
    assert "Awards\t\n" in theirs_text  # the token text with a tab, trimmed here
    assert set(text.split("\n\n")) == set(theirs_text.replace("Awards\t\n", "Awards\n").split("\n\n"))


def test_corefud_keeps_topics_and_cross_document_ids(tmp_path: Path) -> None:
    corpus = read_ecbplus(shared("ecbplus", "ECB+", "1"))
    text = format_corefud(corpus)
    assert "# meta::topic = 1\n# meta::subtopic = 1ecb+\n" in text
    back = parse_corefud(text)
    # Without a tree, a mention's unknown head is written as its first word (udapi refuses an empty head) and the
    # document says how many (# meta::guessed_heads), so they read back as unknown; a one-word mention's head is its
    # word.
    assert "# meta::guessed_heads = " in text
    for mention in (m for d in corpus.documents for m in d.mentions if m.head is None and len(m.words) == 1):
        mention.head = mention.words[0]
    assert corpus_signature(back) == corpus_signature(corpus)
    assert [(d.topic, d.subtopic) for d in back.documents] == [(d.topic, d.subtopic) for d in corpus.documents]
    assert format_corefud(back) == text
    # One declaration for the whole file, of fields udvalidate can parse (lowercase letters), as it requires.
    headers = [line for line in text.splitlines() if line.startswith("# global.Entity")]
    assert headers == ["# global.Entity = eid-etype-head-other-tag-mid-descriptor"]


def test_cross_document_settings_score_chains_across_documents() -> None:
    corpus = read_ecbplus(shared("ecbplus", "ECB+", "1"))
    # A response that puts every mention in its own document's chain: cross-document links are lost.
    response = parse_corefud(format_corefud(corpus))
    for document in response.documents:
        for entity in document.entities:
            entity.id = f"{entity.id}@{document.id}"
    within = score_corpora(corpus, response, ["muc"], mode="exact").metrics["muc"]
    assert within.recall == 1.0
    for setting in ("corpus", "topic", "subtopic"):
        across = score_corpora(corpus, response, ["muc"], mode="exact", cross_document=setting).metrics["muc"]
        assert across.recall < 0.6 and across.precision == 1.0, setting
    by_subtopic = score_corpora(corpus, corpus, ["muc"], cross_document="subtopic")
    assert [label for label, _ in by_subtopic.partitions] == ["1ecb", "1ecb+"]


DOCUMENT = """<Document doc_name="9_1ecb.xml" doc_id="D1">
<token t_id="1" sentence="0" number="0">Ann</token>
<token t_id="2" sentence="0" number="1">left</token>
<token t_id="3" sentence="1" number="0">She</token>
<token t_id="4" sentence="1" number="1">went</token>
<Markables>
<HUMAN_PART_PER m_id="1"><token_anchor t_id="1"/></HUMAN_PART_PER>
<HUMAN_PART_PER m_id="2"><token_anchor t_id="3"/></HUMAN_PART_PER>
<ACTION_OCCURRENCE m_id="3"><token_anchor t_id="2"/><token_anchor t_id="4"/></ACTION_OCCURRENCE>
<HUMAN_PART_PER m_id="9" RELATED_TO="" TAG_DESCRIPTOR="ann" instance_id="HUM1"/>
</Markables>
<Relations>
<CROSS_DOC_COREF r_id="1" note="HUM1"><source m_id="1"/><source m_id="2"/><target m_id="9"/></CROSS_DOC_COREF>
</Relations>
</Document>
"""


@pytest.mark.parametrize(("policy", "parts"), [("first-part", [["left"]]), ("parts", [["left"], ["went"]]),
                                               ("drop", [])])
def test_a_mention_over_a_sentence_break_follows_the_shared_policy(tmp_path: Path, policy: str, parts) -> None:
    path = tmp_path / "9_1ecb.xml"
    path.write_text(DOCUMENT, encoding="utf-8")
    report = Report()
    document = read_ecbplus(path, report=report, cross_sentence=policy).documents[0]
    events = [e for e in document.entities if e.type == "event"]
    assert [[w.form for w in m.words] for e in events for m in e.mentions] == parts
    assert report.counts[f"mention over a sentence break (cross_sentence={policy})"] == 1
    ann = document.entity("HUM1")
    assert ann is not None and [m.text for m in ann.mentions] == ["Ann", "She"] and ann.attrs == {"descriptor": "ann"}


@pytest.mark.parametrize(("old", "new", "reason"), [
    ('<source m_id="2"/>', '<source m_id="7"/>', "relation source names no mention"),
    ('<token_anchor t_id="3"/>', '<token_anchor t_id="30"/>', "token anchor outside the document"),
    ("</Relations>", "</Relation>", "malformed XML"),
])
def test_bad_input_names_file_line_and_reason_and_lenient_counts_it(tmp_path: Path, old: str, new: str,
                                                                    reason: str) -> None:
    path = tmp_path / "9_1ecb.xml"
    path.write_text(DOCUMENT.replace(old, new), encoding="utf-8")
    with pytest.raises(FormatError) as caught:
        read_ecbplus(path)
    assert caught.value.path == str(path) and caught.value.line is not None
    assert caught.value.reason.startswith(reason)
    if reason != "malformed XML":
        report = Report()
        read_ecbplus(path, lenient=True, report=report)
        assert report.counts[reason] == 1


def test_conll2012_numbers_clusters_across_the_documents_of_a_file() -> None:
    from harmonize.converters.conll2012 import format_conll2012, parse_conll2012

    corpus = read_ecbplus(shared("ecbplus", "ECB+", "1"))
    back = parse_conll2012(format_conll2012(corpus, Report(), discontinuous="span"))
    numbers: dict[str, set[str]] = {}  # instance id -> the cluster numbers it got in the documents
    for ours, theirs in zip(corpus.documents, back.documents):
        by_words = {tuple((w.sentence.index, w.id) for w in m.words): m.entity.id for e in theirs.entities
                    for m in e.mentions}
        for entity in ours.entities:
            for mention in entity.mentions:
                key = tuple((w.sentence.index, w.id) for w in mention.words)
                if key in by_words and not entity.id.startswith(("INTRA_", "Singleton_")):
                    numbers.setdefault(entity.id, set()).add(by_words[key])
    assert numbers and all(len(found) == 1 for found in numbers.values())
    assert len({next(iter(found)) for found in numbers.values()}) == len(numbers)


def test_validated_text_keeps_only_the_validated_sentences() -> None:
    report = Report()
    folder = shared("ecbplus", "ECB+")
    corpus = read_ecbplus(folder / "1", report=report, sentences="validated-text")
    rows = [line.split(",") for line in (folder.parent / "ECBplus_coreference_sentences.csv").read_text(
        encoding="utf-8").splitlines()[1:]]
    validated = {(f"{r[0].strip()}_{r[1].strip()}", r[2].strip()) for r in rows if r[0].strip() == "1"}
    kept = {(str(d.id), str(s.id).rpartition("-")[2]) for d in corpus.documents for s in d.sentences}
    assert kept == validated
    assert all(s.index == i for d in corpus.documents for i, s in enumerate(d.sentences))
    assert report.counts["sentence outside the validated sentences left out (sentences=validated-text)"] > 0
    mentions = sum(len(d.mentions) for d in corpus.documents)
    assert mentions == sum(len(d.mentions) for d in read_ecbplus(folder / "1", sentences="validated").documents)
