#include "tico/ir/tensor_data.h"

#include "element_conversion.h"

#include "tico/support/checked.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tico {

// ---- MappedFile --------------------------------------------------------------------------

std::shared_ptr<const MappedFile> MappedFile::open(const std::string &path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; it then
  // fails the regular-file check below. Reads from regular files ignore the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    throw Error("cannot stat '" + path + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("'" + path + "' is " + describeFileType(st.st_mode) + ", not a regular file");
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->fd_ = fd;
  file->size_ = static_cast<std::size_t>(st.st_size);
  if (file->size_ > 0) {
    void *p = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
      throw Error("cannot map '" + path + "': " + std::strerror(errno));
    file->data_ = static_cast<const std::byte *>(p);
  }
  return file;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr)
    ::munmap(const_cast<std::byte *>(data_), size_);
  if (fd_ >= 0)
    ::close(fd_);
}

void MappedFile::release(std::size_t offset, std::size_t length) const {
  if (data_ == nullptr || length == 0 || offset >= size_)
    return;
  long page = ::sysconf(_SC_PAGESIZE);
  std::size_t begin = (offset + page - 1) / page * page; // only whole pages inside the range
  std::size_t end = std::min(size_, offset + length) / page * page;
  if (end > begin)
    ::madvise(const_cast<std::byte *>(data_) + begin, end - begin, MADV_DONTNEED);
}

// ---- Storage -------------------------------------------------------------------------------

std::shared_ptr<const Storage> Storage::fromBytes(std::vector<std::byte> bytes) {
  std::shared_ptr<Storage> s(new Storage());
  s->owned_ = std::move(bytes);
  s->data_ = s->owned_.data();
  s->size_ = s->owned_.size();
  return s;
}

std::shared_ptr<const Storage> Storage::fromMapped(std::shared_ptr<const MappedFile> file,
                                                   std::size_t offset, std::size_t size) {
  if (!file)
    throw Error("Storage::fromMapped: no file");
  if (offset > file->size() || size > file->size() - offset)
    throw Error("storage range [" + std::to_string(offset) + ", +" + std::to_string(size) +
                ") lies outside '" + file->path() + "' (" + std::to_string(file->size()) + " bytes)");
  std::shared_ptr<Storage> s(new Storage());
  s->data_ = file->data() + offset;
  s->size_ = size;
  s->file_offset_ = offset;
  s->file_ = std::move(file);
  return s;
}

std::shared_ptr<const Storage> Storage::fromExternal(const std::byte *data, std::size_t size,
                                                     std::shared_ptr<const void> keepalive) {
  if (data == nullptr && size != 0)
    throw Error("Storage::fromExternal: null data for " + std::to_string(size) + " bytes");
  std::shared_ptr<Storage> s(new Storage());
  s->data_ = data;
  s->size_ = size;
  s->keepalive_ = std::move(keepalive);
  return s;
}

std::shared_ptr<const Storage> Storage::converted(std::shared_ptr<const Storage> source, DType from, DType to) {
  if (!source)
    throw Error("Storage::converted: no source storage");
  if (!isElementConversion(from, to))
    throw Error("Storage::converted: cannot convert " + std::string(dtypeName(from)) + " elements to " +
                std::string(dtypeName(to)) + " (float16 and bfloat16 to float32, bfloat16 to float16 only)");
  std::shared_ptr<Storage> s(new Storage());
  // A trailing odd byte of the source (not a whole element) has no counterpart.
  s->size_ = source->size() / 2 * elementSize(to);
  s->converted_from_ = std::move(source);
  s->converted_from_dtype_ = from;
  s->converted_to_dtype_ = to;
  return s;
}

const std::byte *Storage::data() const {
  if (converted_from_) {
    std::call_once(convert_once_, [this] {
      converted_.resize(size_);
      convertElements(converted_from_dtype_, converted_to_dtype_, converted_from_->data(), converted_.data(),
                      size_ / elementSize(converted_to_dtype_));
    });
    return converted_.data();
  }
  return data_;
}

// ---- TensorData ------------------------------------------------------------------------------

int64_t TensorData::numel() const { return checkedElementCount(sizes, "tensor data"); }

std::vector<int64_t> TensorData::contiguousStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (int i = static_cast<int>(sizes.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * std::max<int64_t>(sizes[i + 1], 1);
  return strides;
}

bool TensorData::isContiguous() const {
  int64_t expected = 1;
  for (int i = static_cast<int>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] == 1)
      continue; // the stride of a size-1 dim never matters
    if (strides[i] != expected)
      return false;
    expected *= sizes[i];
  }
  return true;
}

const std::byte *TensorData::data() const {
  if (!storage)
    return nullptr;
  return storage->data() + storage_offset * static_cast<int64_t>(elementSize(dtype));
}

