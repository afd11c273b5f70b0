"""WebAnno TSV 3.x (INCEpTION, WebAnno exports; 3.2 and 3.3): reader and writer.

A file is one document: a header (``#FORMAT=WebAnno TSV 3.3``, then one line per layer: ``#T_SP=`` span layers,
``#T_CH=`` chain layers, ``#T_RL=`` relation layers, each ``name|feature|...``), then sentences: ``#Text=`` lines
(the sentence's text, one line per text line) and one line per token, ``S-T<TAB>begin-end<TAB>form<TAB>`` and a
cell per layer column. Sub-tokens (``1-1.1``, a part of token 1-1, or a zero-length position) follow their token.
A cell holds ``_`` (nothing), or annotations joined by ``|`` (stacked), each ``value[id]`` (``*``: no feature
value; the id ties the tokens of one multi-token annotation together). Chain columns are ``type[chain]`` and
``relation->chain-link``; a relation column names the source token (``1-2``, or ``1-2[3_4]`` with span ids).

Coreference in the model, mapped in one place (this module):

* chain layers (the DKPro ``CoreferenceLink|referenceType|referenceRelation``, INCEpTION's coreference layer, or
  any ``#T_CH``; the first, or ``-I chain_layer=NAME``): a chain is an `Entity` (id = chain number), each
  link a `Mention` in link order; the type feature goes to the mention attribute ``reftype``, the relation
  feature of a link is the label of the link into the next mention (``Mention.link``); both kept CorefUD-escaped
  as the model holds field values (``-`` as ``%2D``);
* span + relation layers (GUM's ``webanno.custom.Referent`` + ``webanno.custom.Coref``, or ``-I span_layer=`` and
  ``-I relation_layer=``): read exactly as the GUM reader reads GUM's TSV (entity types, identity, infstat,
  salience, centering, link types; bridging as bridges, ``bridge:aggr`` as split antecedents);
* tokens are the words (character offsets kept in ``Node.start_char``/``end_char``, spacing from the offsets and the
  ``#Text`` lines); an annotation on a sub-token is widened to its token, and one on a zero-length sub-token is put
  on an empty node after its token (CorefUD's way of annotating a position without words); a mention over several
  sentences follows ``-I cross_sentence=`` (kept in its first sentence by default); each is counted.
* Layers that are not coreference (named entities, lemmas, POS, slot features...) are not read into the model; they
  are counted in the report, and kept in the document's ``meta`` with the whole file.

Writing: a document read from TSV whose coreference is unchanged is written back byte for byte (the file as read).
Anything else is written as TSV 3.3 with INCEpTION's coreference chain layer: ``#Text`` from the sentence text or
the words and their spacing, offsets over the document's text, a chain per entity (singletons included) with the
mention attribute ``reftype`` (else the entity type) as referenceType and the next mention's link type as
referenceRelation; an empty node is a zero-length sub-token after its word; a discontinuous mention is written over
its whole extent (reported). Values are escaped as the format requires.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from harmonize.converters.choices import CROSS_SENTENCE_POLICIES, cross_sentence_parts
from harmonize.converters.corefud_values import escape_value, unescape_value
from harmonize.converters.losses import Holds, report_unheld, unheld_reason
from harmonize.converters.surface import DocumentText, document_text, set_gap
from harmonize.errors import FormatError, Problems, Report, check_choice
from harmonize.io import DocumentFiles, paused_gc, read_text, text_file, write_documents
from harmonize.schemas.model import DOCUMENT_FIELDS, CommentSlot, Corpus, Document, Entity, Node, Sentence
from harmonize.schemas.signature import document_signature

COREFERENCE_LAYER = "de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink"
FORMAT_LINE = "#FORMAT=WebAnno TSV 3.3"
REFTYPE = "reftype"  # the mention attribute a chain link's type feature goes to
META_ORIGINAL = "webanno_tsv"  # the file as read, and the signature of what the model made of it

_TOKEN_ID = re.compile(r"(\d+)-(\d+)(?:\.(\d+))?\Z")
_OFFSETS = re.compile(r"(\d+)-(\d+)\Z")
_CHAIN_TYPE = re.compile(r"(.*?)\[(\d+)\]\Z", re.DOTALL)
_CHAIN_LINK = re.compile(r"(.*?)->(\d+)-(\d+)\Z", re.DOTALL)
_ESCAPED = {"\\": "\\\\", "[": "\\[", "]": "\\]", "|": "\\|", "_": "\\_", "->": "\\->", ";": "\\;", "\t": "\\t",
            "\n": "\\n", "*": "\\*"}
_ESCAPE = re.compile(r"->|[\\\[\]|_;\t\n*]")
_UNESCAPE = re.compile(r"\\(->|[\\\[\]|_;*tn])")

NOT_COREFERENCE = "layer not read as coreference (kept with the file as read)"
SUBTOKEN_WIDENED = "annotation on a sub-token widened to its token"
ZERO_LENGTH = "annotation on a zero-length position put on an empty node after its token"


def escape(value: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPED[m.group()], value)


def unescape(value: str) -> str:
    return _UNESCAPE.sub(lambda m: {"t": "\t", "n": "\n"}.get(m.group(1), m.group(1)), value)


def split_unescaped(cell: str, separator: str = "|") -> list[str]:
    """``cell`` cut at the separators that are not escaped."""
    parts, current, index = [], [], 0
    while index < len(cell):
        char = cell[index]
        if char == "\\" and index + 1 < len(cell):
            current.append(cell[index : index + 2])
            index += 2
            continue
        if char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


@dataclass
class Layer:
    kind: str  # "SP", "CH" or "RL"
    name: str
    features: list[str]
    column: int = 0  # its first column in a token line

    @property
    def width(self) -> int:
        return max(1, len(self.features)) if self.kind == "SP" else len(self.features)


@dataclass
class _Token:
    line: int
    sentence: int
    token: int
    sub: int | None
    begin: int
    end: int
    form: str
    cells: list[str]


@dataclass
class _Link:
    units: list[_Token] = field(default_factory=list)
    type: str | None = None
    relation: str | None = None
    line: int = 0


def _header(lines: list[str], path: str, problem: Problems) -> tuple[str, list[Layer], int]:
    if not lines or not lines[0].startswith("#FORMAT=WebAnno TSV 3"):
        raise FormatError(path, 1, "not WebAnno TSV 3 (the first line must be '#FORMAT=WebAnno TSV 3.x')")
    layers: list[Layer] = []
    column = 3
    number = 1
    for number, line in enumerate(lines[1:], 2):
        if not line.startswith("#T_"):
            break
        kind, sep, declaration = line[3:].partition("=")
        if kind not in ("SP", "CH", "RL") or not sep or not declaration:
            problem(number, "malformed layer declaration", line)
            continue
        name, *features = declaration.split("|")
        layer = Layer(kind, name, features, column)
        layers.append(layer)
        column += layer.width
    return lines[0][len("#FORMAT="):], layers, number


def _tokens(lines: list[str], start: int, width: int, path: str, problem: Problems
            ) -> tuple[list[list[_Token]], list[list[str]]]:
    """Sentences of token lines, and each sentence's #Text lines."""
    sentences: list[list[_Token]] = []
    texts: list[list[str]] = []
    current: list[_Token] | None = None
    for number, line in enumerate(lines[start - 1:], start):
        if not line.strip():
            current = None
            continue
        if line.startswith("#Text="):
            if current is None or current:
                current = []
                sentences.append(current)
                texts.append([])
            texts[-1].append(line[len("#Text="):])
            continue
        if line.startswith("#"):
            continue  # #Summary and other comment lines (GUM)
        columns = line.split("\t")
        # Lines end with a tab, and some exports (GUM's) pad with empty "_" cells: nothing is lost dropping them.
        while len(columns) > 3 + width and columns[-1] in ("", "_"):
            columns.pop()
        identifier = _TOKEN_ID.match(columns[0])
        offsets = _OFFSETS.match(columns[1]) if len(columns) > 1 else None
        if identifier is None or offsets is None or len(columns) != 3 + width:
            problem(number, "malformed token line",
                    f"{len(columns)} columns where the header declares {3 + width}" if identifier and offsets
                    else repr(line[:60]))
            continue
        if current is None:
            current = []
            sentences.append(current)
            texts.append([])
        sub = identifier[3]
        current.append(_Token(number, int(identifier[1]), int(identifier[2]), int(sub) if sub else None,
                              int(offsets[1]), int(offsets[2]), unescape(columns[2]), columns[3:]))
    return [s for s in sentences if s], [t for s, t in zip(sentences, texts) if s]


