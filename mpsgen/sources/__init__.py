"""Pure readers and editors, one module per file kind: text in, located facts or new text out."""
