"""ECB+ (Event Coreference Bank plus): reader, and the mention-list writer of ``ariecattan/coref``.

The release is one folder per topic (``1/`` .. ``45/``) of CAT XML files, ``N_Mecb.xml`` (the original ECB seminal
event: subtopic ``Necb``) and ``N_Mecbplus.xml`` (the new one: subtopic ``Necb+``)::

    <Document doc_name="1_1ecbplus.xml" doc_id="...">
    <token t_id="195" sentence="8" number="14">plea</token>       t_id 1-based over the document
    <Markables>
      <ACTION_OCCURRENCE m_id="67"><token_anchor t_id="195"/></ACTION_OCCURRENCE>            a mention
      <ACTION_OCCURRENCE m_id="89" TAG_DESCRIPTOR="t1_plea" instance_id="ACT157..."/>          an instance
    </Markables>
    <Relations>
      <CROSS_DOC_COREF r_id="21700" note="ACT157..."><source m_id="67"/><target m_id="89"/></CROSS_DOC_COREF>
      <INTRA_DOC_COREF r_id="37615"><source m_id="24"/><target m_id="17"/></INTRA_DOC_COREF>
    </Relations>

Model mapping:

* A topic folder is one input (one corpus): its documents, ordered ecb before ecb+ and by number, each with
  ``topic`` ("1") and ``subtopic`` ("1ecb" or "1ecb+"). Sentences are the ``sentence`` numbers, words their
  ``number`` order; sentence ids are ``<doc>-<sentence>``.
* Mentions are the markables with token anchors (gaps allowed: discontinuous mentions); the full tag stays in the
  mention attribute ``tag`` (``ACTION_OCCURRENCE``), its ``m_id`` in ``mid`` (CorefUD field names are letters). Entities are cross-document by id,
  as the scorer's ``--cross-document`` reads them: a ``CROSS_DOC_COREF`` chain is the entity named by its instance
  id (``note``) in every document of the corpus; an ``INTRA_DOC_COREF`` chain is ``INTRA_<r_id>_<doc>.xml``; a
  mention in no relation is the singleton ``Singleton_<TAG[:3]>_<m_id>_<doc>.xml`` (the ids of ariecattan/coref's
  preprocessing). The entity type is ``event`` for ACTION and NEG tags, else the family (``human``, ``nonhuman``,
  ``loc``, ``time``), of the chain's first mention in the document (what a CorefUD entity holds); a mention of
  another family keeps its own type (a chain mixing LOC and ACTION sources, a real quirk, is read and counted), and
  so is an instance markable of another type or ``UNKNOWN_INSTANCE_TAG``. The instance's ``TAG_DESCRIPTOR`` is the
  entity attribute ``descriptor``.
* A mention over a sentence break follows ``cross_sentence`` as for MMAX2: ``first-part`` keeps its words in its
  first sentence, ``parts`` makes each sentence's words a mention of the entity, ``drop`` leaves it out; counted.
* ``sentences=validated`` keeps only the mentions in the sentences of ``ECBplus_coreference_sentences.csv`` (from
  ``sentences_csv``, else beside the input or one or two folders up, where the release keeps it) and leaves out the
  documents without one, as the usual evaluation does; both counted. The text of a kept document stays whole.
  ``sentences=validated-text`` keeps the validated sentences only, text included (counted): the only sentences
  ECB+ annotates exhaustively, so the text a mention detector is trained and scored on (Cattan et al. 2021).

Bad input (XML that does not parse, a token anchor or relation naming nothing, a token without its attributes) is
an error naming the file, the line and the reason; ``lenient`` drops the broken item and counts it.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

from lxml import etree

from harmonize.converters.choices import CROSS_SENTENCE_POLICIES, ECBPLUS_SENTENCES, cross_sentence_parts
from harmonize.converters.corefud_values import escape_value, unescape_value
from harmonize.errors import FormatError, HarmonizeError, Problems, Report, check_choice
from harmonize.io import atomic_write_text, paused_gc, safe_file_names
from harmonize.schemas.model import CommentSlot, Corpus, Document, Entity, Node, Sentence, made_sentence_id

SENTENCES_CSV = "ECBplus_coreference_sentences.csv"
# The standard split (Cybulska and Vossen 2015, as Cattan et al.'s preprocessing uses it): train is 1-35 less these.
DEV_TOPICS = ("2", "5", "12", "18", "21", "23", "34", "35")
TEST_TOPICS = tuple(str(topic) for topic in range(36, 46))
EVENT_FAMILIES = ("ACTION", "NEG")
_DOCUMENT_NAME = re.compile(r"(\d+)_(\d+)(ecbplus|ecb)\.xml\Z")
_CONTROL_SPACE = re.compile(r"[\t\n\r]+")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True,
                          remove_comments=True)
_FAMILIES = (("NON_HUMAN", "nonhuman"), ("HUMAN", "human"), ("ACTION", "event"), ("NEG", "event"), ("LOC", "loc"),
             ("TIME", "time"))


def document_files(folder: Path) -> list[Path]:
    """The ECB+ documents of one folder, ecb before ecb+, by number."""
    found = [p for p in folder.iterdir() if p.is_file() and _DOCUMENT_NAME.match(p.name)]
    return sorted(found, key=_document_order)


def topic_folders(path: Path) -> list[Path]:
    """The inputs under a folder: itself when it holds documents (a topic), else its topic folders at any depth."""
    if document_files(path):
        return [path]
    folders = sorted({p.parent for p in path.rglob("*.xml") if _DOCUMENT_NAME.match(p.name)},
                     key=lambda p: (int(p.name) if p.name.isdigit() else 10**9, str(p)))
    return folders


def _document_order(path: Path) -> tuple:
    match = _DOCUMENT_NAME.match(path.name)
    assert match is not None
    return int(match.group(1)), match.group(3) == "ecbplus", int(match.group(2))


def family(tag: str) -> str | None:
    """The type of a markable tag: event (ACTION, NEG), human, nonhuman, loc, time; None for another tag."""
    for prefix, name in _FAMILIES:
        if tag.startswith(prefix):
            return name
    return None


def read_ecbplus(path: str | Path, lenient: bool = False, report: Report | None = None,
                 cross_sentence: str = "first-part", sentences: str = "all", sentences_csv: str = "") -> Corpus:
    """Read an ECB+ document, a topic folder or the whole release into one `Corpus`."""
    check_choice("cross_sentence", cross_sentence, CROSS_SENTENCE_POLICIES)
    check_choice("sentences", sentences, ECBPLUS_SENTENCES)
    report = report if report is not None else Report()
    root = Path(path)
    if root.is_dir():
        files = [f for folder in topic_folders(root) for f in document_files(folder)]
        if not files:
            raise FormatError(str(root), None, "no ECB+ documents here (N_Mecb.xml, N_Mecbplus.xml)")
    else:
        files = [root]
    validated = _validated_sentences(root, sentences_csv, report) if sentences != "all" else None
    corpus = Corpus(meta={"source": str(root)})
    with paused_gc():
        for file in files:
            document = _DocumentReader(file, Problems(str(file), lenient, report), cross_sentence).read()
            report.opened(file)
            if validated is not None:
                document = _keep_validated(document, validated, report)
                if document is not None and sentences == "validated-text":
                    _drop_unvalidated_text(document, validated[str(document.id)], report)
            if document is not None:
                corpus.documents.append(document)
    return corpus


# ---------------------------------------------------------------------------------------------------------------
# The validated sentences
# ---------------------------------------------------------------------------------------------------------------

def _validated_sentences(root: Path, given: str, report: Report) -> dict[str, set[int]]:
    """Document name (``1_10ecbplus``) -> its validated sentence numbers."""
    if given:
        path = Path(given)
    else:
        start = root if root.is_dir() else root.parent
        candidates = [folder / SENTENCES_CSV for folder in (start, start.parent, start.parent.parent)]
        path = next((c for c in candidates if c.is_file()), candidates[0])
    if not path.is_file():
        raise FormatError(str(path), None, f"{SENTENCES_CSV} not found (give it with -I sentences_csv=PATH)")
    validated: dict[str, set[int]] = {}
    report.opened(path)
    with open(path, encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.reader(handle), 1):
            if number == 1 or not row:
                continue
            if len(row) != 3 or not row[0].strip().isdigit() or not row[2].strip().isdigit():
                raise FormatError(str(path), number, f"expected Topic,File,Sentence Number; got {row}")
            validated.setdefault(f"{row[0].strip()}_{row[1].strip()}", set()).add(int(row[2]))
    return validated


def _keep_validated(document: Document, validated: dict[str, set[int]], report: Report) -> Document | None:
    """The document with only the mentions of its validated sentences, or None when it has none."""
    kept = validated.get(str(document.id))
    mentions = [m for e in document.entities for m in e.mentions]
    if not kept:
        report.add("document without a validated sentence left out (sentences=validated)", str(document.id))
        report.add("mention of a document left out (sentences=validated)", str(document.id), len(mentions))
        return None
    for mention in mentions:
        if _sentence_number(mention.sentence) not in kept:
            report.add("mention outside the validated sentences left out (sentences=validated)",
                       f"{document.id}: {mention.text!r}")
            document.remove_mention(mention)
    return document


def _drop_unvalidated_text(document: Document, kept: set[int], report: Report) -> None:
    """Leave out the sentences outside ``kept`` (they hold no mention any more) and number the rest again."""
    sentences = [s for s in document.sentences if _sentence_number(s) in kept]
    dropped = len(document.sentences) - len(sentences)
    if dropped:
        report.add("sentence outside the validated sentences left out (sentences=validated-text)", str(document.id),
                   dropped)
    document.sentences = []
    for sentence in sentences:
        document.add_sentence(sentence)


def _sentence_number(sentence: Sentence) -> int:
    """ECB+'s number of a sentence: the end of its id (``1_1ecb-8``), else its index in the document."""
    label = str(sentence.id).rpartition("-")[2]
    return int(label) if label.isdigit() else sentence.index


