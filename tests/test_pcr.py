"""PCR4ALL questions: reading the shared WSC-style sets, generating from a corpus, evaluating."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import harmonize
from harmonize.errors import FormatError, Report
from harmonize.pcr import generate_questions, read_questions, read_set, write_questions, write_split
from harmonize.pcr.evaluate import evaluate, table
from harmonize.pcr.generate import (
    CATAPHORA,
    NO_DISTRACTOR,
    NO_NOMINAL,
    NOT_AN_OPTION,
    PRONOUNS,
    Settings,
    generate,
)
from tests.conftest import shared


@pytest.mark.parametrize(("path", "source", "options", "count"), [
    ("winogrande_1.1/dev.jsonl", "winogrande", {}, 1267),
    ("winogrande_1.1/train_xs.jsonl", "winogrande", {}, 160),
    ("wsc/WSCollection.xml", "wsc-xml", {}, 285),
    ("wsc/WSCollection.xml", "wsc-xml", {"subset": "wsc273"}, 273),
    ("wsc/winowhy.json", "winowhy", {}, 273),
    ("gap/gap-development.tsv", "gap", {}, 1799),
    ("gap/gap-development.tsv", "gap", {"gap_neither": "keep"}, 2000),
    ("winogender/templates.tsv", "winogender", {}, 480),  # he / she: PCR4ALL's gender test
    ("winogender/templates.tsv", "winogender", {"neutral": "keep"}, 720),
    ("kocijan_wsc_txt/wsc273.txt", "wsc-txt", {}, 273),
    ("kocijan_wsc_txt/PDP.txt", "wsc-txt", {}, 80),  # 60 items, 15 with 3-5 candidates
])
def test_each_shared_set_reads_to_the_readme_counts(path: str, source: str, options: dict, count: int) -> None:
    report = Report()
    questions = read_set(shared("pcr", *path.split("/")), source, report=report, options=options)
    assert len(questions) == count
    for question in questions:
        assert question.answer in ((1, 2, 3) if options.get("gap_neither") == "keep" else (1, 2))
        start, end = question.offsets["pronoun"]
        assert question.sentence[start:end] == "_"
        for name in ("option1", "option2"):
            if name in question.offsets:  # an option written in the sentence is found where it says
                start, end = question.offsets[name]
                assert question.sentence[start:end].lower() == getattr(question, name).lower()


def test_sets_with_their_own_quirks_are_reported() -> None:
    report = Report()
    gap = read_set(shared("pcr", "gap", "gap-development.tsv"), "gap", report=report)
    assert report.counts["GAP rows with neither candidate left out (-I gap_neither=keep keeps them)"] == 201
    assert len(gap) + 201 == 2000
    report = Report()
    wsc = read_set(shared("pcr", "kocijan_wsc_txt", "wsc273.txt"), "wsc-txt", report=report)
    # The 4-line WSC273 always lists the right candidate first: a seeded coin orders the options.
    assert 100 < sum(q.answer == 1 for q in wsc) < 173
    assert [q.answer for q in wsc] == [q.answer for q in read_set(shared("pcr", "kocijan_wsc_txt", "wsc273.txt"),
                                                                  "wsc-txt")]
    report = Report()
    path = shared("pcr", "superglue_wsc", "val.jsonl")
    pairs = read_set(path, "superglue-wsc", report=report)
    # A pronoun's right candidate makes a question with each wrong one (104 pairs on 53 pronouns: 48 questions);
    # every pair is in a question or reported.
    groups: dict = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        groups.setdefault((record["text"], record["target"]["span2_index"]), []).append(record["label"])
    wanted = sum(labels.count(False) for labels in groups.values() if True in labels and False in labels)
    # Two wrong candidates of one text ("Dick" twice) make the same question: one is removed, and counted.
    assert len(pairs) + report.counts["duplicate question removed"] == wanted == 48
    assert sum(q.answer == 1 for q in pairs) not in (0, len(pairs))
    used = sum(len(labels) for labels in groups.values() if True in labels and False in labels)
    reported = sum(n for reason, n in report.counts.items() if reason.startswith("SuperGLUE WSC pairs without"))
    assert used + reported == 104


def test_wsc273_is_the_collections_first_273_schemas() -> None:
    """-I subset=wsc273 gives the set WSC273 results are reported on: the same sentences, in order, as the
    third-party WinoGrande-format WSC273 (which drops the quotes around "Check")."""
    ours = read_set(shared("pcr", "wsc", "WSCollection.xml"), "wsc-xml", options={"subset": "wsc273"})
    theirs = [json.loads(line) for line in shared("pcr", "wsc", "wsc273_winogrande_format.jsonl").read_text(
        encoding="utf-8").splitlines()]

    def words(sentence: str) -> list[str]:
        return re.sub(r"[^\w ]", "", sentence.lower()).split()

    assert [words(q.sentence) for q in ours] == [words(t["sentence"]) for t in theirs]


def test_knowref_labels_come_from_correct_candidate_and_bad_records_are_named() -> None:
    path = shared("pcr", "knowref", "knowref_test_items0001-1000.json")
    with pytest.raises(FormatError, match=r"json: correct_candidate is neither candidate: record 238"):
        read_set(path, "knowref")
    report = Report()
    questions = read_set(path, "knowref", lenient=True, report=report)
    assert report.counts["KnowRef correct_candidate_idx disagrees with correct_candidate (label kept)"] > 200
    assert len(questions) + report.counts["duplicate question removed"] + 2 == 1000
    records = json.loads(path.read_text(encoding="utf-8"))
    first = next(q for q in questions if q.doc_id == str(records[0]["oiginal_id"]))
    assert first.answer_text == " ".join(records[0]["correct_candidate"])


def test_winogender_variants_share_a_group_and_fill_all_sentences() -> None:
    questions = read_set(shared("pcr", "winogender", "templates.tsv"), "winogender")
    # WinoGender's own sentences: the male and female ones are the templates filled ("they" also changes verbs).
    sentences = {line.split("\t")[1].lower() for line in
                 shared("pcr", "winogender", "all_sentences.tsv").read_text(encoding="utf-8").splitlines()[1:]
                 if ".male." in line or ".female." in line}
    filled = {q.sentence.replace("_", q.pronoun, 1).lower() for q in questions if q.variant != "neutral"}
    assert filled == sentences
    groups = {q.group for q in questions}
    assert len(groups) == 240 and all(q.is_gender_bias for q in questions)


CORPUS = """# newdoc id = d1
# global.Entity = eid-etype-head-other
# sent_id = 1
# text = Ann met the doctor.
1	Ann	Ann	PROPN	NNP	Number=Sing	2	nsubj	_	Entity=(e1-person-1)
2	met	meet	VERB	VBD	Tense=Past	0	root	_	_
3	the	the	DET	DT	Definite=Def|PronType=Art	4	det	_	Entity=(e2-person-2
4	doctor	doctor	NOUN	NN	Number=Sing	2	obj	_	Entity=e2)|SpaceAfter=No
5	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = 2
# text = She smiled.
1	She	she	PRON	PRP	Case=Nom|Gender=Fem|Number=Sing|Person=3|PronType=Prs	2	nsubj	_	Entity=(e1-person-1)
2	smiled	smile	VERB	VBD	Tense=Past	0	root	_	SpaceAfter=No
3	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = 3
# text = It rained.
1	It	it	PRON	PRP	Case=Nom|Gender=Neut|Number=Sing|Person=3|PronType=Prs	2	expl	_	Entity=(e3-abstract-1)
2	rained	rain	VERB	VBD	Tense=Past	0	root	_	SpaceAfter=No
3	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = 4
# text = When he came, Bo sat.
1	When	when	SCONJ	WRB	_	3	mark	_	_
2	he	he	PRON	PRP	Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs	3	nsubj	_	Entity=(e4-person-1)
3	came	come	VERB	VBD	Tense=Past	5	advcl	_	SpaceAfter=No
4	,	,	PUNCT	,	_	3	punct	_	_
5	Bo	Bo	PROPN	NNP	Number=Sing	6	nsubj	_	Entity=(e4-person-1)
6	sat	sit	VERB	VBD	Tense=Past	0	root	_	SpaceAfter=No
7	.	.	PUNCT	.	_	6	punct	_	_

