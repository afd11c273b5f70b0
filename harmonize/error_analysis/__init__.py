"""Error analysis: where two annotations of the same text differ, in Kummerfeld & Klein (2013)'s terms.

    import harmonize
    result = harmonize.diff("gold.conll", "system.conll", "conll2012")
    result.errors        # {"span error": 8, "conflated entities": 38, ...}
    result.to_json()     # the documented JSON (operations, errors, documents, cost, heads)

Modules: `.classify` (the procedure), `.heads` (heads and mention types), `.cost` (what each error
type costs), `.analysis` (pairing documents, the result), `.render` (terminal table and HTML pages), `.files` (both
sides read from files, compared and rendered as they come: `diff`).
"""

from harmonize.error_analysis.analysis import DiffResult, diff_corpora
from harmonize.error_analysis.files import diff

__all__ = ["DiffResult", "diff", "diff_corpora"]
