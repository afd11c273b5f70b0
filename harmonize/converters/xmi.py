"""UIMA CAS XMI (INCEpTION and DKPro Core exports) through dkpro-cassis: reader and writer.

The type system comes from ``-I typesystem=FILE``, else a ``TypeSystem.xml``/``typesystem.xml`` beside the file,
else `dkpro_type_system` (the DKPro Core types this module writes); a ``.zip`` of XMI files with their type
system (an INCEpTION project export, or a curation export) is read as a corpus, one document per XMI file. A file
that declares a DOCTYPE is refused (entities are never resolved).

The mapping, in one place:

* DKPro ``Sentence`` and ``Token`` annotations are the sentences and words (the whole text one sentence where there
  is no Sentence); token forms are their text; spacing from the text between them (SpaceAfter / SpacesAfter);
* every chain type (a type with a ``first`` feature, such as DKPro's ``CoreferenceChain`` or INCEpTION's custom
  ``...Chain`` layers) is read, each chain an `Entity` whose links (``first``, then ``next``) are its
  mentions: the words a link covers (a link inside a word: that word, counted; a zero-length link: an empty node
  of its own after the word it touches, the links at one position in file order, as the WebAnno TSV reader does
  sub-tokens), its ``referenceType`` as the mention attribute
  ``reftype``, its ``referenceRelation`` as the link type into the next mention (``Mention.link``);
* or, where the CAS has no chains, a span layer and a relation layer used for coreference as GUM uses them
  (``-I span_layer= -I relation_layer=``, or found by itself: a relation type named like coreference whose
  ``Governor`` points to a span type): spans are mentions with their features, relations link them, read exactly
  as GUM's TSV is (`harmonize.converters.gum.build_coreference`; a relation's ``Dependent`` is its source);
* everything else in the CAS (POS, lemmas, named entities, other layers) is counted in the report and not read.

The writer makes ``OUT/<id>.xmi`` per document and ``OUT/TypeSystem.xml``: the text as the sofa, Sentence and Token
annotations, a ``CoreferenceChain`` per entity (singletons included) with a ``CoreferenceLink`` per mention
(``reftype`` else the entity type as referenceType, the next mention's link type as referenceRelation). A
discontinuous mention covers its whole extent, a mention only on empty nodes is a zero-length link at its position
(both counted; links go into the file in document order, so zeros after one word keep their order; a mention
that reads back on another empty node number, after an empty node the file does not keep, is counted too);
bridges and split antecedents have no place (counted).
"""

from __future__ import annotations

import bisect
import io
import zipfile
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

from harmonize.converters.corefud_values import escape_value, unescape_value
from harmonize.converters.surface import DocumentText, document_text, set_gap
from harmonize.converters.webanno_tsv import CHAIN_LAYER_HOLDS, REFTYPE, empty_node_after, report_chain_layer_unheld
from harmonize.errors import FormatError, Problems, Report
from harmonize.io import DocumentFiles, atomic_write_bytes, atomic_write_text, paused_gc
from harmonize.schemas.model import CommentSlot, Corpus, Document, Entity, Node, Sentence

SENTENCE = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Sentence"
TOKEN = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token"
CHAIN = "de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceChain"
LINK = "de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceLink"
TYPE_SYSTEM_NAMES = ("TypeSystem.xml", "typesystem.xml")
NOT_READ = "XMI annotation type not read as coreference"


def dkpro_type_system():
    """The DKPro Core types the writer uses: Sentence, Token, CoreferenceChain (first) and CoreferenceLink (next,
    referenceType, referenceRelation), with DKPro's names, so that INCEpTION maps them to its own layers."""
    from cassis import TypeSystem

    system = TypeSystem()
    system.create_type(SENTENCE, supertypeName="uima.tcas.Annotation")
    system.create_type(TOKEN, supertypeName="uima.tcas.Annotation")
    link = system.create_type(LINK, supertypeName="uima.tcas.Annotation")
    system.create_feature(link, "next", LINK)
    system.create_feature(link, "referenceType", "uima.cas.String")
    system.create_feature(link, "referenceRelation", "uima.cas.String")
    chain = system.create_type(CHAIN, supertypeName="uima.cas.AnnotationBase")
    system.create_feature(chain, "first", LINK)
    return system


