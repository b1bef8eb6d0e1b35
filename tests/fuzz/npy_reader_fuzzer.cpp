// libFuzzer target for the .npy reader (magic, version, the Python-literal header dictionary,
// dtype descriptors, shapes, data size).
//
// Properties: reading either yields a tensor whose view lies inside its storage and whose
// bytes can be copied out, or throws tico::Error. The reader maps files, so each input is
// written to a file in a private temporary directory first.
#include "tico/io/npy.h"
#include "tico/ir/tensor_data.h"
#include "tico/support/error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

std::string scratch_dir;

void removeScratch() {
  std::remove((scratch_dir + "/input.npy").c_str());
  ::rmdir(scratch_dir.c_str());
}

const std::string &scratchFile() {
  static const std::string path = [] {
    scratch_dir = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) +
                  "/tico-npy-fuzz-XXXXXX";
    if (!::mkdtemp(scratch_dir.data()))
      std::abort();
    std::atexit(removeScratch);
    return scratch_dir + "/input.npy";
  }();
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = scratchFile();
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0)
    std::abort();
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
