// Shared helpers of the Circle lowerings: argument decoding, zero-copy weight views, and the
// small operator sequences (transpose, reshape, cast, shape vectors) many lowerings emit.
//
// Conventions every lowering follows (docs/lowering.md explains them):
//   * The graph keeps PyTorch's layout; layout-sensitive ops are wrapped in TRANSPOSEs.
//   * Attribute-like operands (shapes, permutations, axes, paddings, begin/end) are int32
//     constants; a value outside int32 is an error, never a silent wrap.
//   * A symbolic dim is 1 in a tensor's shape and -1 in its signature; runtime shape vectors
//     are assembled from SymInt values (int32 [1] tensors) or from SHAPE of an input.
//   * Absent optional inputs are -1.
#pragma once

#include "tico/ir/op_ref.h"
#include "tico/ir/shape_utils.h"
#include "tico/lowering/lowering.h"
#include "tico/plugin/registry.h"
#include "tico/support/error.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico::lowering {

// ---- registration ---------------------------------------------------------------------------

// The ops a lowering registers for, named by the typed constants of tico/ops/ (a misspelt op
// does not compile).
using OpRefs = std::initializer_list<std::reference_wrapper<const OpRef>>;
// Registers `lowering` for every op in `ops`.
void registerFor(Registrar &registrar, OpRefs ops, const std::string &summary,
                 std::shared_ptr<const OpLowering> lowering, int priority = 0);

template <typename T> circle::BuiltinOptionsUnion options(T table) {
  circle::BuiltinOptionsUnion u;
  u.Set(std::move(table));
  return u;
}

// Base of the lowerings in this plugin: a malformed node (an argument of an unexpected kind)
// makes check() throw, which is reported as the reason instead of escaping the serializer's
// coverage scan.
class CheckedLowering : public OpLowering {
public:
  std::string unsupportedReason(const Node &node) const final {
    try {
      return check(node);
    } catch (const std::exception &e) {
      return std::string("unexpected arguments: ") + e.what();
    }
  }

protected:
  // Why `node` cannot be lowered, or "".
  virtual std::string check(const Node & /*node*/) const { return {}; }
};

// ---- argument decoding ----------------------------------------------------------------------

// Dims are normalised with tico::normalizeDim (tico/ir/shape_utils.h).
// An int[N] argument: a single int (or one-element list) broadcasts to `n` elements.
std::vector<int64_t> intList(const Argument &arg, std::size_t n, std::string_view what);
int32_t toInt32(int64_t value, std::string_view what);
std::vector<int32_t> toInt32(const std::vector<int64_t> &values, std::string_view what);
// A Scalar argument (int, float or bool) as double; nullopt for anything else.
std::optional<double> numberOf(const Argument &arg);

// ---- shapes -----------------------------------------------------------------------------------

int countSymbolic(const Shape &shape);
Shape permuteShape(const Shape &shape, const std::vector<int64_t> &perm);
std::vector<int64_t> identityPermutation(int64_t rank);
// Permutation that moves `dim` to the end (and back, it is its own inverse when swapping).
std::vector<int64_t> swapWithLast(int64_t dim, int64_t rank);

// ---- constant data ----------------------------------------------------------------------------

// A view of the same storage with permuted dims: out.sizes[i] = in.sizes[perm[i]]. No copy;
// the writer materialises the view when it writes the buffer.
std::shared_ptr<const TensorData> permutedView(const std::shared_ptr<const TensorData> &data,
                                               const std::vector<int64_t> &perm);
std::shared_ptr<const TensorData> zeros(DType dtype, std::vector<int64_t> sizes);
// A rank-0 constant of `dtype` holding `value` (converted as PyTorch converts a Python scalar).
std::shared_ptr<const TensorData> scalarData(DType dtype, double value);
// Whether `dtype` is a number or bool type the arithmetic lowerings compute in.
bool isNumericDType(DType dtype);
// isNumericDType plus the 16-bit floats: the types scalarData (and CAST) handle.
bool isConstantDType(DType dtype);
// Lowest value of `dtype` (-inf for floating types), for max-pool padding.
std::shared_ptr<const TensorData> lowestScalar(DType dtype);

