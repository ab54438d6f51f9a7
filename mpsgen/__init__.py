"""mpsgen: scaffold native Metal (MPS) operators into a PyTorch checkout."""

__version__ = "0.1.0"
