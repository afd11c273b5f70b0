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

In the model, as GUM's own build writes ``dep/`` (its ``_build/utils/repair_tsv.py``; equal on the coreference of
270 of the 281 v11.1.0 documents, the others named in docs/formats/gum.md):

* each span is a `Mention` over every node from its first token to its last (empty nodes between included, a gap
  between its tokens filled, counted); ``entity`` is the entity type, ``identity`` (Wikipedia) an entity attribute,
  ``infstat``, ``salience``, ``centering`` mention attributes (``attrs``), and ``minspan`` the positions in the span
  of its head, the head's conjuncts and flat parts and proper nouns under proper nouns (`gum_minspan`);
* entities are the chains of links other than bridging (coref, ana, cata, appos, pred, disc), grouped as the build
  groups them (`gum_groups`) and numbered "1", "2", ... in order of first mention; ``Mention.link`` as the build
  derives it (`add_gum_build_fields`): ``sgl`` in no link, ``coref`` only linked to, else the mention's own link
  back as the trees qualify it (``ana``, ``appos``, ``pred``), ``cata``, ``disc``;
* ``bridge:def`` and ``bridge:other`` are `Bridge` from the target mention to the source's entity, without their
  subtype as the build writes them (``-I bridge_types=keep`` keeps it as the label; dropping is counted);
  ``bridge:aggr`` makes the target's entity a `SplitAntecedent` of the sources' entities.

A mention typed otherwise than its chain's first mention keeps its own type (``Mention.etype``), as GUM's own
CorefUD files do. Nothing is dropped silently: conflicting identities within a chain keep the first value and are
reported (an error unless lenient), as the CorefUD reader does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import groupby
from pathlib import Path

from harmonize.converters.corefud import read_corefud
from harmonize.errors import FormatError, Problems, Report, check_choice
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


def splits_beside(files: list[Path]) -> dict[str, str]:
    """Document -> split, from GUM's ``splits.md`` beside the input files' folder or one level up (a release's
    ``dep/`` and its top)."""
    split_of: dict[str, str] = {}
    for folder in {path.parent for path in files}:
        for candidate in (folder, *folder.parents[:3]):  # the repository's coref/gum/tsv/ is three below its top
            if (candidate / "splits.md").exists():
                split_of.update({document: name for name, documents in read_splits(candidate).items()
                                 for document in documents})
    return split_of


def tsv_files(folder: Path) -> list[Path]:
    """The documents of a GUM release folder (the repository's ``coref/gum/tsv/``, or ``coref_tsv/``; ``tsv/`` in
    ``reddit_masked/``) or of a TSV folder."""
    for inner in (folder / "coref" / "gum" / "tsv", folder / "coref_tsv", folder / "tsv"):
        if inner.is_dir():
            return sorted(inner.glob("*.tsv"))
    return sorted(folder.glob("*.tsv"))


def read_gum(path: str | Path, lenient: bool = False, report: Report | None = None,
             bridge_types: str | None = None) -> Corpus:
    """One GUM document: ``coref_tsv/NAME.tsv`` with the trees of ``../dep/NAME.conllu``, its coreference as GUM's
    own build writes it in ``dep/`` (see the module). ``bridge_types``: ``drop`` the bridging subtypes as the build
    does (the default where ``dep/`` is the build's CorefUD, v8 on), or ``keep`` them (the default before)."""
    check_choice("bridge_types", bridge_types or "drop", ("drop", "keep"))
    path = Path(path)
    report = report if report is not None else Report()
    dep = _trees_of(path)
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
        # GUM's build writes minspan and link (v8 on: its dep/ header declares them); earlier releases' dep/ have
        # entities only, and the links keep the TSV's types.
        as_built = "link" in (document.entity_fields or ())
        _TsvReader(str(path), document, Problems(str(path), lenient, report), as_built).read(read_text(path, report))
    document.bridges.sort(key=lambda bridge: bridge.anaphor.order)  # as the build lists a node's bridges
    if (bridge_types or ("drop" if as_built else "keep")) == "drop":
        for bridge in document.bridges:
            if bridge.label is not None:
                report.add("GUM bridging subtype left out, as GUM's dep/ build writes bridges (-I bridge_types=keep "
                           "keeps it)", f"{document.id}: {bridge.label}")
                bridge.label = None
    document.source = str(path)
    corpus.meta["source"] = str(path)
    return corpus


