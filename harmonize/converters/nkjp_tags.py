"""NKJP morphosyntactic tags (the National Corpus of Polish's, in PCC's TEI) as UD's UPOS and FEATS, from the table
``nkjp_ud.tsv`` beside this module: what the TEI reader gives words, and what its writer reads back from them."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def nkjp_table() -> tuple[dict[str, tuple[str, dict[str, str]]], dict[str, dict[str, str]]]:
    """``nkjp_ud.tsv``: grammatical class -> (UPOS, features), msd value -> features."""
    classes: dict[str, tuple[str, dict[str, str]]] = {}
    values: dict[str, dict[str, str]] = {}
    text = (resources.files("harmonize.converters") / "nkjp_ud.tsv").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        kind, name, upos, feats = line.split("\t")
        parsed = dict(item.split("=", 1) for item in feats.split("|")) if feats != "_" else {}
        if kind == "ctag":
            classes[name] = (upos, parsed)
        else:
            values[name] = parsed
    return classes, values


def ud_tags(ctag: str, msd: str, lemma: str) -> tuple[str, str] | None:
    """UPOS and FEATS for an NKJP tag, or None where the class is not in the table."""
    return _ud_tags(ctag, msd, ctag == "subst" and lemma[:1].isupper())


@cache
def _ud_tags(ctag: str, msd: str, proper: bool) -> tuple[str, str] | None:
    classes, values = nkjp_table()
    found = classes.get(ctag)
    if found is None:
        return None
    upos, class_feats = found
    feats = dict(class_feats)
    for value in msd.split(":") if msd else ():
        feats.update(values.get(value, {}))
    if proper:
        upos = "PROPN"
    return upos, "|".join(f"{k}={v}" for k, v in sorted(feats.items(), key=lambda kv: kv[0].lower())) or "_"


def split_xpos(xpos: str) -> tuple[str, str]:
    """An XPOS ``ctag:msd`` as (ctag, msd); "_" is ("", "")."""
    if xpos == "_":
        return "", ""
    ctag, _sep, msd = xpos.partition(":")
    return ctag, msd


# ---------------------------------------------------------------------------------------------------------------
# Finding documents and layers
