"""GUM corpus folders: WebAnno TSV 3.2 coreference (``coref_tsv/``) on the UD trees of ``dep/``, and ``splits.md``.

A GUM release (v7.2.0, v11.1.0 ...) has ``coref_tsv/NAME.tsv`` and ``dep/NAME.conllu`` per document. The TSV
is read for coreference, the CoNLL-U for sentences, tokens and trees; the two token sequences must agree (form by
form; the masked Reddit documents have underscores in both), else an error names the document and the token.

TSV layout: ``#T_SP=webanno.custom.Referent|entity|infstat|...`` names the span features (v7: entity, infstat,
identity; v11 adds salience and centering), ``#T_RL=webanno.custom.Coref|type|BT_...`` the relation columns;
then one line per token: ``S-T``, character offsets, form, one column per span feature (stacked spans joined by
``|``, each ``value[span id]``; no id: a one-token span), the link types and their targets. A link is written on
the first token of its source span and points forward: ``15-8[114_3]`` is token 15-8, target span 114, source
span 3.

In the model:

* each span is a `Mention`; ``entity`` is the entity type, ``identity`` (Wikipedia) an entity
  attribute, ``infstat``, ``salience``, ``centering`` mention attributes (``attrs``);
* entities are the chains of links other than bridging (coref, ana, cata, appos, pred, disc), numbered "1",
  "2", ... in order of first mention; ``Mention.link`` is the type of the link into the mention (a chain's
  first mention: the type of its link onward, as GUM's CorefUD has it; singletons: None);
* ``bridge:def`` and ``bridge:other`` are `Bridge` (label ``def``/``other``) from the target mention to the
  source's entity; ``bridge:aggr`` makes the target's entity a `SplitAntecedent` of the sources' entities,
  as GUM's own CorefUD release does.

A mention typed otherwise than its chain's first mention keeps its own type (``Mention.etype``), as GUM's own
CorefUD files do. Nothing is dropped silently: conflicting identities within a chain keep the first value and are
reported (an error unless lenient), as the CorefUD reader does.
"""

from __future__ import annotations

import re
from pathlib import Path

from harmonize.converters.corefud import read_corefud
from harmonize.errors import FormatError, Problems, Report
from harmonize.io import paused_gc, read_text
from harmonize.schemas.model import Bridge, Corpus, Document, Entity, Mention, Node, SplitAntecedent

_VALUE = re.compile(r"(.*?)(?:\[(\d+)\])?$")
_TARGET = re.compile(r"(\d+-\d+)(?:\[(\d+)_(\d+)\])?$")
_CHAIN_BREAKING = "bridge"  # link types starting so relate entities instead of joining them


def read_splits(folder: str | Path) -> dict[str, list[str]]:
    """``splits.md`` of a GUM release: split name -> document names, in file order."""
    path = Path(folder) / "splits.md"
    splits: dict[str, list[str]] = {}
    current: list[str] | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        header = re.match(r"##\s+(\S+)", line)
        if header:
            current = splits.setdefault(header[1], [])
        elif line.strip().startswith("*"):
            if current is None:
                raise FormatError(str(path), number, "document listed before any '## split' header")
            current.append(line.strip().lstrip("*").strip())
    return splits


def tsv_files(folder: Path) -> list[Path]:
    """The documents of a GUM release folder (``coref_tsv/``; ``tsv/`` in ``reddit_masked/``) or of a TSV folder."""
    for inner in (folder / "coref_tsv", folder / "tsv"):
        if inner.is_dir():
            return sorted(inner.glob("*.tsv"))
    return sorted(folder.glob("*.tsv"))


def read_gum(path: str | Path, lenient: bool = False, report: Report | None = None) -> Corpus:
    """One GUM document: ``coref_tsv/NAME.tsv`` with the trees of ``../dep/NAME.conllu``."""
    path = Path(path)
    report = report if report is not None else Report()
    dep = path.parent.parent / "dep" / f"{path.stem}.conllu"
    if not dep.exists():
        raise FormatError(str(path), None, f"no UD trees for it: {dep} not found")
    corpus = read_corefud(dep, True, Report(), coreference=False)  # the trees; coreference comes from the TSV
    report.opened(dep)
    if len(corpus.documents) != 1:
        raise FormatError(str(dep), None, f"expected one document, found {len(corpus.documents)}")
    document = corpus.documents[0]
    for node in document.nodes():
        if node.misc_order:  # the TSV's bridges and split antecedents go where the writer puts new ones
            node.misc_order = tuple(k for k in node.misc_order if k not in ("Bridge", "SplitAnte"))
    with paused_gc():
        _TsvReader(str(path), document, Problems(str(path), lenient, report)).read(read_text(path))
    document.source = str(path)
    corpus.meta["source"] = str(path)
    return corpus