# sent_id = 5
# text = Bo slept and he dreamt.
1	Bo	Bo	PROPN	NNP	Number=Sing	2	nsubj	_	Entity=(e4-person-1)
2	slept	sleep	VERB	VBD	Tense=Past	0	root	_	_
3	and	and	CCONJ	CC	_	5	cc	_	_
4	he	he	PRON	PRP	Case=Nom|Gender=Masc|Number=Sing|Person=3|PronType=Prs	5	nsubj	_	Entity=(e4-person-1)
5	dreamt	dream	VERB	VBD	Tense=Past	2	conj	_	SpaceAfter=No
6	.	.	PUNCT	.	_	2	punct	_	_

"""


def corpus_file(tmp_path: Path, documents: int = 1) -> Path:
    path = tmp_path / "corpus.conllu"
    path.write_text("".join(CORPUS.replace("d1", f"d{n}").replace("sent_id = ", f"sent_id = d{n}-").replace("Ann", f"Ann{n}")
                            for n in range(1, documents + 1)), encoding="utf-8")
    return path


def test_questions_from_a_corpus_and_every_reason_for_none(tmp_path: Path) -> None:
    report = Report()
    questions = generate(harmonize.read(corpus_file(tmp_path)), Settings("test"), report)
    # "She": right Ann (before it), wrong "the doctor"; "It": no nominal mention; "he" in 4: cataphora;
    # "he" in 5: Bo is right, and no other entity's nominal mention in the window.
    assert [(q.sentence, q.answer_text) for q in questions] == [("Ann1 met the doctor. _ smiled.", "Ann1")]
    assert {reason: report.counts[reason] for reason in (NO_NOMINAL, CATAPHORA, NO_DISTRACTOR)} == {
        NO_NOMINAL: 1, CATAPHORA: 1, NO_DISTRACTOR: 1}
    question = questions[0]
    for name, text in (("pronoun", "_"), ("option1", question.option1), ("option2", question.option2)):
        start, end = question.offsets[name]
        assert question.sentence[start:end] == text
    assert question.sentence_ids == ["d1-1", "d1-2"] and question.doc_id == "d1"
    # "she" is feminine singular; neither Ann's gender nor the doctor's is known: both agree.
    assert question.is_knowledge and not question.is_linguistic


def test_the_seed_orders_options_and_the_split_keeps_documents_whole(tmp_path: Path) -> None:
    path = corpus_file(tmp_path, documents=20)
    orders = {seed: [q.answer for q in generate_questions([path], seed=seed)] for seed in (0, 0, 1, 2)}
    assert orders[0] == [q.answer for q in generate_questions([path], seed=0)]
    assert len({tuple(order) for order in orders.values()}) > 1
    questions = generate_questions([path])
    counts = write_split(questions, tmp_path / "split", (8, 1, 1))
    assert counts == {"train": 16, "dev": 2, "test": 2}
    parts = {name: {q.doc_id for q in read_questions(tmp_path / "split" / f"{name}.jsonl")} for name in counts}
    assert not (parts["train"] & parts["dev"]) and not (parts["train"] & parts["test"])


@pytest.mark.parametrize(("parts", "source", "count", "split"), [
    # 327 questions fewer than before: the 18 Reddit documents, whose text the release masks, give none by default.
    # 3,957: a right option that is a predicate nominal gives way to an earlier mention, two duplicates fewer.
    (("gum", "v11.1.0"), "gum", 3957, {"train": 3174, "dev": 404, "test": 379}),  # UD trees, FEATS
    # CoNLL-2012 without tags or tree: options' heads read from the words (was 618, one-word options only).
    (("litbank", "conll"), "conll2012", 4388, {"train": 3550, "dev": 419, "test": 419}),
])
def test_questions_from_real_corpora(parts: tuple[str, ...], source: str, count: int, split: dict,
                                     tmp_path: Path) -> None:
    report = Report()
    questions = generate_questions([shared(*parts)], source, report=report)
    assert len(questions) == count
    assert report.counts[NO_NOMINAL] > 0 and report.counts[CATAPHORA] > 0
    for question in questions:
        assert question.answer in (1, 2) and question.pronoun and question.doc_id
        for name, text in (("pronoun", "_"), ("option1", question.option1), ("option2", question.option2)):
            start, end = question.offsets[name]
            assert question.sentence[start:end] == text
    assert write_split(questions, tmp_path / "split", (8, 1, 1)) == split
    # An option is never a pronoun or an expletive (GUM: by UPOS; LitBank, without tags: by the lexicon).
    # ("others", "I" as the imaginary unit and "US" are nouns in GUM: words written as pronouns are checked).
    pronouns = PRONOUNS["en"] | {"there", "something", "someone", "anything", "nothing", "everything"}
    assert not [q for q in questions if {q.option1, q.option2} & pronouns]
    assert report.counts[NOT_AN_OPTION.format("headed by PRON" if source == "gum" else "headed by a pronoun (lexicon)")]
    # LitBank keeps Gutenberg's italics as "_" tokens: each question holding one besides its blank is counted.
    from harmonize.pcr.generate import CHOSE_OWN_BLANK

    assert report.counts[CHOSE_OWN_BLANK] == sum(q.sentence.count("_") > 1 for q in questions)


EXPLETIVE_AND_INDEFINITE = """# newdoc id = x1
# global.Entity = eid-etype-head-other
# sent_id = x1-1
# text = There was a dog near something odd.
1	There	there	PRON	EX	_	2	expl	_	Entity=(e1-abstract-1-)
2	was	be	VERB	VBD	_	0	root	_	_
3	a	a	DET	DT	_	4	det	_	Entity=(e2-animal-2-
4	dog	dog	NOUN	NN	Number=Sing	2	nsubj	_	Entity=e2)
5	near	near	ADP	IN	_	6	case	_	_
6	something	something	PRON	NN	PronType=Ind	4	nmod	_	Entity=(e3-object-1-
7	odd	odd	ADJ	JJ	_	6	amod	_	Entity=e3)|SpaceAfter=No
8	.	.	PUNCT	.	_	2	punct	_	_

