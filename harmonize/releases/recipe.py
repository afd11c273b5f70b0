"""A collection's recipe: TOML, checked key by key before anything is built.

Every problem is one `RecipeError` naming the recipe file, the line and the key (``corpus[2].from``);
paths are relative to the recipe's folder. See the README's "Collections" section for every key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harmonize.errors import HarmonizeError

CORPUS_NAME = re.compile(r"[a-z]{2,3}_[a-z0-9_]+\Z")
VALIDATIONS = ("none", "rules", "neural")
# [outputs.train]: how validate = "neural" trains the resolver on each corpus' train part; gpus: what a task that
# parses or trains asks Ray for.
TRAIN_DEFAULTS: dict[str, Any] = {"encoder": "minilm", "epochs": 8, "max_minutes": None, "device": "auto", "seed": 42,
                                  "gpus": 0}
TRAIN_TYPES: dict[str, type | tuple] = {"encoder": str, "epochs": int, "max_minutes": (int, float), "device": str,
                                        "seed": int, "gpus": int}
SPLITS = ("train", "dev", "test")


class RecipeError(HarmonizeError):
    """A recipe that cannot be built: file, line and key. A usage error (exit 2)."""

    def __init__(self, path: Path, line: int | None, key: str, reason: str) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {key}: {reason}")


@dataclass(frozen=True)
class SplitShares:
    train: int
    dev: int
    test: int
    seed: int = 0


@dataclass(frozen=True)
class CorpusRecipe:
    name: str
    source: str  # the reader ("from")
    inputs: tuple[Path, ...]
    options: tuple[tuple[str, str], ...] = ()
    rules: tuple[str, ...] = ()
    parse: str = "none"
    split: str | Path | SplitShares = "own"
    given: tuple[str, ...] = ()  # the inputs as the recipe writes them, for the release's provenance
    given_split: str = ""  # the split file as the recipe writes it


@dataclass(frozen=True)
class Recipe:
    path: Path
    name: str
    version: str = ""
    description: str = ""
    license: str = ""
    corpora: tuple[CorpusRecipe, ...] = ()
    formats: tuple[str, ...] = ("corefud",)
    stats: bool = True
    views: bool = True
    pcr: dict[str, int] | None = None  # generation settings; None: no questions
    validate: str = "rules"
    train: dict[str, Any] = field(default_factory=dict)
    text: str = ""  # the recipe as written (for the release's provenance)


class _Lines:
    """Where a key stands in the recipe text (tomllib gives no positions)."""

    def __init__(self, text: str) -> None:
        self.sections: list[tuple[str, int, int]] = []  # (header, occurrence, line)
        self.lines = text.split("\n")
        counts: dict[str, int] = {}
        for number, line in enumerate(self.lines, 1):
            header = re.match(r"\s*\[\[?\s*([^\]]+?)\s*\]\]?", line)
            if header:
                name = header[1]
                counts[name] = counts.get(name, 0) + 1
                self.sections.append((name, counts[name] - 1, number))

    def find(self, section: str, occurrence: int, key: str | None) -> int | None:
        starts = [(line, i) for i, (name, count, line) in enumerate(self.sections)
                  if name == section and count == occurrence]
        if not starts:
            return None
        start, index = starts[0]
        if key is None:
            return start
        end = self.sections[index + 1][2] if index + 1 < len(self.sections) else len(self.lines) + 1
        for number in range(start + 1, end):
            if re.match(rf"\s*\"?{re.escape(key)}\"?\s*=", self.lines[number - 1]):
                return number
        return start


def load_recipe(path: str | Path) -> Recipe:
    """Read and check a recipe; every problem is a `RecipeError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RecipeError(path, None, "recipe", error.strerror or str(error)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line = re.search(r"line (\d+)", str(error))
        raise RecipeError(path, int(line[1]) if line else None, "TOML", str(error)) from None
    lines = _Lines(text)
    base = path.parent

    def fail(section: str, occurrence: int, key: str | None, label: str, reason: str) -> RecipeError:
        return RecipeError(path, lines.find(section, occurrence, key), label, reason)

    def check_keys(table: dict, allowed: set[str], section: str, occurrence: int, label: str) -> None:
        for key in table:
            if key not in allowed:
                raise fail(section, occurrence, key, f"{label}{key}", f"unknown key (known: {', '.join(sorted(allowed))})")

    def typed(value: Any, kind: type | tuple, section: str, occurrence: int, key: str, label: str, what: str) -> Any:
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise fail(section, occurrence, key, label, f"must be {what}, not {type(value).__name__}")
        return value

    check_keys(data, {"collection", "corpus", "outputs"}, "", 0, "")
    collection = data.get("collection")
    if not isinstance(collection, dict) or "name" not in collection:
        raise RecipeError(path, lines.find("collection", 0, None), "collection.name", "missing")
    check_keys(collection, {"name", "version", "description", "license"}, "collection", 0, "collection.")
    strings = {k: typed(collection.get(k, ""), str, "collection", 0, k, f"collection.{k}", "a string")
               for k in ("name", "version", "description", "license")}
    corpora_data = data.get("corpus")
    if not isinstance(corpora_data, list) or not corpora_data:
        raise RecipeError(path, None, "corpus", "at least one [[corpus]] table is needed")
    corpora = [_corpus(entry, index, base, fail, check_keys, typed) for index, entry in enumerate(corpora_data)]
    seen: dict[str, int] = {}
    for index, corpus in enumerate(corpora):
        if corpus.name in seen:
            raise fail("corpus", index, "name", f"corpus[{index + 1}].name",
                       f"{corpus.name!r} is also corpus[{seen[corpus.name] + 1}]'s name")
        seen[corpus.name] = index
    outputs = data.get("outputs", {})
    typed(outputs, dict, "outputs", 0, None, "outputs", "a table")
    check_keys(outputs, {"formats", "stats", "views", "pcr", "validate", "train"}, "outputs", 0, "outputs.")
    formats = typed(outputs.get("formats", ["corefud"]), list, "outputs", 0, "formats", "outputs.formats",
                    "a list of format names")
    from harmonize.converters import formats as known_formats

    writers = {f.name for f in known_formats() if f.writer is not None and not f.joins_inputs}
    for name in formats:
        if name not in writers:
            raise fail("outputs", 0, "formats", "outputs.formats",
                       f"no writer {name!r} (writers: {', '.join(sorted(writers))})")
    pcr = outputs.get("pcr", False)
    if isinstance(pcr, bool):
        pcr_settings = {"window": 2, "seed": 0} if pcr else None
    else:
        typed(pcr, dict, "outputs", 0, "pcr", "outputs.pcr", "true, false or a table")
        check_keys(pcr, {"window", "seed"}, "outputs.pcr", 0, "outputs.pcr.")
        pcr_settings = {k: typed(pcr.get(k, d), int, "outputs.pcr", 0, k, f"outputs.pcr.{k}", "an integer")
                        for k, d in (("window", 2), ("seed", 0))}
    validate = typed(outputs.get("validate", "rules"), str, "outputs", 0, "validate", "outputs.validate",
                     "a string")
    if validate not in VALIDATIONS:
        raise fail("outputs", 0, "validate", "outputs.validate", f"one of {', '.join(VALIDATIONS)}")
    train = typed(outputs.get("train", {}), dict, "outputs.train", 0, None, "outputs.train", "a table")
    check_keys(train, set(TRAIN_DEFAULTS), "outputs.train", 0, "outputs.train.")
    settings = dict(TRAIN_DEFAULTS)
    for key, value in train.items():
        kind = TRAIN_TYPES[key]
        settings[key] = typed(value, kind, "outputs.train", 0, key, f"outputs.train.{key}",
                              "a string" if kind is str else "a number")
    if settings["device"] not in ("auto", "cpu", "cuda"):
        raise fail("outputs.train", 0, "device", "outputs.train.device", "auto, cpu or cuda")
    encoder = base / str(settings["encoder"])
    if encoder.exists():
        settings["encoder"] = str(encoder.resolve())  # a local encoder folder, relative to the recipe
    if validate == "neural" and not train:
        raise fail("outputs", 0, "validate", "outputs.validate", "\"neural\" needs an [outputs.train] table "
                   "(encoder, epochs, max_minutes, device, seed, gpus)")
    return Recipe(path, strings["name"], strings["version"], strings["description"], strings["license"],
                  tuple(corpora), tuple(dict.fromkeys(["corefud", *formats])),
                  typed(outputs.get("stats", True), bool, "outputs", 0, "stats", "outputs.stats", "true or false"),
                  typed(outputs.get("views", True), bool, "outputs", 0, "views", "outputs.views", "true or false"),
                  pcr_settings, validate, settings, text)


def _corpus(entry: Any, index: int, base: Path, fail, check_keys, typed) -> CorpusRecipe:
    label = f"corpus[{index + 1}]."
    if not isinstance(entry, dict):
        raise fail("corpus", index, None, label[:-1], "must be a table")
    check_keys(entry, {"name", "from", "input", "options", "rules", "parse", "split"}, "corpus", index, label)
    for key in ("name", "from", "input"):
        if key not in entry:
            raise fail("corpus", index, None, f"{label}{key}", "missing")
    name = typed(entry["name"], str, "corpus", index, "name", f"{label}name", "a string")
    if not CORPUS_NAME.match(name):
        raise fail("corpus", index, "name", f"{label}name", f"{name!r} is not a CorefUD-style name (xx_name: a "
                                                             "language code, _, lower-case letters and digits)")
    source = typed(entry["from"], str, "corpus", index, "from", f"{label}from", "a format name")
    from harmonize.converters import formats as known_formats

    readers = {f.name for f in known_formats() if f.reader is not None}
    if source not in readers:
        raise fail("corpus", index, "from", f"{label}from", f"no reader {source!r} (readers: "
                                                             f"{', '.join(sorted(readers))})")
    raw_inputs = entry["input"] if isinstance(entry["input"], list) else [entry["input"]]
    inputs = []
    for item in raw_inputs:
        typed(item, str, "corpus", index, "input", f"{label}input", "a path or a list of paths")
        path = (base / item).resolve()
        if not path.exists():  # a corpus id (gum, litbank/coref/brat): its folder in the cache
            from harmonize import corpora

            try:
                resolved = corpora.resolve(item, fetch_missing=corpora.fetch_wanted())
            except HarmonizeError as error:
                raise fail("corpus", index, "input", f"{label}input", str(error)) from None
            if resolved is None:
                raise fail("corpus", index, "input", f"{label}input", f"{item}: no such file or folder, and no "
                                                                     "corpus id (`harmonize corpora list`)")
            path = resolved.path
        inputs.append(path)
    options = typed(entry.get("options", {}), dict, "corpus", index, "options", f"{label}options", "a table")
    for key, value in options.items():
        typed(value, str, "corpus", index, "options", f"{label}options.{key}", "a string")
    from harmonize.converters import get_format

    try:
        get_format(source, "read").read_options([f"{k}={v}" for k, v in options.items()])
    except HarmonizeError as error:
        raise fail("corpus", index, "options", f"{label}options", str(error)) from None
    rules = entry.get("rules", [])
    rules = [rules] if isinstance(rules, str) else typed(rules, list, "corpus", index, "rules", f"{label}rules",
                                                         "a list of rule names")
    from harmonize.rules import rule_list

    try:
        rule_list(",".join(rules)) if rules else None
    except HarmonizeError as error:
        raise fail("corpus", index, "rules", f"{label}rules", str(error)) from None
    parse = typed(entry.get("parse", "none"), str, "corpus", index, "parse", f"{label}parse", "a string")
    split_value = entry.get("split", "own")
    given_split = ""
    split: str | Path | SplitShares
    if isinstance(split_value, str):
        if split_value == "own":
            split = "own"
        else:
            split = (base / split_value).resolve()
            if not split.is_file():
                raise fail("corpus", index, "split", f"{label}split", f"{split_value}: no such split file")
            given_split = split_value
    elif isinstance(split_value, dict):
        check_keys(split_value, {"train", "dev", "test", "seed"}, "corpus", index, f"{label}split.")
        shares = {k: typed(split_value.get(k, 0), int, "corpus", index, "split", f"{label}split.{k}", "an integer")
                  for k in ("train", "dev", "test", "seed")}
        if shares["train"] + shares["dev"] + shares["test"] <= 0:
            raise fail("corpus", index, "split", f"{label}split", "the shares add up to nothing")
        split = SplitShares(**shares)
    else:
        raise fail("corpus", index, "split", f"{label}split", "\"own\", a split file, or {train, dev, test, seed}")
    if split == "own" and not has_own_split(source, inputs):
        raise fail("corpus", index, "split", f"{label}split", f"{source} input has no split of its own (GUM's "
                   "splits.md, ECB+'s topics): give split = {train = 8, dev = 1, test = 1, seed = 0} or a split file")
    return CorpusRecipe(name, source, tuple(inputs), tuple(sorted(options.items())), tuple(rules), parse, split,
                        tuple(raw_inputs), given_split)


def splits_file(source: str, inputs: Iterable[Path]) -> Path | None:
    """GUM's ``splits.md`` for inputs read as GUM or CorefUD: in an input folder or up to two folders above."""
    if source not in ("gum", "corefud", "webanno-tsv"):
        return None
    for root in inputs:
        for folder in (root, *root.parents[:2]):
            if (folder / "splits.md").is_file():
                return folder / "splits.md"
    return None


def has_own_split(source: str, inputs: Iterable[Path]) -> bool:
    """Whether ``split = "own"`` can work: a GUM splits.md, or ECB+'s standard topics."""
    return source == "ecbplus" or splits_file(source, list(inputs)) is not None
