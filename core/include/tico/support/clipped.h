// Echoing names from files and command lines in messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tico {

// `text` as it may be echoed in a message: names come from files and command lines and can be
// megabytes long, so anything past `limit` bytes is cut (at a UTF-8 character boundary) and
// replaced by "... (N bytes)".
std::string clipped(std::string_view text, std::size_t limit = 200);

} // namespace tico
