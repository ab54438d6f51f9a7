"""kernels/*.metal and c10/metal headers: read, edited."""
