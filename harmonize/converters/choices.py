"""The values format options take, kept apart from the formats themselves: the registry lists and checks options
without importing every format, which would add a tenth of a second to the start of every command."""

# What becomes of a discontinuous mention in a format of contiguous spans (see harmonize.converters.spans).
DISCONTINUOUS_POLICIES = ("drop", "head-part", "span")
# The CoNLL-2012 column layouts the writer produces (see harmonize.converters.conll2012).
CONLL2012_LAYOUTS = ("ontonotes", "gum", "ontogum", "scorer")
# Where a TEI zero subject goes: an empty node after its verb, or the mention on the verb itself.
TEI_ZERO_POLICIES = ("empty-node", "verb")
# What becomes of an MMAX2 markable over several sentences, and of one outside every coreference set.
MMAX2_CROSS_SENTENCE = ("first-part", "parts", "drop")
MMAX2_EMPTY = ("keep", "drop")
# How RuCoCo character spans meet tokens: cut tokens at mention edges, refuse edges inside tokens, or move them to
# the tokens inside or overlapping the span (spaCy's Doc.char_span alignment modes).
RUCOCO_ALIGNMENTS = ("split", "strict", "contract", "expand")
# Which ECB+ sentences' mentions are read: all, or those the annotators validated (the usual evaluation).
ECBPLUS_SENTENCES = ("all", "validated")
