"""operations/*.mm and MetalShaderLibrary.h: read, edited."""
