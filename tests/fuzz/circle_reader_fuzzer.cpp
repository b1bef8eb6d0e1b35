// libFuzzer target for the Circle reader and everything that consumes what it accepts.
//
// Properties checked on every input:
//   * readCircleBytes either returns a model or throws tico::Error (no crash, no other exception,
//     no sanitizer report), with and without the index checks;
//   * the verifier runs on any model the reader returns with index checks off (it is what
//     `tico-circle verify` does on untrusted files);
//   * a model accepted with index checks on can be compacted and written, and the written bytes
//     read back (the writer may refuse a model with tico::Error, never crash).
#include "tico/circle/edit.h"
#include "tico/circle/reader.h"
#include "tico/circle/verify.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

std::shared_ptr<const tico::Storage> storageOf(const uint8_t *data, size_t size) {
  std::vector<std::byte> bytes(size);
  if (size)
    std::memcpy(bytes.data(), data, size);
  return tico::Storage::fromBytes(std::move(bytes));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto storage = storageOf(data, size);
  try {
    tico::CircleReadOptions options;
    options.check_indices = false;
    const tico::CircleModel model = tico::readCircleBytes(storage, "fuzz", options);
    tico::verifyCircleModel(model);
  } catch (const tico::Error &) {
  }
  tico::CircleModel model;
  try {
    model = tico::readCircleBytes(storage, "fuzz");
  } catch (const tico::Error &) {
    return 0;
  }
  std::vector<uint8_t> written;
  try {
    tico::compact(model);
    written = tico::serializeCircle(model);
  } catch (const tico::Error &) {
    return 0;
  }
  try {
    tico::readCircleBytes(storageOf(written.data(), written.size()), "rewritten");
  } catch (const tico::Error &e) {
    std::fprintf(stderr, "a model the reader accepted was written into bytes it rejects: %s\n", e.what());
    std::abort();
  }
  return 0;
}