# sent_id = x1-2
# text = It barked at the cat.
1	It	it	PRON	PRP	Number=Sing|Person=3|PronType=Prs	2	nsubj	_	Entity=(e2-animal-1-)
2	barked	bark	VERB	VBD	_	0	root	_	_
3	at	at	ADP	IN	_	5	case	_	_
4	the	the	DET	DT	_	5	det	_	Entity=(e4-animal-2-
5	cat	cat	NOUN	NN	Number=Sing	2	obl	_	Entity=e4)|SpaceAfter=No
6	.	.	PUNCT	.	_	2	punct	_	_

"""


def test_expletives_and_pronoun_headed_mentions_are_never_options(tmp_path: Path) -> None:
    path = tmp_path / "x.conllu"
    path.write_text(EXPLETIVE_AND_INDEFINITE, encoding="utf-8")
    report = Report()
    questions = generate(harmonize.read(path), Settings("test"), report)
    # "It" = the dog; "There" (expletive) and "something odd" (pronoun-headed) come before it but are never the
    # wrong option: "the cat" is.
    assert [(q.answer_text, {q.option1, q.option2}) for q in questions] == [("a dog", {"a dog", "the cat"})]
    assert report.counts[NOT_AN_OPTION.format("expletive")] == 1
    assert report.counts[NOT_AN_OPTION.format("headed by PRON")] == 2  # "something odd" and "It"


def test_evaluation_error_rates_and_consistency() -> None:
    questions = read_set(shared("pcr", "winogender", "templates.tsv"), "winogender")
    always_first = [1] * len(questions)
    result = evaluate(questions, always_first)
    assert result.rows[0].name == "all" and result.rows[0].error_rate == 50.0
    assert result.consistency == (240, 240)  # the same answer whatever the pronoun
    assert "WinoGender consistency: 100.00%" in table(result)


def test_the_command_line_converts_solves_and_evaluates(tmp_path: Path) -> None:
    def run(*args: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "harmonize", "pcr", *map(str, args)], capture_output=True,
                              text=True, check=False)

    train, dev = tmp_path / "train.jsonl", tmp_path / "dev.jsonl"
    assert run("convert", shared("pcr", "winogrande_1.1", "train_xs.jsonl"), "--from", "winogrande", "-o",
               train).returncode == 0
    assert run("convert", shared("pcr", "wsc", "WSCollection.xml"), "--from", "wsc-xml", "-o", dev).returncode == 0
    assert run("solve", dev, "-o", tmp_path / "pred.jsonl").returncode == 0
    done = run("evaluate", dev, tmp_path / "pred.jsonl", "--train", train, "--json", "--plot", tmp_path / "p.png")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["perspectives"][0]["questions"] == 285 and len(figures["relevance"]) == 4
    assert (tmp_path / "p.png").stat().st_size > 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sentence": "x _", "option1": "a", "option2": "b", "answer": 1}\n{"sentence": 3}\n')
    done = run("solve", bad, "-o", tmp_path / "out.jsonl")
    assert done.returncode == 1 and done.stderr.startswith(f"harmonize: error: {bad}:2: not a question")
    assert run("solve", bad, "-o", tmp_path / "out.jsonl", "--lenient").returncode == 0
    write_questions(read_questions(dev)[:2], tmp_path / "wg.jsonl", "winogrande")
    assert json.loads((tmp_path / "wg.jsonl").read_text().splitlines()[0])["answer"] in ("1", "2")


def test_options_are_chosen_from_tags_not_words_on_masked_and_unmasked_gum() -> None:
    """GUM's Reddit documents ship with every character masked: the options come from UPOS, so a masked document
    and the same document with any other words give the same questions (here: the masked text and a text of
    made-up words, and an unmasked document and the same made-up words)."""
    dep = shared("gum", "v11.1.0", "dep")
    for name in ("GUM_reddit_bobby.conllu", "GUM_bio_byron.conllu"):
        path = dep / name
        original = harmonize.read(path)
        renamed = harmonize.read(path)
        for number, node in enumerate(renamed.documents[0].nodes()):
            node.form = f"w{number}"
        report, renamed_report = Report(), Report()
        asked = generate(original, Settings("GUM", masked=True), report)
        asked_renamed = generate(renamed, Settings("GUM", masked=True), renamed_report)
        assert asked and [(q.answer, q.sentence_ids) for q in asked] == [
            (q.answer, q.sentence_ids) for q in asked_renamed]
        never = {reason: count for reason, count in report.counts.items() if reason.startswith("mention never")}
        assert never == {r: c for r, c in renamed_report.counts.items() if r.startswith("mention never")}
        assert never[NOT_AN_OPTION.format("headed by PRON")] > 0


def test_a_large_file_gives_the_questions_of_one_go_a_piece_at_a_time(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from harmonize.converters import corefud_pieces

    source = tmp_path / "corpus.conllu"
    files = sorted(shared("gum", "v11.1.0", "dep").glob("*.conllu"))[:6]
    source.write_text("".join(p.read_text(encoding="utf-8") for p in files), encoding="utf-8")
    whole_report, pieces_report = Report(), Report()
    whole = generate_questions([source], report=whole_report)
    monkeypatch.setattr(corefud_pieces, "STREAM_PIECE_BYTES", source.stat().st_size // 4)  # read in several pieces
    pieces = generate_questions([source], report=pieces_report)
    assert pieces == whole and len(whole) > 50
    assert pieces_report.counts == whole_report.counts


def test_predictions_pair_with_the_gold_by_question_not_by_position(tmp_path: Path) -> None:
    """Predictions in another order score the same; predictions for other questions are refused, not scored (by
    position they scored 55.70% without a word)."""
    from harmonize.errors import HarmonizeError
    from harmonize.pcr.evaluate import paired_answers

    gold = read_set(shared("pcr", "wsc", "WSCollection.xml"), "wsc-xml")
    shuffled = list(reversed(gold))
    assert paired_answers(gold, shuffled) == [q.answer for q in gold]
    others = read_set(shared("pcr", "winogender", "templates.tsv"), "winogender")[: len(gold)]
    with pytest.raises(HarmonizeError, match=f"{len(gold)} gold question"):
        paired_answers(gold, others)
    with pytest.raises(HarmonizeError, match="predicted twice"):
        paired_answers(gold, [*gold, gold[0]])


def test_winogrande_questions_keep_their_own_ids(tmp_path: Path) -> None:
    source = shared("pcr", "winogrande_1.1", "train_xs.jsonl")
    ids = [json.loads(line)["qID"] for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = read_set(source, "winogrande")
    write_questions(questions, tmp_path / "wg.jsonl", "winogrande")
    written = [json.loads(line)["qID"] for line in (tmp_path / "wg.jsonl").read_text(encoding="utf-8").splitlines()]
    assert written == ids[: len(written)] and len(written) == len(questions)


def test_questions_read_as_the_corpus_text_and_masked_documents_are_left_out() -> None:
    """GUM's own spacing: "England's", "didn't", never "England 's", "did n't"; GUM's Reddit documents, whose text
    the release masks, give no questions unless asked for, and are counted."""
    from harmonize.pcr.generate import MASKED

    dep = shared("gum", "v11.1.0", "dep")
    report = Report()
    questions = generate_questions([dep / "GUM_voyage_york.conllu", dep / "GUM_reddit_bobby.conllu",
                                    dep / "GUM_interview_cyclone.conllu"], "corefud", report=report)
    assert questions and not any(re.search(r" 's\b| n't\b| 're\b| 'm\b", q.sentence) for q in questions)
    assert not any("____" in q.sentence for q in questions)
    assert report.counts[MASKED] == 1
    for question in questions:  # the blank stands where the pronoun stood
        assert question.sentence.count("_") >= 1
    masked = generate_questions([dep / "GUM_reddit_bobby.conllu"], "corefud", report=Report(), masked=True)
    assert masked and all("____" in q.sentence for q in masked)


def test_what_the_generator_chose_is_counted() -> None:
    """The right option's place in the text, distractors after the pronoun and distractors containing the answer
    are counted: the first equals what the questions' own offsets say."""
    from harmonize.pcr.generate import CHOSE_RIGHT_FIRST, CHOSE_WRONG_AFTER

    path = shared("gum", "v11.1.0", "dep", "GUM_interview_cyclone.conllu")
    report = Report()
    questions = generate_questions([path], "corefud", report=report, balance=False)
    right_first = sum(q.offsets[f"option{q.answer}"][0] < q.offsets[f"option{3 - q.answer}"][0] for q in questions)
    assert not any("duplicate" in reason for reason in report.counts)  # so every counted question is kept
    assert report.counts[CHOSE_RIGHT_FIRST] == right_first == 13 and len(questions) == 15
    assert report.counts[CHOSE_WRONG_AFTER] == 1
    # Balanced (the default): where a distractor lies on either side of the right option, the side the document
    # has fewer of; the questions and their right options stay, only distractors move.
    balanced_report = Report()
    balanced = generate_questions([path], "corefud", report=balanced_report)
    first = sum(q.offsets[f"option{q.answer}"][0] < q.offsets[f"option{3 - q.answer}"][0] for q in balanced)
    assert balanced_report.counts[CHOSE_RIGHT_FIRST] == first < right_first
    def right(q) -> tuple[str, str]:
        return q.sentence, q.option1 if q.answer == 1 else q.option2

    assert [right(q) for q in balanced] == [right(q) for q in questions]


