"""After the write: processes, the build and test_mps.py, and their results."""
