"""Coreference scoring: pure metrics over clusters (`metrics`) and corpus-level scoring (`score`)."""