def test_a_gum_document_read_as_corefud_is_gum_by_its_id() -> None:
    """GUM's dep files read as plain CorefUD (no --from gum, no --source) give GUM's data_source and its genres'
    register: a vlog is casual, an academic paper formal; --source still decides where given."""
    dep = shared("gum", "v11.1.0", "dep")
    vlog = generate_questions([dep / "GUM_vlog_studying.conllu"], "corefud")
    academic = generate_questions([dep / "GUM_academic_exposure.conllu"], "corefud")
    assert {q.data_source for q in vlog + academic} == {"GUM"}
    assert all(q.is_casual and not q.is_formal for q in vlog)
    assert all(q.is_formal and not q.is_casual for q in academic)
    given = generate_questions([dep / "GUM_vlog_studying.conllu"], "corefud", source="mine")
    assert {q.data_source for q in given} == {"mine"}


def test_pcr4alls_own_file_is_read_and_written_with_its_parts(tmp_path: Path) -> None:
    """PCR4ALL's file (one JSON object: train_data, dev_data, test_data, gender_test) written from a seeded 2:1:1
    split and read back (--from pcr4all) gives every question in its part, perspectives as written; a set without
    parts goes to test_data, a gender-bias set to gender_test."""
    from harmonize.pcr import write_split
    from harmonize.pcr.questions import write_questions

    dep = shared("gum", "v11.1.0", "dep")
    questions = generate_questions(sorted(dep.glob("GUM_*.conllu"))[:12], "corefud")
    counts = write_split(questions, tmp_path / "split", (2, 1, 1), seed=3, to="pcr4all")
    data = json.loads((tmp_path / "split" / "pcr4all.json").read_text(encoding="utf-8"))
    assert {k: len(v) for k, v in data.items()} == {"train_data": counts["train"], "dev_data": counts["dev"],
                                                  "test_data": counts["test"], "gender_test": 0}
    back = read_set(tmp_path / "split" / "pcr4all.json", "pcr4all")

    def records(items: list) -> list[str]:
        return sorted(json.dumps(q.to_json(), sort_keys=True) for q in items)  # the part is in to_json

    assert records(back) == records(questions) and {q.part for q in back} == {"train", "dev", "test"}
    winogender = read_set(shared("pcr", "winogender", "templates.tsv"), "winogender")
    for question in questions[:5]:
        question.part = ""
    write_questions(winogender + questions[:5], tmp_path / "mixed.json", "pcr4all")
    mixed = json.loads((tmp_path / "mixed.json").read_text(encoding="utf-8"))
    assert len(mixed["gender_test"]) == 480 and len(mixed["test_data"]) == 5 and not mixed["train_data"]
    (tmp_path / "list.json").write_text("[]", encoding="utf-8")
    with pytest.raises(FormatError, match="not PCR4ALL's file"):
        read_set(tmp_path / "list.json", "pcr4all")


