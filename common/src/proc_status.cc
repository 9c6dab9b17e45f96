#include "crawlfront/common/proc_status.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace crawlfront {

uint64_t ProcStatusKb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0)
      return std::strtoull(line.c_str() + std::strlen(field), nullptr, 10);
  }
  return 0;
}

}  // namespace crawlfront
