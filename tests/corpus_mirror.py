"""A corpus mirror on 127.0.0.1, built from ``../shared/data``, for tests and the docs' examples: no test touches
the network.

The shared folder holds byte-for-byte copies of parts of the corpora at the commits the catalog pins (laid out
otherwise: ``gum/v11.1.0/coref_tsv`` is the repository's ``coref/gum/tsv``). `build_mirror` packs them as the
sources do (a GitHub archive with one top folder, a zip, a single file) under ``ID/VERSION/NAME``, and writes a
catalog (``HARMONIZE_CATALOG``) whose entries are the shipped ones with each manifest cut to the files the shared
folder has: the shipped hashes are checked on every one of them, and the examples name the real ids."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import json
import os
import tarfile
import threading
import tomllib
import zipfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from harmonize import corpora

# catalog key -> (shared path, path in the corpus) for each part the shared folder holds
SHARED_PARTS: dict[str, list[tuple[str, str]]] = {
    "gum@11.1.0": [("gum/v11.1.0/dep", "dep"), ("gum/v11.1.0/coref_tsv", "coref/gum/tsv"),
                   ("gum/v11.1.0/coref_conll", "coref/gum/conll"), ("gum/v11.1.0/splits.md", "splits.md")],
    "gum@7.2.0": [("gum/v7.2.0/dep", "dep"), ("gum/v7.2.0/coref_tsv", "coref/gum/tsv"),
                  ("gum/v7.2.0/coref_conll", "coref/gum/conll"),
                  ("gum/ontogum_official_v7.2.0/conll", "coref/ontogum/conll"),
                  ("gum/ontogum_official_v7.2.0/tsv", "coref/ontogum/tsv")],
    "litbank@1.0": [("litbank/brat", "coref/brat"), ("litbank/conll", "coref/conll")],
    "ecbplus@1.0": [("ecbplus/ECB+", "ECB+"), ("ecbplus/ECBplus_coreference_sentences.csv",
                                               "ECBplus_coreference_sentences.csv")],
    "parcorfull@2.0": [("mmax2/parcorfull/news", "corpus/news")],
    "potsdam@2.2": [(f"mmax2/potsdam_pcc2.2/{part}", part) for part in (
        "coreference-mmax", "coreference-conll", "primary-data")],
    "winogender@2018": [("pcr/winogender", "data")],
    "corefud-scorer-tests@4fd7b0e": [("corefud-samples/corefud-scorer", "tests")],
    "conll-scorer-tests@f49f3f8": [("conll2012/scorer_testcases_conll", "test/DataFiles")],
    "winogrande@1.1": [(f"pcr/winogrande_1.1/{name}", name) for name in (
        "dev.jsonl", "dev-labels.lst", "train_xs.jsonl", "train_xs-labels.lst")],
    "rucoco@1.0.0": [("rucoco/json", "")],
    "wsc273@2012": [("pcr/wsc/WSCollection.xml", "WSCollection.xml")],
    "liner2-tei-sample@21a2b96": [("pcc/tei_format_sample_liner2/pst20_00120445", "pst20_00120445")],
    "corefud@1.3": [("corefud-real/en_litbank-corefud-dev.conllu",
                     "data/CorefUD_English-LitBank/en_litbank-corefud-dev.conllu"),
                    ("corefud-real/en_gum-corefud-dev-GUM_academic_exposure.conllu",
                     "data/CorefUD_English-GUM/en_gum-corefud-dev.conllu")],
}


def _shared_files(shared_data: Path, key: str) -> dict[str, Path]:
    """Corpus path -> shared file, for the parts of ``key`` the shared folder has."""
    found = {}
    for shared, inner in SHARED_PARTS[key]:
        base = shared_data / shared
        if base.is_file():
            found[inner] = base
        elif base.is_dir():
            for file in sorted(base.rglob("*")):
                if file.is_file():
                    found["/".join(filter(None, (inner, file.relative_to(base).as_posix())))] = file
    return found


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def _write_catalog(raw_entries: list[dict], path: Path) -> None:
    lines = []
    for raw in raw_entries:
        lines.append("[[corpus]]")
        lines.extend(f"{key} = {_toml_value(value)}" for key, value in raw.items() if key != "source")
        for source in raw.get("source", []):
            lines.append("[[corpus.source]]")
            lines.extend(f"{key} = {_toml_value(value)}" for key, value in source.items())
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _pack(files: dict[str, Path], target: Path, top: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.name.endswith(".zip"):
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
            for inner, file in files.items():
                out.write(file, f"{top}/{inner}")
    else:
        with tarfile.open(target, "w:gz", compresslevel=1) as out:
            for inner, file in files.items():
                out.add(file, f"{top}/{inner}", recursive=False)


def build_mirror(shared_data: Path, folder: Path) -> Path:
    """The mirror folder (``ID/VERSION/NAME``) and ``catalog.toml`` beside it, built once (a lock shared by the
    processes of a test run); the catalog's path."""
    folder.mkdir(parents=True, exist_ok=True)
    catalog_path = folder / "catalog.toml"
    with open(folder / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if catalog_path.exists():
            return catalog_path
        shipped = resources.files("harmonize.corpora")
        raw_catalog = tomllib.loads((shipped / "catalog.toml").read_text(encoding="utf-8"))
        kept = []
        for raw in raw_catalog["corpus"]:
            key = f"{raw['id']}@{raw['version']}"
            if key not in SHARED_PARTS:
                continue
            files = _shared_files(shared_data, key)
            if not files:
                continue
            single = {source["to"] for source in raw.get("source", []) if source.get("kind") == "file"}
            for number, source in enumerate(raw.get("source", [])):
                name = corpora.Source(url=source["url"]).name
                target = folder / "mirror" / raw["id"] / raw["version"] / name
                if source.get("kind") == "file":
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(files[source["to"]].read_bytes())
                    continue
                mine = {inner: file for inner, file in files.items()
                        if inner not in single and inner.startswith(source.get("to", ""))}
                listed = corpora._manifest((shipped / "manifests" / source["manifest"]).read_text("utf-8"),
                                           source["manifest"]) if "manifest" in source else ()
                if source.get("complete"):  # only what the repository holds there (the shared copy adds READMEs)
                    mine = {inner: file for inner, file in mine.items() if inner in {f.path for f in listed}}
                take, to = source.get("take", ""), source.get("to", "")
                inside = {"/".join(filter(None, (take, inner[len(to):].lstrip("/")))): file
                          for inner, file in mine.items()}
                _pack(inside, target, f"{raw['id']}-{source.get('commit', 'x')[:12]}")
                if "manifest" in source:
                    cut = [f for f in listed if f.path in mine]
                    manifest = f"{raw['id']}@{raw['version']}-{number}.tsv"
                    (folder / manifest).write_text(corpora.manifest_lines(cut), encoding="utf-8")
                    source["manifest"] = manifest
            kept.append(raw)
        _write_catalog(kept, folder / "catalog.partial")
        os.replace(folder / "catalog.partial", catalog_path)
    return catalog_path


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class' name
        pass


@contextlib.contextmanager
def serving(folder: Path, handler: type[http.server.BaseHTTPRequestHandler] | None = None) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a free port) serving ``folder``, in a thread; its base URL."""
    made = handler or functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), made)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def offline_environment(base_url: str, catalog: Path, cache: Path) -> dict[str, str]:
    """The environment for commands that fetch from the local mirror only: every other host goes to a proxy on a
    closed local port (so nothing leaves the machine), 127.0.0.1 directly."""
    return {"HARMONIZE_MIRROR": base_url, "HARMONIZE_CATALOG": str(catalog), "HARMONIZE_DATA_DIR": str(cache),
            "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
            "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "HARMONIZE_TIMEOUT": "20"}
