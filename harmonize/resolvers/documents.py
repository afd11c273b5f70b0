"""What every resolver does to a document before and after resolving: drop the coreference it came with, and add
the entities it found (mentions with their tree heads, entity ids in order of first mention)."""

from __future__ import annotations

from collections.abc import Sequence

from harmonize.errors import Report
from harmonize.schemas.model import Corpus, Document, Mention, Node, ud_head


def without_coreference(corpus: Corpus, report: Report) -> Corpus:
    """Remove every entity, mention, bridge and split antecedent, and the entity header (the writer then declares
    its own), counting what was there: a resolver's input keeps its text and trees only."""
    for document in corpus.documents:
        what = {"entities": len(document.entities), "mentions": sum(len(e.mentions) for e in document.entities),
                "bridges": len(document.bridges), "split antecedents": len(document.split_antecedents)}
        for name, count in what.items():
            if count:
                report.add(f"input coreference ignored: {name}", str(document.id), count)
        for entity in list(document.entities):
            document.remove_entity(entity)
        document.bridges, document.split_antecedents = [], []
        document.entity_fields = None
    return corpus


def add_clusters(document: Document, clusters: Sequence[Sequence[Sequence[Node]]]) -> list[Mention]:
    """Give ``document`` one entity per cluster (a cluster is a list of mentions, a mention a list of nodes), in
    order of first mention, ids e1, e2, ...; each mention's head is its tree head where the document has trees."""
    ordered = sorted((c for c in clusters if c), key=lambda c: min(m[0].order for m in c))
    added = []
    for cluster in ordered:
        entity = document.new_entity()
        for words in cluster:
            mention = document.add_mention(entity, words)
            document.move_head(mention, ud_head(mention))
            added.append(mention)
    return added


class MentionSets:
    """Mentions joined into entities by their index in a list (a disjoint-set forest, paths halved as they are
    walked): what the baselines build their entities with."""

    def __init__(self, count: int) -> None:
        self.parent = list(range(count))

    def root(self, index: int) -> int:
        while self.parent[index] != index:
            self.parent[index] = self.parent[self.parent[index]]
            index = self.parent[index]
        return index

    def join(self, anaphor: int, antecedent: int) -> bool:
        """Put ``anaphor``'s set into ``antecedent``'s; False where they were one already."""
        mine, theirs = self.root(anaphor), self.root(antecedent)
        self.parent[mine] = theirs
        return mine != theirs

    def clusters(self, words: Sequence[Sequence[Node]]) -> list[list[Sequence[Node]]]:
        """The mentions' ``words`` (in index order) grouped by set, each set's in index order."""
        grouped: dict[int, list[Sequence[Node]]] = {}
        for index, mention in enumerate(words):
            grouped.setdefault(self.root(index), []).append(mention)
        return list(grouped.values())
