"""Documentation is code: every Python and shell example of the README and the docs runs, the docstrings'
examples pass as doctests, and the site builds with ``mkdocs build --strict``.

A page's examples run in order in one fresh folder (Python blocks share one namespace, shell blocks run with
``bash -euo pipefail``), with ``examples/`` reachable as from the checkout. Corpus ids fetch from a mirror on
127.0.0.1 built from the shared data (`tests.corpus_mirror`), into a cache the pages share: what a user's machine
gets from the corpora's hosts, without the network. A block preceded by ``<!-- not run: REASON -->`` is skipped
with that reason (training for minutes, models harmonize never downloads)."""

from __future__ import annotations

import doctest
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
_BLOCK = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*?) -->\n)?```(?P<language>python|bash)\n(?P<code>.*?)```",
                    re.S)


def examples(page: Path) -> list[tuple[str, str, str | None]]:
    """(language, code, reason not to run it) of every Python and shell block of a page, in order."""
    return [(m["language"], m["code"], m["reason"]) for m in _BLOCK.finditer(page.read_text(encoding="utf-8"))]


def _workspace(tmp_path: Path) -> Path:
    """A folder where ``examples/`` is what it is beside the checkout."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    return work


def _uses_corpora(page: Path) -> bool:
    text = page.read_text(encoding="utf-8")
    return "harmonize corpora fetch" in text or "harmonize.corpora" in text


@pytest.mark.parametrize("page", [p for p in PAGES if examples(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_of_the_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        request: pytest.FixtureRequest) -> None:
    work = _workspace(tmp_path)
    monkeypatch.chdir(work)
    for name, value in (request.getfixturevalue("corpus_mirror") if _uses_corpora(page) else {}).items():
        monkeypatch.setenv(name, value)  # the Python blocks run here, the shell blocks inherit it
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    namespace: dict = {"__name__": "__docs__"}
    skipped = []
    for number, (language, code, reason) in enumerate(examples(page), 1):
        if reason is not None:
            skipped.append(reason)
            continue
        if page.name == "README.md" and "pip install" in code or code.strip() == "python -m pytest -q":
            continue  # the README's set-up commands: .ci/run runs them
        if language == "python":
            exec(compile(code, f"{page.name} block {number}", "exec"), namespace)
        else:
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=work, env=environment,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, f"{page.name} block {number} failed:\n{code}\n{done.stdout}\n{done.stderr}"
    assert all(reason.strip() for reason in skipped)


MODULES_WITH_EXAMPLES = ["harmonize", "harmonize.errors", "harmonize.stats", "harmonize.schemas.model"]


@pytest.mark.parametrize("name", MODULES_WITH_EXAMPLES)
def test_docstring_examples_pass(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).with_name("mkdocs"))
    if not Path(mkdocs).exists():
        pytest.skip("mkdocs not installed: pip install -e '.[docs]' brings it")
    done = subprocess.run([mkdocs, "build", "--strict", "-d", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    for page in ("index.html", "reference/cli.html", "reference/python.html", "formats/brat.html"):
        assert (site / page).is_file(), page
    reference = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for command in ("harmonize score", "harmonize resolve predict", "harmonize pcr generate"):
        assert command in reference, command  # the commands of groups too
    loaded_elsewhere = [
        str(p.relative_to(site)) for p in site.rglob("*.html")
        if re.search(r"<(?:script|link|img|iframe)[^>]*(?:src|href)=\"(?:https?:)?//", p.read_text(encoding="utf-8"))]
    assert not loaded_elsewhere  # nothing is loaded from other hosts (web fonts off, search bundled)
    # Search from disk: the index as a script, and every page starts the search worker through our file:// shim
    # (checked by hand in Chromium: typing "heads" on a page opened from disk lists 27 pages).
    assert (site / "search" / "search_index.js").read_text(encoding="utf-8").startswith("var __index = {")
    without_shim = [str(p.relative_to(site)) for p in site.rglob("*.html")
                    if "assets/javascripts/file-iframe-worker.js" not in p.read_text(encoding="utf-8")]
    assert not without_shim


def test_every_public_name_has_a_docstring() -> None:
    import harmonize

    missing = [name for name in harmonize.__all__ if not (getattr(harmonize, name).__doc__ or "").strip()]
    assert not missing
