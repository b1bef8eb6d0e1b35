// Writes Circle files.
//
// Metadata is built with FlatBuffers; buffer payloads are streamed after it from their
// TensorData (kernel-side copies for file-backed weights) instead of being copied into the
// FlatBufferBuilder. Below 2 GiB the payloads are ordinary in-FlatBuffer vectors placed at the
// end of the file; at 2 GiB and above (or when forced) they are stored after the FlatBuffer and
// referenced through Buffer.offset/size, 16-byte aligned. The mode is chosen up front from the
// payload sum. Output is deterministic: the same model gives the same bytes.
#pragma once

#include "tico/circle/model.h"
#include "tico/support/file.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tico {

struct CircleWriteOptions {
  // "CIR0" for Circle; "TFL3" (with version 3) makes a copy LiteRT accepts.
  std::string file_identifier = "CIR0";
  // Store payloads after the FlatBuffer (Buffer.offset/size) even for small models.
  bool force_external_buffers = false;
};

// Writes atomically: the bytes go to a temporary file in the destination directory which is
// renamed over `path` only after everything was written and synced. On any error the
// temporary file is removed and an existing `path` is left untouched. Throws tico::Error.
void writeCircleFile(const CircleModel &model, const std::string &path,
                     const CircleWriteOptions &options = {});
// The same, staged in `batch` with the run's other outputs (they are renamed into place together
// by batch.commit(); tico/support/file.h).
void writeCircleFile(const CircleModel &model, const std::string &path, OutputBatch &batch,
                     const CircleWriteOptions &options = {});

// The same bytes as writeCircleFile, in memory (for tests and small models).
std::vector<uint8_t> serializeCircle(const CircleModel &model, const CircleWriteOptions &options = {});

// The same bytes again, streamed into memory the caller owns (e.g. a Python bytes object), so
// the result is not copied once more. `allocate` is called exactly once, after the model was
// checked and laid out and before any byte is written, with the exact size of the file; it
// returns where to write that many bytes (or throws to abandon the write). Throws tico::Error.
void serializeCircleInto(const CircleModel &model, const std::function<std::byte *(std::size_t size)> &allocate,
                         const CircleWriteOptions &options = {});

} // namespace tico
