#include "crawlfront/frontier/pass_hold.h"

namespace crawlfront {
namespace {

thread_local bool in_pass = false;
thread_local AdaptiveMutex* held = nullptr;

}  // namespace

PassScope::PassScope() { in_pass = true; }

PassScope::~PassScope() {
  Release();
  in_pass = false;
}

void PassScope::Release() {
  if (held == nullptr) return;
  held->unlock();
  held = nullptr;
}

PassLock::PassLock(AdaptiveMutex& mu) {
  if (!in_pass) {
    mu.lock();
    scoped_ = &mu;
    return;
  }
  if (held == &mu) return;
  PassScope::Release();  // one held lock per thread: no lock-order cycles
  mu.lock();
  held = &mu;
}

PassLock::~PassLock() {
  if (scoped_ != nullptr) scoped_->unlock();
}

}  // namespace crawlfront
