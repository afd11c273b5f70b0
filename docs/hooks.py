"""MkDocs hooks: pages that are generated from the code, so that they cannot disagree with it.

* ``<!-- cli-reference -->``: every command's ``--help``, as click prints it at 80 columns.
* ``<!-- formats-table -->``: the formats ``harmonize formats`` lists, with what each can do.
* ``<!-- format-options NAME -->``: the reader (-I) and writer (-O) options of the format NAME, from the registry.
* ``<!-- corpora-table -->``: the corpus catalog (`harmonize corpora list`), one row per corpus and version.
"""

from __future__ import annotations

import re

import click


def _commands(group: click.Group, prefix: list[str], context: click.Context):
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if command is None or command.hidden:
            continue
        path = [*prefix, name]
        if hasattr(command, "list_commands"):  # a group (typer's own, not a click.Group since typer vendors click)
            yield from _commands(command, path, click.Context(command, info_name=name, parent=context))
        else:
            yield path, command, click.Context(command, info_name=name, parent=context)


def cli_reference() -> str:
    import typer

    from harmonize.cli import app

    root = typer.main.get_command(app)
    context = click.Context(root, info_name="harmonize", terminal_width=80, max_content_width=80)
    parts = []
    for path, command, sub in _commands(root, [], context):
        sub.terminal_width = sub.max_content_width = 80
        parts.append(f"## harmonize {' '.join(path)}\n\n```text\n{command.get_help(sub).rstrip()}\n```\n")
    return "\n".join(parts)


def formats_table() -> str:
    from harmonize.converters import formats

    rows = ["| format | reads | writes | what it is |", "| --- | --- | --- | --- |"]
    for fmt in formats():
        rows.append(f"| [`{fmt.name}`]({fmt.name}.md) | {'yes' if fmt.reader else ''} | "
                    f"{'yes' if fmt.writer else ''} | {fmt.summary.replace('|', '/')} |")
    return "\n".join(rows)


def format_options(name: str) -> str:
    from harmonize.converters.registry import COMMON_READER_OPTIONS, formats

    fmt = next(f for f in formats() if f.name == name)
    rows = ["| option | values | what it does |", "| --- | --- | --- |"]
    own = {**fmt.reader_options, **(COMMON_READER_OPTIONS if fmt.reader else {})}
    for flag, options in (("-I", own), ("-O", fmt.options)):
        for key, (values, purpose) in options.items():
            rows.append(f"| `{flag} {key}=` | {', '.join(f'`{v}`' for v in values) or 'any'} | "
                        f"{purpose.replace('|', '/')} |")
    return "\n".join(rows) if len(rows) > 2 else "This format takes no options."


def corpora_table() -> str:
    from harmonize.corpora import load_catalog

    rows = ["| id | languages | size | reader | license | access | verified by |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for entry in load_catalog().entries:
        size = ", ".join(f"{value:,} {key.replace('_', ' ')}" for key, value in list(entry.size.items())[:2])
        verified = "; ".join(dict.fromkeys(source.verified_by for source in entry.sources)) or "what `add` is given"
        lic = entry.license
        license_cell = f"[{lic.spdx}]({lic.url})" if lic.url else lic.spdx
        rows.append(f"| `{entry.key}` | {', '.join(entry.languages)} | {size} | {entry.reader or ''} | "
                    f"{license_cell} | {entry.access} | {verified} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **_) -> str:
    markdown = markdown.replace("<!-- corpora-table -->", corpora_table())
    markdown = markdown.replace("<!-- cli-reference -->", cli_reference())
    markdown = markdown.replace("<!-- formats-table -->", formats_table())
    return re.sub(r"<!-- format-options (\S+) -->", lambda m: format_options(m[1]), markdown)
