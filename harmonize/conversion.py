"""Conversion between formats through the model, with scheme rules: what ``harmonize convert`` runs.

    import harmonize
    result = harmonize.convert(["gum/dep"], "corefud", "conll2012", "out", rules="ontogum")
    result.total.counts  # what was dropped or changed, per reason

Between reading and writing, documents without trees may be parsed (``parse="udpipe:MODEL"``, which also gives
mentions heads; see `harmonize.parsing`), then scheme rules apply (see `Steps`).

Files are converted on every core, one file per worker. A single large CorefUD file converted to CorefUD is cut
into runs of whole documents that are converted on every core and joined again, with exactly the bytes a
conversion in one go writes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from harmonize.accounting.ledger import report_since, verify
from harmonize.converters import get_format
from harmonize.converters.detect import other_format_files
from harmonize.converters.registry import Format
from harmonize.errors import FormatError, HarmonizeError, Report
from harmonize.io import atomic_write_parts, paused_gc
from harmonize.parsing import NO_PARSING, parser_for
from harmonize.schemas.model import Corpus, Document

SAMPLE = "sample.conllu"
# A file is cut into pieces for the cores only above this size: below it, starting workers costs more than it saves.
PIECE_BYTES = 4 << 20
PIECES_PER_WORKER = 2  # more pieces than workers evens out documents of unequal cost


@dataclass(frozen=True)
class Steps:
    """What happens to a corpus between reading and writing: parsing (trees where the source has none, then
    mention heads; ``none`` only counts the mentions left without a head), then the named scheme rules; and after
    writing, with ``verify``, reading the output back to check that the report names every difference
    (`harmonize.accounting`)."""

    rules: str | None = None
    parse: str | None = None  # a --parse value (see harmonize.parsing); None is "none"
    parse_overwrite: bool = False
    verify: bool = False

    @property
    def edits_heads(self) -> bool:
        """Whether the steps may change what a document's entity header needs (heads, attributes)."""
        return self.rules is not None or self.parse not in (None, NO_PARSING)

    @property
    def per_document(self) -> bool:
        """Whether the steps can run on a piece of a file (no rule needs the whole corpus at once)."""
        from harmonize.rules import rule_list

        return self.rules is None or not any(rule.across_documents for rule in rule_list(self.rules))

    def apply(self, corpus: Corpus, report: Report) -> None:
        from harmonize.parsing.trees import parse_corpus

        parse_corpus(corpus, self.parse, report, self.parse_overwrite)
        if self.rules is not None:
            from harmonize.rules import apply_rules

            apply_rules(corpus, self.rules, report)


@dataclass
class Conversion:
    """What a conversion wrote (input -> output, in input order) and each input's report."""

    outputs: list[tuple[Path, Path]]
    reports: dict[str, Report] = field(default_factory=dict)

    @property
    def report(self) -> Report:
        """Everything every input's reading, rules and writing dropped or changed, merged (the same as ``total``)."""
        return self.total

    @property
    def total(self) -> Report:
        total = Report()
        for report in self.reports.values():
            total.merge(report)
        return total

    def to_json(self) -> dict:
        return {"total": self.total.to_dict(), "files": {name: r.to_dict() for name, r in self.reports.items()}}


