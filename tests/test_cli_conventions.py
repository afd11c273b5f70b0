"""One meaning per option everywhere: matching defaults, --lenient, n/a, aligned per-document tables, stats
tables chosen by name with one meaning of "clusters"."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import harmonize
from harmonize.conversion import sample_path
from harmonize.scoring.matching import DEFAULT_MATCHING
from tests.conftest import shared


def run(*args: str | Path, columns: int | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS=str(columns)) if columns else None
    return subprocess.run([sys.executable, "-m", "harmonize", *map(str, args)], capture_output=True, text=True,
                          env=env)


def test_score_and_diff_default_to_head_matching_as_the_corefud_scorer() -> None:
    assert DEFAULT_MATCHING == "head"
    for command in ("score", "diff"):
        done = run(command, "--help", columns=80)
        assert done.returncode == 0 and "head (the default, as the CorefUD scorer's since 1.1" in " ".join(
            done.stdout.split())
    scores = harmonize.score(sample_path(), sample_path())
    result = harmonize.diff(sample_path(), sample_path())
    assert result.matching == "head" and scores.conll == 1.0


def test_score_takes_lenient_and_reports_what_it_dropped(tmp_path: Path) -> None:
    broken = tmp_path / "broken.conllu"
    broken.write_text(sample_path().read_text(encoding="utf-8").replace("Entity=(e1-person-1)", "Entity=(e1-person-1",
                                                                        1), encoding="utf-8")
    strict = run("score", sample_path(), broken)
    assert strict.returncode == 1 and "broken.conllu:" in strict.stderr and "Traceback" not in strict.stderr
    lenient = run("score", sample_path(), broken, "--lenient")
    assert lenient.returncode == 0 and "lost or changed:" in lenient.stderr
    assert harmonize.score(sample_path(), broken, lenient=True).report


def test_a_metric_with_nothing_to_count_prints_n_a(tmp_path: Path) -> None:
    conll = tmp_path / "s.conll"
    harmonize.convert([sample_path()], "corefud", "conll2012", conll, warn_losses=False)  # no empty nodes
    done = run("score", conll, conll, "--format", "conll2012", "--per-document")
    lines = done.stdout.splitlines()
    assert done.returncode == 0
    assert next(line for line in lines if line.startswith("zero")).split() == ["zero", "n/a", "n/a", "n/a"]
    assert lines[0].startswith("scored: conll2012, ")  # the settings first
    header = next(line for line in lines if line.startswith("document (F1)")).split()
    assert header[:3] == ["document", "(F1)", "muc"] and "leamentions" not in " ".join(header) and "lea" in header
    assert "{" not in done.stdout and "{" not in done.stderr  # no Python reprs
    assert "left out of the macro average, having nothing to count: zero 2 document(s)" in done.stdout


def test_stats_tables_are_chosen_by_name_and_say_what_they_count() -> None:
    done = run("stats", sample_path(), "--tables", "corpus,genre", "--no-singletons")
    assert done.returncode == 0, done.stderr
    titles = [line for line in done.stdout.splitlines() if line and not line[0].isspace() and "  " not in line]
    assert titles == ["corpus (singletons left out)", "genre (singletons left out)"]
    assert "mentions" in done.stdout.splitlines()[1].split() and "head_upos__" not in done.stdout
    bad = run("stats", sample_path(), "--tables", "corpus,nope")
    assert bad.returncode == 1 and "unknown table(s) nope" in bad.stderr
    tables = json.loads(run("stats", sample_path(), "--format", "json").stdout)["tables"]
    assert "cross_document" not in tables and "clusters" not in tables["genre"][0]


def test_stats_plots_have_no_empty_panels_and_name_the_grouping(tmp_path: Path) -> None:
    gum = shared("gum", "v11.1.0", "dep")
    files = sorted(gum.glob("GUM_a*.conllu"))[:4]
    done = run("stats", *files, "--by", "document", "--tables", "mention_types", "--plots", tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lengths.png", "mention_types.png"]
    from harmonize.stats import stats_tables

    corpus = harmonize.Corpus([d for f in files for d in harmonize.read(f).documents])
    frame = stats_tables(corpus, by="document", tables=["mention_types"])["mention_types"]
    assert (frame["with_gap"] == 0).all()  # a column of zeros: no panel for it (checked by looking, see README)


def test_brat_input_is_found_from_the_text_file_or_the_name(tmp_path: Path) -> None:
    brat = shared("litbank", "brat")
    by_ann = harmonize.read(brat / "105_persuasion_brat.ann", "brat")
    for given in (brat / "105_persuasion_brat.txt", brat / "105_persuasion_brat"):
        corpus = harmonize.read(given, "brat")
        assert len(corpus.documents[0].mentions) == len(by_ann.documents[0].mentions) > 0
        done = run("stats", given, "--from", "brat", "--tables", "corpus")
        assert done.returncode == 0, done.stderr


def test_a_folder_of_another_format_names_the_from_that_fits() -> None:
    cases = {("gum", "v11.1.0"): "--from gum", ("mmax2", "potsdam_pcc2.2", "coreference-mmax"): "--from mmax2",
             ("ecbplus", "ECB+", "1"): "--from ecbplus", ("litbank", "brat"): "--from brat"}
    for parts, expected in cases.items():  # with --from corefud given; left out, the format is detected
        done = run("stats", shared(*parts), "--from", "corefud")
        assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1
        assert "no *.conllu files in this folder; it holds input for" in done.stderr and expected in done.stderr


COMMANDS = ["formats", "rules", "convert", "score", "compare", "diff", "build", "view", "stats", "pcr generate",
            "pcr convert", "pcr sets", "pcr solve", "pcr evaluate", "resolve rules", "resolve lemma", "resolve train",
            "resolve predict", "validate", "check"]


def test_every_command_help_has_examples_and_fits_80_columns() -> None:
    for command in COMMANDS:
        done = run(*command.split(), "--help", columns=80)
        assert done.returncode == 0, command
        lines = done.stdout.splitlines()
        assert "Examples:" in done.stdout and f"harmonize {command}" in done.stdout.split("Examples:")[1], command
        assert all(len(line) <= 80 for line in lines), (command, [line for line in lines if len(line) > 80])
        assert "…" not in done.stdout, command  # nothing cut short
    assert "pip install 'harmonize[distributed]'" in " ".join(run("build", "--help", columns=80).stdout.split())
    assert "[default: 10;" in run("resolve", "train", "--help", columns=80).stdout  # brackets are text


def test_readme_names_every_command_in_one_table_and_no_synopsis_disagrees() -> None:
    """The README has no hand-written synopsis to drift (the command reference is generated from the CLI): its task
    table names every command, and each command's options are only in its --help."""
    from tests.conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Which command for which task", 1)[1].split("\n## ", 1)[0]
    named = {" ".join(cell.split()[1:3]) for cell in re.findall(r"`(harmonize [^`]+)`", table)}
    if "resolve rules|lemma|train|predict" in table:
        named |= {f"resolve {c}" for c in ("rules", "lemma", "train", "predict")}
    for command in COMMANDS:
        first = command.split()[0]
        assert command in named or first in {n.split()[0] for n in named}, command
    assert "## Command line" not in readme


