// Public entry points of the Circle writer.
//
// The whole metadata FlatBuffer is built and laid out before the destination directory is
// touched, so model errors never leave anything behind. The file itself goes through
// writeFileSafely (tico/support/file.h): written to a temporary sibling, synced, and renamed
// over the destination, so readers see either the old file or the complete new one, never a
// prefix; FIFOs and character devices are written in place.

#include "writer_detail.h"

#include "tico/support/error.h"
#include "tico/support/file.h"

#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include <unistd.h>

namespace tico {

using circle_writer::CircleImage;

void writeCircleFile(const CircleModel &model, const std::string &path, OutputBatch &batch,
                     const CircleWriteOptions &options) {
  if (path.empty())
    throw Error("cannot write Circle file: the output path is empty");
  auto image = std::make_unique<CircleImage>();
  circle_writer::buildCircleImage(model, options, *image);
  batch.add(path, "Circle file", [&](int fd) {
    std::vector<uint32_t> overflowed;
    {
      circle_writer::FileSink sink(fd, path);
      overflowed = circle_writer::streamCircleImage(*image, sink);
    }
    if (overflowed.empty())
      return;
    // A bfloat16 weight stored as FLOAT16 did not fit: the same file with it in float32
    // (writer_float16.cpp), written over the first attempt before anything is committed.
    const CircleModel repaired = circle_writer::withFloat32Weights(model, overflowed);
    image = std::make_unique<CircleImage>();
    circle_writer::buildCircleImage(repaired, options, *image);
    if (::ftruncate(fd, 0) != 0 || ::lseek(fd, 0, SEEK_SET) != 0)
      throw Error("cannot write Circle file '" + path + "': cannot start it again: " + std::strerror(errno));
    circle_writer::FileSink sink(fd, path);
    if (!circle_writer::streamCircleImage(*image, sink).empty())
      throw Error("Circle writer: bfloat16 weights still overflow float16 after the fallback (a writer bug)");
  });
}

void writeCircleFile(const CircleModel &model, const std::string &path, const CircleWriteOptions &options) {
  OutputBatch batch;
  writeCircleFile(model, path, batch, options);
  batch.commit();
}

void serializeCircleInto(const CircleModel &model, const std::function<std::byte *(std::size_t size)> &allocate,
                         const CircleWriteOptions &options) {
  // The size must be known before the destination is allocated: weights that will not fit
  // float16 are found by a scan here (in-memory models are small), not while writing.
  const std::vector<uint32_t> overflowed = circle_writer::float16Overflows(model);
  std::optional<CircleModel> repaired;
  if (!overflowed.empty())
    repaired = circle_writer::withFloat32Weights(model, overflowed);
  auto image = std::make_unique<CircleImage>();
  circle_writer::buildCircleImage(repaired ? *repaired : model, options, *image);
  if (image->file_size > std::numeric_limits<std::size_t>::max())
    throw Error("cannot serialize Circle model: " + std::to_string(image->file_size) + " bytes do not fit in memory");
  const auto size = static_cast<std::size_t>(image->file_size);
  std::byte *destination = allocate(size);
  if (destination == nullptr && size != 0)
    throw Error("cannot serialize Circle model: no memory for " + std::to_string(size) + " bytes");
  circle_writer::MemorySink sink(destination, size);
  circle_writer::streamCircleImage(*image, sink);
}

std::vector<uint8_t> serializeCircle(const CircleModel &model, const CircleWriteOptions &options) {
  std::vector<uint8_t> bytes;
  serializeCircleInto(model, [&](std::size_t size) {
    bytes.resize(size);
    return reinterpret_cast<std::byte *>(bytes.data());
  }, options);
  return bytes;
}

} // namespace tico
