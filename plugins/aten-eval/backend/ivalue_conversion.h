// Conversions between tico's IR values and LibTorch's (at::Tensor, c10::IValue).
// Backend only: this header includes torch.
#pragma once

#include "node_inputs.h"

#include "tico/eval/evaluator.h"

#include <ATen/ATen.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include <exception>
#include <map>
#include <memory>

namespace tico::aten_eval {

// Storages handed to LibTorch for one evaluation, by base address. An output that aliases
// one of them (a view op such as permute or slice) is given back as a view of the same tico
// Storage, so folding a view of a memory-mapped weight keeps pointing into the mapping.
using InputStorages = std::map<const void *, std::shared_ptr<const Storage>>;

// Names follow c10; the mapping is by name, never by enum arithmetic.
c10::ScalarType toScalarType(DType dtype); // throws tico::Error for Unknown
std::optional<DType> fromScalarType(c10::ScalarType type);

// A zero-copy CPU tensor over `data`'s storage. The tensor keeps the storage alive; LibTorch
// must only read it (ops that write their inputs are never evaluated).
at::Tensor toTensor(const TensorData &data, InputStorages &storages);
// A TensorData that shares the result's memory (or an input's tico Storage when the result
// is a view of it). Throws tico::Error for results tico cannot hold (quantized, sparse, ...).
std::shared_ptr<const TensorData> fromTensor(const at::Tensor &tensor, const InputStorages &storages);

// True when the evaluator can build an IValue for an argument of schema type `type` and
// return a value of type `type` (see supportsReturnType).
bool supportsArgumentType(const c10::TypePtr &type);
bool supportsReturnType(const c10::TypePtr &type);

// The IValue for one node argument given the schema argument it fills.
c10::IValue toIValue(const Node &node, const Argument &arg, const c10::Argument &schema_arg,
                     const EvalEnv &env, InputStorages &storages);

// Appends the EvalValues of one result (a tensor list becomes one EvalValue per element).
void appendResults(const Node &node, const c10::IValue &result, const InputStorages &storages,
                   std::vector<EvalValue> &out);

// Runs `call` (a LibTorch computation for `node`): LibTorch's exceptions become tico errors
// naming the node; tico's own errors pass through unchanged.
template <typename Call> void reportingNode(const Node &node, Call &&call) {
  try {
    call();
  } catch (const Error &) {
    throw;
  } catch (const c10::Error &e) {
    throw nodeError(node, std::string("LibTorch: ") + e.what_without_backtrace());
  } catch (const std::exception &e) {
    throw nodeError(node, std::string("LibTorch: ") + e.what());
  }
}

} // namespace tico::aten_eval
