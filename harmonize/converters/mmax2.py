"""MMAX2 projects: reader and writer.

A document is a project: ``NAME.mmax`` names its words file; ``common_paths.xml`` beside it (as MMAX2 itself looks
it up) gives the folders of the base data, markables and schemes, and the annotation levels with their markable
file pattern (``$_coref_level.xml``, ``$`` being the project's name). Words are ``<word id="word_N">form</word>`` in
document order; a markable's ``span`` lists word ids and ``first..last`` ranges (``word_1..word_3,word_7``: gaps
allowed). Elements are found by local name, so default namespaces (``xmlns="www.eml.org/NameSpaces/coref"``),
attribute order and self-closing or not make no difference.

Model mapping:

* Sentences are the ``sentence`` level's markables; a project without that level is one sentence (reported), words
  outside every sentence markable form sentences of their own (reported). Words are numbered per sentence as in
  CoNLL-U (the writer numbers them ``word_1``... through the document again).
* Mentions are the markables of the coreference levels: those whose scheme declares a ``markable_set`` or
  ``markable_pointer`` attribute, every level such pointers point into (``secmark:markable_27``) and, in a
  pointer-based project, every level whose scheme declares only attributes of a pointer level's scheme (the PCC's
  ``secmark``: its markables that no pointer reaches are singletons, as in the PCC's own CoNLL files); or the levels
  named by the reader option ``levels``. Every other markable attribute is kept in the mention field ``other`` as
  ``key:value`` pairs in key order, as the CorefUD conversion of ParCorFull writes them (``mention:np,nptype:
  antecedent``; a value's spaces as ``+``, separators percent-encoded).
* Set-based coreference: one entity per set value; ``empty`` marks a markable outside every set (non-referring,
  pleonastic), a singleton entity (option ``empty=keep``, CorefUD's choice) or dropped (``empty=drop``).
* Pointer-based coreference: entities are the transitive closure of the pointers (anaphor -> antecedent); ids are
  unique per level only, and ``level:markable_N`` points into another level. ``a;b`` (an ambiguous antecedent)
  links to ``a`` and keeps the whole list in ``other`` (``ambiguous_antecedents``); a pointer to a markable that does
  not exist is reported and not followed. A markable pointing nowhere starts or joins no chain: a singleton entity.
* A markable over several sentences cannot be one CorefUD mention. Option ``cross_sentence``: ``first-part``
  (default; the official CorefUD conversion of ParCorFull) keeps its words in the first of them, ``parts`` makes
  each sentence's words a mention of the same entity, ``drop`` leaves it out; each is counted.

Entity ids are ``e1``, ``e2``... in the order of their first mentions; the document id is the project's name.

The writer makes one project folder per document (``NAME.mmax``, ``common_paths.xml``, ``Basedata/``,
``Markables/`` with a ``sentence`` and a set-based ``coref`` level, ``Schemes/`` declaring the attributes), which
MMAX2 opens for correction. What MMAX2 cannot hold is counted in the report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from harmonize.converters.choices import CROSS_SENTENCE_POLICIES, MMAX2_EMPTY, cross_sentence_parts
from harmonize.converters.losses import Holds, report_unheld
from harmonize.converters.xmltext import escape, quoteattr
from harmonize.errors import FormatError, Problems, Report, check_choice
from harmonize.io import DocumentFiles, atomic_write_text, paused_gc
from harmonize.schemas.model import CommentSlot, Corpus, Document, Entity, Mention, Node, Sentence, made_sentence_id

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True,
                          remove_comments=True)
_WORD_ID = re.compile(r"[^.,\s]+")
_OTHER_ESCAPED = re.compile(r"[%\-()|,:=+\s]", re.ASCII)
_OTHER_UNESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
SENTENCE_LEVEL = "sentence"
_NOT_ATTRIBUTES = frozenset({"id", "span", "mmax_level"})
_COREF_TYPES = ("markable_set", "markable_pointer")


def project_files(path: Path) -> list[Path]:
    """The MMAX2 projects (``.mmax`` files) under ``path`` at any depth, or ``path`` itself where it is one."""
    if path.is_file():
        return [path]
    return sorted(path.rglob("*.mmax"))


def read_mmax2(path: str | Path, lenient: bool = False, report: Report | None = None, levels: str = "",
               cross_sentence: str = "first-part", empty: str = "keep") -> Corpus:
    """Read one ``.mmax`` project, or every project under a folder, into a `Corpus`."""
    check_choice("cross_sentence", cross_sentence, CROSS_SENTENCE_POLICIES)
    check_choice("empty", empty, MMAX2_EMPTY)
    report = report if report is not None else Report()
    root = Path(path)
    projects = project_files(root)
    if not projects:
        raise FormatError(str(root), None, "no MMAX2 project here (a .mmax file)")
    requested = tuple(name.strip() for name in levels.split(",") if name.strip())
    corpus = Corpus(meta={"source": str(root)})
    with paused_gc():
        for project in projects:
            document = _ProjectReader(project, Problems(str(project), lenient, report), requested, cross_sentence,
                                      empty).read()
            if document is not None:
                corpus.documents.append(document)
    return corpus


def _local(element: etree._Element) -> str:
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


@dataclass
class _Level:
    name: str
    file: Path
    scheme: Path | None
    markables: dict[str, _Markable] = field(default_factory=dict)


@dataclass
class _Markable:
    level: str
    id: str
    words: list[int]
    attributes: dict[str, str]
    file: str
    line: int | None


class _ProjectReader:
    def __init__(self, project: Path, problem: Problems, levels: tuple[str, ...], cross_sentence: str,
                 empty: str) -> None:
        self.project = project
        self.problem = problem
        self.report = problem.report
        self.requested = levels
        self.scheme_types: dict[str, dict[str, str]] = {}
        self.cross_sentence = cross_sentence
        self.empty = empty
        self.name = project.stem

    def problem_at(self, file: str, line: int | None, reason: str, detail: str = "") -> None:
        Problems(file, self.problem.lenient, self.report)(line, reason, detail)

    def _parse(self, path: Path) -> etree._Element | None:
        """An XML file's root; a missing or malformed file is a problem naming it (and its line)."""
        if not path.is_file():
            self.problem_at(str(path), None, "file missing")
            return None
        try:
            # From bytes: lxml then reports bad encoding as a syntax error with its line (from a file name it
            # raises a bare OSError).
            root = etree.fromstring(path.read_bytes(), _PARSER, base_url=str(path))
            self.report.opened(path)
            return root
        except etree.XMLSyntaxError as error:
            self.problem_at(str(path), error.lineno, f"malformed XML: {error.msg}")
            return None

    # -- project, paths, words ---------------------------------------------------------------------------------
    def read(self) -> Document | None:
        project_root = self._parse(self.project)
        if project_root is None:
            return None
        words_name = next((e.text.strip() for e in project_root.iter() if _local(e) == "words" and e.text), None)
        if not words_name:
            self.problem(None, "project names no words file", "<words> is missing or empty")
            return None
        paths = self.project.parent / "common_paths.xml"
        common = self._parse(paths)
        if common is None:
            return None
        folders = {_local(e): (e.text or "").strip() for e in common if _local(e).endswith("_path")}
        self.markable_folder = self.project.parent / folders.get("markable_path", "")
        self.scheme_folder = self.project.parent / folders.get("scheme_path", "")
        levels: dict[str, _Level] = {}
        for element in common.iter():
            if _local(element) == "level" and element.get("name") and element.text:
                scheme = element.get("schemefile")
                levels[element.get("name")] = _Level(
                    element.get("name"), self.markable_folder / element.text.strip().replace("$", self.name),
                    self.scheme_folder / scheme if scheme else None)
        words = self._words(self.project.parent / folders.get("basedata_path", "") / words_name)
        if words is None:
            return None
        self.word_ids, self.forms = words
        self.index_of = {word_id: i for i, word_id in enumerate(self.word_ids)}
        coreference = self._coreference_levels(levels)
        if coreference is None:
            return None
        document = Document(id=self.name, source=str(self.project))
        sentences = self._sentences(levels.get(SENTENCE_LEVEL))
        self._build(document, sentences, coreference)
        return document

    def _words(self, path: Path) -> tuple[list[str], list[str]] | None:
        root = self._parse(path)
        if root is None:
            return None
        ids: list[str] = []
        forms: list[str] = []
        # Any namespace, or none; at any depth: ParCorFull 1.0 wraps some files in <html><body> (CorefUD 1.1's fix).
        for element in root.iter("{*}word"):
            word_id = element.get("id")
            form = (element.text or "").strip()
            if not word_id or not form:
                self.problem_at(str(path), element.sourceline, "word without id or text",
                                etree.tostring(element, encoding="unicode").strip())
                continue
            ids.append(word_id)
            forms.append(form)
        if not ids:
            self.problem_at(str(path), None, "no words")
            return None
        return ids, forms

    # -- levels and markables ----------------------------------------------------------------------------------
    def _coreference_levels(self, levels: dict[str, _Level]) -> list[tuple[_Level, str | None, str | None]] | None:
        """(level, its set attribute, its pointer attribute) for every level whose markables are mentions."""
        chosen: dict[str, tuple[str | None, str | None]] = {}
        for name, level in levels.items():
            if self.requested and name not in self.requested:
                continue
            kinds = self._scheme_kinds(level)
            set_attribute = next((a for a, kind in kinds.items() if kind == "markable_set"), None)
            pointer_attribute = next((a for a, kind in kinds.items() if kind == "markable_pointer"), None)
            if self.requested or set_attribute or pointer_attribute:
                chosen[name] = (set_attribute, pointer_attribute)
        for name in self.requested:
            if name not in levels:
                self.problem(None, "no such level", f"{name!r} is not among {', '.join(levels)}")
        result = []
        for name, (set_attribute, pointer_attribute) in chosen.items():
            self._markables(levels[name])
            result.append((levels[name], set_attribute, pointer_attribute))
        # Levels that pointers point into take part too (the PCC's secmark), and, unless levels were named, the
        # levels whose scheme declares only attributes of a pointer level's scheme: the same kind of markable kept
        # apart (secmark's markables that no pointer reaches are mentions too, as the PCC's own CoNLL files have).
        pointer_schemes = [self._scheme_attributes(level) for level, _set, pointer in result if pointer is not None]
        if pointer_schemes and not self.requested:
            for name, level in levels.items():
                attributes = self._scheme_attributes(level)
                if name not in chosen and name != SENTENCE_LEVEL and attributes and any(
                        attributes <= scheme for scheme in pointer_schemes):
                    chosen[name] = (None, None)
                    self._markables(level)
                    result.append((level, None, None))
        for level, _set, pointer in list(result):
            if pointer is None:
                continue
            for markable in level.markables.values():
                for target in markable.attributes.get(pointer, "").split(";"):
                    other, sep, _id = target.partition(":")
                    if sep and other in levels and other not in chosen:
                        chosen[other] = (None, None)
                        self._markables(levels[other])
                        result.append((levels[other], None, None))
        if not result:
            self.problem(None, "no coreference level",
                         "no level declares a markable_set or markable_pointer attribute (name one: -I levels=NAME)")
        return result

    def _scheme_kinds(self, level: _Level) -> dict[str, str]:
        """Attribute name (lower case, as markables write it) -> its type in the level's scheme, for the
        coreference types."""
        return {name: kind for name, kind in self._scheme_types(level).items() if kind in _COREF_TYPES}

    def _scheme_attributes(self, level: _Level) -> frozenset[str]:
        """The names of the attributes the level's scheme declares, other than coreference ones."""
        return frozenset(name for name, kind in self._scheme_types(level).items() if kind not in _COREF_TYPES)

    def _scheme_types(self, level: _Level) -> dict[str, str]:
        if level.scheme is None or not level.scheme.is_file():
            return {}
        if level.name not in self.scheme_types:
            root = self._parse(level.scheme)
            self.scheme_types[level.name] = {} if root is None else {
                e.get("name", "").lower(): e.get("type", "") for e in root.iter() if _local(e) == "attribute"}
        return self.scheme_types[level.name]

    def _markables(self, level: _Level) -> None:
        root = self._parse(level.file)
        if root is None:
            return
        file = str(level.file)
        for element in root.iter("{*}markable"):  # at any depth, as words are
            markable_id = element.get("id")
            if not markable_id:
                self.problem_at(file, element.sourceline, "markable without id")
                continue
            words = self._span(element.get("span", ""), file, element.sourceline)
            if not words:
                continue
            attributes = {k: v for k, v in element.attrib.items() if k not in _NOT_ATTRIBUTES}
            if markable_id in level.markables:
                self.problem_at(file, element.sourceline, "markable id repeated", f"{markable_id}: the first is kept")
                continue
            level.markables[markable_id] = _Markable(level.name, markable_id, words, attributes, file,
                                                     element.sourceline)

    def _span(self, span: str, file: str, line: int | None) -> list[int]:
        """Word positions of a span (``word_1..word_3,word_7``), sorted and unique; [] after reporting a bad one."""
        positions: set[int] = set()
        for part in span.split(","):
            first, sep, last = part.strip().partition("..")
            start = self.index_of.get(first)
            end = self.index_of.get(last) if sep else start
            if start is None or end is None:
                unknown = first if start is None else last
                self.problem_at(file, line, "span names a word that does not exist", f"{unknown!r} in {span!r}")
                return []
            if end < start:
                self.problem_at(file, line, "backward span", repr(span))
                return []
            positions.update(range(start, end + 1))
        return sorted(positions)

    # -- sentences and the document ----------------------------------------------------------------------------
    def _sentences(self, level: _Level | None) -> list[tuple[int, int]]:
        """Sentences as [start, end) word positions covering every word once."""
        total = len(self.word_ids)
        if level is not None:
            self._markables(level)  # a declared level whose file is missing is an error
        if level is None or not level.markables:
            self.report.add("no sentence markables: the document is one sentence", str(self.project))
            return [(0, total)]
        spans = sorted((m.words[0], m.words[-1] + 1) for m in level.markables.values())
        sentences: list[tuple[int, int]] = []
        position = 0
        for start, end in spans:
            if start < position:
                self.report.add("overlapping sentence markables trimmed", f"{level.file}: word {start + 1}")
                start = position
            if start >= end:
                continue
            if start > position:
                self.report.add("words outside every sentence markable made a sentence",
                                f"{level.file}: {self.word_ids[position]}..{self.word_ids[start - 1]}")
                sentences.append((position, start))
            sentences.append((start, end))
            position = end
        if position < total:
            self.report.add("words outside every sentence markable made a sentence",
                            f"{level.file}: {self.word_ids[position]}..{self.word_ids[-1]}")
            sentences.append((position, total))
        return sentences

    def _build(self, document: Document, sentences: list[tuple[int, int]],
               coreference: list[tuple[_Level, str | None, str | None]]) -> None:
        nodes: list[Node] = []
        sentence_of: list[int] = []
        for number, (start, end) in enumerate(sentences, 1):
            sentence = Sentence(id=made_sentence_id(self.name, number), text=" ".join(self.forms[start:end]))
            sentence.comments = [CommentSlot.SENT_ID, CommentSlot.TEXT]
            if number == 1:
                sentence.comments.insert(0, CommentSlot.NEWDOC)
            document.add_sentence(sentence)
            for position in range(start, end):
                nodes.append(sentence.add_node(Node(str(position - start + 1), self.forms[position])))
                sentence_of.append(number - 1)
        # Entities: sets, or the closure of pointers, over (level, markable id).
        parent: dict[tuple[str, str], tuple[str, str]] = {}

        def root(key: tuple[str, str]) -> tuple[str, str]:
            while parent.setdefault(key, key) != key:
                parent[key] = parent[parent[key]]
                key = parent[key]
            return key

        markables: list[_Markable] = []
        by_level = {level.name: level for level, _s, _p in coreference}
        set_members: dict[str, tuple[str, str]] = {}
        for level, set_attribute, pointer_attribute in coreference:
            for markable in level.markables.values():
                key = (level.name, markable.id)
                root(key)
                other_attributes = dict(markable.attributes)
                if set_attribute is not None:
                    value = other_attributes.pop(set_attribute, "empty").strip()
                    if value in ("", "empty"):
                        if self.empty == "drop":
                            self.report.add("markable outside every set dropped (empty=drop)",
                                            f"{markable.file}:{markable.line}: {markable.id}")
                            continue
                    else:
                        first = set_members.setdefault(f"{level.name}\t{value}", key)
                        parent[root(key)] = root(first)
                if pointer_attribute is not None:
                    value = other_attributes.pop(pointer_attribute, "").strip()
                    targets = [t.strip() for t in value.split(";") if t.strip() and t.strip() != "empty"]
                    if len(targets) > 1:
                        other_attributes["ambiguous_antecedents"] = ";".join(targets)
                        self.report.add("ambiguous antecedent list: linked to the first, the list kept",
                                        f"{markable.file}:{markable.line}: {value}")
                    if targets:
                        target_level, sep, target_id = targets[0].partition(":")
                        if not sep:
                            target_level, target_id = level.name, targets[0]
                        target = by_level.get(target_level)
                        if target is None or target_id not in target.markables:
                            self.problem_at(markable.file, markable.line, "pointer to a markable that does not exist",
                                            f"{markable.id} -> {targets[0]}")
                        else:
                            parent[root(key)] = root((target_level, target_id))
                if other_attributes.get("split") == "split reference":
                    # ParCorFull marks a split antecedent without naming the antecedents: nothing to link.
                    self.report.add("split reference kept as the attribute split (no antecedent list to link)",
                                    f"{markable.file}:{markable.line}: {markable.id}")
                markable.attributes = other_attributes
                markables.append(markable)
        # Mentions, split where a markable spans sentences.
        groups: dict[tuple[str, str], list[tuple[list[Node], _Markable]]] = {}
        for markable in markables:
            parts: dict[int, list[Node]] = {}
            for position in markable.words:
                parts.setdefault(sentence_of[position], []).append(nodes[position])
            pieces = list(parts.values())
            if len(pieces) > 1:
                self.report.add(f"markable over {len(pieces) if len(pieces) < 3 else 'several'} sentences "
                                f"({self.cross_sentence})", f"{markable.file}:{markable.line}: {markable.id}")
                pieces = cross_sentence_parts(pieces, self.cross_sentence)
                if not pieces:
                    continue
            group = groups.setdefault(root((markable.level, markable.id)), [])
            group.extend((piece, markable) for piece in pieces)
        ordered = sorted(groups.values(), key=lambda group: min(_first_word(words) for words, _m in group))
        for number, group in enumerate(ordered, 1):
            entity = document.new_entity(f"e{number}")
            for words, markable in group:
                other = other_value(markable.attributes)
                document.add_mention(entity, words, **({"other": other} if other else {}))


