// libFuzzer target for the textual IR parser (graph headers, values, types, symbolic shapes,
// constants in dense<...> / hex<...> form, op arguments checked against the op schemas).
//
// Properties: parsing either yields a graph that passes Graph::verify or throws tico::Error;
// a parsed graph prints (constants in full) to text that parses again and prints the same.
#include "tico/ir/graph.h"
#include "tico/ir/text.h"
#include "tico/support/error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  std::unique_ptr<tico::Graph> graph;
  try {
    graph = tico::parseGraph(text);
  } catch (const tico::Error &) {
    return 0;
  }
  tico::PrintOptions full;
  full.elide_constants_above = -1;
  std::string printed;
  try {
    graph->verify();
    printed = tico::printGraph(*graph, full);
    const std::string again = tico::printGraph(*tico::parseGraph(printed), full);
    if (again != printed) {
      std::fprintf(stderr, "printing is not stable:\n--- first\n%s\n--- second\n%s\n", printed.c_str(), again.c_str());
      std::abort();
    }
  } catch (const tico::Error &e) {
    std::fprintf(stderr, "a parsed graph failed verification or its printed form: %s\n--- printed\n%s\n", e.what(),
                 printed.c_str());
    std::abort();
  }
  return 0;
}
