"""Questions in other languages than English: the language of a question and the label shown for it
(detection.py), the question translated by small model calls (translation.py), told the ontology's own words and
the question's words that name them (glossary.py), found through a multilingual embedding model (crosslingual.py)
and bilingual dictionaries (bilingual.py), where those are installed."""