def _first_word(words: list[Node]) -> tuple[int, int, int]:
    return (words[0].order[0], words[0].position, -len(words))


def other_value(attributes: dict[str, str]) -> str:
    """Markable attributes as the CorefUD ``other`` field: ``key:value`` in key order, a value's spaces as ``+``
    and its separators percent-encoded (``position:non%2Dsubject,split:split+reference``)."""
    items = []
    for key in sorted(attributes):
        value = _OTHER_ESCAPED.sub(lambda m: "+" if m.group() == " " else f"%{ord(m.group()):02X}",
                                   attributes[key])
        items.append(f"{key}:{value}")
    return ",".join(items)


def other_attributes(value: str) -> dict[str, str]:
    """The attributes of an ``other`` field (inverse of `other_value`); items without ``:`` are skipped."""
    result = {}
    for item in value.split(","):
        key, sep, text = item.partition(":")
        if sep and key:
            result[key] = _OTHER_UNESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text.replace("+", " "))
    return result


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------

_COMMON_PATHS = """<?xml version="1.0" encoding="UTF-8"?>
<common_paths>
<basedata_path>Basedata/</basedata_path>
<scheme_path>Schemes/</scheme_path>
<style_path>Styles/</style_path>
<customization_path>Customizations/</customization_path>
<markable_path>Markables/</markable_path>
<annotations>
<level name="coref" schemefile="coref_scheme.xml">$_coref_level.xml</level>
<level name="sentence" schemefile="sentence_scheme.xml">$_sentence_level.xml</level>
</annotations>
</common_paths>
"""