def _type_system(source: Path, typesystem: str, problem: Problems):
    from cassis import load_typesystem

    candidates = [Path(typesystem)] if typesystem else [source.parent / name for name in TYPE_SYSTEM_NAMES]
    for candidate in candidates:
        if candidate.is_file():
            problem.report.opened(candidate)
            return _load(candidate.read_bytes(), str(candidate), load_typesystem)
    if typesystem:
        raise FormatError(typesystem, None, "type system file not found")
    return dkpro_type_system()


def _load(data: bytes, where: str, loader):
    if b"<!DOCTYPE" in data[:4096]:
        raise FormatError(where, None, "a DOCTYPE declaration: refused (XML entities are never resolved)")
    try:
        return loader(io.BytesIO(data))
    except FormatError:
        raise
    except Exception as error:  # noqa: BLE001 - cassis and lxml raise many kinds; each becomes one line
        line = getattr(error, "lineno", None)
        raise FormatError(where, line, f"not a readable UIMA XMI / type system: {type(error).__name__}: "
                                       f"{str(error).splitlines()[0] if str(error) else ''}") from None


def read_xmi(path: str | Path, lenient: bool = False, report: Report | None = None, typesystem: str = "",
             span_layer: str = "", relation_layer: str = "") -> Corpus:
    """An XMI file, a folder of them, or a zip of them (INCEpTION's project export) as a corpus."""
    from cassis import load_cas_from_xmi, load_typesystem

    report = report if report is not None else Report()
    path = Path(path)
    corpus = Corpus(meta={"source": str(path)})
    with paused_gc():
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
                system_name = next((n for n in names if Path(n).name in TYPE_SYSTEM_NAMES), None)
                if typesystem:
                    system = _type_system(path, typesystem, Problems(str(path), lenient, report))
                elif system_name is not None:
                    system = _load(archive.read(system_name), f"{path}!{system_name}", load_typesystem)
                else:
                    system = dkpro_type_system()
                for name in sorted(n for n in names if n.endswith(".xmi")):
                    where = f"{path}!{name}"
                    cas = _load(archive.read(name), where,
                                lambda data, system=system: load_cas_from_xmi(data, typesystem=system,
                                                                              lenient=lenient))
                    corpus.documents.append(_document(cas, Path(name).stem, Problems(where, lenient, report),
                                                      (span_layer, relation_layer)))
            return corpus
        files = sorted(path.glob("*.xmi")) if path.is_dir() else [path]
        for file in files:
            problem = Problems(str(file), lenient, report)
            system = _type_system(file, typesystem, problem)
            report.opened(file)
            cas = _load(file.read_bytes(), str(file),
                        lambda data, system=system: load_cas_from_xmi(data, typesystem=system, lenient=lenient))
            corpus.documents.append(_document(cas, file.stem, problem, (span_layer, relation_layer)))
    return corpus


def _document(cas, name: str, problem: Problems, layers: tuple[str, str]) -> Document:
    text = cas.sofa_string or ""
    document = Document(id=name)
    tokens = sorted(((t.begin, t.end) for t in _select(cas, TOKEN)), key=lambda t: t)
    sentences = sorted((s.begin, s.end) for s in _select(cas, SENTENCE)) or [(0, len(text))]
    if not tokens:
        problem(None, "no Token annotations", "the CAS has no DKPro tokens to build words from")
    nodes: list[Node] = []
    starts = [begin for begin, _end in tokens]
    for begin, end in sentences:
        inside = tokens[bisect.bisect_left(starts, begin): bisect.bisect_left(starts, end)]
        if not inside:
            continue
        sentence = Sentence(id=f"{name}-{len(document.sentences) + 1}", text=" ".join(text[begin:end].split()))
        sentence.comments = [CommentSlot.SENT_ID, CommentSlot.TEXT]
        if not document.sentences:
            sentence.comments.insert(0, CommentSlot.NEWDOC)
        document.add_sentence(sentence)
        for index, (token_begin, token_end) in enumerate(inside, 1):
            node = sentence.add_node(Node(str(index), text[token_begin:token_end] or "_"))
            node.start_char, node.end_char = token_begin, token_end
            nodes.append(node)
    for node, following in zip(nodes, [*nodes[1:], None]):
        if following is not None and following.sentence is node.sentence:
            gap = text[node.end_char:following.start_char]  # type: ignore[misc]
            set_gap(node, gap if gap.isspace() or not gap else " ", last=False)
    relations = _span_relation_layers(cas, layers, problem)
    if relations is not None:
        _spans_and_relations(cas, document, nodes, relations, problem)
    else:
        _chains(cas, document, nodes, problem)
    return document


