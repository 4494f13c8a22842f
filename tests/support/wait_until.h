// Waiting in a test for something another thread, process or server does:
// polled with pauses that grow, not in a loop that spins a core (and, when the
// condition is an RPC, sends the server one call after another) until a
// deadline.
#ifndef PROFDIFF_TESTS_SUPPORT_WAIT_UNTIL_H_
#define PROFDIFF_TESTS_SUPPORT_WAIT_UNTIL_H_

#include <functional>

#include <absl/time/time.h>

namespace profdiff::test_support {

// Calls `condition` until it returns true or `timeout` has passed: at once,
// then after pauses doubling from 1 ms to at most 50 ms, the last call at the
// deadline. Returns whether it became true. A condition that keeps what it
// read (a captured variable) lets the caller print it when it did not.
[[nodiscard]] bool WaitUntil(const std::function<bool()>& condition,
                             absl::Duration timeout);

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_WAIT_UNTIL_H_
