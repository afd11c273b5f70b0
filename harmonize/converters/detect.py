"""Which format an input is in, where ``--from`` is left out: from its name first, then from its first lines where
names are shared (a ``.conllu`` that declares UA's columns, a scorer's ``.key`` in CoNLL-2012 or CoNLL-UA), and for
a folder from what it holds (a GUM release, Parquet tables, MMAX2 projects, TEI documents, files of one format).
One answer, or one error that names the candidates (or says that no reader takes it)."""

from __future__ import annotations

from pathlib import Path

from harmonize.converters.registry import formats, formats_for
from harmonize.errors import HarmonizeError

# Bytes of a file's start read to tell formats that share a name apart.
_SNIFF_BYTES = 4096


def _start(path: Path) -> str:
    with open(path, "rb") as handle:
        return handle.read(_SNIFF_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff")


def candidates(path: Path) -> list[str]:
    """The formats whose reader takes ``path``, narrowed by its content where names are shared."""
    if path.is_dir():
        return _folder_candidates(path)
    found = [fmt.name for fmt in formats() if fmt.reader is not None and fmt.extension and fmt.takes(path)]
    if path.suffix == ".txt" and path.with_suffix(".ann").is_file():
        return ["brat"]  # brat's text beside its annotation
    if len(found) <= 1:
        return found
    start = _start(path)
    if {"ua", "conll2012"} <= set(found) or {"ua", "corefud"} <= set(found):
        if "#begin document" in start:
            return ["conll2012"]
        if "# global.columns" in start and "IDENTITY" in start:
            return ["ua"]
    if "webanno-tsv" in found and "gum" in found:
        return ["webanno-tsv"]  # one TSV file: GUM's reader takes a release, with its trees beside
    return found


def _folder_candidates(folder: Path) -> list[str]:
    if (folder / "dep").is_dir() and ((folder / "coref_tsv").is_dir() or (folder / "splits.md").is_file()
                                      or (folder / "coref" / "gum" / "tsv").is_dir()):
        return ["gum"]
    found = formats_for(folder)
    if "parquet" in found:
        return ["parquet"]
    if "brat" in found and "text" in found and all(text.with_suffix(".ann").is_file()
                                                   for text in folder.rglob("*.txt")):
        found.remove("text")  # the texts are brat's, beside their annotation
    if "gum" in found and "webanno-tsv" in found:
        found.remove("gum")  # TSV files without a release around them
    return found


def detect_format(inputs: list[Path]) -> str:
    """The one format all ``inputs`` are in (see the module); an error naming the candidates otherwise."""
    if not inputs:
        raise HarmonizeError("no INPUT given: nothing to detect a format from")
    chosen: dict[str, list[Path]] = {}
    for path in inputs:
        if not path.exists():
            raise HarmonizeError(f"{path}: no such file or folder")
        found = candidates(path)
        if not found:
            raise HarmonizeError(f"{path}: no reader takes it (`harmonize formats` lists them); give --from")
        if len(found) > 1:
            raise HarmonizeError(f"{path}: it could be {' or '.join(found)}: give --from")
        chosen.setdefault(found[0], []).append(path)
    if len(chosen) > 1:
        kinds = "; ".join(f"{name}: {', '.join(str(p) for p in paths[:3])}" for name, paths in chosen.items())
        raise HarmonizeError(f"the inputs are in several formats ({kinds}): convert them one format at a time")
    return next(iter(chosen))


def other_format_files(folder: Path, reading: str) -> dict[str, list[Path]]:
    """The files under ``folder`` that the reader of ``reading`` does not take and another reader does, by format:
    what a folder of mixed files would otherwise skip without a word."""
    from harmonize.converters import get_format

    reader = get_format(reading, "read")
    if not reader.extension:
        return {}  # a reader of folders (TEI) takes what it takes
    taken = set(reader.inputs_in(folder))
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_dir() or path.name.startswith(".") or path in taken or reader.takes(path):
            continue
        for name in candidates(path):
            if name != reading and not (reading == "brat" and name in ("text", "brat")):
                found.setdefault(name, []).append(path)
                break
    return found
