// libFuzzer target for the .npz calibration reader (plugins/calibration-sources/npz_archive.cpp):
// the zip directory, stored and deflated members, the .npy header read before a member is
// inflated, the deflate-ratio bound, CRC-32 checks, and the .npy parser on what comes out.
//
// Properties: every member either reads as a tensor whose view lies inside its storage, or the
// read throws tico::Error; nothing crashes, and no member inflates to more than its data allows
// (a forged size claim fails before the memory is touched). The reader maps files, so each
// input is written to a file in a private temporary directory first.
#include "npz_archive.h"

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
  std::remove((scratch_dir + "/input.npz").c_str());
  ::rmdir(scratch_dir.c_str());
}

const std::string &scratchFile() {
  static const std::string path = [] {
    scratch_dir = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) +
                  "/tico-npz-fuzz-XXXXXX";
    if (!::mkdtemp(scratch_dir.data()))
      std::abort();
    std::atexit(removeScratch);
    return scratch_dir + "/input.npz";
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
    tico::calib::NpzArchive archive(path);
    for (const std::string &name : archive.names()) {
      try {
        auto tensor = archive.read(name);
        tensor->checkBounds();
        const auto bytes = tensor->contiguousBytes();
        if (bytes.size() != tensor->nbytes())
          std::abort();
      } catch (const tico::Error &) {
      }
    }
  } catch (const tico::Error &) {
  }
  return 0;
}
