"""CorefUD's datasets rebuilt from their public sources: recipes shipped in the package (``corefud-1.3.toml``),
each naming its source by catalog id, CorefUD's own document lists per split (and where they come from), the
reader, the rules and what CorefUD writes differently from the source (comment order, document ids); and a
comparison of the files built with the release's, by kind of difference.

    harmonize build corefud-1.3/en_gum -o rebuilt/
    harmonize compare rebuilt/CorefUD_English-GUM/en_gum-corefud-dev.conllu -r en_gum-corefud-dev.conllu

What is CorefUD's and what is the source's is kept apart: entity ids are numbered as the release numbers them
(`harmonize.rules.corefud.number_as_released`: order of first mention, one count over train, dev and test), and
split antecedents are written where udapi writes them (the ``corefud`` rules). Trees that CorefUD got from a
parser run (LitBank, ParCorFull) cannot be repeated exactly: ``parse`` gives ours, and the comparison names trees
as a kind of difference apart from coreference.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from harmonize.errors import HarmonizeError, Report
from harmonize.io import file_sha256

if TYPE_CHECKING:
    from harmonize.corpora import Catalog
    from harmonize.schemas.model import Corpus, Document

SPLITS = ("train", "dev", "test")
RELEASES = ("corefud-1.3",)


@dataclass(frozen=True)
class Dataset:
    """One CorefUD dataset's recipe (see ``corefud-1.3.toml`` for each field's meaning)."""

    release: str
    name: str
    folder: str
    source: str  # a catalog id (ID@VERSION)
    files: str  # where a document is in the source, "{document}" for its name
    reader: str
    rules: str
    splits: dict[str, tuple[str, ...]]
    lists_from: str
    document_id: str = "{document}"
    first_entity: dict[str, int] = field(default_factory=dict)
    comment_order: tuple[str, ...] = ()
    keep_fields: tuple[str, ...] = ()
    one_mention_per_span: bool = False
    number_sentences: bool = False
    notes: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.release}/{self.name}"

    def file_name(self, split: str) -> str:
        return f"{self.name}-corefud-{split}.conllu"


def _load(release: str) -> tuple[list[Dataset], dict[str, list[str]]]:
    text = (resources.files("harmonize.releases") / f"{release}.toml").read_text(encoding="utf-8")
    raw = tomllib.loads(text)
    datasets = []
    for item in raw["dataset"]:
        splits = {split: tuple(item["splits"][split]) for split in SPLITS if split in item.get("splits", {})}
        datasets.append(Dataset(
            release=release, name=item["name"], folder=item["folder"], source=item["source"], files=item["files"],
            reader=item["reader"], rules=item.get("rules", "corefud"), splits=splits, lists_from=item["lists_from"],
            document_id=item.get("document_id", "{document}"), first_entity=dict(item.get("first_entity", {})),
            comment_order=tuple(item.get("comment_order", ())), keep_fields=tuple(item.get("keep_fields", ())),
            one_mention_per_span=bool(item.get("one_mention_per_span", False)),
            number_sentences=bool(item.get("number_sentences", False)), notes=tuple(item.get("notes", ()))))
    groups = {name: list(members) for name, members in raw.get("groups", {}).items()}
    return datasets, groups


def recipes() -> list[str]:
    """Every shipped recipe: ``RELEASE/DATASET`` and the groups (``corefud-1.3/english``)."""
    found = []
    for release in RELEASES:
        datasets, groups = _load(release)
        found.extend(d.key for d in datasets)
        found.extend(f"{release}/{group}" for group in groups)
    return found


def is_recipe(name: str) -> bool:
    return name.split("/", 1)[0] in RELEASES


def datasets_of(name: str) -> list[Dataset]:
    """The datasets a recipe name builds (one, or a group's)."""
    release, _, wanted = name.partition("/")
    if release not in RELEASES:
        raise HarmonizeError(f"{name}: no shipped recipe (`harmonize build --list` lists them)")
    datasets, groups = _load(release)
    by_name = {d.name: d for d in datasets}
    if wanted in by_name:
        return [by_name[wanted]]
    if wanted in groups:
        return [by_name[member] for member in groups[wanted]]
    raise HarmonizeError(f"{name}: no such dataset in {release} (it has {', '.join([*by_name, *groups])})")


@dataclass
class BuiltDataset:
    """What rebuilding one dataset wrote and read, and what its reader and rules reported."""

    dataset: Dataset
    files: dict[str, Path]  # split -> the file written
    inputs: list[tuple[str, str]]  # (path in the source, sha256) of every file read, in order
    report: Report
    source_root: Path
    comparisons: dict[str, FileComparison] = field(default_factory=dict)


def rebuild(name: str, output: str | Path, sources: dict[str, str | Path] | None = None, parse: str | None = None,
            reference: str | Path | None = None, lenient: bool = False,
            progress: Callable[[str], None] | None = None) -> list[BuiltDataset]:
    """Build the datasets ``name`` names into ``OUTPUT/FOLDER/NAME-corefud-SPLIT.conllu``, with a README each.

    ``sources`` maps a catalog id (``gum``) or a dataset's source (``gum@11.0.0``) to a folder laid out as that
    corpus, instead of the cached corpus; ``reference`` is a folder holding the release's files (searched for the
    file names), compared with ours and summed up in the README."""
    return [build_dataset(dataset, output, _source_root(dataset, sources or {}), parse, reference, lenient, progress)
            for dataset in datasets_of(name)]


def build_dataset(dataset: Dataset, output: str | Path, root: Path, parse: str | None = None,
                  reference: str | Path | None = None, lenient: bool = False,
                  progress: Callable[[str], None] | None = None) -> BuiltDataset:
    """`rebuild` for one dataset whose source is the folder ``root``."""
    from harmonize import corpora
    from harmonize.conversion import read_corpus
    from harmonize.converters.corefud import write_corefud
    from harmonize.io import atomic_write_text
    from harmonize.rules.corefud import number_as_released
    from harmonize.schemas.model import Corpus

    say = progress or (lambda message: None)
    report = Report()
    folder = Path(output) / dataset.folder
    inputs: list[tuple[str, str]] = []
    parts: dict[str, Corpus] = {}
    for split in SPLITS:
        documents = dataset.splits.get(split)
        if not documents:
            continue
        say(f"{dataset.key}: reading {split} ({len(documents)} documents)")
        paths = [_document_path(root, dataset, document) for document in documents]
        inputs.extend((path.relative_to(root).as_posix(), _sha256(path)) for path in paths)
        parts[split] = corpus = Corpus()
        for document, path in zip(documents, paths):
            read = read_corpus([path], dataset.reader, lenient, report, rules=dataset.rules, parse=parse)
            for doc in read.documents:
                doc.id = dataset.document_id.format(document=document)
                doc.meta["name"] = document
            corpus.documents.extend(read.documents)
    if dataset.number_sentences:
        _number_sentences([doc for corpus in parts.values() for doc in corpus.documents], report)
    next_entity = 1
    files: dict[str, Path] = {}
    for split, corpus in parts.items():
        _order_comments(corpus, dataset.comment_order, report)
        _keep_fields(corpus, dataset.keep_fields, report)
        if dataset.one_mention_per_span:
            _one_mention_per_span(corpus, report)
        _header_in_each_document(corpus)
        next_entity = number_as_released(corpus, dataset.first_entity.get(split, next_entity), report)
        files[split] = folder / dataset.file_name(split)
        write_corefud(corpus, files[split], report)
    result = BuiltDataset(dataset, files, inputs, report, root)
    if reference is not None:
        for split, path in files.items():
            official = _find(Path(reference), dataset.file_name(split))
            if official is not None:
                result.comparisons[split] = compare_files(path, official)
    atomic_write_text(folder / "README.md", _readme(result, corpora.load_catalog(), parse))
    return result


def _source_root(dataset: Dataset, sources: dict[str, str | Path]) -> Path:
    from harmonize import corpora

    corpus_id = dataset.source.partition("@")[0]
    given = sources.get(dataset.source) or sources.get(corpus_id)
    if given is not None:
        root = Path(given)
        if not root.is_dir():
            raise HarmonizeError(f"--source {corpus_id}={given}: no such folder")
        return root
    if corpora.fetch_wanted() and not corpora.is_cached(dataset.source):
        corpora.fetch([dataset.source])
    return corpora.path(dataset.source)  # not cached: an error naming the command that fetches it


def _document_path(root: Path, dataset: Dataset, document: str) -> Path:
    path = root / dataset.files.format(document=document)
    if not path.exists() and not any(path.parent.glob(f"{path.name}.*")):
        raise HarmonizeError(f"{dataset.key}: {document} is not in the source ({path} not found): is "
                             f"{root} {dataset.source}?")
    return path


def _sha256(path: Path) -> str:
    if path.is_dir():  # a format stored as a folder: its files in order
        digest = hashlib.sha256()
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(file.read_bytes())
        return digest.hexdigest()
    return file_sha256(path)


def _find(folder: Path, name: str) -> Path | None:
    if folder.is_file():
        return folder if folder.name == name else None
    return next(iter(sorted(folder.rglob(name))), None)


def _comment_key(comment: object) -> str:
    from harmonize.schemas.model import CommentSlot

    if isinstance(comment, CommentSlot):
        return comment.value
    found = re.match(r"#\s*([^\s=]+)", str(comment))
    return found[1] if found else ""


def _order_comments(corpus: Corpus, order: tuple[str, ...], report: Report) -> None:
    """Each sentence's comments whose key ``order`` names in that order, in the places such comments held; the
    others stay where they are."""
    if not order:
        return
    rank = {key: number for number, key in enumerate(order)}
    for document in corpus.documents:
        moved = 0
        for sentence in document.sentences:
            places = [i for i, c in enumerate(sentence.comments) if _comment_key(c) in rank]
            chosen = [sentence.comments[i] for i in places]
            ordered = sorted(chosen, key=lambda c: rank[_comment_key(c)])
            if ordered != chosen:
                for i, comment in zip(places, ordered):
                    sentence.comments[i] = comment
                moved += 1
        if moved:
            report.add("sentence comments in the release's order", f"{document.id}: {moved} sentences", moved)


def _number_sentences(documents: list[Document], report: Report) -> None:
    """Sentence ids 1, 2 ... over all the dataset's documents in the order of their names, whatever their split (as
    CorefUD's ParCorFull numbers them)."""
    number = 0
    for document in sorted(documents, key=lambda d: d.meta["name"]):
        for sentence in document.sentences:
            number += 1
            sentence.id = str(number)
        report.add("sentence ids numbered over the dataset's documents in name order, as the release numbers them",
                   str(document.id), len(document.sentences))


def _header_in_each_document(corpus: Corpus) -> None:
    """``# global.Entity`` after every ``# newdoc``, as udapi writes a release's files."""
    from harmonize.schemas.model import CommentSlot

    for document in corpus.documents:
        comments = document.sentences[0].comments if document.sentences else None
        if comments is None or CommentSlot.GLOBAL_ENTITY in comments or any(
                isinstance(c, str) and c.startswith("# global.Entity") for c in comments):
            continue
        at = next((i + 1 for i, c in enumerate(comments) if c is CommentSlot.NEWDOC or (
            isinstance(c, str) and c.startswith("# newdoc"))), None)
        if at is None:
            comments.insert(0, CommentSlot.NEWDOC)
            at = 1
        if not any(c is CommentSlot.SENT_ID for c in comments):
            comments.append(CommentSlot.SENT_ID)
        if not any(c is CommentSlot.TEXT for c in comments):
            comments.append(CommentSlot.TEXT)
        comments.insert(at, CommentSlot.GLOBAL_ENTITY)


def _one_mention_per_span(corpus: Corpus, report: Report) -> None:
    """A mention with the words of an earlier mention of another entity goes (with what goes with it, counted), as
    CorefUD's conversion of ParCorFull leaves such markables out."""
    for document in corpus.documents:
        seen: set[tuple[int, ...]] = set()
        for mention in sorted(document.mentions, key=lambda m: m.words[0].order):
            span = tuple(id(word) for word in mention.words)
            if span not in seen:
                seen.add(span)
                continue
            report.add("mention with the words of another entity's earlier mention dropped, as the release does",
                       f"{document.id}: {mention.text}")
            for change in document.remove_mention(mention):
                report.add(f"one mention per span: {change.what}", change.detail)


def _keep_fields(corpus: Corpus, fields: tuple[str, ...], report: Report) -> None:
    """The release's ``global.Entity`` fields only: entity and mention fields outside them (LitBank's brat label
    and mention type) are dropped, each counted."""
    if not fields:
        return
    for document in corpus.documents:
        document.entity_fields = fields
        for entity in document.entities:
            for holder in (entity, *entity.mentions):
                for name in [n for n in holder.attrs if n not in fields]:
                    del holder.attrs[name]
                    report.add(f"field the release does not keep dropped: {name}", str(document.id))


# ------------------------------------------------------------------------------------------------- the comparison


@dataclass
class DocumentComparison:
    """One document of ours against the release's: coreference equal (every Entity, Bridge and SplitAnte value,
    ids mapped one to one), equal but for heads, or not; and every other difference by kind."""

    id: str
    coreference: str  # "equal", "equal but for heads", "differs: ..."
    others: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)


