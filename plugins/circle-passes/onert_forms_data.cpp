// Data-movement forms of onert-op-forms: operators onert 0.2 lacks (or miscomputes) for a type
// become STRIDED_SLICE, CONCATENATION or GATHER with constant indices, which move the same
// elements. Every form here is exact for every value.
#include "onert_forms.h"
#include "onert_support.h"

#include <cmath>
#include <limits>

namespace tico::circle_passes::onert_forms {
namespace {

using T = circle::TensorType;

bool fitsInt32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

circle::BuiltinOptionsUnion stridedSliceOptions(int32_t begin_mask, int32_t end_mask) {
  circle::StridedSliceOptionsT o;
  o.begin_mask = begin_mask;
  o.end_mask = end_mask;
  return makeOptions(std::move(o));
}

circle::BuiltinOptionsUnion gatherOptions(int32_t axis) {
  circle::GatherOptionsT o;
  o.axis = axis;
  return makeOptions(std::move(o));
}

// GATHER of `x` along `axis` at the constant `indices`, writing `out` (or a new tensor when
// out < 0). Returns the tensor written.
int32_t gatherAlong(SubgraphEditor &e, int32_t x, std::size_t axis, const std::vector<int32_t> &indices, int32_t out,
                    const Extent &extent, const std::string &name, int anchor) {
  int32_t idx = int32Vector(e, indices, name + "/indices");
  if (out < 0)
    return emit(e, BuiltinOperator::GATHER, {x, idx}, e.tensor(x).type, extent, name, gatherOptions(static_cast<int32_t>(axis)),
                anchor);
  e.addOp(BuiltinOperator::GATHER, {x, idx}, {out}, gatherOptions(static_cast<int32_t>(axis)), anchor);
  return out;
}

// Applies per-axis constant index maps (axis -> indices) to `x` with GATHERs, the last one
// writing `out`. Axes with an empty map are skipped.
void gatherChain(SubgraphEditor &e, int32_t x, const std::vector<std::vector<int32_t>> &maps, int32_t out, int anchor) {
  std::vector<std::size_t> axes;
  for (std::size_t d = 0; d < maps.size(); ++d)
    if (!maps[d].empty())
      axes.push_back(d);
  int32_t current = x;
  Extent extent = extentOf(e.tensor(x));
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const std::size_t d = axes[k];
    extent = withDim(extent, d, static_cast<int32_t>(maps[d].size()));
    const bool last = k + 1 == axes.size();
    current = gatherAlong(e, current, d, maps[d], last ? out : -1, extent,
                          derivedName(e, out, "gather" + std::to_string(d)), anchor);
  }
}

} // namespace

// SLICE with constant begin/size -> STRIDED_SLICE (onert's SLICE only takes float32 and uint8).
bool rewriteSlice(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::SLICE || e.op(i).inputs.size() != 3 || e.op(i).outputs.size() != 1)
    return false;
  const int32_t x = e.op(i).inputs[0];
  if (!isPlain(e, x) || onertSupports(BuiltinOperator::SLICE, e.tensor(x).type))
    return false;
  auto begin = constantInts(e, e.op(i).inputs[1]);
  auto size = constantInts(e, e.op(i).inputs[2]);
  const std::size_t rank = e.tensor(x).shape.size();
  if (!begin || !size || begin->size() != rank || size->size() != rank || rank > 31)
    return false;
  std::vector<int32_t> b(rank), end(rank), strides(rank, 1);
  int32_t end_mask = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    if ((*begin)[d] < 0 || (*size)[d] < -1 || !fitsInt32((*begin)[d] + (*size)[d]))
      return false;
    b[d] = static_cast<int32_t>((*begin)[d]);
    if ((*size)[d] == -1)
      end_mask |= 1 << d;
    else
      end[d] = static_cast<int32_t>((*begin)[d] + (*size)[d]);
  }
  const int32_t out = e.op(i).outputs[0];
  replaceOp(e, i, BuiltinOperator::STRIDED_SLICE,
            {x, int32Vector(e, b, derivedName(e, out, "begin")), int32Vector(e, end, derivedName(e, out, "end")),
             int32Vector(e, strides, derivedName(e, out, "strides"))},
            stridedSliceOptions(0, end_mask));
  return true;
}

