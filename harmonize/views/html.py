"""Self-contained HTML views of documents: every mention bracketed and coloured by entity, offline.

Each mention is shown by brackets around its words, in its entity's colour, and its words are tinted. Nesting
is visible as nested brackets. A discontinuous mention's parts end in "]…" and resume with "…[". An empty node
shows as "∅". Singletons get dashed, fainter brackets. Hovering a bracket gives entity id, type, head and text,
and a small inline script highlights every mention of that entity. There are no external resources: the file
works offline and opens from disk.
"""

from __future__ import annotations

import html
from pathlib import Path

from harmonize.converters.surface import display_gaps
from harmonize.io import write_pages
from harmonize.schemas.heads import ud_head
from harmonize.schemas.model import Corpus, Document, Mention, Node

STYLE = """
body{font:16px/2.1 system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
h1{font-size:1.3em} p.s{margin:.3em 0} .sid{color:#999;font-size:.7em;margin-right:.6em}
.b{font-weight:bold;cursor:default} .b sub{font-size:.65em;font-weight:normal}
.single .b{opacity:.55} .b.sg{border-bottom:1px dashed currentColor;opacity:.6}
.w.in{border-radius:3px;padding:0 1px} .z{color:#888}
.hl{outline:2px solid currentColor;background:#ffe97a !important}
table{border-collapse:collapse} td,th{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}
td:first-child,th:first-child,.l{text-align:left}
"""

SCRIPT = """
document.addEventListener('mouseover',function(ev){var t=ev.target.closest('[data-e]');
document.querySelectorAll('.hl').forEach(function(x){x.classList.remove('hl')});
if(!t)return;document.querySelectorAll('.'+t.dataset.e).forEach(function(x){x.classList.add('hl')});});
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
    anchors = [f"#d{number}" for number in range(len(corpus.documents))]
    sections, rules = [], []
    for number, document in enumerate(corpus.documents):
        body, rule = _document_body(document, f"d{number}")
        sections.append(f'<section id="d{number}">{body}</section>')
        rules.append(rule)
    return _page(f"{len(corpus.documents)} documents", _index_body(corpus, anchors) + "\n".join(sections),
                 "\n".join(rules))


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
        words = []
        for node in sentence.nodes:
            words.append("".join(opening.get(id(node), ())) + _word(node, innermost.get(id(node)), prefix)
                         + "".join(closing.get(id(node), ())) + gaps.get(node, " "))
        sid = html.escape(sentence.id or str(sentence.index + 1))
        body.append(f'<p class="s"><span class="sid">{sid}</span>{"".join(words).rstrip()}</p>')
    title = html.escape(document.id or "document")
    summary = (f"{len(document.sentences)} sentences, {sum(len(s.nodes) for s in document.sentences)} nodes, "
               f"{len(document.entities)} entities, {sum(len(e.mentions) for e in document.entities)} mentions")
    return f"<h1>{title}</h1><p>{summary}</p>\n" + "\n".join(body), "\n".join(rules)


def _word(node: Node, innermost: tuple[int, int] | None, prefix: str = "") -> str:
    text = "∅" if node.is_empty else html.escape(node.form)
    classes = "w z" if node.is_empty else "w"
    if innermost is not None:
        classes += f" in {prefix}t{innermost[1]}"
    return f'<span class="{classes}">{text}</span>'


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
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{STYLE}{rules}</style></head>\n<body>\n{body}\n<script>{SCRIPT}</script></body></html>\n")


def render_index(corpus: Corpus, names: list[str]) -> str:
    """The corpus page: a row per document, and for corpora whose documents share entities across documents
    (ECB+'s topics) an entity index listing every document each such entity occurs in."""
    return _page("corpus", _index_body(corpus, names))


def _index_body(corpus: Corpus, names: list[str]) -> str:
    """The index's table, linking each document to ``names`` (page files, or anchors on one page)."""
    rows = "".join(
        f'<tr><td><a href="{html.escape(name)}">{html.escape(d.id or name)}</a></td><td>{len(d.sentences)}</td>'
        f"<td>{sum(len(s.nodes) for s in d.sentences)}</td><td>{len(d.entities)}</td>"
        f"<td>{sum(len(e.mentions) for e in d.entities)}</td></tr>"
        for d, name in zip(corpus.documents, names)
    )
    table = ("<table><tr><th>document</th><th>sentences</th><th>nodes</th><th>entities</th><th>mentions</th></tr>"
             f"{rows}</table>")
    return f"<h1>{len(corpus.documents)} documents</h1>{table}{_entity_index(corpus, names)}"


def _entity_index(corpus: Corpus, names: list[str]) -> str:
    """Entities that occur in more than one document of a topic (cross-document ids), with links to each."""
    places: dict[tuple[str | None, str], list[tuple[str, str, int]]] = {}
    for document, name in zip(corpus.documents, names):
        if document.topic is None:
            continue
        for entity in document.entities:
            places.setdefault((document.topic, entity.id), []).append((name, document.id or name, len(entity.mentions)))
    shared = {key: where for key, where in places.items() if len(where) > 1}
    if not shared:
        return ""
    rows = []
    for (topic, entity_id), where in sorted(shared.items(), key=lambda item: (-len(item[1]), str(item[0]))):
        links = ", ".join(f'<a href="{html.escape(name)}">{html.escape(label)}</a> ({count})'
                          for name, label, count in where)
        rows.append(f"<tr><td>{html.escape(str(topic))}</td><td>{html.escape(entity_id)}</td><td>{len(where)}</td>"
                    f"<td>{sum(count for _n, _l, count in where)}</td><td class=l>{links}</td></tr>")
    return ("<h2>Entities across documents</h2><table><tr><th>topic</th><th>entity</th><th>documents</th>"
            f"<th>mentions</th><th class=l>where (mentions)</th></tr>{''.join(rows)}</table>")


def write_views(corpus: Corpus, output: Path) -> list[Path]:
    """An ``.html`` output: one page (several documents one after another, the index at the top). Otherwise a
    folder: a page per document and index.html."""
    return write_pages(corpus.documents, [d.id for d in corpus.documents], output, render_document,
                       lambda names: render_index(corpus, names), lambda: render_documents(corpus))