def _span_relation_layers(cas, layers: tuple[str, str], problem: Problems):
    """(span type, relation type) to read coreference from: the options', else a relation type named like coreference
    (GUM's ``webanno.custom.Coref``) whose ``Governor`` points to a span type, where the CAS has no chains."""
    span_name, relation_name = layers
    types = {t.name: t for t in cas.typesystem.get_types()}
    if span_name or relation_name:
        for name in (span_name, relation_name):
            if name not in types:
                raise FormatError(problem.path, None, f"no type {name!r} in the type system")
        return types[span_name], types[relation_name]
    for relation in types.values():
        features = {f.name: f for f in relation.all_features}
        if "coref" in relation.name.lower() and "Governor" in features and "Dependent" in features:
            span = features["Governor"].rangeType
            if _select(cas, relation.name) and not any(
                    any(f.name == "first" for f in t.all_features) and _select(cas, t.name) for t in types.values()):
                return types.get(getattr(span, "name", span)), relation
    return None


def _spans_and_relations(cas, document: Document, nodes: list[Node], layers, problem: Problems) -> None:
    """Mentions and links as GUM's TSV has them, on a span layer and a relation layer (Dependent: the source, as the
    TSV writes a relation on its dependent's token; Governor: the target)."""
    from harmonize.converters.gum import SpanRecord, build_coreference

    span_type, relation_type = layers
    starts = [n.start_char for n in nodes]
    spans: dict[str, SpanRecord] = {}
    for annotation in _select(cas, span_type.name):
        words = _covered(annotation.begin, annotation.end, nodes, starts, problem)
        if not words:
            problem(None, "span covers no word", f"{span_type.name} {annotation.begin}-{annotation.end}")
            continue
        record = SpanRecord(str(annotation.xmiID), annotation.begin)
        record.nodes = words
        for feature in span_type.all_features:
            value = _feature(annotation, feature.name) if feature.name not in ("begin", "end", "sofa") else None
            if isinstance(value, str):
                record.features[_feature_name(feature.name)] = value
        spans[record.key] = record
    kind_feature = next((f.name for f in relation_type.all_features if _feature_name(f.name) == "type"), None)
    links = []
    for relation in _select(cas, relation_type.name):
        source, target = relation.get("Dependent"), relation.get("Governor")
        if source is None or target is None:
            problem(None, "relation without both ends", f"{relation_type.name} at {relation.begin}")
            continue
        kind = (_feature(relation, kind_feature) if kind_feature else None) or relation_type.name.rsplit(".", 1)[-1]
        links.append((relation.begin, kind, str(source.xmiID), str(target.xmiID)))
    build_coreference(document, spans, links, problem)


def _select(cas, type_name: str) -> list:
    try:
        return list(cas.select(type_name))
    except Exception:  # noqa: BLE001 - a type the type system lacks: nothing of it
        return []


def _chains(cas, document: Document, nodes: list[Node], problem: Problems) -> None:
    chain_types = {t.name for t in cas.typesystem.get_types() if any(f.name == "first" for f in t.all_features)}
    link_types: set[str] = set()
    chains = []
    counted: dict[str, int] = {}
    for structure in cas.select_all_fs() if hasattr(cas, "select_all_fs") else cas.select_all():
        name = structure.type.name
        if name in chain_types:
            chains.append(structure)
        elif name not in (SENTENCE, TOKEN):
            counted[name] = counted.get(name, 0) + 1
    starts = [n.start_char for n in nodes]
    ordered = []
    for chain in chains:
        links = []
        link = chain.get("first")
        seen: set[int] = set()
        while link is not None and id(link) not in seen:
            seen.add(id(link))
            links.append(link)
            link_types.add(link.type.name)
            link = link.get("next") if any(f.name == "next" for f in link.type.all_features) else None
        if links:
            ordered.append((min(lk.begin for lk in links), links))
    # A zero-length link is a position without words: an empty node of its own after the word it touches, the
    # links at one position in the order the file has them (their XMI ids), as the empty nodes were written.
    points = {id(link): _covered(link.begin, link.end, nodes, starts, problem)
              for link in sorted((lk for _, links in ordered for lk in links if lk.begin == lk.end),
                                 key=lambda lk: lk.xmiID if lk.xmiID is not None else 0)}
    for number, (_start, links) in enumerate(sorted(ordered, key=lambda item: item[0]), 1):
        entity = document.new_entity(str(number))
        previous: str | None = None
        for link in links:
            words = points[id(link)] if id(link) in points else _covered(link.begin, link.end, nodes, starts, problem)
            if not words:
                problem(None, "chain link covers no word", f"{link.type.name} {link.begin}-{link.end}")
                continue
            words = [w for w in words if w.sentence is words[0].sentence]
            kind = _feature(link, "referenceType")
            document.add_mention(entity, words, link=previous, **({REFTYPE: escape_value(kind)} if kind else {}))
            relation = _feature(link, "referenceRelation")
            previous = escape_value(relation) if relation else None
        if not entity.mentions:
            document.remove_entity(entity)
    for name, count in sorted(counted.items()):
        if name not in link_types and not name.startswith("uima.") and "DocumentMetaData" not in name:
            problem.report.add(NOT_READ, f"{problem.path}: {name}", count)


