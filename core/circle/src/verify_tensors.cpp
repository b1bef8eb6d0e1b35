// Per-tensor rules: shapes, shape signatures, constant payload sizes, names.

#include "verify_detail.h"

#include "tico/circle/query.h"
#include "tico/support/checked.h"

#include <algorithm>
#include <map>

namespace tico::circle_verify {
namespace {

// Element count of a static shape, or -1 when a dimension is negative or the byte size at the
// widest element type (16 bytes) overflows.
int64_t staticElementCount(const std::vector<int32_t> &shape) {
  const auto bytes = byteSize(shape, 16);
  return bytes ? *bytes / 16 : -1;
}

std::string shapeText(const std::vector<int32_t> &shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

void checkShape(Findings &f, std::size_t s, std::size_t t) {
  const CircleTensor &tensor = f.model.subgraphs[s].tensors[t];
  const std::string path = tensorPath(s, t);
  const std::string label = tensorLabel(f.model.subgraphs[s], static_cast<int64_t>(t));
  for (std::size_t i = 0; i < tensor.shape.size(); ++i)
    if (tensor.shape[i] < 0)
      f.error("NEGATIVE_DIMENSION", item(path + ".shape", i),
              label + " has dimension " + std::to_string(tensor.shape[i]) +
                  "; dynamic dimensions are 1 in shape and -1 in shape_signature");
  // Negative dims are reported above; with none, -1 means the count overflowed. Checked for
  // every tensor: an activation that large makes a runtime's byte count wrap as surely as a
  // constant (the payload check below can only skip what it cannot count).
  if (std::none_of(tensor.shape.begin(), tensor.shape.end(), [](int32_t d) { return d < 0; }) &&
      staticElementCount(tensor.shape) < 0)
    f.error("TENSOR_TOO_LARGE", path + ".shape",
            label + " has shape " + shapeText(tensor.shape) +
                ": its element count overflows the 64-bit byte sizes readers and runtimes compute");
  if (tensor.shape_signature.empty())
    return;
  if (tensor.shape_signature.size() != tensor.shape.size()) {
    f.error("SHAPE_SIGNATURE_RANK", path + ".shape_signature",
            label + " has rank " + std::to_string(tensor.shape.size()) + " but a shape_signature of rank " +
                std::to_string(tensor.shape_signature.size()));
    return;
  }
  bool dynamic = false;
  for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
    const int32_t sig = tensor.shape_signature[i], dim = tensor.shape[i];
    const std::string where = item(path + ".shape_signature", i);
    if (sig == -1) {
      dynamic = true;
      if (dim != 1)
        f.error("SHAPE_SIGNATURE_MISMATCH", where,
                label + ": dynamic dimension " + std::to_string(i) + " has shape " + std::to_string(dim) +
                    " (a dynamic dimension is stored as 1 in shape)");
    } else if (sig < -1) {
      f.error("SHAPE_SIGNATURE_MISMATCH", where,
              label + ": shape_signature entry " + std::to_string(sig) + " (only -1 marks a dynamic dimension)");
    } else if (sig != dim) {
      f.error("SHAPE_SIGNATURE_MISMATCH", where,
              label + ": shape_signature " + std::to_string(sig) + " differs from shape " + std::to_string(dim) +
                  " in static dimension " + std::to_string(i));
    }
  }
  if (!dynamic)
    f.warning("STATIC_SHAPE_SIGNATURE", path + ".shape_signature",
              label + " has a shape_signature without a dynamic dimension (omit it for static tensors)");
}

void checkPayloadSize(Findings &f, std::size_t s, std::size_t t) {
  const CircleTensor &tensor = f.model.subgraphs[s].tensors[t];
  if (!isConstantTensor(f.model, tensor))
    return;
  const uint64_t element = circleElementSize(tensor.type);
  const bool nibbles = tensor.type == circle::TensorType::UINT4 || tensor.type == circle::TensorType::INT4;
  for (int32_t d : tensor.shape_signature)
    if (d < 0)
      return; // a dynamic constant has no predictable size
  const int64_t count = staticElementCount(tensor.shape);
  if ((element == 0 && !nibbles) || count < 0)
    return;
  // 4-bit elements are packed two per byte, the last byte half used for an odd count.
  const uint64_t expected = nibbles ? (static_cast<uint64_t>(count) + 1) / 2 : static_cast<uint64_t>(count) * element;
  const uint64_t actual = f.model.buffers[tensor.buffer].data->nbytes();
  if (actual != expected)
    f.error("BUFFER_SIZE_MISMATCH", tensorPath(s, t),
            tensorLabel(f.model.subgraphs[s], static_cast<int64_t>(t)) + " of type " +
                circle::EnumNameTensorType(tensor.type) + " and " + std::to_string(count) + " elements needs " +
                std::to_string(expected) + " bytes, but buffer " + std::to_string(tensor.buffer) + " holds " +
                std::to_string(actual));
}

} // namespace

void checkTensors(Findings &f, std::size_t s) {
  const CircleSubGraph &sg = f.model.subgraphs[s];
  std::map<std::string, std::size_t> names;
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    checkShape(f, s, t);
    if (sg.tensors[t].buffer < f.model.buffers.size())
      checkPayloadSize(f, s, t);
    const std::string &name = sg.tensors[t].name;
    if (name.empty())
      continue;
    auto [it, inserted] = names.emplace(name, t);
    if (!inserted)
      f.warning("DUPLICATE_TENSOR_NAME", tensorPath(s, t) + ".name",
                "name '" + name + "' is also the name of tensor " + std::to_string(it->second));
  }
}

} // namespace tico::circle_verify
