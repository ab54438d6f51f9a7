"""native_functions.yaml: facts (facts.py), the line-scanned index (index.py), dispatch edits (edits.py)."""
