// Internals of the Circle writer, shared by its translation units (and by unit tests).
//
// Writing happens in three steps:
//   1. buildCircleImage() validates the model, picks the payload layout and builds the metadata
//      FlatBuffer. Each buffer that has a payload gets a placeholder field (Buffer.data as a raw
//      uoffset for the inline layout, Buffer.offset for the external one) whose final value is
//      only known once the FlatBuffer's size is known.
//   2. The same function lays the payloads out behind the FlatBuffer and patches the
//      placeholders, so the metadata bytes are final before any byte is written.
//   3. streamCircleImage() writes the metadata, then every payload with its zero padding, to a
//      sink (a file descriptor or a region of memory).
#pragma once

#include "tico/circle/writer.h"

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tico::circle_writer {

// Payloads are aligned to 16 bytes (Buffer.data has force_align: 16; external payloads follow
// the same rule so readers can map them directly).
inline constexpr uint64_t kPayloadAlignment = 16;

enum class PayloadLayout {
  Inline,   // Buffer.data vectors, placed after the tables at the end of the FlatBuffer
  External, // Buffer.offset/size, payloads after the FlatBuffer
};

// The largest file the inline layout may produce: FlatBuffers' own limit (the verifier and
// 32-bit offsets), with headroom for the metadata tables, which are not known up front.
inline constexpr uint64_t kInlineLimit = FLATBUFFERS_MAX_BUFFER_SIZE;
inline constexpr uint64_t kMetadataHeadroom = uint64_t{64} << 20;

PayloadLayout chooseLayout(uint64_t payload_bytes, std::size_t payload_count, bool force_external);

struct PayloadPlacement {
  uint32_t buffer_index = 0;
  const TensorData *data = nullptr;
  uint64_t size = 0;          // payload bytes
  uint64_t field_from_end = 0; // placeholder position, counted back from the FlatBuffer's end
  uint64_t file_offset = 0;    // first payload byte in the file
};

struct CircleImage {
  PayloadLayout layout = PayloadLayout::Inline;
  flatbuffers::FlatBufferBuilder fbb; // finished metadata, placeholders patched
  std::vector<PayloadPlacement> payloads; // in buffer order, each file_offset ascending
  uint64_t file_size = 0;
};

// Throws tico::Error when the model cannot be written as is (dangling indices, payload views
// outside their storage, data in the sentinel buffer, bad identifier, ...).
void validateModel(const CircleModel &model, const CircleWriteOptions &options);

// Builds the metadata FlatBuffer with placeholder payload fields (step 1). Exposed separately
// so the layout code can rebuild it when the inline layout turns out not to fit.
void buildMetadata(const CircleModel &model, const CircleWriteOptions &options, CircleImage &image);

// Validates, builds and lays out the whole file (steps 1 and 2).
void buildCircleImage(const CircleModel &model, const CircleWriteOptions &options, CircleImage &image);

// Where the bytes go. position() counts every byte written so far.
class ByteSink {
public:
  virtual ~ByteSink() = default;
  virtual void write(const std::byte *data, std::size_t size) = 0;
  // Copies [offset, offset + size) of a mapped file; file sinks let the kernel do it.
  virtual void copyFromFile(const MappedFile &file, uint64_t offset, uint64_t size) = 0;
  void writeZeros(std::size_t count);
  uint64_t position() const { return position_; }

protected:
  uint64_t position_ = 0;
};

// Fills a region of memory of the file's exact size (writing past its end is an error).
class MemorySink final : public ByteSink {
public:
  MemorySink(std::byte *out, std::size_t capacity) : out_(out), capacity_(capacity) {}
  void write(const std::byte *data, std::size_t size) override;
  void copyFromFile(const MappedFile &file, uint64_t offset, uint64_t size) override;

private:
  std::byte *out_;
  std::size_t capacity_;
};

// Appends to an open file descriptor. `what` names the destination in error messages.
class FileSink final : public ByteSink {
public:
  FileSink(int fd, std::string what) : fd_(fd), what_(std::move(what)) {}
  void write(const std::byte *data, std::size_t size) override;
  void copyFromFile(const MappedFile &file, uint64_t offset, uint64_t size) override;

private:
  [[noreturn]] void fail(const std::string &action, int err) const;
  int fd_;
  std::string what_;
  bool kernel_copy_ = true; // cleared once copy_file_range proved unusable for this output
};

// Writes the image (step 3): metadata, then payloads with zero padding. Returns the buffers
// whose bfloat16 -> float16 conversion overflowed (empty: the file is complete and right).
std::vector<uint32_t> streamCircleImage(const CircleImage &image, ByteSink &sink);

// `model` with the FLOAT16 weights of `buffers` (bfloat16 checkpoint weights converted to float16
// by store-float16-weights, some value beyond 65504) written as float32 again: each DEQUANTIZE
// reading one is removed and its float32 output becomes the constant (writer_float16.cpp).
CircleModel withFloat32Weights(const CircleModel &model, const std::vector<uint32_t> &buffers);

// The bfloat16 -> float16 converted buffers of `model` with a value beyond float16's range
// (a scan; the in-memory writer uses it, which must know the size before it writes).
std::vector<uint32_t> float16Overflows(const CircleModel &model);

} // namespace tico::circle_writer