// SPLIT_V -> one STRIDED_SLICE per output (onert 0.2's SPLIT_V writes zeros).
bool rewriteSplitV(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::SPLIT_V || e.op(i).inputs.size() != 3)
    return false;
  const std::vector<int32_t> in = e.op(i).inputs, outputs = e.op(i).outputs;
  const int32_t x = in[0];
  if (!isPlain(e, x))
    return false;
  auto sizes = constantInts(e, in[1]);
  auto axis_values = constantInts(e, in[2]);
  const Extent extent = extentOf(e.tensor(x));
  const std::size_t rank = extent.rank();
  if (!sizes || !axis_values || axis_values->size() != 1 || sizes->size() != outputs.size() || rank > 31)
    return false;
  auto axis = normalizeAxis((*axis_values)[0], static_cast<int64_t>(rank));
  if (!axis)
    return false;
  const std::size_t a = static_cast<std::size_t>(*axis);
  // One size may be -1 (the rest of the dim): known for a static dim, or open-ended when last.
  std::vector<int64_t> s = *sizes;
  int64_t known = 0;
  int unknown = -1;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] == -1) {
      if (unknown >= 0)
        return false;
      unknown = static_cast<int>(k);
    } else if (s[k] < 0) {
      return false;
    } else {
      known += s[k];
    }
  }
  if (unknown >= 0 && !extent.dynamicAt(a)) {
    s[static_cast<std::size_t>(unknown)] = extent.shape[a] - known;
    if (s[static_cast<std::size_t>(unknown)] < 0)
      return false;
  }
  else if (unknown >= 0 && static_cast<std::size_t>(unknown) + 1 != s.size())
    return false;
  if (!fitsInt32(known))
    return false;

  e.removeOp(i);
  int64_t start = 0;
  const int32_t other_axes = ((1 << rank) - 1) & ~(1 << a);
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const bool open_end = s[k] == -1;
    std::vector<int32_t> begin(rank, 0), end(rank, 0), strides(rank, 1);
    begin[a] = static_cast<int32_t>(start);
    end[a] = open_end ? 0 : static_cast<int32_t>(start + s[k]);
    if (!open_end)
      start += s[k];
    if (outputs[k] < 0)
      continue;
    const int32_t out = outputs[k];
    e.addOp(BuiltinOperator::STRIDED_SLICE,
            {x, int32Vector(e, begin, derivedName(e, out, "begin")), int32Vector(e, end, derivedName(e, out, "end")),
             int32Vector(e, strides, derivedName(e, out, "strides"))},
            {out}, stridedSliceOptions(other_axes, other_axes | (open_end ? 1 << a : 0)), i);
  }
  return true;
}

// TILE (onert: float32 only) -> CONCATENATION of copies along each tiled axis.
bool rewriteTile(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::TILE || e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
    return false;
  const int32_t x = e.op(i).inputs[0], out = e.op(i).outputs[0];
  if (!isPlain(e, x) || onertSupports(BuiltinOperator::TILE, e.tensor(x).type))
    return false;
  auto multiples = constantInts(e, e.op(i).inputs[1]);
  Extent extent = extentOf(e.tensor(x));
  if (!multiples || multiples->size() != extent.rank())
    return false;
  std::vector<std::size_t> axes;
  for (std::size_t d = 0; d < multiples->size(); ++d) {
    if ((*multiples)[d] < 1 || (*multiples)[d] > 4096)
      return false;
    if ((*multiples)[d] > 1)
      axes.push_back(d);
  }
  if (axes.empty())
    return false; // an identity TILE: left to eliminate-identity-ops
  e.removeOp(i);
  int32_t current = x;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const std::size_t d = axes[k];
    const int64_t m = (*multiples)[d];
    extent.shape[d] = static_cast<int32_t>(extent.shape[d] * m);
    std::vector<int32_t> copies(static_cast<std::size_t>(m), current);
    circle::ConcatenationOptionsT concat;
    concat.axis = static_cast<int32_t>(d);
    if (k + 1 == axes.size()) {
      e.addOp(BuiltinOperator::CONCATENATION, copies, {out}, makeOptions(std::move(concat)), i);
    } else {
      current = emit(e, BuiltinOperator::CONCATENATION, copies, e.tensor(x).type, extent,
                     derivedName(e, out, "tile" + std::to_string(d)), makeOptions(std::move(concat)), i);
    }
  }
  return true;
}