def _trees_of(tsv: Path) -> Path:
    """The UD trees of a GUM TSV: ``../dep/NAME.conllu`` beside ``coref_tsv/``, or the repository's ``dep/`` three
    levels above ``coref/gum/tsv/``."""
    beside = tsv.parent.parent / "dep" / f"{tsv.stem}.conllu"
    if beside.exists() or len(tsv.parents) < 4 or tsv.parents[1].name != "gum" or tsv.parents[2].name != "coref":
        return beside
    return tsv.parents[3] / "dep" / f"{tsv.stem}.conllu"


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
    def __init__(self, path: str, document: Document, problem: Problems, as_built: bool = False) -> None:
        self.path = path
        self.as_built = as_built  # spans, chains, minspan and link as GUM's build makes them from its trees
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
        if self.as_built:
            minimal = {}
            for key, span in self.spans.items():
                if all(n.id.isdigit() and n.head.isdigit() for n in span.nodes):
                    minimal[key] = gum_minspan(span.nodes)
                else:  # lenient: the mention keeps the TSV's link type and no minspan
                    self.problem(span.first_line, "a word of the span has no numeric HEAD in dep/ (GUM's minspan "
                                 "and link come from the tree)", f"span {key} of {self.document.id}")
            for span in self.spans.values():
                self._fill_gap(span)
        mentions, resolved = build_coreference(self.document, self.spans, resolved, self.problem,
                                               self._gum_grouping if self.as_built else None)
        if self.as_built:
            add_gum_build_fields(mentions, resolved, minimal)

    def _gum_grouping(self, links: list[tuple[int, str, str, str]]) -> dict[str, object]:
        """`gum_groups` over the links as GUM's build lists them: a line's links once per span on its token."""
        node_of_line = {number: node for number, _kind, node, *_rest in self.links}
        spans_on: dict[int, int] = {}
        for span in self.spans.values():
            for node in span.nodes:
                spans_on[id(node)] = spans_on.get(id(node), 0) + 1
        listed: list[tuple[int, str, str, str]] = []
        for line, on_line in groupby(links, key=lambda link: link[0]):
            listed.extend(list(on_line) * max(1, spans_on.get(id(node_of_line[line]), 1)))
        return gum_groups(listed)

    def _fill_gap(self, span: SpanRecord) -> None:
        """A span is every node from its first token to its last, as GUM's build writes it: empty nodes between
        (which the TSV does not have) included, and a gap between its tokens (GUM's discourse-deixis fragments)
        filled, counted."""
        sentence = span.nodes[0].sentence
        if sentence is None or any(n.sentence is not sentence for n in span.nodes):
            return  # reported as crossing a sentence boundary
        first, last = sentence.nodes.index(span.nodes[0]), sentence.nodes.index(span.nodes[-1])
        nodes = sentence.nodes[first:last + 1]
        if sum(1 for n in nodes if not n.is_empty) != len(span.nodes):
            self.problem.report.add("GUM span with a gap made one mention from its first token to its last, as GUM's "
                                    "build does", f"{self.path}:{span.first_line}: span {span.key}")
        span.nodes = nodes

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
                      problem: Problems, grouping: Callable[[list[tuple[int, str, str, str]]], dict[str, object]]
                      | None = None) -> tuple[dict[str, Mention], list[tuple[int, str, str, str]]]:
    """Mentions, entities, bridges and split antecedents from GUM-style spans and links ((line, type, source span,
    target span)): chains of the links that are not bridging, GUM's link types and attributes (see the module).
    Shared by GUM's TSV and by span + relation layers in UIMA XMI. ``grouping`` (the links -> a chain per span key)
    replaces the chains of all links where a build groups otherwise (`gum_groups`). Returns the mentions by span
    key and the links that joined two of them."""
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
    chains = grouping(resolved) if grouping is not None else None
    # A chain's first mention has no link into it; GUM's CorefUD gives it the type of its link onward.
    for _number, kind, source_key, _target_key in resolved:
        if not kind.startswith(_CHAIN_BREAKING) and mentions[source_key].link is None:
            mentions[source_key].link = kind
    ordered = sorted(mentions.items(), key=lambda item: item[1].order)
    entities: dict[str, Entity] = {}
    for key, mention in ordered:
        group = root(key) if chains is None else chains.get(key, key)
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
    return mentions, resolved