// ---- emission -----------------------------------------------------------------------------

// addOperator writing the tensor of `output`, created only after `inputs` were evaluated: the
// order of function arguments is unspecified in C++, and tensor numbering must not depend on
// the compiler.
void emitOp(CircleEmitter &emit, circle::BuiltinOperator op, std::vector<int32_t> inputs, const Value *output,
            circle::BuiltinOptionsUnion options = {});

// TRANSPOSE `input` (of `shape`) into a new tensor; returns it.
int32_t emitTranspose(CircleEmitter &emit, int32_t input, DType dtype, const Shape &shape,
                      const std::vector<int64_t> &perm, const std::string &hint);
void emitTransposeInto(CircleEmitter &emit, int32_t input, const std::vector<int64_t> &perm, int32_t output,
                       const std::string &hint);
// An operator copying `input` to `output` unchanged (identity TRANSPOSE, or RESHAPE for rank 0).
void emitIdentity(CircleEmitter &emit, int32_t input, int64_t rank, int32_t output, const std::string &hint);
// The tensor of `value`, CAST to `dtype` when it has another element type.
int32_t castedTensor(CircleEmitter &emit, const Value *value, DType dtype, const std::string &hint);
void emitCastInto(CircleEmitter &emit, int32_t input, DType from, DType to, int32_t output);
// A rank-0 constant tensor of `dtype`.
int32_t scalarConstant(CircleEmitter &emit, DType dtype, double value, const std::string &hint);

// One element of a runtime int32 vector (a shape, begin or end operand).
struct VectorPiece {
  enum class Kind { Constant, Symbol, InputDim } kind = Kind::Constant;
  int64_t value = 0;           // Constant
  const Value *symbol = nullptr; // Symbol: a SymInt value
  const Value *input = nullptr;  // InputDim: dim `value` of this tensor, read with SHAPE
};

// Pieces for the target shape `target`: static dims are constants; a symbolic dim takes the
// SymInt of the matching `sizes` element (when `sizes` lists one per dim), else the dim of
// `reference` with the same expression (aligned to the right, as broadcasting aligns), else
// -1 when `allow_minus_one` and no other dim needs it. nullopt when some dim stays unknown.
std::optional<std::vector<VectorPiece>> shapePieces(const Shape &target, const Argument *sizes,
                                                    const Value *reference, bool allow_minus_one);
// An int32 [n] tensor holding the pieces: one constant when all are constant, otherwise
// CONCATENATION of constant runs, SymInt tensors and SHAPE/GATHER reads.
int32_t emitIntVector(CircleEmitter &emit, const std::vector<VectorPiece> &pieces, const std::string &hint);
// True when all pieces are constants.
bool allConstant(const std::vector<VectorPiece> &pieces);
std::vector<int32_t> constantValues(const std::vector<VectorPiece> &pieces, std::string_view what);

// ---- value-free shapes (static_shapes.cpp) -----------------------------------------------------

// The tensor dim a SymInt reads (sym_size.int, or the circle::shape chain of
// convert-sym-size-to-circle-shape) as an InputDim piece; nullopt for computed SymInts.
std::optional<VectorPiece> resolveSymbol(const Value *symbol);
// Whether emitZerosOfShape can build these pieces: a numeric dtype and every symbolic piece a
// dim of an existing tensor.
bool canBuildStatically(const std::vector<VectorPiece> &pieces, DType dtype);
// Zeros of `shape` built only from shape-preserving operators (STRIDED_SLICE, ZEROS_LIKE,
// constant-shape RESHAPE, broadcasting ADD), so runtimes infer the shape from the inputs'
// shapes; FILL/RANGE/BROADCAST_TO over runtime shape vectors would make it value-dependent.
int32_t emitZerosOfShape(CircleEmitter &emit, const std::vector<VectorPiece> &pieces, const Shape &shape, DType dtype,
                         const std::string &hint);
