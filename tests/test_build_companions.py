"""Builds see every file a reader opens, and only those: one byte changed in a companion file (brat's text,
MMAX2's words, markables, schemes and common_paths.xml, TEI's layers, GUM's trees, ECB+'s sentence CSV, an XMI
type system, a split file) rebuilds exactly the corpus that reads it; the release lists those files as the recipe
names its inputs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import harmonize
from harmonize.conversion import sample_path
from tests.conftest import shared

SHARES = "{train = 1, dev = 0, test = 1}"


def _copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)
    return target


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Small copies of real corpora (the shared data is read-only), laid out as each format keeps its files."""
    root = tmp_path_factory.mktemp("inputs")
    litbank = shared("litbank", "brat")
    for suffix in (".ann", ".txt"):
        _copy(litbank / f"105_persuasion_brat{suffix}", root / "lb" / f"105_persuasion_brat{suffix}")
    gum = shared("gum", "v11.1.0")
    _copy(gum / "coref_tsv" / "GUM_academic_exposure.tsv", root / "gum" / "coref_tsv" / "GUM_academic_exposure.tsv")
    _copy(gum / "dep" / "GUM_academic_exposure.conllu", root / "gum" / "dep" / "GUM_academic_exposure.conllu")
    _copy(gum / "dep" / "GUM_academic_art.conllu", root / "gum" / "dep" / "GUM_academic_art.conllu")  # unread
    pcc = shared("mmax2", "potsdam_pcc2.2", "coreference-mmax")
    name = "maz-10575"
    for file in [pcc / f"{name}.mmax", pcc / "common_paths.xml", pcc / "basedata" / f"{name}_words.xml",
                 *pcc.glob(f"markables/{name}_*"), *pcc.glob("schemes/*"), *pcc.glob("styles/*")]:
        _copy(file, root / "pcc" / file.relative_to(pcc))
    _copy(shared("pcc", "tei_format_sample_liner2", "pst20_00120445"), root / "tei" / "pst20_00120445")
    ecb = shared("ecbplus")
    _copy(ecb / "ECB+" / "1", root / "ecb" / "ECB+" / "1")
    _copy(ecb / "ECBplus_coreference_sentences.csv", root / "ecb" / "ECBplus_coreference_sentences.csv")
    xmi = root / "xmi"
    harmonize.convert([sample_path()], "corefud", "xmi", xmi, warn_losses=False)
    _copy(sample_path(), root / "cu" / "sample.conllu")
    (root / "cu" / "split.txt").write_text("sample-1 train\nsample-2 test\n", encoding="utf-8")
    return root


def _recipe(folder: Path, data: Path) -> Path:
    corpora = [
        ("en_lb", "brat", '["lb/105_persuasion_brat.ann"]', SHARES, ""),
        ("en_gum", "gum", '["gum/coref_tsv/GUM_academic_exposure.tsv"]', SHARES, ""),
        ("de_pcc", "mmax2", '["pcc/maz-10575.mmax"]', SHARES, ""),
        ("pl_tei", "tei", '["tei/pst20_00120445"]', SHARES, ""),
        ("en_ecb", "ecbplus", '["ecb/ECB+/1"]', '"own"', 'options = {sentences = "validated"}\n'),
        ("en_xmi", "xmi", '["xmi"]', SHARES, ""),
        ("en_cu", "corefud", '["cu/sample.conllu"]', '"cu/split.txt"', ""),
    ]
    text = '[collection]\nname = "companions"\n'
    for name, source, inputs, split, extra in corpora:
        text += f'\n[[corpus]]\nname = "{name}"\nfrom = "{source}"\ninput = {inputs}\nsplit = {split}\n{extra}'
    text += '\n[outputs]\nformats = ["corefud"]\nviews = false\nstats = false\nvalidate = "none"\n'
    recipe = data / "recipe.toml"  # beside the inputs: the recipe names them relative to itself
    recipe.write_text(text, encoding="utf-8")
    return recipe


def _touch(path: Path) -> bytes:
    """Change one byte (a space or a character at the end: every reader still takes the file)."""
    data = path.read_bytes()
    at = data.rfind(b" ")
    changed = data[:at] + b"\t" + data[at + 1:] if path.suffix in (".txt",) else data + b"\n"
    path.write_bytes(changed)
    return data


