"""`harmonize compare`: a conversion against a reference, whatever the layouts of the two sides."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from harmonize.converters.conll2012 import read_conll2012
from harmonize.scoring.compare import compare_corpora

# The official OntoGUM layout: no document name in the header, no sentence breaks.
REFERENCE = "# begin document \n0\tJohn\t(1)\n1\tsaw\t_\n2\thim\t(1)\n3\t.\t_\n4\tHe\t(2)\n5\tleft\t(2)\n6\t.\t_\n# end document\n"
# Ours in the OntoNotes layout: a named part, two sentences.
OURS = (
    "#begin document (GUM_news_x); part 000\n"
    "GUM_news_x\t0\t0\tJohn\tNNP\t*\t-\t-\t-\t-\t*\t(1)\n"
    "GUM_news_x\t0\t1\tsaw\tVBD\t*\t-\t-\t-\t-\t*\t-\n"
    "GUM_news_x\t0\t2\thim\tPRP\t*\t-\t-\t-\t-\t*\t(1)\n"
    "GUM_news_x\t0\t3\t.\t.\t*\t-\t-\t-\t-\t*\t-\n"
    "\n"
    "GUM_news_x\t0\t0\tHe\tPRP\t*\t-\t-\t-\t-\t*\t(1)\n"
    "GUM_news_x\t0\t1\tleft\tVBD\t*\t-\t-\t-\t-\t*\t-\n"
    "GUM_news_x\t0\t2\t.\t.\t*\t-\t-\t-\t-\t*\t-\n"
    "\n"
    "#end document\n"
)


def test_documents_meet_across_layouts_and_spans_by_position(tmp_path: Path) -> None:
    (tmp_path / "GUM_news_x.conll").write_text(REFERENCE, encoding="utf-8")
    (tmp_path / "ours.conll").write_text(OURS, encoding="utf-8")
    result = compare_corpora(read_conll2012(tmp_path / "ours.conll"), read_conll2012(tmp_path / "GUM_news_x.conll"))
    assert (result.only_ours, result.only_reference, result.token_differences) == ([], [], [])
    news, overall = result.groups
    assert (news.name, news.documents, news.same_tokens) == ("news", 1, 1)
    # Key {John, him} {He, left}; response {John, him, He}: 3 of 4 mentions found, all 3 right.
    assert (overall.mention_precision, overall.mention_recall) == (1.0, 0.75)
    # MUC 1/2 both ways; B3 recall 5/8, precision 5/9 (F1 10/17); CEAF-e recall 2/5, precision 4/5 (F1 8/15).
    conll = (Fraction(1, 2) + Fraction(10, 17) + Fraction(8, 15)) / 3
    assert abs(overall.conll - float(conll)) < 1e-12
