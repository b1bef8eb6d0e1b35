#include "text_common.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace tico::text {
namespace {
struct LayoutEntry {
  Layout layout;
  std::string_view name;
};
constexpr LayoutEntry kLayouts[] = {
    {Layout::Unknown, "unknown"},     {Layout::SparseCoo, "sparse_coo"}, {Layout::SparseCsr, "sparse_csr"},
    {Layout::SparseCsc, "sparse_csc"}, {Layout::SparseBsr, "sparse_bsr"}, {Layout::SparseBsc, "sparse_bsc"},
    {Layout::Mkldnn, "mkldnn"},       {Layout::Strided, "strided"},
};
struct FormatEntry {
  MemoryFormat format;
  std::string_view name;
};
constexpr FormatEntry kFormats[] = {
    {MemoryFormat::Unknown, "unknown"},
    {MemoryFormat::Contiguous, "contiguous"},
    {MemoryFormat::ChannelsLast, "channels_last"},
    {MemoryFormat::ChannelsLast3d, "channels_last_3d"},
    {MemoryFormat::Preserve, "preserve"},
};

std::string ensureFloatLooking(std::string s) {
  if (s.find_first_of(".eEn") == std::string::npos) // "nan"/"inf" contain 'n'
    s += ".0";
  return s;
}
} // namespace

std::string_view layoutName(Layout layout) {
  for (const auto &e : kLayouts)
    if (e.layout == layout)
      return e.name;
  return "unknown";
}

bool parseLayoutName(std::string_view name, Layout &out) {
  for (const auto &e : kLayouts)
    if (e.name == name) {
      out = e.layout;
      return true;
    }
  return false;
}

std::string_view memoryFormatName(MemoryFormat format) {
  for (const auto &e : kFormats)
    if (e.format == format)
      return e.name;
  return "unknown";
}

bool parseMemoryFormatName(std::string_view name, MemoryFormat &out) {
  for (const auto &e : kFormats)
    if (e.name == name) {
      out = e.format;
      return true;
    }
  return false;
}

std::string formatDouble(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buf[64];
  // Shortest of %.15g..%.17g that reads back exactly.
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value)
      break;
  }
  return ensureFloatLooking(buf);
}

std::string formatFloat(float value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buf[64];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buf, nullptr) == value)
      break;
  }
  return ensureFloatLooking(buf);
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

bool printsAsNumbers(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::UInt8:
  case DType::Int8:
  case DType::UInt4:
  case DType::Int4:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
  case DType::Float32:
  case DType::Float64:
    return true;
  default:
    return false;
  }
}

} // namespace tico::text
