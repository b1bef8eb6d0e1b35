#include "batch_support.h"

#include <tico/support/error.h>

#include <algorithm>
#include <cctype>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace tico::calib {

namespace fs = std::filesystem;

bool naturalLess(const std::string &a, const std::string &b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      // Compare the digit runs as numbers: skip leading zeros, then the longer run is larger.
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei]))
        ++ei;
      while (ej < b.size() && digit(b[ej]))
        ++ej;
      std::size_t zi = i, zj = j;
      while (zi + 1 < ei && a[zi] == '0')
        ++zi;
      while (zj + 1 < ej && b[zj] == '0')
        ++zj;
      if (ei - zi != ej - zj)
        return ei - zi < ej - zj;
      if (int c = a.compare(zi, ei - zi, b, zj, ej - zj); c != 0)
        return c < 0;
      // Equal values ("07" and "7"): the shorter spelling first, so the order stays total.
      if (ei - i != ej - j)
        return ei - i < ej - j;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j])
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<fs::path> listDirectory(const fs::path &dir, bool (*keep)(const fs::directory_entry &)) {
  std::vector<fs::path> found;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec)
    throw Error("cannot read the directory '" + dir.string() + "': " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec)
      throw Error("cannot read the directory '" + dir.string() + "': " + ec.message());
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] != '.' && keep(*it))
      found.push_back(it->path());
  }
  std::sort(found.begin(), found.end(),
            [](const fs::path &x, const fs::path &y) { return naturalLess(x.filename().string(), y.filename().string()); });
  return found;
}

bool isNpyFile(const fs::directory_entry &e) {
  std::error_code ec;
  return e.path().extension() == ".npy" && e.is_regular_file(ec);
}

bool isNpzFile(const fs::directory_entry &e) {
  std::error_code ec;
  return e.path().extension() == ".npz" && e.is_regular_file(ec);
}

bool isBatchDirectory(const fs::directory_entry &e) {
  std::error_code ec;
  if (!e.is_directory(ec))
    return false;
  for (fs::directory_iterator it(e.path(), ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (isNpyFile(*it))
      return true;
  return false;
}

std::size_t limitBatches(std::size_t available, const CalibrationRequest &request) {
  return request.batches ? std::min(available, *request.batches) : available;
}

std::string inputLabel(const std::vector<CalibrationInput> &inputs, std::size_t index) {
  return "input " + std::to_string(index) + " ('" + inputs.at(index).name + "')";
}

void checkDType(const TensorData &array, const std::vector<CalibrationInput> &inputs, std::size_t index,
                const std::string &where) {
  const DType want = inputs.at(index).dtype;
  if (array.dtype == want || want == DType::Unknown)
    return;
  throw Error(where + " holds " + std::string(torchDTypeName(array.dtype)) + " data but " + inputLabel(inputs, index) +
              " is " + std::string(torchDTypeName(want)) + " (convert it when saving, e.g. array.astype(...))");
}

namespace {

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

} // namespace

void failUnmatched(const std::string &where, const std::vector<std::string> &missing,
                   const std::vector<std::string> &unused, const std::vector<CalibrationInput> &inputs) {
  std::string message = where + ": ";
  if (!missing.empty())
    message += "no array for input" + std::string(missing.size() > 1 ? "s " : " ") + joined(missing);
  if (!unused.empty())
    message += std::string(missing.empty() ? "" : "; ") + "array" + (unused.size() > 1 ? "s " : " ") +
               joined(unused) + " match" + (unused.size() > 1 ? "" : "es") + " no input";
  std::vector<std::string> names;
  for (const CalibrationInput &in : inputs)
    names.push_back(in.name);
  message += " (the graph's inputs, in order: " + joined(names) + "; arrays are named after an input or its index)";
  throw Error(message);
}

namespace {

template <typename T>
void put(std::byte *base, std::size_t i, T value) {
  std::memcpy(base + i * sizeof(T), &value, sizeof(T));
}

// float32 -> float16 bits, rounding to nearest even; overflow goes to infinity.
uint16_t halfBits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) // rounds past the largest half (65504)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) { // below the smallest normal half: a subnormal (or zero)
    const int shift = 126 - static_cast<int>(abs >> 23);
    if (shift > 24)
      return static_cast<uint16_t>(sign);
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    uint32_t h = mant >> (shift);
    const uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u)))
      ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h;
  return static_cast<uint16_t>(sign | h);
}

