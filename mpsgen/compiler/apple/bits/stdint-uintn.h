// mpsgen: Darwin's 64-bit integer types on glibc (see stdint-intn.h beside this file).
#ifndef _BITS_STDINT_UINTN_H
#define _BITS_STDINT_UINTN_H 1
#include <bits/types.h>
typedef __uint8_t uint8_t;
typedef __uint16_t uint16_t;
typedef __uint32_t uint32_t;
typedef unsigned long long uint64_t;
#endif