def _check_identity(span: SpanRecord, entity: Entity, problem: Problems) -> None:
    value, current = span.features.get("identity"), entity.attrs.get("identity")
    if value is not None and current is not None and value != current:
        problem(span.first_line, "conflicting entity identity",
                f"{entity.id} is {current!r} earlier and {value!r} here")


# GUM's build (its _build/utils/repair_tsv.py) derives two CorefUD fields from the trees and the links; these are
# its rules, on the released TSV's link types and the XPOS (PTB) of dep/ where the build reads TreeTagger tags.
_PRONOUN_TAGS = frozenset(("PRP", "PRP$", "DT"))
_PROPER_TAGS = frozenset(("NNP", "NNPS"))
_DEFINITES = frozenset(("the", "this", "that", "those", "these", "both"))
_COREFERENCE_LINKS = frozenset(("coref", "disc", "ana", "appos", "pred"))


def gum_groups(links: list[tuple[int, str, str, str]]) -> dict[str, object]:
    """The chains as GUM's build groups its spans: link by link, in the order of the spans' first link back
    (bridging aside), each span taking its antecedent's group, a group met again renamed to the newer one; a span
    whose group was renamed after it was placed keeps the old name. The build's own order and renaming, followed
    so that its entities come out; a chain of links can so end up as two entities (one GUM document)."""
    back: dict[str, list[tuple[str, str]]] = {}  # a link's later end -> (type, earlier end), in link order
    for _number, kind, earlier, later in links:
        back.setdefault(later, []).append((kind, earlier))
    group: dict[str, int] = {}
    renamed: dict[int, int] = {}
    count = 0
    for later, antecedents in back.items():
        for kind, earlier in antecedents:
            if kind.startswith(_CHAIN_BREAKING):
                continue
            while later in group and group[later] in renamed:
                group[later] = renamed[group[later]]
            if earlier in group:
                if later in group and group[later] != group[earlier]:
                    if renamed.get(group[earlier]) == group[later]:
                        group[earlier] = group[later]
                        continue
                    renamed[group[later]] = group[earlier]
                group[later] = group[earlier]
            elif later in group:
                group[earlier] = group[later]
            else:
                group[later] = group[earlier] = count
                count += 1
    return {key: ("group", number) for key, number in group.items()}


def gum_minspan(words: list[Node]) -> str:
    """GUM's minimal span of a mention: the 1-based positions in it of its head (the word whose parent lies
    outside it, the last such; the root stops the search), the head's conjuncts and flat parts, and proper nouns
    whose parent, seen before the root, is a proper noun (possessors aside)."""
    first, last = int(words[0].id), int(words[-1].id)
    head = last
    seen: dict[int, Node] = {}
    for word in words:
        number, parent = int(word.id), int(word.head)
        seen[number] = word
        if parent == 0:
            head = number
            break
        if parent > last or (parent < first and word.deprel != "punct"):
            head = number
    minimal = {head}
    for word in words:
        number, parent = int(word.id), int(word.head)
        if word.deprel in ("conj", "flat") and parent in minimal:
            minimal.add(number)
        if word.xpos in _PROPER_TAGS and parent in seen and seen[parent].xpos in _PROPER_TAGS \
                and word.deprel != "nmod:poss":
            minimal.add(number)
    return ",".join(str(at) for at, word in enumerate(words, 1) if int(word.id) in minimal)


