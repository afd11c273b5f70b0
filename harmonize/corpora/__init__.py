"""The public coreference corpora by name: a catalog shipped in the package (``catalog.toml``, one entry per corpus
and version, with per-file content hashes in ``manifests/``), and a cache that fetches, verifies, mirrors and
resolves them.

A corpus id (``gum``, ``gum@11.1.0``, ``litbank/coref/brat/105_persuasion_brat.ann``) names a corpus, or a path
inside it, wherever a command takes a path; an existing path always wins. The transfer itself is pooch's
(``pooch.HTTPDownloader``); the rest is here, in one place:

- **Pinned sources, verified by content.** A GitHub source is an archive at a commit; GitHub rebuilds archives and
  their bytes change, so it is verified by the sha256 of each file inside (``manifests/``, computed from the
  repository at that commit), never by the archive's bytes, and its single top folder is taken whatever its name.
  Other sources are verified by the file's sha256 where the catalog knows it; where it does not, the entry says so,
  `fetch` says so, and the completion record keeps the hashes of what was received, for `verify` later.
- **Mirrors.** ``--mirror BASE`` (and ``HARMONIZE_MIRROR``, space-separated) is tried first, in order:
  ``BASE/ID/VERSION/NAME``, NAME the last segment of the source's URL; `mirror` writes such a folder from the cache.
- **Atomic.** A download goes to a temporary file in the cache and is checked; a corpus is extracted into a temporary
  folder, verified, given its completion record last and renamed into place, under a lock per corpus: an interrupted
  fetch leaves nothing that passes for a corpus, and two processes fetching one corpus end with one good copy.
- **Careful transfer.** Timeouts, retries, then the next URL, on any failure: a status, a checksum mismatch, an HTML
  page served as data, a truncated file; never from https down to http; proxies and CA bundles come from the
  environment (requests'). ``HARMONIZE_OFFLINE=1`` opens no connection; a cached, complete corpus never does.
- **Safe extraction.** Nothing is written outside the corpus folder: absolute names, ``..``, links and devices are
  refused, and the total size is capped.
"""

from __future__ import annotations

import contextlib
import fnmatch
import io
import json
import os
import re
import shutil
import tarfile
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

from harmonize.errors import HarmonizeError
from harmonize.io import file_sha256