COMPANIONS = [
    ("en_lb", "lb/105_persuasion_brat.txt"),
    ("en_gum", "gum/dep/GUM_academic_exposure.conllu"),
    ("de_pcc", "pcc/common_paths.xml"),
    ("de_pcc", "pcc/basedata/maz-10575_words.xml"),
    ("de_pcc", "pcc/markables/maz-10575_primmark_level.xml"),
    ("de_pcc", "pcc/schemes/primmark_scheme.xml"),
    ("pl_tei", "tei/pst20_00120445/ann_coreference.xml.gz"),
    ("en_ecb", "ecb/ECBplus_coreference_sentences.csv"),
    ("en_xmi", "xmi/TypeSystem.xml"),
    ("en_cu", "cu/split.txt"),
]


def test_each_companion_file_rebuilds_exactly_its_corpus(tmp_path: Path, data: Path) -> None:
    recipe = _recipe(tmp_path, data)
    release = tmp_path / "release"
    first = harmonize.build(recipe, release, jobs=1)
    assert set(first.corpora.values()) == {"built"}, first.failures
    readme = (release / "README.md").read_text(encoding="utf-8")
    for _, companion in COMPANIONS:
        assert f"  {companion}\n" in readme, companion  # listed as the recipe names its inputs
    assert "GUM_academic_art" not in readme and str(data) not in readme and "../" not in readme
    assert set(harmonize.build(recipe, release, jobs=1).corpora.values()) == {"cached"}
    unread = data / "gum" / "dep" / "GUM_academic_art.conllu"
    unread.write_bytes(unread.read_bytes() + b"\n")
    assert set(harmonize.build(recipe, release, jobs=1).corpora.values()) == {"cached"}  # not opened: no rebuild
    for corpus, companion in COMPANIONS:
        path = data / companion
        if path.suffix == ".gz":
            import gzip

            original = path.read_bytes()
            path.write_bytes(gzip.compress(gzip.decompress(original) + b"\n", mtime=0))
        else:
            original = _touch(path)
        states = harmonize.build(recipe, release, jobs=1).corpora
        path.write_bytes(original)
        assert states == {name: "built" if name == corpus else "cached" for name in states}, (companion, states)
        harmonize.build(recipe, release, jobs=1)  # back to the original bytes


def test_release_readme_says_writer_losses_and_empty_parts(tmp_path: Path, data: Path) -> None:
    recipe = data / "losses.toml"
    recipe.write_text('[collection]\nname = "losses"\n\n[[corpus]]\nname = "en_cu"\nfrom = "corefud"\n'
                      'input = ["cu/sample.conllu"]\nsplit = {train = 1, dev = 1, test = 8, seed = 0}\n\n'
                      '[outputs]\nformats = ["conll2012"]\nviews = false\nstats = false\nvalidate = "none"\n',
                      encoding="utf-8")
    logged: list[str] = []
    result = harmonize.build(recipe, tmp_path / "release", jobs=1, log=logged.append)
    assert result.warnings and any("part is empty" in line for line in logged)
    readme = (tmp_path / "release" / "README.md").read_text(encoding="utf-8")
    assert "**warning**: en_cu: the " in readme and "part is empty (2 document(s)" in readme
    assert "writing conll2012: 4 x heads not written (CoNLL-2012 has no place for them)" in readme


def test_own_split_without_one_is_refused_when_the_recipe_is_checked(tmp_path: Path, data: Path) -> None:
    recipe = data / "own.toml"
    recipe.write_text('[collection]\nname = "own"\n\n[[corpus]]\nname = "en_lb"\nfrom = "brat"\n'
                      'input = ["lb/105_persuasion_brat.ann"]\nsplit = "own"\n', encoding="utf-8")
    with pytest.raises(harmonize.releases.RecipeError) as caught:
        harmonize.build(recipe, tmp_path / "release", dry_run=True)
    message = str(caught.value)
    assert "own.toml:" in message and "split: brat input has no split of its own" in message
    assert message.count("en_lb") <= 1 and "\n" not in message
