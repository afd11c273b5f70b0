"""Scheme rules: deterministic conversions between annotation schemes, each step reported.

`RULES` is the one registry: a name (``harmonize convert --rules NAME``) -> a `Rule`, either a set of
steps (``ontogum``, ``corefud``) or one step. ``--rules a,b,c`` applies them in the order given
(`apply_rules`); ``harmonize rules`` lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from harmonize.errors import HarmonizeError, Report
from harmonize.rules import corefud
from harmonize.rules.ontogum import STEPS as ONTOGUM_STEPS
from harmonize.rules.ontogum import apply_ontogum
from harmonize.schemas.model import Corpus, Document


@dataclass(frozen=True)
class Rule:
    name: str
    summary: str
    apply: Callable[[Corpus, Report], None]
    steps: tuple[str, ...] = ()  # for a set: the steps it runs, in order
    across_documents: bool = False  # needs the whole corpus at once (not a piece of a file)


def _per_document(step: Callable[[Document, Report], None]) -> Callable[[Corpus, Report], None]:
    def apply(corpus: Corpus, report: Report) -> None:
        for document in corpus.documents:
            step(document, report)

    return apply


_STEPS = [
    Rule("merge-same-span", "of mentions of one entity with the same words, the first stays (udapi "
         "corefud.MergeSameSpan same_entity_only=1); same-span mentions of different entities are counted",
         _per_document(corefud.merge_same_span)),
    Rule("fix-interleaved", "crossing or interleaved mentions of one entity become their union (udapi "
         "corefud.FixInterleaved)", _per_document(corefud.fix_interleaved)),
    Rule("move-heads", "every head becomes the mention's highest node in the tree (udapi corefud.MoveHead)",
         _per_document(corefud.move_heads)),
    Rule("split-ante-first-mention", "split antecedents written at their entity's first mention, where udapi "
         "writes them", _per_document(corefud.split_antecedents_at_first_mention)),
    Rule("standard-header", "global.Entity as udvalidate --coref parses it: eid, etype, head first (GUM's GRP is "
         "eid), other fourth, names of lower-case letters; values kept", _per_document(corefud.standard_header)),
    Rule("unique-ids", "entity ids an earlier document of the corpus used get the prefix dN. (N: the document's "
         "number): udvalidate refuses an id in two documents of a file; a topic's shared ids stay",
         corefud.unique_ids, across_documents=True),
    Rule("remove-non-bridging", "bridges labelled cop or appos (LitBank's copula and apposition relations) are "
         "dropped and counted: not bridging, and CorefUD's LitBank has none",
         _per_document(corefud.remove_non_bridging)),
    Rule("check", "count what udvalidate --coref refuses: same-span mentions of different entities, crossing "
         "mentions of one entity, mentions of one entity typed differently, entity types outside CorefUD's list",
         _per_document(corefud.check)),
    Rule("heads-only", "every mention becomes its head word (annotated, else from the tree); one entity's "
         "mentions on one word collapse", _per_document(corefud.heads_only)),
    Rule("remove-singletons", "entities with one mention go, with their relations",
         _per_document(corefud.remove_singletons)),
]


def _set(name: str, summary: str, steps: tuple[str, ...]) -> Rule:
    chosen = [rule for step in steps for rule in _STEPS if rule.name == step]

    def apply(corpus: Corpus, report: Report) -> None:
        for rule in chosen:
            rule.apply(corpus, report)

    return Rule(name, summary, apply, steps, any(rule.across_documents for rule in chosen))


RULES: dict[str, Rule] = {rule.name: rule for rule in [
    Rule("ontogum", "GUM to the OntoNotes scheme: the OntoGUM paper's eight steps in its order", apply_ontogum,
         tuple(step.__name__.replace("_", "-") for step in ONTOGUM_STEPS)),
    _set("corefud", "the CorefUD release's harmonization", ("merge-same-span", "fix-interleaved", "move-heads",
                                                             "split-ante-first-mention", "remove-non-bridging",
                                                             "standard-header", "unique-ids", "check")),
    *_STEPS,
]}


def rule_list(spec: str) -> list[Rule]:
    """The rules a ``--rules`` value names (comma-separated, applied in that order), or an error listing them."""
    names = [name.strip() for name in spec.split(",") if name.strip()]
    unknown = [name for name in names if name not in RULES]
    if unknown or not names:
        raise HarmonizeError(f"no rules {', '.join(map(repr, unknown)) or repr(spec)}; available: "
                             f"{', '.join(RULES)} (harmonize rules lists them)")
    return [RULES[name] for name in names]


def carried_between_pieces() -> dict:
    """What rules over the corpus keep between the pieces of a file ruled one after another (put in each piece's
    ``corpus.meta``; updated in place): unique-ids' ids of the documents before."""
    return {corefud.IDS_SO_FAR: corefud.IdsSoFar()}


def planned_for_pieces(scans: Iterable[list[tuple[str | None, tuple[str, ...]]]]) -> Iterator[dict]:
    """What rules over the corpus need in each piece of a file to rule the pieces at once (put in each piece's
    ``corpus.meta``), worked out in turn from each piece's documents as scanned (topic, entity ids): unique-ids'
    ids. A piece whose documents are not those scanned raises `harmonize.rules.corefud.PlanMismatch`."""
    return ({corefud.IDS_SO_FAR: plan} for plan in corefud.plan_unique_ids(scans))


def apply_rules(corpus: Corpus, spec: str, report: Report) -> None:
    """Apply the rules ``spec`` names, in order, counting each step's changes in ``report``."""
    for rule in rule_list(spec):
        rule.apply(corpus, report)
