"""Shared test setup: offline model hubs, and where the real corpora are (HARMONIZE_SHARED_DATA)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("HARMONIZE_SHARED_DATA", ROOT.parent / "shared" / "data"))
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared(*parts: str) -> Path:
    """A path under the shared corpora, or a skip naming what is missing and how to point at it."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not found: set HARMONIZE_SHARED_DATA to the shared data folder")
    return path


def shared_files(pattern: str, *parts: str) -> list[Path]:
    """Files for parametrizing at collection time; empty when the data is absent (see ``file_params``)."""
    base = SHARED_DATA.joinpath(*parts)
    return sorted(base.glob(pattern)) if base.exists() else []


def file_params(paths: list[Path], what: str) -> list:
    """pytest parameters for ``paths``, named by file; one skipped parameter saying why when there are none."""
    if not paths:
        reason = f"{what} not found under {SHARED_DATA}: set HARMONIZE_SHARED_DATA to the shared data folder"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-data")]
    return [pytest.param(p, id=p.name if p.parent.name in ("dep", "udapi") else f"{p.parent.name}/{p.name}")
            for p in paths]


@pytest.fixture(scope="session")
def udpipe_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real UDPipe 1 model, trained once per test session on 300 GUM sentences (seconds): real loading and
    parsing without a download. Its trees are trees; their quality is of no concern."""
    from harmonize.parsing.udpipe import train_model

    pytest.importorskip("ufal.udpipe", reason="ufal.udpipe not installed: pip install -e '.[parse]'")
    training = sorted(shared("gum", "v11.1.0", "dep").glob("GUM_*.conllu"))
    return train_model(training, tmp_path_factory.mktemp("udpipe") / "gum-tiny.udpipe", max_sentences=300)