def convert(
    inputs: Sequence[str | Path],
    source: str = "corefud",
    target: str = "corefud",
    output: str | Path = "harmonize-out",
    *,
    lenient: bool = False,
    rules: str | None = None,
    options: Mapping[str, str] | None = None,
    read_options: Mapping[str, str] | None = None,
    jobs: int = 0,
    sample: bool = False,
    progress: Callable[[int, int], None] | None = None,
    parse: str | None = None,
    parse_overwrite: bool = False,
    warn_losses: bool = True,
    verify: bool = False,
) -> Conversion:
    """Convert every input file (folders are searched for the source format's files) into ``output``: a file for
    a single input whose name has a suffix, else a folder with one file per input (one folder per document for
    writers of document folders). ``options`` are the writer's, ``read_options`` the reader's (``harmonize
    formats`` lists both); ``rules`` names a rule set applied between reading and writing; ``jobs`` is the number
    of worker processes (0, and at most: one per core; `worker_count`); ``sample`` converts the CorefUD sample
    shipped with harmonize.
    ``progress(done, total)`` is called as files finish, where there are several. ``parse`` names a parser for
    documents without trees (``udpipe:MODEL``, ``stanza[:LANG]``, ``none``); it fills only the columns the source
    left empty unless ``parse_overwrite``.

    The result's ``.report`` (and ``.reports``, per input) says what was dropped or changed; where it is not
    empty, one `LossWarning` gives the counts too, unless ``warn_losses`` is False (the
    command line prints the report instead).

    ``verify`` reads every output back and raises `harmonize.accounting.VerificationError`, naming the kind of
    difference and an example, where what was written differs from what reads back in a way the report does not
    name (see `harmonize.accounting`); it costs a second read of the output and a comparison of the models."""
    result = _convert(inputs, source, target, output, lenient, rules, options, read_options, jobs, sample, progress,
                      parse, parse_overwrite, verify)
    if (options or {}).get("newline") == "crlf":
        for _, written in result.outputs:
            write_crlf(Path(written))
    skipped = Report()
    for folder in (Path(p) for p in inputs if Path(p).is_dir()):
        for name, paths in other_format_files(folder, source).items():
            skipped.add(f"{NOT_READ} (they are {name} input)", f"{folder}: {', '.join(p.name for p in paths[:3])}",
                        len(paths))
    if skipped:
        result.reports[str(Path(inputs[0]).parent / "(other formats)")] = skipped
    if warn_losses and result.total:
        import warnings

        from harmonize.errors import LossWarning

        warnings.warn(f"converting to {target} dropped or changed: {result.total.summary()} (see the result's "
                      ".report)", LossWarning, stacklevel=2)
    return result


def _convert(inputs: Sequence[str | Path], source: str, target: str, output: str | Path, lenient: bool,
             rules: str | None, options: Mapping[str, str] | None, read_options: Mapping[str, str] | None, jobs: int,
             sample: bool, progress: Callable[[int, int], None] | None, parse: str | None,
             parse_overwrite: bool, verify: bool) -> Conversion:
    from harmonize.rules import rule_list

    reader = get_format(source, "read")
    writer = get_format(target, "write")
    checked_options = writer.writer_options([f"{key}={value}" for key, value in (options or {}).items()])
    checked_options.pop("newline", None)  # applied to what was written, by `convert`
    read_options = dict(read_options or {})
    if parse not in (None, NO_PARSING) and "tokenizer" in reader.reader_options:
        read_options.setdefault("tokenizer", parse)  # raw text: the parse engine tokenizes it too
    checked_read_options = reader.read_options([f"{key}={value}" for key, value in read_options.items()])
    if rules is not None:
        rule_list(rules)  # unknown names fail before any work
    if verify and get_format(target, "write").reader is None:
        raise HarmonizeError(f"--verify reads the output back, and {target} is a format harmonize only writes")
    steps = Steps(rules, parse, parse_overwrite, verify)
    parser = parser_for(parse) if parse is not None else None  # a wrong engine or model fails before any work
    files = input_files([Path(p) for p in inputs], reader, sample)
    if writer.joins_inputs:
        return _convert_joined(files, Path(output), reader, writer, lenient, checked_options, steps,
                               checked_read_options)
    planned = plan_outputs(files, Path(output), reader, writer)
    workers = worker_count(jobs)
    if parser is not None and not parser.shares_processes:
        workers = 1
    result = Conversion(planned)
    with paused_gc():
        if len(planned) == 1 or workers < 2:
            for done, (in_path, out_path) in enumerate(planned, 1):
                result.reports[str(in_path)] = convert_file(in_path, out_path, reader, writer, lenient,
                                                            checked_options, steps, checked_read_options, workers)
                if progress is not None and len(planned) > 1:
                    progress(done, len(planned))
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed

            # Each file is independent: workers read and write whole files; reports come back.
            with ProcessPoolExecutor(max_workers=min(workers, len(planned))) as pool:
                futures = {pool.submit(_convert_job, (i, o, source, target, lenient, checked_options, steps,
                                                      checked_read_options)): i for i, o in planned}
                try:
                    for done, future in enumerate(as_completed(futures), 1):
                        result.reports[str(futures[future])] = future.result()
                        if progress is not None:
                            progress(done, len(planned))
                except BaseException:
                    pool.shutdown(cancel_futures=True)
                    raise
            result.reports = {str(i): result.reports[str(i)] for i, _ in planned}  # input order
    return result


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system says it, else the machine's)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def worker_count(jobs: int) -> int:
    """The worker processes for ``jobs`` (0: one per core), never more than the cores: each worker holds a piece
    or a file, so workers beyond the cores add memory and no speed."""
    cores = usable_cores()
    return min(jobs, cores) if jobs > 0 else cores


