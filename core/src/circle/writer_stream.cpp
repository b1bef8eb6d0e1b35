// Streams a laid-out Circle image to a sink.
//
// Payload bytes never pass through the FlatBufferBuilder. A contiguous view of a file-backed
// storage is copied by the kernel (copy_file_range) and its mapped pages are released as they
// are consumed, so converting a model larger than RAM keeps the resident set small. Strided
// views are materialised one at a time into one reused scratch buffer.

#include "writer_detail.h"

#include "tico/support/error.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace tico::circle_writer {
namespace {

// Bounded so that pages can be released while a large weight is still being copied.
constexpr uint64_t kCopyChunk = uint64_t{64} << 20;

void writeLengthWord(ByteSink &sink, uint64_t size) {
  std::array<std::byte, sizeof(flatbuffers::uoffset_t)> word{};
  flatbuffers::WriteScalar(word.data(), static_cast<flatbuffers::uoffset_t>(size));
  sink.write(word.data(), word.size());
}

// [first, last) bytes of the storage a strided view touches.
std::pair<uint64_t, uint64_t> viewExtent(const TensorData &view) {
  int64_t lo = view.storage_offset, hi = view.storage_offset;
  for (std::size_t d = 0; d < view.sizes.size(); ++d) {
    const int64_t reach = (view.sizes[d] - 1) * view.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  const uint64_t esize = elementSize(view.dtype);
  return {static_cast<uint64_t>(lo) * esize, static_cast<uint64_t>(hi + 1) * esize};
}

// Reading a mapping beyond the end of its (since shrunk) file raises SIGBUS; check first.
// `context` starts the message ("cannot write Circle file 'x'").
void requireFileExtent(const MappedFile &file, uint64_t end, const std::string &context) {
  struct stat st {};
  if (::fstat(file.fd(), &st) != 0)
    throw Error(context + ": cannot stat '" + file.path() + "': " + std::strerror(errno));
  if (static_cast<uint64_t>(st.st_size) < end)
    throw Error(context + ": '" + file.path() + "' now has " +
                std::to_string(st.st_size) + " bytes but " + std::to_string(end) +
                " were expected (was it truncated while converting?)");
}

// Elements converted per write when streaming a converted payload (float16 / bfloat16 widened
// to float32, bfloat16 stored as float16): bounded so that the converted copy of a weight never
// exists in memory at once.
constexpr std::size_t kConvertChunkElements = std::size_t{1} << 20;

// A view of a converted storage (Storage::converted): the same view of the 16-bit source is
// converted chunk by chunk while it is written, and the source's mapped pages are released
// behind it. A strided view is first gathered in its 16-bit form (one tensor at a time, no
// larger than the payload).
void writeConvertedPayload(const PayloadPlacement &payload, ByteSink &sink) {
  const TensorData &view = *payload.data;
  const Storage &storage = *view.storage;
  TensorData source = view;
  source.storage = storage.convertedFrom();
  source.dtype = storage.convertedFromDType();
  const DType target = storage.convertedToDType();
  const std::size_t in_size = elementSize(source.dtype), out_size = elementSize(target);
  const MappedFile *file = source.storage->file();
  const auto [first, last] = viewExtent(source);
  if (file != nullptr)
    requireFileExtent(*file, source.storage->fileOffset() + last,
                      "Circle writer: payload of buffer " + std::to_string(payload.buffer_index));
  const bool contiguous = source.isContiguous();
  std::vector<std::byte> gathered;
  if (!contiguous)
    gathered = source.contiguousBytes();
  const std::byte *elements = contiguous ? source.data() : gathered.data();
  const auto count = static_cast<std::size_t>(source.numel());
  std::vector<std::byte> chunk(std::min(count, kConvertChunkElements) * out_size);
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(count - done, kConvertChunkElements);
    convertElements(source.dtype, target, elements + in_size * done, chunk.data(), n);
    sink.write(chunk.data(), n * out_size);
    if (contiguous && file != nullptr)
      file->release(source.storage->fileOffset() + first + in_size * done, in_size * n);
    done += n;
  }
  // Once more over the whole extent: reading through the mapping lets the kernel map pages
  // around each fault (fault-around), including pages of chunks already released.
  if (file != nullptr)
    file->release(source.storage->fileOffset() + first, last - first);
}

void writePayload(const PayloadPlacement &payload, ByteSink &sink, std::vector<std::byte> &scratch) {
  const TensorData &view = *payload.data;
  const Storage &storage = *view.storage;
  if (storage.convertedFrom()) {
    writeConvertedPayload(payload, sink);
    return;
  }
  const MappedFile *file = storage.file();
  if (view.isContiguous()) {
    const uint64_t start = static_cast<uint64_t>(view.storage_offset) * elementSize(view.dtype);
    if (file != nullptr)
      sink.copyFromFile(*file, storage.fileOffset() + start, payload.size);
    else
      sink.write(storage.data() + start, payload.size);
    return;
  }
  const auto [first, last] = viewExtent(view);
  if (file != nullptr)
    requireFileExtent(*file, storage.fileOffset() + last,
                      "Circle writer: payload of buffer " + std::to_string(payload.buffer_index));
  scratch.resize(std::max<std::size_t>(scratch.size(), payload.size));
  view.copyContiguousTo(scratch.data());
  sink.write(scratch.data(), payload.size);
  if (file != nullptr)
    file->release(storage.fileOffset() + first, last - first);
}

} // namespace

