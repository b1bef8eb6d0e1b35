// Integer fields of untrusted JSON (manifests and metadata read from files) without undefined
// behaviour: nlohmann's get<T>() converts with a plain C++ cast, so 1e300 or -1.0 read into an
// integer type, or -1 into an unsigned one, is undefined or wraps silently. Header-only and
// generic over the JSON type, so this header does not pull nlohmann into the public API.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace tico {

// The value of `v` as T when it is a JSON integer that T holds; nullopt for a float, a string,
// a negative number into an unsigned T or anything out of T's range.
template <class T, class Json> std::optional<T> jsonInteger(const Json &v) {
  if (v.is_number_unsigned()) {
    const auto u = v.template get<std::uint64_t>();
    if (std::in_range<T>(u))
      return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    const auto i = v.template get<std::int64_t>();
    if (std::in_range<T>(i))
      return static_cast<T>(i);
  }
  return std::nullopt;
}

} // namespace tico