class _Reader:
    def __init__(self, path: str, problem: Problems, cross_sentence: str, chain_layer: str, span_layer: str,
                 relation_layer: str) -> None:
        self.path = path
        self.problem = problem
        self.report = problem.report
        self.cross_sentence = cross_sentence
        self.wanted = (chain_layer, span_layer, relation_layer)

    def read(self, text: str) -> Document:
        lines = text.split("\n")
        version, layers, start = _header(lines, self.path, self.problem)
        width = sum(layer.width for layer in layers)
        sentences, texts = _tokens(lines, start, width, self.path, self.problem)
        document = Document(id=Path(self.path).stem)
        document.meta["format"] = version
        nodes = self._sentences(document, sentences, texts)
        chain, spans, relations = self._coreference_layers(layers)
        for layer in layers:
            if layer is not chain and layer is not spans and layer is not relations:
                self.report.add(NOT_COREFERENCE, f"{self.path}: {layer.kind} {layer.name}")
        if chain is not None:
            self._chains(document, sentences, nodes, chain)
        elif spans is not None and relations is not None:
            from harmonize.converters.gum import read_tsv_coreference

            read_tsv_coreference(self.path, document, self.problem, text)
        document.meta[META_ORIGINAL] = (text, document_signature(document))
        return document

    def _coreference_layers(self, layers: list[Layer]) -> tuple[Layer | None, Layer | None, Layer | None]:
        chain_name, span_name, relation_name = self.wanted

        def named(kind: str, name: str) -> Layer | None:
            found = next((layer for layer in layers if layer.kind == kind and layer.name == name), None)
            if found is None:
                raise FormatError(self.path, None, f"no {kind} layer {name!r} in the header (it declares "
                                                   f"{', '.join(layer.name for layer in layers) or 'none'})")
            return found

        if span_name or relation_name:
            spans = named("SP", span_name) if span_name else None
            relations = named("RL", relation_name) if relation_name else None
            if spans is None or relations is None:
                raise FormatError(self.path, None, "span_layer and relation_layer go together")
        elif chain_name:
            return named("CH", chain_name), None, None
        else:
            chain = next((layer for layer in layers if layer.kind == "CH"), None)
            if chain is not None:
                return chain, None, None
            # Found by itself only where the relation layer says it is coreference (GUM's webanno.custom.Coref).
            relations = next((layer for layer in layers if layer.kind == "RL" and "coref" in layer.name.lower()
                              and any(s.kind == "SP" and layer.features[-1] == f"BT_{s.name}" for s in layers)), None)
            if relations is None:
                return None, None, None
            spans = next(s for s in layers if s.kind == "SP" and relations.features[-1] == f"BT_{s.name}")
        # GUM's layout: the span layer's columns, then the relation layer's, and no other columns.
        if [layer.name for layer in layers] != [spans.name, relations.name]:
            raise FormatError(self.path, None, "span and relation coreference is read where they are the file's only "
                                               "layers, span layer first (GUM's layout)")
        return None, spans, relations

    def _sentences(self, document: Document, sentences: list[list[_Token]], texts: list[list[str]]
                   ) -> dict[tuple[int, int], Node]:
        """Sentences and words from the main token lines; spacing from the offsets and the #Text lines."""
        nodes: dict[tuple[int, int], Node] = {}
        for number, (tokens, text_lines) in enumerate(zip(sentences, texts), 1):
            words = [t for t in tokens if t.sub is None]
            text = "\n".join(unescape(line) for line in text_lines)
            sentence = Sentence(id=f"{document.id}-{number}", text=" ".join(text.split("\n")))
            sentence.comments = [CommentSlot.SENT_ID, CommentSlot.TEXT]
            if number == 1:
                sentence.comments.insert(0, CommentSlot.NEWDOC)
            document.add_sentence(sentence)
            lead = words[0].begin - (text.find(words[0].form) if words and words[0].form in text else 0)
            for index, token in enumerate(words):
                node = sentence.add_node(Node(str(index + 1), token.form or "_"))
                node.start_char, node.end_char = token.begin, token.end
                nodes[(token.sentence, token.token)] = node
                if index + 1 < len(words):
                    gap = text[token.end - lead : words[index + 1].begin - lead]
                    set_gap(node, gap if gap.isspace() or not gap else " ", last=False)
        return nodes

    def _chains(self, document: Document, sentences: list[list[_Token]], nodes: dict[tuple[int, int], Node],
                layer: Layer) -> None:
        type_column = next((i for i, f in enumerate(layer.features) if "type" in f.lower()), 0)
        relation_column = 1 - type_column if layer.width == 2 else None
        links: dict[tuple[int, int], _Link] = {}
        for tokens in sentences:
            for token in tokens:
                types = token.cells[layer.column - 3 + type_column]
                if types == "_":
                    continue
                relations = (split_unescaped(token.cells[layer.column - 3 + relation_column])
                             if relation_column is not None else [])
                for position, item in enumerate(split_unescaped(types)):
                    match = _CHAIN_TYPE.match(item)
                    if match is None:
                        self.problem(token.line, "malformed chain cell", item)
                        continue
                    relation = relations[position] if position < len(relations) else ""
                    link_match = _CHAIN_LINK.match(relation)
                    if link_match is None or link_match[2] != match[2]:
                        self.problem(token.line, "chain type and relation cells do not match", f"{item} / {relation}")
                        continue
                    link = links.setdefault((int(match[2]), int(link_match[3])), _Link(line=token.line))
                    link.units.append(token)
                    link.type = _value(match[1])
                    link.relation = _value(link_match[1])
        empty_nodes: dict[tuple[int, int, int], Node] = {}
        # Zero-length positions become empty nodes in their file order (sub-token 5.1 before 5.2), whichever chain
        # is read first: made as chains come, two zeros after one word would swap.
        # A zero-length sub-token with nothing in any column is a position this writer kept (an empty node without
        # a mention): read too, so that the empty nodes after it keep their numbers.
        bare = [t for tokens in sentences for t in tokens
                if t.sub is not None and t.begin >= t.end and all(cell == "_" for cell in t.cells)]
        for unit in sorted({**{(u.sentence, u.token, u.sub): u for u in bare},
                            **{(u.sentence, u.token, u.sub): u for link in links.values() for u in link.units
                               if u.sub is not None and u.begin >= u.end}}.items()):
            word = nodes.get(unit[0][:2])
            if word is not None:
                empty_nodes[unit[0]] = empty_node_after(word)
                self.report.add(ZERO_LENGTH, f"{self.path}:{unit[1].line}")
        by_chain: dict[int, list[tuple[int, _Link]]] = {}
        for (chain, index), link in sorted(links.items()):
            by_chain.setdefault(chain, []).append((index, link))
        for chain, chain_links in sorted(by_chain.items()):
            entity = document.new_entity(str(chain))
            previous_relation: str | None = None
            for _index, link in chain_links:
                words = self._link_nodes(link, nodes, empty_nodes, document)
                parts: dict[int, list[Node]] = {}
                for node in words:
                    parts.setdefault(node.sentence.index, []).append(node)  # type: ignore[union-attr]
                pieces = list(parts.values())
                if len(pieces) > 1:
                    self.report.add(f"mention over several sentences ({self.cross_sentence})",
                                    f"{self.path}:{link.line}: chain {chain}")
                    pieces = cross_sentence_parts(pieces, self.cross_sentence)
                attrs = {REFTYPE: escape_value(link.type)} if link.type is not None else {}
                for piece in pieces:
                    document.add_mention(entity, piece, link=previous_relation, **attrs)
                previous_relation = escape_value(link.relation) if link.relation is not None else None
            if previous_relation is not None:
                self.report.add("relation on a chain's last link (no mention follows to carry it)",
                                f"{self.path}: chain {chain}: {previous_relation}")
            if not entity.mentions:
                document.remove_entity(entity)

    def _link_nodes(self, link: _Link, nodes: dict[tuple[int, int], Node],
                    empty_nodes: dict[tuple[int, int, int], Node], document: Document) -> list[Node]:
        words: list[Node] = []
        for unit in link.units:
            word = nodes.get((unit.sentence, unit.token))
            if word is None:
                continue
            if unit.sub is None:
                words.append(word)
            elif unit.begin < unit.end:
                self.report.add(SUBTOKEN_WIDENED, f"{self.path}:{unit.line}")
                words.append(word)
            else:
                words.append(empty_nodes[(unit.sentence, unit.token, unit.sub)])
        return sorted(set(words), key=lambda n: n.order)


