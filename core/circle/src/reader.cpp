// Public entry points of the Circle reader: mapping, identifier, verification, index checks.
//
// A Circle file is one FlatBuffer, optionally followed by payloads it references through
// Buffer.offset/size (files of 2 GiB and more). FlatBuffers offsets are 32-bit, so everything
// the metadata can reach lies in the first 2 GiB - 1 bytes: the verifier runs on that prefix,
// and any reference it accepts is inside it. Payload ranges beyond it are checked separately
// against the file size while decoding.

#include "reader_detail.h"

#include "tico/circle/verify.h"
#include "tico/support/error.h"

#include <flatbuffers/flatbuffers.h>

#include <algorithm>
#include <cstdio>

namespace tico {
namespace {

std::string printableIdentifier(const uint8_t *bytes) {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    const unsigned char c = bytes[i];
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

} // namespace

CircleModel readCircleBytes(std::shared_ptr<const Storage> bytes, const std::string &name,
                            const CircleReadOptions &options) {
  if (!bytes)
    throw Error(name + ": no data to read");
  const auto *data = reinterpret_cast<const uint8_t *>(bytes->data());
  const uint64_t size = bytes->size();
  // Root offset plus file identifier; anything shorter cannot be a FlatBuffer with an identifier.
  constexpr uint64_t kHeader = sizeof(flatbuffers::uoffset_t) + flatbuffers::FlatBufferBuilder::kFileIdentifierLength;
  if (size < kHeader)
    throw Error(name + ": not a Circle file: " + std::to_string(size) + " bytes is too short for a FlatBuffer header");
  if (!circle::ModelBufferHasIdentifier(data)) {
    const std::string found = printableIdentifier(data + sizeof(flatbuffers::uoffset_t));
    throw Error(name + ": not a Circle file: file identifier '" + found + "', expected '" +
                circle::ModelIdentifier() + "'" + (found == "TFL3" ? " (this is a TFLite model)" : ""));
  }

  const uint64_t region = std::min<uint64_t>(size, FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  if (options.verify) {
    flatbuffers::Verifier::Options verifier_options;
    // One table needs at least 4 bytes, so a well-formed file never has more than region/4;
    // the bound keeps shared-table graphs from making verification superlinear.
    verifier_options.max_tables = static_cast<flatbuffers::uoffset_t>(std::max<uint64_t>(region / 4, 1024));
    flatbuffers::Verifier verifier(data, static_cast<std::size_t>(region), verifier_options);
    if (!circle::VerifyModelBuffer(verifier))
      throw Error(name + ": corrupted or truncated Circle file: the FlatBuffer structure does not verify" +
                  (size > region ? " (within its first " + std::to_string(region) + " bytes)" : std::string()));
  }

  circle_reader::Source source{bytes, data, size};
  circle_reader::Budget budget(region);
  CircleModel model;
  try {
    model = circle_reader::convertModel(*circle::GetModel(data), source, budget);
  } catch (const Error &e) {
    throw Error(name + ": " + e.what());
  }

  if (options.check_indices) {
    CircleVerifyOptions verify_options;
    verify_options.indices_only = true;
    const auto problems = verifyCircleModel(model, verify_options);
    if (!problems.empty()) {
      std::string message = name + ": " + problems.front().path + ": " + problems.front().message;
      if (problems.size() > 1)
        message += " (and " + std::to_string(problems.size() - 1) + " more index errors)";
      throw Error(message);
    }
  }
  return model;
}

CircleModel readCircleFile(const std::string &path, const CircleReadOptions &options) {
  auto file = MappedFile::open(path);
  auto storage = Storage::fromMapped(file, 0, file->size());
  return readCircleBytes(std::move(storage), path, options);
}

} // namespace tico
