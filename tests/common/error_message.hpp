// The tests' way to look at a refusal: run an action and return the one-line
// message of the cello::Error it throws, so a check can compare the whole line
// (file, place and reason) or match part of it.
#pragma once

#include <string>
#include <utility>

#include "sw/common/error.hpp"

namespace cello::test {

// The message of the cello::Error that `action()` throws; "" when it returns
// normally (any other exception passes through and fails the test).
template <class Action>
std::string error_message(Action&& action) {
  try {
    std::forward<Action>(action)();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace cello::test
