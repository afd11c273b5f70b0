"""RuCoCo JSON (Russian Coreference Corpus): reader and writer.

One JSON object per text, keys in this order::

    {"entities": [[[start, end], ...], ...],   # per entity its mentions, end-exclusive character offsets
     "includes": [[child, ...], ...],           # parallel to entities: the entities that are parts of entity i
     "text": "..."}

Model mapping:

* Tokens and sentences come from razdel (the natasha project's rule-based Russian segmenter; offline, no model).
  A run of whitespace holding a newline always ends a sentence and starts a paragraph (``# newpar``): razdel would
  join a headline to the first sentence under it. Every mention edge is made a token edge: under the default
  alignment ``split``, a token with a mention edge inside it is cut there (counted); ``strict`` makes such an edge
  an error, ``contract`` and ``expand`` keep razdel's tokens and move the edge to the tokens inside or overlapping
  the span (counted), as spaCy's ``Doc.char_span`` alignment modes do. Tokens hold no whitespace: a span that
  starts or ends on whitespace (a mention ending in a newline run) covers the tokens inside, and the mention
  attribute ``edgespace`` ("0,2") keeps how far it reaches beyond them (counted).
* A mention over a sentence break joins the sentences it spans into one (counted), as CorefUD mentions lie in one
  sentence.
* Every character stays: ``SpaceAfter=No``, UD's ``SpacesAfter`` (newlines) and ``SpacesBefore`` (whitespace
  before the first token) in MISC, so the writer rebuilds the text exactly (`harmonize.converters.surface`).
  ``# text`` is the sentence's text with its newline runs as one space (a comment line holds no newline).
* Entities keep their order as ``e1``, ``e2``...; ``includes``: an entity with two or more parts gets a split
  antecedent (CorefUD ``SplitAnte``), one with a single part a bridge labelled ``includes`` to it (SplitAnte needs
  two); parents stay ordinary entities. Nested mentions and singletons are kept as they are.
* The document id is the file name without ``.json``; the genre is its section (``2009_world_engbus`` -> ``world``).

Bad input (JSON that does not parse, an offset outside the text, a span with start >= end, an ``includes`` index
out of range, an entity including itself, a cycle of includes) is an error naming the file and the place
(``entities[3][1]``); ``lenient`` drops only the broken span or link and counts it.

The writer writes one ``NAME.json`` per document as the corpus files are written (``json.dumps`` with
``ensure_ascii=False``: keys and separators as above, no newline at the end); entities sorted by their sorted
span lists, includes sorted, which is the order of every RuCoCo file. From any corpus: the text is rebuilt from
the tokens, a mention is the characters from its first to its last word; what RuCoCo cannot hold is counted.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path

from harmonize.converters.choices import RUCOCO_ALIGNMENTS
from harmonize.converters.losses import FIELD_COMMENTS, SPACING_KEYS, Holds, report_unheld, unheld_reason
from harmonize.converters.surface import document_text, escape_spaces, set_gap
from harmonize.errors import FormatError, Problems, Report, check_choice
from harmonize.io import DocumentFiles, paused_gc, read_text, text_file, write_documents
from harmonize.schemas.model import INCLUDES, CommentSlot, Corpus, Document, Entity, Node, Sentence, made_sentence_id

_SECTION = re.compile(r"\d{4}_([A-Za-z]+)_")
_BREAK = re.compile(r"\s*\n\s*")  # whitespace holding a newline: a paragraph break
# Mention attribute: how many whitespace characters a span takes before its first and after its last token
# ("0,2" for a mention ending in a newline run), so that the writer gives back the exact offsets.
EDGE_SPACE = "edgespace"
_EDGE_SPACE_VALUE = re.compile(r"(\d+),(\d+)")

CharSpan = tuple[int, int]


@dataclass
class Annotation:
    """A RuCoCo text after checking: entities as lists of spans (broken ones dropped in lenient mode) and the
    includes, parent index -> child indices."""

    text: str
    entities: list[list[CharSpan]]
    includes: list[list[int]]


def json_files(path: Path) -> list[Path]:
    """The ``.json`` files under a folder, at any depth (as the RuCoCo evaluation finds them), in name order."""
    return sorted(p for p in path.rglob("*.json") if p.is_file())


def read_rucoco(path: str | Path, lenient: bool = False, report: Report | None = None,
                alignment: str = "split") -> Corpus:
    """Read one RuCoCo ``.json`` file, or every one under a folder, into a `Corpus`."""
    check_choice("alignment", alignment, RUCOCO_ALIGNMENTS)
    report = report if report is not None else Report()
    root = Path(path)
    files = json_files(root) if root.is_dir() else [root]
    corpus = Corpus(meta={"source": str(root)})
    with paused_gc():
        for file in files:
            problems = Problems(str(file), lenient, report)
            annotation = parse_annotation(read_text(file, report), problems)
            report.opened(file)
            corpus.documents.append(build_document(annotation, file.stem, problems, alignment, str(file)))
    return corpus


# ---------------------------------------------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------------------------------------------

def parse_annotation(data: str, problems: Problems) -> Annotation:
    """The JSON text checked: structure (always an error), then spans and includes (dropped when lenient)."""
    try:
        value = json.loads(data)
    except json.JSONDecodeError as error:
        raise FormatError(problems.path, error.lineno, f"not JSON: {error.msg} (column {error.colno})") from None
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        raise FormatError(problems.path, None, 'not a RuCoCo text: an object with "text", "entities", "includes"')
    text = value["text"]
    raw_entities = value.get("entities", [])
    raw_includes = value.get("includes", [[] for _ in raw_entities])
    if not isinstance(raw_entities, list) or not isinstance(raw_includes, list):
        raise FormatError(problems.path, None, '"entities" and "includes" must be lists')
    if len(raw_includes) != len(raw_entities):
        raise FormatError(problems.path, None, f'"includes" has {len(raw_includes)} entries for '
                                               f"{len(raw_entities)} entities (they are parallel)")
    entities = [_entity_spans(raw, e, text, problems) for e, raw in enumerate(raw_entities)]
    includes = [_children(raw, e, len(entities), problems) for e, raw in enumerate(raw_includes)]
    _break_cycles(includes, problems)
    if any(spans != sorted(spans) for spans in entities) or entities != sorted(entities, key=sorted):
        problems.report.add("entities or spans not in RuCoCo's order (written back sorted, as the corpus files are)",
                            problems.path)
    return Annotation(text, entities, includes)


def _entity_spans(raw: object, e: int, text: str, problems: Problems) -> list[CharSpan]:
    if not isinstance(raw, list):
        raise FormatError(problems.path, None, f"entities[{e}] is not a list of [start, end] spans")
    spans: list[CharSpan] = []
    for m, span in enumerate(raw):
        where = f"entities[{e}][{m}] = {json.dumps(span, ensure_ascii=False)}"
        if not (isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span)):
            problems(None, "span is not [start, end] (two integers)", where)
        elif not 0 <= span[0] < span[1] <= len(text):
            reason = "span with start >= end" if span[0] >= span[1] else "span outside the text"
            problems(None, reason, f"{where} (text of {len(text)} characters)")
        elif not text[span[0]:span[1]].strip():
            problems(None, "span of whitespace only", where)
        elif (span[0], span[1]) in spans:
            problems(None, "span twice in one entity (kept once)", where)
        else:
            spans.append((span[0], span[1]))
    if not spans and raw:
        problems.report.add("entity left without mentions (dropped with its includes)", f"{problems.path}: "
                                                                                         f"entities[{e}]")
    return spans


def _children(raw: object, e: int, count: int, problems: Problems) -> list[int]:
    if not isinstance(raw, list):
        raise FormatError(problems.path, None, f"includes[{e}] is not a list of entity indices")
    children: list[int] = []
    for child in raw:
        where = f"includes[{e}] = {json.dumps(raw)}"
        if type(child) is not int or not 0 <= child < count:
            problems(None, "includes index out of range", f"{where}: {child!r} ({count} entities)")
        elif child == e:
            problems(None, "entity includes itself", where)
        elif child in children:
            problems(None, "includes lists an entity twice (kept once)", where)
        else:
            children.append(child)
    return children


def _break_cycles(includes: list[list[int]], problems: Problems) -> None:
    """Includes form a hierarchy: a link that closes a cycle is an error (lenient: that link is dropped)."""
    state = [0] * len(includes)  # 0 unseen, 1 on the current path, 2 done

    def visit(parent: int, path: list[int]) -> None:
        state[parent] = 1
        for child in list(includes[parent]):
            if state[child] == 1:
                cycle = " -> ".join(str(i) for i in [*path[path.index(child):], parent, child])
                problems(None, "cycle of includes (the closing link dropped)", f"includes: {cycle}")
                includes[parent].remove(child)
            elif state[child] == 0:
                visit(child, [*path, parent])
        state[parent] = 2

    for entity in range(len(includes)):
        if state[entity] == 0:
            visit(entity, [])


# ---------------------------------------------------------------------------------------------------------------
# Tokens, sentences, mentions
# ---------------------------------------------------------------------------------------------------------------

def build_document(annotation: Annotation, name: str, problems: Problems, alignment: str = "split",
                   source: str | None = None) -> Document:
    """The model of one checked text: razdel's sentences and tokens, cut at mention edges, and the coreference."""
    text = annotation.text
    spans = {span: _trimmed(span, text, problems) for spans in annotation.entities for span in spans}
    edge_space = {span: f"{trimmed[0] - span[0]},{span[1] - trimmed[1]}" for span, trimmed in spans.items()
                  if trimmed != span}
    sentences, paragraph_starts = _sentences(text)
    tokens = [token for sentence in sentences for token in sentence]
    if alignment == "split":
        tokens = _cut(tokens, {edge for span in spans.values() for edge in span}, problems)
    sentences = _regroup(tokens, sentences)
    starts = [token[0] for token in tokens]
    placed = {span: _align(trimmed, tokens, starts, alignment, problems) for span, trimmed in spans.items()}
    sentences, paragraph_starts = _join_for_mentions(sentences, paragraph_starts, placed, problems)

    match = _SECTION.match(name)
    document = Document(id=name, language="ru", genre=match.group(1) if match else None, source=source)
    node_at: dict[CharSpan, Node] = {}
    for number, group in enumerate(sentences, 1):
        sentence = Sentence(id=made_sentence_id(name, f"s{number}"),
                            text=_BREAK.sub(" ", text[group[0][0]:group[-1][1]]))
        sentence.comments = ["# newpar", CommentSlot.SENT_ID, CommentSlot.TEXT] if number - 1 in paragraph_starts \
            else [CommentSlot.SENT_ID, CommentSlot.TEXT]
        document.add_sentence(sentence)
        for start, end in group:
            node = sentence.add_node(Node(str(len(sentence.nodes) + 1), text[start:end]))
            node.start_char, node.end_char = start, end
            node_at[start, end] = node
    _spacing(document, text)
    _coreference(document, annotation, placed, node_at, edge_space, problems)
    return document