# ---------------------------------------------------------------------------------------------------------------
# One document
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class _Markable:
    id: str
    tag: str
    line: int
    tokens: list[str] = field(default_factory=list)  # t_ids
    attributes: dict[str, str] = field(default_factory=dict)


class _DocumentReader:
    def __init__(self, path: Path, problem: Problems, cross_sentence: str) -> None:
        self.path = path
        self.problem = problem
        self.cross_sentence = cross_sentence

    def read(self) -> Document:
        try:
            root = etree.parse(str(self.path), _PARSER).getroot()
        except etree.XMLSyntaxError as error:
            raise FormatError(str(self.path), error.lineno, f"malformed XML: {error.msg}") from None
        except OSError as error:
            raise FormatError(str(self.path), None, str(error)) from None
        name = root.get("doc_name") or self.path.name
        match = _DOCUMENT_NAME.match(self.path.name) or _DOCUMENT_NAME.match(name)
        stem = name.removesuffix(".xml")
        document = Document(id=stem, language="en", source=str(self.path))
        if match:
            document.topic = match.group(1)
            document.subtopic = match.group(1) + ("ecb+" if match.group(3) == "ecbplus" else "ecb")
        if root.get("doc_id"):
            document.meta["doc_id"] = root.get("doc_id")
        nodes = self._tokens(root, document)
        markables = self._markables(root)
        self._coreference(root, document, nodes, markables, name)
        return document

    def _tokens(self, root: etree._Element, document: Document) -> dict[str, Node]:
        rows: list[tuple[int, int, str, str, int]] = []
        for token in root.iter("token"):
            t_id, sentence, number = token.get("t_id"), token.get("sentence"), token.get("number")
            if not (t_id and sentence and sentence.isdigit() and number and number.isdigit()):
                self.problem(token.sourceline, "token without t_id, sentence or number", etree.tostring(
                    token, encoding="unicode").strip()[:80])
                continue
            text = token.text or ""
            form = _CONTROL_SPACE.sub(" ", text.strip())
            if form != text:
                self.problem.report.add("token text with whitespace at its edges or tabs (trimmed)",
                                        f"{self.path}:{token.sourceline}: {text!r}")
            rows.append((int(sentence), int(number), t_id, form, token.sourceline))
        rows.sort(key=lambda row: (row[0], row[1]))
        nodes: dict[str, Node] = {}
        for sentence_number, tokens in groupby(rows, key=lambda row: row[0]):
            sentence = document.add_sentence(Sentence(id=made_sentence_id(document.id, sentence_number)))
            sentence.comments = [CommentSlot.SENT_ID, CommentSlot.TEXT]
            for _, _, t_id, form, _line in tokens:
                nodes[t_id] = sentence.add_node(Node(str(len(sentence.nodes) + 1), form if form else "_"))
            sentence.text = " ".join(n.form for n in sentence.nodes)
        return nodes

    def _markables(self, root: etree._Element) -> dict[str, _Markable]:
        markables: dict[str, _Markable] = {}
        container = root.find("Markables")
        for element in container if container is not None else ():
            if not isinstance(element.tag, str):
                continue
            m_id = element.get("m_id")
            if m_id is None:
                self.problem(element.sourceline, "markable without m_id", element.tag)
                continue
            markable = _Markable(m_id, element.tag, element.sourceline, attributes=dict(element.attrib))
            markable.tokens = [a.get("t_id", "") for a in element.findall("token_anchor")]
            markables[m_id] = markable
        return markables

    def _coreference(self, root: etree._Element, document: Document, nodes: dict[str, Node],
                     markables: dict[str, _Markable], name: str) -> None:
        chain_of: dict[str, tuple[str, _Markable | None]] = {}  # mention m_id -> (entity id, instance markable)
        relations = root.find("Relations")
        for relation in relations if relations is not None else ():
            if not isinstance(relation.tag, str):
                continue
            if relation.tag == "CROSS_DOC_COREF":
                chain = relation.get("note") or ""
            elif relation.tag == "INTRA_DOC_COREF":
                chain = f"INTRA_{relation.get('r_id')}_{name}"
            else:
                self.problem.report.add("relation other than CROSS_DOC_COREF / INTRA_DOC_COREF not read",
                                        f"{self.path}:{relation.sourceline}: {relation.tag}")
                continue
            targets = [markables.get(t.get("m_id", "")) for t in relation.findall("target")]
            instance = next((t for t in targets if t is not None), None)
            if any(t is None for t in targets) or not targets:
                self.problem(relation.sourceline, "relation target names no markable",
                             f"{relation.tag} r_id={relation.get('r_id')}")
            if not chain:
                chain = instance.attributes.get("instance_id", "") if instance is not None else ""
                if not chain:
                    self.problem(relation.sourceline, "cross-document relation without an instance id",
                                 f"r_id={relation.get('r_id')}")
                    continue
            for source in relation.findall("source"):
                m_id = source.get("m_id", "")
                markable = markables.get(m_id)
                if markable is None or not markable.tokens:
                    self.problem(source.sourceline, "relation source names no mention",
                                 f"{relation.tag} r_id={relation.get('r_id')} source m_id={m_id}")
                elif m_id in chain_of:
                    self.problem.report.add("mention in two relations (kept in the first)",
                                            f"{self.path}:{source.sourceline}: m_id={m_id}")
                else:
                    chain_of[m_id] = (chain, instance)
        entities: dict[str, Entity] = {}
        for markable in sorted((m for m in markables.values() if m.tokens), key=lambda m: self._first(m, nodes)):
            words = self._words(markable, nodes)
            if not words:
                continue
            chain, instance = chain_of.get(markable.id, (f"Singleton_{markable.tag[:3]}_{markable.id}_{name}", None))
            entity = entities.get(chain)
            if entity is None:
                entity = entities[chain] = document.new_entity(chain, self._type(markable, instance))
                if instance is not None and instance.attributes.get("TAG_DESCRIPTOR"):
                    entity.attrs["descriptor"] = escape_value(instance.attributes["TAG_DESCRIPTOR"])
            own = family(markable.tag)
            if own is None:
                self.problem.report.add("mention tag of no known family (typed by its entity)",
                                        f"{self.path}:{markable.line}: {markable.tag}")
            for part in words:
                mention = document.add_mention(entity, part, tag=markable.tag, mid=markable.id)
                if own is not None and own != entity.type:
                    mention.etype = own
                    self.problem.report.add("mention typed otherwise than its chain (kept as its own type)",
                                            f"{self.path}:{markable.line}: {markable.tag} in {entity.type} {chain}")

    def _first(self, markable: _Markable, nodes: dict[str, Node]) -> tuple:
        found = [nodes[t].order for t in markable.tokens if t in nodes]
        return (min(found) if found else (10**9, 0), -len(found))

    def _type(self, markable: _Markable, instance: _Markable | None) -> str | None:
        """The type of the first mention of a chain in the document (what a CorefUD entity can hold); an instance
        of another type or of no known tag is counted."""
        own = family(markable.tag)
        if instance is not None and instance.tag == "UNKNOWN_INSTANCE_TAG":
            self.problem.report.add("chain with an UNKNOWN_INSTANCE_TAG instance (typed by its first mention)",
                                    f"{self.path}:{instance.line}: m_id={instance.id}")
        elif instance is not None and family(instance.tag) != own:
            self.problem.report.add("chain's instance typed otherwise than its first mention here (typed by the "
                                    "mention)", f"{self.path}:{instance.line}: {instance.tag} vs {markable.tag}")
        return own

    def _words(self, markable: _Markable, nodes: dict[str, Node]) -> list[list[Node]]:
        """The mention's words per the cross-sentence policy: one list, several (parts), or none."""
        words = []
        for t_id in markable.tokens:
            node = nodes.get(t_id)
            if node is None:
                self.problem(markable.line, "token anchor outside the document",
                             f"{markable.tag} m_id={markable.id} t_id={t_id}")
                continue
            if node in words:
                self.problem.report.add("token anchored twice in one markable (once)",
                                        f"{self.path}:{markable.line}: m_id={markable.id} t_id={t_id}")
            else:
                words.append(node)
        if not words:
            return []
        by_sentence: dict[int, list[Node]] = {}
        for node in words:
            by_sentence.setdefault(node.sentence.index, []).append(node)  # type: ignore[union-attr]
        if len(by_sentence) == 1:
            return [words]
        self.problem.report.add(f"mention over a sentence break (cross_sentence={self.cross_sentence})",
                                f"{self.path}:{markable.line}: m_id={markable.id}")
        return cross_sentence_parts([by_sentence[k] for k in sorted(by_sentence)], self.cross_sentence)


