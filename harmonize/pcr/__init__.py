"""Pronoun binary-choice questions (PCR4ALL): read the WSC-style sets, generate questions from any corpus,
evaluate predictions by perspective, and baseline solvers. ``harmonize pcr ...`` calls these functions."""

from __future__ import annotations

from pathlib import Path

from harmonize.errors import FormatError, Problems, Report
from harmonize.pcr.perspectives import perspectives_from_text
from harmonize.pcr.questions import Question, deduplicate, read_questions, write_questions
from harmonize.pcr.sources import SOURCES

__all__ = ["SOURCES", "Question", "generate_questions", "read_questions", "read_set", "write_questions",
           "write_split"]


def read_set(path: str | Path, source: str, lenient: bool = False, report: Report | None = None,
             options: dict[str, str] | None = None) -> list[Question]:
    """The questions of one WSC-style set file (``source`` a name of `SOURCES`), with PCR4ALL's
    perspectives set and duplicates removed (counted in the report)."""
    report = report if report is not None else Report()
    if source not in SOURCES:
        raise FormatError(str(path), None, f"unknown set {source!r}: one of {', '.join(SOURCES)}")
    path = Path(path)
    if not path.is_file():
        raise FormatError(str(path), None, "no such file")
    questions = SOURCES[source].read(path, Problems(str(path), lenient, report), options or {})
    if source == "pcr4all":
        return questions  # the file's own perspectives and parts, as published (a question may be in two parts)
    return deduplicate((perspectives_from_text(q) for q in questions), report)


# Data source names of PCR4ALL for the corpora it used; other formats use their own name.
_SOURCE_NAMES = {"conll2012": "CoNLL", "gum": "GUM"}


def generate_questions(inputs: list[str | Path], format: str = "corefud", lenient: bool = False,
                       report: Report | None = None, read_options: dict[str, str] | None = None, seed: int = 0,
                       window: int = 2, source: str | None = None, masked: bool = False,
                       balance: bool = True, cataphora: bool = False) -> list[Question]:
    """Questions from coreference corpora (files or folders in ``format``), see `harmonize.pcr.generate`;
    documents whose text is masked are left out and counted unless ``masked``; ``balance``: the distractor before
    or after the right option in the text as the document needs; ``cataphora``: a pronoun whose entity is named
    only after it in its sentence asks about that mention."""
    from harmonize.conversion import input_files, read_corpora
    from harmonize.converters import get_format
    from harmonize.pcr.generate import Settings, generate

    report = report if report is not None else Report()
    reader = get_format(format, "read")
    checked = reader.read_options([f"{key}={value}" for key, value in (read_options or {}).items()])
    # Without a source given, each document's id may say its corpus (a GUM release read as CorefUD): see
    # harmonize.pcr.generate.corpus_source; else the format's PCR4ALL name, else the format.
    settings = Settings(source, seed, window, masked, balance, cataphora, _SOURCE_NAMES.get(format, format))
    questions: list[Question] = []
    for path in input_files([Path(p) for p in inputs], reader):
        for corpus in read_corpora(path, reader, lenient, report, checked):  # a large file a piece at a time
            questions += generate(corpus, settings, report)
            corpus.release()
    return deduplicate(questions, report)


def write_split(questions: list[Question], folder: str | Path, shares: tuple[int, ...] = (8, 1, 1),
                seed: int = 0, to: str = "jsonl") -> dict[str, int]:
    """PCR4ALL's pooled split of ``questions`` (from any sets and corpora, see
    `harmonize.pcr.experiments.pooled_split`) as ``train.jsonl``, ``dev.jsonl``, ``test.jsonl`` (and
    ``gender_test.jsonl``) in ``folder``; ``to="pcr4all"``: PCR4ALL's one file, ``folder/pcr4all.json``."""
    from harmonize.pcr.experiments import pooled_split

    parts = pooled_split(questions, shares, seed)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if to == "pcr4all":
        write_questions([q for part in parts.values() for q in part], folder / "pcr4all.json", to)
        return {name: len(part) for name, part in parts.items()}
    return {name: write_questions(part, folder / f"{name}.jsonl", to) for name, part in parts.items()}