void TensorData::checkBounds() const {
  if (sizes.size() != strides.size())
    throw Error("tensor view has " + std::to_string(sizes.size()) + " sizes but " +
                std::to_string(strides.size()) + " strides");
  std::size_t esize = elementSize(dtype);
  if (esize == 0)
    throw Error("tensor view has an unknown element type");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0)
      throw Error("tensor view has a negative size");
    if (sizes[i] == 0)
      return; // empty views touch nothing
  }
  // The numbers may come from a file: every step is checked, since a wrapped sum could land
  // back inside the storage.
  auto overflow = [&] {
    return Error("tensor view (offset " + std::to_string(storage_offset) + ", sizes " +
                 detail::shapeListText(sizes) + ", strides " + detail::shapeListText(strides) +
                 ") reaches further than int64 can count");
  };
  int64_t lo = storage_offset, hi = storage_offset;
  std::optional<std::size_t> negative_dim;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto reach = checkedMul(sizes[i] - 1, strides[i]);
    if (!reach)
      throw overflow();
    auto &end = *reach < 0 ? lo : hi;
    auto moved = checkedAdd(end, *reach);
    if (!moved)
      throw overflow();
    end = *moved;
    if (*reach < 0 && !negative_dim)
      negative_dim = i;
  }
  int64_t available = storage ? static_cast<int64_t>(storage->size() / esize) : 0;
  if (storage_offset >= 0 && lo < 0 && negative_dim)
    throw Error("tensor view has a negative stride (" + std::to_string(strides[*negative_dim]) + " in dimension " +
                std::to_string(*negative_dim) + " of sizes " + detail::shapeListText(sizes) +
                ") that reaches before the start of its storage (offset " + std::to_string(storage_offset) +
                ", first element " + std::to_string(lo) + ")");
  if (storage_offset < 0 || lo < 0 || hi >= available)
    throw Error("tensor view (offset " + std::to_string(storage_offset) + ", last element " +
                std::to_string(hi) + ") reaches outside its storage of " + std::to_string(available) +
                " elements");
}

void TensorData::copyContiguousTo(std::byte *out) const {
  const std::size_t esize = elementSize(dtype);
  const int64_t n = numel();
  if (n == 0)
    return;
  if (isContiguous()) {
    std::memcpy(out, data(), static_cast<std::size_t>(n) * esize);
    return;
  }
  // Walk the view with an index counter; copy runs along the innermost dimension when it is
  // dense, element by element otherwise.
  const std::size_t rank = sizes.size();
  std::vector<int64_t> index(rank, 0);
  const std::byte *base = storage->data();
  const int64_t inner = rank ? sizes[rank - 1] : 1;
  const bool inner_dense = rank == 0 || strides[rank - 1] == 1;
  std::byte *dst = out;
  for (int64_t done = 0; done < n;) {
    int64_t offset = storage_offset;
    for (std::size_t d = 0; d + 1 < rank; ++d)
      offset += index[d] * strides[d];
    if (inner_dense) {
      std::memcpy(dst, base + offset * esize, static_cast<std::size_t>(inner) * esize);
      dst += inner * esize;
    } else {
      int64_t step = strides[rank - 1];
      for (int64_t k = 0; k < inner; ++k) {
        std::memcpy(dst, base + (offset + k * step) * esize, esize);
        dst += esize;
      }
    }
    done += inner;
    for (int d = static_cast<int>(rank) - 2; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}

std::vector<std::byte> TensorData::contiguousBytes() const {
  std::vector<std::byte> out(nbytes());
  copyContiguousTo(out.data());
  return out;
}

TensorData TensorData::fromBytes(DType dtype, std::vector<int64_t> sizes, std::vector<std::byte> bytes) {
  TensorData t;
  t.dtype = dtype;
  t.strides = contiguousStrides(sizes);
  t.sizes = std::move(sizes);
  if (bytes.size() != t.nbytes())
    throw Error("tensor of " + std::to_string(t.numel()) + " elements needs " +
                std::to_string(t.nbytes()) + " bytes, got " + std::to_string(bytes.size()));
  t.storage = Storage::fromBytes(std::move(bytes));
  return t;
}

bool TensorData::sameView(const TensorData &other) const {
  return storage == other.storage && dtype == other.dtype && sizes == other.sizes &&
         strides == other.strides && storage_offset == other.storage_offset;
}

bool TensorData::sameElements(const TensorData &other) const {
  if (dtype != other.dtype || sizes != other.sizes)
    return false;
  if (isContiguous() && other.isContiguous())
    return nbytes() == 0 || std::memcmp(data(), other.data(), nbytes()) == 0;
  return contiguousBytes() == other.contiguousBytes();
}

void TensorData::releasePages() const {
  if (!storage || storage->file() == nullptr || numel() == 0)
    return;
  // The smallest storage range that holds every element of the view (strides are never
  // negative in a torch view).
  int64_t last = storage_offset;
  for (std::size_t d = 0; d < sizes.size(); ++d)
    last += (sizes[d] - 1) * strides[d];
  const std::size_t esize = elementSize(dtype);
  const auto first_byte = static_cast<std::size_t>(storage_offset) * esize;
  const auto end_byte = std::min(storage->size(), static_cast<std::size_t>(last + 1) * esize);
  if (end_byte > first_byte)
    storage->file()->release(storage->fileOffset() + first_byte, end_byte - first_byte);
}

} // namespace tico
