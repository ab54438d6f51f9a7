// mpsgen's stand-in for the SDK's mach-o/getsect.h.
#pragma once
#include <mach-o/dyld.h>
#include <stdint.h>
extern "C" {
uint8_t* getsectiondata(const struct mach_header_64* mhp, const char* segname, const char* sectname, unsigned long* size);
char* getsectdata(const char* segname, const char* sectname, unsigned long* size);
}