ACCESS = ("public", "registration", "manual")
# The completion record (JSON): written last, a corpus folder without it is no corpus. No data file's ending, so that
# no reader takes it for a document.
RECORD = ".harmonize-corpus"
ENV_CACHE = "HARMONIZE_DATA_DIR"
ENV_OFFLINE = "HARMONIZE_OFFLINE"
ENV_MIRROR = "HARMONIZE_MIRROR"
ENV_CATALOG = "HARMONIZE_CATALOG"
ENV_FETCH = "HARMONIZE_FETCH"
DEFAULT_TIMEOUT = 60.0  # seconds without a byte before a transfer is given up (then retried, then the next URL)
DEFAULT_RETRIES = 2  # further tries of one URL after a transient failure (timeout, connection, 5xx)
DEFAULT_MAX_BYTES = 50 * 2**30  # extraction cap: the largest corpus here unpacks to a few GB
_JUNK = ("__MACOSX/", ".DS_Store")  # macOS' metadata (WinoGrande's zip, ParCorFull's folders): never data
_ID = re.compile(r"^[a-z0-9][a-z0-9._+-]*$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


class CorpusError(HarmonizeError):
    """A catalog, cache or transfer problem, said in one line with what to do next."""


# ---------------------------------------------------------------------------------------------------- the catalog


@dataclass(frozen=True)
class License:
    """A corpus' license: SPDX id, where it is stated, whether the data may be redistributed (None: not known
    here), and whether it restricts use (non-commercial, no derivatives, a data agreement): such a license is shown
    before the first download."""

    spdx: str
    url: str = ""
    redistributable: bool | None = None
    restricts_use: bool = False
    note: str = ""


@dataclass(frozen=True)
class FileHash:
    """One file of a source, as the catalog knows it: where it goes in the corpus, its size and sha256."""

    path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Source:
    """Where (part of) a corpus comes from.

    ``kind`` is ``archive`` (a tar or zip whose single top folder is taken; ``take`` names a folder inside it,
    placed at ``to`` in the corpus) or ``file`` (placed as ``to``). ``sha256`` is the downloaded file's, where
    known: a GitHub archive has none (its bytes change), its ``files`` (the manifest, ``complete`` when it lists
    every file under the entry's data paths) verify it by content. ``mirrors`` are alternative URLs, tried after
    the main one.
    """

    url: str
    kind: str = "archive"
    sha256: str | None = None
    size: int | None = None
    repository: str = ""
    commit: str = ""
    tag: str = ""
    take: str = ""
    to: str = ""
    mirrors: tuple[str, ...] = ()
    files: tuple[FileHash, ...] = ()
    complete: bool = False
    note: str = ""

    @property
    def name(self) -> str:
        """The last segment of the URL: the file's name under a mirror's ``ID/VERSION/``."""
        return unquote(urlparse(self.url).path.rstrip("/").rpartition("/")[2])

    @property
    def verified_by(self) -> str:
        if self.sha256:
            return "sha256 of the file"
        if self.files and self.complete:
            return "sha256 of every file inside"
        if self.files:
            return "sha256 of the files the catalog knows; the others recorded as received"
        return "nothing known here: the sha256 of what is received is recorded"


@dataclass(frozen=True)
class Part:
    """A folder or file inside a corpus read with its own reader (LitBank's ``coref/brat`` and ``coref/conll``)."""

    path: str
    reader: str


@dataclass(frozen=True)
class Entry:
    """One corpus at one version, as the catalog describes it (see ``docs/corpora.md`` for the fields)."""

    id: str
    version: str
    name: str
    languages: tuple[str, ...]
    access: str
    license: License
    citation: str
    homepage: str
    reader: str = ""
    path: str = ""
    data: tuple[str, ...] = ()
    parts: tuple[Part, ...] = ()
    sources: tuple[Source, ...] = ()
    paper_version: str = ""
    genres: tuple[str, ...] = ()
    size: dict[str, int] = field(default_factory=dict)
    description: str = ""
    instructions: str = ""
    notes: tuple[str, ...] = ()
    default: bool = False
    kind: str = "corpus"  # or "parser model": what `--parse udpipe:NAME` takes (udpipe-NAME)

    @property
    def key(self) -> str:
        return f"{self.id}@{self.version}"

    def part_for(self, inner: str) -> Part | None:
        """The part whose folder holds ``inner`` (the longest), if any."""
        inner = inner.strip("/")
        found = [p for p in self.parts if inner == p.path or inner.startswith(p.path.rstrip("/") + "/")]
        return max(found, key=lambda p: len(p.path)) if found else None

    def keeps(self, inner: str) -> bool:
        """Whether a file at ``inner`` (a path in the corpus) is part of the corpus' data: under one of the
        ``data`` folders, or matching one of its patterns (``ECB+/*/*.xml``)."""
        if inner.startswith(_JUNK[0]) or inner.rpartition("/")[2] == _JUNK[1]:
            return False
        return not self.data or any(_under(inner, d) for d in self.data)


@dataclass(frozen=True)
class Catalog:
    """Every entry, by ``id@version``; an id alone names its default version (the entry marked ``default``, else
    the one listed first)."""

    entries: tuple[Entry, ...]

    def ids(self) -> list[str]:
        return list(dict.fromkeys(entry.id for entry in self.entries))

    def versions(self, corpus_id: str) -> list[Entry]:
        return [entry for entry in self.entries if entry.id == corpus_id]

    def find(self, spec: str) -> Entry | None:
        """The entry ``spec`` (``ID`` or ``ID@VERSION``) names, or None."""
        corpus_id, at, version = spec.partition("@")
        versions = self.versions(corpus_id)
        if not versions:
            return None
        if not at:
            return next((entry for entry in versions if entry.default), versions[0])
        return next((entry for entry in versions if entry.version == version), None)

    def get(self, spec: str) -> Entry:
        """As `find`, or an error naming the versions there are or the ids that come close."""
        entry = self.find(spec)
        if entry is not None:
            return entry
        corpus_id = spec.partition("@")[0]
        versions = self.versions(corpus_id)
        if versions:
            raise CorpusError(f"{spec}: no such version of {corpus_id} (the catalog has "
                              f"{', '.join(e.version for e in versions)})")
        close = [i for i in self.ids() if corpus_id[:3] in i]
        hint = f"; did you mean {', '.join(close)}?" if close else "; `harmonize corpora list` lists them"
        raise CorpusError(f"{spec}: no corpus of that id in the catalog{hint}")


def _under(inner: str, data: str) -> bool:
    if any(c in data for c in "*?["):
        return fnmatch.fnmatchcase(inner, data)
    return inner == data or inner.startswith(data.rstrip("/") + "/")


def _check_id(corpus_id: str, version: str, where: str) -> None:
    if not _ID.match(corpus_id) or ".." in corpus_id:
        raise CorpusError(f"{where}: corpus id {corpus_id!r} is not lower case letters, digits and . _ + -")
    if not _VERSION.match(version) or ".." in version:
        raise CorpusError(f"{where}: version {version!r} of {corpus_id} is not letters, digits and . _ + -")


def _inner_path(text: str, where: str) -> str:
    """A path inside a corpus, as given: relative, with no ``..``, ``/``-separated."""
    pure = PurePosixPath(text.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or (pure.parts and ":" in pure.parts[0]):
        raise CorpusError(f"{where}: {text!r} is no path inside a corpus (absolute, or with ..)")
    return "/".join(part for part in pure.parts if part != ".")


def _manifest(text: str, where: str) -> tuple[FileHash, ...]:
    """A manifest file's lines ``SHA256<TAB>SIZE<TAB>PATH`` (``#`` comments)."""
    files = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not re.fullmatch(r"[0-9a-f]{64}", parts[0]) or not parts[1].isdigit():
            raise CorpusError(f"{where}:{number}: not SHA256<TAB>SIZE<TAB>PATH")
        files.append(FileHash(_inner_path(parts[2], f"{where}:{number}"), int(parts[1]), parts[0]))
    return tuple(files)


def _entry(raw: dict, where: str, manifests: Callable[[str], str]) -> Entry:
    try:
        corpus_id, version = raw["id"], str(raw["version"])
        _check_id(corpus_id, version, where)
        where = f"{where} [{corpus_id}@{version}]"
        access = raw.get("access", "public")
        if access not in ACCESS:
            raise CorpusError(f"{where}: access {access!r} is not one of {', '.join(ACCESS)}")
        sources = []
        for source in raw.get("source", []):
            files = _manifest(manifests(source["manifest"]), source["manifest"]) if "manifest" in source else ()
            kind = source.get("kind", "archive")
            if kind not in ("archive", "file"):
                raise CorpusError(f"{where}: source kind {kind!r} is not archive or file")
            sources.append(Source(
                url=source["url"], kind=kind, sha256=source.get("sha256"), size=source.get("size"),
                repository=source.get("repository", ""), commit=source.get("commit", ""),
                tag=source.get("tag", ""), take=_inner_path(source.get("take", ""), where),
                to=_inner_path(source.get("to", ""), where), mirrors=tuple(source.get("mirrors", ())),
                files=files, complete=bool(source.get("complete", False)), note=source.get("note", "")))
        if access == "public" and not sources:
            raise CorpusError(f"{where}: a public corpus needs a source")
        license_ = raw["license"]
        return Entry(
            id=corpus_id, version=version, name=raw["name"], languages=tuple(raw["languages"]), access=access,
            license=License(spdx=license_["spdx"], url=license_.get("url", ""),
                            redistributable=license_.get("redistributable"),
                            restricts_use=bool(license_.get("restricts_use", False)), note=license_.get("note", "")),
            citation=raw["citation"].strip(), homepage=raw.get("homepage", ""), reader=raw.get("reader", ""),
            path=_inner_path(raw.get("path", ""), where),
            data=tuple(_inner_path(d, where) for d in raw.get("data", ())),
            parts=tuple(Part(_inner_path(p["path"], where), p["reader"]) for p in raw.get("part", ())),
            sources=tuple(sources), paper_version=str(raw.get("paper_version", "")),
            genres=tuple(raw.get("genres", ())), size=dict(raw.get("size", {})),
            description=raw.get("description", "").strip(), instructions=raw.get("instructions", "").strip(),
            notes=tuple(raw.get("notes", ())), default=bool(raw.get("default", False)),
            kind=_kind(raw.get("kind", "corpus"), where))
    except KeyError as missing:
        raise CorpusError(f"{where}: the entry has no {missing.args[0]!r}") from None


KINDS = ("corpus", "parser model")


def _kind(kind: str, where: str) -> str:
    if kind not in KINDS:
        raise CorpusError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    return kind


def _parse_catalog(text: str, where: str, manifests: Callable[[str], str]) -> list[Entry]:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CorpusError(f"{where}: not TOML: {error}") from None
    return [_entry(item, f"{where} corpus {number}", manifests) for number, item in enumerate(raw.get("corpus", []), 1)]


def load_catalog(extra: str | Path | None = None) -> Catalog:
    """The shipped catalog, plus (replacing entries of the same ``id@version``, else added) the entries of
    ``extra`` or of the file ``HARMONIZE_CATALOG`` names: a lab's own corpora or pinned copies."""
    shipped = resources.files("harmonize.corpora")
    entries = {entry.key: entry for entry in _parse_catalog(
        (shipped / "catalog.toml").read_text(encoding="utf-8"), "catalog.toml",
        lambda name: (shipped / "manifests" / name).read_text(encoding="utf-8"))}
    extra = extra or os.environ.get(ENV_CATALOG)
    if extra:
        path = Path(extra)
        if not path.is_file():
            raise CorpusError(f"{path}: no such catalog file ({ENV_CATALOG})")
        for entry in _parse_catalog(path.read_text(encoding="utf-8"), str(path),
                                    lambda name: (path.parent / _inner_path(name, str(path))).read_text("utf-8")):
            entries[entry.key] = entry
    return Catalog(tuple(entries.values()))


# -------------------------------------------------------------------------------------------------- the settings


def default_cache_dir() -> Path:
    """``HARMONIZE_DATA_DIR``, else the platform's user cache folder (platformdirs) under ``corpora``."""
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("harmonize")) / "corpora"


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no")


def fetch_wanted() -> bool:
    """Whether a corpus id not yet cached is fetched where it is named (``HARMONIZE_FETCH``, ``--fetch``)."""
    return _truthy(os.environ.get(ENV_FETCH))


@dataclass
class Settings:
    """Where the cache is and how to fetch: mirrors first, offline, progress, timeouts. `settings` makes one from
    the environment; every verb takes one."""

    cache_dir: Path
    mirrors: tuple[str, ...] = ()
    offline: bool = False
    progress: bool = False
    timeout: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    max_bytes: int = DEFAULT_MAX_BYTES
    say: Callable[[str], None] = field(default=lambda message: None, repr=False)
    catalog: Catalog | None = None

    def the_catalog(self) -> Catalog:
        if self.catalog is None:
            self.catalog = load_catalog()
        return self.catalog


def settings(cache_dir: str | Path | None = None, mirrors: Sequence[str] = (), offline: bool | None = None,
             progress: bool = False, say: Callable[[str], None] | None = None, timeout: float | None = None,
             catalog: Catalog | None = None) -> Settings:
    """Settings from the arguments, else the environment: ``HARMONIZE_DATA_DIR``, ``HARMONIZE_MIRROR`` (base URLs,
    space-separated, after ``mirrors``), ``HARMONIZE_OFFLINE``, ``HARMONIZE_TIMEOUT`` (seconds)."""
    from_environment = tuple(os.environ.get(ENV_MIRROR, "").split())
    for base in (*mirrors, *from_environment):
        if urlparse(base).scheme not in ("http", "https", "file"):
            raise CorpusError(f"mirror {base!r}: give an http://, https:// or file:// base URL")
    return Settings(
        cache_dir=Path(cache_dir).expanduser() if cache_dir else default_cache_dir(),
        mirrors=(*mirrors, *from_environment),
        offline=_truthy(os.environ.get(ENV_OFFLINE)) if offline is None else offline, progress=progress,
        timeout=timeout or float(os.environ.get("HARMONIZE_TIMEOUT") or DEFAULT_TIMEOUT),
        say=say or (lambda message: None), catalog=catalog)


# ------------------------------------------------------------------------------------------------------ the cache


def _folder(config: Settings, entry: Entry) -> Path:
    return config.cache_dir / entry.id / entry.version


def _record(config: Settings, entry: Entry) -> dict | None:
    try:
        return json.loads((_folder(config, entry) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def is_cached(spec: str, config: Settings | None = None) -> bool:
    """Whether the corpus is in the cache, complete (its completion record there)."""
    config = config or settings()
    return _record(config, config.the_catalog().get(spec)) is not None


@dataclass(frozen=True)
class Status:
    """A catalog entry and whether it is cached (complete) here."""

    entry: Entry
    cached: bool
    path: Path


def list_corpora(language: str | None = None, access: str | None = None,
                 config: Settings | None = None) -> list[Status]:
    """Every entry (of ``language``, of ``access``), with whether it is cached."""
    config = config or settings()
    if access is not None and access not in ACCESS:
        raise CorpusError(f"--access {access!r}: one of {', '.join(ACCESS)}")
    found = []
    for entry in config.the_catalog().entries:
        if language and language not in entry.languages:
            continue
        if access and entry.access != access:
            continue
        found.append(Status(entry, _record(config, entry) is not None, _folder(config, entry)))
    return found


def info(spec: str, config: Settings | None = None) -> dict:
    """Everything the catalog says of a corpus, with its cache path and status (JSON-ready)."""
    config = config or settings()
    entry = config.the_catalog().get(spec)
    record = _record(config, entry)
    described = asdict(entry)
    for source, raw in zip(entry.sources, described["sources"]):
        raw["files"] = len(source.files)
        raw["name"] = source.name
        raw["verified_by"] = source.verified_by
    described.update(key=entry.key, cache_path=str(_folder(config, entry)),
                     status="cached" if record else "not cached",
                     fetched=record and {k: record[k] for k in ("fetched_at", "verified", "sources") if k in record})
    return described


def cite(spec: str, config: Settings | None = None) -> str:
    """The corpus' BibTeX."""
    return (config or settings()).the_catalog().get(spec).citation + "\n"


def path(spec: str, config: Settings | None = None) -> Path:
    """Where the cached corpus is; an error naming the command that gets it where it is not cached."""
    config = config or settings()
    entry = config.the_catalog().get(spec)
    if _record(config, entry) is None:
        raise CorpusError(_not_cached(entry, spec))
    return _folder(config, entry)


def _not_cached(entry: Entry, spec: str) -> str:
    if entry.access == "manual":
        return (f"{spec} is not in the cache: obtain it as `harmonize corpora info {entry.id}` says, then "
                f"`harmonize corpora add {spec} --from PATH`")
    return f"{spec} is not fetched yet: run `harmonize corpora fetch {spec}`"


def remove(spec: str, config: Settings | None = None) -> bool:
    """Take the corpus out of the cache; False where it was not there."""
    config = config or settings()
    entry = config.the_catalog().get(spec)
    folder = _folder(config, entry)
    if not folder.exists():
        return False
    with _locked(config, entry):
        trash = folder.with_name(f".removing-{folder.name}-{os.getpid()}")
        folder.rename(trash)  # gone from the cache at once, then deleted
        shutil.rmtree(trash)
    return True


@contextlib.contextmanager
def _locked(config: Settings, entry: Entry) -> Iterator[None]:
    """One process at a time per corpus (an advisory lock file in the cache)."""
    locks = config.cache_dir / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / f"{entry.id}@{entry.version}.lock", "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: msvcrt locks a byte range
            import msvcrt

            handle.seek(0)
            while True:
                try:
                    msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError:
                    time.sleep(0.5)
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
            return
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# --------------------------------------------------------------------------------------------------- the transfer


class _Failure(Exception):
    """One URL did not give the file; ``transient`` failures are retried on the same URL."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


def candidate_urls(entry: Entry, source: Source, mirrors: Sequence[str]) -> list[str]:
    """The URLs tried for a source, in order: each mirror's ``BASE/ID/VERSION/NAME``, the source, its mirrors."""
    return [*(f"{base.rstrip('/')}/{entry.id}/{entry.version}/{source.name}" for base in mirrors),
            source.url, *source.mirrors]


def _no_downgrade(response, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - a requests hook
    """Refuse a redirect from https down to http before it is followed."""
    location = response.headers.get("location", "") if response.is_redirect else ""
    if response.url.startswith("https:") and location.startswith("http:"):
        raise _Failure(f"{response.url} redirects from https down to http ({location}): refused")
    return response


class _Bar:
    """pooch's progress-bar protocol (total, update, reset, close) over a rich bar on stderr."""

    def __init__(self, what: str, files: bool = False) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TransferSpeedColumn,
        )

        counts = (MofNCompleteColumn(), TextColumn("files")) if files else (DownloadColumn(), TransferSpeedColumn())
        self.progress = Progress(TextColumn(what), BarColumn(), *counts, console=Console(stderr=True),
                                 transient=True)
        self.task = self.progress.add_task(what, total=None)
        self.progress.start()

    @property
    def total(self) -> float | None:
        return self.progress.tasks[0].total

    @total.setter
    def total(self, value: float) -> None:
        self.progress.update(self.task, total=value or None)

    def update(self, advance: int) -> None:
        self.progress.update(self.task, advance=advance)

    def reset(self) -> None:
        self.progress.reset(self.task)

    def close(self) -> None:
        self.progress.stop()


def _download(url: str, target: Path, config: Settings, what: str) -> None:
    """``url`` into ``target`` (a file:// URL copied), or a `_Failure` saying why."""
    parsed = urlparse(url)
    if parsed.scheme == "file":
        source = Path(unquote(parsed.path))
        if not source.is_file():
            raise _Failure(f"{url}: no such file")
        shutil.copyfile(source, target)
        return
    if parsed.scheme not in ("http", "https"):
        raise _Failure(f"{url}: only http, https and file URLs are fetched")
    import pooch
    import requests

    bar = _Bar(what) if config.progress else False
    downloader = pooch.HTTPDownloader(progressbar=bar, timeout=config.timeout,
                                      hooks={"response": _no_downgrade},
                                      headers={"User-Agent": "harmonize (corpus catalog)"})
    try:
        downloader(url, str(target), None)
    except requests.HTTPError as error:
        status = error.response.status_code if error.response is not None else 0
        raise _Failure(f"{url}: HTTP {status}", transient=status >= 500 or status == 429) from None
    except (requests.Timeout, requests.ConnectionError) as error:
        kind = "timed out" if isinstance(error, requests.Timeout) else "could not connect"
        raise _Failure(f"{url}: {kind} ({type(error).__name__})", transient=True) from None
    except requests.RequestException as error:
        raise _Failure(f"{url}: {type(error).__name__}: {error}", transient=True) from None
    finally:
        if bar:
            bar.close()


def _looks_like_html(path: Path) -> bool:
    with open(path, "rb") as handle:
        start = handle.read(512).lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html", b"<head", b"<?xml version=\"1.0\"?>\n<!doctype html"))


# ------------------------------------------------------------------------------------------------- the extraction


_Opener = Callable[[], io.BufferedIOBase]


def _archive_members(archive: Path, where: str) -> Iterator[tuple[str, int, _Opener | None]]:
    """(name, size, opener) of each member of a tar or zip archive but folders; the opener is None for a link or a
    device (never written: refused where it is part of the corpus, see `_extract`). A name outside the archive
    (absolute, ``..``) refuses the whole archive."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as handle:
            for item in handle.infolist():
                if item.is_dir():
                    continue
                mode = item.external_attr >> 16
                special = bool(mode) and (mode & 0o170000) not in (0, 0o100000)
                yield (_safe_name(item.filename, where), item.file_size,
                       None if special else lambda item=item: handle.open(item))
        return
    try:
        handle = tarfile.open(archive)
    except tarfile.TarError:
        raise _Failure(f"{where}: neither a zip nor a tar archive (truncated, or another file)") from None
    with handle:
        try:
            for member in handle:
                if member.isdir():
                    continue
                yield (_safe_name(member.name, where), member.size,
                       (lambda member=member: handle.extractfile(member)) if member.isfile() else None)
        except (tarfile.TarError, EOFError, OSError) as error:
            raise _Failure(f"{where}: broken archive ({error}): truncated?") from None


def _safe_name(name: str, where: str) -> str:
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or (pure.parts and ":" in pure.parts[0]):
        raise _Failure(f"{where}: {name!r} would be written outside the corpus folder: refused")
    return "/".join(part for part in pure.parts if part not in (".", ""))


def _top_folder(names: list[str]) -> str:
    """The archive's single top-level folder (GitHub's, whatever its name), or '' where there is none."""
    names = [name for name in names if not name.startswith(_JUNK)]
    tops = {name.split("/", 1)[0] for name in names}
    return next(iter(tops)) if len(tops) == 1 and all("/" in name for name in names) else ""


def _extract(archive: Path, source: Source, entry: Entry, into: Path, budget: list[int], config: Settings,
             where: str) -> list[str]:
    """The archive's files that the entry keeps, written under ``into`` (the corpus folder being made); the names
    written, as corpus paths."""
    names = [name for name, _, _ in _archive_members(archive, where)]
    top = _top_folder(names)
    take = f"{top}/{source.take}".strip("/") if source.take else top
    written = []
    bar = _Bar(f"{entry.key}: unpacking", files=True) if config.progress and len(names) > 200 else None
    if bar:
        bar.total = len(names)
    try:
        for name, size, opener in _archive_members(archive, where):
            if bar:
                bar.update(1)
            if take and not name.startswith(take + "/"):
                continue
            inner = "/".join(filter(None, (source.to, name[len(take) + 1:] if take else name)))
            if not entry.keeps(inner):
                continue
            if opener is None:
                raise _Failure(f"{where}: {name!r} is a link or a device: refused")
            budget[0] -= size
            if budget[0] < 0:
                raise _Failure(f"{where}: unpacks to more than {config.max_bytes} bytes: refused (the cap)")
            target = into / inner
            target.parent.mkdir(parents=True, exist_ok=True)
            with opener() as data, open(target, "wb") as out:
                copied = 0
                for block in iter(lambda: data.read(1 << 20), b""):
                    copied += len(block)
                    if copied > size:  # a zip entry that lies about its size
                        raise _Failure(f"{where}: {name!r} is larger than its header says: refused")
                    out.write(block)
            written.append(inner)
    except (zipfile.BadZipFile, EOFError, OSError, tarfile.TarError) as error:
        if isinstance(error, _Failure):
            raise
        raise _Failure(f"{where}: broken archive ({error}): truncated?") from None
    finally:
        if bar:
            bar.close()
    return written


def _checked_files(source: Source, into: Path, written: list[str], where: str) -> dict[str, str]:
    """The sha256 of each file the source gave, checked against what the catalog knows of it."""
    hashes = {inner: file_sha256(into / inner) for inner in written}
    for known in source.files:
        if known.path not in hashes:
            raise _Failure(f"{where}: {known.path} is missing (the catalog lists it at "
                           f"{source.commit or 'this version'})")
        if hashes[known.path] != known.sha256:
            raise _Failure(_mismatch(known.path, where, known.sha256, hashes[known.path]))
    if source.complete:
        listed = {known.path for known in source.files}
        extra = sorted(set(hashes) - listed)
        if extra:
            raise _Failure(f"{where}: {len(extra)} file(s) the catalog does not list at {source.commit}, e.g. "
                           f"{extra[0]}: another version?")
    return hashes


def _mismatch(name: str, url: str, expected: str, actual: str) -> str:
    return (f"checksum mismatch: {name} from {url}: expected sha256 {expected}, got {actual}. The file changed "
            "or is not the one the catalog pins; to use it knowingly, download it yourself and run "
            "`harmonize corpora add ID --from FILE --unverified` (recorded as unverified)")


# ---------------------------------------------------------------------------------------------------------- fetch


@dataclass
class Fetched:
    """What `fetch` or `add` did for one corpus."""

    entry: Entry
    path: Path
    fetched: bool  # False: it was already cached and complete (no connection opened)
    notes: list[str] = field(default_factory=list)


def license_notice(entry: Entry) -> str:
    """What is said before the first download of a corpus whose license restricts use."""
    lic = entry.license
    redistribution = {True: "may be redistributed", False: "may not be redistributed",
                      None: "redistribution not stated"}[lic.redistributable]
    extra = f" {lic.note}" if lic.note else ""
    return f"{entry.key} is licensed {lic.spdx} ({redistribution}; {lic.url}).{extra}"


def fetch(specs: Sequence[str], config: Settings | None = None, force: bool = False,
          unverified: bool = False) -> list[Fetched]:
    """Fetch each corpus into the cache (a cached, complete one is left as it is, without a connection, unless
    ``force``). ``unverified`` keeps a source whose content differs from the catalog, recording it as such."""
    config = config or settings()
    catalog = config.the_catalog()
    return [_fetch_one(catalog.get(spec), spec, config, force, unverified) for spec in specs]


def _fetch_one(entry: Entry, spec: str, config: Settings, force: bool, unverified: bool) -> Fetched:
    folder = _folder(config, entry)
    if not force and _record(config, entry) is not None:
        return Fetched(entry, folder, False)
    if entry.access != "public":
        raise CorpusError(_not_cached(entry, spec) if entry.access == "manual" else
                          f"{spec} needs a registration: get it from {entry.homepage}, then "
                          f"`harmonize corpora add {spec} --from PATH`")
    if config.offline:
        raise CorpusError(f"{spec} is not in the cache and {ENV_OFFLINE} is set (offline): run "
                          f"`harmonize corpora fetch {spec}` where there is a connection")
    with _locked(config, entry):
        if not force and _record(config, entry) is not None:
            return Fetched(entry, folder, False)  # another process fetched it while this one waited
        if entry.license.restricts_use or entry.license.redistributable is False:
            config.say(f"license: {license_notice(entry)}")
        config.cache_dir.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".fetch-{entry.id}-", dir=config.cache_dir))
        try:
            corpus = work / "corpus"
            corpus.mkdir()
            received, notes, files = [], [], {}
            budget = [config.max_bytes]
            for source in entry.sources:
                got, hashes, note = _one_source(entry, source, corpus, work, budget, config, unverified)
                received.append(got)
                files.update(hashes)
                notes.extend(note)
            _install(entry, config, corpus, files, received, "unverified" if any(
                got.get("unverified") for got in received) else "verified", notes)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return Fetched(entry, folder, True, notes)


def _one_source(entry: Entry, source: Source, corpus: Path, work: Path, budget: list[int], config: Settings,
                unverified: bool) -> tuple[dict, dict[str, str], list[str]]:
    """Try each URL of a source (retrying transient failures) until one gives a file that checks; its files are
    then in ``corpus``. An error listing every URL's failure otherwise."""
    failures = []
    for url in candidate_urls(entry, source, config.mirrors):
        for attempt in range(config.retries + 1):
            download = work / f"{source.name}.part"
            staging = work / "staging"
            shutil.rmtree(staging, ignore_errors=True)
            download.unlink(missing_ok=True)
            staging.mkdir()
            try:
                config.say(f"fetching {entry.key}: {url}")
                _download(url, download, config, f"{entry.key} {source.name}")
                got = _accept(entry, source, url, download, staging, budget, config, unverified)
            except _Failure as failure:
                failures.append(str(failure))
                if failure.transient and attempt < config.retries:
                    time.sleep(min(2**attempt, 8))
                    continue
                break
            for inner in got[1]:
                (corpus / inner).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / inner, corpus / inner)
            return got
    tried = "\n  ".join(failures)
    raise CorpusError(f"{entry.key}: {source.name} could not be had from any URL:\n  {tried}")


