"""PCC / NKJP TEI P5: reader and writer.

A document is a folder of layer files, each ``NAME.xml`` or gzipped ``NAME.xml.gz`` (the plain one is read where
both exist), each a ``teiCorpus`` whose ``xi:include`` of a header is ignored (the header need not exist):

* ``text.xml``: the raw text; every element with an ``xml:id`` that a string-range names is a paragraph (``<p>``
  in the PCC, ``<ab>`` in the NKJP, possibly inside ``<div>``s).
* ``ann_segmentation.xml``: ``<seg corresp="text.xml#string-range(PARA,OFFSET,LENGTH)">`` in ``<s>`` sentences;
  ``nkjp:nps="true"``: no space before the segment. A ``<choice>`` holds segmentation alternatives (a ``seg`` or
  an ``nkjp:paren`` of segs); those marked ``nkjp:rejected="true"`` are left out and counted.
* ``ann_morphosyntax.xml``: one ``seg`` per segment (``corresp`` back to it) with ``orth``, the interpretations
  (``base``, ``ctag``, ``msd``) and the disambiguation's ``choice``.
* ``ann_mentions.xml``: mention ``seg``s with ``ptr``s to morphosyntax segments (gaps allowed), the semantic head
  ``semh``, the syntactic head ``synh`` and ``zero`` (a zero subject: the mention is its verb).
* ``ann_coreference.xml``: clusters (``seg``) with ``type`` (``ident``; ``non-ident``: near-identity) and
  ``dominant`` (the entity's name), ``ptr``s to mentions.

Other layers (words, groups, named entities, chunks...) are not read.

Model mapping:

* Words: FORM is the text's span (``orth`` is checked against it), LEMMA ``base``, XPOS ``ctag:msd`` (``ctag``
  where msd is empty), UPOS and FEATS from the table ``nkjp_ud.tsv`` (plus one rule: a ``subst`` with a
  capitalised lemma is PROPN). Spacing is exact: ``SpaceAfter=No`` where the next segment follows without a gap
  (``nps``; a disagreement between ``nps`` and the text is counted and the text followed), UD's ``SpacesAfter`` and
  ``SpacesBefore`` for any other whitespace. ``start_char``/``end_char`` are offsets in the document's text, its
  paragraphs joined by one newline. A paragraph starts with ``# newpar id = PARA``; sentence ids are the ``<s>``
  ids; the document id is the folder's name.
* Mentions: ``semh`` is ``Mention.head``; ``synh`` the mention attribute ``synh`` (1-based index among the mention's
  words, as CorefUD's head field); other features are mention attributes. Zero subjects, reader option
  ``zeros``: ``empty-node`` (default, CorefUD's convention) puts the mention on an empty node right after its verb
  whose DEPS names the verb (``VERB:nsubj``); ``verb`` keeps the PCC's convention, the mention on the verb with the
  attribute ``zero=true``.
* Entities: one per ``ident`` cluster, ``dominant`` an entity attribute; a mention in no identity cluster is a
  singleton entity. Ids are ``e1``, ``e2``... in the order of first mentions. A near-identity (``non-ident``)
  cluster becomes bridges labelled ``near-identity`` from each of its later mentions to the entity of its first
  (CorefUD's ``Bridge=e1<e4:near-identity``); its features (``dominant``...) are not kept, and both are counted.

The writer writes the same five layers with NKJP-style ids (``segm_1.4-seg``, ``morph_1.4-seg``, ``mention_7``,
``coreference_2``), keeping paragraph and sentence ids where they are valid XML ids. What TEI cannot hold is
counted in the report: dependency trees, UD columns that the tag does not give back, empty nodes that are no zero
subject, relations other than near-identity. The document's language, genre, topic and subtopic go into
``header.xml`` (the NKJP's header file: ``langUsage`` and ``keywords`` of scheme ``#harmonize-document-fields``),
which the reader reads where it exists (the language is Polish without one).
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from harmonize.converters.choices import TEI_ZERO_POLICIES
from harmonize.converters.corefud_values import escape_value, unescape_value
from harmonize.converters.losses import FIELD_COMMENTS, Holds, report_unheld
from harmonize.converters.nkjp_tags import split_xpos, ud_tags
from harmonize.converters.surface import (
    SPACING_KEYS,
    escape_spaces,
    gap_after,
    set_gap,
    surface_words,
    unescape_spaces,
)
from harmonize.converters.xmltext import escape, quoteattr
from harmonize.errors import FormatError, Problems, Report, check_choice
from harmonize.io import DocumentFiles, atomic_write_bytes, paused_gc
from harmonize.schemas.model import (
    DOCUMENT_FIELDS,
    CommentSlot,
    Corpus,
    Document,
    Entity,
    Mention,
    Node,
    Sentence,
    made_sentence_id,
)

LAYERS = ("text", "ann_segmentation", "ann_morphosyntax", "ann_mentions", "ann_coreference")
HEADER = "header"  # optional: the document's language, genre, topic and subtopic
FIELDS_SCHEME = "#harmonize-document-fields"  # the keywords scheme of our header's genre, topic and subtopic
DOCUMENT_FIELD_NAMES = DOCUMENT_FIELDS[1:]  # as keywords; the language has its own element
ZERO_POLICIES = TEI_ZERO_POLICIES
NEAR_IDENTITY = "near-identity"
TEI_NS = "http://www.tei-c.org/ns/1.0"
NKJP_NS = "http://www.nkjp.pl/ns/1.0"
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"

_STRING_RANGE = re.compile(r"(?:[^#]*#)?string-range\(\s*([^,\s)]+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\Z")
_NCNAME = re.compile(r"[A-Za-z_][\w.\-]*\Z")


# ---------------------------------------------------------------------------------------------------------------


def layer_path(folder: Path, name: str) -> Path | None:
    """The file of one layer: plain ``NAME.xml`` where it exists, else ``NAME.xml.gz``."""
    for candidate in (folder / f"{name}.xml", folder / f"{name}.xml.gz"):
        if candidate.is_file():
            return candidate
    return None


def document_folders(path: Path) -> list[Path]:
    """The TEI documents under ``path`` at any depth (``path`` itself where it is one): folders with a text or a
    segmentation layer."""
    if _is_document(path):
        return [path]
    found = sorted({p.parent for pattern in ("text.xml*", "ann_segmentation.xml*") for p in path.rglob(pattern)})
    return [folder for folder in found if _is_document(folder)]


def _is_document(folder: Path) -> bool:
    return folder.is_dir() and any(layer_path(folder, name) is not None for name in LAYERS[:2])


_PARSER = etree.XMLParser(remove_comments=True, remove_pis=True, resolve_entities=False, no_network=True, collect_ids=False,
                          huge_tree=True)


def parse_layer(path: Path) -> etree._Element:
    """The root element of one layer file; a broken gzip or XML file is a FormatError with its line."""
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise FormatError(str(path), None, f"malformed gzip file: {error}") from None
    try:
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as error:
        raise FormatError(str(path), error.lineno, f"malformed XML: {error.msg}") from None


# ---------------------------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------------------------


def read_tei(path: str | Path, lenient: bool = False, report: Report | None = None,
             zeros: str = "empty-node") -> Corpus:
    """Read one TEI document folder, or every document folder under ``path``, into a `Corpus`."""
    check_choice("zeros", zeros, ZERO_POLICIES)
    report = report if report is not None else Report()
    root = Path(path)
    folders = document_folders(root)
    if not folders:
        raise FormatError(str(root), None, "no TEI document here (a folder with text.xml and ann_*.xml layers)")
    corpus = Corpus(meta={"source": str(root)})
    with paused_gc():
        for folder in folders:
            document = _DocumentReader(folder, lenient, report, zeros).read()
            if document is not None:
                corpus.documents.append(document)
    return corpus


@dataclass(slots=True)
class _Segment:
    id: str
    unit: str  # xml:id of the text element (paragraph) its string-range points into
    start: int
    length: int
    nps: bool
    line: int | None
    node: Node | None = None


@dataclass(slots=True)
class _Interpretation:
    orth: str | None = None
    base: str = ""
    ctag: str = ""
    msd: str = ""
    line: int | None = None


class _Reading:
    """What one morphosyntax segment offers, gathered feature by feature: orth, lexes (base, ctag, msds), the
    disambiguation's choice and interpretation string."""

    __slots__ = ("target", "line", "orth", "lexes", "choice", "interpretation")

    def __init__(self, target: str, line: int | None) -> None:
        self.target = target
        self.line = line
        self.orth: str | None = None
        self.lexes: list[list] = []  # [base, ctag, [(msd id, msd)]]
        self.choice: str | None = None
        self.interpretation: str | None = None

    def value(self, name: str | None, value: str, element_id: str | None) -> None:
        if name == "base" or (name == "ctag" and (not self.lexes or self.lexes[-1][1] is not None)):
            self.lexes.append([None, None, []])
        if name == "base":
            self.lexes[-1][0] = value
        elif name == "ctag":
            self.lexes[-1][1] = value
        elif name == "msd":
            if not self.lexes:
                self.lexes.append([None, None, []])
            self.lexes[-1][2].append((element_id, value))
        elif name == "orth":
            self.orth = value
        elif name == "choice":
            self.choice = _fragment(value)[1]
        elif name == "interpretation":
            self.interpretation = value

    def candidates(self) -> list[tuple[str | None, str, str, str | None, str]]:
        """Every (lex id, base, ctag, msd id, msd); a msd id stands for its lex too (NKJP choices name one)."""
        return [(None, base or "", ctag or "", msd_id, msd) for base, ctag, msds in self.lexes
                for msd_id, msd in msds or [(None, "")]]


