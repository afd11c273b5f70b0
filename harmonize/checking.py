"""`harmonize check`: is a file well formed, as its format's validator would say? Each error as ``file:line:
reason``, nothing changed, nothing written.

Any format harmonize reads is checked through its reader, read leniently so that every broken annotation is found
and not only the first (each is the `FormatError` a strict read raises). CorefUD files get the structural checks
of CorefUD's validator (``udvalidate --level 2 --coref``) besides, on their lines: sentence ids unique in the file,
word ids 1, 2, 3... in each sentence, empty node ids numbered from 1 after their word, multiword token ranges over
words of their sentence that no other range covers. The reader checks the coreference itself: brackets balanced and
nested as allowed, entity ids and ``# global.Entity``, heads inside their mentions, split antecedents and bridges
on mentions that exist.

Not checked (udvalidate's higher levels): the tree (one root, no cycles), the UD tag sets, the language's features.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harmonize.errors import FormatError, HarmonizeError, Report

_WORD = re.compile(r"^(\d+)\t")
_EMPTY = re.compile(r"^(\d+)\.(\d+)\t")
_RANGE = re.compile(r"^(\d+)-(\d+)\t")


@dataclass
class FileCheck:
    """One file's verdict: ``errors`` in file order (none: well formed), ``documents`` read."""

    path: str
    format: str
    errors: list[FormatError] = field(default_factory=list)
    documents: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors


def check(inputs: Sequence[str | Path], source: str | None = None) -> list[FileCheck]:
    """Check every input file (folders are searched for the format's files); ``source``: their format (default:
    detected). A file that cannot be read at all has that one error."""
    from harmonize.conversion import input_files
    from harmonize.converters import get_format
    from harmonize.converters.detect import detect_format

    paths = [Path(p) for p in inputs]
    source = source or detect_format(paths)
    reader = get_format(source, "read")
    results = []
    for path in input_files(paths, reader):
        result = FileCheck(str(path), source)
        report = Report()
        try:
            result.documents = len(reader.read(path, True, report, {}).documents)
        except FormatError as error:  # what even a lenient read cannot skip
            report.problems.append(error)
        except (OSError, UnicodeDecodeError) as error:
            raise HarmonizeError(f"{path}: cannot be read: {error}") from error
        errors = list(report.problems)
        if source == "corefud" and path.is_file():
            errors.extend(conllu_structure(str(path), path.read_text(encoding="utf-8-sig").splitlines()))
        result.errors = sorted(_unique(errors), key=lambda e: (e.line is None, e.line or 0))
        results.append(result)
    return results


def conllu_structure(path: str, lines: Iterable[str]) -> Iterator[FormatError]:
    """The CoNLL-U structure the CorefUD reader does not stop at: unique sentence ids, word ids in order, empty
    node ids, multiword token ranges."""
    seen_ids: dict[str, int] = {}
    sentence: list[tuple[int, str]] = []
    for number, line in enumerate([*lines, ""], 1):
        if line.startswith("# sent_id"):
            sentence_id = line.partition("=")[2].strip()
            if sentence_id in seen_ids:
                yield FormatError(path, number, f"sentence id {sentence_id!r} not unique (also on line "
                                                f"{seen_ids[sentence_id]})")
            else:
                seen_ids[sentence_id] = number
        elif not line.strip():
            yield from _sentence_ids(path, sentence)
            sentence = []
        elif not line.startswith("#"):
            sentence.append((number, line))


def _sentence_ids(path: str, lines: list[tuple[int, str]]) -> Iterator[FormatError]:
    words = [(n, int(m[1])) for n, line in lines if (m := _WORD.match(line))]
    for expected, (number, word) in enumerate(words, 1):
        if word != expected:
            yield FormatError(path, number, f"word id {word} where {expected} comes next")
            break
    last = len(words)
    covered: set[int] = set()
    after: dict[int, int] = {}  # word -> the number of its last empty node so far
    for number, line in lines:
        if (m := _RANGE.match(line)) is not None:
            first, end = int(m[1]), int(m[2])
            if not first < end or end > last:
                yield FormatError(path, number, f"multiword token {first}-{end} is no range over the sentence's "
                                                f"words (1-{last})")
            elif covered & set(range(first, end + 1)):
                yield FormatError(path, number, f"multiword token {first}-{end} overlaps another")
            covered |= set(range(first, end + 1))
        elif (m := _EMPTY.match(line)) is not None:
            word, minor = int(m[1]), int(m[2])
            if word > last:
                yield FormatError(path, number, f"empty node {word}.{minor} after a word the sentence lacks")
            elif minor != after.get(word, 0) + 1:
                yield FormatError(path, number, f"empty node {word}.{minor} where {word}.{after.get(word, 0) + 1} "
                                                "comes next")
            after[word] = minor


def _unique(errors: Iterable[FormatError]) -> list[FormatError]:
    seen: set[tuple[int | None, str]] = set()
    kept = []
    for error in errors:
        if (error.line, error.reason) not in seen:
            seen.add((error.line, error.reason))
            kept.append(error)
    return kept