def _trimmed(span: CharSpan, text: str, problems: Problems) -> CharSpan:
    """The span without whitespace at its edges (tokens hold none; the mention attribute EDGE_SPACE keeps it)."""
    start, end = span
    while text[start].isspace():
        start += 1
    while text[end - 1].isspace():
        end -= 1
    if (start, end) != span:
        problems.report.add(f"mention edge on whitespace (kept in the mention attribute {EDGE_SPACE})",
                            f"{problems.path}: {list(span)} {text[span[0]:span[1]]!r}")
    return start, end


def _sentences(text: str) -> tuple[list[list[CharSpan]], set[int]]:
    """razdel's sentences of each paragraph as lists of token spans, and the indices of paragraph-first ones."""
    from razdel import sentenize, tokenize

    sentences: list[list[CharSpan]] = []
    paragraph_starts: set[int] = set()
    start = 0
    for paragraph_end in [m.start() for m in _BREAK.finditer(text)] + [len(text)]:
        paragraph = text[start:paragraph_end]
        if paragraph.strip():
            paragraph_starts.add(len(sentences))
            for sentence in sentenize(paragraph):
                offset = start + sentence.start
                found = _covering([(offset + t.start, offset + t.stop) for t in tokenize(sentence.text)],
                                  offset, offset + len(sentence.text), text)
                if found:
                    sentences.append(found)
        match = _BREAK.match(text, paragraph_end)
        start = match.end() if match else paragraph_end
    return sentences, paragraph_starts


