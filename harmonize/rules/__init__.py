"""Scheme rules: deterministic conversions between annotation schemes, each step reported.

:data:`RULES` maps a rule set's name (``harmonize convert --rules NAME``) to the function that applies it to a
corpus and counts, per step, what it changed.
"""

from __future__ import annotations

from collections.abc import Callable

from harmonize.errors import Report
from harmonize.rules.ontogum import apply_ontogum
from harmonize.schemas.model import Corpus

RULES: dict[str, Callable[[Corpus, Report], None]] = {"ontogum": apply_ontogum}
