// Reads Circle files into the editable CircleModel.
//
// The file is memory-mapped and checked with the FlatBuffers verifier (on the FlatBuffer
// region: files of 2 GiB and more keep their payloads after it, referenced by
// Buffer.offset/size). Buffer payloads become TensorData views into the mapping (dtype u8,
// one dimension), so reading a model copies no weights; the mapping lives as long as any
// buffer refers to it. Every subgraph is read.
#pragma once

#include "tico/circle/model.h"

#include <memory>
#include <string>

namespace tico {

struct CircleReadOptions {
  // Run the FlatBuffers verifier before touching the data (keep on for untrusted files).
  bool verify = true;
  // Reject models whose operator-code, tensor, buffer or subgraph indices point nowhere (the
  // index rules of tico/circle/verify.h). Turned off only by tools that report such problems
  // themselves (tico-circle verify); payload ranges are always checked.
  bool check_indices = true;
};

// Throws tico::Error naming the file and the problem for anything that is not a well-formed
// Circle model (wrong identifier, truncated, failed verification, indices or payload ranges
// out of bounds, options tico's schema does not model).
CircleModel readCircleFile(const std::string &path, const CircleReadOptions &options = {});

// The same from bytes already in memory (or a mapping); `name` is used in messages.
CircleModel readCircleBytes(std::shared_ptr<const Storage> bytes, const std::string &name,
                            const CircleReadOptions &options = {});

} // namespace tico
