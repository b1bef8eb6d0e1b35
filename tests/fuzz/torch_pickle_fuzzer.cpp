// libFuzzer target for the torch.save pickle reader that example inputs go through
// (plugins/calibration-sources/torch_pickle.cpp): the input is the pickle, stored as
// `archive/data.pkl` in a zip next to two 256-byte storages `archive/data/0` and `archive/data/1`
// (with correct CRCs, so the reader's own checks pass and the unpickler sees every input).
//
// Properties: loading either yields a value tree that respects the documented limits (depth,
// expanded size) and whose tensors lie inside their storage, or throws tico::Error. No crash,
// no unbounded time or memory (tracker issue 31: self-referencing and deeply nested pickles
// crashed, a shared-tuple pickle grew to 3.4 GB).
#include "torch_pickle.h"

#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

#include "zip_writer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

// Walks the tree form (shared references at each use) within the reader's promise.
void walk(const tico::calib::PickleRef &value, uint32_t depth, uint64_t &visited) {
  if (depth > tico::calib::kMaxPickleDepth + 1 || ++visited > tico::calib::kMaxPickleExpanded + 1) {
    std::fprintf(stderr, "the reader returned a tree beyond its limits (depth %u, %llu values)\n", depth,
                 static_cast<unsigned long long>(visited));
    std::abort();
  }
  if (value->tensor) {
    value->tensor->checkBounds();
    (void)value->tensor->contiguousBytes();
  }
  (void)tico::calib::kindName(value->kind);
  for (const auto &item : value->items)
    walk(item, depth + 1, visited);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string storage(256, '\x3c');
  std::string pickle(reinterpret_cast<const char *>(data), size);
  std::string zip = tico::testing_zip::storedZip({{"archive/data.pkl", pickle}, {"archive/data/0", storage}, {"archive/data/1", storage}});
  std::vector<std::byte> bytes(zip.size());
  std::memcpy(bytes.data(), zip.data(), zip.size());
  try {
    auto image = tico::pt2::ArchiveImage::borrowed(tico::Storage::fromBytes(std::move(bytes)), "fuzz.pt");
    const tico::calib::PickleRef value = tico::calib::loadTorchSave(image);
    uint64_t visited = 0;
    walk(value, 0, visited);
  } catch (const tico::Error &) {
  }
  return 0;
}
