"""What mpsgen writes: the catalog of known bodies and the jinja2 rendering of functors and host code."""
