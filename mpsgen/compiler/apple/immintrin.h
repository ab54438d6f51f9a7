// mpsgen: an empty stand-in for the x86 intrinsics header. An MPS build is arm64, where the sources'
// x86 branches (ATen/cpu/vec/intrinsics.h) are not compiled; the host compiler's copy of this header
// is gcc's, which libclang cannot parse.
#pragma once
