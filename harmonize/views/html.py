"""Self-contained HTML views of documents: every mention bracketed and coloured by entity, offline.

Each mention is shown by brackets around its words, in its entity's colour, and its words are tinted. Nesting
is visible as nested brackets. A discontinuous mention's parts end in "]…" and resume with "…[". An empty node
shows as "∅". A multiword token shows as the text has it ("del", not "de el"; its words on hover): a mention that
begins or ends at one of its words is bracketed around the whole token, and its hover text names its words. Singletons get dashed, fainter brackets. Hovering a bracket gives entity id, type, head and text,
and a small inline script highlights every mention of that entity. There are no external resources: the file
works offline and opens from disk.
"""

from __future__ import annotations

import html
import itertools
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from harmonize.converters.surface import display_gaps, surface_tokens
from harmonize.io import StagedPages, atomic_write_parts, atomic_write_text
from harmonize.schemas.model import Corpus, Document, Mention, Node, Sentence, ud_head

STYLE = """
body{font:16px/2.1 system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
h1{font-size:1.3em} p.s{margin:.3em 0} .sid{color:#999;font-size:.7em;margin-right:.6em}
.b{font-weight:bold;cursor:default} .b sub{font-size:.65em;font-weight:normal}
.single .b{opacity:.55} .b.sg{border-bottom:1px dashed currentColor;opacity:.6}
.w.in{border-radius:3px;padding:0 1px} .z{color:#888}
.hl{outline:2px solid currentColor;background:#ffe97a !important}
.sel{outline:3px solid #c00;background:#ffc9c9 !important} .w.sel{outline:none}
details.ents{margin:.5em 0 1em} ul.ents{columns:18em;list-style:none;padding:0;margin:.3em 0;line-height:1.5;
max-height:13em;overflow:auto}
ul.ents li{cursor:pointer;font-size:.85em;break-inside:avoid} ul.ents li.on{background:#ffc9c9}
ul.ents .n{color:#777} .eid{font-weight:bold} input.filter{font:inherit;font-size:.85em;padding:.1em .4em;width:18em}
table{border-collapse:collapse} td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child,.l{text-align:left}
"""

SCRIPT = """
document.addEventListener('mouseover',function(ev){var t=ev.target.closest('[data-e]');
document.querySelectorAll('.hl').forEach(function(x){x.classList.remove('hl')});
if(!t)return;document.querySelectorAll('.'+t.dataset.e).forEach(function(x){x.classList.add('hl')});});
document.addEventListener('click',function(ev){var t=ev.target.closest('li[data-s],.b[data-e]');if(!t)return;
var e=t.dataset.s||t.dataset.e,was=t.closest('li')?t.classList.contains('on'):false;
document.querySelectorAll('.sel').forEach(function(x){x.classList.remove('sel')});
document.querySelectorAll('li.on').forEach(function(x){x.classList.remove('on')});
if(was)return;document.querySelectorAll('.'+e+',.w.'+e.replace(/e(\\d+)$/,'t$1')).forEach(function(x){
x.classList.add('sel')});
document.querySelectorAll('li[data-s="'+e+'"]').forEach(function(x){x.classList.add('on')});
var first=document.querySelector('.b.'+e);if(first&&t.closest('li'))first.scrollIntoView({block:'center'});});
document.querySelectorAll('input.filter').forEach(function(box){box.addEventListener('input',function(){
var q=box.value.toLowerCase();box.parentNode.querySelectorAll('li[data-s]').forEach(function(li){
li.style.display=li.textContent.toLowerCase().indexOf(q)<0?'none':''})})});
"""


def _colour(index: int) -> str:
    return f"hsl({index * 137.508 % 360:.0f},70%,38%)"


def _tint(index: int) -> str:
    return f"hsl({index * 137.508 % 360:.0f},80%,93%)"


def render_document(document: Document) -> str:
    """One document as a complete HTML page."""
    body, rules = _document_body(document, "")
    return _page(html.escape(document.id or "document"), body, rules)


def render_documents(corpus: Corpus) -> str:
    """Every document of ``corpus`` on one page, one after another, with the index (linking to each) at the top."""
    rows, sections, rules = [], [], []
    for number, document in enumerate(corpus.documents):
        section, rule = _section(document, number)
        sections.append(section)
        rules.append(rule)
        rows.append(DocumentRow.of(document))
    return _page(f"{len(rows)} documents", _index_body(rows, [f"#d{n}" for n in range(len(rows))])
                 + "\n".join(sections), "\n".join(rules))