def _local_head(words: list[Node]) -> Node:
    """The word GUM's build takes for a mention's part of speech and function: the last one, punctuation aside,
    whose parent is the root or outside the mention; the first word where there is none."""
    first, last = int(words[0].id), int(words[-1].id)
    head = words[0]
    for word in words:
        parent = int(word.head)
        if word.deprel != "punct" and (parent == 0 or parent < first or parent > last):
            head = word
    return head


def _visible_form(word: Node) -> str:
    """A word's lower-cased form as GUM's build saw it: where the release masks it (Reddit: underscores), its
    lemma, else a definite or demonstrative determiner's stand-in "the"."""
    if word.form.strip("_"):
        return word.form.lower()
    if word.lemma.strip("_"):
        return word.lemma.lower()
    features = word.feats.split("|")
    return "the" if "Definite=Def" in features or "PronType=Dem" in features else word.form


def _words(mention: Mention) -> list[Node]:
    return [w for w in mention.words if not w.is_empty]


def add_gum_build_fields(mentions: dict[str, Mention], links: list[tuple[int, str, str, str]],
                         minimal: dict[str, str]) -> None:
    """``minspan`` and ``link`` of every mention as GUM's build writes them in ``dep/``: ``sgl`` for a mention
    in no link, ``coref`` for one only linked to, else the type of the mention's own link back (``ana`` from a
    pronoun, ``appos`` from an apposition to its parent, ``pred`` from a predicative nominal), ``cata`` for a
    cataphoric pronoun, ``disc`` for a verbal antecedent. ``minimal``: each span's `gum_minspan`, taken on its
    tokens as the TSV gives them (a span missing there has no tree and keeps what it has)."""
    outgoing: dict[str, list[tuple[str, str]]] = {}  # a link's later end (GUM's source) -> (type, earlier end)
    incoming: dict[str, list[str]] = {}
    for _number, kind, earlier, later in links:
        outgoing.setdefault(later, []).append((kind, earlier))
        incoming.setdefault(earlier, []).append(kind)
    for key, mention in mentions.items():
        if key not in minimal:  # no tree to derive them from (reported)
            continue
        words = _words(mention)
        mention.attrs["minspan"] = minimal[key]
        head = _local_head(words)
        sentence = head.sentence
        assert sentence is not None
        children = [w for w in sentence.nodes if not w.is_empty and w.head == head.id]
        child_functions = {w.deprel for w in children}
        child_forms = {_visible_form(w) for w in children}
        link = "sgl"
        for kind, earlier in outgoing.get(key, []):
            if kind not in _COREFERENCE_LINKS:
                continue
            if link == "sgl":
                link = "coref"
            if head.xpos in _PRONOUN_TAGS and kind != "disc":
                link = "ana"
            elif head.deprel == "appos" and earlier in minimal:
                anchor = _local_head(_words(mentions[earlier]))
                if anchor.id == head.head and anchor.sentence is sentence:
                    link = "appos"
            if head.xpos in ("NN", "NNS") and (any("subj" in f for f in child_functions) or "as" in child_forms) \
                    and not child_forms & _DEFINITES and not any(":poss" in f for f in child_functions):
                link = "pred"
        if key in incoming:
            if link == "sgl":
                link = "coref"
            # A chain's first member: no link back (a cataphor's antecedent had one, which the build turned)
            first = key not in outgoing and "cata" not in incoming[key]
            if first and head.xpos in _PRONOUN_TAGS:
                link = "ana"
            verbal = head.xpos.startswith("V") or any(w.head == head.id and w.deprel in ("cop", "nsubj", "csubj")
                                                      for w in words)
            if verbal and any(kind in _COREFERENCE_LINKS for kind in incoming[key]):
                link = "disc"
        if any(kind == "cata" for kind, _ in outgoing.get(key, [])):
            link = "cata"
        mention.link = link