// REVERSE_V2 (onert: float32 only, and one axis: "Inference execution failed" for a flip of
// three axes) -> GATHER with reversed constant indices per axis.
bool rewriteReverse(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::REVERSE_V2 || e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
    return false;
  const int32_t x = e.op(i).inputs[0], out = e.op(i).outputs[0];
  auto axes = constantInts(e, e.op(i).inputs[1]);
  if (!isPlain(e, x) || (onertSupports(BuiltinOperator::REVERSE_V2, e.tensor(x).type) && axes && axes->size() == 1))
    return false;
  const Extent extent = extentOf(e.tensor(x));
  if (!axes || axes->empty())
    return false;
  std::vector<std::vector<int32_t>> maps(extent.rank());
  for (int64_t axis : *axes) {
    auto d = normalizeAxis(axis, static_cast<int64_t>(extent.rank()));
    if (!d || extent.dynamicAt(static_cast<std::size_t>(*d)) || !maps[static_cast<std::size_t>(*d)].empty())
      return false;
    auto &map = maps[static_cast<std::size_t>(*d)];
    for (int32_t k = extent.shape[static_cast<std::size_t>(*d)]; k-- > 0;)
      map.push_back(k);
  }
  e.removeOp(i);
  gatherChain(e, x, maps, out, i);
  return true;
}

// MIRROR_PAD (onert cannot load it) -> GATHER with the reflected constant indices per axis.
bool rewriteMirrorPad(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::MIRROR_PAD || e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
    return false;
  const auto *o = e.op(i).builtin_options.AsMirrorPadOptions();
  const int32_t x = e.op(i).inputs[0], out = e.op(i).outputs[0];
  auto paddings = constantInts(e, e.op(i).inputs[1]);
  const Extent extent = extentOf(e.tensor(x));
  if (!o || !isPlain(e, x) || !paddings || paddings->size() != 2 * extent.rank())
    return false;
  const bool symmetric = o->mode == circle::MirrorPadMode::SYMMETRIC;
  std::vector<std::vector<int32_t>> maps(extent.rank());
  for (std::size_t d = 0; d < extent.rank(); ++d) {
    const int64_t before = (*paddings)[2 * d], after = (*paddings)[2 * d + 1];
    if (before == 0 && after == 0)
      continue;
    const int64_t n = extent.shape[d];
    // REFLECT leaves the edge out (pad < n), SYMMETRIC repeats it (pad <= n).
    const int64_t limit = symmetric ? n : n - 1;
    if (extent.dynamicAt(d) || before < 0 || after < 0 || before > limit || after > limit)
      return false;
    for (int64_t k = -before; k < n + after; ++k) {
      int64_t source = k;
      if (k < 0)
        source = symmetric ? -k - 1 : -k;
      else if (k >= n)
        source = symmetric ? 2 * n - 1 - k : 2 * n - 2 - k;
      maps[d].push_back(static_cast<int32_t>(source));
    }
  }
  e.removeOp(i);
  gatherChain(e, x, maps, out, i);
  return true;
}

// RESIZE_NEAREST_NEIGHBOR (no onert CPU kernel) -> GATHER rows, then columns, at the source
// indices TFLite's nearest sampling picks.
bool rewriteResizeNearest(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::RESIZE_NEAREST_NEIGHBOR || e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
    return false;
  const auto *o = e.op(i).builtin_options.AsResizeNearestNeighborOptions();
  const int32_t x = e.op(i).inputs[0], out = e.op(i).outputs[0];
  auto size = constantInts(e, e.op(i).inputs[1]);
  const Extent extent = extentOf(e.tensor(x));
  if (!o || !isPlain(e, x) || !size || size->size() != 2 || extent.rank() != 4 || extent.dynamicAt(1) ||
      extent.dynamicAt(2) || (*size)[0] < 1 || (*size)[1] < 1 || (*size)[0] > 1 << 20 || (*size)[1] > 1 << 20)
    return false;
  auto sources = [&](int64_t in, int64_t count) {
    const float scale = (o->align_corners && count > 1) ? static_cast<float>(in - 1) / static_cast<float>(count - 1)
                                                        : static_cast<float>(in) / static_cast<float>(count);
    const float offset = o->half_pixel_centers ? 0.5f : 0.0f;
    std::vector<int32_t> map;
    bool identity = in == count;
    for (int64_t k = 0; k < count; ++k) {
      const float source = (static_cast<float>(k) + offset) * scale;
      int64_t index = o->align_corners ? static_cast<int64_t>(std::round(source)) : static_cast<int64_t>(std::floor(source));
      index = std::min(index, in - 1);
      if (o->half_pixel_centers)
        index = std::max<int64_t>(index, 0);
      identity = identity && index == k;
      map.push_back(static_cast<int32_t>(index));
    }
    return identity ? std::vector<int32_t>{} : map;
  };
  std::vector<std::vector<int32_t>> maps(4);
  maps[1] = sources(extent.shape[1], (*size)[0]);
  maps[2] = sources(extent.shape[2], (*size)[1]);
  if (maps[1].empty() && maps[2].empty())
    return false; // same size: left to the identity eliminations
  e.removeOp(i);
  gatherChain(e, x, maps, out, i);
  return true;
}