void ByteSink::writeZeros(std::size_t count) {
  static constexpr std::array<std::byte, kPayloadAlignment> kZeros{};
  while (count > 0) {
    const std::size_t n = std::min(count, kZeros.size());
    write(kZeros.data(), n);
    count -= n;
  }
}

void MemorySink::write(const std::byte *data, std::size_t size) {
  if (size > capacity_ - position_)
    throw Error("Circle writer: " + std::to_string(position_ + size) + " bytes do not fit the " +
                std::to_string(capacity_) + " laid out");
  if (size != 0)
    std::memcpy(out_ + position_, data, size);
  position_ += size;
}

void MemorySink::copyFromFile(const MappedFile &file, uint64_t offset, uint64_t size) {
  requireFileExtent(file, offset + size, "cannot serialize Circle model");
  write(file.data() + offset, size);
  file.release(offset, size);
}

void FileSink::fail(const std::string &action, int err) const {
  throw Error("cannot write Circle file '" + what_ + "': " + action + ": " + std::strerror(err));
}

void FileSink::write(const std::byte *data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      fail("write", errno);
    }
    if (n == 0)
      fail("write", EIO);
    data += n;
    size -= static_cast<std::size_t>(n);
    position_ += static_cast<uint64_t>(n);
  }
}

void FileSink::copyFromFile(const MappedFile &file, uint64_t offset, uint64_t size) {
  const uint64_t end = offset + size;
  while (kernel_copy_ && offset < end) {
    loff_t in = static_cast<loff_t>(offset);
    const std::size_t chunk = static_cast<std::size_t>(std::min(end - offset, kCopyChunk));
    const ssize_t n = ::copy_file_range(file.fd(), &in, fd_, nullptr, chunk, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      // Kernels, file systems or file pairs that cannot do it: copy through the mapping.
      if (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP) {
        kernel_copy_ = false;
        break;
      }
      fail("copying weights from '" + file.path() + "'", errno);
    }
    if (n == 0)
      // The input shrank after it was mapped; touching the mapping now would fault.
      throw Error("cannot write Circle file '" + what_ + "': '" + file.path() +
                  "' ended at byte " + std::to_string(offset) + " while " + std::to_string(end) +
                  " were expected (was it truncated while converting?)");
    file.release(offset, static_cast<uint64_t>(n));
    offset += static_cast<uint64_t>(n);
    position_ += static_cast<uint64_t>(n);
  }
  if (offset < end)
    requireFileExtent(file, end, "cannot write Circle file '" + what_ + "'");
  while (offset < end) {
    const auto chunk = static_cast<std::size_t>(std::min(end - offset, kCopyChunk));
    write(file.data() + offset, chunk);
    file.release(offset, chunk);
    offset += chunk;
  }
}

void streamCircleImage(const CircleImage &image, ByteSink &sink) {
  sink.write(reinterpret_cast<const std::byte *>(image.fbb.GetBufferPointer()), image.fbb.GetSize());
  std::vector<std::byte> scratch;
  for (const auto &payload : image.payloads) {
    const uint64_t prefix = image.layout == PayloadLayout::Inline ? sizeof(flatbuffers::uoffset_t) : 0;
    sink.writeZeros(static_cast<std::size_t>(payload.file_offset - prefix - sink.position()));
    if (prefix != 0)
      writeLengthWord(sink, payload.size);
    writePayload(payload, sink, scratch);
  }
  if (sink.position() != image.file_size)
    throw Error("Circle writer: wrote " + std::to_string(sink.position()) + " bytes where " +
                std::to_string(image.file_size) + " were laid out");
}

} // namespace tico::circle_writer