def _covering(tokens: list[CharSpan], start: int, end: int, text: str) -> list[CharSpan]:
    """The tokens, with a token for each run of characters between them that is not whitespace: no character of
    the text may be lost whatever the segmenter leaves out."""
    result: list[CharSpan] = []
    position = start
    for token in [*tokens, (end, end)]:
        if token[0] > position and not text[position:token[0]].isspace():
            result.extend((position + run.start(), position + run.end())
                          for run in re.finditer(r"\S+", text[position:token[0]]))
        if token[0] < token[1]:
            result.append(token)
        position = max(position, token[1])
    return result


def _cut(tokens: list[CharSpan], edges: set[int], problems: Problems) -> list[CharSpan]:
    """Tokens cut at every mention edge inside them (counted per token cut)."""
    ordered = sorted(edges)
    result: list[CharSpan] = []
    for start, end in tokens:
        inside = ordered[bisect_right(ordered, start):bisect_left(ordered, end)]
        if not inside:
            result.append((start, end))
            continue
        problems.report.add("token cut at a mention edge (alignment=split)",
                            f"{problems.path}: {start}-{end} at {', '.join(map(str, inside))}")
        bounds = [start, *inside, end]
        result.extend(zip(bounds, bounds[1:]))
    return result


def _regroup(tokens: list[CharSpan], sentences: list[list[CharSpan]]) -> list[list[CharSpan]]:
    """The (cut) tokens grouped by the sentences they came from."""
    groups: list[list[CharSpan]] = []
    index = 0
    for sentence in sentences:
        end = sentence[-1][1]
        group = []
        while index < len(tokens) and tokens[index][1] <= end:
            group.append(tokens[index])
            index += 1
        groups.append(group)
    return groups


