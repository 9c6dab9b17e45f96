#pragma once
// Reads this process's /proc/self/status (memory figures for INFO, the
// status page and benchmarks).

#include <cstdint>

namespace crawlfront {

// The value of a kB field such as "VmRSS:" or "VmHWM:", in KiB; 0 if the
// field or the file is missing.
uint64_t ProcStatusKb(const char* field);

}  // namespace crawlfront
