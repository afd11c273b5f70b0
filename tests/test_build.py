"""harmonize build: the shipped example recipe, every bad-recipe case, byte-identical builds, incremental rebuilds,
resuming after a failure, and the Ray engine giving the same bytes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from harmonize.errors import Report
from harmonize.releases import load_recipe
from harmonize.releases.recipe import RecipeError
from tests.conftest import ROOT, SHARED_DATA, shared

EXAMPLE = ROOT / "examples" / "collection.toml"


def corpus_table(name: str, source: str, inputs: list[str], split: str | None = None) -> str:
    listed = ", ".join(f'"{i}"' for i in inputs)
    return (f'\n[[corpus]]\nname = "{name}"\nfrom = "{source}"\ninput = [{listed}]\n'
            + (f"split = {split}\n" if split else ""))


PARCORFULL = ("en_parcorfull", "mmax2", [f"{SHARED_DATA}/mmax2/parcorfull/news/EN"],
              "{train = 8, dev = 1, test = 1, seed = 0}")


def small_recipe(folder: Path, extra: str = "", corpora: str | None = None) -> Path:
    """Two small corpora by default: ParCorFull English (a share split) and two ECB+ topics (their own split)."""
    shared("mmax2", "parcorfull", "news", "EN")  # skips, saying why, without the data
    if corpora is None:
        corpora = corpus_table(*PARCORFULL) + corpus_table(
            "en_ecbplus", "ecbplus", [f"{SHARED_DATA}/ecbplus/ECB+/1", f"{SHARED_DATA}/ecbplus/ECB+/2"])
    path = folder / "recipe.toml"
    path.write_text(f"""[collection]
name = "small"
version = "1"
{corpora}
[outputs]
formats = ["corefud", "conll2012"]
views = false
pcr = true
{extra}
""", encoding="utf-8")
    return path


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.relative_to(folder).parts}


def test_the_example_recipe_builds_one_corpus(tmp_path: Path, corpus_mirror: dict[str, str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The example names its corpora by id: fetched (from the local mirror) where a path would be."""
    for name, value in {**corpus_mirror, "HARMONIZE_FETCH": "1"}.items():
        monkeypatch.setenv(name, value)
    recipe = load_recipe(EXAMPLE)
    assert [c.name for c in recipe.corpora] == ["en_gum", "en_parcorfull", "de_potsdam", "en_ecbplus", "ru_rucoco",
                                                "en_litbank", "pl_pcc"]
    result = harmonize.build(EXAMPLE, tmp_path / "release", only="en_parcorfull")
    assert result.corpora["en_parcorfull"] == "built" and result.corpora["en_gum"] == "skipped (--only)"
    release = tmp_path / "release"
    for name in ("README.md", "MANIFEST.sha256", "stats.md", "stats.json", "validation.md", "pcr/train.jsonl",
                 "en_parcorfull/en_parcorfull-corefud-train.conllu", "en_parcorfull/stats.md",
                 "views/en_parcorfull/index.html", "plots/collection.png"):
        assert (release / name).is_file(), name
    readme = (release / "README.md").read_text(encoding="utf-8")
    assert "harmonize-demo" in readme and "## Recipe" in readme and str(ROOT) not in readme
    done = subprocess.run(["sha256sum", "-c", "MANIFEST.sha256", "--quiet"], cwd=release, capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_two_builds_are_byte_identical_and_a_rebuild_does_no_work(tmp_path: Path) -> None:
    recipe = small_recipe(tmp_path)
    first = harmonize.build(recipe, tmp_path / "a")
    harmonize.build(recipe, tmp_path / "b")
    assert first.corpora == {"en_parcorfull": "built", "en_ecbplus": "built"}
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "a").rglob("*") if p.is_file()}
    again = harmonize.build(recipe, tmp_path / "a")
    assert again.corpora == {"en_parcorfull": "cached", "en_ecbplus": "cached"}
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "a").rglob("*") if p.is_file()} == stamps  # nothing written
    assert again.seconds < 0.2 * first.seconds


def test_a_changed_input_rebuilds_its_corpus_alone(tmp_path: Path) -> None:
    topic = tmp_path / "ecb" / "1"
    shutil.copytree(shared("ecbplus", "ECB+", "1"), topic)
    recipe = small_recipe(tmp_path, corpora=corpus_table(*PARCORFULL) + corpus_table(
        "en_ecbplus", "ecbplus", ["ecb/1"], "{train = 1, dev = 1, test = 1, seed = 3}"))
    harmonize.build(recipe, tmp_path / "release")
    first_file = min(topic.glob("*.xml"))
    first_file.write_text(first_file.read_text(encoding="utf-8").replace(">the<", ">The<", 1), encoding="utf-8")
    again = harmonize.build(recipe, tmp_path / "release")
    assert again.corpora == {"en_parcorfull": "cached", "en_ecbplus": "built"}
    recipe.write_text(recipe.read_text(encoding="utf-8").replace("seed = 3", "seed = 4"), encoding="utf-8")
    assert harmonize.build(recipe, tmp_path / "release").corpora["en_ecbplus"] == "built"  # an option changed


def test_a_failed_build_resumes_where_it_stopped(tmp_path: Path) -> None:
    # a malformed CorefUD file: its task fails
    broken = tmp_path / "broken.conllu"
    broken.write_text(sample_path().read_text(encoding="utf-8").replace("Entity=(e1-person-1)", "Entity=(e1-person-1",
                                                                        1), encoding="utf-8")
    recipe = small_recipe(tmp_path, corpora=corpus_table(*PARCORFULL) + corpus_table(
        "en_broken", "corefud", [str(broken)], "{train = 1, dev = 0, test = 1}"))
    with pytest.raises(harmonize.HarmonizeError, match="broken.conllu:"):
        harmonize.build(recipe, tmp_path / "release", jobs=1)
    assert (tmp_path / "release" / ".cache" / "en_parcorfull.json").is_file()  # the finished corpus is kept
    kept = harmonize.build(recipe, tmp_path / "release", jobs=1, keep_going=True)
    assert kept.corpora == {"en_parcorfull": "cached", "en_broken": "failed"}
    assert not [p for p in (tmp_path / "release").rglob("*.part")]  # no half-written file