@dataclass
class _MentionRecord:
    id: str
    nodes: list[Node]
    line: int | None
    head: Node | None = None
    synh: Node | None = None
    zero: bool = False
    attrs: dict[str, str] = field(default_factory=dict)
    link: str | None = None
    etype: str | None = None


@dataclass
class _Cluster:
    id: str
    kind: str  # "ident" or "non-ident"
    line: int | None
    members: list[str]
    attrs: dict[str, str] = field(default_factory=dict)
    etype: str | None = None


_LOCAL_NAMES: dict[str, str] = {}


def _local(tag: object) -> str:
    """A tag's name without its namespace (memoised: a layer has a handful of distinct tags)."""
    name = _LOCAL_NAMES.get(tag)  # type: ignore[arg-type]
    if name is None:
        name = tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
        if isinstance(tag, str):
            _LOCAL_NAMES[tag] = name
    return name


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [child for child in element if _local(child.tag) == name]


def _features(fs: etree._Element) -> dict[str, etree._Element]:
    """The ``f`` children of a feature structure, by name (one without a name is not a feature: see
    `_nameless`)."""
    return {f.get("name"): f for f in fs if _local(f.tag) == "f" and f.get("name")}


def _nameless(fs: etree._Element) -> list[etree._Element]:
    return [f for f in fs if _local(f.tag) == "f" and not f.get("name")]


def _feature_value(f: etree._Element) -> str:
    """A feature's value: ``fVal``, else its ``string``/``symbol``/``binary``/``numeric`` child."""
    value = f.get("fVal")
    if value is not None:
        return value
    for child in f:
        name = _local(child.tag)
        if name == "string":
            return child.text or ""
        if name in ("symbol", "binary", "numeric"):
            return child.get("value", "")
    return (f.text or "").strip()


def _fragment(target: str) -> tuple[str, str]:
    """``ann_morphosyntax.xml#tok-3`` as (file, id); a bare ``id`` has no file."""
    file, sep, fragment = target.partition("#")
    return (file, fragment) if sep else ("", target)


def _rejected(element: etree._Element) -> bool:
    return (element.get(f"{{{NKJP_NS}}}rejected") or element.get("rejected")) == "true"


def _namespace(root: etree._Element) -> str:
    """The ``{uri}`` prefix of the root's tag ("" for a file without a namespace)."""
    tag = root.tag
    return tag[: tag.index("}") + 1] if isinstance(tag, str) and tag.startswith("{") else ""


def _text_of(element: etree._Element) -> str:
    return "".join(element.itertext())


