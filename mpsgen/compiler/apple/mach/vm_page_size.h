// mpsgen's stand-in for the SDK's mach/vm_page_size.h.
#pragma once
#include <stddef.h>
typedef unsigned long vm_size_t;
extern "C" vm_size_t vm_page_size;
extern "C" vm_size_t vm_page_mask;