def read_tsv_coreference(path: str, document: Document, problem: Problems, text: str) -> None:
    """Read the coreference of a GUM-layout TSV (span layer, then relation layer) onto ``document``'s words, which
    must be the TSV's tokens (the WebAnno TSV reader builds them from the TSV itself)."""
    with paused_gc():
        _TsvReader(path, document, problem).read(text)


class SpanRecord:
    """A span of a span layer: its key (id), the line (or position) it starts at, its words and feature values."""

    __slots__ = ("features", "first_line", "key", "nodes")

    def __init__(self, key: str, line: int) -> None:
        self.key = key
        self.first_line = line
        self.nodes: list[Node] = []
        self.features: dict[str, str] = {}


class _TsvReader:
    def __init__(self, path: str, document: Document, problem: Problems) -> None:
        self.path = path
        self.document = document
        self.problem = problem
        self.words = [node for node in document.nodes() if not node.is_empty]
        self.by_token_id: dict[str, Node] = {}
        self.spans: dict[str, SpanRecord] = {}
        self.links: list[tuple[int, str, Node, str | None, str, str | None]] = []

    def read(self, text: str) -> None:
        span_features: list[str] = []
        relation_columns = 0
        at = 0  # index into the dep's words
        for number, line in enumerate(text.split("\n"), 1):
            if line.startswith("#T_SP="):
                span_features = line.split("|")[1:]
            elif line.startswith("#T_RL="):
                relation_columns = len(line.split("|")) - 1
            elif line and not line.startswith("#"):
                columns = line.rstrip("\n").split("\t")
                declared = 3 + len(span_features) + relation_columns
                complete = len(columns) >= declared
                # Lines end with a tab, and some releases pad with "_": a value past the declared columns would be lost.
                if not complete or any(extra not in ("", "_") for extra in columns[declared:]):
                    self.problem(number, "wrong column count",
                                 f"{len(columns)} columns, the header declares {3 + len(span_features)} + "
                                 f"{relation_columns}")
                    if len(columns) < 3:
                        continue
                token_id, form = columns[0], columns[2]
                if at >= len(self.words):
                    raise FormatError(self.path, number, f"token {token_id} {form!r} is beyond the {len(self.words)} "
                                                         f"words of {self.document.id} in dep/")
                node = self.words[at]
                if node.form != form:
                    raise FormatError(self.path, number, f"token {token_id} is {form!r} here and {node.form!r} in "
                                                         f"dep/ (word {at + 1} of {self.document.id})")
                at += 1
                self.by_token_id[token_id] = node
                if complete:  # lenient: a short line still counts as its token, without annotation
                    self.token(number, node, columns, span_features, relation_columns)
        if at != len(self.words):
            raise FormatError(self.path, None, f"{len(self.words) - at} words of {self.document.id} in dep/ have no "
                                               "token here")
        self.build()

    def token(self, number: int, node: Node, columns: list[str], features: list[str], relation_columns: int) -> None:
        for index, feature in enumerate(features):
            cell = columns[3 + index]
            if cell == "_":
                continue
            for position, item in enumerate(cell.split("|")):
                match = _VALUE.match(item)
                assert match is not None
                value, span_id = match[1], match[2]
                # No id: a one-token span, told apart from others on the token by its place in the stack.
                key = span_id if span_id not in (None, "0") else f"{columns[0]}#{position}"
                span = self.spans.get(key)
                if span is None:
                    span = self.spans[key] = SpanRecord(key, number)
                if not span.nodes or span.nodes[-1] is not node:
                    span.nodes.append(node)
                if value not in ("", "*"):
                    span.features[feature] = value
        if relation_columns >= 2:
            types, targets = columns[3 + len(features)], columns[4 + len(features)]
            if types != "_":
                for kind, target in zip(types.split("|"), targets.split("|"), strict=False):
                    match = _TARGET.match(target)
                    if match is None:
                        self.problem(number, "malformed link target", target)
                        continue
                    source = match[3] if match[3] not in (None, "0") else None
                    self.links.append((number, kind, node, source, match[1], match[2] if match[2] != "0" else None))

    def build(self) -> None:
        resolved: list[tuple[int, str, str, str]] = []
        for number, kind, node, source, target_token, target_id in self.links:
            target_node = self.by_token_id.get(target_token)
            source_key = source if source is not None else self._one_token_key(node, target_id)
            target_key = target_id if target_id is not None else (
                self._one_token_key(target_node, source_key) if target_node is not None else None)
            if source_key not in self.spans or target_key not in self.spans:
                self.problem(number, "link to an unknown span", f"{kind} -> {target_token}")
                continue
            resolved.append((number, kind, source_key, target_key))  # type: ignore[arg-type]
        build_coreference(self.document, self.spans, resolved, self.problem)

    def _one_token_key(self, node: Node | None, other_end: str | None = None) -> str | None:
        """The span a link names by id 0 on a token: its id-less one-token span. The raw Reddit builds also write 0
        for spans that have ids ("not yet repaired"): then the one span starting there is meant, or among several
        the one of the same entity type as the link's other end."""
        starting = [key for key, span in self.spans.items() if span.nodes[0] is node]
        idless = [key for key in starting if "#" in key]
        if idless:
            return idless[0]
        if len(starting) > 1 and other_end in self.spans:
            wanted = self.spans[other_end].features.get("entity")
            starting = [key for key in starting if self.spans[key].features.get("entity") == wanted]
        if len(starting) == 1:
            self.problem.report.add("link id 0 taken as the one span starting on its token (of the same type)",
                                    f"{self.path}: span {starting[0]}")
            return starting[0]
        return None


