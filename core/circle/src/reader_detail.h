// Internals of the Circle reader (reader*.cpp).
#pragma once

#include "tico/circle/reader.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tico::circle_reader {

// The bytes being read. Buffer payloads become views of `storage`, so the model keeps the
// mapping alive.
struct Source {
  std::shared_ptr<const Storage> storage;
  const uint8_t *bytes = nullptr;
  uint64_t size = 0;
};

// Caps what decoding may allocate. The FlatBuffers verifier bounds the number of tables it
// visits, but one vector may legally be referenced from many tables, so a small crafted file
// could otherwise expand into an enormous object model. Legitimate files stay far below the cap
// (a multiple of the metadata size).
class Budget {
public:
  explicit Budget(uint64_t region_size) : remaining_(region_size * 16 + (uint64_t{64} << 20)) {}
  void charge(uint64_t bytes);

private:
  uint64_t remaining_;
};

// FlatBuffer -> CircleModel. Throws tico::Error with a message that starts with the path of
// the offending element (model.subgraphs[0].tensors[3]: ...); the caller adds the file name.
CircleModel convertModel(const circle::Model &root, const Source &source, Budget &budget);

} // namespace tico::circle_reader
