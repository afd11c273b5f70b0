"""UA scoring on real data: GUM dev (bridges, split antecedents) written as CoNLL-UA by our writer, against a
perturbed copy, scored by `harmonize score --format ua` and by the UA scorer (juntaoy/universal-anaphora-scorer),
every figure compared, and both timed as whole processes.

    python benchmarks/ua_scorer.py --reference ../universal-anaphora-scorer [--data ../shared/data] [--work DIR]

The key gets minimal spans (``Min``: each mention's tree head) so that ``min`` matching has something to do, and a
few singletons become non-referring (``EntityID=...-Pseudo``); the response loses and moves bridges, loses split
antecedents and has its own non-referring markables, beside the scorer benchmark's perturbation (mentions dropped
and extended, entities merged and split).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import DEFAULT_DATA, harmonize_command, user_environment
from scorer import gum_dev, perturb
from ua_conformance import SETTINGS, our_figures, reference_figures, write_figures

import harmonize
from harmonize.schemas.model import Corpus

PSEUDO = "%2DPseudo"  # "-Pseudo" as the model keeps it


def key_corpus(data: Path) -> Corpus:
    corpus = gum_dev(data)
    rng = random.Random(3)
    for document in corpus:
        for node in document.nodes():
            # The UA scorer cuts lines at any whitespace: GUM's MISC values with spaces (XML=<hi rend...>) would
            # shift its columns.
            for key, value in list(node.misc.items()):
                if value is not None and " " in value:
                    node.misc[key] = value.replace(" ", "_")
        for mention in document.mentions:
            mention.head = mention.tree_head
        for entity in document.entities:
            if len(entity.mentions) == 1 and not entity.id.endswith(PSEUDO) and rng.random() < 0.1:
                entity.id += PSEUDO
    return corpus


def response_corpus(data: Path) -> Corpus:
    corpus = perturb(key_corpus(data))
    rng = random.Random(11)
    for document in corpus:
        # The UA scorer closes markables last-opened-first: a mention that crosses another (an extension of the
        # perturbation can make one) cannot be written for it.
        spans = sorted((((m.words[0].order, m.words[-1].order), m) for m in document.mentions), key=lambda x: x[0])
        crossing = {id(b) for i, ((s1, e1), a) in enumerate(spans) for (s2, e2), b in spans[i + 1:]
                    if s1 < s2 <= e1 < e2}
        for mention in [m for m in document.mentions if id(m) in crossing]:
            document.remove_mention(mention)
        for bridge in list(document.bridges):
            roll = rng.random()
            if roll < 0.15:
                document.bridges.remove(bridge)
            elif roll < 0.3 and len(bridge.antecedent.mentions) > 1:
                bridge.label = None  # the anchor becomes the antecedent's mention nearest before the anaphor
            elif roll < 0.4:
                others = [e for e in document.entities if e is not bridge.antecedent and e is not bridge.anaphor.entity]
                if others:
                    bridge.antecedent, bridge.label = rng.choice(others), None
        document.split_antecedents[:] = [s for s in document.split_antecedents if rng.random() < 0.7]
        for entity in document.entities:
            if len(entity.mentions) == 1 and rng.random() < 0.05:
                entity.id = entity.id[:-len(PSEUDO)] if entity.id.endswith(PSEUDO) else entity.id + PSEUDO
    return corpus


def seconds(command: list[str], repeat: int) -> float:
    times = []
    environment = user_environment()
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", type=Path, required=True, help="a clone of juntaoy/universal-anaphora-scorer")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", type=Path, help="write the reference's figures here (JSON, for the tests)")
    args = parser.parse_args()
    kept: list[dict] = []
    work = args.work or Path(tempfile.mkdtemp(prefix="ua-scorer-"))
    work.mkdir(parents=True, exist_ok=True)
    key, response = work / "gum-dev.key.conllua", work / "gum-dev.response.conllua"
    harmonize.write(key_corpus(args.data), key, "ua")
    harmonize.write(response_corpus(args.data), response, "ua")
    words = sum(1 for line in key.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#"))
    print(f"GUM dev as UA: {key} ({words:,} token lines) against {response}")
    compared = differences = 0
    for reference_words, options in SETTINGS:
        theirs = reference_figures(args.reference, key, response, reference_words)
        kept.append({"reference options": list(reference_words), "options": options, "figures": theirs})
        ours = our_figures(key, response, options)
        for name, figures in theirs.items():
            compared += 1
            if ours.get(name) != figures:
                differences += 1
                print(f"DIFF [{' '.join(reference_words)}] {name}: reference {figures}, harmonize {ours.get(name)}")
        shown = ", ".join(f"{name} {values[-1]:.2f}" for name, values in theirs.items())
        print(f"  [{' '.join(reference_words) or 'default'}] {shown}")
    print(f"{compared} figures compared, {differences} differ")
    if args.write is not None:
        write_figures(args.write, kept)
    harmonize_run = [harmonize_command(), "score", str(key), str(response), "--format", "ua"]
    reference_run = [sys.executable, str(args.reference / "ua-scorer.py"), str(key), str(response)]
    ours_s, theirs_s = seconds(harmonize_run, args.repeat), seconds(reference_run, args.repeat)
    print(f"whole processes, default settings, median of {args.repeat}: harmonize {ours_s:.2f} s, "
          f"ua-scorer.py {theirs_s:.2f} s: {theirs_s / ours_s:.1f}x")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
