"""The CoNLL-2012 reader (coreference columns): layouts, bracket forms and errors with file and line."""

from __future__ import annotations

import pytest

from harmonize.converters.conll2012 import parse_conll2012
from harmonize.errors import FormatError, Report


def spans(text: str) -> list[tuple[str, str]]:
    document = parse_conll2012(text).documents[0]
    return sorted((m.entity.id, m.text) for m in document.mentions)


def test_ontonotes_scorer_and_ontogum_layouts() -> None:
    ontonotes = "#begin document (bc/cctv/00/cctv_0001); part 000\nbc/cctv 0 0 John NNP - - - - * (1)\n\n#end document\n"
    document = parse_conll2012(ontonotes).documents[0]
    assert (document.id, document.genre, spans(ontonotes)) == ("bc/cctv/00/cctv_0001", "bc", [("1", "John")])
    assert parse_conll2012(ontonotes.replace("part 000", "part 002")).documents[0].id == "bc/cctv/00/cctv_0001/part 002"
    ontogum = "# begin document \n0\tMary\t(3)\n1\tslept\t_\n# end document\n"
    corpus = parse_conll2012(ontogum, "GUM_bio_mary.conll")
    assert (corpus.documents[0].id, corpus.documents[0].genre) == ("GUM_bio_mary", "bio")


def test_bracket_forms_nested_chained_and_piped() -> None:
    text = "#begin document (d);\na\t(1(2\nb\t2)|(3)\nc\t1)\n#end document\n"
    assert spans(text) == [("1", "a b c"), ("2", "a b"), ("3", "b")]


@pytest.mark.parametrize("text,line,reason", [
    ("#begin document (d);\na\t(1\n\nb\t1)\n#end document\n", 2, "mention not closed within its sentence"),
    ("#begin document (d);\na\t(1))\n#end document\n", 2, "malformed coreference"),
    ("#begin document (d);\na\t1)\n#end document\n", 2, "closing bracket without an open mention"),
    ("#begin document (d);\na\t(1)\n", 1, "#begin document without #end document"),
    ("a\t(1)\n", 1, "token outside a document"),
])
def test_malformed_input_names_line_and_reason(text: str, line: int, reason: str) -> None:
    with pytest.raises(FormatError) as raised:
        parse_conll2012(text, "bad.conll")
    assert (raised.value.path, raised.value.line) == ("bad.conll", line)
    assert raised.value.reason.startswith(reason)
    report = Report()
    parse_conll2012(text, "bad.conll", lenient=True, report=report)
    assert report.counts[reason] == 1
