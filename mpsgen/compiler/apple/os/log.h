// mpsgen's stand-in for the SDK's os/log.h: a log is an Objective-C object, as in the SDK.
#pragma once
#include <mpsgen_objc_base.h>
#include <stdint.h>

@protocol OS_os_log <NSObject>
@end
typedef NSObject<OS_os_log>* os_log_t;
typedef uint8_t os_log_type_t;
#define OS_LOG_TYPE_DEFAULT ((os_log_type_t)0x00)
#define OS_LOG_TYPE_INFO ((os_log_type_t)0x01)
#define OS_LOG_TYPE_DEBUG ((os_log_type_t)0x02)
#define OS_LOG_TYPE_ERROR ((os_log_type_t)0x10)
#define OS_LOG_DEFAULT ((os_log_t)nullptr)
extern "C" {
os_log_t os_log_create(const char* subsystem, const char* category);
void os_release(void* object);
void* os_retain(void* object);
void mpsgen_os_log_sink(os_log_t log, ...);
}
#define os_log(log, format, ...) mpsgen_os_log_sink(log, "" format, ##__VA_ARGS__)
#define os_log_info(log, format, ...) mpsgen_os_log_sink(log, "" format, ##__VA_ARGS__)
#define os_log_debug(log, format, ...) mpsgen_os_log_sink(log, "" format, ##__VA_ARGS__)
#define os_log_error(log, format, ...) mpsgen_os_log_sink(log, "" format, ##__VA_ARGS__)
#define os_log_with_type(log, type, format, ...) mpsgen_os_log_sink(log, type, "" format, ##__VA_ARGS__)
