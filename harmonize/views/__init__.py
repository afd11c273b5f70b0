"""Views of corpora for people: self-contained HTML (`harmonize.views.html`)."""