def _convert_joined(files: list[Path], output: Path, reader: Format, writer: Format, lenient: bool,
                    options: dict[str, str], steps: Steps, read_options: dict[str, str]) -> Conversion:
    """Every input read into one corpus, parsed and ruled, and written once (a writer of one set of files for a
    corpus)."""
    reports = {str(path): Report() for path in files}
    corpus = Corpus()
    for path in files:
        corpus.documents.extend(reader.read(path, lenient, reports[str(path)], read_options).documents)
    written = Report()
    steps.apply(corpus, written)
    before = Report(counts=written.counts.copy())
    writer.writer(corpus, output, written, **options)  # type: ignore[misc]
    if steps.verify:
        verify_output(corpus.documents, output, writer, report_since(written, before))
    reports[str(output)] = written
    return Conversion([(path, output) for path in files], reports)


def convert_file(
    in_path: Path, out_path: Path, reader: Format, writer: Format, lenient: bool, options: dict[str, str] | None = None,
    steps: Steps = Steps(), read_options: dict[str, str] | None = None, workers: int = 1,
) -> Report:
    """Read one file, apply the steps (parsing, rules), write it in the target format, free the model at once;
    return what was dropped or changed. With several ``workers``, a large CorefUD file written as CorefUD goes in
    pieces (unless a rule needs the whole corpus at once)."""
    if reader.name == writer.name == "corefud" and not in_path.is_dir() and in_path.stat().st_size >= PIECE_BYTES:
        from harmonize.converters.corefud_pieces import document_pieces, piece_count

        data = in_path.read_bytes()
        # Steps may change which fields a document's brackets need: then a piece must restate its header itself.
        # Pieces are bounded in size, so that memory follows a piece and not the file, whatever the workers.
        pieces = document_pieces(data, piece_count(len(data), workers * PIECES_PER_WORKER if workers > 1 else 1),
                                 own_header=steps.edits_heads)
        planned = None
        if workers > 1 and not steps.per_document:
            # A rule over the corpus (unique-ids) needs the documents before each piece: their entity ids, read
            # from the bytes ahead, let the pieces be ruled at once.
            from harmonize.converters.corefud_pieces import entity_ids_by_document, piece_bytes
            from harmonize.rules import planned_for_pieces

            # Worked out piece by piece as the pieces are handed out, so that the first workers start at once;
            # each piece's bytes read again (the file's are freed before the workers start).
            planned = planned_for_pieces(entity_ids_by_document(piece_bytes(in_path, piece), piece.header)
                                         for piece in pieces)
        del data
        if len(pieces) > 1:
            return _convert_in_pieces(in_path, out_path, pieces, lenient, steps, workers, planned)
    report = Report()
    corpus = reader.read(in_path, lenient, report, read_options)
    steps.apply(corpus, report)
    before = Report(counts=report.counts.copy())
    writer.writer(corpus, out_path, report, **(options or {}))  # type: ignore[misc]
    if steps.verify:
        verify_output(corpus.documents, out_path, writer, report_since(report, before))
    corpus.release()
    return report


