"""The only I/O: the checkout, the changeset and its journal, git, configuration."""
