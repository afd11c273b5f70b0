"""PCR4ALL binary-choice pronoun questions: the record, and reading and writing them as JSON lines.

A question is a text (``sentence``) in which the pronoun is replaced by ``_``, the ``pronoun`` itself (empty where
the source never gave one), two candidates and which of them (1 or 2) the pronoun refers to. PCR4ALL's keys are
kept as they are; harmonize adds where the question comes from (``doc_id``, ``sentence_ids``), character offsets
of the blank and of each option in ``sentence`` (end-exclusive; an option that is not written in the sentence
has none), and ``group``/``variant`` for questions that differ only in the pronoun's gender (WinoGender).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harmonize.errors import FormatError, Problems, Report
from harmonize.io import atomic_write_text

PERSPECTIVES = ("is_linguistic", "is_knowledge", "is_formal", "is_casual", "is_medical", "is_gender_bias")
Offsets = dict[str, list[int]]


@dataclass
class Question:
    sentence: str
    option1: str
    option2: str
    answer: int | None  # None: a source without labels (SuperGLUE WSC test); 3: neither (GAP, kept on request);
    # 0 in predictions: the solver gave none (a resolver with neither or both options in the pronoun's cluster)
    pronoun: str = ""
    data_source: str = ""
    is_linguistic: bool = False
    is_knowledge: bool = False
    is_formal: bool = False
    is_casual: bool = False
    is_medical: bool = False
    is_gender_bias: bool = False
    doc_id: str = ""
    sentence_ids: list[str] = field(default_factory=list)
    offsets: Offsets = field(default_factory=dict)
    group: str = ""  # questions that differ only in the pronoun's gender share one (WinoGender)
    variant: str = ""  # male / female / neutral
    part: str = ""  # train, dev, test or gender_test: the part of a split (PCR4ALL's file) it belongs to

    @property
    def key(self) -> tuple[str | None, ...]:
        """What makes two questions the same question (duplicates are removed on this): the options in either
        order, the pronoun (WinoGender's variants differ only there)."""
        return (self.sentence, self.pronoun, *sorted((self.option1, self.option2)), self.answer_text)

    @property
    def blank(self) -> tuple[int, int] | None:
        """[start, end) of the pronoun's ``_`` in ``sentence``: where ``offsets`` says, else the first ``_`` (a
        set's question without offsets); None where the sentence has none."""
        span = self.offsets.get("pronoun")
        if span is None or self.sentence[span[0]:span[1]] != "_":
            span = blank_offset(self.sentence)
        return None if span is None else (span[0], span[1])

    @property
    def answer_text(self) -> str | None:
        """The right option's text; None without a label or where neither is right."""
        return (self.option1, self.option2)[self.answer - 1] if self.answer in (1, 2) else None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "sentence": self.sentence, "pronoun": self.pronoun, "option1": self.option1, "option2": self.option2,
            "answer": self.answer, "data_source": self.data_source,
            **{name: getattr(self, name) for name in PERSPECTIVES},
        }
        for name in ("doc_id", "sentence_ids", "offsets", "group", "variant", "part"):
            if getattr(self, name):
                record[name] = getattr(self, name)
        return record

    def to_winogrande(self, number: int) -> dict[str, Any]:
        """WinoGrande's own keys: ``answer`` a string, an id per question: a WinoGrande question's own ``qID``
        (kept in ``doc_id`` when read), else one made from the source and ``number``."""
        own = self.doc_id if self.data_source == "WinoGrande" and self.doc_id else None
        return {"qID": own or f"{self.data_source or 'q'}-{number}", "sentence": self.sentence, "option1": self.option1,
                "option2": self.option2, "answer": "" if self.answer is None else str(self.answer)}


def blank_offset(sentence: str) -> list[int] | None:
    """[start, end) of the one ``_`` that stands for the pronoun: a ``_`` standing alone (WinoGrande's blank may
    touch punctuation: ``_'s``)."""
    at = sentence.find("_")
    return None if at < 0 else [at, at + 1]


def _question(record: Any, where: str) -> Question:
    if not isinstance(record, dict):
        raise TypeError("not a JSON object")
    missing = [key for key in ("sentence", "option1", "option2", "answer") if key not in record]
    if missing:
        raise ValueError(f"missing key(s): {', '.join(missing)}")
    answer = record["answer"]
    if isinstance(answer, str) and answer.strip() in ("0", "1", "2"):
        answer = int(answer)
    if isinstance(answer, str) and answer.strip() == "3":
        answer = 3
    if answer not in (0, 1, 2, 3, None, ""):
        raise ValueError(f"answer {answer!r} is not 1, 2 (or 3: neither; 0: a prediction without one)")
    for key in ("sentence", "option1", "option2"):
        if not isinstance(record[key], str):
            raise TypeError(f"{key} is not a string")
    question = Question(record["sentence"], record["option1"], record["option2"], None if answer == "" else answer,
                        str(record.get("pronoun", "")), str(record.get("data_source", "")))
    for name in PERSPECTIVES:
        setattr(question, name, bool(record.get(name, False)))
    question.doc_id = str(record.get("doc_id", ""))
    question.sentence_ids = list(record.get("sentence_ids", []))
    question.offsets = dict(record.get("offsets", {}))
    question.group, question.variant = str(record.get("group", "")), str(record.get("variant", ""))
    question.part = str(record.get("part", ""))
    return question