@dataclass
class FileComparison:
    """Two CorefUD files, document by document (paired by ``# newdoc id``)."""

    ours: Path
    official: Path
    documents: list[DocumentComparison]
    only_ours: list[str]
    only_official: list[str]
    order_differs: bool

    @property
    def equal_in_coreference(self) -> int:
        return sum(d.coreference == "equal" for d in self.documents)

    def other_kinds(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for document in self.documents:
            total.update(document.others)
        return total

    def example(self, kind: str) -> str:
        return next(d.examples[kind] for d in self.documents if kind in d.examples)

    def lines(self) -> list[str]:
        """The comparison as text: documents equal in coreference, then every other difference by kind."""
        both = len(self.documents)
        but_heads = sum(d.coreference == "equal but for heads" for d in self.documents)
        lines = [f"{self.ours.name}: {self.equal_in_coreference} of {both} documents equal in coreference (every "
                 "Entity, Bridge and SplitAnte value, ids mapped)"
                 + (f"; {but_heads} more equal but for mention heads (their trees differ)" if but_heads else "")]
        for document in self.documents:
            if document.coreference not in ("equal", "equal but for heads"):
                lines.append(f"  {document.id}: coreference {document.coreference}")
        for kind, count in self.other_kinds().most_common():
            lines.append(f"  also differ: {count} x {kind} (e.g. {self.example(kind)})")
        if self.order_differs:
            lines.append("  the documents are in another order")
        for side, names in (("ours", self.only_ours), ("the release's", self.only_official)):
            if names:
                lines.append(f"  {len(names)} document(s) only in {side}: {', '.join(names[:5])}")
        return lines


_TREE_COLUMNS = {6: "trees (HEAD)", 7: "trees (DEPREL)", 8: "trees (DEPS)", 2: "LEMMA", 3: "UPOS", 4: "XPOS",
                 5: "FEATS", 1: "FORM"}
_COREF_KEYS = ("Entity", "Bridge", "SplitAnte")


def _documents(path: Path) -> Iterator[tuple[str, list[list[str]], int]]:
    """(newdoc id, its sentences as lists of lines, the line number it starts at) of a CorefUD file."""
    current: tuple[str, list[list[str]], int] | None = None
    sentence: list[str] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if line.startswith("# newdoc"):
                if sentence and current is not None:
                    current[1].append(sentence)
                    sentence = []
                if current is not None:
                    yield current
                current = (line.partition("=")[2].strip(), [], number)
            if not line:
                if sentence and current is not None:
                    current[1].append(sentence)
                sentence = []
            else:
                sentence.append(line)
    if sentence and current is not None:
        current[1].append(sentence)
    if current is not None:
        yield current


def _misc(column: str) -> dict[str, str]:
    return dict(item.partition("=")[::2] for item in column.split("|")) if column != "_" else {}


class _IdMap:
    """Our entity ids paired with the release's, one to one, as they are met."""

    def __init__(self) -> None:
        self.ours: dict[str, str] = {}
        self.theirs: dict[str, str] = {}

    def same(self, mine: str, official: str) -> bool:
        if self.ours.setdefault(mine, official) != official or self.theirs.setdefault(official, mine) != mine:
            return False
        return True


_ID_IN_VALUE = re.compile(r"(?<![\w.])(e[\w.]+?)(?=[-()<>,:\[]|$)")


def _same_value(mine: str, official: str, ids: _IdMap, heads: bool) -> bool:
    """Two Entity/Bridge/SplitAnte values equal with ids mapped (and, without ``heads``, the head field left out)."""
    if not heads:
        mine, official = (re.sub(r"(\([^-()]+-[^-()]*-)\d*", r"\1", v) for v in (mine, official))
    ours, theirs = _ID_IN_VALUE.findall(mine), _ID_IN_VALUE.findall(official)
    if len(ours) != len(theirs) or _ID_IN_VALUE.sub("E", mine) != _ID_IN_VALUE.sub("E", official):
        return False
    return all(ids.same(a, b) for a, b in zip(ours, theirs))


def compare_files(ours: str | Path, official: str | Path) -> FileComparison:
    """Our CorefUD file against the release's: per document, coreference (every Entity, Bridge and SplitAnte
    value, ids mapped one to one; heads apart, as trees may differ) and every other difference by kind: tokens,
    trees, LEMMA, UPOS, XPOS, FEATS, each other MISC key, sentence ids, comments and their order."""
    ours, official = Path(ours), Path(official)
    theirs = {doc_id: (sentences, line) for doc_id, sentences, line in _documents(official)}
    mine_order: list[str] = []
    compared = []
    for doc_id, sentences, line in _documents(ours):
        mine_order.append(doc_id)
        if doc_id not in theirs:
            continue
        compared.append(_compare_document(doc_id, sentences, *theirs[doc_id], ours, official, line))
    in_both = [d for d in mine_order if d in theirs]
    return FileComparison(ours, official, compared, [d for d in mine_order if d not in theirs],
                          [d for d in theirs if d not in set(mine_order)],
                          in_both != [d for d in theirs if d in set(mine_order)])


def _compare_document(doc_id: str, mine: list[list[str]], official: list[list[str]], start: int, ours_path: Path,
                      official_path: Path, our_start: int) -> DocumentComparison:
    result = DocumentComparison(doc_id, "equal")

    def other(kind: str, example: str, count: int = 1) -> None:
        result.others[kind] += count
        result.examples.setdefault(kind, f"{doc_id}: {example}")

    if len(mine) != len(official):
        result.coreference = f"not compared: {len(mine)} sentences here, {len(official)} in the release"
        other("sentence boundaries", f"{len(mine)} and {len(official)} sentences")
        return result
    exact, ids_exact, without_heads, ids_loose = True, _IdMap(), True, _IdMap()
    first_difference = ""
    for number, (a, b) in enumerate(zip(mine, official), 1):
        comments_a = [line for line in a if line.startswith("#")]
        comments_b = [line for line in b if line.startswith("#")]
        sent_a = next((c for c in comments_a if c.startswith("# sent_id")), "")
        sent_b = next((c for c in comments_b if c.startswith("# sent_id")), "")
        if sent_a != sent_b:
            other("sentence ids", f"{sent_a!r} | {sent_b!r}")
        rest_a = [c for c in comments_a if not c.startswith(("# sent_id", "# global.Entity"))]
        rest_b = [c for c in comments_b if not c.startswith(("# sent_id", "# global.Entity"))]
        if rest_a != rest_b:
            if sorted(rest_a) == sorted(rest_b):
                other("comment order", f"sentence {number}")
            else:
                extra = sorted(set(rest_a) ^ set(rest_b))
                other("comments", extra[0][:80] if extra else f"sentence {number}")
        header_a = next((c for c in comments_a if c.startswith("# global.Entity")), None)
        header_b = next((c for c in comments_b if c.startswith("# global.Entity")), None)
        if header_a != header_b:
            other("global.Entity", f"{header_a} | {header_b}")
        rows_a = [line.split("\t") for line in a if not line.startswith("#")]
        rows_b = [line.split("\t") for line in b if not line.startswith("#")]
        if [r[0] for r in rows_a] != [r[0] for r in rows_b] or [r[1] for r in rows_a] != [r[1] for r in rows_b]:
            result.coreference = f"not compared: the tokens of sentence {number} differ"
            other("tokens", f"sentence {number}")
            return result
        for row_a, row_b in zip(rows_a, rows_b):
            for column, kind in _TREE_COLUMNS.items():
                if len(row_a) > column and len(row_b) > column and row_a[column] != row_b[column]:
                    other(kind, f"sentence {number}, {row_a[1]}: {row_a[column]} | {row_b[column]}")
            misc_a, misc_b = _misc(row_a[-1]), _misc(row_b[-1])
            for key in dict.fromkeys([*misc_a, *misc_b]):
                if key in _COREF_KEYS:
                    value_a, value_b = misc_a.get(key, ""), misc_b.get(key, "")
                    if value_a != value_b and _ID_IN_VALUE.findall(value_a) != _ID_IN_VALUE.findall(value_b):
                        other("entity ids", f"sentence {number}, {row_a[1]}: {key}={value_a} | {key}={value_b}")
                    if not _same_value(value_a, value_b, ids_exact, True):
                        exact = False
                        first_difference = first_difference or (f"sentence {number}, {row_a[1]}: {key}={value_a} | "
                                                                f"{key}={value_b}")
                    if not _same_value(value_a, value_b, ids_loose, False):
                        without_heads = False
                elif misc_a.get(key) != misc_b.get(key):
                    other(f"MISC {key}", f"sentence {number}, {row_a[1]}: {misc_a.get(key)} | {misc_b.get(key)}")
            if [k for k in misc_a if k in misc_b] != [k for k in misc_b if k in misc_a]:
                other("MISC order", f"sentence {number}, {row_a[1]}")
    if not exact:
        result.coreference = "equal but for heads" if without_heads else f"differs ({first_difference})"
    return result


# ------------------------------------------------------------------------------------------------------ the README


def _readme(built: BuiltDataset, catalog: Catalog, parse: str | None) -> str:
    dataset = built.dataset
    entry = catalog.find(dataset.source)
    lines = [f"# {dataset.folder} ({dataset.release}), rebuilt by harmonize", "",
             f"Recipe `{dataset.key}` (shipped with harmonize): {dataset.reader} files of `{dataset.source}`, rules "
             f"`{dataset.rules}`, trees {'from ' + parse if parse else 'as the source has them'}.", "",
             "## Source", ""]
    if entry is not None:
        for source in entry.sources:
            pinned = f" at commit {source.commit}" if source.commit else ""
            lines.append(f"- {entry.key}: {source.url}{pinned} ({entry.license.spdx}); verified by "
                         f"{source.verified_by}")
    lines += ["", "## Documents", "",
              f"CorefUD's own document lists: {dataset.lists_from}", ""]
    for split, path in built.files.items():
        lines.append(f"- {path.name}: {len(dataset.splits[split])} documents")
    if dataset.notes:
        lines += ["", "## Notes", "", *(f"- {note}" for note in dataset.notes)]
    lines += ["", "## What the reader and the rules changed", ""]
    lines += [f"- {count} x {reason}" for reason, count in sorted(built.report.counts.items())] or ["- nothing"]
    if built.comparisons:
        lines += ["", "## Compared with the release", ""]
        for comparison in built.comparisons.values():
            lines += [f"    {line}" for line in comparison.lines()]
    lines += ["", "## Files read (sha256)", "", *(f"    {digest}  {name}" for name, digest in built.inputs), ""]
    return "\n".join(lines)