// GATHER_ND (onert cannot load it) -> GATHER on the params flattened over the indexed dims, at
// the linear index sum(indices[..., j] * stride_j) computed in int32 (valid indices of a
// static params tensor fit int32).
bool rewriteGatherNd(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::GATHER_ND || e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
    return false;
  const int32_t params = e.op(i).inputs[0], indices = e.op(i).inputs[1], out = e.op(i).outputs[0];
  if (!isPlain(e, params) || !isPlain(e, indices))
    return false;
  const Extent p = extentOf(e.tensor(params)), q = extentOf(e.tensor(indices));
  const T index_type = e.tensor(indices).type;
  if (!p.isStatic() || q.rank() < 1 || q.dynamicAt(q.rank() - 1) || (index_type != T::INT32 && index_type != T::INT64))
    return false;
  const std::size_t k = static_cast<std::size_t>(q.shape.back());
  if (k < 1 || k > p.rank())
    return false;
  std::vector<int32_t> strides(k);
  int64_t stride = 1;
  for (std::size_t j = k; j-- > 0;) {
    strides[j] = static_cast<int32_t>(stride);
    stride *= p.shape[j];
    if (!fitsInt32(stride))
      return false;
  }
  e.removeOp(i);
  int32_t idx = indices;
  if (index_type != T::INT32) {
    circle::CastOptionsT cast;
    cast.in_data_type = index_type;
    cast.out_data_type = T::INT32;
    idx = emit(e, BuiltinOperator::CAST, {indices}, T::INT32, q, derivedName(e, out, "indices_int32"),
               makeOptions(std::move(cast)), i);
  }
  int32_t scaled = emit(e, BuiltinOperator::MUL, {idx, int32Vector(e, strides, derivedName(e, out, "strides"))}, T::INT32,
                        q, derivedName(e, out, "scaled"), makeOptions(circle::MulOptionsT{}), i);
  Extent linear_extent = q;
  linear_extent.shape.pop_back();
  if (!linear_extent.signature.empty())
    linear_extent.signature.pop_back();
  circle::ReducerOptionsT sum;
  sum.keep_dims = false;
  int32_t linear = emit(e, BuiltinOperator::SUM,
                        {scaled, e.addInt32Constant({static_cast<int32_t>(q.rank() - 1)}, {1}, derivedName(e, out, "axis"))},
                        T::INT32, linear_extent, derivedName(e, out, "linear"), makeOptions(std::move(sum)), i);
  std::vector<int32_t> flat_shape{static_cast<int32_t>(stride)};
  flat_shape.insert(flat_shape.end(), p.shape.begin() + static_cast<std::ptrdiff_t>(k), p.shape.end());
  int32_t flat = params;
  if (k > 1) {
    flat = newTensor(e, e.tensor(params).type, Extent{flat_shape, {}}, derivedName(e, out, "flat_params"));
    addReshape(e, params, flat, flat_shape, i);
  }
  e.addOp(BuiltinOperator::GATHER, {flat, linear}, {out}, gatherOptions(0), i);
  return true;
}