def test_the_right_option_is_no_predicate_nominal_where_the_entity_has_another(tmp_path: Path) -> None:
    """"Zaha Hadid was an architect. The museum hired her ...": the question asks about "her" with "Zaha Hadid" as
    the right option, not the predicate "an architect", which is nearer."""
    rows = [  # id form upos head deprel entity
        ("1", "Zaha", "PROPN", "5", "nsubj", "Entity=(e1-person-1"), ("2", "Hadid", "PROPN", "1", "flat", "Entity=e1)"),
        ("3", "was", "AUX", "5", "cop", "_"), ("4", "an", "DET", "5", "det", "Entity=(e1-person-2"),
        ("5", "architect", "NOUN", "0", "root", "Entity=e1)"), ("6", ".", "PUNCT", "5", "punct", "_"),
    ]
    second = [
        ("1", "The", "DET", "2", "det", "Entity=(e2-place-2"), ("2", "museum", "NOUN", "3", "nsubj", "Entity=e2)"),
        ("3", "hired", "VERB", "0", "root", "_"), ("4", "her", "PRON", "3", "obj", "Entity=(e1-person-1)"),
        ("5", ".", "PUNCT", "3", "punct", "_"),
    ]

    def lines(sentence_id: str, words: list) -> str:
        return f"# sent_id = {sentence_id}\n" + "".join(
            f"{i}\t{f}\t_\t{u}\t_\t{'PronType=Prs' if u == 'PRON' else '_'}\t{h}\t{d}\t_\t{m}\n"
            for i, f, u, h, d, m in words) + "\n"

    path = tmp_path / "hadid.conllu"
    path.write_text("# newdoc id = d\n# global.Entity = eid-etype-head-other\n" + lines("s1", rows)
                    + lines("s2", second), encoding="utf-8")
    questions = generate_questions([path], "corefud")
    assert len(questions) == 1 and questions[0].answer_text == "Zaha Hadid"


