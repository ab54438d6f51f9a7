"""`check` and `status`: one read of the tree, the rules, and their output formats."""
