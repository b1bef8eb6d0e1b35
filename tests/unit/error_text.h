// The message of the tico::Error a call throws, for tests that check what an error says.
#pragma once

#include "tico/support/error.h"

#include <functional>
#include <string>

namespace tico::testing_support {

// "(no error)" when `f` returns normally.
inline std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace tico::testing_support
