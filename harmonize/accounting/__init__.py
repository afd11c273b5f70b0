"""Accounting: proof that nothing is dropped silently.

`harmonize.accounting.differ` lists every difference between two documents of the model by kind;
`harmonize.accounting.ledger` maps each report reason to the kinds of difference it accounts for and checks that a
conversion's reports equal what the differ finds between the document written and the document read back
(``harmonize convert --verify``). See the documentation's "Files, errors and reports" page.
"""
