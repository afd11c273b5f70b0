"""Coreference scoring: pure metrics over clusters (:mod:`metrics`) and corpus-level scoring (:mod:`score`)."""