class _DocumentReader:
    """Reads the layers of one document folder, in dependency order: text, segmentation, morphosyntax, mentions,
    coreference."""

    def __init__(self, folder: Path, lenient: bool, report: Report, zeros: str) -> None:
        self.folder = folder
        self.lenient = lenient
        self.report = report
        self.zeros = zeros
        self.paths = {name: layer_path(folder, name) for name in LAYERS}
        self.document = Document(id=folder.name, language="pl", source=str(folder))
        self.paragraph_texts: dict[str, str] = {}
        self.sentence_holders: list[str | None] = []  # xml:id of each sentence's <s>
        self.morph_to_segment: dict[str, str] = {}  # morphosyntax seg id -> segmentation seg id
        self.segments: dict[str, _Segment] = {}
        self.dropped_mentions: set[str] = set()
        self.unknown_classes: set[str] = set()

    def problem(self, layer: str, line: int | None, reason: str, detail: str = "") -> None:
        Problems(self._where(layer), self.lenient, self.report)(line, reason, detail)

    def _where(self, layer: str) -> str:
        return str(self.paths.get(layer) or self.folder / f"{layer}.xml")

    def note(self, reason: str, layer: str, line: int | None, detail: str) -> None:
        """Count something kept in another form or left out by design (not an error)."""
        self.report.add(reason, f"{self._where(layer)}:{line}: {detail}" if line else f"{self._where(layer)}: {detail}")

    def _root(self, layer: str) -> etree._Element | None:
        path = self.paths[layer]
        if path is None:
            self.problem(layer, None, "missing layer", f"no {layer}.xml or {layer}.xml.gz in {self.folder}")
            return None
        try:
            root = parse_layer(path)
            self.report.opened(path)
            return root
        except FormatError as error:
            if not self.lenient:
                raise
            self.report.add(error.reason.split(":")[0], str(error))
            return None

    def read(self) -> Document | None:
        roots = {name: self._root(name) for name in LAYERS}
        self._header()
        if roots["text"] is None or roots["ann_segmentation"] is None:
            self.report.add("document skipped (no readable text or segmentation layer)", str(self.folder))
            return None
        texts = {element.get(XML_ID): element for element in roots["text"].iter() if element.get(XML_ID)}
        sentences = self._segmentation(roots["ann_segmentation"], texts)
        interpretations = self._morphosyntax(roots["ann_morphosyntax"])
        self._build_sentences(sentences, interpretations, roots["ann_morphosyntax"] is not None)
        self.segments = {s.id: s for segments in sentences for s in segments if s.node is not None}
        records = self._mentions(roots["ann_mentions"])
        clusters = self._clusters(roots["ann_coreference"], {r.id for r in records})
        self._build_coreference(records, clusters)
        return self.document

    def _header(self) -> None:
        """The document's language, genre, topic and subtopic from ``header.xml`` where there is one (our writer's:
        ``langUsage``, and ``keywords`` terms typed by field)."""
        path = layer_path(self.folder, HEADER)
        if path is None:
            return
        try:
            root = parse_layer(path)
        except FormatError as error:
            self.problem(HEADER, error.line, "malformed header", error.reason)
            return
        self.report.opened(path)
        language = root.find(f".//{{{TEI_NS}}}langUsage/{{{TEI_NS}}}language")
        if language is not None and language.get("ident"):
            self.document.language = language.get("ident")
        for term in root.iterfind(f".//{{{TEI_NS}}}keywords[@scheme='{FIELDS_SCHEME}']/{{{TEI_NS}}}term"):
            if term.get("type") in DOCUMENT_FIELD_NAMES and term.text:
                setattr(self.document, term.get("type"), term.text.strip())

    # -- segmentation --------------------------------------------------------------------------------------------
    def _segmentation(self, root: etree._Element, texts: dict[str, etree._Element]) -> list[list[_Segment]]:
        """Sentences as lists of the chosen segments, in document order (a segment outside any ``<s>`` belongs to
        its paragraph's sentence)."""
        sentences: list[list[_Segment]] = []
        holders: list[etree._Element] = []
        # Depth first, in document order, with the element that holds the current sentence (an explicit stack:
        # a recursive closure would be a reference cycle that keeps every document alive while the collector is
        # paused).
        stack: list[tuple[etree._Element, etree._Element]] = [(child, root) for child in reversed(root)]
        while stack:
            element, holder = stack.pop()
            name = _local(element.tag)
            if name == "seg":
                segs = [element]
            elif name == "choice":
                segs = self._chosen(element)
            else:
                if name in ("s", "p", "ab") and _local(holder.tag) != "s":
                    holder = element
                stack.extend((child, holder) for child in reversed(element))
                continue
            for seg in segs:
                segment = self._segment(seg, texts)
                if segment is None:
                    continue
                if not holders or holders[-1] is not holder:
                    holders.append(holder)
                    sentences.append([])
                    self.sentence_holders.append(holder.get(XML_ID) if _local(holder.tag) == "s" else None)
                sentences[-1].append(segment)
        return sentences

    def _chosen(self, choice: etree._Element) -> list[etree._Element]:
        """The segments of a choice's first alternative not marked rejected; the others are counted."""
        chosen: list[etree._Element] | None = None
        for alternative in choice:
            if _local(alternative.tag) not in ("seg", "paren"):
                continue
            segs = [alternative] if _local(alternative.tag) == "seg" else [
                s for s in alternative.iter() if _local(s.tag) == "seg"]
            rejected = _rejected(alternative) or (bool(segs) and all(_rejected(s) for s in segs))
            if chosen is None and not rejected:
                chosen = segs
            else:
                self.note("segmentation alternative not chosen", "ann_segmentation", alternative.sourceline,
                          " ".join(s.get(XML_ID, "?") for s in segs))
        if chosen is None:
            self.problem("ann_segmentation", choice.sourceline, "segmentation choice without an accepted alternative")
            return []
        return chosen

    def _segment(self, seg: etree._Element, texts: dict[str, etree._Element]) -> _Segment | None:
        seg_id = seg.get(XML_ID)
        line = seg.sourceline
        match = _STRING_RANGE.match(seg.get("corresp", ""))
        if seg_id is None or match is None:
            self.problem("ann_segmentation", line, "segment without xml:id or string-range",
                         seg.get("corresp") or "no corresp")
            return None
        unit, start, length = match.group(1), int(match.group(2)), int(match.group(3))
        if unit not in self.paragraph_texts:
            element = texts.get(unit)
            if element is None:
                self.problem("ann_segmentation", line, "string-range into an element text.xml does not have",
                             f"{seg_id}: {unit}")
                return None
            self.paragraph_texts[unit] = _text_of(element)
        text = self.paragraph_texts[unit]
        if length == 0 or start + length > len(text):
            self.problem("ann_segmentation", line, "string-range outside its paragraph",
                         f"{seg_id}: {unit}[{start}:{start + length}] of {len(text)} characters")
            return None
        nps = (seg.get(f"{{{NKJP_NS}}}nps") or seg.get("nps")) == "true"
        return _Segment(seg_id, unit, start, length, nps, line)

    # -- morphosyntax --------------------------------------------------------------------------------------------
    def _morphosyntax(self, root: etree._Element | None) -> dict[str, _Interpretation]:
        """Segmentation id -> the chosen interpretation: one flat pass over the layer's segments, features,
        symbols and strings, in document order (a value belongs to the feature opened last)."""
        found: dict[str, _Interpretation] = {}
        if root is None:
            return found
        ns = _namespace(root)
        seg_tag, f_tag, symbol_tag, string_tag = f"{ns}seg", f"{ns}f", f"{ns}symbol", f"{ns}string"
        current: _Reading | None = None
        name = None
        for element in root.iter(seg_tag, f_tag, symbol_tag, string_tag):
            tag = element.tag
            if tag == f_tag:
                name = element.get("name")
                if current is not None:
                    value = element.get("fVal")
                    if value is not None:
                        current.value(name, value, None)
            elif tag == symbol_tag:
                if current is not None:
                    current.value(name, element.get("value", ""), element.get(XML_ID))
            elif tag == string_tag:
                if current is not None:
                    current.value(name, element.text or "", None)
            else:
                if current is not None:
                    found[current.target] = self._chosen_reading(current)
                target = _fragment(element.get("corresp", ""))[1]
                current = _Reading(target, element.sourceline) if target else None
                name = None
                morph_id = element.get(XML_ID)
                if morph_id is not None and target:
                    self.morph_to_segment[morph_id] = target
        if current is not None:
            found[current.target] = self._chosen_reading(current)
        return found

    def _chosen_reading(self, reading: _Reading) -> _Interpretation:
        result = _Interpretation(orth=reading.orth, line=reading.line)
        candidates = reading.candidates()
        if not candidates:
            return result
        choice = reading.choice
        chosen = next((c for c in candidates if choice in (c[0], c[3])), None) if choice else None
        if chosen is None and reading.interpretation is not None:
            chosen = next((c for c in candidates if f"{c[1]}:{c[2]}" + (f":{c[4]}" if c[4] else "")
                           == reading.interpretation), None)
        if chosen is None:
            chosen = candidates[0]
            if len(candidates) > 1:
                self.note("no disambiguated interpretation (the first taken)", "ann_morphosyntax", result.line,
                          f"{result.orth!r}")
        _lex, result.base, result.ctag, _msd_id, result.msd = chosen
        return result

    # -- words and sentences ------------------------------------------------------------------------------------
    def _build_sentences(self, sentences: list[list[_Segment]], interpretations: dict[str, _Interpretation],
                         has_morphosyntax: bool) -> None:
        document = self.document
        unit_offset: dict[str, int] = {}
        end_of_text = 0
        previous: _Segment | None = None
        used_ids: set[str] = set()
        for index, segments in enumerate(sentences):
            first = segments[0]
            given = self.sentence_holders[index]
            sentence_id = given if given and given not in used_ids else made_sentence_id(document.id, f"s{index + 1}")
            used_ids.add(sentence_id)
            sentence = Sentence(id=sentence_id)
            if previous is None or first.unit != previous.unit:
                if first.unit in unit_offset:
                    self.problem("ann_segmentation", first.line, "paragraph continues after another one", first.unit)
                else:
                    if previous is not None:
                        self._paragraph_end(previous)
                        end_of_text += 1  # the newline between paragraphs
                    unit_offset[first.unit] = end_of_text
                    end_of_text += len(self.paragraph_texts[first.unit])
                    sentence.comments.append(f"# newpar id = {first.unit}")
            sentence.comments.extend((CommentSlot.SENT_ID, CommentSlot.TEXT))
            text = self.paragraph_texts[first.unit]
            document.add_sentence(sentence)
            last = first
            for segment in segments:
                if segment.unit != first.unit:
                    self.problem("ann_segmentation", segment.line, "sentence spans two paragraphs",
                                 f"{segment.id} in {segment.unit}, its sentence in {first.unit}")
                    continue
                if previous is not None and previous.unit == segment.unit and \
                        segment.start < previous.start + previous.length:
                    self.problem("ann_segmentation", segment.line, "segments overlap", f"{previous.id}, {segment.id}")
                    continue
                node = self._node(segment, text, sentence, interpretations, has_morphosyntax)
                node.start_char = unit_offset[first.unit] + segment.start
                node.end_char = node.start_char + segment.length
                self._space_between(previous, segment, text)
                previous = last = segment
            sentence.text = text[first.start:last.start + last.length]
        if previous is not None:
            self._paragraph_end(previous)
        document.sentences = [s for s in document.sentences if s.nodes]
        for index, sentence in enumerate(document.sentences):
            sentence.index = index

    def _node(self, segment: _Segment, text: str, sentence: Sentence, interpretations: dict[str, _Interpretation],
              has_morphosyntax: bool) -> Node:
        form = text[segment.start:segment.start + segment.length]
        lemma = upos = xpos = feats = "_"
        interpretation = interpretations.get(segment.id)
        if interpretation is None:
            if has_morphosyntax:
                self.problem("ann_morphosyntax", None, "segment without morphosyntax", segment.id)
        else:
            if interpretation.orth is not None and interpretation.orth != form:
                self.note("orth differs from the text (the text kept)", "ann_morphosyntax", interpretation.line,
                          f"{interpretation.orth!r} vs {form!r}")
            lemma = interpretation.base or "_"
            if interpretation.ctag:
                xpos = interpretation.ctag + (f":{interpretation.msd}" if interpretation.msd else "")
                tags = ud_tags(interpretation.ctag, interpretation.msd, interpretation.base)
                if tags is not None:
                    upos, feats = tags
                elif interpretation.ctag not in self.unknown_classes:
                    self.unknown_classes.add(interpretation.ctag)
                    self.note("NKJP class not in the UD table (UPOS left empty; one example per class)",
                              "ann_morphosyntax", interpretation.line, interpretation.ctag)
        node = Node(str(len(sentence.nodes) + 1), form, lemma, upos, xpos, feats)
        sentence.add_node(node)
        segment.node = node
        return node

    def _space_between(self, previous: _Segment | None, segment: _Segment, text: str) -> None:
        """The previous word's SpaceAfter/SpacesAfter from the text between the two segments (nps is checked
        against it); SpacesBefore on a paragraph's first word."""
        if previous is None or previous.unit != segment.unit:
            gap = self._whitespace(text[:segment.start], segment)
            if gap:
                segment.node.misc["SpacesBefore"] = escape_spaces(gap)  # type: ignore[union-attr]
            return
        gap = text[previous.start + previous.length:segment.start]
        if (gap == "") != segment.nps:
            self.note("nps disagrees with the text (the text followed)", "ann_segmentation", segment.line, segment.id)
        set_gap(previous.node, self._whitespace(gap, segment), last=False)  # type: ignore[arg-type]

    def _paragraph_end(self, last: _Segment) -> None:
        text = self.paragraph_texts[last.unit]
        set_gap(last.node, self._whitespace(text[last.start + last.length:], last), last=True)  # type: ignore[arg-type]

    def _whitespace(self, gap: str, segment: _Segment) -> str:
        """The whitespace of a gap; characters no segment covers are counted and left out."""
        if gap.strip():
            self.note("text not covered by any segment (left out)", "ann_segmentation", segment.line,
                      repr(gap.strip()[:40]))
            return "".join(ch for ch in gap if ch.isspace())
        return gap

    # -- mentions ------------------------------------------------------------------------------------------------
    def _token(self, target: str) -> Node | None:
        file, fragment = _fragment(target)
        segment_id = fragment if "segmentation" in file else self.morph_to_segment.get(fragment)
        if segment_id is None and not file:
            segment_id = fragment
        segment = self.segments.get(segment_id) if segment_id is not None else None
        return segment.node if segment is not None else None

    def _mentions(self, root: etree._Element | None) -> list[_MentionRecord]:
        records = []
        for seg in root.iter(f"{{{TEI_NS}}}seg", "seg") if root is not None else ():
            record = self._mention(seg)
            if record is not None:
                records.append(record)
            elif seg.get(XML_ID) is not None:
                self.dropped_mentions.add(seg.get(XML_ID))
        return records

    def _mention(self, seg: etree._Element) -> _MentionRecord | None:
        mention_id = seg.get(XML_ID)
        if mention_id is None:
            self.problem("ann_mentions", seg.sourceline, "mention without xml:id")
            return None
        nodes: list[Node] = []
        for ptr in _children(seg, "ptr"):
            node = self._token(ptr.get("target", ""))
            if node is None:
                self.problem("ann_mentions", ptr.sourceline, "pointer to a segment that does not exist",
                             f"{mention_id} -> {ptr.get('target')}")
                return None
            if node not in nodes:
                nodes.append(node)
        if not nodes:
            self.problem("ann_mentions", seg.sourceline, "mention without segments", mention_id)
            return None
        if any(node.sentence is not nodes[0].sentence for node in nodes):
            self.problem("ann_mentions", seg.sourceline, "mention crosses a sentence boundary", mention_id)
            return None
        record = _MentionRecord(mention_id, sorted(nodes, key=lambda n: n.position), seg.sourceline)
        for fs in _children(seg, "fs"):
            for f in _nameless(fs):
                self.problem("ann_mentions", f.sourceline, "feature without a name (left out)")
            for name, f in _features(fs).items():
                value = _feature_value(f)
                if name in ("semh", "synh"):
                    node = self._token(value)
                    if node is None:
                        self.problem("ann_mentions", f.sourceline, "pointer to a segment that does not exist",
                                     f"{mention_id} {name} -> {value}")
                        return None
                    if node not in nodes:
                        self.problem("ann_mentions", f.sourceline, "head outside its mention",
                                     f"{mention_id} {name} -> {value}")
                        continue
                    if name == "semh":
                        record.head = node
                    else:
                        record.synh = node
                elif name == "zero":
                    record.zero = value.lower() in ("true", "1", "yes")
                elif name == "link":
                    record.link = value
                elif name == "etype":
                    record.etype = value
                else:
                    record.attrs[name] = escape_value(value)
        return record

    # -- coreference ----------------------------------------------------------------------------------------------
    def _clusters(self, root: etree._Element | None, mention_ids: set[str]) -> list[_Cluster]:
        clusters = []
        for seg in root.iter(f"{{{TEI_NS}}}seg", "seg") if root is not None else ():
            cluster = _Cluster(seg.get(XML_ID) or f"line {seg.sourceline}", "ident", seg.sourceline, [])
            for fs in _children(seg, "fs"):
                for f in _nameless(fs):
                    self.problem("ann_coreference", f.sourceline, "feature without a name (left out)")
                for name, f in _features(fs).items():
                    value = _feature_value(f)
                    if name == "type":
                        cluster.kind = value
                    elif name == "etype":
                        cluster.etype = value
                    else:
                        cluster.attrs[name] = escape_value(value)
            if cluster.kind not in ("ident", "non-ident"):
                self.problem("ann_coreference", seg.sourceline, "unknown cluster type", f"{cluster.id}: {cluster.kind}")
                continue
            for ptr in _children(seg, "ptr"):
                mention_id = _fragment(ptr.get("target", ""))[1]
                if mention_id in mention_ids:
                    if mention_id not in cluster.members:
                        cluster.members.append(mention_id)
                elif mention_id in self.dropped_mentions:
                    self.note("cluster pointer to a dropped mention", "ann_coreference", ptr.sourceline,
                              f"{cluster.id} -> {mention_id}")
                else:
                    self.problem("ann_coreference", ptr.sourceline, "pointer to a mention that does not exist",
                                 f"{cluster.id} -> {ptr.get('target')}")
            clusters.append(cluster)
        return clusters

    def _build_coreference(self, records: list[_MentionRecord], clusters: list[_Cluster]) -> None:
        """Entities from identity clusters (a mention in none is a singleton), zero subjects as the policy says,
        near-identity clusters as bridges; entity ids in the order of first mentions."""
        document = self.document
        cluster_of: dict[str, _Cluster] = {}
        for cluster in clusters:
            if cluster.kind != "ident":
                continue
            for member in list(cluster.members):
                if member in cluster_of:
                    self.problem("ann_coreference", cluster.line, "mention in two identity clusters",
                                 f"{member} in {cluster_of[member].id} and {cluster.id}")
                    cluster.members.remove(member)
                else:
                    cluster_of[member] = cluster
        zero_nodes = self._zero_nodes([r for r in records if r.zero])
        mentions: dict[str, Mention] = {}
        entities: dict[str, Entity] = {}  # cluster id or mention id -> entity
        for record in records:
            cluster = cluster_of.get(record.id)
            key = cluster.id if cluster is not None else f"mention {record.id}"
            entity = entities.get(key)
            if entity is None:
                entity = entities[key] = document.new_entity(f"tmp{len(entities)}", cluster.etype if cluster else None,
                                                             **(cluster.attrs if cluster else {}))
            mentions[record.id] = self._add_mention(entity, record, zero_nodes.get(record.id))
        document.entities.sort(key=lambda e: e.mentions[0].order)
        for number, entity in enumerate(document.entities, 1):
            entity.id = f"e{number}"
        for cluster in clusters:
            if cluster.kind == "non-ident":
                self._near_identity(cluster, [mentions[m] for m in cluster.members])

    def _zero_nodes(self, zeros: list[_MentionRecord]) -> dict[str, Node]:
        """Empty nodes for zero subjects (policy ``empty-node``): right after the verb, DEPS naming it."""
        if self.zeros != "empty-node":
            return {}
        created: dict[str, Node] = {}
        for record in zeros:
            verb = record.head or record.nodes[0]
            if len(record.nodes) > 1:
                self.note("zero subject on several segments (its head taken as the verb)", "ann_mentions",
                          record.line, record.id)
            sentence = verb.sentence
            assert sentence is not None
            at = verb.position + 1
            while at < len(sentence.nodes) and sentence.nodes[at].is_empty:
                at += 1
            empty = Node(f"{verb.id}.{at - verb.position}", deps=f"{verb.id}:nsubj")
            empty.sentence = sentence
            sentence.nodes.insert(at, empty)
            for position in range(at, len(sentence.nodes)):
                sentence.nodes[position].position = position
            sentence._by_id = None
            created[record.id] = empty
        return created

    def _add_mention(self, entity: Entity, record: _MentionRecord, empty: Node | None) -> Mention:
        words, head = ([empty], empty) if empty is not None else (record.nodes, record.head)
        attrs = dict(record.attrs)
        if record.zero and empty is None:
            attrs["zero"] = "true"
        if record.synh is not None:
            if record.synh in words:
                attrs["synh"] = str(words.index(record.synh) + 1)
            else:
                self.note("syntactic head of a zero subject not kept (it is the verb)", "ann_mentions", record.line,
                          record.id)
        mention = self.document.add_mention(entity, words, head, record.link, **attrs)
        if record.etype is not None and record.etype != entity.type:
            mention.etype = record.etype
        return mention

    def _near_identity(self, cluster: _Cluster, members: list[Mention]) -> None:
        members = sorted(members, key=lambda m: m.order)
        self.note("near-identity cluster kept as bridges labelled near-identity", "ann_coreference", cluster.line,
                  cluster.id)
        for name in cluster.attrs:
            self.note(f"near-identity cluster's {name} not kept", "ann_coreference", cluster.line, cluster.id)
        if not members:
            return
        antecedent = members[0].entity
        assert antecedent is not None
        for mention in members[1:]:
            if mention.entity is antecedent:
                self.note("near-identity link inside one identity cluster (nothing to add)", "ann_coreference",
                          cluster.line, cluster.id)
            elif not any(b.anaphor is mention and b.antecedent is antecedent for b in self.document.bridges):
                self.document.add_bridge(mention, antecedent, NEAR_IDENTITY)


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------