# ---------------------------------------------------------------------------------------------------------------
# The mention lists of ariecattan/coref
# ---------------------------------------------------------------------------------------------------------------

def write_mentions_json(corpus: Corpus, out: str | Path, report: Report | None = None, name: str = "corpus") -> None:
    """``OUT/<name>_event_gold_mentions.json``, ``OUT/<name>_entity_gold_mentions.json`` and ``OUT/<name>_text.txt``
    with the keys and layout ariecattan/coref reads (its ``data/ecb/ecb_data`` files): mentions of event types
    (ACTION, NEG) in the first, the others in the second; every sentence of every document in the text file."""
    report = report if report is not None else Report()
    if safe_file_names([name]) != [name]:
        raise HarmonizeError(f"mentions-json: name={name!r} is not a plain file name (letters, digits, '.', '_', '-')")
    out = Path(out)
    events: list[dict] = []
    entities: list[dict] = []
    text: list[str] = []
    for document in corpus.documents:
        doc_name = f"{document.id}.xml"
        offsets: dict[Node, int] = {}
        for sentence in document.sentences:
            number = _sentence_number(sentence)
            for position, node in enumerate(sentence.words):
                offsets[node] = len(offsets)
                text.append(f"{doc_name}\t{number}\t{position}\t{node.form}\n")
            text.append("\n")
        for entity in document.entities:
            for mention in entity.mentions:
                record = _mention_record(document, doc_name, entity, mention, offsets, report)
                if record is not None:
                    (events if record["event_entity"] == "event" else entities).append(record)
    atomic_write_text(out / f"{name}_event_gold_mentions.json", json.dumps(events, indent=4, sort_keys=True))
    atomic_write_text(out / f"{name}_entity_gold_mentions.json", json.dumps(entities, indent=4, sort_keys=True))
    atomic_write_text(out / f"{name}_text.txt", "".join(text))