def verify_output(documents: list[Document], output: Path, writer: Format, written: Report) -> None:
    """Read ``output`` back with the reader of ``writer``'s format and check that ``written`` (what writing
    reported) and what reading back reports account for every difference from ``documents`` (raises
    `harmonize.accounting.VerificationError`). A folder written a document per file may hold other inputs'
    documents too: documents pair by id first (`harmonize.accounting.differ.pair_documents`)."""
    reader = get_format(writer.name, "read")
    read_back = Report()
    back: list[Document] = []
    for path in input_files([output], reader):
        back.extend(reader.read(path, False, read_back, {}).documents)
    if writer.writes_per_document:
        wanted = {d.id for d in documents}
        back = [d for d in back if d.id in wanted] or back
    written.merge(read_back)
    try:
        verify(documents, back, written, str(output))
    finally:
        Corpus(back).release()  # freed now: the collector is paused during a conversion


def _convert_in_pieces(in_path: Path, out_path: Path, pieces: list, lenient: bool, steps: Steps,
                       workers: int, planned: Iterator[dict] | None = None) -> Report:
    """Pieces go to the workers (each reads its own bytes and writes its own part file); the parts are joined in
    order into the output. The first failing piece in file order is the error raised, as reading in one go would
    raise it. Rules over the corpus need ``planned`` (`harmonize.rules.planned_for_pieces`) to go to workers;
    without it, or where a piece is not what was planned, the pieces are ruled one after another here."""
    from concurrent.futures import ProcessPoolExecutor

    from harmonize.rules.corefud import PlanMismatch

    out_path.parent.mkdir(parents=True, exist_ok=True)
    parts = [out_path.with_name(f".{out_path.name}.{index}.part") for index in range(len(pieces))]
    try:
        if workers > 1 and (steps.per_document or planned is not None):
            try:
                with ProcessPoolExecutor(max_workers=min(workers, len(pieces))) as pool:
                    # Each worker converts several pieces in turn: each piece's model is freed before the next
                    # (the collector is paused during a conversion, so a worker would otherwise keep them all).
                    futures = [pool.submit(_convert_piece, (in_path, piece, part, lenient, steps), True,
                                           next(planned) if planned is not None else None)
                               for piece, part in zip(pieces, parts)]
                    report = Report()
                    try:
                        for future in futures:
                            report.merge(future.result())
                    except BaseException:
                        pool.shutdown(cancel_futures=True)  # later pieces are of no use once one has failed
                        raise
                atomic_write_parts(out_path, parts)
                return report
            except PlanMismatch:
                pass  # ruled one after another below, as without workers
        report = Report()
        from harmonize.rules import carried_between_pieces

        carried = carried_between_pieces()  # what a rule over the corpus keeps of the pieces before
        for piece, part in zip(pieces, parts):
            report.merge(_convert_piece((in_path, piece, part, lenient, steps), release=True, carried=carried))
        atomic_write_parts(out_path, parts)
    finally:
        for part in parts:
            part.unlink(missing_ok=True)
    return report


def _convert_piece(job: tuple, release: bool = False, carried: dict | None = None) -> Report:
    """Worker: one piece of a CorefUD file, read, parsed and ruled, and written to its part file."""
    from harmonize.converters.corefud import format_corefud, parse_corefud
    from harmonize.converters.corefud_pieces import read_piece

    in_path, piece, part, lenient, steps = job
    report = Report()
    corpus = parse_corefud(read_piece(in_path, piece, report), str(in_path), lenient, report, piece=piece)
    if carried is not None:
        corpus.meta.update(carried)  # the rules update these objects in place
    steps.apply(corpus, report)
    before = Report(counts=report.counts.copy())
    text = format_corefud(corpus, report, piece)
    if steps.verify:
        written = report_since(report, before)
        back = parse_corefud(text, str(part), False, written, piece=piece)
        verify(corpus.documents, back.documents, written, f"{in_path}, lines from {piece.first_line}")
    part.write_bytes(text.encode("utf-8"))
    if release:  # freed now: the collector is paused during a conversion
        corpus.release()
    return report


