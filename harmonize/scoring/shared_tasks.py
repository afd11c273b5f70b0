"""The scoring settings of the field's shared tasks, by name (as the CorefUD scorer's repository lists them), so
that a paper can cite one word and a reader can rerun the same figures."""

from __future__ import annotations

from dataclasses import dataclass

from harmonize.errors import HarmonizeError


@dataclass(frozen=True)
class SharedTask:
    """One shared task's settings: the format both files are in, the metrics, and how mentions are matched."""

    name: str
    title: str
    format: str
    metrics: tuple[str, ...]
    singletons: bool
    mode: str
    split_antecedents: bool = False
    non_referring: bool = False
    bridging: bool = False
    discourse_deixis: bool = False

    def describe(self) -> str:
        """The settings in one line, printed at the top of the scores."""
        extras = [name for name, on in (("split antecedents", self.split_antecedents),
                                         ("non-referring markables", self.non_referring),
                                         ("bridging", self.bridging), ("discourse deixis", self.discourse_deixis))
                  if on]
        return (f"shared task {self.name} ({self.title}): format {self.format}; metrics {', '.join(self.metrics)}; "
                f"singletons {'kept' if self.singletons else 'left out'}; {self.mode} matching"
                + "".join(f"; {extra}" for extra in extras))


_COREF = ("muc", "bcub", "ceafe")
SHARED_TASKS = {task.name: task for task in (
    SharedTask("conll12", "CoNLL-2012, OntoNotes", "conll2012", _COREF, singletons=False, mode="exact"),
    SharedTask("crac18", "CRAC 2018, ARRAU", "ua", _COREF, singletons=True, mode="exact", non_referring=True),
    SharedTask("crac22", "CRAC 2022 multilingual coreference, CorefUD 1.0", "corefud",
               (*_COREF, "mentions", "zero"), singletons=False, mode="partial"),
    SharedTask("codicrac22ar", "CODI-CRAC 2022 anaphora resolution", "ua", _COREF, singletons=True, mode="exact",
               split_antecedents=True),
    SharedTask("codicrac22dd", "CODI-CRAC 2022 discourse deixis", "ua", _COREF, singletons=True, mode="exact",
               split_antecedents=True, discourse_deixis=True),
    SharedTask("codicrac22br", "CODI-CRAC 2022 bridging", "ua", (), singletons=True, mode="exact", bridging=True),
    SharedTask("crac23", "CRAC 2023 multilingual coreference, CorefUD 1.1", "corefud", (*_COREF, "mentions", "zero"),
               singletons=False, mode="head"),
    SharedTask("crac24", "CRAC 2024 multilingual coreference, CorefUD 1.2", "corefud", (*_COREF, "mentions", "zero"),
               singletons=False, mode="head"),
)}
# craft19 (CRAFT 2019) matches mentions partially "the CRAFT way"; the one implementation of it (the CorefUD
# scorer's ua-scorer.py) does not run its evaluation, so there is no reference to be exact to.
NOT_AVAILABLE = {"craft19": "CRAFT 2019's partial matching has no reference implementation that runs (the CorefUD "
                            "scorer's ua-scorer.py stops before scoring), so harmonize does not offer it"}


def shared_task(name: str) -> SharedTask:
    """The settings of the shared task ``name``; an error naming the known ones otherwise."""
    if name in SHARED_TASKS:
        return SHARED_TASKS[name]
    if name in NOT_AVAILABLE:
        raise HarmonizeError(f"shared task {name}: {NOT_AVAILABLE[name]}")
    raise HarmonizeError(f"unknown shared task {name!r}; known: {', '.join(SHARED_TASKS)}")
