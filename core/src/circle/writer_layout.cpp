// Places payloads behind the metadata FlatBuffer and patches the placeholder fields.
//
// Inline layout: every payload is an ordinary [ubyte] vector (4-byte length, then the bytes)
// whose bytes start on a 16-byte boundary; Buffer.data holds the uoffset to the length word.
// External layout: payloads start on 16-byte boundaries after the FlatBuffer; Buffer.offset is
// the file offset of the first byte and Buffer.size the byte count (Buffer.data is absent).

#include "writer_detail.h"

#include "tico/support/error.h"

namespace tico::circle_writer {
namespace {

uint64_t alignUp(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

// Assigns file offsets and returns the file size.
uint64_t placePayloads(CircleImage &image) {
  uint64_t position = image.fbb.GetSize();
  for (auto &payload : image.payloads) {
    if (image.layout == PayloadLayout::Inline)
      position = alignUp(position + sizeof(flatbuffers::uoffset_t), kPayloadAlignment);
    else
      position = alignUp(position, kPayloadAlignment);
    payload.file_offset = position;
    position += payload.size;
  }
  return position;
}

void patchPlaceholders(CircleImage &image) {
  uint8_t *base = image.fbb.GetBufferPointer();
  const uint64_t fb_size = image.fbb.GetSize();
  for (const auto &payload : image.payloads) {
    const uint64_t field = fb_size - payload.field_from_end;
    if (image.layout == PayloadLayout::Inline) {
      const uint64_t length_word = payload.file_offset - sizeof(flatbuffers::uoffset_t);
      flatbuffers::WriteScalar(base + field, static_cast<flatbuffers::uoffset_t>(length_word - field));
    } else {
      flatbuffers::WriteScalar(base + field, static_cast<uint64_t>(payload.file_offset));
    }
  }
}

} // namespace

PayloadLayout chooseLayout(uint64_t payload_bytes, std::size_t payload_count, bool force_external) {
  if (force_external)
    return PayloadLayout::External;
  // Worst-case padding per payload (length word plus alignment) on top of the raw bytes.
  const uint64_t padded = payload_bytes + payload_count * (kPayloadAlignment + sizeof(flatbuffers::uoffset_t));
  return padded + kMetadataHeadroom < kInlineLimit ? PayloadLayout::Inline : PayloadLayout::External;
}

void buildCircleImage(const CircleModel &model, const CircleWriteOptions &options, CircleImage &image) {
  validateModel(model, options);

  std::size_t payload_count = 0;
  for (const auto &buffer : model.buffers)
    if (buffer.data && buffer.data->nbytes() > 0)
      ++payload_count;
  image.layout = chooseLayout(model.payloadBytes(), payload_count, options.force_external_buffers);

  buildMetadata(model, options, image);
  image.file_size = placePayloads(image);
  if (image.layout == PayloadLayout::Inline && image.file_size >= kInlineLimit) {
    // Only reachable when the tables themselves are huge; nothing has been written yet, so
    // switching layouts here is still an up-front decision.
    image.layout = PayloadLayout::External;
    buildMetadata(model, options, image);
    image.file_size = placePayloads(image);
  }
  if (image.fbb.GetSize() >= kInlineLimit)
    throw Error("Circle writer: the model's tables alone exceed the 2 GiB FlatBuffer limit");
  patchPlaceholders(image);
}

} // namespace tico::circle_writer