def _accept(entry: Entry, source: Source, url: str, download: Path, staging: Path, budget: list[int],
            config: Settings, unverified: bool) -> tuple[dict, dict[str, str], list[str]]:
    """Check a downloaded file and unpack it into ``staging``: (what was received, file hashes, notes)."""
    digest = file_sha256(download)
    size = download.stat().st_size
    notes = []
    if _looks_like_html(download) and not source.name.endswith((".html", ".htm")):
        raise _Failure(f"{url}: an HTML page, not the file (a login or error page served as 200?)")
    if source.size is not None and size != source.size:
        raise _Failure(f"{url}: {size} bytes where the catalog says {source.size} (truncated?)")
    mismatch = source.sha256 is not None and digest != source.sha256
    if mismatch and not unverified:
        raise _Failure(_mismatch(source.name, url, source.sha256, digest))
    if source.kind == "file":
        inner = source.to or source.name
        if not entry.keeps(inner):
            raise CorpusError(f"{entry.key}: the catalog places {source.name} at {inner}, outside its data paths")
        (staging / inner).parent.mkdir(parents=True, exist_ok=True)
        os.replace(download, staging / inner)
        hashes = {inner: digest}
    else:
        try:
            written = _extract(download, source, entry, staging, budget, config, url)
            hashes = _checked_files(source, staging, written, url)
        except _Failure as failure:
            if not unverified or "mismatch" not in str(failure):
                raise
            notes.append(f"kept unverified: {failure}")
            hashes = {inner: file_sha256(staging / inner) for inner in _walk(staging)}
        if not hashes:
            raise _Failure(f"{url}: the archive holds none of the corpus' data paths "
                           f"({', '.join(entry.data) or 'any file'})")
    if source.sha256 is None and not (source.files and source.complete):
        notes.append(f"{source.name}: the catalog knows no checksum for it; recorded what was received "
                     f"(sha256 {digest})")
    got = {"url": url, "name": source.name, "sha256": digest, "size": size, "unverified": mismatch or bool(
        [n for n in notes if n.startswith("kept unverified")])}
    return got, hashes, notes