def _convert_job(job: tuple) -> Report:
    """Worker: one file of a multi-file conversion."""
    in_path, out_path, source, target, lenient, options, steps, read_options = job
    return convert_file(in_path, out_path, get_format(source, "read"), get_format(target, "write"), lenient, options,
                        steps, read_options)


def sample_path() -> Path:
    """The small CorefUD sample shipped with harmonize."""
    return Path(str(resources.files("harmonize") / "samples" / SAMPLE))


# Files a writer writes that are not text: left as they are by -O newline=crlf.
BINARY_ENDINGS = (".parquet", ".gz", ".zip", ".png", ".pt", ".safetensors")


def write_crlf(path: Path) -> None:
    """The text files written at ``path`` (a file, or every file in a folder) with CRLF line endings (what
    ``-O newline=crlf`` asks for), each replaced atomically; binary files are left as they are."""
    from harmonize.io import atomic_write_bytes

    for file in [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()):
        if file.name.endswith(BINARY_ENDINGS):
            continue
        data = file.read_bytes()
        atomic_write_bytes(file, data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))


# Files of an input folder in another format than --from: listed in the report, never skipped in silence.
NOT_READ = "files in an input folder not read: not this format's input"

# "-" as an input or an output: standard input or output, where one stream makes sense.
STANDARD_STREAM = Path("-")


@contextmanager
def standard_input_file(reader: Format, data: bytes) -> Iterator[Path]:
    """``data`` (standard input's bytes) as a temporary file the reader takes, named ``stdin`` with the format's
    extension (the name a format without document ids gives its document); gone when the block ends. An error in
    it names standard input, not the temporary file."""
    import tempfile

    if not reader.extension:
        raise HarmonizeError(f"{reader.name} reads a folder, not one stream: give the folder instead of -")
    with tempfile.TemporaryDirectory(prefix="harmonize-stdin-") as folder:
        path = Path(folder) / f"stdin{reader.extension}"
        path.write_bytes(data)
        try:
            yield path
        except FormatError as error:
            if error.path != str(path):
                raise
            raise FormatError("<standard input>", error.line, error.reason) from None


def convert_to_stream(inputs: Sequence[str | Path], source: str = "corefud", target: str = "corefud",
                      **options) -> tuple[bytes, Conversion]:
    """`convert` into one stream of bytes (what ``harmonize convert ... -o -`` writes to standard output): the
    output in ``target`` and the conversion's result (its report). A target written as a folder, or as a file per
    document when there are several, is one clear error."""
    import tempfile

    writer = get_format(target, "write")
    with tempfile.TemporaryDirectory(prefix="harmonize-stdout-") as out:
        output = Path(out) / f"stdout{writer.extension}"
        result = convert(inputs, source, target, output, **options)
        if not output.is_file():
            raise HarmonizeError(f"{target} writes a folder (a file per document, or several tables): give -o "
                                 "FOLDER instead of -")
        return output.read_bytes(), result


def input_files(inputs: list[Path], reader: Format, sample: bool = False) -> list[Path]:
    """The files (or, for formats stored as folders, the folders) the inputs name, folders searched."""
    if sample:
        if inputs:
            raise HarmonizeError("--sample takes no INPUT")
        return [sample_path()]
    if not inputs:
        raise HarmonizeError("no INPUT given (or use --sample)")
    from harmonize.converters.registry import formats_for

    files: list[Path] = []
    for path in inputs:
        path = reader.located(path)
        if path.is_dir() and reader.extension and path.suffix == reader.extension:
            files.append(path)  # a format stored as a folder (Parquet tables) is one input
        elif path.is_dir():
            found = reader.inputs_in(path)
            if not found:
                endings = ", ".join(f"*{ending}" for ending in reader.accepts or (reader.extension,))
                what = f"{endings} files" if reader.extension else f"{reader.name} document folders"
                fitting = formats_for(path, reader)
                hint = f"; it holds input for --from {' or --from '.join(fitting)}" if fitting else ""
                raise HarmonizeError(f"{path}: no {what} in this folder{hint}")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise HarmonizeError(f"{path}: no such file or folder")
    return files


