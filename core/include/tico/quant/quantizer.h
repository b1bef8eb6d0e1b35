// The quantizer ABI: algorithms that turn a float graph into one carrying quantization
// (quantize/dequantize ops or qparams). Algorithms themselves arrive as plugins.
#pragma once

#include "tico/pass/pass.h"

#include <string>
#include <vector>

namespace tico {

class Quantizer {
public:
  virtual ~Quantizer() = default;
  // Quantizes `graph` in place; returns true when it changed.
  virtual bool run(Graph &graph, PassContext &context) = 0;
};

struct QuantizerSpec {
  std::string name;    // "gptq", "minmax-ptq", ...
  std::string summary;
  std::vector<OptionSpec> options;
  std::function<std::unique_ptr<Quantizer>(const Options &)> create;
};

} // namespace tico