def _walk(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _install(entry: Entry, config: Settings, corpus: Path, files: dict[str, str], received: list[dict],
             verified: str, notes: list[str]) -> None:
    """Write the completion record last, then rename the corpus into place (replacing an older copy)."""
    record = {"id": entry.id, "version": entry.version, "fetched_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "verified": verified, "sources": received, "notes": notes, "files": files}
    (corpus / RECORD).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    folder = _folder(config, entry)
    folder.parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():
        trash = folder.with_name(f".replaced-{folder.name}-{os.getpid()}")
        folder.rename(trash)
        shutil.rmtree(trash)
    os.replace(corpus, folder)


def add(spec: str, source_path: str | Path, config: Settings | None = None, unverified: bool = False) -> Fetched:
    """Put hand-downloaded or licensed data into the cache, verified against the entry: an archive or file as the
    source gives it (one source), or a folder laid out as the corpus (its data paths)."""
    config = config or settings()
    entry = config.the_catalog().get(spec)
    given = Path(source_path)
    if not given.exists():
        raise CorpusError(f"{given}: no such file or folder")
    with _locked(config, entry):
        config.cache_dir.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".add-{entry.id}-", dir=config.cache_dir))
        try:
            corpus = work / "corpus"
            corpus.mkdir()
            notes: list[str] = []
            if given.is_dir():
                files = _add_folder(entry, given, corpus, unverified, notes)
                received = [{"path": str(given.resolve()), "unverified": bool(notes)}]
            else:
                source = _source_for(entry, given)
                staging = work / "staging"
                staging.mkdir()
                copy = work / given.name
                shutil.copyfile(given, copy)
                try:
                    got, files, notes = _accept(entry, source, str(given), copy, staging, [config.max_bytes],
                                                config, unverified)
                except _Failure as failure:
                    raise CorpusError(str(failure)) from None
                for inner in files:
                    (corpus / inner).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(staging / inner, corpus / inner)
                received = [got]
            if not files:
                raise CorpusError(f"{given}: holds none of {entry.key}'s data paths ({', '.join(entry.data)})")
            _install(entry, config, corpus, files, received, "unverified" if any(
                r.get("unverified") for r in received) else "verified", notes)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return Fetched(entry, _folder(config, entry), True, notes)