def _section(document: Document, number: int) -> tuple[str, str]:
    """A document as the ``number``-th section of a page of several, and its CSS rules."""
    body, rules = _document_body(document, f"d{number}")
    return f'<section id="d{number}">{body}</section>', rules


def _document_body(document: Document, prefix: str) -> tuple[str, str]:
    """A document's heading and text, and its CSS rules; class names start with ``prefix`` (several documents
    share a page)."""
    entity_class = {id(e): f"{prefix}e{i}" for i, e in enumerate(document.entities)}
    rules = [f".{prefix}e{i}{{color:{_colour(i)}}} .w.{prefix}t{i}{{background:{_tint(i)}}}"
             for i in range(len(document.entities))]
    opening: dict[int, list[str]] = {}
    closing: dict[int, list[str]] = {}
    innermost: dict[int, tuple[int, int]] = {}  # node -> (mention length, entity index) of its shortest mention
    for mention in document.mentions:
        entity = mention.entity
        assert entity is not None
        css = entity_class[id(entity)]
        index = int(css[len(prefix) + 1:])
        title = html.escape(_title(mention), quote=True)
        singleton = " sg" if len(entity.mentions) == 1 else ""
        parts = mention.parts()
        for number, part in enumerate(parts):
            more_before, more_after = number > 0, number < len(parts) - 1
            opening.setdefault(id(part[0]), []).append(
                f'<span class="b {css}{singleton}" data-e="{css}" title="{title}">{"…" if more_before else ""}[</span>')
            closing.setdefault(id(part[-1]), []).insert(
                0, f'<span class="b {css}{singleton}" data-e="{css}" title="{title}">]{"…" if more_after else ""}'
                   f"<sub>{html.escape(entity.id)}</sub></span>")
            for node in part:
                size = len(mention.words)
                if id(node) not in innermost or size < innermost[id(node)][0]:
                    innermost[id(node)] = (size, index)
    body = []
    for sentence in document.sentences:
        gaps = display_gaps(sentence)
        multiword = _multiword_words(sentence)
        words = []
        for node in sentence.nodes:
            form, covered = multiword.get(id(node), (node.form, [node]))
            if not covered:  # a later word of a multiword token: shown with its first
                continue
            inner = [innermost[id(w)] for w in covered if id(w) in innermost]
            shown = (_token(form, covered, min(inner) if inner else None, prefix) if len(covered) > 1
                     else _word(node, inner[0] if inner else None, prefix))
            words.append("".join(b for w in covered for b in opening.get(id(w), ())) + shown
                         + "".join(b for w in covered for b in closing.get(id(w), ())) + gaps.get(covered[-1], " "))
        sid = html.escape(sentence.id or str(sentence.index + 1))
        body.append(f'<p class="s"><span class="sid">{sid}</span>{"".join(words).rstrip()}</p>')
    title = html.escape(document.id or "document")
    summary = (f"{len(document.sentences)} sentences, {sum(len(s.nodes) for s in document.sentences)} nodes, "
               f"{len(document.entities)} entities, {sum(len(e.mentions) for e in document.entities)} mentions")
    return (f"<h1>{title}</h1><p>{summary}</p>\n{_entity_list(document, entity_class)}\n" + "\n".join(body),
            "\n".join(rules))


def _entity_list(document: Document, entity_class: dict[int, str]) -> str:
    """The document's entities, most mentions first, with a filter: a click on one (or on a bracket) marks all its
    mentions until the next click, which tells entities apart where colours repeat."""
    if not document.entities:
        return ""
    items = []
    for entity in sorted(document.entities, key=lambda e: (-len(e.mentions), e.mentions[0].order if e.mentions
                                                           else ((0, 0), 0))):
        if not entity.mentions:
            continue
        css = entity_class[id(entity)]
        kind = f" {html.escape(entity.type)}" if entity.type else ""
        items.append(f'<li data-s="{css}"><span class="eid {css}">{html.escape(entity.id)}</span>{kind} '
                     f'<span class=n>({len(entity.mentions)})</span> {html.escape(entity.mentions[0].text[:60])}</li>')
    return (f'<details class=ents open><summary>Entities ({len(items)}): a click marks every mention of one'
            f'</summary><input class=filter placeholder="filter: id, type or words" aria-label="filter entities">'
            f'<ul class=ents>{"".join(items)}</ul></details>')