def _feature_name(name: str) -> str:
    """A feature's name as the type system declares it: cassis renames ``type`` (a Python builtin) to ``type_``."""
    return (name[:-1] if name == "type_" else name).lower()


def _feature(structure, name: str) -> str | None:
    if not any(f.name == name for f in structure.type.all_features):
        return None
    value = structure.get(name)
    return value if value not in (None, "", "*") else None


def _covered(begin: int, end: int, nodes: list[Node], starts: list, problem: Problems) -> list[Node]:
    """The words an annotation covers; for a zero-length one, a new empty node after the word it touches."""
    if begin == end:
        index = max(0, bisect.bisect_right(starts, begin) - 1)
        if nodes and not (nodes[index].start_char <= begin <= nodes[index].end_char) and index > 0:
            index -= 1
        if not nodes:
            return []
        problem.report.add("zero-length link put on an empty node after its word", f"{problem.path}: {begin}")
        return [empty_node_after(nodes[index])]
    covered = [n for n in nodes if n.start_char < end and n.end_char > begin]
    if covered and (covered[0].start_char < begin or covered[-1].end_char > end):
        problem.report.add("link inside a word widened to the word", f"{problem.path}: {begin}-{end}")
    return covered


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------

def format_xmi(document: Document, report: Report, system=None, name: str | None = None) -> bytes:
    """The document as XMI of the DKPro types (see the module); ``name``: the file's name without ``.xmi`` (the
    reader's id for the document; default its id)."""
    from cassis import Cas

    system = system if system is not None else dkpro_type_system()
    surface = document_text(document)
    cas = Cas(typesystem=system, sofa_string=surface.text)
    sentence_type, token_type = system.get_type(SENTENCE), system.get_type(TOKEN)
    link_type, chain_type = system.get_type(LINK), system.get_type(CHAIN)
    for sentence in document.sentences:
        words = [n for n in sentence.nodes if n in surface.offsets]
        if not words:
            continue
        cas.add(sentence_type(begin=surface.offsets[words[0]][0], end=surface.offsets[words[-1]][1]))
        for node in words:
            begin, end = surface.offsets[node]
            cas.add(token_type(begin=begin, end=end))
    starts: dict[Entity, int] = {}
    placed = []  # (where the mention is, its link): links go into the file in document order
    firsts = []  # each chain's first link
    for entity in document.entities:
        links = []
        for index, mention in enumerate(entity.mentions):
            located = [surface.offsets[w] for w in mention.words if w in surface.offsets]
            if located and any(w.is_empty for w in mention.words):
                report.add("empty nodes left out of a mention (XMI links are characters)",
                           f"{document.id}: {entity.id}")
            if not located:
                word = next((n for n in reversed(mention.sentence.nodes[: mention.words[0].position])
                             if n in surface.offsets), None)
                point = surface.offsets[word][1] if word is not None else 0
                located = [(point, point)]
                report.add("mention only on empty nodes written as a zero-length link", f"{document.id}: {entity.id}")
            elif mention.is_discontinuous:
                report.add("discontinuous mention written over its whole extent", f"{document.id}: {mention.text}")
            following = entity.mentions[index + 1].link if index + 1 < len(entity.mentions) else None
            links.append(link_type(begin=located[0][0], end=located[-1][1],
                                   referenceType=unescape_value(mention.attrs.get(REFTYPE, "")) or mention.entity_type,
                                   referenceRelation=unescape_value(following) if following else None))
            placed.append(((mention.sentence.index, mention.words[0].position), links[-1]))
        for link, successor in pairwise(links):
            link.next = successor
        if links:
            firsts.append(links[0])
            starts[entity] = min(link.begin for link in links)
    # The reader gives each zero-length link an empty node of its own, in file order: links at one position are
    # written in the order of their empty nodes.
    for _, link in sorted(placed, key=lambda item: item[0]):
        cas.add(link)
    for first in firsts:
        cas.add(chain_type(first=first))
    _report_unheld(document, surface, starts, report, name if name is not None else str(document.id))
    return cas.to_xmi().encode("utf-8")


