// Test tool (not installed): runs the GPTQ solver on W.npy [r, c] and H.npy [c, c] (float32 or
// float64) and writes codes.npy (int32 [r, c]), dequantized.npy (float32 [r, c]),
// scale.npy / zero.npy (float32 [groups, r]) and group_of_column.npy (int32 [c]) into an output
// directory, so the parity test can compare with the original's GPTQ on the same inputs.
//
//   gptq_solve W.npy H.npy OUT_DIR [--bits=N] [--sym] [--per-tensor] [--mse] [--no-act-order]
//              [--group-size=N] [--static-groups] [--legacy-group-refit] [--percdamp=X]
//              [--block-size=N]
//
// Prints "solve_seconds <t>" and "loss <proxy>" on stdout.
#include "gptq_solver.h"
#include "tico/io/npy.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

using tico::DType;
using tico::TensorData;

template <typename Matrix>
Matrix readMatrix(const std::string &path) {
  const auto data = tico::readNpy(path);
  if (data->sizes.size() != 2)
    throw std::runtime_error(path + ": expected a 2-d array");
  const Eigen::Index rows = data->sizes[0], cols = data->sizes[1];
  const std::vector<std::byte> bytes = data->contiguousBytes();
  Matrix m(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) {
      const std::size_t k = static_cast<std::size_t>(i * cols + j);
      if (data->dtype == DType::Float32) {
        float v;
        std::memcpy(&v, bytes.data() + k * sizeof v, sizeof v);
        m(i, j) = static_cast<typename Matrix::Scalar>(v);
      } else if (data->dtype == DType::Float64) {
        double v;
        std::memcpy(&v, bytes.data() + k * sizeof v, sizeof v);
        m(i, j) = static_cast<typename Matrix::Scalar>(v);
      } else {
        throw std::runtime_error(path + ": expected float32 or float64");
      }
    }
  return m;
}

template <typename T>
void writeArray(const std::string &path, DType dtype, std::vector<int64_t> sizes, const std::vector<T> &values) {
  tico::writeNpy(path, TensorData::fromVector(dtype, std::move(sizes), values));
}

bool flag(const std::string &arg, const char *name, std::string *value) {
  const std::string prefix = std::string(name) + "=";
  if (arg.rfind(prefix, 0) != 0)
    return false;
  *value = arg.substr(prefix.size());
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s W.npy H.npy OUT_DIR [options]\n", argv[0]);
    return 2;
  }
  try {
    namespace gptq = tico::gptq;
    gptq::Options options;
    for (int i = 4; i < argc; ++i) {
      const std::string arg = argv[i];
      std::string value;
      if (flag(arg, "--bits", &value))
        options.grid.bits = std::stoi(value);
      else if (arg == "--sym")
        options.grid.symmetric = true;
      else if (arg == "--per-tensor")
        options.grid.per_channel = false;
      else if (arg == "--mse")
        options.grid.mse = true;
      else if (arg == "--no-act-order")
        options.act_order = false;
      else if (flag(arg, "--group-size", &value))
        options.group_size = std::stoi(value);
      else if (arg == "--static-groups")
        options.static_groups = true;
      else if (arg == "--legacy-group-refit")
        options.exact_group_refit = false;
      else if (flag(arg, "--percdamp", &value))
        options.percdamp = std::stod(value);
      else if (flag(arg, "--block-size", &value))
        options.block_size = std::stoi(value);
      else
        throw std::runtime_error("unknown option " + arg);
    }
    const Eigen::MatrixXf W = readMatrix<Eigen::MatrixXf>(argv[1]);
    Eigen::MatrixXd H = readMatrix<Eigen::MatrixXd>(argv[2]);

    const auto start = std::chrono::steady_clock::now();
    const gptq::Result result = gptq::quantize(W, std::move(H), options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const std::string out = argv[3];
    const Eigen::Index rows = W.rows(), cols = W.cols();
    std::vector<int32_t> codes(result.codes.data(), result.codes.data() + result.codes.size());  // row-major
    writeArray(out + "/codes.npy", DType::Int32, {rows, cols}, codes);
    const gptq::RowMajorMatrixXf dequantized = result.dequantized;
    writeArray(out + "/dequantized.npy", DType::Float32, {rows, cols},
               std::vector<float>(dequantized.data(), dequantized.data() + dequantized.size()));
    std::vector<float> scale, zero;
    for (const gptq::Grid &grid : result.grids) {
      scale.insert(scale.end(), grid.scale.begin(), grid.scale.end());
      zero.insert(zero.end(), grid.zero.begin(), grid.zero.end());
    }
    const auto groups = static_cast<int64_t>(result.grids.size());
    writeArray(out + "/scale.npy", DType::Float32, {groups, rows}, scale);
    writeArray(out + "/zero.npy", DType::Float32, {groups, rows}, zero);
    writeArray(out + "/group_of_column.npy", DType::Int32, {cols}, result.group_of_column);
    std::printf("solve_seconds %.3f\nloss %.6g\n", seconds, result.loss);
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "gptq_solve: %s\n", e.what());
    return 1;
  }
}
