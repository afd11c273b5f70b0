"""The corpus catalog: its entries, fetching from a local mirror (every failure a host can give), verification by
content, offline use, safe extraction, and corpus ids wherever a path goes. Nothing here leaves 127.0.0.1."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from pathlib import Path

import pytest

from harmonize import corpora
from harmonize.corpora import CorpusError
from tests.corpus_mirror import SHARED_PARTS, serving

HARMONIZE = [sys.executable, "-m", "harmonize"]

# The corpora the issue names: each has an entry (OntoNotes and ARRAU as manual ones).
REQUIRED = ["gum", "litbank", "ecbplus", "rucoco", "potsdam", "parcorfull", "pcc-pl", "corefud@1.0", "corefud@1.1",
            "corefud@1.2", "corefud@1.3", "winogrande", "wsc273", "superglue-wsc", "knowref", "dpr", "winogender",
            "winobias", "gap", "fantasycoref", "openboek", "wikicoref", "ontonotes", "arrau"]


# ------------------------------------------------------------------------------------------------- the catalog


def test_the_catalog_has_every_corpus_with_what_a_user_needs() -> None:
    catalog = corpora.load_catalog()
    for spec in REQUIRED:
        entry = catalog.get(spec)
        assert entry.name and entry.languages and entry.license.spdx and entry.homepage, spec
        assert entry.citation.startswith("@") and entry.citation.count("{") == entry.citation.count("}"), spec
        if entry.access == "manual":
            assert entry.instructions and "harmonize corpora add" in entry.instructions, spec
        else:
            assert entry.sources, spec
    assert catalog.get("ontonotes").access == "manual" and catalog.get("arrau").access == "manual"
    assert catalog.get("gum").key == "gum@11.1.0" and catalog.find("gum@7.2.0") is not None


def test_github_sources_are_pinned_commits_verified_by_every_file() -> None:
    for entry in corpora.load_catalog().entries:
        for source in entry.sources:
            if "github.com" not in source.url or source.kind == "file" and "raw.githubusercontent" in source.url:
                continue
            if "/releases/download/" in source.url:
                continue  # a release asset: bytes, not a commit's files
            assert re.fullmatch(r"[0-9a-f]{40}", source.commit), entry.key
            assert source.commit in source.url and all(source.commit in url for url in source.mirrors), entry.key
            assert source.files, f"{entry.key}: a GitHub archive is verified by the files inside"
            assert source.sha256 is None, f"{entry.key}: GitHub archives' bytes change; never pin them"


def test_every_file_a_manifest_lists_is_kept_by_its_entry() -> None:
    """A manifest file outside the entry's data paths would be missing from every fetch."""
    for entry in corpora.load_catalog().entries:
        for source in entry.sources:
            outside = [f.path for f in source.files if not entry.keeps(f.path)]
            assert not outside, f"{entry.key}: {outside[:3]}"


def test_what_cannot_be_known_here_is_said() -> None:
    for entry in corpora.load_catalog().entries:
        for source in entry.sources:
            if source.sha256 is None and not (source.files and source.complete):
                assert entry.notes or source.note, f"{entry.key}: {source.name} is unverified and says nothing"


@pytest.mark.parametrize("bad, message", [
    ('id = "Gum"', "is not lower case"), ('id = "a..b"', "is not lower case"),
    ('access = "secret"', "access 'secret'"), ('path = "../x"', "no path inside a corpus"),
])
def test_a_bad_catalog_entry_is_one_line_naming_it(tmp_path: Path, bad: str, message: str) -> None:
    text = _tiny_catalog_text("https://example.invalid/tiny.tar.gz", "tiny.tsv")
    key = bad.split(" = ")[0]
    text = re.sub(rf"^{key} = .*$", bad, text, count=1, flags=re.M) if re.search(rf"^{key} = ", text, re.M) \
        else text.replace('name = "Tiny"', f'name = "Tiny"\n{bad}')
    (tmp_path / "catalog.toml").write_text(text, encoding="utf-8")
    (tmp_path / "tiny.tsv").write_text("", encoding="utf-8")
    with pytest.raises(CorpusError, match=re.escape(message)):
        corpora.load_catalog(tmp_path / "catalog.toml")


# ------------------------------------------------------------------------ the real corpora, from a local mirror


