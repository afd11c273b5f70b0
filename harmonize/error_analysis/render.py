"""The results of the error analysis for people: a terminal summary, and self-contained HTML pages.

A page shows one document (or cross-document partition) with both annotations at once: key mentions in square
brackets coloured by their key entity (with its id), words tinted by the innermost key mention, response mentions
in angle brackets with their response entity's id. Brackets are separate marks at word edges, so key and response
mentions that cross each other can both be drawn. Hovering a mention highlights its key entity and its response
entity; every error in the list beside the text jumps to its place and highlights the mentions involved; a check box
per error type filters the list. Spacing follows SpaceAfter/SpacesAfter. No script, style or font is loaded from
anywhere: the page works from ``file://``.
"""

from __future__ import annotations

import html
from contextlib import ExitStack
from pathlib import Path
from typing import Self

from harmonize.converters.surface import display_gaps
from harmonize.error_analysis.analysis import DiffResult, PartitionDiff, PartitionRow
from harmonize.error_analysis.classify import ERRORS, OPERATIONS
from harmonize.errors import HarmonizeError
from harmonize.io import StagedPages, atomic_write_text

STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#222}
header{padding:.6em 1.2em;border-bottom:1px solid #ddd} h1{font-size:1.2em;margin:.2em 0}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(16em,1fr);height:calc(100vh - 6.5em)}
.text{overflow:auto;padding:0 1.2em;line-height:2.3} .side{overflow:auto;border-left:1px solid #ddd;padding:0 .8em}
.miss{background:#ffd6d6;border-bottom:2px solid #c00} .extra{background:#ffe8c2;border-bottom:2px dashed #c60}
.gone{color:#c00} .ops{display:block;color:#777;font-size:.85em;margin-left:9.5em}
p.s{margin:.2em 0} .sid{color:#aaa;font-size:.7em;margin-right:.5em} h2{font-size:1em;margin:.8em 0 .2em}
.k{font-weight:bold} .k sub,.r sub{font-size:.62em;font-weight:normal} .r{color:#555}
.w{border-radius:3px;padding:0 1px} .hk{background:#ffe97a!important;outline:1px solid #c90}
.hr{background:#cfe8ff!important;outline:1px solid #369} .sel{background:#ffb3b3!important;outline:2px solid #c00}
ul.errors{list-style:none;padding:0;margin:0} ul.errors li{margin:.15em 0;font-size:.9em} .hide{display:none}
ul.errors a{text-decoration:none;color:inherit} .tag{display:inline-block;min-width:9.5em;font-weight:bold}
table{border-collapse:collapse;font-size:.9em} td,th{padding:.1em .5em;border-bottom:1px solid #eee;text-align:right}
td:first-child,th:first-child{text-align:left} label{display:block;font-size:.9em}
table.sortable th[data-col]{cursor:pointer} table.sortable th[data-col]:hover{text-decoration:underline}
table.pairs{width:100%;table-layout:fixed;font-size:.95em} table.pairs td{text-align:left;vertical-align:top;
border-bottom:1px solid #eee;padding:.2em .6em;line-height:2.1} table.pairs th:first-child{width:8em}
table.pairs td:nth-child(3) .w{background:none!important}
table.pairs th{text-align:left} button.mode{font:inherit;font-size:.9em;margin-left:1em;cursor:pointer}
.legend{font-size:.85em;color:#666}
"""

SCRIPT = """
function on(sel,cls,yes){document.querySelectorAll(sel).forEach(function(x){x.classList.toggle(cls,yes)})}
document.addEventListener('mouseover',function(ev){on('.hk','hk',false);on('.hr','hr',false);
var t=ev.target.closest('[data-k],[data-r]');if(!t)return;
if(t.dataset.k)on('[data-k="'+t.dataset.k+'"]','hk',true);if(t.dataset.r)on('[data-r="'+t.dataset.r+'"]','hr',true);});
document.addEventListener('click',function(ev){var a=ev.target.closest('li[data-m]');if(!a)return;on('.sel','sel',false);
a.dataset.m.split(' ').forEach(function(m){on('[data-m~="'+m+'"]','sel',true)});});
document.querySelectorAll('input[data-type]').forEach(function(box){box.addEventListener('change',function(){
on('li[data-type="'+box.dataset.type+'"]','hide',!box.checked)})});
document.querySelectorAll('button.mode').forEach(function(b){b.addEventListener('click',function(){
var pairs=b.dataset.mode==='pairs';document.querySelectorAll('.nested').forEach(function(x){x.hidden=pairs});
document.querySelectorAll('table.pairs').forEach(function(x){x.hidden=!pairs});
b.dataset.mode=pairs?'nested':'pairs';b.textContent=pairs?'nested brackets':'side by side'})});
document.addEventListener('click',function(ev){if(!ev.target.closest('ul.errors a'))return;var b=document.querySelector(
'button.mode[data-mode="nested"]');if(b)b.click();},true);
document.querySelectorAll('table.sortable th[data-col]').forEach(function(th){th.addEventListener('click',function(){
var body=th.closest('table').tBodies[0],col=+th.dataset.col,down=th.dataset.down!=='1';th.dataset.down=down?'1':'0';
var rows=Array.from(body.rows);rows.sort(function(a,b){var x=a.cells[col].dataset.v||a.cells[col].textContent,
y=b.cells[col].dataset.v||b.cells[col].textContent,n=parseFloat(x)-parseFloat(y);
var c=isNaN(n)?x.localeCompare(y):n;return down?-c:c});rows.forEach(function(r){body.appendChild(r)})})});
"""


def summary_table(result: DiffResult) -> str:
    """The terminal summary: operations and errors as the paper groups them, then what each error type costs."""
    lines = ["Operations:"]
    lines += [f"{result.operations[name]:>7}   {name}" for name in OPERATIONS]
    lines += ["", "Errors:"]
    errors = result.errors
    for group in (ERRORS[:1], ERRORS[1:4], ERRORS[4:]):
        lines += [f"{errors[name]:>7}   {name}" for name in group]
        lines.append("")
    if result.matching != "exact":
        lines += _span_differences_text(result.span_differences, result.matching)
    cost = result.cost.to_json()
    metrics = ("muc", "bcub", "ceafe", "lea", "conll")
    header = f"{'CoNLL F1 and others after correcting':<40}" + "".join(f"{m:>8}" for m in metrics)
    lines += [header]
    for part, title in (("alone", "alone"), ("cumulative", "one after another")):
        lines.append(f"  {title}:")
        for row in cost[part]:
            lines.append(f"    {row['after']:<36}" + "".join(f"{row[m]:>8.2f}" for m in metrics))
    heads = ", ".join(f"{count} {source}" for source, count in result.heads.items())
    lines += ["", f"heads: {heads or 'none needed'}"]
    if result.only_in_key or result.only_in_response:
        lines.append(f"documents only in the key: {len(result.only_in_key)}, only in the response: "
                     f"{len(result.only_in_response)} (not compared)")
    return "\n".join(lines) + "\n"


# Examples of span differences the terminal summary shows (the JSON and the pages have them all).
SPAN_EXAMPLES = 5


def _span_differences_text(differences: list[dict], matching: str) -> list[str]:
    """Under head or partial matching, the key mentions matched by a response mention of other words: no error
    there, so counted and shown apart (each a span error under exact matching)."""
    lines = [f"{len(differences):>7}   mentions matched by {matching}, words differ (no error under {matching} "
             f"matching; span errors under --match exact)"]
    for entry in differences[:SPAN_EXAMPLES]:
        lines.append(f"            key {entry['key']['text']!r} | response {entry['response']['text']!r} "
                     f"({entry['document']}, sentence {entry['sentence']})")
    if len(differences) > SPAN_EXAMPLES:
        lines.append(f"            ... and {len(differences) - SPAN_EXAMPLES} more (--json, -o)")
    return [*lines, ""]


def _colour(index: int, light: bool = False) -> str:
    return f"hsl({index * 137.508 % 360:.0f},{'80%,92%' if light else '70%,36%'})"


def render_partition(partition: PartitionDiff) -> str:
    """One page: the text with both annotations, the error list, the filter."""
    return _page(html.escape(partition.label), _partition_body(partition, ""))


def _operations_text(operations: dict[str, int]) -> str:
    return ", ".join(f"{count} {name}" for name, count in operations.items() if count)


def _partition_body(partition: PartitionDiff, prefix: str) -> str:
    """A document's (or partition's) text with both annotations, its error list and the filter; ids, anchors and
    entity marks start with ``prefix`` (several documents share a page)."""
    facts = partition.facts
    key_index = {entity: i for i, entity in enumerate(dict.fromkeys(
        partition.key_entity[m] for m in sorted(partition.key.cluster_of)))}
    response_index = {entity: i for i, entity in enumerate(dict.fromkeys(
        partition.response_entity[m] for m in sorted(partition.response.cluster_of)))}
    every = sorted(set(partition.key.cluster_of) | set(partition.response.cluster_of))
    number = {mention: n for n, mention in enumerate(every)}
    opening: dict[tuple, list[str]] = {}
    closing: dict[tuple, list[str]] = {}
    # The same brackets for the side-by-side view, each side's apart: 0 the key's, 1 the response's.
    side_opening: tuple[dict[tuple, list[str]], dict[tuple, list[str]]] = ({}, {})
    side_closing: tuple[dict[tuple, list[str]], dict[tuple, list[str]]] = ({}, {})
    anchors: dict[tuple, list[str]] = {}
    tint: dict[tuple, tuple[int, int]] = {}
    response_of_word: dict[tuple, tuple[int, int]] = {}
    for mention in every:
        where = mention[:2]
        positions = facts.positions_of(mention)
        mark = f'data-m="{prefix}m{number[mention]}"'
        anchors.setdefault((*where, positions[0]), []).append(f'<span id="{prefix}m{number[mention]}"></span>')
        in_key, in_response = mention in partition.key.cluster_of, mention in partition.response.cluster_of
        if in_key:
            entity = partition.key_entity[mention]
            index = key_index[entity]
            unmatched = "" if in_response else " miss"  # the response lacks it: marked without a click
            attrs = f'class="k{unmatched}" style="color:{_colour(index)}" data-k="{prefix}k{index}" {mark}'
            for opened, closed in ((opening, closing), (side_opening[0], side_closing[0])):
                opened.setdefault((*where, positions[0]), []).append(f"<span {attrs}>[</span>")
                closed.setdefault((*where, positions[-1]), []).insert(
                    0, f"<span {attrs}>]<sub>{html.escape(entity)}</sub></span>")
            for position in positions:
                size = len(positions)
                if (*where, position) not in tint or size < tint[(*where, position)][0]:
                    tint[(*where, position)] = (size, index)
        if in_response:
            entity = partition.response_entity[mention]
            index = response_index[entity]
            unmatched = "" if in_key else " extra"  # the key lacks it
            attrs = f'class="r{unmatched}" data-r="{prefix}r{index}" {mark}'
            for opened, closed in ((opening, closing), (side_opening[1], side_closing[1])):
                opened.setdefault((*where, positions[0]), []).append(f"<span {attrs}>⟨</span>")
                closed.setdefault((*where, positions[-1]), []).insert(
                    0, f"<span {attrs}>⟩<sub>{html.escape(entity)}</sub></span>")
            for position in positions:
                size = len(positions)
                if (*where, position) not in response_of_word or size < response_of_word[(*where, position)][0]:
                    response_of_word[(*where, position)] = (size, index)
    key_of_word = {place: index for place, (_size, index) in tint.items()}
    text = []
    pairs = []  # the side-by-side view: a row per sentence, the key's brackets left, the response's right

    def sentence_words(document_index: int, sentence, opened: dict, closed: dict, with_anchors: bool) -> str:
        gaps = display_gaps(sentence)
        words = []
        for node in sentence.nodes:
            place = (document_index, sentence.index, node.position)
            data = ""
            style = ""
            if place in key_of_word:
                data += f' data-k="{prefix}k{key_of_word[place]}"'
                style = f' style="background:{_colour(key_of_word[place], True)}"'
            if place in response_of_word:
                data += f' data-r="{prefix}r{response_of_word[place][1]}"'
            form = "∅" if node.is_empty else html.escape(node.form)
            words.append("".join(anchors.get(place, ()) if with_anchors else ()) + "".join(opened.get(place, ()))
                         + f'<span class="w"{data}{style}>{form}</span>' + "".join(closed.get(place, ()))
                         + gaps.get(node, " "))
        return "".join(words).rstrip()

    for document_index, document in enumerate(partition.key_documents):
        if len(partition.key_documents) > 1:
            text.append(f"<h2>{html.escape(str(document.id))}</h2>")
            pairs.append(f'<tr><th colspan="3">{html.escape(str(document.id))}</th></tr>')
        for sentence in document.sentences:
            sid = html.escape(str(sentence.id or sentence.index + 1))
            text.append(f'<p class="s"><span class="sid">{sid}</span>'
                        f"{sentence_words(document_index, sentence, opening, closing, True)}</p>")
            sides = [sentence_words(document_index, sentence, side_opening[side], side_closing[side], False)
                     for side in (0, 1)]
            pairs.append(f'<tr><td class="sid">{sid}</td>' + "".join(f"<td>{side}</td>" for side in sides) + "</tr>")
    items = []
    for error in partition.classification.errors:
        involved = [*error.absent, *error.mentions,
                    *([error.response_mention] if error.response_mention is not None else [])]
        marks = " ".join(f"{prefix}m{number[m]}" for m in involved if m in number)
        first = min(involved)
        what = " · ".join(html.escape(facts.text(m)) for m in error.mentions[:4])
        if len(error.mentions) > 4:
            what += f" · … ({len(error.mentions)} mentions)"
        if error.response_mention is not None:  # a span error: the response's words, then the key's
            what = f"response «{html.escape(facts.text(error.response_mention))}» → key «{what}»"
        if error.absent:
            what = ("<span class=gone>not in the response: "
                    + " · ".join(html.escape(facts.text(m)) for m in error.absent) + "</span>; " + what)
        items.append(f'<li data-type="{html.escape(error.type)}" data-m="{marks}"><a href="#{prefix}m{number[first]}">'
                     f'<span class="tag">{html.escape(error.type)}</span> {what}'
                     f'<span class="ops">{html.escape(_operations_text(error.operations))}</span></a></li>')
    for key, response in partition.matched_spans:
        marks = " ".join(f"{prefix}m{number[m]}" for m in (key, response) if m in number)
        first = min(m for m in (key, response) if m in number) if marks else key
        anchor = f' href="#{prefix}m{number[first]}"' if first in number else ""
        items.append(f'<li data-type="words differ" data-m="{marks}"><a{anchor}><span class="tag">words differ'
                     f'</span> key «{html.escape(facts.text(key))}» · response «{html.escape(facts.text(response))}» '
                     f'<span class="ops">matched by the scorer; no error</span></a></li>')
    counts = partition.errors
    filters = "".join(f'<label><input type="checkbox" data-type="{html.escape(name)}" checked> '
                      f"{html.escape(name)} ({counts[name]})</label>" for name in ERRORS)
    operations = _operations_text(partition.classification.operations)
    title = html.escape(partition.label)
    return (f"<header><h1>{title}</h1><div class=legend>key mentions <b>[ ]</b> coloured by key entity, "
            f"<b class=miss>[ ]</b> where the response lacks them; response mentions ⟨ ⟩, <span class=extra>⟨ ⟩"
            f"</span> where the key lacks them; operations: {html.escape(operations or 'none')} (each error lists "
            f'its own) <button class="mode" data-mode="pairs">side by side</button></div></header><main><div '
            f'class="text"><div class="nested">{"".join(text)}</div><table class="pairs" hidden><thead><tr><th></th>'
            f'<th>key</th><th>response</th></tr></thead><tbody>{"".join(pairs)}</tbody></table></div>'
            f'<div class="side"><h2>Errors</h2>{filters}<ul class="errors">{"".join(items)}</ul></div></main>')


def _page(title: str, body: str) -> str:
    before, after = _page_frame(title)
    return before + body + after


def _page_frame(title: str) -> tuple[str, str]:
    """What comes before a page's body and after it."""
    before = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
              f"<style>{STYLE}</style></head>\n<body>\n")
    return before, f"\n<script>{SCRIPT}</script></body></html>\n"


def render_index(result: DiffResult, names: list[str]) -> str:
    """The documents, most errors first, with their counts per error type."""
    return _page("diff", _index_body(result, names))


def _index_body(result: DiffResult, names: list[str]) -> str:
    """The index table, linking each document to ``names`` (page files, or anchors on one page): its genre, the
    response's CoNLL F1 on it alone, its errors by type; most errors first, sortable by any column (a click)."""
    order = sorted(zip(result.rows, names), key=lambda pair: (-sum(pair[0].errors.values()), pair[0].label))
    columns = ["document", "genre", "CoNLL F1", "errors", *ERRORS]
    head = "".join(f'<th data-col="{i}">{html.escape(name)}</th>' for i, name in enumerate(columns))

    def f1(row: PartitionRow) -> str:
        return f'<td data-v="{row.conll:.4f}">{row.conll:.2f}</td>' if row.conll is not None else "<td>n/a</td>"

    rows = "".join(
        f'<tr><td><a href="{html.escape(name)}">{html.escape(p.label)}</a></td><td>{html.escape(p.genre or "")}'
        f"</td>{f1(p)}<td>{sum(p.errors.values())}</td>" + "".join(f"<td>{p.errors[e]}</td>" for e in ERRORS)
        + "</tr>" for p, name in order)
    totals = result.errors
    cost = result.cost.to_json()["alone"]
    whole = f"{cost[0]['conll']:.2f}" if cost else "n/a"
    total_row = f"<tr><th>all</th><th></th><th>{whole}</th><th>{sum(totals.values())}</th>" + "".join(
        f"<th>{totals[e]}</th>" for e in ERRORS) + "</tr>"
    only = ""
    if result.only_in_key or result.only_in_response:
        only = (f"<p>Not compared: {len(result.only_in_key)} document(s) only in the key "
                f"({html.escape(', '.join(result.only_in_key[:20]))}), {len(result.only_in_response)} only in the "
                f"response ({html.escape(', '.join(result.only_in_response[:20]))}).</p>")
    return (f"<header><h1>{len(result.rows)} documents compared</h1><div class=legend>CoNLL F1 of the response "
            f"on each document alone (the whole: summed over documents, as the scorers do); a click on a column's "
            f"name sorts by it</div></header><div style='padding:1em'><table class=sortable><thead><tr>{head}</tr>"
            f"{total_row}</thead><tbody>{rows}</tbody></table>{only}</div>")


def write_pages(result: DiffResult, output: Path) -> list[Path]:
    """The pages of a result that kept its comparisons (see `DiffPages`)."""
    if len(result.partitions) != len(result.rows):
        raise HarmonizeError("this diff kept no comparisons to draw: its pages were written as it was made "
                             f"({len(result.pages)} file(s)); compare again without pages= to keep them")
    with DiffPages(output) as pages:
        for partition in result.partitions:
            pages.add(partition)
        return pages.finish(result)


class DiffPages:
    """Pages written as documents are compared: always a page per document, and for several an index (most errors
    first). An output named ``.html`` is the page of a lone document, or, for several, the index, with the
    documents' pages in the folder of its name beside it (``report.html`` and ``report/``): a corpus never becomes
    one page of tens of megabytes. Any other output is a folder with a page per document (named after its label,
    safely) and ``index.html``. Pages wait beside the output until `finish` (`harmonize.io.StagedPages`), so that
    an error on the way leaves the output as it was."""

    def __init__(self, output: Path) -> None:
        self.output = output
        self.one_page = output.suffix == ".html" and not output.is_dir()
        self.folder = output.with_suffix("") if self.one_page else output
        self.first: PartitionDiff | None = None  # an .html output: the first document, until a second comes

    def __enter__(self) -> Self:
        self._stack = ExitStack()
        self._pages: StagedPages | None = None
        if not self.one_page:
            self._pages = self._stack.enter_context(StagedPages(self.folder))
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stack.close()

    def add(self, partition: PartitionDiff) -> None:
        if self._pages is None:
            if self.first is None:
                self.first = partition
                return
            self._pages = self._stack.enter_context(StagedPages(self.folder))
            self._pages.add(self.first.label, render_partition(self.first))
        self._pages.add(partition.label, render_partition(partition))

    def finish(self, result: DiffResult) -> list[Path]:
        """Write the index (or the lone page) for ``result``, whose rows are the documents added; the files."""
        if self._pages is None:
            if self.first is None:
                raise HarmonizeError("no document was compared: no page to write")
            atomic_write_text(self.output, render_partition(self.first))
            return [self.output]
        written = self._pages.publish(render_index(result, self._pages.written))
        if not self.one_page:
            return written
        atomic_write_text(self.output, render_index(result, [f"{self.folder.name}/{n}" for n in self._pages.written]))
        return [*written, self.output]
