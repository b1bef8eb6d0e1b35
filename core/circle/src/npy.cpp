// NumPy .npy reading (memory-mapped) and writing.
//
// Layout: magic "\x93NUMPY", major and minor version bytes, header length (uint16 in 1.0,
// uint32 in 2.0/3.0, little-endian), then a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline so the data that follows starts aligned.
#include "tico/io/npy.h"

#include "tico/support/checked.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <map>
#include <optional>
#include <unistd.h>
#include <variant>

namespace tico {
namespace {

// TensorData holds elements in host byte order; .npy files here are little-endian.
static_assert(std::endian::native == std::endian::little, "the .npy I/O assumes a little-endian host");

constexpr std::array<unsigned char, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};
// numpy aligns the data to 64 bytes (enough for any vector load).
constexpr std::size_t kAlignment = 64;

struct TypeCode {
  std::string_view code; // descr without the byte-order character
  DType dtype;
};

constexpr std::array<TypeCode, 14> kTypeCodes = {{
    {"b1", DType::Bool},
    {"u1", DType::UInt8},
    {"i1", DType::Int8},
    {"i2", DType::Int16},
    {"i4", DType::Int32},
    {"i8", DType::Int64},
    {"u2", DType::UInt16},
    {"u4", DType::UInt32},
    {"u8", DType::UInt64},
    {"f2", DType::Float16},
    {"f4", DType::Float32},
    {"f8", DType::Float64},
    {"c8", DType::Complex64},
    {"c16", DType::Complex128},
}};

// ---- header dict -------------------------------------------------------------------------

struct Tuple {
  std::vector<int64_t> items;
};
struct Unsupported {
  std::string what; // "a list", ...
};
using HeaderValue = std::variant<std::string, bool, Tuple, Unsupported>;

// A recursive-descent reader for the small subset of Python literals numpy writes.
class HeaderParser {
public:
  HeaderParser(std::string_view text, const std::string &path) : text_(text), path_(path) {}

