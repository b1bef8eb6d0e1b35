// libFuzzer target for the .pt2 reader: zip directory, archive markers, program JSON, tensor
// configs and payload views, up to a built graph (no LibTorch anywhere on this path).
//
// The first byte chooses what the rest is:
//   even: a whole archive image (seeds: real torch.export archives);
//   odd:  the program JSON (models/model.json), wrapped here into an otherwise valid archive,
//         with the CRC-32 the reader checks, so mutations reach the graph builder instead of
//         dying in the zip layer.
// Property: loading either builds a graph that passes Graph::verify or throws tico::Error;
// anything else (a crash, a sanitizer report, another exception type) is a finding.
#include "pt2/torch_op_table.h"
#include "pt2/frontend.h"

#include "tico/ir/graph.h"
#include "tico/ir/op_schema.h"
#include "tico/support/error.h"

#include "zip_writer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::shared_ptr<const tico::Storage> storageOf(std::string_view bytes) {
  std::vector<std::byte> copy(bytes.size());
  if (!bytes.empty())
    std::memcpy(copy.data(), bytes.data(), bytes.size());
  return tico::Storage::fromBytes(std::move(copy));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const std::string_view rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::string image;
  if (data[0] & 1)
    image = tico::testing_zip::storedZip({{"m/models/model.json", rest},
                       {"m/archive_format", "pt2"},
                       {"m/archive_version", "0"},
                       {"m/byteorder", "little"}});
  else
    image.assign(rest);
  std::unique_ptr<tico::Graph> graph;
  try {
    graph = tico::pt2::Pt2Frontend().loadBytes(storageOf(image), "fuzz.pt2", tico::pt2::torchOpSchemas());
  } catch (const tico::Error &) {
    return 0;
  }
  try {
    graph->verify();
  } catch (const tico::Error &e) {
    std::fprintf(stderr, "the frontend built a graph that fails verification: %s\n", e.what());
    std::abort();
  }
  return 0;
}