def empty_node_after(word: Node) -> Node:
    """A new empty node right after ``word`` (after the empty nodes already there)."""
    sentence = word.sentence
    assert sentence is not None
    at = word.position + 1
    number = 1
    while at < len(sentence.nodes) and sentence.nodes[at].is_empty:
        at += 1
        number += 1
    node = Node(f"{word.id}.{number}", "_")
    node.sentence = sentence
    sentence.nodes.insert(at, node)
    for position, other in enumerate(sentence.nodes):
        other.position = position
    sentence._by_id = None
    return node


def _value(text: str) -> str | None:
    return None if text in ("", "*") else unescape(text)


def read_webanno_tsv(path: str | Path, lenient: bool = False, report: Report | None = None,
                     cross_sentence: str = "first-part", chain_layer: str = "", span_layer: str = "",
                     relation_layer: str = "") -> Corpus:
    """A WebAnno TSV 3.x file as a one-document corpus, or every ``.tsv`` file of a folder (see the module)."""
    check_choice("cross_sentence", cross_sentence, CROSS_SENTENCE_POLICIES)
    report = report if report is not None else Report()
    path = Path(path)
    files = sorted(path.glob("*.tsv")) if path.is_dir() else [path]
    corpus = Corpus(meta={"source": str(path)})
    with paused_gc():
        for file in files:
            report.opened(file)
            corpus.documents.append(_Reader(str(file), Problems(str(file), lenient, report), cross_sentence,
                                            chain_layer, span_layer, relation_layer).read(read_text(file, report)))
    return corpus


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------

