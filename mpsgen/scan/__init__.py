"""Text and C++ scanning with no domain words: lines, masking, brackets, top-level splits, statements."""
