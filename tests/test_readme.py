"""The README's Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT


def test_readme_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "['e1', 'e2']" in printed and "['split antecedent removed']" in printed
    assert "sample.conll 12" in printed and "CoNLL 96.54, MUC recall 100.00" in printed
    assert (tmp_path / "edited.conllu").read_text(encoding="utf-8").startswith("# newdoc id = sample-1")