// The largest value `dim` takes: its size when static, the upper end of its symbol's range
// when it is a bare symbol with a bounded range; nullopt otherwise.
std::optional<int64_t> upperBound(const Graph &graph, const Dim &dim);
// Largest bound for which emitIotaOfDim counts with a convolution (its cost is n * bound).
inline constexpr int64_t kMaxConvolvedIota = 8192;
// 0, 1, ..., n-1 for n = dim `d` of `t`, as a 1-D `dtype` (float32, int32 or int64) tensor.
// With `bound` (n's largest value, at most kMaxConvolvedIota) it is built value-free: ones of
// the dim's extent after bound - 1 zeros, convolved with bound ones (CONV_2D, VALID), minus 1,
// so runtimes infer its shape from the input's (onert 0.2 has no CUMSUM). Without a bound it
// is RANGE(0, n, 1) over the runtime size, whose shape is value-dependent.
int32_t emitIotaOfDim(CircleEmitter &emit, const Value *t, int64_t d, DType dtype, std::optional<int64_t> bound,
                      const std::string &hint);

// RESHAPE `input` to `target` (writing into `output`). A static target or one with a single
// symbolic dim uses a constant shape (-1 for that dim); otherwise the shape is assembled at
// runtime from `sizes`/`reference` (see shapePieces). Throws when it cannot be expressed.
void emitReshapeInto(CircleEmitter &emit, int32_t input, const Shape &target, const Argument *sizes,
                     const Value *reference, int32_t output, const std::string &hint);
// Why emitReshapeInto cannot build `target`, or "".
std::string reshapeUnsupported(const Shape &target, const Argument *sizes, const Value *reference);

// ---- reductions ------------------------------------------------------------------------------

// The normalised, sorted dims a reduction node reduces (its "dim" argument: an int, a list,
// None or empty = every dim).
std::vector<int64_t> reductionAxes(const Node &node);
// A reduction operator (MEAN, SUM, REDUCE_MAX, ...) over `axes` with int32 axes, writing
// `output`; works around onert reading a rank-4 -> rank-2 reduction as NHWC pooling.
void emitReduceInto(CircleEmitter &emit, circle::BuiltinOperator op, int32_t input, DType dtype, const Shape &in_shape,
                    const std::vector<int64_t> &axes, bool keepdim, int32_t output, const std::string &hint,
                    const QuantParams *quant = nullptr); // `quant`: parameters of the quantized result

// ---- indexing --------------------------------------------------------------------------------

// The index tensors of an index / index_put index list. They must be adjacent: None entries
// before or after them are full slices; `first` is the first indexed dim (0 and no tensors when
// every entry is None). Throws when full slices separate index tensors.
struct IndexTensors {
  std::size_t first = 0;
  std::vector<const Value *> tensors;
};
IndexTensors adjacentIndexTensors(const std::vector<Value *> &indices);

// ---- common checks ---------------------------------------------------------------------------

// "" when `dtype` is a floating type Circle kernels compute in, else a reason naming `what`.
std::string requireFloat(const Value *value, std::string_view what);
// "" when `value` is float32 or a quantized tensor (quantized kernels run on its codes).
std::string requireFloatOrQuantized(const Value *value, std::string_view what);
// The bias operand of a FULLY_CONNECTED / convolution producing `out`: a quantized bias (the
// quantize-bias pass made it) as it is, a float one cast to the result's dtype.
// For FULLY_CONNECTED and the convolutions: "" when the operation is float, or when input,
// weight, result and (present) bias are all quantized; else why not (a half-quantized node).
std::string quantizedOperands(const Node &node, std::string_view what);
int32_t biasTensor(CircleEmitter &emit, const Value *bias, const Value *out, DType dtype, const std::string &hint);
// Whether one of `values` is a quantized tensor (the operator then runs its quantized kernel).
bool anyQuantized(std::initializer_list<const Value *> values);
bool anyQuantized(const std::vector<const Value *> &values);
// For operators whose quantized kernel reads and writes codes of one type (ADD, SUB, MUL,
// CONCATENATION, pools, MEAN, SOFTMAX, LOGISTIC, TANH, BATCH_MATMUL): "" when every value is
// quantized per tensor with one dtype, else why not (a float or per-channel operand, or mixed
// types: the quantization bundle's insert-quantize-on-dtype-mismatch requantizes those).
std::string quantizedSameType(const std::vector<const Value *> &values, std::string_view what);

} // namespace tico::lowering