// Integer CUMSUM (onert cannot load CUMSUM) along a static axis of length n: the Hillis-Steele
// scan, log2(n) rounds of "add the running sums shifted by s" (s = 1, 2, 4, ...), the shift
// being CONCATENATION(zeros, the first n - s entries). Integer addition is associative, so the
// sums are exact (modulo 2^bits, like the sequential sum). Floating-point CUMSUM is left to the
// ATen decomposition, as a different summation order would round differently.
bool rewriteIntegerCumsum(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::CUMSUM || e.op(i).inputs.size() != 2 || e.op(i).outputs.size() != 1)
    return false;
  const auto *o = e.op(i).builtin_options.AsCumsumOptions();
  const int32_t x = e.op(i).inputs[0], out = e.op(i).outputs[0];
  auto axis_values = constantInts(e, e.op(i).inputs[1]);
  if (!isPlain(e, x) || !isPlain(e, out) || !axis_values || axis_values->size() != 1 || (o && o->reverse))
    return false;
  const T type = e.tensor(x).type;
  if ((type != T::INT32 && type != T::INT64) || e.tensor(out).type != type)
    return false;
  const Extent extent = extentOf(e.tensor(x));
  auto axis = normalizeAxis((*axis_values)[0], static_cast<int64_t>(extent.rank()));
  if (!axis || extent.rank() > 31)
    return false;
  const std::size_t a = static_cast<std::size_t>(*axis);
  const int32_t n = extent.shape[a];
  if (extent.dynamicAt(a) || n < 1)
    return false;
  const bool exclusive = o && o->exclusive;
  const int32_t whole = ((1 << extent.rank()) - 1) & ~(1 << a);
  // x[..., begin:end, ...] along the axis.
  auto slice = [&](int32_t t, int32_t begin, int32_t end, const std::string &name) {
    std::vector<int32_t> b(extent.rank(), 0), en(extent.rank(), 0), strides(extent.rank(), 1);
    b[a] = begin;
    en[a] = end;
    return emit(e, BuiltinOperator::STRIDED_SLICE,
                {t, int32Vector(e, b, name + "/begin"), int32Vector(e, en, name + "/end"), int32Vector(e, strides, name + "/strides")},
                type, withDim(extent, a, end - begin), name, stridedSliceOptions(whole, whole), i);
  };
  // t shifted by s along the axis, zeros first.
  auto shifted = [&](int32_t t, int32_t s, const std::string &name) {
    int32_t head = slice(t, 0, s, name + "/head");
    int32_t zeros = emit(e, BuiltinOperator::SUB, {head, head}, type, withDim(extent, a, s), name + "/zeros",
                         makeOptions(circle::SubOptionsT{}), i);
    int32_t body = slice(t, 0, n - s, name + "/body");
    circle::ConcatenationOptionsT concat;
    concat.axis = static_cast<int32_t>(a);
    return emit(e, BuiltinOperator::CONCATENATION, {zeros, body}, type, extent, name, makeOptions(std::move(concat)), i);
  };
  e.removeOp(i);
  int32_t current = x;
  for (int32_t s = 1; s < n; s *= 2) {
    const std::string name = derivedName(e, out, "scan" + std::to_string(s));
    current = emit(e, BuiltinOperator::ADD, {current, shifted(current, s, name + "/shift")}, type, extent, name,
                   makeOptions(circle::AddOptionsT{}), i);
  }
  if (exclusive)
    current = n > 1 ? shifted(current, 1, derivedName(e, out, "exclusive"))
                    : emit(e, BuiltinOperator::SUB, {current, current}, type, extent, derivedName(e, out, "exclusive"),
                           makeOptions(circle::SubOptionsT{}), i);
  // The last step writes the output tensor; with n == 1 there was none: out = x + (x - x).
  if (current == x) {
    int32_t zeros = emit(e, BuiltinOperator::SUB, {x, x}, type, extent, derivedName(e, out, "zeros"),
                         makeOptions(circle::SubOptionsT{}), i);
    e.addOp(BuiltinOperator::ADD, {x, zeros}, {out}, makeOptions(circle::AddOptionsT{}), i);
  } else {
    e.setOutput(e.producer(current), 0, out);
  }
  return true;
}

// CONCATENATION with an empty operand (a static 0 dim, e.g. the pass-through half of a rotary
// embedding that covers the whole head): onert 0.2's shape inference gives the empty tensor a
// size of 1 along that dim, so the result is one too long and every later shape is wrong. The
// empty operands contribute nothing: they are dropped.
bool rewriteEmptyConcatOperands(SubgraphEditor &e, int i) {
  if (e.code(i) != BuiltinOperator::CONCATENATION || e.op(i).inputs.size() < 2 || e.op(i).outputs.size() != 1)
    return false;
  auto empty = [&](int32_t t) {
    if (!e.validTensor(t))
      return false;
    const Extent x = extentOf(e.tensor(t));
    for (std::size_t d = 0; d < x.rank(); ++d)
      if (x.shape[d] == 0 && !x.dynamicAt(d))
        return true;
    return false;
  };
  std::vector<int32_t> kept;
  for (int32_t t : e.op(i).inputs)
    if (!empty(t))
      kept.push_back(t);
  if (kept.empty() || kept.size() == e.op(i).inputs.size())
    return false;
  circle::BuiltinOptionsUnion options = e.op(i).builtin_options;
  replaceOp(e, i, BuiltinOperator::CONCATENATION, kept, std::move(options));
  return true;
}

} // namespace tico::circle_passes::onert_forms