@pytest.fixture(scope="module")
def fetched(corpus_mirror: dict[str, str]) -> dict[str, str]:
    """Every corpus the shared data has, fetched over HTTP from the local mirror into the shared cache."""
    done = subprocess.run([*HARMONIZE, "corpora", "fetch", *SHARED_PARTS], env={**os.environ, **corpus_mirror},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return corpus_mirror


def test_the_shipped_hashes_are_those_of_the_corpora(fetched: dict[str, str]) -> None:
    """Each shared file equals the repository's at the pinned commit: the shipped manifests' hashes verified it on
    the way in; `verify` hashes the cache again."""
    config = corpora.settings(catalog=corpora.load_catalog(fetched["HARMONIZE_CATALOG"]),
                              cache_dir=fetched["HARMONIZE_DATA_DIR"])
    for key in SHARED_PARTS:
        found = corpora.verify(key, config)
        assert found.ok and found.checked > 0, key
    record = json.loads((corpora.path("gum", config) / corpora.RECORD).read_text())
    assert record["verified"] == "verified" and len(record["files"]) == 281 * 3 + 1


def test_a_corpus_id_wherever_a_path_goes(fetched: dict[str, str], tmp_path: Path) -> None:
    environment = {**os.environ, **fetched, "HARMONIZE_OFFLINE": "1"}  # all cached: no connection needed

    def run(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([*HARMONIZE, *arguments], env=environment, capture_output=True, text=True,
                              cwd=tmp_path, timeout=600)

    stats = run("stats", "gum", "--tables", "corpus", "--format", "csv")
    assert stats.returncode == 0, stats.stderr
    assert "all,281,15492,268089" in stats.stdout  # the GUM release read as GUM, no --from
    converted = run("convert", "litbank/coref/brat/105_persuasion_brat.ann", "--to", "conll2012", "-o", "p.conll")
    assert converted.returncode == 0, converted.stderr
    score = run("score", "litbank/coref/conll/105_persuasion_brat.conll", "p.conll", "--format", "conll2012",
                "--singletons")
    assert score.returncode == 0 and "100.00" in score.stdout, score.stderr
    older = run("stats", "gum@7.2.0", "--tables", "corpus", "--format", "csv")
    assert older.returncode == 0 and "all,150," in older.stdout, older.stderr
    questions = run("pcr", "convert", "winogender", "-o", "winogender.jsonl")  # a set: the catalog's reader
    assert questions.returncode == 0 and "wrote 480 questions" in questions.stderr, questions.stderr
    missing = run("stats", "gum/no/such/file.conllu")
    assert missing.returncode == 1 and "no no/such/file.conllu in gum@11.1.0 (it holds" in missing.stderr
    (tmp_path / "gum").mkdir()  # an existing path always wins over an id
    assert f"{Path('gum')}: no " in run("stats", "gum").stderr
    not_fetched = subprocess.run([*HARMONIZE, "stats", "openboek"], capture_output=True, text=True, timeout=120,
                                 env={**environment, "HARMONIZE_CATALOG": ""})
    assert not_fetched.returncode == 1
    assert not_fetched.stderr.strip().splitlines() == [
        "harmonize: error: openboek: openboek is not fetched yet: run `harmonize corpora fetch openboek` "
        "(or add --fetch)"]


def test_the_commands_list_info_path_cite(fetched: dict[str, str]) -> None:
    environment = {**os.environ, **fetched}

    def run(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([*HARMONIZE, "corpora", *arguments], env=environment, capture_output=True, text=True,
                              timeout=120)

    listed = json.loads(run("list", "--json").stdout)
    assert {"gum@11.1.0", "litbank@1.0"} <= {row["key"] for row in listed if row["cached"]}
    assert all(row["access"] == "public" for row in json.loads(run("list", "--access", "public", "--json").stdout))
    assert {row["id"] for row in json.loads(run("list", "--language", "de", "--json").stdout)} >= {"potsdam"}
    info = json.loads(run("info", "gum", "--json").stdout)
    assert info["status"] == "cached" and info["license"]["spdx"] == "CC-BY-4.0"
    assert info["sources"][0]["commit"] == "72ce5ac14978a324c2fd18d49484e65292cbe316"
    assert "verified by" in run("info", "rucoco").stdout
    assert Path(run("path", "litbank").stdout.strip()).joinpath("coref", "conll").is_dir()
    assert run("cite", "gum").stdout.startswith("@article{zeldes2017gum,")
    unknown = run("info", "gumm")
    assert unknown.returncode == 1 and "did you mean gum" in unknown.stderr


# ------------------------------------------------------------------------------- every failure, on a tiny corpus


def _archive(files: dict[str, bytes], top: str = "tiny-0123456789ab", kind: str = "tar") -> bytes:
    buffer = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w") as out:
            for name, data in files.items():
                out.writestr(f"{top}/{name}" if top else name, data)
        return buffer.getvalue()
    with tarfile.open(fileobj=buffer, mode="w:gz") as out:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}" if top else name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


TINY = {"data/a.conllu": b"# newdoc id = a\n# sent_id = 1\n# text = Hi\n1\tHi\thi\tINTJ\t_\t_\t0\troot\t_\t_\n\n",
        "data/b.txt": b"second file\n", "README.md": b"tiny\n"}


def _tiny_catalog_text(url: str, manifest: str) -> str:
    licensed = ('license = { spdx = "CC-BY-NC-4.0", url = "https://example.invalid/license", redistributable = true, '
                'restricts_use = true }')
    return f'''[[corpus]]
id = "tiny"
version = "1"
name = "Tiny"
languages = ["en"]
access = "public"
{licensed}
homepage = "https://example.invalid/"
reader = "corefud"
path = "data/a.conllu"
data = ["data", "README.md"]
notes = ["a test corpus"]
citation = """@misc{{tiny, title = {{Tiny}}}}"""
[[corpus.source]]
url = "{url}"
manifest = "{manifest}"
complete = true
'''


def _tiny_catalog(folder: Path, urls: list[str], files: dict[str, bytes] = TINY) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    hashes = [corpora.FileHash(name, len(data), hashlib.sha256(data).hexdigest()) for name, data in files.items()]
    (folder / "tiny.tsv").write_text(corpora.manifest_lines(hashes), encoding="utf-8")
    text = _tiny_catalog_text(urls[0], "tiny.tsv")
    text = text.replace('complete = true\n', 'complete = true\nmirrors = ' + json.dumps(urls[1:]) + "\n")
    (folder / "catalog.toml").write_text(text, encoding="utf-8")
    return folder / "catalog.toml"


class Scripted(http.server.BaseHTTPRequestHandler):
    """Answers each path by a script of behaviours, one per request (the last repeats): ("ok", bytes),
    ("status", code), ("html",), ("truncated", bytes), ("slow", seconds, bytes)."""

    scripts: dict[str, list[tuple]] = {}
    requests: list[str] = []

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).requests.append(self.path)
        script = type(self).scripts.get(self.path, [("status", 404)])
        step = script.pop(0) if len(script) > 1 else script[0]
        kind = step[0]
        if kind == "status":
            self.send_response(step[1])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "slow":
            time.sleep(step[1])
        body = {"ok": lambda: step[1], "html": lambda: b"<!DOCTYPE html><html><body>Sign in</body></html>",
                "truncated": lambda: step[1], "slow": lambda: step[2]}[kind]()
        self.send_response(200)
        self.send_header("Content-Type", "text/html" if kind == "html" else "application/octet-stream")
        self.send_header("Content-Length", str(len(body) * (2 if kind == "truncated" else 1)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2] if kind == "truncated" else body)


@pytest.fixture
def scripted() -> tuple[str, type[Scripted]]:
    handler = type("Handler", (Scripted,), {"scripts": {}, "requests": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()
    server.server_close()


def _config(tmp_path: Path, catalog: Path, **options) -> corpora.Settings:
    said: list[str] = []
    config = corpora.settings(cache_dir=tmp_path / "cache", catalog=corpora.load_catalog(catalog),
                              say=said.append, offline=False, **options)
    config.retries = 1
    config.said = said
    return config


def _left_in_cache(tmp_path: Path) -> list[str]:
    cache = tmp_path / "cache"
    return sorted(p.name for p in cache.iterdir() if p.name != ".locks") if cache.exists() else []


@pytest.mark.parametrize("first", [("status", 404), ("status", 500), ("html",), ("truncated", _archive(TINY)),
                                   ("ok", _archive({**TINY, "data/b.txt": b"changed\n"})),
                                   ("ok", b"not an archive at all")],
                         ids=["404", "500", "html-200", "truncated", "wrong-file", "not-an-archive"])
def test_a_bad_url_is_passed_over_for_the_next(tmp_path: Path, scripted, first: tuple) -> None:
    base, handler = scripted
    handler.scripts = {"/main/tiny.tar.gz": [first], "/other/tiny.tar.gz": [("ok", _archive(TINY))]}
    config = _config(tmp_path, _tiny_catalog(tmp_path, [f"{base}/main/tiny.tar.gz", f"{base}/other/tiny.tar.gz"]))
    done = corpora.fetch(["tiny"], config)[0]
    assert done.fetched and (done.path / "data" / "b.txt").read_bytes() == b"second file\n"
    assert corpora.verify("tiny", config).ok
    assert handler.requests[-1] == "/other/tiny.tar.gz"
    assert _left_in_cache(tmp_path) == ["tiny"]  # no temporary folder, no partial download left


def test_a_transient_failure_is_retried_on_the_same_url(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    handler.scripts = {"/tiny.tar.gz": [("status", 503), ("ok", _archive(TINY))]}
    config = _config(tmp_path, _tiny_catalog(tmp_path, [f"{base}/tiny.tar.gz"]))
    assert corpora.fetch(["tiny"], config)[0].fetched
    assert handler.requests == ["/tiny.tar.gz", "/tiny.tar.gz"]


def test_a_slow_server_times_out_and_the_next_url_is_tried(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    handler.scripts = {"/slow/tiny.tar.gz": [("slow", 3, _archive(TINY))],
                       "/fast/tiny.tar.gz": [("ok", _archive(TINY))]}
    config = _config(tmp_path, _tiny_catalog(tmp_path, [f"{base}/slow/tiny.tar.gz", f"{base}/fast/tiny.tar.gz"]),
                     timeout=0.5)
    config.retries = 0
    assert corpora.fetch(["tiny"], config)[0].fetched
    assert any("timed out" in line or "slow" in line for line in config.said + handler.requests)


def test_when_every_url_fails_the_error_names_each_and_nothing_is_left(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    wrong = _archive({**TINY, "data/b.txt": b"changed\n"})
    handler.scripts = {"/a/tiny.tar.gz": [("status", 404)], "/b/tiny.tar.gz": [("ok", wrong)]}
    config = _config(tmp_path, _tiny_catalog(tmp_path, [f"{base}/a/tiny.tar.gz", f"{base}/b/tiny.tar.gz"]))
    with pytest.raises(CorpusError) as raised:
        corpora.fetch(["tiny"], config)
    message = str(raised.value)
    assert f"{base}/a/tiny.tar.gz: HTTP 404" in message
    expected = hashlib.sha256(TINY["data/b.txt"]).hexdigest()
    actual = hashlib.sha256(b"changed\n").hexdigest()
    assert f"checksum mismatch: data/b.txt from {base}/b/tiny.tar.gz: expected sha256 {expected}, got {actual}" \
        in message and "--unverified" in message
    assert _left_in_cache(tmp_path) == [] and not corpora.list_corpora(config=config)[0].cached
    kept = corpora.fetch(["tiny"], config, unverified=True)[0]  # knowingly: kept and recorded as such
    assert kept.fetched and any("kept unverified" in note for note in kept.notes)
    assert corpora.verify("tiny", config).recorded_as == "unverified"


def test_mirrors_come_first_and_a_cached_corpus_opens_no_connection(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    handler.scripts = {"/lab/tiny/1/tiny.tar.gz": [("ok", _archive(TINY, top="whatever-name"))]}
    catalog = _tiny_catalog(tmp_path, ["https://example.invalid/tiny.tar.gz"])
    config = _config(tmp_path, catalog, mirrors=[f"{base}/lab"])
    assert corpora.fetch(["tiny"], config)[0].fetched
    assert handler.requests == ["/lab/tiny/1/tiny.tar.gz"]  # the archive's top folder name is not relied on
    again = corpora.fetch(["tiny"], _config(tmp_path, catalog, mirrors=["http://127.0.0.1:9"]))[0]
    assert not again.fetched and handler.requests == ["/lab/tiny/1/tiny.tar.gz"]
    offline = _config(tmp_path, catalog)
    offline.offline = True
    assert corpora.resolve("tiny", offline).path.name == "a.conllu"  # cached: works offline
    corpora.remove("tiny", offline)
    with pytest.raises(CorpusError, match=r"HARMONIZE_OFFLINE is set \(offline\): run `harmonize corpora fetch "):
        corpora.fetch(["tiny"], offline)
    assert handler.requests == ["/lab/tiny/1/tiny.tar.gz"]


def test_the_restricting_license_is_shown_before_the_first_download(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    handler.scripts = {"/tiny.tar.gz": [("ok", _archive(TINY))]}
    config = _config(tmp_path, _tiny_catalog(tmp_path, [f"{base}/tiny.tar.gz"]))
    corpora.fetch(["tiny"], config)
    assert config.said[0].startswith("license: tiny@1 is licensed CC-BY-NC-4.0")
    assert config.said[1].startswith("fetching tiny@1")


@pytest.mark.parametrize("member, refusal", [
    ("../evil.txt", "outside the corpus folder"), ("/etc/evil.txt", "outside the corpus folder"),
    ("link", "a link or a device"),
])
def test_extraction_never_writes_outside_the_corpus(tmp_path: Path, scripted, member: str, refusal: str) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as out:
        for name, data in TINY.items():
            info = tarfile.TarInfo(f"tiny/{name}")
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
        info = tarfile.TarInfo(member if member != "link" else "tiny/data/link")
        if member == "link":
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        else:
            info.size = 4
        out.addfile(info, io.BytesIO(b"evil") if member != "link" else None)
    base, handler = scripted
    handler.scripts = {"/tiny.tar.gz": [("ok", buffer.getvalue())]}
    config = _config(tmp_path, _tiny_catalog(tmp_path, [f"{base}/tiny.tar.gz"]))
    with pytest.raises(CorpusError, match=refusal):
        corpora.fetch(["tiny"], config)
    assert not (tmp_path / "evil.txt").exists() and not Path("/etc/evil.txt").exists()
    assert _left_in_cache(tmp_path) == []


def test_extraction_is_capped_in_size(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    handler.scripts = {"/tiny.tar.gz": [("ok", _archive(TINY))]}
    config = _config(tmp_path, _tiny_catalog(tmp_path, [f"{base}/tiny.tar.gz"]))
    config.max_bytes = 20
    with pytest.raises(CorpusError, match="unpacks to more than 20 bytes"):
        corpora.fetch(["tiny"], config)


def test_https_is_never_followed_down_to_http() -> None:
    class Redirect:
        is_redirect = True
        url = "https://example.invalid/tiny.tar.gz"
        headers = {"location": "http://example.invalid/tiny.tar.gz"}

    with pytest.raises(corpora._Failure, match="from https down to http"):
        corpora._no_downgrade(Redirect())
    Redirect.headers = {"location": "https://mirror.invalid/tiny.tar.gz"}
    assert corpora._no_downgrade(Redirect()) is not None


def test_two_processes_fetching_one_corpus_end_with_one_good_copy(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    handler.scripts = {"/tiny.tar.gz": [("slow", 1, _archive(TINY))]}
    catalog = _tiny_catalog(tmp_path, [f"{base}/tiny.tar.gz"])
    environment = {**os.environ, "HARMONIZE_CATALOG": str(catalog), "HARMONIZE_DATA_DIR": str(tmp_path / "cache"),
                   "HARMONIZE_MIRROR": ""}
    runs = [subprocess.Popen([*HARMONIZE, "corpora", "fetch", "tiny"], env=environment, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    said = [run.communicate(timeout=120)[1] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], said
    assert sorted("already in the cache" in text for text in said) == [False, True]  # one fetched, one waited
    assert handler.requests == ["/tiny.tar.gz"]
    assert _left_in_cache(tmp_path) == ["tiny"]
    verified = subprocess.run([*HARMONIZE, "corpora", "verify", "tiny"], env=environment, capture_output=True,
                              text=True, timeout=60)
    assert verified.returncode == 0 and "3 files as fetched (verified)" in verified.stderr


def test_add_verify_remove_and_a_mirror_folder(tmp_path: Path, scripted) -> None:
    base, handler = scripted
    catalog = _tiny_catalog(tmp_path, ["https://example.invalid/tiny.tar.gz"])
    config = _config(tmp_path, catalog)
    download = tmp_path / "tiny.tar.gz"
    download.write_bytes(_archive(TINY))
    added = corpora.add("tiny", download, config)
    assert (added.path / "README.md").read_bytes() == b"tiny\n" and corpora.verify("tiny", config).ok
    (added.path / "data" / "b.txt").write_bytes(b"edited by hand\n")
    (added.path / "data" / "new.txt").write_bytes(b"x")
    found = corpora.verify("tiny", config)
    assert found.changed == ("data/b.txt",) and found.added == ("data/new.txt",) and not found.ok
    environment = {**os.environ, "HARMONIZE_CATALOG": str(catalog), "HARMONIZE_DATA_DIR": str(tmp_path / "cache")}
    command = subprocess.run([*HARMONIZE, "corpora", "verify", "tiny"], env=environment, capture_output=True,
                             text=True, timeout=60)
    assert command.returncode == 1 and "1 file(s) changed, e.g. data/b.txt" in command.stderr
    assert corpora.remove("tiny", config) and not corpora.remove("tiny", config)
    folder = tmp_path / "laid-out"
    for name, data in TINY.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    corpora.add("tiny", folder, config)
    (folder / "data" / "b.txt").write_bytes(b"other\n")
    with pytest.raises(CorpusError, match="checksum mismatch: data/b.txt"):
        corpora.add("tiny", folder, config)
    written = corpora.mirror(["tiny"], tmp_path / "mirror", config)
    assert written == [tmp_path / "mirror" / "tiny" / "1" / "tiny.tar.gz"]
    elsewhere = corpora.settings(cache_dir=tmp_path / "cache2", catalog=config.catalog,
                                 mirrors=[(tmp_path / "mirror").as_uri()], offline=False)
    assert corpora.fetch(["tiny"], elsewhere)[0].fetched and corpora.verify("tiny", elsewhere).ok
    with serving(tmp_path / "mirror") as url:  # the same folder over HTTP, as a lab serves it
        over_http = corpora.settings(cache_dir=tmp_path / "cache3", catalog=config.catalog, mirrors=[url],
                                     offline=False)
        assert corpora.fetch(["tiny"], over_http)[0].fetched


def test_the_command_line_says_each_problem_in_one_line(tmp_path: Path) -> None:
    environment = {**os.environ, "HARMONIZE_DATA_DIR": str(tmp_path / "cache"), "HARMONIZE_OFFLINE": "1"}
    cases = {("corpora", "fetch", "gum"): "HARMONIZE_OFFLINE is set (offline)",
             ("corpora", "fetch", "ontonotes"): "harmonize corpora add ontonotes --from PATH",
             ("corpora", "path", "litbank"): "run `harmonize corpora fetch litbank`",
             ("corpora", "info", "gum@9"): "no such version of gum (the catalog has 11.1.0, 11.0.0, 7.2.0)",
             ("corpora", "list", "--access", "secret"): "--access 'secret'",
             ("corpora", "fetch", "gum", "--mirror", "ftp://x"): "give an http://, https:// or file:// base URL",
             ("corpora", "add", "gum", "--from", "/no/such"): "/no/such: no such file or folder",
             ("--offline", "stats", "litbank"): "litbank is not fetched yet"}
    for arguments, message in cases.items():
        done = subprocess.run([*HARMONIZE, *arguments], env=environment, capture_output=True, text=True, timeout=60)
        assert done.returncode == 1, arguments
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (arguments, done.stderr)


# ------------------------------------------------------------------------------------ scheduled link check only


@pytest.mark.network
@pytest.mark.parametrize("key", [entry.key for entry in corpora.load_catalog().entries if entry.sources])
def test_every_catalog_source_answers(key: str) -> None:
    """A small request to each source (deselected by default: `pytest -m network`, for a scheduled link check)."""
    import requests

    entry = corpora.load_catalog().get(key)
    for source in entry.sources:
        answer = requests.get(source.url, stream=True, timeout=60, headers={"Range": "bytes=0-1023"})
        answer.close()
        assert answer.status_code in (200, 206), f"{key}: {source.url}: HTTP {answer.status_code}"