def read_questions(path: str | Path, lenient: bool = False, report: Report | None = None) -> list[Question]:
    """Questions from a JSON-lines file (PCR4ALL keys or WinoGrande's, ``answer`` "1"/"2" or 1/2)."""
    report = report if report is not None else Report()
    problems = Problems(str(path), lenient, report)
    questions = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            questions.append(_question(json.loads(line), f"{path}:{number}"))
        except (ValueError, TypeError) as error:  # json.JSONDecodeError is a ValueError
            problems(number, f"not a question: {error}", line[:80])
    return questions


# How questions are written: one JSON object per line with PCR4ALL's keys and ours ("jsonl"), WinoGrande's keys
# ("winogrande"), or PCR4ALL's own file: one JSON object of four lists, a list per part ("pcr4all").
QUESTION_FORMATS = ("jsonl", "winogrande", "pcr4all")
# The parts of PCR4ALL's file, by our part names.
PCR4ALL_PARTS = {"train": "train_data", "dev": "dev_data", "test": "test_data", "gender_test": "gender_test"}


def iter_lines(questions: Iterable[Question], to: str = "jsonl") -> Iterator[str]:
    for number, question in enumerate(questions, 1):
        record = question.to_winogrande(number) if to == "winogrande" else question.to_json()
        yield json.dumps(record, ensure_ascii=False)


def pcr4all_part(question: Question) -> str:
    """The part of PCR4ALL's file a question goes into: its own, else gender_test for the gender-bias sets (as the
    paper keeps them apart), else test."""
    return question.part or ("gender_test" if question.is_gender_bias else "test")


def write_questions(questions: Iterable[Question], path: str | Path, to: str = "jsonl") -> int:
    """The questions in one of `QUESTION_FORMATS`; returns how many."""
    if to not in QUESTION_FORMATS:
        raise FormatError(str(path), None, f"unknown question format {to!r} ({', '.join(QUESTION_FORMATS)})")
    if to == "pcr4all":
        parts: dict[str, list[dict[str, Any]]] = {key: [] for key in PCR4ALL_PARTS.values()}
        count = 0
        for question in questions:
            record = question.to_json()
            record.pop("part", None)  # the list it is in says it
            parts[PCR4ALL_PARTS[pcr4all_part(question)]].append(record)
            count += 1
        atomic_write_text(Path(path), json.dumps(parts, ensure_ascii=False) + "\n")
        return count
    lines = list(iter_lines(questions, to))
    atomic_write_text(Path(path), "".join(f"{line}\n" for line in lines))
    return len(lines)


def read_pcr4all_file(path: Path, problems: Problems) -> list[Question]:
    """PCR4ALL's file: one JSON object whose ``train_data``, ``dev_data``, ``test_data`` and ``gender_test`` are
    lists of questions; each question keeps its part (``Question.part``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise FormatError(str(path), getattr(error, "lineno", None), f"not JSON: {error}") from None
    if not isinstance(data, dict) or not set(data) & set(PCR4ALL_PARTS.values()):
        raise FormatError(str(path), None, f"not PCR4ALL's file: an object of {', '.join(PCR4ALL_PARTS.values())}")
    unknown = sorted(set(data) - set(PCR4ALL_PARTS.values()))
    if unknown:
        problems.report.add("PCR4ALL file: keys that are no part left out", str(path), len(unknown))
    questions = []
    for part, key in PCR4ALL_PARTS.items():
        records = data.get(key, [])
        if not isinstance(records, list):
            problems(None, f"{key} is not a list")
            continue
        for number, record in enumerate(records, 1):
            try:
                question = _question(record, f"{key} {number}")
            except (ValueError, TypeError) as error:
                problems(None, f"not a question: {error}", f"{key} record {number}")
                continue
            question.part = part
            questions.append(question)
    return questions


def deduplicate(questions: Iterable[Question], report: Report) -> list[Question]:
    seen: set[tuple] = set()
    kept = []
    for question in questions:
        if question.key in seen:
            report.add("duplicate question removed", question.sentence[:80])
            continue
        seen.add(question.key)
        kept.append(question)
    return kept