_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
         f'<teiCorpus xmlns="{TEI_NS}" xmlns:nkjp="{NKJP_NS}" xmlns:xi="http://www.w3.org/2001/XInclude">\n'
         ' <TEI>\n  <text>\n   <body>\n')
_TAIL = '   </body>\n  </text>\n </TEI>\n</teiCorpus>\n'


def write_tei(corpus: Corpus, path: str | Path, report: Report | None = None, gzip: str = "no") -> None:
    """Write every document as a folder ``path/<document id>/`` of the five layers (``.xml.gz`` with gzip=yes)."""
    files = tei_files(Path(path), report if report is not None else Report(), gzip)
    with paused_gc():
        for document in corpus.documents:
            files.add(document)
    files.publish()


def tei_files(out: Path, report: Report, gzip: str = "no") -> DocumentFiles:
    """`write_tei` a document at a time (``add``, then ``publish``)."""
    def write(document: Document, folder: Path, name: str, report: Report) -> None:
        for layer, text in format_tei_document(document, report).items():
            data = text.encode("utf-8")
            plain = folder / name / f"{layer}.xml"
            target, other = (plain.with_name(plain.name + ".gz"), plain) if gzip == "yes" else (
                plain, plain.with_name(plain.name + ".gz"))
            atomic_write_bytes(target, _gzip(data) if gzip == "yes" else data)
            # A stale layer of the other kind would shadow this one (readers take the plain file first).
            other.unlink(missing_ok=True)

    return DocumentFiles(out, write, report, fallback="doc")