def format_webanno_tsv(document: Document, report: Report, name: str | None = None) -> str:
    """The document as TSV: as read where its coreference is unchanged, else TSV 3.3 with the coreference layer.
    ``name``: the file's name without ``.tsv`` (the reader's id for the document; default its id)."""
    original = document.meta.get(META_ORIGINAL)
    if original is not None and original[1] == document_signature(document):
        return original[0]
    text = document_text(document)
    chains, numbers = _chain_cells(document, report)
    report_chain_layer_unheld(document, text, numbers, report, "WebAnno TSV",
                              name if name is not None else str(document.id), lambda t: " ".join(t.split("\n")))
    lines = [FORMAT_LINE, f"#T_CH={COREFERENCE_LAYER}|referenceType|referenceRelation", "", ""]
    for sentence in document.sentences:
        words = [n for n in sentence.nodes if not n.is_empty]
        if not words:
            continue
        start, end = text.offsets[words[0]][0], text.offsets[words[-1]][1]
        lines.extend(f"#Text={escape_text(line)}" for line in text.text[start:end].split("\n"))
        for number, node in enumerate(words, 1):
            begin, finish = text.offsets[node]
            lines.append(_token_line(f"{sentence.index + 1}-{number}", begin, finish, node.form, chains.get(node)))
            empties = [n for n in sentence.nodes if n.is_empty and n.id.split(".")[0] == node.id]
            for sub, empty in enumerate(empties, 1):
                lines.append(_token_line(f"{sentence.index + 1}-{number}.{sub}", finish, finish, "",
                                         chains.get(empty)))
        lines.append("")
    return "\n".join(lines) + "\n"


