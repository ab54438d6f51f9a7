"""One module per command, each a function with explicit keyword arguments returning an exit code."""