def _gzip(data: bytes) -> bytes:
    import gzip as gzip_module  # the parameter shadows the module name in write_tei

    return gzip_module.compress(data, compresslevel=6, mtime=0)


def _xml_id(wanted: str | None, fallback: str, used: set[str]) -> str:
    chosen = wanted if wanted and _NCNAME.match(wanted) and wanted not in used else fallback
    used.add(chosen)
    return chosen


class _Ids:
    """The ids the layers share: paragraphs, sentences, words, mentions."""

    def __init__(self) -> None:
        self.sentence: dict[Sentence, str] = {}
        self.paragraph: dict[Sentence, str] = {}  # a paragraph's first sentence -> the paragraph's id
        self.morph: dict[Node, str] = {}
        self.mention: dict[Mention, str] = {}


def format_tei_document(document: Document, report: Report) -> dict[str, str]:
    """The five layers of one document as XML text, by layer name."""
    paragraphs = _paragraphs(document)
    ids = _Ids()
    text, segmentation, morphosyntax = _text_layers(document, paragraphs, ids, report)
    mentions = _mention_layer(document, ids, report)
    coreference = _coreference_layer(document, ids, report)
    _report_unwritten(document, ids, report)
    return {"text": text, "ann_segmentation": segmentation, "ann_morphosyntax": morphosyntax,
            "ann_mentions": mentions, "ann_coreference": coreference, HEADER: _header_layer(document)}