def write_mmax2(corpus: Corpus, out: str | Path, report: Report | None = None) -> None:
    """Write each document as an MMAX2 project folder ``OUT/<name>/``."""
    files = mmax2_files(Path(out), report if report is not None else Report())
    for document in corpus.documents:
        files.add(document)
    files.publish()


def mmax2_files(out: Path, report: Report) -> DocumentFiles:
    """`write_mmax2` a document at a time (``add``, then ``publish``)."""
    return DocumentFiles(out, lambda document, folder, name, report: _write_project(document, folder / name, name,
                                                                                     report), report)


def _write_project(document: Document, folder: Path, name: str, report: Report) -> None:
    word_number: dict[Node, int] = {}
    words = ['<?xml version="1.0" encoding="UTF-8"?>\n<words>\n']
    sentences = ['<?xml version="1.0" encoding="UTF-8"?>\n<markables xmlns="www.eml.org/NameSpaces/sentence">\n']
    count = 0
    for index, sentence in enumerate(document.sentences):
        first = count + 1
        for node in sentence.nodes:
            if node.is_empty:
                continue
            count += 1
            word_number[node] = count
            words.append(f"<word id=\"word_{count}\">{escape(node.form)}</word>\n")
        if count >= first:
            sentences.append(f'<markable id="markable_{index}" span="word_{first}..word_{count}" '
                             f'mmax_level="sentence" orderid="{index}"/>\n')
    words.append("</words>\n")
    sentences.append("</markables>\n")
    attribute_names: set[str] = set()
    markables = ['<?xml version="1.0" encoding="UTF-8"?>\n<markables xmlns="www.eml.org/NameSpaces/coref">\n']
    number = 0
    written: dict[Mention, list[Node]] = {}
    moved_fields = 0
    for entity_number, entity in enumerate(document.entities):
        for mention in entity.mentions:
            numbers = [word_number[w] for w in mention.words if w in word_number]
            if not numbers:
                report.add("mention of empty nodes only not written (MMAX2 words are tokens)",
                           f"{document.id}: {entity.id}")
                continue
            if len(numbers) < len(mention.words):
                report.add("empty nodes left out of mentions (MMAX2 words are tokens)", f"{document.id}: {entity.id}")
            number += 1
            written[mention] = [w for w in mention.words if w in word_number]
            attributes = _mention_attributes(mention)
            moved_fields += _fields_changed(mention.attrs, attributes)
            attribute_names.update(attributes)
            rendered = "".join(f" {key}={quoteattr(value)}" for key, value in sorted(attributes.items()))
            markables.append(f'<markable id="markable_{number}" span="{_span_text(numbers)}" '
                             f'coref_class="set_{entity_number}" mmax_level="coref"{rendered}/>\n')
    markables.append("</markables>\n")
    if moved_fields:
        report.add(FIELDS_AS_OTHER, str(document.id), moved_fields)
    report_unheld(document, _HOLDS, report, "MMAX2", written, name, _read_back_ids(written, word_number),
                  dict.fromkeys(("language", "genre", "topic", "subtopic")), count_id=False)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(folder / f"{name}.mmax",
                      f'<?xml version="1.0" encoding="UTF-8"?>\n<mmax_project>\n<words>{name}_words.xml</words>\n'
                      "<keyactions/>\n<gestures/>\n</mmax_project>\n")
    atomic_write_text(folder / "common_paths.xml", _COMMON_PATHS)
    atomic_write_text(folder / "Basedata" / f"{name}_words.xml", "".join(words))
    atomic_write_text(folder / "Markables" / f"{name}_sentence_level.xml", "".join(sentences))
    atomic_write_text(folder / "Markables" / f"{name}_coref_level.xml", "".join(markables))
    atomic_write_text(folder / "Schemes" / "sentence_scheme.xml",
                      '<?xml version="1.0" encoding="UTF-8"?>\n<annotationscheme>\n</annotationscheme>\n')
    declared = "".join(f' <attribute id="level_{key}" name="{key}" type="freetext" text=""/>\n'
                       for key in sorted(attribute_names))
    atomic_write_text(folder / "Schemes" / "coref_scheme.xml",
                      '<?xml version="1.0" encoding="UTF-8"?>\n<annotationscheme>\n'
                      ' <attribute id="level_coref_class" name="coref_class" type="markable_set" color="green" '
                      'width="2" style="lcurve"/>\n' + declared + "</annotationscheme>\n")


