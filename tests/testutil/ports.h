#pragma once
// Loopback ports for tests that need one before a process binds it.

#include <cstdint>

namespace crawlfront::testutil {

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0 and
// released): for a peer that must not answer, or a daemon that cannot
// report the port it picked. 0 if none could be had.
uint16_t UnusedLoopbackPort();

}  // namespace crawlfront::testutil
