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

#include "scratch_file.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>


extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = tico::fuzz::writeScratch("input.npz", data, size);
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