  std::map<std::string, HeaderValue> parseDict() {
    std::map<std::string, HeaderValue> dict;
    expect('{');
    while (true) {
      skipSpace();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = parseString();
      expect(':');
      HeaderValue value = parseValue();
      if (!dict.emplace(key, std::move(value)).second)
        fail("key '" + key + "' appears twice");
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      break;
    }
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the header dictionary");
    return dict;
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw Error("'" + path_ + "': malformed .npy header: " + message + " (at offset " +
                std::to_string(pos_) + " of \"" + std::string(text_) + "\")");
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  void expect(char c) {
    if (peek() != c)
      fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  std::string parseString() {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a string");
    std::size_t end = text_.find(quote, ++pos_);
    if (end == std::string_view::npos)
      fail("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }

  int64_t parseInt() {
    skipSpace();
    std::size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    if (start == pos_)
      fail("expected a non-negative integer");
    // numpy writes Python ints; a trailing L comes from Python 2.
    std::string digits(text_.substr(start, pos_ - start));
    if (pos_ < text_.size() && text_[pos_] == 'L')
      ++pos_;
    if (digits.size() > 18)
      fail("dimension " + digits + " is too large");
    return std::stoll(digits);
  }

  HeaderValue parseValue() {
    char c = peek();
    if (c == '\'' || c == '"')
      return parseString();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    if (c == '(') {
      ++pos_;
      Tuple t;
      while (peek() != ')') {
        t.items.push_back(parseInt());
        if (peek() == ',')
          ++pos_;
        else if (peek() != ')')
          fail("expected ',' or ')' in the shape");
      }
      ++pos_;
      return t;
    }
    if (c == '[') {
      skipBalanced('[', ']');
      return Unsupported{"a list"};
    }
    if (c == '{') {
      skipBalanced('{', '}');
      return Unsupported{"a dictionary"};
    }
    fail("unexpected value");
  }

  void skipBalanced(char open, char close) {
    int depth = 0;
    for (; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == open)
        ++depth;
      else if (text_[pos_] == close && --depth == 0) {
        ++pos_;
        return;
      }
    }
    fail(std::string("unbalanced '") + open + "'");
  }

  std::string_view text_;
  const std::string &path_;
  std::size_t pos_ = 0;
};

DType parseDescr(const std::string &descr, const std::string &path) {
  auto bad = [&](const std::string &why) {
    return Error("'" + path + "': " + why + " (descr '" + descr + "'); supported: bool, int8-64, uint8-64, "
                 "float16/32/64, complex64/128 in little-endian byte order");
  };
  if (descr.empty())
    throw bad("empty dtype");
  char order = descr[0];
  std::string_view code = descr;
  if (order == '<' || order == '>' || order == '|' || order == '=')
    code.remove_prefix(1);
  else
    order = '=';
  if (code == "O")
    throw bad("object arrays are not supported");
  for (const TypeCode &t : kTypeCodes) {
    if (t.code != code)
      continue;
    if (order == '>' && elementSize(t.dtype) > 1)
      throw bad("big-endian data is not supported");
    return t.dtype;
  }
  throw bad("unsupported dtype");
}

std::string descrOf(DType dtype) {
  for (const TypeCode &t : kTypeCodes)
    if (t.dtype == dtype)
      return (elementSize(dtype) == 1 ? "|" : "<") + std::string(t.code);
  throw Error("cannot write a " + std::string(torchDTypeName(dtype)) + " tensor as .npy: NumPy has no such dtype");
}

uint32_t readLittleEndian(const std::byte *p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// ---- writing -----------------------------------------------------------------------------

std::string headerFor(const TensorData &data) {
  std::string shape = "(";
  for (std::size_t i = 0; i < data.sizes.size(); ++i) {
    if (i)
      shape += ", ";
    shape += std::to_string(data.sizes[i]);
  }
  if (data.sizes.size() == 1)
    shape += ",";
  shape += ")";
  std::string dict = "{'descr': '" + descrOf(data.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t preamble = kMagic.size() + 2 + 2; // magic, version, uint16 length
  std::size_t total = preamble + dict.size() + 1;     // + the terminating newline
  dict.append((kAlignment - total % kAlignment) % kAlignment, ' ');
  dict += '\n';
  if (dict.size() > std::numeric_limits<uint16_t>::max())
    throw Error("the .npy header for a rank-" + std::to_string(data.sizes.size()) +
                " tensor does not fit a version 1.0 file");
  std::string out(reinterpret_cast<const char *>(kMagic.data()), kMagic.size());
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

void writeAll(int fd, const void *data, std::size_t size, const std::string &path) {
  const char *p = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw Error("cannot write '" + path + "': " + std::strerror(errno));
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

} // namespace

namespace {

struct NpyLayout {
  DType dtype = DType::Unknown;
  std::vector<int64_t> sizes;
  std::size_t data_offset = 0;
  std::size_t nbytes = 0;
};

// Reads the header: the dtype, the shape and where the data starts; `size` bytes are present
// (at least the whole header).
NpyLayout parseNpyHeader(const std::byte *p, std::size_t size, const std::string &path) {
  if (size < 10 || std::memcmp(p, kMagic.data(), kMagic.size()) != 0)
    throw Error("'" + path + "' is not a .npy file (missing the \\x93NUMPY magic)");
  const int major = static_cast<int>(p[6]), minor = static_cast<int>(p[7]);
  std::size_t header_start;
  uint32_t header_len;
  if (major == 1 && size >= 10) {
    header_start = 10;
    header_len = readLittleEndian(p + 8, 2);
  } else if ((major == 2 || major == 3) && size >= 12) {
    header_start = 12;
    header_len = readLittleEndian(p + 8, 4);
  } else {
    throw Error("'" + path + "': unsupported .npy format version " + std::to_string(major) + "." +
                std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  if (header_len > size - header_start)
    throw Error("'" + path + "': truncated .npy header (" + std::to_string(header_len) + " bytes announced, " +
                std::to_string(size - header_start) + " present)");
  std::string_view header(reinterpret_cast<const char *>(p + header_start), header_len);
  auto dict = HeaderParser(header, path).parseDict();

  for (const char *key : {"descr", "fortran_order", "shape"})
    if (!dict.count(key))
      throw Error("'" + path + "': malformed .npy header: no '" + key + "' key");
  if (dict.size() != 3)
    for (const auto &[key, value] : dict)
      if (key != "descr" && key != "fortran_order" && key != "shape")
        throw Error("'" + path + "': malformed .npy header: unexpected key '" + key + "'");
  if (const auto *u = std::get_if<Unsupported>(&dict["descr"]))
    throw Error("'" + path + "': structured dtypes (descr is " + u->what + ") are not supported");
  const auto *descr = std::get_if<std::string>(&dict["descr"]);
  const auto *fortran = std::get_if<bool>(&dict["fortran_order"]);
  const auto *shape = std::get_if<Tuple>(&dict["shape"]);
  if (!descr || !fortran || !shape)
    throw Error("'" + path + "': malformed .npy header: 'descr' must be a string, 'fortran_order' a bool, "
                "'shape' a tuple of integers");
  if (*fortran && shape->items.size() > 1)
    throw Error("'" + path + "': Fortran-order (column-major) arrays are not supported; save a C-order array "
                "(numpy.ascontiguousarray)");
  const DType dtype = parseDescr(*descr, path);

  const auto nbytes = static_cast<std::size_t>(checkedByteSize(shape->items, elementSize(dtype), "'" + path + "'"));
  const std::size_t data_offset = header_start + header_len;
  if (nbytes > std::numeric_limits<std::size_t>::max() - data_offset)
    throw Error("'" + path + "': the header's shape needs more bytes than a file can hold");
  return {dtype, shape->items, data_offset, nbytes};
}

// Checks the whole file image (header and data size) and says where the elements are.
NpyLayout parseNpyImage(const std::byte *p, std::size_t size, const std::string &path) {
  NpyLayout layout = parseNpyHeader(p, size, path);
  const std::size_t data_offset = layout.data_offset, nbytes = layout.nbytes;
  if (size - data_offset < nbytes)
    throw Error("'" + path + "': truncated .npy data (" + std::to_string(nbytes) + " bytes expected, " +
                std::to_string(size - data_offset) + " present)");
  // NumPy writes nothing after the data; extra bytes mean a damaged file or a wrong header
  // (e.g. a shape that was edited), and reading only a prefix would hide that.
  if (size - data_offset > nbytes)
    throw Error("'" + path + "': " + std::to_string(size - data_offset - nbytes) +
                " unexpected bytes after the .npy data (the header's shape and dtype need " + std::to_string(nbytes) +
                " bytes, the file holds " + std::to_string(size - data_offset) + " after its header)");
  return layout;
}

} // namespace

std::shared_ptr<const TensorData> readNpy(const std::string &path) {
  auto file = MappedFile::open(path);
  NpyLayout layout = parseNpyImage(file->data(), file->size(), path);
  auto data = std::make_shared<TensorData>();
  data->dtype = layout.dtype;
  data->sizes = std::move(layout.sizes);
  data->strides = TensorData::contiguousStrides(data->sizes);
  data->storage = Storage::fromMapped(std::move(file), layout.data_offset, layout.nbytes);
  return data;
}

std::shared_ptr<const TensorData> parseNpy(std::span<const std::byte> bytes, const std::string &name) {
  NpyLayout layout = parseNpyImage(bytes.data(), bytes.size(), name);
  auto data = std::make_shared<TensorData>();
  data->dtype = layout.dtype;
  data->sizes = std::move(layout.sizes);
  data->strides = TensorData::contiguousStrides(data->sizes);
  const std::byte *first = bytes.data() + layout.data_offset;
  data->storage = Storage::fromBytes(std::vector<std::byte>(first, first + layout.nbytes));
  return data;
}

std::shared_ptr<const TensorData> adoptNpy(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                                           const std::string &name) {
  NpyLayout layout = parseNpyImage(bytes.data(), bytes.size(), name);
  auto data = std::make_shared<TensorData>();
  data->dtype = layout.dtype;
  data->sizes = std::move(layout.sizes);
  data->strides = TensorData::contiguousStrides(data->sizes);
  data->storage = Storage::fromExternal(bytes.data() + layout.data_offset, layout.nbytes, std::move(owner));
  return data;
}

std::size_t npyImageSize(std::span<const std::byte> prefix, const std::string &name) {
  const NpyLayout layout = parseNpyHeader(prefix.data(), prefix.size(), name);
  return layout.data_offset + layout.nbytes;
}

void writeNpy(const std::string &path, const TensorData &data) {
  data.checkBounds();
  const std::string header = headerFor(data);

  // Written beside the target and renamed into place (writeFileSafely), so a failure never
  // leaves a partial file under the requested name.
  writeFileSafely(path, ".npy file", [&](int fd) {
    writeAll(fd, header.data(), header.size(), path);
    if (data.isContiguous()) {
      writeAll(fd, data.data(), data.nbytes(), path);
    } else {
      std::vector<std::byte> bytes = data.contiguousBytes();
      writeAll(fd, bytes.data(), bytes.size(), path);
    }
  });
}

} // namespace tico
