// upsample_nearest1d / _upsample_nearest_exact1d on x[N, C, L] as one gather along L with
// constant indices, the source position of output i being (PyTorch's CPU kernel, in float)
//   nearest:       min(floor(i * scale), L - 1) (i when out = L, i / 2 when out = 2L)
//   nearest-exact: min(floor((i + 0.5) * scale), L - 1)
// with scale = 1 / scale_factor when a factor is given, else L / out. Needs a static L.
#include "layout_rules.h"

#include <algorithm>
#include <cmath>

namespace tico::decompose {

using passes::A;

namespace {

Replacement upsampleNearest1d(Builder &b, Node &n, bool exact) {
  Value *x = n.input(std::size_t{0});
  if (x->rank() != 3 || !x->shape()[2].isStatic())
    return std::nullopt;
  const int64_t in = x->shape()[2].value();
  std::optional<double> factor;
  if (const Argument *factors = n.findArg("scale_factors"); factors != nullptr && !factors->isNone()) {
    if (factors->kind() != Argument::Kind::FloatList || factors->asDoubles().size() != 1)
      return std::nullopt;
    factor = factors->asDoubles()[0];
  } else if (const Argument *scales = n.findArg("scales"); scales != nullptr && !scales->isNone()) {
    factor = scales->asDouble();
  }
  int64_t out = 0;
  if (const Argument *size = n.findArg("output_size"); size != nullptr && !size->isNone()) {
    const std::optional<std::vector<int64_t>> sizes = staticInts(*size);
    if (!sizes || sizes->size() != 1)
      return std::nullopt;
    out = (*sizes)[0];
  } else if (factor) {
    out = static_cast<int64_t>(std::floor(static_cast<double>(in) * *factor));
  }
  if (in < 1 || out < 1)
    return std::nullopt;
  const float scale = factor && *factor > 0 ? static_cast<float>(1.0 / *factor)
                                            : static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> source;
  for (int64_t i = 0; i < out; ++i) {
    if (!exact && out == in) { // the kernel's shortcuts for plain nearest
      source.push_back(i);
    } else if (!exact && out == 2 * in) {
      source.push_back(i / 2);
    } else {
      // The kernel multiplies in float for nearest and in double ((i + 0.5) is a double) for
      // nearest-exact, then floors in float.
      const float position = exact ? static_cast<float>((static_cast<double>(i) + 0.5) * scale)
                                   : static_cast<float>(i) * scale;
      source.push_back(std::min(static_cast<int64_t>(std::floor(position)), in - 1));
    }
  }
  Value *index =
      b.constant(std::make_shared<const TensorData>(TensorData::fromVector(DType::Int64, {out}, source)), "_index");
  return std::vector<Value *>{b.make("aten::index_select.default", {A(x), A(int64_t{2}), A(index)})};
}

} // namespace

std::vector<Rule> layoutNearestRules() {
  auto nearest = [](Builder &b, Node &n) { return upsampleNearest1d(b, n, false); };
  auto exact = [](Builder &b, Node &n) { return upsampleNearest1d(b, n, true); };
  return {{"aten::upsample_nearest1d.vec", nearest},
          {"aten::upsample_nearest1d.default", nearest},
          {"aten::_upsample_nearest_exact1d.vec", exact},
          {"aten::_upsample_nearest_exact1d.default", exact}};
}

} // namespace tico::decompose