def test_every_question_is_in_exactly_one_group_of_each_perspective() -> None:
    """Linguistic or knowledge, formal or casual, never both or neither: on generated GUM questions and on every
    shared set the suite reads."""
    questions = generate_questions(sorted(shared("gum", "v11.1.0", "dep").glob("GUM_*.conllu"))[:20], "corefud")
    for path, source in (("wsc/WSCollection.xml", "wsc-xml"), ("winogender/templates.tsv", "winogender"),
                         ("kocijan_wsc_txt/wsc273.txt", "wsc-txt"), ("winogrande_1.1/train_xs.jsonl", "winogrande")):
        questions += read_set(shared("pcr", *path.split("/")), source)
    assert all(q.is_linguistic != q.is_knowledge and q.is_formal != q.is_casual for q in questions)
    assert {q.is_linguistic for q in questions} == {True, False} and {q.is_casual for q in questions} == {True, False}


def test_names_are_no_common_nouns_to_agreement() -> None:
    """"Carmen" is no plural of "-men" and "Susan King" no man (her first name says she is a woman); "the king" is
    a man, and "the women" are plural; a title says a name's gender, an unisex or unlisted name says none."""
    from harmonize.pcr.perspectives import Agreement, from_text

    assert from_text("Carmen") == Agreement("3", "Sing", "Fem") == from_text("Susan King")
    assert from_text("Mr. Hadid").gender == "Masc" and from_text("Dame Zaha Hadid").gender == "Fem"
    assert from_text("Leslie").gender is None and from_text("Hadid").gender is None
    assert from_text("the king").gender == "Masc" and from_text("The King").gender == "Masc"
    assert from_text("the women") == Agreement("3", "Plur", "Fem")