# MMAX2 keeps the word forms and the mentions with their fields (as markable attributes) and nothing else.
_HOLDS = Holds(mention_fields=True)
FIELDS_AS_OTHER = "mention fields written as markable attributes (MMAX2 reads them back as one other field)"


def _mention_attributes(mention: Mention) -> dict[str, str]:
    """The markable attributes of a mention: its fields, the items of its ``other`` field each an attribute."""
    attributes: dict[str, str] = {}
    for key, value in mention.attrs.items():
        if key == "other":
            attributes.update(other_attributes(value))
        else:
            attributes[key] = value
    return attributes


def _fields_changed(fields: dict[str, str], attributes: dict[str, str]) -> int:
    """How many of a mention's fields read back otherwise: the reader puts every attribute into ``other``."""
    back = {"other": other_value(attributes)} if attributes else {}
    return sum(1 for key in fields.keys() | back.keys() if fields.get(key) != back.get(key))


def _read_back_ids(written: dict[Mention, list[Node]], word_number: dict[Node, int]) -> dict[Entity, str]:
    """The ids the reader gives the entities: e1, e2, ... in order of their first written word."""
    first: dict[Entity, tuple[int, int]] = {}
    for mention, nodes in written.items():
        entity = mention.entity
        assert entity is not None
        key = (word_number[nodes[0]], -len(nodes))
        first[entity] = min(first.get(entity, key), key)
    ordered = sorted(first, key=lambda entity: first[entity])
    return {entity: f"e{number}" for number, entity in enumerate(ordered, 1)}


def _span_text(numbers: list[int]) -> str:
    """``word_3..word_5,word_8`` for word numbers in order: runs of consecutive words as ranges."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][-1] + 1 == number:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ",".join(f"word_{run[0]}" if len(run) == 1 else f"word_{run[0]}..word_{run[-1]}" for run in runs)