def _mention_record(document: Document, doc_name: str, entity: Entity, mention, offsets: dict[Node, int],
                    report: Report) -> dict | None:
    words = [w for w in mention.words if w in offsets]
    if len(words) < len(mention.words):
        report.add("empty nodes of a mention left out (no token ids)", f"{document.id}: {mention.text!r}")
    if not words:
        return None
    tag = mention.attrs.get("tag") or ""
    kind = mention.entity_type or ""
    if not tag:
        tag = {"event": "ACTION", "human": "HUMAN", "nonhuman": "NON_HUMAN", "loc": "LOC", "time": "TIME"}.get(
            kind, kind.upper())
    sentence = mention.sentence.words
    first, last = sentence.index(words[0]), sentence.index(words[-1])
    topic = document.topic or ""
    return {
        "cluster_desc": unescape_value(entity.attrs.get("descriptor", "")),
        "coref_chain": entity.id,
        "doc_id": doc_name,
        "event_entity": "event" if tag.startswith(EVENT_FAMILIES) or kind == "event" else "entity",
        "full_sentence": " ".join(w.form for w in sentence),
        "is_pronoun": any(w.upos == "PRON" for w in words) and len(words) == 1,
        "left_sentence": " ".join(w.form for w in sentence[:first]),
        "m_id": mention.attrs.get("mid", ""),
        "mention_type": tag[:3],
        "right_sentence": " ".join(w.form for w in sentence[last + 1:]),
        "sent_id": str(_sentence_number(mention.sentence)),
        "subtopic": document.subtopic or "",
        "tags": [],
        "tokens_ids": [offsets[w] for w in words],
        "tokens_str": " ".join(w.form for w in words),
        "topic": topic,
    }