def _word(node: Node, innermost: tuple[int, int] | None, prefix: str = "") -> str:
    text = "∅" if node.is_empty else html.escape(node.form)
    classes = "w z" if node.is_empty else "w"
    if innermost is not None:
        classes += f" in {prefix}t{innermost[1]}"
    return f'<span class="{classes}">{text}</span>'


def _multiword_words(sentence: Sentence) -> dict[int, tuple[str, list[Node]]]:
    """Each multiword token's form and words by id of its first word (no words for its other words)."""
    words: dict[int, tuple[str, list[Node]]] = {}
    for form, _spacing, covered in surface_tokens(sentence):
        if len(covered) > 1:
            words[id(covered[0])] = (form, covered)
            words.update((id(w), (form, [])) for w in covered[1:])
    return words


def _token(form: str, covered: list[Node], innermost: tuple[int, int] | None, prefix: str) -> str:
    """A multiword token as the text has it ("del", not "de el"); hovering it shows its words."""
    classes = "w mwt" + (f" in {prefix}t{innermost[1]}" if innermost is not None else "")
    words = html.escape(" + ".join(w.form for w in covered), quote=True)
    return f'<span class="{classes}" title="words: {words}">{html.escape(form)}</span>'


def _title(mention: Mention) -> str:
    entity = mention.entity
    assert entity is not None
    head = mention.head or ud_head(mention)
    parts = [f"entity {entity.id}"]
    if entity.type:
        parts.append(f"type {entity.type}")
    if head is not None:
        parts.append(f"head {head.form}")
    if mention.link:
        parts.append(f"link {mention.link}")
    parts.append(f"«{mention.text}»")
    return " · ".join(parts)


def _page(title: str, body: str, rules: str = "") -> str:
    before_rules, before_body, after_body = _page_frame(title)
    return before_rules + rules + before_body + body + after_body


def _page_frame(title: str) -> tuple[str, str, str]:
    """A page around its CSS rules and its body: what comes before the rules, between them and the body, after."""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title><style>{STYLE}',
            "</style></head>\n<body>\n", f"\n<script>{SCRIPT}</script></body></html>\n")


@dataclass(frozen=True)
class DocumentRow:
    """What the index shows of a document (kept instead of the document, so that pages are written as documents
    are read): its counts, and for a document of a topic its entities' mention counts."""

    id: str | None
    sentences: int
    nodes: int
    entities: int
    mentions: int
    topic: str | None
    entity_mentions: tuple[tuple[str, int], ...]
    genre: str | None = None

    @classmethod
    def of(cls, document: Document) -> DocumentRow:
        return cls(document.id, len(document.sentences), sum(len(s.nodes) for s in document.sentences),
                   len(document.entities), sum(len(e.mentions) for e in document.entities), document.topic,
                   tuple((e.id, len(e.mentions)) for e in document.entities) if document.topic is not None else (),
                   document.genre)


def render_index(corpus: Corpus, names: list[str]) -> str:
    """The corpus page: a row per document, and for corpora whose documents share entities across documents
    (ECB+'s topics) an entity index listing every document each such entity occurs in."""
    return _page("corpus", _index_body([DocumentRow.of(d) for d in corpus.documents], names))


def _index_body(rows: list[DocumentRow], names: list[str], diffs: list[str | None] | None = None) -> str:
    """The index's table, linking each document to ``names`` (page files, or anchors on one page), and to its
    ``diffs`` page where there is one (a `harmonize diff` page)."""
    diffs = diffs or [None] * len(rows)
    with_diffs = any(diffs)

    def diff_cell(link: str | None) -> str:
        return (f'<td><a href="{html.escape(link)}">diff</a></td>' if link else "<td></td>") if with_diffs else ""

    cells = "".join(
        f'<tr><td><a href="{html.escape(name)}">{html.escape(row.id or name)}</a></td>'
        f'<td class=l>{html.escape(row.genre or "")}</td><td>{row.sentences}</td>'
        f"<td>{row.nodes}</td><td>{row.entities}</td><td>{row.mentions}</td>{diff_cell(link)}</tr>"
        for row, name, link in zip(rows, names, diffs)
    )
    table = ("<table><tr><th>document</th><th class=l>genre</th><th>sentences</th><th>nodes</th><th>entities</th>"
             f"<th>mentions</th>{'<th>key and response</th>' if with_diffs else ''}</tr>{cells}</table>")
    return f"<h1>{len(rows)} documents</h1>{table}{_entity_index(rows, names)}"


