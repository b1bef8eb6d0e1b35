// Static memory planning of a subgraph's intermediate tensors: one arena per run, each tensor at
// an offset chosen once when the model is prepared, from the operators' order.
//
// The buffer pool (buffer_pool.h) already recycles buffers between operators by size class;
// what it cannot do is place a tensor where one of another size died, or let an elementwise
// operator write its result over an operand it reads for the last time. The plan does both:
//
// * Lifetimes: a tensor lives from the operator that writes it to its last reader. Operators
//   whose result is a view of their input (RESHAPE, SQUEEZE, EXPAND_DIMS: the kernels alias)
//   put both in one *group*, which lives as long as its longest member.
// * In place: an operator whose kernel may write its output over input k (KernelInfo::
//   in_place_inputs; elementwise maps that read element i before writing element i) joins
//   the output to input k's group when input k's group ends at this operator, has the output's
//   byte size, and is not read through another input of the same operator.
// * Placement: groups by decreasing size, each at the lowest 64-byte aligned offset that no
//   group overlapping it in time occupies (TFLite's greedy-by-size; deterministic).
//
// Left to the pool, i.e. not planned: tensors of unknown size (a dynamic dim) or without
// elements, constants, subgraph inputs (caller's memory) and outputs (handed to the caller),
// every tensor an IF / WHILE / CALL reads or writes (a body may return its input), and any
// group containing one of these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tico::interp {

struct PlanOperator {
  std::vector<int32_t> inputs;  // tensor indices, -1 = omitted
  std::vector<int32_t> outputs; // tensor indices
  bool aliases_input0 = false;  // output 0 is a view of input 0 (RESHAPE and friends)
  bool opaque = false;          // control flow: its tensors are not planned
  uint32_t in_place_inputs = 0; // bit k: the kernel may write output 0 over input k
};

struct PlanTensor {
  std::optional<std::size_t> bytes; // nullopt: size unknown before the run
  bool external = false;            // constant, subgraph input or output
};

struct MemoryPlan {
  std::vector<int64_t> offset;   // per tensor: byte offset in the arena, -1 = not planned
  std::vector<std::size_t> bytes; // per tensor: its size when planned, else 0
  std::size_t arena_bytes = 0;   // 0: nothing planned
  std::size_t planned = 0;       // tensors placed in the arena
  std::size_t in_place = 0;      // operators writing over an input
  std::size_t tensor_bytes = 0;  // the planned groups' sizes added up (the arena without sharing)

  std::size_t bytesOf(int32_t tensor) const { return bytes[static_cast<std::size_t>(tensor)]; }
};

MemoryPlan planMemory(const std::vector<PlanTensor> &tensors, const std::vector<PlanOperator> &ops);

} // namespace tico::interp
