"""Metal type name -> torch dtype name, for the numeric check and the catalog's rules (a leaf: the catalog
reads it without importing the compiler)."""

from __future__ import annotations

# half2 is torch.complex32, "ComplexHalf".
TORCH_DTYPES = {
    "float": "float32", "half": "float16", "bfloat": "bfloat16", "long": "int64", "int": "int32",
    "short": "int16", "char": "int8", "uchar": "uint8", "bool": "bool", "float2": "complex64",
    "half2": "complex32",
}