def _header_layer(document: Document) -> str:
    """A TEI header with the document's language (``langUsage``) and its genre, topic and subtopic (``keywords``
    terms typed by field), which the reader reads back."""
    terms = "".join(f'<term type="{name}">{escape(getattr(document, name))}</term>'
                    for name in DOCUMENT_FIELD_NAMES if getattr(document, name) is not None)
    keywords = f'<textClass><keywords scheme="{FIELDS_SCHEME}">{terms}</keywords></textClass>' if terms else ""
    language = f'<langUsage><language ident={quoteattr(document.language)}/></langUsage>' if document.language else ""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<teiHeader xmlns="{TEI_NS}"><fileDesc><titleStmt><title>{escape(document.id or "document")}</title>'
            "</titleStmt><publicationStmt><p>Written by harmonize.</p></publicationStmt><sourceDesc><p/></sourceDesc>"
            f"</fileDesc><profileDesc>{language}{keywords}</profileDesc></teiHeader>\n")


def _paragraphs(document: Document) -> list[tuple[str | None, list[Sentence]]]:
    """Sentences grouped by ``# newpar`` (the id it gives, if any); a document without one is one paragraph."""
    paragraphs: list[tuple[str | None, list[Sentence]]] = []
    for sentence in document.sentences:
        newpar = next((c for c in sentence.comments if isinstance(c, str) and c.startswith("# newpar")), None)
        if newpar is not None or not paragraphs:
            name = newpar.partition("id =")[2].strip() or None if newpar else None
            paragraphs.append((name, []))
        paragraphs[-1][1].append(sentence)
    return paragraphs


def _text_layers(document: Document, paragraphs: list[tuple[str | None, list[Sentence]]], ids: _Ids,
                 report: Report) -> tuple[str, str, str]:
    text_lines, segm_lines, morph_lines = [_HEAD], [_HEAD], [_HEAD]
    used_paragraphs: set[str] = set()  # ids in text.xml
    used_sentences: set[str] = set()  # ids in ann_segmentation.xml
    for p, (name, sentences) in enumerate(paragraphs, 1):
        unit = _xml_id(name, f"txt_{p}-p", used_paragraphs)
        ids.paragraph[sentences[0]] = unit
        segm_lines.append(f'    <p xml:id="segm_{p}-p" corresp="text.xml#{unit}">\n')
        morph_lines.append(f'    <p xml:id="morph_{p}-p" corresp="ann_segmentation.xml#segm_{p}-p">\n')
        pieces: list[str] = []
        offset = 0
        number = 0
        last_word = next((w for s in reversed(sentences) for w in reversed(s.words)), None)
        for k, sentence in enumerate(sentences, 1):
            sentence_id = _xml_id(sentence.id, f"segm_{p}.{k}-s", used_sentences)
            ids.sentence[sentence] = sentence_id
            segm_lines.append(f'     <s xml:id="{sentence_id}">\n')
            morph_lines.append(f'     <s xml:id="morph_{p}.{k}-s" corresp="ann_segmentation.xml#{sentence_id}">\n')
            for word, spacing in surface_words(sentence, report):
                number += 1
                if number == 1 and "SpacesBefore" in word.misc:
                    lead = unescape_spaces(word.misc["SpacesBefore"] or "")
                    pieces.append(lead)
                    offset += len(lead)
                segm_id, morph_id = f"segm_{p}.{number}-seg", f"morph_{p}.{number}-seg"
                ids.morph[word] = morph_id
                nps = ' nkjp:nps="true"' if number > 1 and pieces[-1] == "" else ""
                segm_lines.append(f'      <seg xml:id="{segm_id}" corresp="text.xml#string-range({unit},{offset},'
                                  f'{len(word.form)})"{nps}/>\n')
                morph_lines.append(_morph_seg(word, morph_id, segm_id, p, number))
                pieces.append(word.form)
                offset += len(word.form)
                gap = "" if spacing is None else gap_after(spacing, last=word is last_word)
                pieces.append(gap)
                offset += len(gap)
            segm_lines.append("     </s>\n")
            morph_lines.append("     </s>\n")
        segm_lines.append("    </p>\n")
        morph_lines.append("    </p>\n")
        text_lines.append(f'    <p xml:id="{unit}">{escape("".join(pieces))}</p>\n')
    return "".join(text_lines + [_TAIL]), "".join(segm_lines + [_TAIL]), "".join(morph_lines + [_TAIL])