def _source_for(entry: Entry, given: Path) -> Source:
    named = [s for s in entry.sources if s.name == given.name]
    if named:
        return named[0]
    if len(entry.sources) == 1:
        return entry.sources[0]
    if not entry.sources:
        return Source(url=given.as_uri(), kind="archive" if _is_archive(given) else "file", to=given.name)
    names = ", ".join(s.name for s in entry.sources)
    raise CorpusError(f"{given}: {entry.key} has several sources ({names}): give a file of that name, or a folder "
                      "laid out as the corpus")


def _is_archive(given: Path) -> bool:
    return zipfile.is_zipfile(given) or tarfile.is_tarfile(given)


def _add_folder(entry: Entry, given: Path, corpus: Path, unverified: bool, notes: list[str]) -> dict[str, str]:
    """A folder laid out as the corpus: its data files copied, each checked against what the catalog knows."""
    known = {f.path: f.sha256 for source in entry.sources for f in source.files}
    files = {}
    for inner in _walk(given):
        if inner == RECORD or not entry.keeps(inner) or (given / inner).is_symlink():
            continue
        digest = file_sha256(given / inner)
        if inner in known and known[inner] != digest:
            if not unverified:
                raise CorpusError(_mismatch(inner, str(given / inner), known[inner], digest))
            notes.append(f"kept unverified: {inner} differs from the catalog")
        (corpus / inner).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(given / inner, corpus / inner)
        files[inner] = digest
    missing = sorted(set(known) - set(files))
    if missing and not unverified:
        raise CorpusError(f"{given}: {len(missing)} file(s) of {entry.key} missing, e.g. {missing[0]} (give the "
                          "whole corpus, or --unverified to keep a part)")
    if missing:
        notes.append(f"kept unverified: {len(missing)} file(s) of the catalog missing, e.g. {missing[0]}")
    return files