def escape_text(line: str) -> str:
    return line.replace("\\", "\\\\")


def _token_line(identifier: str, begin: int, end: int, form: str, cells: tuple[list[str], list[str]] | None) -> str:
    types, relations = cells if cells is not None else ([], [])
    form = form.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    return (f"{identifier}\t{begin}-{end}\t{form}\t{'|'.join(types) or '_'}\t{'|'.join(relations) or '_'}\t")


def _chain_cells(document: Document, report: Report) -> tuple[dict[Node, tuple[list[str], list[str]]],
                                                               dict[Entity, str]]:
    """Each node's chain cells, and each entity's chain number (its id when read back)."""
    cells: dict[Node, tuple[list[str], list[str]]] = {}
    numbers: dict[Entity, str] = {}
    for number, entity in enumerate(sorted(document.entities, key=lambda e: e.mentions[0].order), 1):
        numbers[entity] = str(number)
        mentions = entity.mentions
        for index, mention in enumerate(mentions, 1):
            value = unescape_value(mention.attrs.get(REFTYPE, "")) or mention.entity_type
            following = unescape_value(mentions[index].link or "") if index < len(mentions) else None
            nodes = mention.words
            if mention.is_discontinuous:
                report.add("discontinuous mention written over its whole extent (TSV spans are contiguous)",
                           f"{document.id}: {mention.text}")
                sentence = mention.sentence
                nodes = sentence.nodes[mention.words[0].position : mention.words[-1].position + 1]
            for node in nodes:
                types, relations = cells.setdefault(node, ([], []))
                types.append(f"{escape(value) if value else '*'}[{number}]")
                relations.append(f"{escape(following) if following else '*'}->{number}-{index}")
    return cells, numbers