# (command, its wrong option): each must fail on the option, not on the input, which here cannot be read at all.
WRONG_OPTIONS = [
    (["convert", "{bad}", "--to", "nope", "-o", "{out}"], "nope"),
    (["convert", "{bad}", "--rules", "nope", "-o", "{out}"], "nope"),
    (["convert", "{bad}", "-O", "nope=1", "-o", "{out}"], "nope"),
    (["convert", "{bad}", "--parse", "nope", "-o", "{out}"], "--parse"),
    (["score", "{bad}", "{bad}", "--match", "nope"], "matching mode"),
    (["score", "{bad}", "{bad}", "--metrics", "nope"], "metric"),
    (["score", "{bad}", "{bad}", "--ci", "300"], "confidence level"),
    (["score", "{bad}", "{bad}", "{bad}", "--table", "nope"], "--table"),
    (["stats", "{bad}", "--tables", "nope"], "table"),
    (["stats", "{bad}", "--by", "nope"], "--by"),
    (["diff", "{bad}", "{bad}", "--match", "nope"], "matching mode"),
    (["view", "{bad}", "-I", "nope=1", "-o", "{out}"], "nope"),
    (["validate", "{bad}", "{bad}", "--rules", "nope"], "rules"),
    (["validate", "{bad}", "{bad}", "--device", "nope"], "device"),
    (["resolve", "train", "{bad}", "--device", "nope", "-o", "{out}"], "device"),
]


def test_options_are_checked_before_any_input_is_read(tmp_path: Path) -> None:
    bad = tmp_path / "unreadable.conllu"
    bad.write_text("# global.Entity = eid-etype-head-other\n1\tword\t_\t_\t_\t_\t0\t_\t_\tEntity=(e1\n\n",
                   encoding="utf-8")
    wrong = []
    for arguments, named in WRONG_OPTIONS:
        done = run(*(a.format(bad=bad, out=tmp_path / "out") for a in arguments))
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        if done.returncode == 0 or named not in last or str(bad) in last:
            wrong.append(f"{' '.join(arguments)}: {last}")
    assert not wrong, "\n".join(wrong)
