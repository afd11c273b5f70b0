"""harmonize diff: Kummerfeld & Klein's classification on one hand-made case per error type, on the analyser's own
sample (equal counts), as a property (the listed operations turn the response into the key), through the command
line, and its page in a real browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harmonize import diff
from harmonize.error_analysis import diff_corpora
from harmonize.error_analysis.classify import ERRORS, OPERATIONS, Clustering, apply_operations, classify
from harmonize.error_analysis.cost import CORRECTION_ORDER, corrected
from harmonize.error_analysis.files import read_side
from harmonize.error_analysis.heads import NOMINAL, PRONOUN, Head, parse_bits_tree
from harmonize.error_analysis.render import render_partition, write_pages
from harmonize.schemas.model import Corpus, Document, Node, Sentence
from tests.conftest import shared

WORDS = ["the", "big", "dog", "saw", "a", "cat", "and", "it", "ran", "to", "the", "old", "barn", "near", "Rome", "where", "he", "slept"]
PRONOUNS = {"it", "he", "where"}


def document(clusters: list[list[tuple[int, int]]]) -> Document:
    """One sentence of WORDS; each cluster a list of [start, end) spans."""
    doc = Document(id="d1")
    sentence = doc.add_sentence(Sentence(id="s1"))
    for number, word in enumerate(WORDS, 1):
        upos = "PRON" if word in PRONOUNS else "PROPN" if word == "Rome" else "DET" if word in ("the", "a") \
            else "NOUN"
        sentence.add_node(Node(str(number), word, upos=upos))
    for cluster in clusters:
        entity = doc.new_entity()
        for start, end in cluster:
            doc.add_mention(entity, sentence.nodes[start:end])
    return doc


def counts(key: list[list[tuple[int, int]]], response: list[list[tuple[int, int]]]) -> tuple[dict, dict]:
    result = diff_corpora(Corpus([document(key)]), Corpus([document(response)]))
    return result.operations, {name: n for name, n in result.errors.items() if n}


DOG, IT, CAT, BARN, ROME, HE = (1, 3), (7, 8), (4, 6), (10, 13), (14, 15), (16, 17)


def test_a_span_error() -> None:
    """"the big dog" where the key has "big dog": the leading "the" differs."""
    operations, errors = counts([[DOG, IT]], [[(0, 3), IT]])
    assert errors == {"span error": 1} and operations["correct span"] == 1


def test_conflated_entities() -> None:
    operations, errors = counts([[DOG, IT], [CAT, BARN]], [[DOG, IT, CAT, BARN]])
    assert errors == {"conflated entities": 1}
    assert operations == {**dict.fromkeys(OPERATIONS, 0), "split from cluster": 2, "merge into cluster": 0}


def test_divided_entity() -> None:
    operations, errors = counts([[DOG, IT, BARN, HE]], [[DOG, IT], [BARN, HE]])
    assert errors == {"divided entity": 1} and operations["merge into cluster"] == 2


def test_extra_mention() -> None:
    operations, errors = counts([[DOG, IT]], [[DOG, IT, CAT]])
    assert errors == {"extra mention": 1}
    # the response cluster is cut in two (its part in the key's cluster, and "a cat"), and "a cat" removed
    assert (operations["split from cluster"], operations["remove mention"]) == (2, 1)


def test_extra_entity() -> None:
    operations, errors = counts([[DOG, IT]], [[DOG, IT], [CAT, BARN]])
    assert errors == {"extra entity": 1} and operations["remove mention"] == 2


def test_missing_mention() -> None:
    operations, errors = counts([[DOG, IT, HE]], [[DOG, IT]])
    assert errors == {"missing mention": 1}
    # "he" introduced; both pieces ({dog, it} and {he}) merged into the key's cluster
    assert (operations["introduce mention"], operations["merge into cluster"]) == (1, 2)


def test_missing_entity() -> None:
    operations, errors = counts([[DOG, IT], [BARN, ROME]], [[DOG, IT]])
    assert errors == {"missing entity": 1} and operations["introduce mention"] == 2


def test_a_cluster_of_pronouns_alone_is_a_missing_entity_not_a_missing_mention() -> None:
    """The response has only "it" of the key's {dog, it, he}: what it lacks is an entity (the paper's rule: all
    present mentions are pronouns)."""
    _operations, errors = counts([[DOG, IT, HE]], [[IT, (15, 16)]])
    assert errors["missing entity"] == 1 and "missing mention" not in errors


def kummerfeld_pair(tmp_path: Path) -> tuple[Path, Path]:
    """The sample's key (the gold files only; the folder also holds automatic parses of the same documents) and
    the system output."""
    sample = shared("conll2012", "kummerfeld_sample")
    key = tmp_path / "key"
    key.mkdir()
    for gold in (sample / "gold" / "nw" / "wsj" / "00").glob("*_gold_conll"):
        shutil.copy(gold, key)
    return key, sample / "stanford_response.conll"


def reference_summary() -> dict[str, int]:
    text = (shared("conll2012", "kummerfeld_sample") / "reference_summary.txt").read_text(encoding="utf-8")
    return {name.lower(): int(count) for count, name in re.findall(r"^\s*(\d+)\s+(.+?)\s*$", text, re.MULTILINE)}


def test_counts_equal_the_analysers_on_its_sample(tmp_path: Path) -> None:
    key, response = kummerfeld_pair(tmp_path)
    result = diff(key, response, "conll2012")
    reference = reference_summary()
    assert result.operations == {name: reference[name] for name in OPERATIONS}
    assert result.errors == {name: reference[name] for name in ERRORS}
    assert result.heads == {"constituency parse": sum(result.heads.values())}  # the gold parses, as the tool
    final = result.cost.to_json()["cumulative"][-1]
    assert final["after"] == "missing entity" and final["conll"] == 100.0


def test_collins_heads_from_parse_bits() -> None:
    bits = ["(TOP(S(NP(NP*", "*)", "(PP*", "(NP*", "*)))", "(VP*)", "*))"]
    tags = ["NNP", "POS", "IN", "DT", "NN", "VBD", "."]
    words = ["Bob", "'s", "of", "the", "house", "slept", "."]
    tree = parse_bits_tree(bits, tags, words)
    assert tree is not None and tree.label == "TOP"
    np = tree.children[0].children[0]
    assert (np.start, np.end, np.label) == (0, 5, "NP") and np.head is not None
    assert np.children[0].head.word == "'s"  # an NP ending in POS is headed by it (the analyser's rule)
    assert tree.children[0].head.word == "slept"
    assert parse_bits_tree(["(TOP*", "*"], ["NN", "NN"], ["a", "b"]) is None  # not closed: no tree


class Facts:
    """Mentions of one sentence of 30 words "w0".."w29"; heads are last words; w0..w4 are pronouns."""

    def sentence_words(self, mention):
        return [f"w{i}" for i in range(30)]

    def head(self, mention):
        return Head(mention[3] - 1, f"w{mention[3] - 1}", "", "", "last word")

    def head_key(self, mention):
        return mention[:2] + (mention[3] - 1,)

    def mention_type(self, mention):
        return PRONOUN if mention[3] - mention[2] == 1 and mention[2] < 5 else NOMINAL

    def head_is_pronoun(self, mention):
        return mention[3] - 1 < 5


spans = st.tuples(st.integers(0, 28), st.integers(1, 3)).map(lambda p: (0, 0, p[0], min(30, p[0] + p[1])))
clusterings = st.lists(st.tuples(spans, st.integers(0, 4)), max_size=14).map(
    lambda pairs: Clustering.of(((cluster, [m for m, c in pairs if c == cluster]) for cluster in range(5)), True))


@settings(max_examples=300, deadline=None)
@given(clusterings, clusterings, st.booleans())
def test_the_listed_operations_turn_the_response_into_the_key(key: Clustering, response: Clustering,
                                                              singletons: bool) -> None:
    if not singletons:
        key = Clustering.of(key.clusters.items(), False)
        response = Clustering.of(response.clusters.items(), False)
    facts = Facts()
    result = classify(key, response, facts)
    goal = {frozenset(c) for c in key.clusters.values()}
    assert apply_operations(response, result.operation_list) == goal
    # Correcting every error type in the paper's order gives the key's clusters too; what may be left besides are
    # extra mentions the paper's rules do not count (one that was its response cluster's first non-pronoun mention
    # anchors the cluster and is not split off), in clusters of their own.
    assignment = corrected(result, key, facts, CORRECTION_ORDER)
    made: dict = {}
    for mention, cluster in assignment.items():
        made.setdefault(cluster, set()).add(mention)
    assert {frozenset(c) for c in made.values() if c & set(key.cluster_of)} == goal
    assert all(c <= set(key.cluster_of) or not c & set(key.cluster_of) for c in made.values())
    assert sum(result.operations.values()) >= len([e for e in result.errors if e.type != "span error"])


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harmonize", "diff", *map(str, args)], capture_output=True,
                          text=True, check=False)


def test_the_command_prints_writes_json_and_pages(tmp_path: Path) -> None:
    key, response = kummerfeld_pair(tmp_path)
    done = run(key, response, "--format", "conll2012", "--json", tmp_path / "d.json", "-o", tmp_path / "pages")
    assert done.returncode == 0, done.stderr
    assert "38   conflated entities" in done.stdout and "missing entity" in done.stdout
    figures = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert set(figures) >= {"operations", "errors", "documents", "cost", "heads"}
    assert set(figures["operations"]) == set(OPERATIONS) and set(figures["errors"]) == set(ERRORS)
    assert len(figures["documents"]) == 2 and figures["documents"][0]["error list"][0]["mentions"]
    assert "index.html" in {p.name for p in (tmp_path / "pages").iterdir()}


def test_the_command_refuses_what_score_refuses(tmp_path: Path) -> None:
    key, response = kummerfeld_pair(tmp_path)
    broken = tmp_path / "broken.conll"
    lines = response.read_text(encoding="utf-8").splitlines(keepends=True)
    broken.write_text("".join(line.replace("\tThe\t", "\tA\t", 1) if i == 1 else line
                              for i, line in enumerate(lines)), encoding="utf-8")
    done = run(key, broken, "--format", "conll2012")
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "key has 'The'" in done.stderr
    assert run(key, response, "--format", "conll2012", "--match", "fuzzy").returncode == 1


def test_documents_on_one_side_are_listed(tmp_path: Path) -> None:
    key, response = kummerfeld_pair(tmp_path)
    only_gold = read_side(key, "conll2012")
    result = diff_corpora(only_gold, Corpus(read_side(response, "conll2012").documents[:1]))
    assert len(result.partitions) == 1 and len(result.only_in_key) == 1 and not result.only_in_response


def test_partial_matching_takes_matched_mentions_as_the_keys() -> None:
    key, response = document([[(1, 3), IT]]), document([[(2, 3), IT]])
    for sentence in (key.sentences[0], response.sentences[0]):
        for node in sentence.nodes:
            node.head, node.deprel = ("0", "root") if node.id == "3" else ("3", "dep")
    exact = diff_corpora(Corpus([key]), Corpus([response]), matching="exact")
    partial = diff_corpora(Corpus([key]), Corpus([response]), matching="partial")
    default = diff_corpora(Corpus([key]), Corpus([response]))
    assert exact.errors["span error"] == 1  # "dog" for "big dog": same head
    assert sum(partial.errors.values()) == 0 and partial.partitions[0].matched == 1
    assert default.matching == "head" and sum(default.errors.values()) == 0  # the scorer's default since 1.1


def test_under_head_matching_a_mention_whose_words_differ_is_named_key_first(tmp_path: Path) -> None:
    """GUM's academic_exposure with a tenth of its mentions a word longer (heads kept): head matching (the default)
    finds no error but lists each such mention, the key's words and the response's labelled, exactly those that
    exact matching counts as span errors; the span errors' lines say which side is which."""
    import random

    import harmonize
    from harmonize.error_analysis.render import summary_table
    from tests.perturb import extend_by_a_word

    source = shared("gum", "v11.1.0", "dep", "GUM_academic_exposure.conllu")
    extended = harmonize.read(source)
    rng = random.Random(1)
    extend_by_a_word(extended.documents[0], lambda m: rng.random() < 0.1)
    by_head = diff_corpora(harmonize.read(source), extended)
    exact = diff_corpora(harmonize.read(source), extended, matching="exact")
    differences = by_head.span_differences
    assert by_head.errors["span error"] == 0 and len(differences) == exact.errors["span error"] > 0
    assert all(len(d["response"]["words"]) == len(d["key"]["words"]) + 1 for d in differences)
    first = differences[0]
    assert f"key {first['key']['text']!r} | response {first['response']['text']!r}" in summary_table(by_head)
    assert by_head.to_json()["documents"][0]["span differences"] == differences
    assert "mentions matched by" not in summary_table(exact)
    page = render_partition(exact.partitions[0])
    assert f"response «{first['response']['text']}» → key «{first['key']['text']}»" in page
    assert f"key «{first['key']['text']}» · response «{first['response']['text']}»" in render_partition(
        by_head.partitions[0])


