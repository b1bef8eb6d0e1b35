// libFuzzer target for the .npy reader (magic, version, the Python-literal header dictionary,
// dtype descriptors, shapes, data size).
//
// Properties: reading either yields a tensor whose view lies inside its storage and whose
// bytes can be copied out, or throws tico::Error. The reader maps files, so each input is
// written to a file in a private temporary directory first.
#include "tico/io/npy.h"
#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

#include "scratch_file.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>


extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = tico::fuzz::writeScratch("input.npy", data, size);
  try {
    auto tensor = tico::readNpy(path);
    tensor->checkBounds();
    const auto bytes = tensor->contiguousBytes();
    if (bytes.size() != tensor->nbytes()) {
      std::fprintf(stderr, "a tensor of %zu bytes copied into %zu\n", tensor->nbytes(), bytes.size());
      std::abort();
    }
  } catch (const tico::Error &) {
  }
  return 0;
}
