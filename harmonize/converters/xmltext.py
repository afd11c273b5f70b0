"""XML text and attribute escaping for the writers that write XML as text (TEI, MMAX2).

xml.sax.saxutils does the same but imports urllib, a tenth of the start-up time of every command."""


def escape(text: str) -> str:
    """Text as XML character data."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """Text as a double-quoted XML attribute value."""
    return '"' + escape(text).replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;") + '"'
