// mpsgen's stand-in for the SDK's mach/vm_param.h (arm64: the page size is a variable).
#pragma once
#include <mach/vm_page_size.h>
#define PAGE_SIZE vm_page_size
#define PAGE_MASK vm_page_mask
