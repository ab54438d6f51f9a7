// mpsgen's stand-in for the SDK's os/signpost.h. As in the SDK, the name and format of a signpost
// must be string literals.
#pragma once
#include <os/log.h>
#include <stdint.h>

typedef uint64_t os_signpost_id_t;
#define OS_SIGNPOST_ID_NULL ((os_signpost_id_t)0)
#define OS_SIGNPOST_ID_INVALID ((os_signpost_id_t)~0)
#define OS_SIGNPOST_ID_EXCLUSIVE ((os_signpost_id_t)0xEEEEB0B5B2B2EEEE)
typedef enum os_signpost_type_t : uint8_t {
  OS_SIGNPOST_EVENT = 0x00,
  OS_SIGNPOST_INTERVAL_BEGIN = 0x01,
  OS_SIGNPOST_INTERVAL_END = 0x02,
} os_signpost_type_t;
extern "C" {
os_signpost_id_t os_signpost_id_generate(os_log_t log);
os_signpost_id_t os_signpost_id_make_with_pointer(os_log_t log, const void* ptr);
bool os_signpost_enabled(os_log_t log);
void mpsgen_os_signpost_sink(os_log_t log, os_signpost_id_t spid, const char* name, ...);
}
#define os_signpost_event_emit(log, spid, name, ...) mpsgen_os_signpost_sink(log, spid, "" name, ##__VA_ARGS__)
#define os_signpost_interval_begin(log, spid, name, ...) mpsgen_os_signpost_sink(log, spid, "" name, ##__VA_ARGS__)
#define os_signpost_interval_end(log, spid, name, ...) mpsgen_os_signpost_sink(log, spid, "" name, ##__VA_ARGS__)
#define os_signpost_emit_with_type(log, type, spid, name, ...) mpsgen_os_signpost_sink(log, spid, "" name, ##__VA_ARGS__)
