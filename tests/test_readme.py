"""The README's Python example runs as written, and its first block runs unchanged on a GUM file."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from tests.conftest import ROOT, shared


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)


def test_readme_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    blocks = _python_blocks()
    assert blocks
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the README's calls either read their report or ask for none to be warned
        for block in blocks:
            exec(compile(block, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "e5 object \"the city 's old streets\" head: streets" in printed and "Counter()" in printed
    assert "['e1', 'e2']" in printed and "['split antecedent removed']" in printed
    assert "\n4\n" in printed
    assert "sample.conll 4" in printed and "CoNLL 96.54, MUC recall 100.00" in printed
    assert (tmp_path / "edited.conllu").read_text(encoding="utf-8").startswith("# newdoc id = sample-1")


def test_readme_first_block_runs_unchanged_on_gum(tmp_path: Path, capsys) -> None:
    """GUM annotates no heads: ``mention.head`` is None there and ``tree_head`` gives the tree's."""
    gum = shared("gum", "v11.1.0", "dep", "GUM_academic_exposure.conllu")
    block = _python_blocks()[0]
    on_gum = re.sub(r"^path = .*$", f"path = {str(gum)!r}", block, count=1, flags=re.M)
    assert on_gum != block
    namespace: dict = {}
    exec(compile(on_gum, "README.md", "exec"), namespace)
    document = namespace["document"]
    assert all(m.head is None for m in document.mentions)
    assert all(m.tree_head is not None for m in document.mentions)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == len(document.mentions) + 1 and "head: None" not in printed
    assert printed[0] == "1 abstract 'Introduction' head: Introduction"
    assert printed[1].endswith("'Research on adult - learned second language ( L2 )' head: Research")
