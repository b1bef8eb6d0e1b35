#include "seeded_inputs.h"

#include "tico/support/error.h"

namespace tico::incremental::runtime {
namespace {

template <typename T, typename Dist>
std::shared_ptr<const TensorData> fill(DType dtype, const std::vector<int64_t> &shape, int64_t n, Dist dist,
                                       std::mt19937_64 &rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto &x : v)
    x = static_cast<T>(dist(rng));
  return std::make_shared<const TensorData>(TensorData::fromVector(dtype, shape, v));
}

} // namespace

std::shared_ptr<const TensorData> seededInput(const CircleTensorInfo &info, std::mt19937_64 &rng, int64_t int_bound) {
  std::vector<int64_t> shape;
  int64_t n = 1;
  for (int64_t d : info.shape) {
    shape.push_back(std::max<int64_t>(d, 1));
    n *= shape.back();
  }
  std::uniform_int_distribution<int64_t> ints(0, std::max<int64_t>(int_bound, 1) - 1);
  switch (info.dtype) {
  case DType::Float32:
    return fill<float>(info.dtype, shape, n, std::uniform_real_distribution<float>(-1.0f, 1.0f), rng);
  case DType::Int32: return fill<int32_t>(info.dtype, shape, n, ints, rng);
  case DType::Int64: return fill<int64_t>(info.dtype, shape, n, ints, rng);
  case DType::Bool: return fill<uint8_t>(info.dtype, shape, n, std::uniform_int_distribution<int>(0, 1), rng);
  default: throw Error("input '" + info.name + "': no seeded data for " + std::string(dtypeName(info.dtype)));
  }
}

} // namespace tico::incremental::runtime
