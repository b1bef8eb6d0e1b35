// ROPE (Circle extension): inputs (input, sin_table, cos_table), RoPEOptions.mode GPT_NEOX or
// GPT_J (see rope.h for the formulas). The input is float32 with an even last dim D (onert
// requires rank 4, [batch, heads, tokens, D]; any rank works here). The tables have last dim D
// and broadcast against the input's leading dims like NumPy: a [1, 1, tokens, D] table rotates
// token t by row t, a single row rotates every token alike. (onert and luci-interpreter always
// read the first table row, which agrees with this whenever the table has one row.)
#include "kernels/registrations.h"
#include "kernels/rope.h"

namespace tico::interp {
namespace {

// Row index into a table whose leading dims broadcast against the input's leading dims.
std::vector<int64_t> tableRowStrides(const Shape &rows, const Shape &table_rows) {
  std::vector<int64_t> strides(rows.size(), 0);
  int64_t stride = 1;
  for (std::size_t i = table_rows.size(); i-- > 0;) {
    strides[rows.size() - table_rows.size() + i] = table_rows[i] == 1 ? 0 : stride;
    stride *= table_rows[i];
  }
  return strides;
}

void runRope(KernelContext &ctx) {
  const auto mode = ctx.options<circle::RoPEOptionsT>().mode;
  check(mode == circle::RoPEMode::GPT_NEOX || mode == circle::RoPEMode::GPT_J,
        "mode " + std::to_string(static_cast<int>(mode)) + " is neither GPT_NEOX nor GPT_J");
  const Tensor &input = ctx.input(0);
  const Tensor &sin = ctx.input(1);
  const Tensor &cos = ctx.input(2);
  check(input.dtype == DType::Float32 && sin.dtype == DType::Float32 && cos.dtype == DType::Float32,
        "input and tables must be float32");
  check(input.rank() >= 1 && input.shape.back() % 2 == 0,
        "the input's last dim must be even, got shape " + shapeString(input.shape));
  const int64_t depth = input.shape.back();
  const Shape rows(input.shape.begin(), input.shape.end() - 1);
  std::vector<std::vector<int64_t>> strides;
  for (const Tensor *table : {&sin, &cos}) {
    check(table->rank() >= 1 && table->shape.back() == depth && table->rank() <= input.rank(),
          std::string(table == &sin ? "sin" : "cos") + "_table " + shapeString(table->shape) +
              " must end in " + std::to_string(depth) + " and have rank <= " + std::to_string(input.rank()));
    const Shape table_rows(table->shape.begin(), table->shape.end() - 1);
    // Each table dim is 1 or the input's (right-aligned): a table never widens the input.
    bool broadcasts = true;
    for (std::size_t i = 0; i < table_rows.size(); ++i) {
      const int64_t dim = table_rows[table_rows.size() - 1 - i];
      broadcasts = broadcasts && (dim == 1 || dim == rows[rows.size() - 1 - i]);
    }
    check(broadcasts, std::string(table == &sin ? "sin" : "cos") + "_table " + shapeString(table->shape) +
                          " does not broadcast to " + shapeString(input.shape));
    strides.push_back(tableRowStrides(rows, table_rows));
  }
  Tensor &out = ctx.allocateOutput(0, DType::Float32, input.shape);
  const int64_t count = numElements(rows);
  std::vector<int64_t> index(rows.size(), 0);
  for (int64_t r = 0; r < count; ++r) {
    int64_t sin_row = 0, cos_row = 0;
    for (std::size_t d = 0; d < rows.size(); ++d) {
      sin_row += index[d] * strides[0][d];
      cos_row += index[d] * strides[1][d];
    }
    rotateRow(mode, input.as<float>() + r * depth, sin.as<float>() + sin_row * depth,
              cos.as<float>() + cos_row * depth, out.mut<float>() + r * depth, depth);
    for (std::size_t d = rows.size(); d-- > 0;) {
      if (++index[d] < rows[d])
        break;
      index[d] = 0;
    }
  }
}

std::string checkRope(const OpSignature &op) { return requireInputType(op, 0, {DType::Float32}); }

} // namespace

void registerRopeKernel(KernelTable &table) { table.add(circle::BuiltinOperator::ROPE, runRope, checkRope); }

} // namespace tico::interp