# -------------------------------------------------------------------------------------------------- verify, mirror


@dataclass(frozen=True)
class Verification:
    """`verify`'s finding: files that differ from the record (and the catalog), are missing, or were added."""

    entry: Entry
    checked: int
    changed: tuple[str, ...]
    missing: tuple[str, ...]
    added: tuple[str, ...]
    recorded_as: str

    @property
    def ok(self) -> bool:
        return not (self.changed or self.missing or self.added)


def verify(spec: str, config: Settings | None = None) -> Verification:
    """Hash every file of the cached corpus again and compare with its completion record and the catalog."""
    config = config or settings()
    entry = config.the_catalog().get(spec)
    record = _record(config, entry)
    if record is None:
        raise CorpusError(_not_cached(entry, spec))
    folder = _folder(config, entry)
    expected = dict(record["files"])
    for source in entry.sources:
        expected.update({f.path: f.sha256 for f in source.files if f.path in expected})
    present = {inner for inner in _walk(folder) if inner != RECORD}
    changed = tuple(sorted(inner for inner in set(expected) & present if file_sha256(folder / inner) != expected[inner]))
    return Verification(entry, len(present), changed, tuple(sorted(set(expected) - present)),
                        tuple(sorted(present - set(expected))), record.get("verified", ""))


def mirror(specs: Sequence[str], output: str | Path, config: Settings | None = None) -> list[Path]:
    """Write ``OUTPUT/ID/VERSION/NAME`` for each source of each cached corpus, packed again from the cache (a file
    source as it is; an archive as a ``.zip`` or ``.tar.gz`` after its name, one top folder), so that a lab can
    serve it to ``--mirror``. Archives verified by content check the same; an archive whose own bytes the catalog
    pins cannot be repacked and is refused."""
    config = config or settings()
    written = []
    for spec in specs:
        entry = config.the_catalog().get(spec)
        folder = path(spec, config)
        for source in entry.sources:
            target = Path(output) / entry.id / entry.version / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.kind == "file":
                shutil.copyfile(folder / (source.to or source.name), target)
            elif source.sha256:
                raise CorpusError(f"{entry.key}: {source.name} is pinned by its bytes, which a repacked archive "
                                  "cannot have: copy the original file into the mirror")
            else:
                _repack(entry, source, folder, target)
            written.append(target)
    return written


