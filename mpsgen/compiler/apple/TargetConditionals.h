// mpsgen's stand-in for the SDK's TargetConditionals.h: a macOS build.
#pragma once
#define TARGET_OS_MAC 1
#define TARGET_OS_OSX 1
#define TARGET_OS_IPHONE 0
#define TARGET_OS_IOS 0
#define TARGET_OS_SIMULATOR 0
#define TARGET_IPHONE_SIMULATOR 0
#define TARGET_OS_MACCATALYST 0
#define TARGET_CPU_ARM64 1