def _align(span: CharSpan, tokens: list[CharSpan], starts: list[int], alignment: str, problems: Problems
           ) -> list[CharSpan] | None:
    """The tokens a mention covers under the alignment policy (``starts``: each token's start), or None (dropped,
    counted or an error)."""
    first = bisect_right(starts, span[0]) - 1  # the token holding the start
    last = bisect_left(starts, span[1]) - 1  # the token holding the last character
    first = max(first, 0)
    covered = tokens[first:last + 1]
    exact = bool(covered) and covered[0][0] == span[0] and covered[-1][1] == span[1]
    if exact or alignment == "split":
        return covered
    where = f"{list(span)}"
    if alignment == "strict":
        problems(None, "mention edge inside a token (alignment=strict)", where)
        return None
    if alignment == "contract":
        covered = [t for t in covered if t[0] >= span[0] and t[1] <= span[1]]
        if not covered:
            problems.report.add("mention inside one token dropped (alignment=contract)", f"{problems.path}: {where}")
            return None
    problems.report.add(f"mention edge moved to a token edge (alignment={alignment})",
                        f"{problems.path}: {where} -> {[covered[0][0], covered[-1][1]]}")
    return covered


def _join_for_mentions(sentences: list[list[CharSpan]], paragraph_starts: set[int],
                       placed: dict[CharSpan, list[CharSpan] | None], problems: Problems
                       ) -> tuple[list[list[CharSpan]], set[int]]:
    """Sentences that a mention spans joined into one (counted): a CorefUD mention lies in one sentence."""
    sentence_of: dict[CharSpan, int] = {t: i for i, sentence in enumerate(sentences) for t in sentence}
    joined_to_next = [False] * len(sentences)
    for span, covered in placed.items():
        if not covered:
            continue
        first, last = sentence_of[covered[0]], sentence_of[covered[-1]]
        if first != last:
            problems.report.add("mention over a sentence break (its sentences joined)",
                                f"{problems.path}: {list(span)}, sentences {first + 1}-{last + 1}")
            for k in range(first, last):
                joined_to_next[k] = True
    result: list[list[CharSpan]] = []
    starts: set[int] = set()
    for index, sentence in enumerate(sentences):
        if index and joined_to_next[index - 1]:
            result[-1].extend(sentence)
            continue
        if index in paragraph_starts:
            starts.add(len(result))
        result.append(list(sentence))
    joins = len(sentences) - len(result)
    if joins:
        problems.report.add("sentence break removed (a mention spans it)", f"{problems.path}: {joins}", joins)
    return result, starts


