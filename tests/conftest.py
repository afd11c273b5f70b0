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
    """Files for parametrizing at collection time; empty (tests then skip) when the data is absent."""
    base = SHARED_DATA.joinpath(*parts)
    return sorted(base.glob(pattern)) if base.exists() else []


def ids(paths: list[Path]) -> list[str]:
    return [p.name if p.parent.name in ("dep", "udapi") else f"{p.parent.name}/{p.name}" for p in paths]
