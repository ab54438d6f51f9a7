// mpsgen's stand-in for the SDK's mach-o/dyld.h.
#pragma once
#include <stdint.h>
struct mach_header;
struct mach_header_64;
extern "C" {
uint32_t _dyld_image_count(void);
const struct mach_header* _dyld_get_image_header(uint32_t image_index);
const char* _dyld_get_image_name(uint32_t image_index);
int _NSGetExecutablePath(char* buf, uint32_t* bufsize);
}