def _spacing(document: Document, text: str) -> None:
    """Every character between tokens in MISC: SpacesBefore, SpaceAfter=No, SpacesAfter (the text's last gap too)."""
    nodes = list(document.nodes())
    if not nodes:
        return
    assert nodes[0].start_char is not None
    if nodes[0].start_char:
        nodes[0].misc["SpacesBefore"] = escape_spaces(text[:nodes[0].start_char])
    for node, following in zip(nodes, nodes[1:]):
        set_gap(node, text[node.end_char:following.start_char], last=False)
    set_gap(nodes[-1], text[nodes[-1].end_char:], last=True)


def _coreference(document: Document, annotation: Annotation, placed: dict[CharSpan, list[CharSpan] | None],
                 node_at: dict[CharSpan, Node], edge_space: dict[CharSpan, str], problems: Problems) -> None:
    entities: list[Entity | None] = []
    for index, spans in enumerate(annotation.entities):
        kept = [span for span in spans if placed[span]]
        if not kept:
            entities.append(None)
            continue
        entity = document.new_entity(f"e{index + 1}")
        for span in kept:
            attrs = {EDGE_SPACE: edge_space[span]} if span in edge_space else {}
            document.add_mention(entity, [node_at[t] for t in placed[span]], **attrs)  # type: ignore[union-attr]
        entities.append(entity)
    for parent_index, children in enumerate(annotation.includes):
        parent = entities[parent_index]
        parts = [entities[c] for c in children if entities[c] is not None]
        if len(parts) < len(children) or (children and parent is None):
            problems.report.add("includes link to an entity without mentions dropped",
                                f"{problems.path}: includes[{parent_index}] = {children}")
        if parent is None or not parts:
            continue
        if len(parts) == 1:
            document.add_bridge(parent.mentions[0], parts[0], INCLUDES)  # type: ignore[arg-type]
        else:
            document.add_split_antecedent(parent, parts)  # type: ignore[arg-type]


def scored_rucoco(path: Path) -> list:
    """What the scorer needs of one RuCoCo file (strictly checked), without tokenising: character spans and
    includes, as the RuCoCo evaluation reads them."""
    from harmonize.scoring.scored import character_document

    annotation = parse_annotation(read_text(path), Problems(str(path), False, Report()))
    entities = {f"e{i + 1}": spans for i, spans in enumerate(annotation.entities)}
    relations = [(f"e{i + 1}", [f"e{c + 1}" for c in children])
                 for i, children in enumerate(annotation.includes) if children]
    return [character_document(path.stem, annotation.text, entities, relations)]


# ---------------------------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------------------------

