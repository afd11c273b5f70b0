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

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harmonize.errors import HarmonizeError
from harmonize.releases.cache import CACHE, cached_summary, corpus_key, input_listing
from harmonize.releases.recipe import CorpusRecipe, Recipe, RecipeError, load_recipe

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


def build(recipe: str | Path, output: str | Path, *, jobs: int = 0, engine: str = "local",
          address: str | None = None, only: str | None = None, dry_run: bool = False, clean: bool = False,
          keep_going: bool = False, log: Callable[[str], None] | None = None) -> BuildResult:
    """Build the collection a recipe describes into ``output`` (see the module and the README's "Collections")."""
    from harmonize.releases.tasks import build_corpus, finish_release

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
        cached = cached_summary(release, corpus.name, key)
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


__all__ = ["BuildResult", "RecipeError", "build", "load_recipe"]
