"""brat standoff (``NAME.ann`` beside ``NAME.txt``): reader and writer.

``.ann`` lines: ``T3<TAB>TYPE START END[;START END...]<TAB>text`` (a text-bound annotation, discontinuous with
``;``), ``R1<TAB>TYPE Arg1:T3 Arg2:T5`` (a binary relation), ``*<TAB>TYPE T1 T2 ...`` (an equivalence), and others
(``E``, ``A``, ``N``, ``#``) that are not coreference. Offsets are characters of the ``.txt``.

In the model (mapped here, in one place):

* words: the ``.txt``'s white-space separated tokens, one sentence per line (``-I tokens=whitespace``, the default:
  LitBank's pretokenized texts), the sentences and words of `harmonize.converters.text`'s splitter
  (``-I tokens=rules``), or of a UDPipe model's tokenizer (``-I tokens=parser -I tokenizer=udpipe:MODEL``); spacing kept, so the ``.txt`` is rebuilt exactly. A T span edge inside a word is moved
  out to the word's edge (counted).
* mentions: every T line, its type in the mention attribute ``mtype``; coreference, in one of the encodings brat
  users use (``-I coref=``, found by itself where unambiguous): ``equiv`` (``*`` lines: each set is an entity),
  ``relation`` (binary relations of the type ``-I relation=`` (default ``Coreference``) link mentions into
  entities), or ``entity-label`` (LitBank: a second T line on the same span whose type names the entity,
  ``Sir_Walter_Elliot-0``; kept as the entity attribute ``label``); a mention in no entity is a singleton.
* LitBank's mention types (``PROP_PER``: PROP, NOM or PRON and an ACE category) give the entity type as the
  official CorefUD English-LitBank has it (`LITBANK_TYPES`: PER person; FAC, GPE, LOC place; VEH object; ORG
  organization); a mention whose category differs from its entity's first mention keeps its own as its type.
* R lines that are not coreference (LitBank's ``cop`` and ``appos``) are kept as `Bridge` links labelled with
  their type, from the Arg1 mention to the entity of the Arg2 mention.

Writing gives ``NAME.txt`` (the document's text, one sentence per line where it was read so) and ``NAME.ann`` with a
T line per mention (type: ``mtype``, else the entity type, else ``Mention``), coreference in the encoding it was
read in (new documents: ``equiv``), bridges as R lines to the mention they were read with, else the nearest mention
of their antecedent entity before the anaphor (else the first). Empty nodes have no characters: their mentions are not written (counted).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from harmonize.converters.corefud_values import escape_value, unescape_value
from harmonize.converters.losses import FIELD_COMMENTS, SPACING_KEYS, Holds, report_unheld, unheld_reason
from harmonize.converters.surface import document_text
from harmonize.converters.text import document_from_text, tokenized
from harmonize.errors import FormatError, Problems, Report, check_choice
from harmonize.io import BOM_READ, DocumentFiles, atomic_write_text, decode, paused_gc, read_text
from harmonize.schemas.model import Bridge, Corpus, Document, Entity, Mention, Node, made_sentence_id

TOKENS = ("whitespace", "rules", "parser")
COREF = ("auto", "equiv", "relation", "entity-label")
MENTION_TYPE = "mtype"
LABEL = "label"
META_ENCODING = "brat_coreference"
META_TARGETS = "brat_relation_targets"
_LABEL = re.compile(r".+-\d+\Z")  # LitBank's entity labels: the name and a number
_LITBANK_MENTION_TYPE = re.compile(r"(?:PROP|NOM|PRON)_([A-Z]+)\Z")
# LitBank's ACE categories as CorefUD 1.x's English-LitBank types them (checked against its dev file).
LITBANK_TYPES = {"PER": "person", "FAC": "place", "GPE": "place", "LOC": "place", "VEH": "object",
                 "ORG": "organization"}
_SPAN = re.compile(r"(\d+) (\d+)\Z")

EDGE_MOVED = "span edge inside a word moved out to the word's edge"


@dataclass
class _TextBound:
    id: str
    type: str
    spans: list[tuple[int, int]]
    line: int


def ann_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.ann"))


def ann_for(path: Path) -> Path:
    """The ``.ann`` file a user's path names: ``NAME.ann`` itself, or the pair's ``NAME.txt``, or ``NAME``."""
    if path.suffix == ".ann" or path.is_dir():
        return path
    candidate = path.with_suffix(".ann") if path.suffix == ".txt" else path.with_name(path.name + ".ann")
    return candidate if candidate.is_file() else path


def _parse_ann(text: str, problem: Problems) -> tuple[list[_TextBound], list[tuple[str, str, str, int]],
                                                      list[tuple[str, list[str], int]]]:
    bounds: list[_TextBound] = []
    relations: list[tuple[str, str, str, int]] = []
    equivalences: list[tuple[str, list[str], int]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        identifier = fields[0]
        if identifier.startswith("T"):
            if len(fields) < 2:
                problem(number, "malformed T line", line[:60])
                continue
            kind, _, offsets = fields[1].partition(" ")
            spans = []
            for piece in offsets.split(";"):
                match = _SPAN.match(piece.strip())
                if match is None or int(match[1]) > int(match[2]):
                    spans = []
                    break
                spans.append((int(match[1]), int(match[2])))
            if not kind or not spans:
                problem(number, "malformed T line", line[:60])
                continue
            bounds.append(_TextBound(identifier, kind, spans, number))
        elif identifier.startswith("R"):
            parts = fields[1].split() if len(fields) > 1 else []
            arguments = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
            if len(parts) != 3 or set(arguments) != {"Arg1", "Arg2"}:
                problem(number, "malformed R line", line[:60])
                continue
            relations.append((parts[0], arguments["Arg1"], arguments["Arg2"], number))
        elif identifier.startswith("*"):
            parts = fields[1].split() if len(fields) > 1 else []
            if len(parts) < 3:
                problem(number, "malformed equivalence line", line[:60])
                continue
            equivalences.append((parts[0], parts[1:], number))
        elif identifier[:1] in ("E", "A", "M", "N", "#"):
            problem.report.add("brat annotation that is not coreference (not read)", f"{problem.path}:{number}")
        else:
            problem(number, "unknown annotation line", line[:60])
    return bounds, relations, equivalences


def _encoding(coref: str, bounds: list[_TextBound], relations, equivalences, relation: str) -> str:
    if coref != "auto":
        return coref
    if equivalences:
        return "equiv"
    if any(kind == relation for kind, _a, _b, _n in relations):
        return "relation"
    spans: dict[tuple, list[str]] = {}
    for bound in bounds:
        spans.setdefault(tuple(bound.spans), []).append(bound.type)
    if any(len(types) > 1 and any(_LABEL.match(t) for t in types) for types in spans.values()):
        return "entity-label"
    return "equiv"  # nothing links mentions: every mention is a singleton


def whitespace_sentences(text: str) -> list[list[tuple[int, int]]]:
    """One sentence per non-blank line, words at white space (pretokenized text), as character offsets."""
    sentences, position = [], 0
    for line in text.split("\n"):
        words = [(m.start() + position, m.end() + position) for m in re.finditer(r"\S+", line)]
        position += len(line) + 1
        if words:
            sentences.append(words)
    return sentences


def read_brat(path: str | Path, lenient: bool = False, report: Report | None = None, tokens: str = "whitespace",
              coref: str = "auto", relation: str = "Coreference", tokenizer: str = "") -> Corpus:
    """A ``.ann`` file (its ``.txt`` beside it) as a one-document corpus, or every ``.ann`` under a folder."""
    check_choice("tokens", tokens, TOKENS)
    check_choice("coref", coref, COREF)
    report = report if report is not None else Report()
    path = ann_for(Path(path))
    files = ann_files(path) if path.is_dir() else [path]
    corpus = Corpus(meta={"source": str(path)})
    with paused_gc():
        for file in files:
            corpus.documents.append(_read_one(file, Problems(str(file), lenient, report), tokens, coref, relation,
                                              tokenizer))
    return corpus


def _standoff_text(txt: Path, report: Report) -> str:
    """The text the offsets count in, as brat reads it: line endings as saved (a CRLF is two characters), a
    byte-order mark read as a space, so that it counts as brat counts it and joins no word."""
    text = decode(txt.read_bytes(), str(txt), normalize=False)
    if text.startswith("\ufeff"):
        report.add(BOM_READ, str(txt))
        text = " " + text[1:]
    return text


def _read_one(ann: Path, problem: Problems, tokens: str, coref: str, relation: str, tokenizer: str) -> Document:
    txt = ann.with_suffix(".txt")
    if not txt.is_file():
        raise FormatError(str(ann), None, f"no text beside it: {txt.name} not found")
    text = _standoff_text(txt, problem.report)
    problem.report.opened(ann)
    problem.report.opened(txt)
    if tokens == "whitespace":
        sentences = whitespace_sentences(text)
    else:
        if tokens == "parser" and not tokenizer:
            raise FormatError(str(ann), None, "tokens=parser needs -I tokenizer=udpipe:MODEL (or convert --parse)")
        sentences = tokenized(text, tokenizer if tokens == "parser" else "rules", str(txt), problem.report)
    document = document_from_text(text, ann.stem, sentences)
    bounds, relations, equivalences = _parse_ann(read_text(ann, problem.report), problem)
    encoding = _encoding(coref, bounds, relations, equivalences, relation)
    document.meta[META_ENCODING] = encoding
    words = [n for s in document.sentences for n in s.nodes]
    starts = [n.start_char for n in words]
    by_span: dict[tuple, list[_TextBound]] = {}
    for bound in bounds:
        by_span.setdefault(tuple(bound.spans), []).append(bound)
    pending: dict[str, tuple[list[Node], str]] = {}  # T id -> (words, type) of the mentions to make
    same_as: dict[str, str] = {}  # a T line repeating another's span and type -> that one
    labels: dict[str, str] = {}  # T id -> entity label (entity-label encoding)
    first_on: dict[tuple, str] = {}
    label_lines: list[_TextBound] = []
    for bound in bounds:
        if bound.spans[-1][1] > len(text):
            problem(bound.line, "span beyond the text", f"{bound.id} ends at {bound.spans[-1][1]}, text has "
                                                         f"{len(text)} characters")
            continue
        key = tuple(bound.spans)
        if encoding == "entity-label" and _LABEL.match(bound.type) and len(by_span[key]) > 1:
            label_lines.append(bound)  # the entity label of the mention on the same span
            continue
        nodes = _nodes(bound, words, starts, problem)
        if not nodes:
            problem(bound.line, "span covers no word", f"{bound.id} {bound.spans}")
            continue
        if any(n.sentence is not nodes[0].sentence for n in nodes):
            problem(bound.line, "span over several sentences", f"{bound.id}: kept in its first sentence")
            nodes = [n for n in nodes if n.sentence is nodes[0].sentence]
        twin = first_on.get((key, bound.type))
        if twin is not None:
            problem.report.add("T line repeated on one span with one type (read once)", f"{ann}:{bound.line}")
            same_as[bound.id] = twin
            continue
        first_on[(key, bound.type)] = bound.id
        pending[bound.id] = (nodes, bound.type)
        if encoding == "entity-label":
            label = next((b.type for b in by_span[key] if _LABEL.match(b.type) and b is not bound), None)
            if label is not None:
                labels[bound.id] = label
    for bound in label_lines:  # relations may name a mention by its label's T line
        partner = next((b.id for b in by_span[tuple(bound.spans)] if b.id in pending), None)
        if partner is not None:
            same_as[bound.id] = partner
    groups = _entities(encoding, set(pending), labels, relations, equivalences, relation, problem, same_as)
    mentions = _build(document, pending, groups, labels)
    mentions.update({twin: mentions[original] for twin, original in same_as.items() if original in mentions})
    for kind, arg1, arg2, number in relations:
        if encoding == "relation" and kind == relation:
            continue
        anaphor, target = mentions.get(same_as.get(arg1, arg1)), mentions.get(same_as.get(arg2, arg2))
        if anaphor is None or target is None or target.entity is None:
            problem(number, "relation to an unknown T line", f"{kind} {arg1} {arg2}")
            continue
        if anaphor.entity is target.entity:
            problem.report.add("relation inside one entity (not kept)", f"{ann}:{number}: {kind}")
        elif any(b.anaphor is anaphor and b.antecedent is target.entity and b.label == kind
                 for b in document.bridges):
            problem.report.add("relation repeated (read once)", f"{ann}:{number}: {kind}")
        else:
            document.bridges.append(Bridge(anaphor, target.entity, kind))  # type: ignore[arg-type]
            # Which mention of the entity the relation named: format-only, so that it is written back there.
            document.meta.setdefault(META_TARGETS, {})[(_place(anaphor), kind)] = _place(target)
    return document


def _place(mention: Mention) -> tuple:
    return (mention.sentence.index, tuple(w.id for w in mention.words))


def _nodes(bound: _TextBound, words: list[Node], starts: list[int | None], problem: Problems) -> list[Node]:
    import bisect

    nodes: list[Node] = []
    for begin, end in bound.spans:
        first = bisect.bisect_right(starts, begin) - 1  # type: ignore[arg-type]
        if first < 0 or words[first].end_char <= begin:  # type: ignore[operator]
            first += 1
        index = max(first, 0)
        piece = []
        while index < len(words) and words[index].start_char < end:  # type: ignore[operator]
            piece.append(words[index])
            index += 1
        if piece and (piece[0].start_char < begin or piece[-1].end_char > end):  # type: ignore[operator]
            problem.report.add(EDGE_MOVED, f"{problem.path}:{bound.line}: {bound.id}")
        nodes.extend(piece)
    return sorted(set(nodes), key=lambda n: n.order)


def _entities(encoding: str, identifiers: set[str], labels: dict[str, str], relations, equivalences,
              relation: str, problem: Problems, same_as: dict[str, str]) -> list[list[str]]:
    """Groups of T ids (those of ``identifiers``) that are one entity."""
    parent = {identifier: identifier for identifier in identifiers}

    def root(key: str) -> str:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def join(a: str, b: str, number: int) -> None:
        a, b = same_as.get(a, a), same_as.get(b, b)
        if a not in parent or b not in parent:
            problem(number, "coreference with an unknown T line", f"{a} {b}")
            return
        parent[root(b)] = root(a)

    if encoding == "equiv":
        for _kind, members, number in equivalences:
            for other in members[1:]:
                join(members[0], other, number)
    elif encoding == "relation":
        for kind, arg1, arg2, number in relations:
            if kind == relation:
                join(arg2, arg1, number)
    else:
        first: dict[str, str] = {}
        for identifier, label in labels.items():
            join(first.setdefault(label, identifier), identifier, 0)
    groups: dict[str, list[str]] = {}
    for identifier in sorted(identifiers):
        groups.setdefault(root(identifier), []).append(identifier)
    return list(groups.values())


def _build(document: Document, pending: dict[str, tuple[list[Node], str]], groups: list[list[str]],
           labels: dict[str, str]) -> dict[str, Mention]:
    """Entities e1, e2... in the order of their first mentions; returns T id -> mention."""
    def first(group: list[str]) -> tuple:
        return min((pending[i][0][0].order, -len(pending[i][0])) for i in group)

    mentions: dict[str, Mention] = {}
    for number, group in enumerate(sorted(groups, key=first), 1):
        entity = document.new_entity(f"e{number}")
        label = next((labels[i] for i in group if i in labels), None)
        if label is not None:
            entity.attrs[LABEL] = escape_value(label)
        for identifier in sorted(group, key=lambda i: (pending[i][0][0].order, -len(pending[i][0]))):
            nodes, kind = pending[identifier]
            mention = document.add_mention(entity, nodes, **{MENTION_TYPE: escape_value(kind)})
            mentions[identifier] = mention
            category = _LITBANK_MENTION_TYPE.match(kind)
            if category is not None and category[1] in LITBANK_TYPES:
                if entity.type is None:
                    entity.type = LITBANK_TYPES[category[1]]
                elif entity.type != LITBANK_TYPES[category[1]]:
                    mention.etype = LITBANK_TYPES[category[1]]
    return mentions


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------

def format_brat(document: Document, report: Report) -> tuple[str, str]:
    """The document's ``.txt`` and ``.ann`` texts."""
    if META_ENCODING in document.meta:  # read from brat: its text as it was, offsets included
        surface = document_text(document)
        text, offsets = surface.text, surface.offsets
    else:  # one sentence per line, words apart (pretokenized, as LitBank): it reads back with tokens=whitespace
        lines, offsets, position = [], {}, 0
        for sentence in document.sentences:
            forms = []
            for node in (n for n in sentence.nodes if not n.is_empty):
                if forms:
                    position += 1
                offsets[node] = (position, position + len(node.form))
                position += len(node.form)
                forms.append(node.form)
            if forms:
                lines.append(" ".join(forms))
                position += 1
        text = "".join(f"{line}\n" for line in lines)
    encoding = document.meta.get(META_ENCODING, "equiv")
    ann: list[str] = []
    number = 0
    ids: dict[int, str] = {}
    kept: list[Mention] = []
    for entity in document.entities:
        for mention in entity.mentions:
            spans = _char_spans(mention, offsets)
            if not spans:
                report.add("mention on empty nodes only: not written (brat spans are characters)",
                           f"{document.id}: {entity.id}")
                continue
            kept.append(mention)
            if any(node.is_empty for node in mention.words):
                report.add("empty nodes left out of a mention (brat spans are characters)",
                           f"{document.id}: {entity.id}")
            covered = ";".join(f"{b} {e}" for b, e in spans)
            shown = " ".join(text[b:e] for b, e in spans)
            kind = unescape_value(mention.attrs.get(MENTION_TYPE, "")) or entity.type or "Mention"
            ids[id(mention)] = f"T{number}"
            ann.append(f"T{number}\t{kind} {covered}\t{shown}")
            number += 1
    _report_shared_lines(document, ann, {ids[id(m)]: m.entity for m in kept}, report)
    if encoding == "entity-label":
        for entity in document.entities:
            label = unescape_value(entity.attrs.get(LABEL, "")) or f"entity-{entity.id}"
            for mention in entity.mentions:
                if id(mention) in ids and (LABEL in entity.attrs or len(entity.mentions) > 1):
                    line = ann[int(ids[id(mention)][1:])]
                    spans_text = line.split("\t", 1)[1].split(" ", 1)[1]
                    ann.append(f"T{number}\t{label} {spans_text}")
                    number += 1
    relations = 0
    if encoding == "relation":
        for entity in document.entities:
            written = [m for m in entity.mentions if id(m) in ids]
            for earlier, later in pairwise(written):
                relations += 1
                ann.append(f"R{relations}\tCoreference Arg1:{ids[id(later)]} Arg2:{ids[id(earlier)]}")
    elif encoding == "equiv":
        for entity in document.entities:
            written = [ids[id(m)] for m in entity.mentions if id(m) in ids]
            if len(written) > 1:
                ann.append("*\tCoreference " + " ".join(written))
    targets = document.meta.get(META_TARGETS, {})
    for bridge in document.bridges:
        candidates = [m for m in bridge.antecedent.mentions if id(m) in ids]
        named = targets.get((_place(bridge.anaphor), bridge.label))
        target = next((m for m in candidates if _place(m) == named), None) or _nearest(bridge.anaphor, candidates)
        if id(bridge.anaphor) in ids and target is not None:
            relations += 1
            ann.append(f"R{relations}\t{bridge.label or 'Bridge'} Arg1:{ids[id(bridge.anaphor)]} "
                       f"Arg2:{ids[id(target)]}")
    if document.split_antecedents:
        report.add("split antecedents not written (brat has no place for them)", str(document.id),
                   len(document.split_antecedents))
    if META_ENCODING not in document.meta:
        _report_unheld(document, kept, {id(b) for b in document.bridges if id(b.anaphor) in ids and any(
            id(m) in ids for m in b.antecedent.mentions)}, report)
    return text, "".join(f"{line}\n" for line in ann)