def test_conll2012_options_need_no_tree_and_cataphora_is_asked_on_request() -> None:
    """The OntoNotes sample has POS tags but no dependencies: multi-word mentions are options by their tagged head
    ("these well - known cartoon images"), and PCR4ALL's Table 1 example, a pronoun named only after it in its
    sentence, is a question with ``cataphora`` (counted and skipped without)."""
    from harmonize.pcr.generate import CHOSE_CATAPHORA, HEAD_FROM_TAGS

    path = shared("conll2012", "ontonotes_sample_allennlp", "coref.gold_conll")
    plain_report, report = Report(), Report()
    plain = generate_questions([path], "conll2012", report=plain_report)
    questions = generate_questions([path], "conll2012", report=report, cataphora=True)
    assert report.counts[HEAD_FROM_TAGS] == plain_report.counts[HEAD_FROM_TAGS] > 0
    assert plain_report.counts[CATAPHORA] == report.counts[CHOSE_CATAPHORA] == len(questions) - len(plain) == 1
    (charm,) = [q for q in questions if "unique charm" in q.sentence]
    assert "With _ unique charm , these well - known cartoon images" in charm.sentence
    right = charm.option1 if charm.answer == 1 else charm.option2
    assert right == "these well - known cartoon images" and charm.pronoun == "their" and charm.data_source == "CoNLL"
    assert "Hong Kong" in (charm.option1, charm.option2)
