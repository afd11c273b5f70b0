"""Views of corpora for people: self-contained HTML (:mod:`harmonize.views.html`)."""
