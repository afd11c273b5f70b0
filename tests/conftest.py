"""Shared test setup: offline model hubs, and where the real corpora are (HARMONIZE_SHARED_DATA)."""

from __future__ import annotations

import os
from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def udpipe_tokenizing_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A UDPipe 1 model with a tokenizer as well, trained once per session on 300 GUM sentences (about ten seconds):
    raw text through a real tokenizer, without a download."""
    from harmonize.parsing.udpipe import train_model

    pytest.importorskip("ufal.udpipe", reason="ufal.udpipe not installed: pip install -e '.[parse]'")
    training = sorted(shared("gum", "v11.1.0", "dep").glob("GUM_*.conllu"))
    return train_model(training, tmp_path_factory.mktemp("udpipe") / "gum-tokenizer.udpipe", max_sentences=300,
                       tokenizer=True)


def make_tiny_encoder(folder: Path, words: list[str], seed: int = 0, punctuation: bool = False,
                      positions: int = 512) -> Path:
    """A randomly initialised 2-layer BERT (hidden size 32) and a word-level tokenizer over ``words`` (with
    ``punctuation``, punctuation split off words, as real tokenizers do), saved as a Hugging Face folder: the
    resolvers' code paths in seconds, without any download."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocabulary = {token: index for index, token in enumerate([*specials, *sorted(set(words) - set(specials))])}
    backend = Tokenizer(models.WordLevel(vocabulary, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()]
                                                    ) if punctuation else pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]",
                                        cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    torch.manual_seed(seed)
    model = BertModel(BertConfig(vocab_size=len(vocabulary), hidden_size=32, num_hidden_layers=2,
                                 num_attention_heads=2, intermediate_size=64, max_position_embeddings=positions))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def corpus_mirror(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A mirror of the catalog's corpora on 127.0.0.1, built from the shared data (once for all workers of a run),
    and the environment that fetches from it only, into a cache the workers share: what a user's machine gets
    from the corpora's hosts. Skips where the shared data is absent."""
    from tests.corpus_mirror import build_mirror, offline_environment, serving

    if not SHARED_DATA.exists():
        pytest.skip(f"{SHARED_DATA} not found: set HARMONIZE_SHARED_DATA to the shared data folder")
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    catalog = build_mirror(SHARED_DATA, root / "corpus-mirror")
    with serving(catalog.parent / "mirror") as url:
        yield offline_environment(url, catalog, root / "corpus-cache")