def _report_shared_lines(document: Document, ann: list[str], owner: dict[str, Entity], report: Report) -> None:
    """Mentions of different entities written as the same T line (one span, one type): the reader reads a repeated
    T line once, so an entity some of whose lines another entity wrote first comes back merged into it, and one all
    of whose lines were written first by others comes back as none (counted per entity)."""
    first_owner: dict[str, Entity] = {}
    lines_of: dict[int, list[str]] = {}
    for line in ann:
        name, content = line.split("\t", 1)[0], line.split("\t", 2)[1]
        entity = owner[name]
        first_owner.setdefault(content, entity)
        lines_of.setdefault(id(entity), []).append(content)
    merged = dropped = 0
    for entity in {id(e): e for e in owner.values()}.values():
        shared = [c for c in lines_of[id(entity)] if first_owner[c] is not entity]
        if shared and len(shared) == len(lines_of[id(entity)]):
            dropped += 1
        elif shared:
            merged += 1
    where = str(document.id)
    if merged:
        report.add("brat: mentions of different entities on one span with one type (read back as one T line: their "
                   "entities merged)", where, merged)
    if dropped:
        report.add("brat: entities all of whose mentions share the span and type of another entity's (read back as "
                   "none)", where, dropped)


# Text written one sentence a line, words apart, keeps the words, the sentence breaks and the mentions with their
# types (mtype); the reader makes every sentence's last word end in a newline and the first sentence a paragraph.
_HOLDS = Holds(misc=SPACING_KEYS, comments=True, mention_fields=(MENTION_TYPE,), entity_types=True, mention_types=True,
               bridges=True, split_antecedents=True)