# The chain layer keeps the text (offsets, #Text), the mentions, their reftype and the link types into all but a
# chain's first mention; empty nodes only where a mention is on them, as zero-length positions.
# A chain layer (TSV's, XMI's) keeps the text, the mentions with their reftype and the link types into all but a
# chain's first mention; spacing between a sentence's words; empty nodes only where a mention is on them.
CHAIN_LAYER_HOLDS = Holds(misc=("SpaceAfter", "SpacesAfter", "SpacesBefore"), mention_fields=(REFTYPE,), links=True,
                          empty_nodes="positions", mention_types=True, entity_types=True,
                          glued_multiword_tokens=True, spacing_within_sentences=True)


def report_chain_layer_unheld(document: Document, text: DocumentText, numbers: dict[Entity, str], report: Report,
                              target: str, name: str, sentence_text: Callable[[str], str],
                              holds: Holds = CHAIN_LAYER_HOLDS) -> None:
    """What a chain layer cannot hold (`CHAIN_LAYER_HOLDS`): the entity type goes into each mention's reftype where
    it has none, a chain's first link type and a mention's own type are lost. ``numbers``: each entity's chain
    number (its id read back); ``name``: the document's id read back; ``sentence_text``: a sentence's text as the
    reader makes it from the characters it covers."""
    where = str(document.id)
    typed = [e for e in document.entities if e.type is not None and e.mentions]
    if typed:
        report.add("entity types written as each mention's reftype (read back as a mention field)", where, len(typed))
    taken = sum(1 for m in document.mentions if REFTYPE not in m.attrs and m.entity_type is not None)
    if taken:
        report.add("mention reftype fields from their entity's type (each mention's written type)", where, taken)
    first_links = sum(1 for e in document.entities if e.mentions and e.mentions[0].link is not None)
    if first_links:
        report.add("first link types of chains not written (a relation names the link into the next mention)",
                   where, first_links)
    own_types = sum(1 for m in document.mentions if m.etype is not None)
    if own_types:
        report.add(unheld_reason("mention type", target), where, own_types)
    texts = {}
    for sentence in document.sentences:
        words = [w for w in sentence.words if w in text.offsets]
        if words:
            texts[id(sentence)] = sentence_text(text.text[text.offsets[words[0]][0]:text.offsets[words[-1]][1]])
    holds = replace(holds, text_rebuilt=lambda sentence: texts.get(id(sentence)),
                    sentence_id=lambda number: f"{name}-{number}")
    report_unheld(document, holds, report, target, document.mentions, entity_ids=numbers,
                  document_fields=dict.fromkeys(DOCUMENT_FIELDS), count_id=False)


def webanno_tsv_files(out: Path, report: Report) -> DocumentFiles:
    """`write_webanno_tsv` into a folder a document at a time (``add``, then ``publish``)."""
    return DocumentFiles(out, text_file(".tsv", format_webanno_tsv), report)


def write_webanno_tsv(corpus: Corpus, out: str | Path, report: Report | None = None) -> None:
    """Each document as ``OUT/<id>.tsv``; OUT may name a ``.tsv`` file when the corpus has one document."""
    with paused_gc():
        write_documents(corpus.documents, Path(out), ".tsv", format_webanno_tsv,
                        report if report is not None else Report())
