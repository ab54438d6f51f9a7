// mpsgen: Darwin's 64-bit integer types on glibc. This file takes the place of glibc's
// <bits/stdint-intn.h> (the stub folder is searched first), so that int64_t is `long long` as on a
// Mac; PyTorch's sources rely on it (e.g. std::max(int64_t, 0LL), std::vector<long long> as an
// IntArrayRef). glibc's own __int64_t stays `long`.
#ifndef _BITS_STDINT_INTN_H
#define _BITS_STDINT_INTN_H 1
#include <bits/types.h>
typedef __int8_t int8_t;
typedef __int16_t int16_t;
typedef __int32_t int32_t;
typedef long long int64_t;
#endif
