// The non-virtual CircleEmitter helpers: small constants that every lowering needs.
#include "tico/circle/quantization.h"
#include "tico/lowering/lowering.h"
#include "tico/support/error.h"

namespace tico {
namespace {

template <typename T>
std::shared_ptr<const TensorData> vectorData(DType dtype, std::vector<int64_t> shape, const std::vector<T> &values) {
  return std::make_shared<TensorData>(TensorData::fromVector<T>(dtype, std::move(shape), values));
}

} // namespace

int32_t CircleEmitter::constInt32(const std::vector<int32_t> &values, const std::string &name_hint) {
  return constant(vectorData(DType::Int32, {static_cast<int64_t>(values.size())}, values), name_hint);
}

int32_t CircleEmitter::constInt64(const std::vector<int64_t> &values, const std::string &name_hint) {
  return constant(vectorData(DType::Int64, {static_cast<int64_t>(values.size())}, values), name_hint);
}

int32_t CircleEmitter::constFloat(const std::vector<float> &values, std::vector<int64_t> shape,
                                  const std::string &name_hint) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  if (count != static_cast<int64_t>(values.size()))
    throw Error("constFloat '" + name_hint + "': " + std::to_string(values.size()) +
                " values do not fill the requested shape");
  return constant(vectorData(DType::Float32, std::move(shape), values), name_hint);
}

void CircleEmitter::setQuantization(int32_t tensor, const QuantParams &quant) {
  auto &tensors = model().subgraphs.front().tensors;
  if (tensor < 0 || static_cast<std::size_t>(tensor) >= tensors.size())
    throw Error("setQuantization: tensor " + std::to_string(tensor) + " does not exist");
  CircleTensor &t = tensors[static_cast<std::size_t>(tensor)];
  t.quantization = toCircleQuantization(quant, t.name);
}

int32_t CircleEmitter::scalarFloat(float value, const std::string &name_hint) {
  return constant(vectorData<float>(DType::Float32, {}, {value}), name_hint);
}

} // namespace tico