_READ_BACK_OTHERWISE = {
    "entity type": "brat: entity types not written (read back from LitBank's T types alone)",
    "mention type": "brat: mention types not written (read back from LitBank's T types alone)",
    "mention field": "brat: T types written from the entity type (read back as the mention field mtype)",
    "bridge dropped": "brat: bridges without a written anaphor or antecedent mention not written",
    "bridge label": "brat: unlabelled bridges written as Bridge relations",
}


def _report_unheld(document: Document, written: list[Mention], bridges_written: set[int], report: Report) -> None:
    """What brat does not hold of a document from another format (one read from brat is written as it was)."""
    where = str(document.id)
    spacing = 0
    for sentence in document.sentences:
        words = sentence.words
        for word in words:
            back = {"SpacesAfter": "\\n"} if word is words[-1] else {}
            misc = word.misc_view()
            spacing += sum(1 for key in SPACING_KEYS if misc.get(key) != back.get(key))
    changed_comments = 0
    for index, sentence in enumerate(document.sentences):
        comments = Counter(c for c in sentence.comments if isinstance(c, str) and not c.startswith(FIELD_COMMENTS))
        back = Counter([f"# newpar id = {made_sentence_id(document.id, '')}p1"] if index == 0 else [])
        changed_comments += sum(((comments - back) + (back - comments)).values())
    kinds = {m: unescape_value(m.attrs.get(MENTION_TYPE, "")) or (m.entity.type if m.entity else None) or "Mention"
             for m in written}
    entity_types, mention_types = 0, 0
    for entity in document.entities:
        types = [LITBANK_TYPES.get(match[1]) if (match := _LITBANK_MENTION_TYPE.match(kinds[m])) else None
                 for m in entity.mentions if m in kinds]
        if not types:
            continue
        first = next((t for t in types if t is not None), None)
        entity_types += entity.type != first
        mention_types += sum(1 for m, t in zip([m for m in entity.mentions if m in kinds], types)
                             if m.etype != (t if t is not None and t != first else None))
    counts = {
        "MISC": spacing,
        "comment": changed_comments,
        "entity type": entity_types,
        "mention type": mention_types,
        "mention field": sum(1 for m in written if MENTION_TYPE not in m.attrs),  # its type read back as mtype
        "bridge dropped": len(document.bridges) - len(bridges_written),
        "bridge label": sum(1 for b in document.bridges if id(b) in bridges_written and b.label is None),
    }
    for kind, count in counts.items():
        if count:
            report.add(_READ_BACK_OTHERWISE.get(kind) or unheld_reason(kind, "brat"), where, count)
    first_written: dict[Entity, tuple] = {}
    for mention in written:
        key = (mention.words[0].order, -len(mention.words))
        first_written[mention.entity] = min(first_written.get(mention.entity, key), key)  # type: ignore[index]
    ids = {entity: f"e{n}" for n, entity in enumerate(sorted(first_written, key=first_written.__getitem__), 1)}
    report_unheld(document, _HOLDS, report, "brat", written, entity_ids=ids,
                  document_fields=dict.fromkeys(("language", "genre", "topic", "subtopic")), count_id=False)


def _char_spans(mention: Mention, offsets: dict) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for part in mention.parts():
        words = [offsets[n] for n in part if n in offsets]
        if words:
            spans.append((words[0][0], words[-1][1]))
    return spans


def _nearest(anaphor: Mention, candidates: list[Mention]) -> Mention | None:
    before = [m for m in candidates if m.order < anaphor.order]
    return before[-1] if before else (candidates[0] if candidates else None)


def write_brat(corpus: Corpus, out: str | Path, report: Report | None = None) -> None:
    """Each document as ``OUT/<id>.txt`` and ``OUT/<id>.ann``."""
    files = brat_files(Path(out), report if report is not None else Report())
    with paused_gc():
        for document in corpus.documents:
            files.add(document)
    files.publish()


def brat_files(out: Path, report: Report) -> DocumentFiles:
    """`write_brat` a document at a time (``add``, then ``publish``)."""
    return DocumentFiles(out, _write_document, report)


def _write_document(document: Document, out: Path, name: str, report: Report) -> None:
    text, ann = format_brat(document, report)
    atomic_write_text(out / f"{name}.txt", text)
    atomic_write_text(out / f"{name}.ann", ann)