def _morph_seg(word: Node, morph_id: str, segm_id: str, p: int, number: int) -> str:
    ctag, msd = split_xpos(word.xpos)
    base = "" if word.lemma == "_" else word.lemma
    lex = f"morph_{p}.{number}.1-lex"
    msd_id = f"morph_{p}.{number}.1.1-msd"
    interpretation = f"{base}:{ctag}" + (f":{msd}" if msd else "")
    return (f'      <seg xml:id="{morph_id}" corresp="ann_segmentation.xml#{segm_id}">\n'
            f'       <fs type="morph">\n'
            f'        <f name="orth"><string>{escape(word.form)}</string></f>\n'
            f'        <f name="interps">\n'
            f'         <fs type="lex" xml:id="{lex}">\n'
            f'          <f name="base"><string>{escape(base)}</string></f>\n'
            f'          <f name="ctag"><symbol value={quoteattr(ctag)}/></f>\n'
            f'          <f name="msd"><symbol value={quoteattr(msd)} xml:id="{msd_id}"/></f>\n'
            f'         </fs>\n'
            f'        </f>\n'
            f'        <f name="disamb">\n'
            f'         <fs type="tool_report">\n'
            f'          <f name="choice" fVal="#{msd_id}"/>\n'
            f'          <f name="interpretation"><string>{escape(interpretation)}</string></f>\n'
            f'         </fs>\n'
            f'        </f>\n'
            f'       </fs>\n'
            f'      </seg>\n')


def _feature(name: str, value: str) -> str:
    return f'<f name={quoteattr(name)} fVal={quoteattr(value)}/>'


def _zeros_in_place_first(mentions: list[Mention]) -> list[Mention]:
    """The mentions in order, but that the zero subjects of one verb that are right after it come before those away
    from it: the reader puts a verb's zeros after it in file order, so those keep their empty node numbers."""
    slots: dict[int, list[int]] = {}  # verb -> where its zeros are in the list
    verbs: dict[int, Node] = {}
    for index, mention in enumerate(mentions):
        found = _mention_words(mention, Report())
        if found is not None and found[1]:
            verbs[id(found[0][0])] = found[0][0]
            slots.setdefault(id(found[0][0]), []).append(index)
    ordered = list(mentions)
    for verb, indexes in slots.items():
        away_last = sorted(indexes, key=lambda i: mentions[i].words[0].id.partition(".")[0] != verbs[verb].id)
        for slot, index in zip(indexes, away_last):
            ordered[slot] = mentions[index]
    return ordered


def _mention_layer(document: Document, ids: _Ids, report: Report) -> str:
    lines = [_HEAD]
    by_sentence: dict[Sentence, list[Mention]] = {}
    for mention in document.mentions:
        by_sentence.setdefault(mention.sentence, []).append(mention)
    number = 0
    for sentence in document.sentences:
        written = _zeros_in_place_first([m for m in by_sentence.get(sentence, []) if _mention_words(m, report)
                                         is not None])
        if not written:
            continue
        lines.append(f'    <p>\n     <s corresp="ann_segmentation.xml#{ids.sentence[sentence]}">\n')
        for mention in written:
            words, zero = _mention_words(mention, Report())  # counted above
            number += 1
            mention_id = ids.mention[mention] = f"mention_{number}"
            features = []
            head = words[0] if zero else mention.head if mention.head in words else None
            if head is not None:
                features.append(_feature("semh", f"ann_morphosyntax.xml#{ids.morph[head]}"))
            attrs = dict(mention.attrs)
            synh = attrs.pop("synh", None)
            if synh is not None and synh.isdigit() and 1 <= int(synh) <= len(mention.words) and \
                    mention.words[int(synh) - 1] in words:
                features.append(_feature("synh", f"ann_morphosyntax.xml#{ids.morph[mention.words[int(synh) - 1]]}"))
            elif synh is not None:
                report.add("synh that names no word of its mention not written", f"{document.id}: {mention.text!r}")
            if zero or attrs.pop("zero", None) == "true":
                features.append(_feature("zero", "true"))
            if mention.link is not None:
                features.append(_feature("link", mention.link))
            if mention.etype is not None:
                features.append(_feature("etype", mention.etype))
            features.extend(_feature(k, unescape_value(v)) for k, v in attrs.items())
            lines.append(f'      <seg xml:id="{mention_id}">\n       <fs type="mention">'
                         + "".join(features) + "</fs>\n"
                         + "".join(f'       <ptr target="ann_morphosyntax.xml#{ids.morph[w]}"/>\n' for w in words)
                         + "      </seg>\n")
        lines.append("     </s>\n    </p>\n")
    lines.append(_TAIL)
    return "".join(lines)


def _mention_words(mention: Mention, report: Report) -> tuple[list[Node], bool] | None:
    """The words a mention is written on, and whether it is a zero subject; None where it cannot be written.

    A mention on empty nodes only is a zero subject on the word its empty node depends on (DEPS); empty nodes
    in a mention with words are left out of it."""
    words = [w for w in mention.words if not w.is_empty]
    if words:
        if len(words) < len(mention.words):
            report.add("empty node left out of a mention with words", repr(mention))
        return words, False
    empty = mention.words[0]
    for item in empty.deps.split("|") if empty.deps != "_" else ():
        head = item.partition(":")[0]
        verb = empty.sentence.word(head) if empty.sentence is not None and "." not in head else None
        if verb is not None:
            return [verb], True
    report.add("mention on an empty node that depends on no word (not written)", repr(mention))
    return None


def _coreference_layer(document: Document, ids: _Ids, report: Report) -> str:
    """Identity clusters for entities of two or more mentions (or one with a type or attributes to keep: PCC
    leaves singletons out of this layer), near-identity clusters for bridges so labelled."""
    lines = [_HEAD, "    <p>\n"]
    number = 0
    for entity in document.entities:
        members = [ids.mention[m] for m in entity.mentions if m in ids.mention]
        if not members or (len(members) == 1 and entity.type is None and not entity.attrs):
            continue
        number += 1
        features = [_feature("type", "ident")]
        if entity.type is not None:
            features.append(_feature("etype", entity.type))
        features.extend(_feature(k, unescape_value(v)) for k, v in entity.attrs.items())
        lines.append(_cluster(number, features, members))
    for bridge in document.bridges:
        if bridge.label != NEAR_IDENTITY:
            report.add("bridge not written (TEI holds near-identity only)", f"{document.id}: {bridge.anaphor!r}")
            continue
        earlier = [m for m in bridge.antecedent.mentions if m.order < bridge.anaphor.order and m in ids.mention]
        antecedent = earlier[-1] if earlier else next((m for m in bridge.antecedent.mentions if m in ids.mention),
                                                      None)
        if antecedent is None or bridge.anaphor not in ids.mention:
            report.add("near-identity link between unwritten mentions not written", repr(bridge.anaphor))
            continue
        number += 1
        lines.append(_cluster(number, [_feature("type", "non-ident")],
                              sorted((ids.mention[antecedent], ids.mention[bridge.anaphor]),
                                     key=lambda m: int(m.rsplit("_", 1)[1]))))
    lines.append("    </p>\n")
    lines.append(_TAIL)
    return "".join(lines)