def _repack(entry: Entry, source: Source, folder: Path, target: Path) -> None:
    prefix = source.to.strip("/")
    others = {s.to or s.name for s in entry.sources if s is not source}
    members = [inner for inner in _walk(folder) if inner != RECORD and inner not in others
               and (not prefix or inner.startswith(prefix + "/"))]
    top = re.sub(r"(\.tar\.gz|\.tgz|\.zip|\.tar)$", "", source.name) or entry.id
    inside = [(folder / inner, f"{top}/{source.take + '/' if source.take else ''}{inner[len(prefix):].lstrip('/')}")
              for inner in members]
    partial = target.with_name(f".{target.name}.part")
    if source.name.endswith(".zip"):
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
            for file, name in inside:
                out.write(file, name)
    else:
        with tarfile.open(partial, "w:gz") as out:
            for file, name in inside:
                out.add(file, name, recursive=False)
    os.replace(partial, target)


# --------------------------------------------------------------------------------------------- ids in place of paths


@dataclass(frozen=True)
class Resolved:
    """A corpus id resolved to a path in the cache, with the reader the catalog gives it ('' where the path is
    best detected)."""

    spec: str
    path: Path
    format: str
    entry: Entry


def resolve(given: str | Path, config: Settings | None = None, fetch_missing: bool = False) -> Resolved | None:
    """``ID``, ``ID@VERSION`` or ``ID/PATH`` as a path in the cache; None where ``given`` is an existing path
    (a path always wins) or names no catalog id. A corpus not yet cached is an error naming the command that
    fetches it, or is fetched with ``fetch_missing``."""
    text = str(given)
    if Path(text).exists() or text == "-":
        return None
    config = config or settings()
    catalog = config.the_catalog()
    head, _, inner = text.replace("\\", "/").partition("/")
    entry = catalog.find(head)
    if entry is None:
        return None
    inner = _inner_path(inner, text)
    if _record(config, entry) is None:
        if not fetch_missing:
            raise CorpusError(f"{text}: {_not_cached(entry, head)} (or add --fetch)")
        _fetch_one(entry, head, config, False, False)
    root = _folder(config, entry)
    target = root / (inner or entry.path)
    if not target.exists() and not any(target.parent.glob(f"{target.name}.*")):  # brat's NAME names NAME.ann
        held = ", ".join(sorted(p.name for p in root.iterdir() if p.name != RECORD)[:8])
        raise CorpusError(f"{text}: no {inner or entry.path} in {entry.key} (it holds {held})")
    return Resolved(text, target, _reader_of(entry, inner or entry.path), entry)


