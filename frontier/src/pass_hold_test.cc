// PassLock / PassScope: how long a command's lock lasts, seen from another
// thread (try_lock there tells whether this thread still holds it).

#include "crawlfront/frontier/pass_hold.h"

#include <gtest/gtest.h>

#include <thread>

namespace crawlfront {
namespace {

bool FreeElsewhere(AdaptiveMutex& mu) {
  bool got = false;
  std::thread([&] {
    got = mu.try_lock();
    if (got) mu.unlock();
  }).join();
  return got;
}

TEST(PassHoldTest, OutsideAPassTheLockEndsWithItsScope) {
  AdaptiveMutex mu;
  {
    PassLock lock(mu);
    EXPECT_FALSE(FreeElsewhere(mu));
  }
  EXPECT_TRUE(FreeElsewhere(mu));
}

TEST(PassHoldTest, InsideAPassTheLockLastsUntilThePassEnds) {
  AdaptiveMutex a, b;
  {
    PassScope pass;
    { PassLock lock(a); }
    EXPECT_FALSE(FreeElsewhere(a));  // kept for the next command
    { PassLock again(a); }           // reused, not locked twice
    EXPECT_FALSE(FreeElsewhere(a));
    { PassLock other(b); }  // one held lock per thread: a is let go
    EXPECT_TRUE(FreeElsewhere(a));
    EXPECT_FALSE(FreeElsewhere(b));
    PassScope::Release();  // what the server does before other commands
    EXPECT_TRUE(FreeElsewhere(b));
    { PassLock lock(a); }
  }
  EXPECT_TRUE(FreeElsewhere(a));  // the pass ended
  { PassLock after(a); }          // outside a pass again: scoped, not kept
  EXPECT_TRUE(FreeElsewhere(a));
}

}  // namespace
}  // namespace crawlfront