BAD = [
    ("unknown key", "pcr = true", "pcr = true\ncolour = \"red\"", "colour", "outputs.colour: unknown key"),
    ("wrong type", "views = false", "views = \"no\"", "views", "outputs.views: must be true or false"),
    ("unknown format", 'formats = ["corefud", "conll2012"]', 'formats = ["docx"]', "formats",
     "outputs.formats: no writer 'docx'"),
]


@pytest.mark.parametrize(("case", "old", "new", "key", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_recipes_name_file_line_and_key(case: str, old: str, new: str, key: str, message: str,
                                            tmp_path: Path) -> None:
    recipe = small_recipe(tmp_path)
    text = recipe.read_text(encoding="utf-8").replace(old, new)
    recipe.write_text(text, encoding="utf-8")
    line = next(number for number, content in enumerate(text.split("\n"), 1) if content.startswith(key))
    with pytest.raises(RecipeError) as caught:
        load_recipe(recipe)
    assert str(caught.value).startswith(f"{recipe}:{line}: ") and message in str(caught.value)


def test_bad_corpus_entries_and_the_command_exits_2(tmp_path: Path) -> None:
    base = small_recipe(tmp_path)
    cases = {
        "missing input": ('input = ["', 'input = ["/no/such/folder", "', "corpus[1].input: /no/such/folder"),
        "unknown reader": ('from = "mmax2"', 'from = "docx"', "corpus[1].from: no reader 'docx'"),
        "two corpora with one name": ('name = "en_ecbplus"', 'name = "en_parcorfull"',
                                      "corpus[2].name: 'en_parcorfull' is also corpus[1]'s name"),
        "bad option": ('split = {train = 8', 'options = {level = "x"}\nsplit = {train = 8',
                       "corpus[1].options"),
    }
    text = base.read_text(encoding="utf-8")
    for name, (old, new, message) in cases.items():
        recipe = tmp_path / f"{name.replace(' ', '-')}.toml"
        recipe.write_text(text.replace(old, new, 1), encoding="utf-8")
        with pytest.raises(RecipeError, match=message.replace("[", r"\[").replace("]", r"\]")):
            load_recipe(recipe)
        done = subprocess.run([sys.executable, "-m", "harmonize", "build", str(recipe), "-o", str(tmp_path / "out")],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and f"{recipe}:" in done.stderr, name
        assert not (tmp_path / "out").exists()  # nothing written
    lines = text.replace('name = "en_ecbplus"', 'name = "en_parcorfull"').split("\n")
    duplicate = tmp_path / "dup.toml"
    duplicate.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(RecipeError) as caught:
        load_recipe(duplicate)
    second = lines.index('name = "en_parcorfull"', lines.index('name = "en_parcorfull"') + 1) + 1
    assert str(caught.value).startswith(f"{duplicate}:{second}: corpus[2].name")


def test_the_ray_engine_builds_the_same_bytes(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray not installed: pip install -e '.[distributed]'")
    recipe = small_recipe(tmp_path)
    harmonize.build(recipe, tmp_path / "local", jobs=2)
    result = harmonize.build(recipe, tmp_path / "ray", engine="ray")
    assert set(result.corpora.values()) == {"built"}
    assert tree(tmp_path / "local") == tree(tmp_path / "ray")


def test_dry_run_builds_nothing(tmp_path: Path) -> None:
    recipe = small_recipe(tmp_path)
    result = harmonize.build(recipe, tmp_path / "release", dry_run=True)
    assert set(result.corpora.values()) == {"to build"} and not (tmp_path / "release").exists()


def test_neural_validation_trains_on_train_and_scores_dev(tmp_path: Path) -> None:
    pytest.importorskip("transformers", reason="the resolver extra is not installed: pip install -e '.[resolver]'")
    from tests.conftest import make_tiny_encoder

    words = [n.form for d in harmonize.read(shared("mmax2", "parcorfull", "news", "EN"), "mmax2", report=Report()).documents
             for n in d.nodes()]
    encoder = make_tiny_encoder(tmp_path / "encoder", words)
    recipe = small_recipe(tmp_path, corpora=corpus_table(*PARCORFULL), extra=f"""validate = "neural"

[outputs.train]
encoder = "{encoder}"
epochs = 1
device = "cpu"
gpus = 1
""")
    plan = load_recipe(recipe)
    from harmonize.releases import gpus_for

    assert gpus_for(plan.corpora[0], plan) == 1  # what the task would ask Ray for
    harmonize.build(recipe, tmp_path / "release")
    import json

    checks = json.loads((tmp_path / "release" / "validation.json").read_text(encoding="utf-8"))["en_parcorfull"]
    assert set(checks["resolver"]) == {"muc", "bcub", "ceafe", "lea", "mentions", "conll"}
    assert "resolver CoNLL" in (tmp_path / "release" / "validation.md").read_text(encoding="utf-8")


def test_neural_validation_needs_a_train_table(tmp_path: Path) -> None:
    recipe = small_recipe(tmp_path, extra='validate = "neural"')
    with pytest.raises(RecipeError, match=r"outputs.validate: \"neural\" needs an \[outputs.train\] table"):
        load_recipe(recipe)
