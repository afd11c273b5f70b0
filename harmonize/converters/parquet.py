"""The model as Parquet tables (pyarrow): one folder per corpus, queryable with pandas, pyarrow and DuckDB as it
is, read back without loss. The tables, their columns and keys are documented on the format's page
(``docs/formats/parquet.md``): ``doc``, ``sent``, ``pos`` and ``mention`` are the keys the reader joins on (indices
in the corpus, the document, the sentence); ``doc_id``, ``sent_id`` and a mention's ``text`` are there for
analysts (the reader does not need them).

The corpus's own ``meta`` (JSON) is the ``harmonize.corpus_meta`` schema metadata of ``documents``. Columns hold
strings as the model does ("_" for an empty CoNLL-U column). Everything a reader put in the model,
its bookkeeping for byte-exact CorefUD output included, comes back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from harmonize.errors import FormatError, Report
from harmonize.io import paused_gc
from harmonize.schemas.model import (
    Bridge,
    CommentSlot,
    Corpus,
    Document,
    Entity,
    Mention,
    MultiwordToken,
    Node,
    Sentence,
    SplitAntecedent,
)

TABLES = ("documents", "sentences", "tokens", "entities", "mentions", "relations")
_TOKEN_COLUMNS = ("doc", "sent", "id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc",
                  "misc_order", "start_char", "end_char", "bracket_order", "conll2012")
_CORPUS_META = "harmonize.corpus_meta"  # schema metadata of the documents table: the corpus's meta as JSON
_SLOT = "\x00"


LAYOUT_NOT_WRITTEN = "format layout kept for writing back to its own format, not JSON (not written to Parquet)"


def _meta_json(document: Document, report: Report) -> str:
    """The document's meta as JSON: what a reader keeps of its format's layout with keys JSON has no place for
    (brat's relation targets, UA's lines by position) is left out and reported; it is no annotation."""
    kept = {}
    for key, value in document.meta.items():
        try:
            json.dumps(value)
        except TypeError:
            report.add(LAYOUT_NOT_WRITTEN, f"{document.id}: {key}")
            continue
        kept[key] = value
    return json.dumps(kept, ensure_ascii=False)


def write_parquet(corpus: Corpus, folder: str | Path, report: Report | None = None) -> None:
    """Write the corpus as the six tables into ``folder``."""
    folder = Path(folder)
    rows: dict[str, dict[str, list]] = {name: {} for name in TABLES}

    def add(table: str, **values: object) -> None:
        columns = rows[table]
        for key, value in values.items():
            columns.setdefault(key, []).append(value)

    token_rows: list[tuple] = []
    with paused_gc():
        for d, document in enumerate(corpus.documents):
            add("documents", doc=d, id=document.id, language=document.language, genre=document.genre,
                topic=document.topic, subtopic=document.subtopic, source=document.source,
                meta=_meta_json(document, report if report is not None else Report()),
                entity_fields=list(document.entity_fields) if document.entity_fields is not None else None)
            mention_index: dict[int, int] = {}
            for m, mention in enumerate(document.mentions):
                mention_index[id(mention)] = m
            for s, sentence in enumerate(document.sentences):
                add("sentences", doc=d, doc_id=document.id, sent=s, id=sentence.id, text=sentence.text,
                    speaker=sentence.speaker,
                    comments=[_SLOT + c.value if isinstance(c, CommentSlot) else c for c in sentence.comments],
                    multiwords=json.dumps([[w.first, w.last, w.form, list(w.columns)] for w in sentence.multiwords],
                                          ensure_ascii=False))
                for node in sentence.nodes:
                    # Tokens are most of the data: one tuple per row, no JSON for the usual empty values.
                    misc = node.misc
                    order = [[mention_index[id(m)], part, kind] for m, part, kind in node.bracket_order
                             if id(m) in mention_index]
                    token_rows.append((
                        d, s, node.position, *node.columns(),
                        json.dumps(list(misc.items()), ensure_ascii=False) if misc else "[]",
                        list(node.misc_order), node.start_char, node.end_char,
                        json.dumps(order) if order else "[]",
                        list(node.conll2012) if node.conll2012 is not None else None, document.id, sentence.id))
            for entity in document.entities:
                add("entities", doc=d, doc_id=document.id, id=entity.id, type=entity.type,
                    attrs=json.dumps(entity.attrs, ensure_ascii=False))
            for mention in document.mentions:
                assert mention.entity is not None
                add("mentions", doc=d, doc_id=document.id, mention=mention_index[id(mention)],
                    entity=mention.entity.id, sent=mention.sentence.index, sent_id=mention.sentence.id,
                    text=mention.text, positions=[w.position for w in mention.words],
                    head_pos=mention.head.position if mention.head is not None else None, link=mention.link,
                    attrs=json.dumps(mention.attrs, ensure_ascii=False), bracket_width=mention.bracket_width,
                    closing_width=mention.closing_width, hidden_fields=sorted(mention.hidden_fields),
                    etype=mention.etype)
            for bridge in document.bridges:
                assert bridge.anaphor.entity is not None
                add("relations", doc=d, doc_id=document.id, kind="bridge", entity=bridge.anaphor.entity.id,
                    mention=mention_index[id(bridge.anaphor)], antecedents=[bridge.antecedent.id],
                    label=bridge.label)
            for split in document.split_antecedents:
                add("relations", doc=d, doc_id=document.id, kind="split", entity=split.entity.id,
                    mention=mention_index[id(split.anchor)] if split.anchor is not None else None,
                    antecedents=[a.id for a in split.antecedents], label=None)
    if token_rows:
        rows["tokens"] = dict(zip(("doc", "sent", "pos", *_TOKEN_COLUMNS[2:], "doc_id", "sent_id"),
                                  map(list, zip(*token_rows))))
    folder.mkdir(parents=True, exist_ok=True)
    for name in TABLES:
        table = pa.table(rows[name]) if rows[name] else pa.table({"doc": pa.array([], pa.int64())})
        if name == "documents":
            table = table.replace_schema_metadata({_CORPUS_META: json.dumps(corpus.meta, ensure_ascii=False)})
        temporary = folder / f".{name}.parquet.part"
        pq.write_table(table, temporary)
        temporary.replace(folder / f"{name}.parquet")


def parquet_folders(folder: Path) -> list[Path]:
    """The Parquet inputs in ``folder``: the folder itself where it holds the tables (whatever its name, as ``-o``
    wrote it), else each folder in it that does (``NAME.parquet`` or not)."""
    if (folder / f"{TABLES[0]}.parquet").exists():
        return [folder]
    return sorted(p for p in folder.iterdir() if p.is_dir() and (p / f"{TABLES[0]}.parquet").exists())


def read_parquet(folder: str | Path, lenient: bool = False, report: Report | None = None) -> Corpus:
    """Read a folder written by `write_parquet` back into the model."""
    folder = Path(folder)
    report = report if report is not None else Report()
    missing = [name for name in TABLES if not (folder / f"{name}.parquet").exists()]
    if missing:
        raise FormatError(str(folder), None, f"not a harmonize Parquet folder: no {', '.join(missing)} table")
    arrow = {name: _read_table(folder / f"{name}.parquet") for name in TABLES}
    for name in TABLES:
        report.opened(folder / f"{name}.parquet")
    try:
        return _build(folder, arrow)
    except (KeyError, IndexError, TypeError, ValueError) as error:  # tables that do not fit together
        raise FormatError(str(folder), None, f"not a harmonize Parquet folder: {type(error).__name__}: {error}") \
            from None


def _read_table(path: Path) -> pa.Table:
    try:
        return pq.read_table(path)
    except (pa.ArrowException, OSError) as error:
        raise FormatError(str(path), None, f"not a readable Parquet table: {str(error).splitlines()[0]}") from None


def _build(folder: Path, arrow: dict[str, pa.Table]) -> Corpus:
    tables = {name: table.to_pylist() for name, table in arrow.items() if name != "tokens"}
    stored = (arrow["documents"].schema.metadata or {}).get(_CORPUS_META.encode())
    corpus = Corpus(meta={**(json.loads(stored) if stored else {}), "source": str(folder)})
    with paused_gc():
        documents: list[Document] = []
        for row in tables["documents"]:
            fields = tuple(row["entity_fields"]) if row["entity_fields"] is not None else None
            documents.append(Document(id=row["id"], language=row["language"], genre=row["genre"], topic=row["topic"],
                                      subtopic=row["subtopic"], source=row["source"], meta=json.loads(row["meta"]),
                                      entity_fields=fields))
        for row in tables["sentences"]:
            comments = [CommentSlot(c[1:]) if c.startswith(_SLOT) else c for c in row["comments"]]
            sentence = Sentence(id=row["id"], text=row["text"], speaker=row["speaker"], comments=comments,
                                multiwords=[MultiwordToken(f, l, form, tuple(cols))
                                            for f, l, form, cols in json.loads(row["multiwords"])])
            documents[row["doc"]].add_sentence(sentence)
        pending_order: list[tuple[Node, int, list]] = []
        # Tokens are most of the data: read column-wise, and skip JSON for the usual empty values.
        tokens = (arrow["tokens"].to_pydict() if arrow["tokens"].num_rows
                  else {column: [] for column in _TOKEN_COLUMNS})
        for (d, s, node_id, form, lemma, upos, xpos, feats, head, deprel, deps, misc, misc_order, start_char,
             end_char, bracket_order, conll2012) in zip(*(tokens[c] for c in _TOKEN_COLUMNS)):
            node = Node(node_id, form, lemma, upos, xpos, feats, head, deprel, deps,
                        dict(json.loads(misc)) if misc != "[]" else {})
            node.misc_order = tuple(misc_order)
            node.start_char, node.end_char = start_char, end_char
            if conll2012 is not None:
                node.conll2012 = tuple(conll2012)
            documents[d].sentences[s].add_node(node)
            if bracket_order != "[]":
                pending_order.append((node, d, json.loads(bracket_order)))
        entities: list[dict[str, Entity]] = [{} for _ in documents]
        for row in tables["entities"]:
            document = documents[row["doc"]]
            entity = Entity(row["id"], row["type"], json.loads(row["attrs"]), document=document)
            document.entities.append(entity)
            entities[row["doc"]][entity.id] = entity
        mentions: list[dict[int, Mention]] = [{} for _ in documents]
        for row in tables["mentions"]:
            document = documents[row["doc"]]
            nodes = document.sentences[row["sent"]].nodes
            words = [nodes[p] for p in row["positions"]]
            entity = entities[row["doc"]][row["entity"]]
            mention = Mention(words, entity, nodes[row["head_pos"]] if row["head_pos"] is not None else None,
                              row["link"], json.loads(row["attrs"]), row["bracket_width"], row["closing_width"],
                              frozenset(row["hidden_fields"]), row.get("etype"))
            entity.mentions.append(mention)
            for node in words:
                node.mentions += (mention,)
            mentions[row["doc"]][row["mention"]] = mention
        for row in tables["relations"]:
            document, by_id = documents[row["doc"]], entities[row["doc"]]
            if row["kind"] == "bridge":
                document.bridges.append(Bridge(mentions[row["doc"]][row["mention"]], by_id[row["antecedents"][0]],
                                               row["label"]))
            else:
                anchor = mentions[row["doc"]][row["mention"]] if row["mention"] is not None else None
                document.split_antecedents.append(SplitAntecedent(by_id[row["entity"]],
                                                                  [by_id[a] for a in row["antecedents"]], anchor))
        for node, d, order in pending_order:
            node.bracket_order = tuple((mentions[d][m], part, kind) for m, part, kind in order)
    corpus.documents = documents
    return corpus
