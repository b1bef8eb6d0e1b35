// Streams a laid-out Circle image to a sink.
//
// Payload bytes never pass through the FlatBufferBuilder. A contiguous view of a file-backed
// storage is copied by the kernel (copy_file_range) and its mapped pages are released as they
// are consumed, so converting a model larger than RAM keeps the resident set small. Strided
// views are materialised one at a time into one reused scratch buffer.

#include "writer_detail.h"

#include "../ir/element_conversion.h"

#include "tico/support/error.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <future>
#include <string>
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
// exists in memory at once, and small enough that a chunk is still in the CPU's cache when it is
// written (tests/bench/README.md: with the two-buffer pipeline below, 2^19 wrote the 1 B bfloat16
// model about 15 % faster than 2^20; 2^16 - 2^18 pay for more syscalls and page releases).
constexpr std::size_t kConvertChunkElements = std::size_t{1} << 19;

// A view of a converted storage (Storage::converted): the same view of the 16-bit source is
// converted chunk by chunk while it is written, and the source's mapped pages are released
// behind it. Converting (page faults on the mapping, the conversion, the page release) and
// writing (the kernel's copy into the output) take about as long each, so a payload of more
// than one chunk is pipelined: the next chunk is converted on a second thread, into the second
// of two buffers, while the current one is written. A strided view is first gathered in its
// 16-bit form (one tensor at a time, no larger than the payload).
// Returns false when a bfloat16 value converted to float16 overflowed (the bytes are still
// written: the caller writes the file again with that weight in float32).
bool writeConvertedPayload(const PayloadPlacement &payload, ByteSink &sink) {
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
  const bool checked = source.dtype == DType::BFloat16 && target == DType::Float16;
  std::vector<std::byte> gathered;
  if (!contiguous)
    gathered = source.contiguousBytes();
  const std::byte *elements = contiguous ? source.data() : gathered.data();
  const auto count = static_cast<std::size_t>(source.numel());
  const std::size_t chunk_elements = std::min(count, kConvertChunkElements);
  std::vector<std::byte> chunks[2] = {std::vector<std::byte>(chunk_elements * out_size),
                                      std::vector<std::byte>(chunk_elements * out_size)};
  // Converts chunk [done, done + n) into `out`; false when a value overflowed float16.
  auto convert = [&](std::size_t done, std::size_t n, std::byte *out) {
    const std::byte *in = elements + in_size * done;
    bool ok = true;
    if (checked)
      ok = bfloat16ToFloat16Fits(in, out, n);
    else
      convertElements(source.dtype, target, in, out, n);
    if (contiguous && file != nullptr)
      file->release(source.storage->fileOffset() + first + in_size * done, in_size * n);
    return ok;
  };
  bool fits = true;
  if (count <= chunk_elements) {
    fits = convert(0, count, chunks[0].data());
    sink.write(chunks[0].data(), count * out_size);
  } else {
    // Two buffers: the next chunk is converted on a second thread while this one is written.
    std::size_t n = chunk_elements;
    fits = convert(0, n, chunks[0].data());
    int current = 0;
    for (std::size_t done = 0; done < count;) {
      const std::size_t next_done = done + n;
      const std::size_t next_n = std::min(count - next_done, chunk_elements);
      std::future<bool> next;
      if (next_n > 0)
        next = std::async(std::launch::async, convert, next_done, next_n, chunks[1 - current].data());
      sink.write(chunks[current].data(), n * out_size);
      if (next_n > 0)
        fits = next.get() && fits;
      done = next_done;
      n = next_n;
      current = 1 - current;
    }
  }
  // Once more over the whole extent: reading through the mapping lets the kernel map pages
  // around each fault (fault-around), including pages of chunks already released.
  if (file != nullptr)
    file->release(source.storage->fileOffset() + first, last - first);
  return fits;
}

// Returns false as writeConvertedPayload does.
bool writePayload(const PayloadPlacement &payload, ByteSink &sink, std::vector<std::byte> &scratch) {
  const TensorData &view = *payload.data;
  const Storage &storage = *view.storage;
  if (storage.convertedFrom())
    return writeConvertedPayload(payload, sink);
  const MappedFile *file = storage.file();
  if (view.isContiguous()) {
    const uint64_t start = static_cast<uint64_t>(view.storage_offset) * elementSize(view.dtype);
    if (file != nullptr)
      sink.copyFromFile(*file, storage.fileOffset() + start, payload.size);
    else
      sink.write(storage.data() + start, payload.size);
    return true;
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
  return true;
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

std::vector<uint32_t> streamCircleImage(const CircleImage &image, ByteSink &sink) {
  sink.write(reinterpret_cast<const std::byte *>(image.fbb.GetBufferPointer()), image.fbb.GetSize());
  std::vector<std::byte> scratch;
  std::vector<uint32_t> overflowed;
  for (const auto &payload : image.payloads) {
    const uint64_t prefix = image.layout == PayloadLayout::Inline ? sizeof(flatbuffers::uoffset_t) : 0;
    sink.writeZeros(static_cast<std::size_t>(payload.file_offset - prefix - sink.position()));
    if (prefix != 0)
      writeLengthWord(sink, payload.size);
    if (!writePayload(payload, sink, scratch))
      overflowed.push_back(payload.buffer_index);
  }
  if (sink.position() != image.file_size)
    throw Error("Circle writer: wrote " + std::to_string(sink.position()) + " bytes where " +
                std::to_string(image.file_size) + " were laid out");
  return overflowed;
}

} // namespace tico::circle_writer
