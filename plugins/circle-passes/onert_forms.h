// Building blocks of onert-op-forms: new tensors with a shape and signature, operators writing
// them, broadcast shapes, small typed constants. Each rewrite of the pass lives in
// onert_forms_*.cpp and is one function `bool rewriteX(SubgraphEditor &, int op)`.
#pragma once

#include "rewrite_utils.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tico::circle_passes::onert_forms {

// A tensor's static shape and, for a dynamic one, its signature (-1 for dynamic dims; empty
// when static).
struct Extent {
  std::vector<int32_t> shape;
  std::vector<int32_t> signature;

  std::size_t rank() const { return shape.size(); }
  bool dynamicAt(std::size_t d) const { return !signature.empty() && signature[d] < 0; }
  bool isStatic() const;
};

Extent extentOf(const CircleTensor &t);
// NumPy broadcasting of two extents (a dynamic dim against 1 stays dynamic).
Extent broadcastExtents(const Extent &a, const Extent &b);
// `e` with dim `d` set to `size` (static).
Extent withDim(const Extent &e, std::size_t d, int32_t size);

// A new non-constant tensor.
int32_t newTensor(SubgraphEditor &e, circle::TensorType type, const Extent &extent, const std::string &name);
// A new operator placed before `anchor` writing a new tensor of `type` and `extent`; returns it.
int32_t emit(SubgraphEditor &e, BuiltinOperator code, std::vector<int32_t> inputs, circle::TensorType type,
             const Extent &extent, const std::string &name, circle::BuiltinOptionsUnion options, int anchor);
// A one-element constant of `type` (rank 0).
int32_t scalarConstant(SubgraphEditor &e, circle::TensorType type, double value, const std::string &name);
// An int32 vector constant.
int32_t int32Vector(SubgraphEditor &e, const std::vector<int32_t> &values, const std::string &name);

bool isIntegerType(circle::TensorType type);
bool isPlain(const SubgraphEditor &e, int32_t t);

// The rewrites (true when the operator was replaced).
bool rewriteSlice(SubgraphEditor &e, int op);
bool rewriteSplitV(SubgraphEditor &e, int op);
bool rewriteTile(SubgraphEditor &e, int op);
bool rewriteReverse(SubgraphEditor &e, int op);
bool rewriteMirrorPad(SubgraphEditor &e, int op);
bool rewriteResizeNearest(SubgraphEditor &e, int op);
bool rewriteGatherNd(SubgraphEditor &e, int op);
bool rewriteEmptyConcatOperands(SubgraphEditor &e, int op);
bool rewriteIntegerCumsum(SubgraphEditor &e, int op);
bool rewriteSelect(SubgraphEditor &e, int op);
bool rewriteIntegerMaximum(SubgraphEditor &e, int op);
bool rewriteReduceMin(SubgraphEditor &e, int op);
bool rewriteCeil(SubgraphEditor &e, int op);
bool rewriteReluN1To1(SubgraphEditor &e, int op);
bool rewritePrelu(SubgraphEditor &e, int op);
bool rewriteHighRankReduction(SubgraphEditor &e, int op);
bool rewriteHighRankBatchMatmul(SubgraphEditor &e, int op);
bool rewriteHardSwish(SubgraphEditor &e, int op);
bool rewriteLowRankRmsNorm(SubgraphEditor &e, int op);
bool rewriteIntegerAbs(SubgraphEditor &e, int op);
bool rewriteConstantLhsBatchMatmul(SubgraphEditor &e, int op);
bool rewriteInstanceNorm(SubgraphEditor &e, int op);

} // namespace tico::circle_passes::onert_forms