def _entity_index(rows: list[DocumentRow], names: list[str]) -> str:
    """Entities that occur in more than one document of a topic (cross-document ids), with links to each."""
    places: dict[tuple[str | None, str], list[tuple[str, str, int]]] = {}
    for row, name in zip(rows, names):
        if row.topic is None:
            continue
        for entity_id, count in row.entity_mentions:
            places.setdefault((row.topic, entity_id), []).append((name, row.id or name, count))
    shared = {key: where for key, where in places.items() if len(where) > 1}
    if not shared:
        return ""
    lines = []
    for (topic, entity_id), where in sorted(shared.items(), key=lambda item: (-len(item[1]), str(item[0]))):
        links = ", ".join(f'<a href="{html.escape(name)}">{html.escape(label)}</a> ({count})'
                          for name, label, count in where)
        lines.append(f"<tr><td>{html.escape(str(topic))}</td><td>{html.escape(entity_id)}</td><td>{len(where)}</td>"
                     f"<td>{sum(count for _n, _l, count in where)}</td><td class=l>{links}</td></tr>")
    return ("<h2>Entities across documents</h2><table><tr><th>topic</th><th>entity</th><th>documents</th>"
            f"<th>mentions</th><th class=l>where (mentions)</th></tr>{''.join(lines)}</table>")


DIFF_FOLDER = "diff"  # where a view's folder finds `harmonize diff` pages of its documents


def write_views(documents: Iterable[Document], output: Path) -> list[Path]:
    """An ``.html`` output: one page (several documents one after another, the index at the top). Otherwise a
    folder: a page per document and index.html, which links each document to its page of ``OUTPUT/diff/`` where
    `harmonize diff ... -o OUTPUT/diff/` wrote one. ``documents`` (a `Corpus`, or documents as they are read) are
    rendered one at a time and only their index rows kept, so that memory follows a document, not the corpus."""
    documents = iter(documents)
    if output.suffix == ".html" and not output.is_dir():
        _write_one_page(documents, output)
        return [output]
    rows = []
    # Pages wait beside the output until the last document is read: an error on the way leaves the output as it was.
    with StagedPages(output) as pages:
        for document in documents:
            pages.add(document.id, render_document(document))
            rows.append(DocumentRow.of(document))
        # `harmonize diff -o OUTPUT/diff/` names its pages as these are named: each document links to its own.
        diffs = [f"{DIFF_FOLDER}/{name}" if (output / DIFF_FOLDER / name).is_file() else None
                 for name in pages.written]
        return pages.publish(_page("corpus", _index_body(rows, pages.written, diffs)))


def _write_one_page(documents: Iterator[Document], output: Path) -> None:
    """One document's page, or several documents' sections below the index: the sections and their CSS rules go
    to files beside ``output`` as they are rendered, and are joined below the index and in the head at the end."""
    # A document is rendered before the next is asked for (reading the next may free it): the first both ways,
    # as the page of a lone document and as the first section of several.
    first = next(documents, None)
    alone = render_document(first) if first is not None else None
    rendered = [(_section(first, 0), DocumentRow.of(first))] if first is not None else []
    second = next(documents, None)
    if alone is not None and second is None:
        atomic_write_text(output, alone)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{output.name}.", dir=output.parent) as folder:
        rules_file, sections_file = Path(folder) / "rules", Path(folder) / "sections"
        rows: list[DocumentRow] = []
        following = itertools.chain([second], documents) if second is not None else iter(())
        with rules_file.open("w", encoding="utf-8") as rules, sections_file.open("w", encoding="utf-8") as sections:
            for number, ((section, rule), row) in enumerate(itertools.chain(
                    rendered, ((_section(document, n), DocumentRow.of(document))
                               for n, document in enumerate(following, 1)))):
                separator = "\n" if number else ""
                sections.write(separator + section)
                rules.write(separator + rule)
                rows.append(row)
        before_rules, before_body, after_body = _page_frame(f"{len(rows)} documents")
        head_file, index_file, tail_file = (Path(folder) / name for name in ("head", "index", "tail"))
        head_file.write_text(before_rules, encoding="utf-8")
        index_file.write_text(before_body + _index_body(rows, [f"#d{n}" for n in range(len(rows))]),
                              encoding="utf-8")
        tail_file.write_text(after_body, encoding="utf-8")
        atomic_write_parts(output, [head_file, rules_file, index_file, sections_file, tail_file])
