// What a Circle model contains, as one JSON document and as text: the output of
// `tico-circle inspect`, also used by the Python package's CircleModel.inspect(). A small static
// library (tico-circle-summary) so both print exactly the same thing.
#pragma once

#include "tico/circle/model.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>

namespace tico::circle_tool {

struct SummaryOptions {
  int subgraph = -1;     // only this subgraph (-1: all)
  bool tensors = false;  // list every tensor
  bool operators = false; // list every operator
  bool buffers = false;  // list the size of every buffer with data
  bool verify = false;   // append the verifier's findings
};

// `name` and `file_bytes` describe where the model came from (a path and its size, or a name
// for bytes in memory). Throws tico::Error for a subgraph index out of range.
nlohmann::json summarizeModel(const CircleModel &model, const std::string &name, uint64_t file_bytes,
                              const SummaryOptions &options = {});
// The text form of a summary document.
void printSummary(const nlohmann::json &summary, std::ostream &os);

// "float32[1,3,?,4]" from type, shape and shape_signature.
std::string tensorTypeText(const CircleTensor &tensor);
// Payload bytes of a tensor's buffer (0 for non-constant tensors or invalid buffer indices).
uint64_t tensorPayloadBytes(const CircleModel &model, const CircleTensor &tensor);

} // namespace tico::circle_tool