def _reader_of(entry: Entry, inner: str) -> str:
    """The catalog's reader for a path inside the corpus: its part's, the entry's for the folder an id alone
    names, else '' (detected from the files)."""
    part = entry.part_for(inner)
    if part is not None:
        return part.reader
    return entry.reader if inner == entry.path else ""


def reader_for(given: str | Path, config: Settings | None = None) -> str:
    """The catalog's reader for a path in the cache (a corpus, or a folder or file inside it, however it was
    named), else ''."""
    config = config or settings()
    try:
        inside = Path(given).resolve().relative_to(config.cache_dir.resolve()).parts
    except (ValueError, OSError):
        return ""
    entry = config.the_catalog().find(f"{inside[0]}@{inside[1]}") if len(inside) >= 2 else None
    return _reader_of(entry, "/".join(inside[2:]) or entry.path) if entry else ""


def manifest_lines(files: Sequence[FileHash]) -> str:
    """A manifest's text (``SHA256<TAB>SIZE<TAB>PATH`` lines), as ``manifests/`` holds them."""
    return "".join(f"{f.sha256}\t{f.size}\t{f.path}\n" for f in sorted(files, key=lambda f: f.path))


def manifest_of_folder(folder: str | Path, under: Sequence[str] = (), to: str = "") -> list[FileHash]:
    """The manifest of a folder (a checkout at the pinned commit): every file under ``under`` (all where empty),
    as the corpus will hold it (``to`` prefixed). How the shipped manifests are made."""
    folder = Path(folder)
    files = []
    for inner in _walk(folder):
        if under and not any(_under(inner, u) for u in under):
            continue
        files.append(FileHash("/".join(filter(None, (to, inner))), (folder / inner).stat().st_size,
                              file_sha256(folder / inner)))
    return files