def test_the_page_works_in_a_real_browser(tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian chromium is not installed (apt-get install chromium): the browser check needs it")
    key, response = kummerfeld_pair(tmp_path)
    result = diff(key, response, "conll2012")
    page = tmp_path / "one.html"
    html = render_partition(result.partitions[0])
    page.write_text(html, encoding="utf-8")
    assert not re.search(r"(src|href)=\"?(https?:)?//", html)  # nothing from another host
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
             "--enable-logging=stderr", "--v=0"]
    done = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, check=False,
                          timeout=120)
    dom = done.stdout
    errors = result.partitions[0].classification.errors
    assert dom.count('<li data-type="') == len(errors) > 0
    assert dom.count('class="k"') > 0 and dom.count('class="r"') > 0  # both annotations
    assert "Uncaught" not in done.stderr and "SyntaxError" not in done.stderr
    written = write_pages(result, tmp_path / "pages")
    assert len(written) == 3


def test_cross_document_entities_are_compared_across_the_documents_of_a_topic() -> None:
    """ECB+ topic 1 against itself with every entity made document-local: per document nothing differs; per topic
    the chains the documents share are divided entities."""
    topic = shared("ecbplus", "ECB+", "1")
    key = read_side(topic, "ecbplus")
    response = read_side(topic, "ecbplus")
    for document in response.documents:
        for entity in document.entities:
            entity.id = f"{document.id}:{entity.id}"
    assert sum(diff_corpora(key, response).errors.values()) == 0
    across = diff_corpora(key, response, cross_document="topic")
    assert len(across.partitions) == 1 and across.errors["divided entity"] > 0
    assert set(across.errors) == set(ERRORS) and across.errors["conflated entities"] == 0
    assert across.cost.to_json()["cumulative"][-1]["conll"] == 100.0
