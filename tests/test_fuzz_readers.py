"""Seeded mutations of real files for every reader, strict and lenient: a reader either reads the file or refuses
it with a HarmonizeError (one line naming file, line and reason, exit 1 on the command line); never another
exception (a traceback, or the command's "internal error") and never a hang.

Each reader's input is a real document: the packaged sample written in the reader's format by harmonize's writer,
or, for the formats harmonize does not write, a real GUM or ECB+ document of the shared data. New readers get the
test by being registered: a reader without a source here fails the completeness check below."""

from __future__ import annotations

import random
import shutil
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from harmonize.converters import formats, get_format
from harmonize.errors import HarmonizeError, Report
from tests.conftest import shared

MUTATIONS_PER_KIND = 20
HANG_GUARD_SECONDS = 20  # a guard against endless loops, not a timing check


def written_sample(fmt: str, folder: Path) -> Path:
    """The packaged sample in format ``fmt``, as harmonize writes it: the path the reader takes."""
    target = get_format(fmt, "write")
    out = folder / f"sample{target.extension}" if target.extension and not target.writes_per_document else folder
    harmonize.convert([sample_path()], "corefud", fmt, out, warn_losses=False)
    return out


def gum_release(folder: Path) -> Path:
    release = shared("gum", "v11.1.0")
    for part, suffix in (("coref_tsv", ".tsv"), ("dep", ".conllu")):
        (folder / part).mkdir(parents=True)
        shutil.copy(release / part / f"GUM_bio_byron{suffix}", folder / part)
    return folder / "coref_tsv" / "GUM_bio_byron.tsv"


def ecbplus_topic(folder: Path) -> Path:
    topic = folder / "1"
    topic.mkdir(parents=True)
    for name in ("1_1ecb.xml", "1_1ecbplus.xml"):
        shutil.copy(shared("ecbplus", "ECB+", "1", name), topic)
    return topic


def plain_text(folder: Path) -> Path:
    folder.mkdir(parents=True)
    path = folder / "notes.txt"
    path.write_text("Dr. Ann Lee met Bo in Paris.  She didn't stay!\n\nThe next day, \"it rained\"... He left.\n",
                    encoding="utf-8")
    return path


SOURCES: dict[str, Callable[[Path], Path]] = {
    "corefud": lambda folder: written_sample("corefud", folder),
    "conll2012": lambda folder: written_sample("conll2012", folder),
    "jsonlines": lambda folder: written_sample("jsonlines", folder),
    "parquet": lambda folder: written_sample("parquet", folder),
    "tei": lambda folder: written_sample("tei", folder),
    "mmax2": lambda folder: written_sample("mmax2", folder),
    "rucoco": lambda folder: written_sample("rucoco", folder),
    "webanno-tsv": lambda folder: written_sample("webanno-tsv", folder),
    "brat": lambda folder: written_sample("brat", folder),
    "xmi": lambda folder: written_sample("xmi", folder),
    "ua": lambda folder: written_sample("ua", folder),
    "text": plain_text,
    "gum": gum_release,
    "ecbplus": ecbplus_topic,
}


def test_every_reader_is_fuzzed() -> None:
    assert {f.name for f in formats() if f.reader is not None} == set(SOURCES)


def mutate(data: bytes, kind: str, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    if kind == "truncate":
        return data[: rng.randrange(len(data))]
    if kind == "flip":
        at = rng.randrange(len(data))
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
    if kind == "delete-line":
        del lines[rng.randrange(len(lines))]
        return b"\n".join(lines)
    if kind == "duplicate-line":
        at = rng.randrange(len(lines))
        lines.insert(at, lines[at])
        return b"\n".join(lines)
    at = rng.randrange(len(data))  # invalid UTF-8
    return data[:at] + b"\xff\xfe\xc3" + data[at:]


@contextmanager
def hang_guard() -> Iterator[None]:
    def stop(_signal: int, _frame: object) -> None:
        raise TimeoutError(f"a reader ran for more than {HANG_GUARD_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(HANG_GUARD_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_mutated_files_are_read_or_refused_in_one_line(fmt: str, tmp_path: Path) -> None:
    pristine = tmp_path / "pristine"
    source = SOURCES[fmt](pristine)
    files = sorted(p for p in ([source] if source.is_file() else source.rglob("*")) if p.is_file())
    reader = get_format(fmt, "read")
    rng = random.Random(f"fuzz:{fmt}")
    failures = []
    for kind in ("truncate", "flip", "delete-line", "duplicate-line", "invalid-utf8"):
        for number in range(MUTATIONS_PER_KIND):
            case = tmp_path / f"{kind}-{number}"
            shutil.copytree(pristine, case)
            victim = case / rng.choice(files).relative_to(pristine)
            victim.write_bytes(mutate(victim.read_bytes(), kind, rng))
            for lenient in (False, True):
                try:
                    with hang_guard():
                        reader.read(case / source.relative_to(pristine), lenient, Report())
                except HarmonizeError as error:
                    assert str(error) and "\n" not in str(error)
                except Exception as error:  # noqa: BLE001 - every other exception is the failure looked for
                    failures.append(f"{kind} of {victim.relative_to(case)} (lenient={lenient}): "
                                    f"{type(error).__name__}: {error}")
            shutil.rmtree(case)
    assert not failures, "\n".join(failures)


def test_what_heavier_fuzzing_found(tmp_path: Path) -> None:
    """Found with 150 mutations per kind: a TEI feature whose name attribute is gone, and lxml messages of two
    lines. Both are one-line errors now."""
    from harmonize.errors import FormatError

    assert "\n" not in str(FormatError("f.xml", 5, "malformed XML: Invalid character\n, line 5, column 79"))
    folder = written_sample("tei", tmp_path / "tei")
    mentions = folder / "sample-1" / "ann_mentions.xml"
    mentions.write_text(mentions.read_text(encoding="utf-8").replace('<f name="', '<f nome="', 1), encoding="utf-8")
    with pytest.raises(HarmonizeError, match="feature without a name"):
        get_format("tei", "read").read(folder, False, Report())
    report = Report()
    get_format("tei", "read").read(folder, True, report)
    assert report.counts["feature without a name (left out)"] == 1
