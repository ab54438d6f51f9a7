"""One op's move to a native Metal kernel, planned in memory as one changeset."""
