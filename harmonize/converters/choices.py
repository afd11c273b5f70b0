"""The values format options take, kept apart from the formats themselves: the registry lists and checks options
without importing every format, which would add a tenth of a second to the start of every command."""

# What becomes of a discontinuous mention in a format of contiguous spans (see harmonize.converters.spans).
DISCONTINUOUS_POLICIES = ("drop", "head-part", "span")
DISCONTINUOUS_HELP = "drop discontinuous mentions, keep the part with the head, or widen them over their gaps"
# The CoNLL-2012 column layouts the writer produces (see harmonize.converters.conll2012).
CONLL2012_LAYOUTS = ("ontonotes", "gum", "ontogum", "scorer")
# Crossing markables in UA (brackets that do not nest): left out, as ua-scorer.py's bracket stack cannot read them,
# or written with closings that name their markables ("markable_1)"), as the UA test cases of the CorefUD scorer do.
UA_CROSSING_POLICIES = ("drop", "named")
# Whether a CoNLL-2012 writer writes each sentence's comments (sent_id, text, other comments, multiword tokens) as
# "#" lines before its words: the reference scorer reads such lines as words, so they are left out unless asked.
COMMENT_POLICIES = ("drop", "keep")
# Where a TEI zero subject goes: an empty node after its verb, or the mention on the verb itself.
TEI_ZERO_POLICIES = ("empty-node", "verb")
# What becomes of a mention over several sentences (MMAX2, ECB+): its first sentence's words, each sentence's words
# as a mention of its entity, or nothing (see cross_sentence_parts).
CROSS_SENTENCE_POLICIES = ("first-part", "parts", "drop")
CROSS_SENTENCE_HELP = ("a mention over several sentences: keep its first sentence's words, each sentence's words, "
                       "or drop it")
# What becomes of an MMAX2 markable outside every coreference set.
MMAX2_EMPTY = ("keep", "drop")
# How RuCoCo character spans meet tokens: cut tokens at mention edges, refuse edges inside tokens, or move them to
# the tokens inside or overlapping the span (spaCy's Doc.char_span alignment modes).
RUCOCO_ALIGNMENTS = ("split", "strict", "contract", "expand")
# Which ECB+ sentences' mentions are read: all, or those the annotators validated (the usual evaluation).
ECBPLUS_SENTENCES = ("all", "validated", "validated-text")


def cross_sentence_parts(pieces: list, policy: str) -> list:
    """The pieces (a mention's words per sentence, in order) that become mentions under a cross-sentence policy."""
    if len(pieces) < 2 or policy == "parts":
        return pieces
    return pieces[:1] if policy == "first-part" else []