uint16_t bfloatBits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u); // keep NaN a NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

} // namespace

void storeFloat(DType dtype, std::byte *base, std::size_t i, double value) {
  switch (dtype) {
  case DType::Float32:
    return put(base, i, static_cast<float>(value));
  case DType::Float64:
    return put(base, i, value);
  case DType::Float16:
    return put(base, i, halfBits(static_cast<float>(value)));
  case DType::BFloat16:
    return put(base, i, bfloatBits(static_cast<float>(value)));
  default:
    throw Error("cannot make " + std::string(torchDTypeName(dtype)) + " data from a floating-point value");
  }
}

uint64_t integerMax(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return 1;
  case DType::UInt8:
    return std::numeric_limits<uint8_t>::max();
  case DType::Int8:
    return std::numeric_limits<int8_t>::max();
  case DType::Int16:
    return std::numeric_limits<int16_t>::max();
  case DType::UInt16:
    return std::numeric_limits<uint16_t>::max();
  case DType::Int32:
    return std::numeric_limits<int32_t>::max();
  case DType::UInt32:
    return std::numeric_limits<uint32_t>::max();
  case DType::Int64:
    return std::numeric_limits<int64_t>::max();
  case DType::UInt64:
    return std::numeric_limits<uint64_t>::max();
  default:
    throw Error("cannot make " + std::string(torchDTypeName(dtype)) + " data from an integer");
  }
}

void storeInteger(DType dtype, std::byte *base, std::size_t i, int64_t value) {
  if (isFloating(dtype))
    return storeFloat(dtype, base, i, static_cast<double>(value));
  if (dtype != DType::Bool && (value < 0 ? !(dtype == DType::Int8 || dtype == DType::Int16 || dtype == DType::Int32 ||
                                             dtype == DType::Int64) || value < -static_cast<int64_t>(integerMax(dtype)) - 1
                                         : static_cast<uint64_t>(value) > integerMax(dtype)))
    throw Error("the value " + std::to_string(value) + " does not fit " + std::string(torchDTypeName(dtype)));
  switch (dtype) {
  case DType::Bool:
    return put(base, i, static_cast<uint8_t>(value != 0));
  case DType::UInt8:
    return put(base, i, static_cast<uint8_t>(value));
  case DType::Int8:
    return put(base, i, static_cast<int8_t>(value));
  case DType::Int16:
    return put(base, i, static_cast<int16_t>(value));
  case DType::UInt16:
    return put(base, i, static_cast<uint16_t>(value));
  case DType::Int32:
    return put(base, i, static_cast<int32_t>(value));
  case DType::UInt32:
    return put(base, i, static_cast<uint32_t>(value));
  case DType::Int64:
  case DType::UInt64:
    return put(base, i, value);
  default:
    throw Error("cannot make " + std::string(torchDTypeName(dtype)) + " data from an integer");
  }
}

namespace {

bool isOptionKey(const std::string &key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || c == '_';
  });
}

} // namespace

LocationOptions splitLocationOptions(const std::string &location, const std::vector<std::string> &known) {
  LocationOptions out{location, {}};
  // Peel "key=value" items off the end (comma-separated) while they look like options; the
  // rest is the path. "random" alone and "int_high=5" alone are handled the same way.
  while (!out.path.empty()) {
    const auto comma = out.path.rfind(',');
    const std::string item = comma == std::string::npos ? out.path : out.path.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string::npos || !isOptionKey(item.substr(0, eq)))
      break;
    const std::string key = item.substr(0, eq), text = item.substr(eq + 1);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const std::string &k : known)
        list += (list.empty() ? "" : ", ") + k;
      throw Error("unknown calibration option '" + key + "' in '" + location + "' (options: " + list + ")");
    }
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      throw Error("calibration option '" + key + "' in '" + location + "' must be an integer, got '" + text + "'");
    out.options[key] = value;
    out.path = comma == std::string::npos ? std::string() : out.path.substr(0, comma);
  }
  return out;
}

} // namespace tico::calib