def _cluster(number: int, features: list[str], members: list[str]) -> str:
    return (f'     <seg xml:id="coreference_{number}">\n      <fs type="coreference">' + "".join(features) + "</fs>\n"
            + "".join(f'      <ptr target="ann_mentions.xml#{m}"/>\n' for m in members) + "     </seg>\n")


def _report_unwritten(document: Document, ids: _Ids, report: Report) -> None:
    """Count, in the differ's units (`harmonize.accounting`), what reading the layers back will not give: the tree
    and enhanced dependencies, UPOS and FEATS other than the NKJP tag gives, XPOS without a class, MISC other than
    spacing, speakers, comments (the reader gives each paragraph's ``# newpar id``), multiword tokens, sentence ids
    that are no XML name, texts other than the words with their spacing, empty nodes outside mentions, link types,
    split antecedents, document fields (the reader says Polish), entity ids (numbered in order)."""
    # The reader numbers entities in the order of their first mention as read back: on its written words (a zero
    # right after its verb), longer first, then in the order the mentions are written.
    written = list(ids.mention)

    def read_back_order(mention: Mention) -> tuple:
        found = _mention_words(mention, Report())
        assert found is not None
        words, zero = found
        return (words[0].sentence.index, words[0].position, int(zero), -len(words), written.index(mention))

    first: dict[Entity, tuple] = {}
    for mention in written:
        key = read_back_order(mention)
        if mention.entity is not None and (mention.entity not in first or key < first[mention.entity]):
            first[mention.entity] = key
    numbers = {entity: f"e{n}" for n, entity in enumerate(sorted(first, key=first.__getitem__), 1)}
    sentence_ids = [ids.sentence[s] for s in document.sentences]
    # The tree is counted below, node by node: a zero away from its verb reads back as another node.
    holds = Holds(columns=("LEMMA", "XPOS", "UPOS", "FEATS", "HEAD", "DEPREL", "DEPS"), misc=SPACING_KEYS,
                  sentence_id=lambda n: sentence_ids[n - 1], text_rebuilt=_surface_text, comments=True,
                  glued_multiword_tokens=True, empty_nodes="written alone", heads=True, entity_types=True,
                  mention_types=True, links=True, mention_fields=True,
                  entity_fields=True, bridges=True)
    report_unheld(document, holds, report, "TEI", list(ids.mention), entity_ids=numbers, count_id=False,
                  document_fields={"language": document.language or "pl", "genre": document.genre,
                                   "topic": document.topic, "subtopic": document.subtopic})
    where = str(document.id)
    counts: dict[str, int] = {}
    zeros = {id(m.words[0]): found[0][0] for m in ids.mention if all(w.is_empty for w in m.words)
             and (found := _mention_words(m, Report())) is not None}
    moved = renumbered = 0
    in_place: dict[int, int] = {}  # verb -> its zeros right after it so far: the reader numbers them so
    for node in document.nodes():
        if node.is_empty:
            verb = zeros.get(id(node))
            if verb is None:
                continue  # not read back (counted as an empty node)
            if node.id.partition(".")[0] != verb.id:
                moved += 1  # read back right after its verb
                continue
        for column, value in (("HEAD", node.head), ("DEPREL", node.deprel)):
            if value != "_":
                counts[column] = counts.get(column, 0) + 1
        if node.is_empty:
            assert verb is not None
            in_place[id(verb)] = in_place.get(id(verb), 0) + 1
            renumbered += node.id != f"{verb.id}.{in_place[id(verb)]}"  # an empty node before it is not written
            # Read back as an empty node that names its verb in DEPS, with no other column.
            for column, value, back in (("LEMMA", node.lemma, "_"), ("XPOS", node.xpos, "_"),
                                        ("UPOS", node.upos, "_"), ("FEATS", node.feats, "_"),
                                        ("DEPS", node.deps, f"{verb.id}:nsubj")):
                if value != back:
                    counts[column] = counts.get(column, 0) + 1
            continue
        if node.deps != "_":
            counts["DEPS"] = counts.get("DEPS", 0) + 1
        ctag, msd = split_xpos(node.xpos)
        xpos = ctag + (f":{msd}" if msd else "") if ctag else "_"
        upos, feats = (ud_tags(ctag, msd, "" if node.lemma == "_" else node.lemma) if ctag else None) or ("_", "_")
        for column, value, back in (("XPOS", node.xpos, xpos), ("UPOS", node.upos, upos),
                                    ("FEATS", node.feats, feats)):
            if value != back:
                counts[column] = counts.get(column, 0) + 1
    for column, count in counts.items():
        report.add(f"TEI: {column} read back from the NKJP tag, not as written" if column in ("XPOS", "UPOS", "FEATS")
                   else f"{column} not written (TEI has no place for them)", where, count)
    # Field values are written as free text and read back in CorefUD's escaping: other escapes change.
    def respelled(attrs: dict[str, str]) -> int:
        return sum(1 for value in attrs.values() if escape_value(unescape_value(value)) != value)

    mention_fields = sum(respelled({k: v for k, v in m.attrs.items() if k != "synh"}) for m in ids.mention)
    entity_fields = sum(respelled(e.attrs) for e in numbers)
    for owner, count in (("mention", mention_fields), ("entity", entity_fields)):
        if count:
            report.add(f"TEI: {owner} fields whose escaping reads back otherwise", where, count)
    heads = sum(1 for m in ids.mention if m.head is not None and not all(w.is_empty for w in m.words)
                and m.head not in [w for w in m.words if not w.is_empty])
    if heads:
        report.add("TEI: heads on an empty node left out of their mention not written", where, heads)
    if renumbered:
        report.add("TEI: zero subjects read back under another empty node number (an empty node before them after "
                   "their verb is not written)", where, renumbered)
    if moved:
        report.add("TEI: zero subjects away from their verb read back right after it (the empty node and its "
                   "mention there)", where, moved)
        report.add("TEI: empty nodes of zero subjects away from their verb not read back where they were", where,
                   moved)
    comments = 0
    for sentence in document.sentences:
        own = Counter(c for c in sentence.comments if isinstance(c, str) and not c.startswith(FIELD_COMMENTS))
        unit = ids.paragraph.get(sentence)
        back = Counter([f"# newpar id = {unit}"] if unit is not None else [])
        comments += sum((own - back).values()) + sum((back - own).values())
    if comments:
        report.add("TEI: comment lines not read back as written (TEI keeps paragraphs, as # newpar id)", where,
                   comments)


def _surface_text(sentence: Sentence) -> str:
    """A sentence's text as the TEI reader gives it back: its words as the writer writes them (a multiword token's
    glued), with their spacing, nothing around them."""
    words = surface_words(sentence, Report())
    return "".join(word.form + ("" if spacing is None or at == len(words) - 1 else gap_after(spacing, last=False))
                   for at, (word, spacing) in enumerate(words))