def build_coreference(document: Document, spans: dict[str, SpanRecord], links: list[tuple[int, str, str, str]],
                      problem: Problems) -> None:
    """Mentions, entities, bridges and split antecedents from GUM-style spans and links ((line, type, source span,
    target span)): chains of the links that are not bridging, GUM's link types and attributes (see the module).
    Shared by GUM's TSV and by span + relation layers in UIMA XMI."""
    mentions: dict[str, Mention] = {}
    for key, span in spans.items():
        sentence = span.nodes[0].sentence
        if any(n.sentence is not sentence for n in span.nodes):
            problem(span.first_line, "span crosses a sentence boundary", f"span {key}")
            continue
        mentions[key] = Mention(span.nodes, attrs={f: v for f, v in span.features.items()
                                                   if f in ("infstat", "salience", "centering")})
    # Chains: union-find over the links that are not bridging.
    parent: dict[str, str] = {key: key for key in mentions}

    def root(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    resolved = []
    for number, kind, source_key, target_key in links:
        if source_key in mentions and target_key in mentions:
            resolved.append((number, kind, source_key, target_key))
        else:  # a span left out above
            problem(number, "link to an unknown span", f"{kind}: span {source_key} -> span {target_key}")
    for _number, kind, source_key, target_key in resolved:
        if not kind.startswith(_CHAIN_BREAKING):
            parent[root(target_key)] = root(source_key)
            mentions[target_key].link = kind
    # A chain's first mention has no link into it; GUM's CorefUD gives it the type of its link onward.
    for _number, kind, source_key, _target_key in resolved:
        if not kind.startswith(_CHAIN_BREAKING) and mentions[source_key].link is None:
            mentions[source_key].link = kind
    ordered = sorted(mentions.items(), key=lambda item: item[1].order)
    entities: dict[str, Entity] = {}
    for key, mention in ordered:
        group = root(key)
        entity = entities.get(group)
        span = spans[key]
        if entity is None:
            entity = entities[group] = Entity(str(len(entities) + 1), span.features.get("entity"), document=document)
            if "identity" in span.features:
                entity.attrs["identity"] = span.features["identity"]
            document.entities.append(entity)
        else:
            _check_identity(span, entity, problem)
            etype = span.features.get("entity")
            if etype is not None and entity.type is not None and etype != entity.type:
                mention.etype = etype
        mention.entity = entity
        entity.mentions.append(mention)
        for node in mention.words:
            node.mentions += (mention,)
    splits: dict[Mention, list[Entity]] = {}
    for number, kind, source_key, target_key in resolved:
        if not kind.startswith(_CHAIN_BREAKING):
            continue
        anaphor, antecedent = mentions[target_key], mentions[source_key].entity
        assert antecedent is not None and anaphor.entity is not None
        if antecedent is anaphor.entity:
            problem(number, "bridging inside one entity", f"{kind} from span {source_key}")
        elif kind == "bridge:aggr":
            splits.setdefault(anaphor, [])
            if antecedent not in splits[anaphor]:
                splits[anaphor].append(antecedent)
        elif not any(b.anaphor is anaphor and b.antecedent is antecedent for b in document.bridges):
            document.bridges.append(Bridge(anaphor, antecedent, kind.partition(":")[2] or None))
    for anaphor, antecedents in splits.items():
        assert anaphor.entity is not None
        document.split_antecedents.append(SplitAntecedent(anaphor.entity, antecedents, anaphor))


def _check_identity(span: SpanRecord, entity: Entity, problem: Problems) -> None:
    value, current = span.features.get("identity"), entity.attrs.get("identity")
    if value is not None and current is not None and value != current:
        problem(span.first_line, "conflicting entity identity",
                f"{entity.id} is {current!r} earlier and {value!r} here")
