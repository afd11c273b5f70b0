"""What a release's cache knows (``RELEASE/.cache/``): a corpus task's key (its inputs as listed, its recipe
entry, the outputs asked for, harmonize's version), the files its reader opened with their checksums, and whether
a finished task's summary still holds. Below the builder (`harmonize.releases`) and its tasks, which both use it."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from harmonize.releases.recipe import CorpusRecipe, Recipe

CACHE = ".cache"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def input_listing(corpus: CorpusRecipe) -> list[str]:
    """The inputs the corpus' reader takes from the recipe's inputs (a folder: the files or document folders the
    format finds in it), as the recipe names them: a file added to or removed from an input folder changes it.
    What those inputs lead the reader to open (brat's text, MMAX2's levels, GUM's trees) is checked by content
    against the cache entry instead (`opened_files`), since only reading tells which files those are."""
    from harmonize.conversion import input_files
    from harmonize.converters import get_format

    reader = get_format(corpus.source, "read")
    return [as_given(path, corpus) for path in input_files(list(corpus.inputs), reader)]


def as_given(path: Path, corpus: CorpusRecipe) -> str:
    """A file the corpus reads, named as the recipe names its inputs (``lb/NAME.txt`` beside ``lb/NAME.ann``,
    ``gum/dep/X.conllu`` beside ``gum/coref_tsv``): the builder's own folders never appear."""
    path = Path(os.path.abspath(path))
    if isinstance(corpus.split, Path) and path == corpus.split and corpus.given_split:
        return corpus.given_split
    best: tuple[int, str] | None = None
    for given, resolved in zip(corpus.given or [str(p) for p in corpus.inputs], corpus.inputs):
        anchor = resolved if resolved.is_dir() else resolved.parent
        given_anchor = given if resolved.is_dir() else os.path.dirname(given)
        relative = os.path.relpath(path, anchor)
        ups = relative.split(os.sep).count("..")
        name = os.path.normpath(os.path.join(given_anchor, relative)).replace(os.sep, "/")
        if best is None or ups < best[0]:
            best = (ups, name)
    assert best is not None
    return best[1]


def opened_files(report_inputs: dict[str, None], corpus: CorpusRecipe) -> dict[str, dict[str, str]]:
    """Every file the reader (and the split) opened: its name as the recipe gives it -> its absolute path (for
    this machine's cache, never the release) and its sha256."""
    found = {}
    for opened in report_inputs:
        path = Path(os.path.abspath(opened))
        if path.is_file():
            found[as_given(path, corpus)] = {"path": str(path), "sha256": digest(path.read_bytes())}
    return dict(sorted(found.items()))


def corpus_key(corpus: CorpusRecipe, recipe: Recipe, listing: list[str]) -> str:
    """The cache key of a corpus task: its inputs as listed, its recipe entry (the split file's content too), the
    outputs asked for, harmonize's version. The content of every file the task opened is checked apart."""
    from harmonize.version import __version__

    entry = {
        "version": __version__, "name": corpus.name, "from": corpus.source, "options": corpus.options,
        "rules": corpus.rules, "parse": corpus.parse,
        "split": corpus.split if isinstance(corpus.split, str) else digest(corpus.split.read_bytes()) if isinstance(
            corpus.split, Path) else vars(corpus.split),
        "outputs": [recipe.formats, recipe.stats, recipe.views, recipe.pcr, recipe.validate],
        "inputs": listing,
    }
    return digest(json.dumps(entry, sort_keys=True, default=str).encode("utf-8"))


def cached_summary(release: Path, name: str, key: str) -> dict | None:
    """The summary of a finished task whose key matches and whose files are all there, unchanged."""
    path = release / CACHE / f"{name}.json"
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if entry.get("key") != key:
        return None
    for opened in entry.get("opened", {}).values():
        source = Path(opened["path"])
        if not source.is_file() or digest(source.read_bytes()) != opened["sha256"]:
            return None
    for relative, expected in entry["summary"]["files"].items():
        file = release / relative
        if not file.is_file() or digest(file.read_bytes()) != expected:
            return None
    return entry["summary"]