def read_corpora(path: Path, reader: Format, lenient: bool, report: Report,
                 read_options: dict[str, str] | None = None) -> Iterator[Corpus]:
    """One input file's documents as corpora: a large CorefUD file a piece of whole documents at a time (see
    `harmonize.converters.corefud.stream_corefud`), so that memory follows a piece and not the file; any other
    file at once. The caller frees each corpus (`Corpus.release`) before asking for the next."""
    from harmonize.converters.corefud import stream_corefud
    from harmonize.converters.corefud_pieces import STREAM_PIECE_BYTES

    if reader.name == "corefud" and not read_options and path.is_file() and path.stat().st_size > STREAM_PIECE_BYTES:
        report.opened(path)
        yield from (corpus for corpus, _piece in stream_corefud(path, lenient, report))
    else:
        yield reader.read(path, lenient, report, read_options)


def read_corpus(inputs: Sequence[str | Path], source: str = "corefud", lenient: bool = False,
                report: Report | None = None, read_options: Mapping[str, str] | None = None,
                rules: str | None = None, parse: str | None = None) -> Corpus:
    """Every input file (folders searched for the format's files) in one corpus, parsed and converted by the named
    scheme rules as ``convert`` would."""
    reader = get_format(source, "read")
    checked = reader.read_options([f"{key}={value}" for key, value in (read_options or {}).items()])
    report = report if report is not None else Report()
    corpus = Corpus()
    files = input_files([Path(p) for p in inputs], reader)
    if not files:
        raise HarmonizeError(f"no {source} files in {', '.join(map(str, inputs))}")
    for path in files:
        corpus.documents.extend(reader.read(path, lenient, report, checked).documents)
    Steps(rules, parse).apply(corpus, report)
    return corpus


def read_documents(inputs: list[Path], reader: Format, lenient: bool, report: Report,
                   read_options: dict[str, str] | None = None) -> Iterator[Document]:
    """The documents of every input, one at a time (`read_corpora`); each piece is freed once its documents have
    been handed out, so a document must not be used after the next one is asked for."""
    for path in input_files(inputs, reader):
        for corpus in read_corpora(path, reader, lenient, report, read_options):
            yield from corpus.documents
            corpus.release()


def plan_outputs(files: list[Path], output: Path, reader: Format, writer: Format) -> list[tuple[Path, Path]]:
    """A single input and an OUTPUT that names a file: that file. Otherwise OUTPUT is a folder that gets one file per
    input, named after it (a folder input keeps its whole name), or, for a writer of one output per document, one
    file or folder per document (a single document may also go to a file with the writer's extension: RuCoCo's
    .json, WebAnno TSV's .tsv)."""
    if writer.writes_per_document:
        if output.exists() and not output.is_dir() and not (len(files) == 1 and output.suffix == writer.extension):
            raise HarmonizeError(f"{output}: the {writer.name} writer needs an output folder, and this is a file")
        return [(path, output) for path in files]
    if len(files) == 1 and not output.is_dir() and output.suffix:
        return [(files[0], output)]
    if output.exists() and not output.is_dir():
        raise HarmonizeError(f"{output}: several inputs need an output folder, and this is a file")
    planned: list[tuple[Path, Path]] = []
    taken: dict[Path, Path] = {}
    for path in files:
        stem = path.stem if not path.is_dir() or path.suffix == reader.extension else path.name
        out = output / (stem + writer.extension)
        if out in taken:
            raise HarmonizeError(f"{taken[out]} and {path} would both be written to {out}")
        taken[out] = path
        planned.append((path, out))
    return planned