def format_rucoco(document: Document, report: Report, name: str | None = None) -> str:
    """One document as a RuCoCo JSON text. ``name``, the file's (what every renderer of a file per document is
    given): RuCoCo's JSON holds no id, the reader takes the id and the genre from it; what else reading it back
    changes is razdel's."""
    surface = document_text(document)
    spans_of: dict[Entity, list[CharSpan]] = {}
    for entity in document.entities:
        spans: list[CharSpan] = []
        for mention in entity.mentions:
            span = _mention_span(mention, surface.offsets, report, document.id)
            if span is not None and span not in spans:
                spans.append(span)
            elif span is not None:
                report.add("mention with the characters of another in its entity written once",
                           f"{document.id}: {mention.text!r}")
        if spans:
            spans_of[entity] = sorted(spans)
        else:
            report.add("entity without characters left out (RuCoCo spans need text)", f"{document.id}: {entity.id}")
        if entity.type:
            report.add("entity type not written (RuCoCo has none)", f"{document.id}: {entity.id} {entity.type}")
    ordered = sorted(spans_of, key=lambda e: spans_of[e])
    index = {entity: i for i, entity in enumerate(ordered)}
    includes: list[list[int]] = [[] for _ in ordered]
    for parent, parts in document.inclusions().items():
        if parent in index:
            includes[index[parent]] = sorted(index[p] for p in parts if p in index)
    for bridge in document.bridges:
        if bridge.label != INCLUDES:
            report.add("bridge not written (RuCoCo has only includes)",
                       f"{document.id}: {bridge.anaphor.text!r} -> {bridge.antecedent.id} ({bridge.label})")
    # Raw text and character spans: every column, comment and MISC attribute but spacing is not kept. The
    # writer counted mention-level losses above; razdel makes the sentences and their ids when read back.
    section = _SECTION.match(Path(name).stem if name else str(document.id))  # the reader takes it from the name
    report_unheld(document, _HOLDS, report, "RuCoCo", [m for e in spans_of for m in e.mentions], count_id=False,
                  document_fields={"language": "ru", "genre": section.group(1) if section else None, "topic": None,
                                   "subtopic": None})
    comments = sum(1 for sentence in document.sentences for c in sentence.comments
                   if isinstance(c, str) and not c.startswith(("# newpar", *FIELD_COMMENTS)))
    if comments:  # paragraph breaks come back as # newpar; other comments do not
        report.add(unheld_reason("comment", "RuCoCo"), str(document.id), comments)
    entities = [[list(span) for span in spans_of[e]] for e in ordered]
    return json.dumps({"entities": entities, "includes": includes, "text": surface.text}, ensure_ascii=False)


_HOLDS = Holds(misc=SPACING_KEYS, sentence_ids=True, sentence_text=True, comments=True, empty_nodes=True, heads=True,
               entity_types=True, mention_types=True, links=False, mention_fields=True, entity_fields=False,
               bridges=True, split_antecedents=True, glued_multiword_tokens=True)


def _mention_span(mention, offsets: dict[Node, CharSpan], report: Report, document_id: str | None
                  ) -> CharSpan | None:
    words = [w for w in mention.words if w in offsets]
    if not words:
        report.add("mention of empty nodes only left out (no characters)", f"{document_id}: {mention!r}")
        return None
    if len(words) < len(mention.words):
        report.add("empty nodes of a mention left out (no characters)", f"{document_id}: {mention.text!r}")
    if mention.is_discontinuous:
        report.add("discontinuous mention written as its whole extent", f"{document_id}: {mention.text!r}")
    for name in mention.attrs.keys() - {EDGE_SPACE}:
        report.add("mention attribute not written (RuCoCo has none)", f"{document_id}: {name}")
    if mention.head is not None and len(mention.words) > 1:
        report.add("mention head not written (RuCoCo has none)", f"{document_id}: {mention.text!r}")
    start, end = offsets[words[0]][0], offsets[words[-1]][1]
    edge = _EDGE_SPACE_VALUE.fullmatch(mention.attrs.get(EDGE_SPACE, "0,0"))
    if edge is None:
        report.add(f"mention attribute {EDGE_SPACE} not two counts (left out)",
                   f"{document_id}: {mention.attrs[EDGE_SPACE]!r}")
        return start, end
    return start - int(edge.group(1)), end + int(edge.group(2))


def rucoco_files(out: Path, report: Report) -> DocumentFiles:
    """`write_rucoco` into a folder a document at a time (``add``, then ``publish``)."""
    return DocumentFiles(out, text_file(".json", format_rucoco), report)


def write_rucoco(corpus: Corpus, out: str | Path, report: Report | None = None) -> None:
    """Write each document as ``OUT/<id>.json``; OUT may name a ``.json`` file when the corpus has one document."""
    write_documents(corpus.documents, Path(out), ".json", format_rucoco, report if report is not None else Report())
