"""Collections: a harmonized multi-corpus release built from one recipe (``harmonize build``).

    import harmonize
    result = harmonize.build("recipe.toml", "release/")

One task per corpus (read, rules, parse, split, write every format, statistics, views, questions, validation) runs
on a local process pool (``jobs`` wide) or on Ray (``engine="ray"``); the release's top files (comparative
statistics and plots, questions of every corpus, validation, README, MANIFEST.sha256) are made from the tasks'
summaries. Every output is written atomically; a corpus' cache entry (``RELEASE/.cache/``) is written last, keyed by
the checksums of its input files, its recipe entry, the outputs asked for and harmonize's version, so that a rebuild
with nothing changed does no work, a changed corpus is rebuilt alone, and an interrupted build resumes. Nothing in
the release depends on when or where it was built: two builds of one recipe are byte-identical.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harmonize.build.recipe import CorpusRecipe, Recipe, RecipeError, load_recipe
from harmonize.errors import HarmonizeError

CACHE = ".cache"
ENGINES = ("local", "ray")


@dataclass
class BuildResult:
    """What a build did: per corpus "built", "cached" or the error; the release folder."""

    release: Path
    corpora: dict[str, str] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # e.g. a split part left empty (also in the README)

    @property
    def ok(self) -> bool:
        return not self.failures


def _digest(data: bytes) -> str:
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
            found[as_given(path, corpus)] = {"path": str(path), "sha256": _digest(path.read_bytes())}
    return dict(sorted(found.items()))


def corpus_key(corpus: CorpusRecipe, recipe: Recipe, listing: list[str]) -> str:
    """The cache key of a corpus task: its inputs as listed, its recipe entry (the split file's content too), the
    outputs asked for, harmonize's version. The content of every file the task opened is checked apart."""
    from harmonize import __version__

    entry = {
        "version": __version__, "name": corpus.name, "from": corpus.source, "options": corpus.options,
        "rules": corpus.rules, "parse": corpus.parse,
        "split": corpus.split if isinstance(corpus.split, str) else _digest(corpus.split.read_bytes()) if isinstance(
            corpus.split, Path) else vars(corpus.split),
        "outputs": [recipe.formats, recipe.stats, recipe.views, recipe.pcr, recipe.validate],
        "inputs": listing,
    }
    return _digest(json.dumps(entry, sort_keys=True, default=str).encode("utf-8"))


def _cached(release: Path, name: str, key: str) -> dict | None:
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
        if not source.is_file() or _digest(source.read_bytes()) != opened["sha256"]:
            return None
    for relative, digest in entry["summary"]["files"].items():
        file = release / relative
        if not file.is_file() or _digest(file.read_bytes()) != digest:
            return None
    return entry["summary"]


def build(recipe: str | Path, output: str | Path, *, jobs: int = 0, engine: str = "local",
          address: str | None = None, only: str | None = None, dry_run: bool = False, clean: bool = False,
          keep_going: bool = False, log: Callable[[str], None] | None = None) -> BuildResult:
    """Build the collection a recipe describes into ``output`` (see the module and the README's "Collections")."""
    from harmonize.build.tasks import build_corpus, finish_release

    started = time.monotonic()
    log = log or (lambda message: None)
    plan = load_recipe(recipe)
    if engine not in ENGINES:
        raise HarmonizeError(f"--engine takes {', '.join(ENGINES)}, not {engine!r}")
    names = [c.name for c in plan.corpora]
    if only is not None and only not in names:
        raise RecipeError(plan.path, None, "--only", f"no corpus {only!r} in the recipe ({', '.join(names)})")
    release = Path(output)
    if clean and (release / CACHE).is_dir():
        shutil.rmtree(release / CACHE)
    result = BuildResult(release)
    summaries: dict[str, dict] = {}
    todo: list[tuple[CorpusRecipe, str]] = []
    for corpus in plan.corpora:
        key = corpus_key(corpus, plan, input_listing(corpus))
        cached = _cached(release, corpus.name, key)
        if cached is not None:
            summaries[corpus.name] = cached
            result.corpora[corpus.name] = "cached"
        elif only is None or corpus.name == only:
            todo.append((corpus, key))
        else:
            result.corpora[corpus.name] = "skipped (--only)"
    if dry_run:
        for corpus, _key in todo:
            result.corpora[corpus.name] = "to build"
        for name, state in result.corpora.items():
            log(f"{name}: {state}")
        return result
    release.mkdir(parents=True, exist_ok=True)
    jobs_args = [(corpus, plan, str(release), key) for corpus, key in todo]
    gpus = {corpus.name: gpus_for(corpus, plan) for corpus, _key in todo}
    for done, (corpus, outcome) in enumerate(_run(jobs_args, build_corpus, jobs, engine, address, gpus), 1):
        if isinstance(outcome, dict):
            summaries[corpus.name] = outcome
            result.corpora[corpus.name] = "built"
            log(f"[{done}/{len(todo)}] {corpus.name}: built ({outcome['documents']} documents, "
                f"{outcome['words']} words)")
            for warning in outcome.get("warnings", []):
                log(f"warning: {warning}")
        else:
            result.failures[corpus.name] = outcome
            result.corpora[corpus.name] = "failed"
            log(f"[{done}/{len(todo)}] {corpus.name}: failed: {outcome}")
            if not keep_going:
                raise HarmonizeError(f"corpus {corpus.name}: {outcome}")
    result.warnings = [w for c in plan.corpora if c.name in summaries for w in summaries[c.name].get("warnings", [])]
    if summaries:
        finish_release(plan, release, [summaries[c.name] for c in plan.corpora if c.name in summaries])
    result.seconds = time.monotonic() - started
    return result


def gpus_for(corpus: CorpusRecipe, plan: Recipe) -> int:
    """The GPUs a corpus task asks Ray for: ``[outputs.train] gpus`` where it parses or trains, else none."""
    heavy = corpus.parse != "none" or plan.validate == "neural"
    return int(plan.train.get("gpus", 0)) if heavy else 0


def _run(arguments: list[tuple], task: Callable, jobs: int, engine: str, address: str | None,
         gpus: dict[str, int] | None = None):
    """(corpus, summary or error text) as tasks finish, on the chosen engine (Ray: each task asking for ``gpus``
    of its corpus)."""
    if not arguments:
        return
    if engine == "ray":
        yield from _run_ray(arguments, task, address, gpus or {})
        return
    from harmonize.conversion import worker_count

    workers = min(len(arguments), worker_count(jobs))
    if workers < 2:
        for job in arguments:
            yield job[0], _guarded(task, job)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_guarded, task, job): job[0] for job in arguments}
        for future in as_completed(futures):
            yield futures[future], future.result()


def _guarded(task: Callable, job: tuple) -> dict | str:
    try:
        return task(*job)
    except HarmonizeError as error:
        return str(error)


def _run_ray(arguments: list[tuple], task: Callable, address: str | None, gpus: dict[str, int]):
    try:
        import ray
    except ImportError:
        raise HarmonizeError("--engine ray needs Ray: pip install 'harmonize[distributed]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                 configure_logging=False)
    try:
        remote = ray.remote(_guarded)
        pending = {remote.options(num_gpus=gpus.get(job[0].name, 0)).remote(task, job): job[0] for job in arguments}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for reference in ready:
                yield pending.pop(reference), ray.get(reference)
    finally:
        if started_here:
            ray.shutdown()


class _CallableModule(types.ModuleType):
    """``harmonize.build`` is this package and, as the issue's Python API has it, a call: ``harmonize.build(recipe,
    output, ...)`` is `build` (a function of that name in ``harmonize`` would be replaced by the package the
    first time it is imported)."""

    def __call__(self, recipe: str | Path, output: str | Path, **options: Any) -> BuildResult:
        return build(recipe, output, **options)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["BuildResult", "RecipeError", "build", "load_recipe"]
