// Constant tensor payloads that can live inside a memory-mapped file without being copied.
//
// A Storage is a flat block of bytes (a PyTorch untyped storage). A TensorData is a strided
// view into one Storage, exactly as torch describes it (sizes, strides and offset in
// elements). Tied weights are two TensorData objects sharing one Storage; identity, never
// equal contents, decides sharing downstream.
#pragma once

#include "tico/ir/dtype.h"

#include <cstddef>
#include <cstring>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tico {

// A read-only memory mapping of a whole file. Shared by every Storage that points into it,
// so the mapping lives as long as any constant still refers to it.
class MappedFile {
public:
  // Maps `path` read-only. Throws tico::Error (with the OS reason) on failure.
  static std::shared_ptr<const MappedFile> open(const std::string &path);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  const std::byte *data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string &path() const { return path_; }
  // An open descriptor of the file (for copy_file_range / pread); owned by this object.
  int fd() const { return fd_; }

  // Tells the kernel the range has been consumed, so its pages leave this process's
  // resident set (they stay in the page cache). Used while streaming weights out.
  void release(std::size_t offset, std::size_t length) const;

private:
  MappedFile() = default;
  std::string path_;
  int fd_ = -1;
  const std::byte *data_ = nullptr;
  std::size_t size_ = 0;
};

// A flat block of bytes: either owned memory or a slice of a MappedFile.
class Storage {
public:
  static std::shared_ptr<const Storage> fromBytes(std::vector<std::byte> bytes);
  static std::shared_ptr<const Storage> fromMapped(std::shared_ptr<const MappedFile> file,
                                                   std::size_t offset, std::size_t size);
  // Bytes owned by someone else (e.g. a buffer an evaluator computed); `keepalive` holds that
  // owner for as long as the Storage lives, so results are adopted without a copy.
  static std::shared_ptr<const Storage> fromExternal(const std::byte *data, std::size_t size,
                                                     std::shared_ptr<const void> keepalive);
  // The elements of `source` (of type `from`) converted to `to`, element i to element i, so
  // every strided view of the source is the same view of this one. The conversions: Float16 or
  // BFloat16 to Float32 (exact: both are subsets of float32), and BFloat16 to Float16 (exact
  // for values whose magnitude is 0, inf, nan or in [2^-14, 65504]; values below 2^-14 land on
  // float16's subnormal grid, rounded to nearest even, an error of at most 2^-25; values above
  // 65504 become inf, so callers check the range first: float16Range()).
  // Nothing is converted here: the Circle writer converts while it streams, chunk by chunk from
  // the source (a mapped .pt2 is read once and its pages released), and data() converts the
  // whole storage once, on first use, for the few readers that need bytes in memory (constant
  // folding, passes that inspect small constants). Throws tico::Error for other pairs.
  static std::shared_ptr<const Storage> converted(std::shared_ptr<const Storage> source, DType from, DType to);
  static std::shared_ptr<const Storage> widenedToFloat32(std::shared_ptr<const Storage> source, DType from) {
    return converted(std::move(source), from, DType::Float32);
  }

  // The bytes. For a converted storage, converting (once, thread-safely) on the first call.
  const std::byte *data() const;
  std::size_t size() const { return size_; }

  // For a converted storage: the storage it converts, that storage's element type and the
  // element type of this one; null and Unknown otherwise. Writers use them to convert while
  // streaming instead of calling data().
  const std::shared_ptr<const Storage> &convertedFrom() const { return converted_from_; }
  DType convertedFromDType() const { return converted_from_dtype_; }
  DType convertedToDType() const { return converted_to_dtype_; }

  // Where the bytes sit in a file, when they come from one (lets writers copy file ranges
  // in the kernel instead of through user memory).
  const MappedFile *file() const { return file_.get(); }
  std::size_t fileOffset() const { return file_offset_; }

private:
  Storage() = default;
  std::vector<std::byte> owned_;
  std::shared_ptr<const MappedFile> file_;
  std::size_t file_offset_ = 0;
  const std::byte *data_ = nullptr;
  std::size_t size_ = 0;
  std::shared_ptr<const void> keepalive_;
  std::shared_ptr<const Storage> converted_from_;
  DType converted_from_dtype_ = DType::Unknown;
  DType converted_to_dtype_ = DType::Unknown;
  mutable std::once_flag convert_once_;
  mutable std::vector<std::byte> converted_; // filled by the first data() of a converted storage
};

// Converts `count` elements of type `from` (Float16 or BFloat16) at `in` into float32 at `out`
// (exact: both types are subsets of float32). Throws tico::Error for other dtypes.
void widenToFloat32(DType from, const std::byte *in, float *out, std::size_t count);

// Converts `count` elements of type `from` at `in` into type `to` at `out`, for the pairs
// Storage::converted() takes (same rounding). Uses the CPU's F16C conversion where it has one.
void convertElements(DType from, DType to, const std::byte *in, std::byte *out, std::size_t count);

// Whether every element of `count` bfloat16 values converts to float16 without overflow
// (magnitude at most 65504, or inf / nan, which stay inf / nan), and how many of them lose bits
// (nonzero magnitudes below float16's normal range, 2^-14, that are not multiples of its
// subnormal step 2^-24).
struct Float16Range {
  bool fits = true;
  std::size_t rounded = 0;
};
Float16Range float16Range(const std::byte *bfloat16_elements, std::size_t count);

// A strided view of a Storage.
struct TensorData {
  std::shared_ptr<const Storage> storage;
  DType dtype = DType::Unknown;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;  // in elements
  int64_t storage_offset = 0;    // in elements

  int64_t numel() const;
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * elementSize(dtype); }
  bool isContiguous() const;
  // Pointer to the first element (valid for contiguous views, and as a base for strided ones).
  const std::byte *data() const;

  // Throws tico::Error when the view reaches outside its storage.
  void checkBounds() const;

  // The view's elements in row-major order, as a fresh owned buffer.
  std::vector<std::byte> contiguousBytes() const;
  // Writes the view's elements in row-major order into `out` (size nbytes()).
  void copyContiguousTo(std::byte *out) const;

  // Owned, contiguous tensor from raw bytes.
  static TensorData fromBytes(DType dtype, std::vector<int64_t> sizes, std::vector<std::byte> bytes);
  template <typename T>
  static TensorData fromVector(DType dtype, std::vector<int64_t> sizes, const std::vector<T> &values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if (!bytes.empty())
      std::memcpy(bytes.data(), values.data(), bytes.size());
    return fromBytes(dtype, std::move(sizes), std::move(bytes));
  }

  // Contiguous strides for `sizes`.
  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &sizes);

  // Same storage, same view. This is what "shared weight" means for the serializer.
  bool sameView(const TensorData &other) const;
  // Same dtype, sizes and elements (bitwise), whatever the storage; contiguous views are compared
  // where they are, without a copy.
  bool sameElements(const TensorData &other) const;

  // For a reader done with a large constant: when the view's bytes are mapped from a file, their
  // pages leave this process's resident set (the page cache keeps them and the next read maps
  // them back). A no-op for owned memory. Layer-wise calibration and the weight quantizers call
  // it so a model larger than RAM never has all its weights resident at once.
  void releasePages() const;
};

} // namespace tico