def _report_unheld(document: Document, surface: DocumentText, starts: dict[Entity, int], report: Report,
                   name: str) -> None:
    """What XMI's chains cannot hold (a chain layer's losses), and what its tokens make of a multiword token: each
    of its words is a token over the token's characters, so each reads back with the token's form, and a mention
    of some of its words reads back over all of them."""
    where = str(document.id)
    forms = widened = heads = 0
    for sentence in document.sentences:
        for token in sentence.multiwords:
            words = [w for w in sentence.words if token.first <= int(w.id) <= token.last]
            forms += sum(1 for w in words if w.form != token.form)
            ids = {id(w) for w in words}
            cut = [m for m in {m for w in words for m in w.mentions}
                   if 0 < sum(1 for w in m.words if id(w) in ids) < len(words)]
            widened += len(cut)
            # A one-word mention's head is its word; widened, it has none (longer ones are counted as heads lost).
            heads += sum(1 for m in cut if m.head is not None and len(m.words) == 1)
    if forms:
        report.add("multiword token words written as the token (read back with its form)", where, forms)
    if widened:
        report.add("mentions of some words of a multiword token read back over all of them", where, widened)
    if heads:
        report.add("heads of one-word mentions read back over a whole multiword token lost", where, heads)
    moved = _zeros_read_back_elsewhere(document)
    if moved:
        report.add("mentions on empty nodes read back on another empty node after their word (XMI keeps one "
                   "zero-length link per mention and no empty node numbers)", where, moved)
    ordered = sorted(starts, key=starts.__getitem__)  # the reader numbers chains by their first character
    report_chain_layer_unheld(document, surface, {e: str(n) for n, e in enumerate(ordered, 1)}, report, "XMI", name,
                              lambda text: " ".join(text.split()), replace(CHAIN_LAYER_HOLDS, empty_nodes="alone"))


def _zeros_read_back_elsewhere(document: Document) -> int:
    """Mentions only on empty nodes that read back on another one: the reader makes an empty node per zero-length
    link, numbered after its word in file order, so a mention over several empty nodes, two mentions on one, or
    one after an empty node the file does not keep, reads back on other numbers."""
    at_word: dict[tuple[int, str], list] = {}
    for mention in sorted((m for m in document.mentions if all(w.is_empty for w in m.words)),
                          key=lambda m: (m.sentence.index, m.words[0].position)):
        at_word.setdefault((mention.sentence.index, mention.words[0].id.split(".")[0]), []).append(mention)
    return sum(1 for (_, word), mentions in at_word.items()
               for number, m in enumerate(mentions, 1) if [w.id for w in m.words] != [f"{word}.{number}"])


def write_xmi(corpus: Corpus, out: str | Path, report: Report | None = None) -> None:
    """Each document as ``OUT/<id>.xmi``, and ``OUT/TypeSystem.xml``."""
    files = xmi_files(Path(out), report if report is not None else Report())
    with paused_gc():
        for document in corpus.documents:
            files.add(document)
        files.publish()


def xmi_files(out: Path, report: Report) -> DocumentFiles:
    """`write_xmi` a document at a time (``add``; ``publish`` writes the type system)."""
    system = dkpro_type_system()

    def write(document: Document, folder: Path, name: str, report: Report) -> None:
        atomic_write_bytes(folder / f"{name}.xmi", format_xmi(document, report, system, name))

    return DocumentFiles(out, write, report, reserved=["TypeSystem"],
                         finish=lambda folder: atomic_write_text(folder / "TypeSystem.xml", system.to_xml()))
