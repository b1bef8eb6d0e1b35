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
//
//   gptq_solve conv2d-hessian X.npy H.npy --kernel=KH,KW [--stride=SH,SW] [--padding=PH,PW]
//              [--dilation=DH,DW] [--groups=G]
//
// writes the Hessian (float64 [c, c]) of a Conv2d's input X (float32 NCHW) through
// unfoldConv2d and HessianAccumulator.
#include "gptq_solver.h"
#include "tico/io/npy.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using tico::DType;
using tico::TensorData;

// A float32 or float64 array, row-major, as doubles (exact for both).
std::vector<double> readArray(const std::string &path, std::vector<int64_t> *sizes) {
  const auto data = tico::readNpy(path);
  *sizes = data->sizes;
  const std::vector<std::byte> bytes = data->contiguousBytes();
  std::vector<double> values(static_cast<std::size_t>(data->numel()));
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (data->dtype == DType::Float32) {
      float v;
      std::memcpy(&v, bytes.data() + k * sizeof v, sizeof v);
      values[k] = v;
    } else if (data->dtype == DType::Float64) {
      std::memcpy(&values[k], bytes.data() + k * sizeof(double), sizeof(double));
    } else {
      throw std::runtime_error(path + ": expected float32 or float64");
    }
  }
  return values;
}

template <typename Matrix>
Matrix readMatrix(const std::string &path) {
  std::vector<int64_t> sizes;
  const std::vector<double> values = readArray(path, &sizes);
  if (sizes.size() != 2)
    throw std::runtime_error(path + ": expected a 2-d array");
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const RowMajor>(values.data(), sizes[0], sizes[1]).cast<typename Matrix::Scalar>();
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

// "A,B" -> {A, B}
std::pair<int, int> pairOf(const std::string &value) {
  const std::size_t comma = value.find(',');
  if (comma == std::string::npos)
    throw std::runtime_error("expected two comma-separated numbers, got " + value);
  return {std::stoi(value.substr(0, comma)), std::stoi(value.substr(comma + 1))};
}

int conv2dHessian(int argc, char **argv) {
  tico::gptq::Conv2dGeometry geometry;
  for (int i = 4; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string value;
    if (flag(arg, "--kernel", &value))
      std::tie(geometry.kernel_h, geometry.kernel_w) = pairOf(value);
    else if (flag(arg, "--stride", &value))
      std::tie(geometry.stride_h, geometry.stride_w) = pairOf(value);
    else if (flag(arg, "--padding", &value))
      std::tie(geometry.pad_h, geometry.pad_w) = pairOf(value);
    else if (flag(arg, "--dilation", &value))
      std::tie(geometry.dilation_h, geometry.dilation_w) = pairOf(value);
    else if (flag(arg, "--groups", &value))
      geometry.groups = std::stoi(value);
    else
      throw std::runtime_error("unknown option " + arg);
  }
  std::vector<int64_t> sizes;
  const std::vector<double> values = readArray(argv[2], &sizes);
  if (sizes.size() != 4)
    throw std::runtime_error(std::string(argv[2]) + ": expected NCHW");
  const std::vector<float> input(values.begin(), values.end());
  const auto n = static_cast<int>(sizes[0]), c = static_cast<int>(sizes[1]);
  const auto h = static_cast<int>(sizes[2]), w = static_cast<int>(sizes[3]);
  const tico::gptq::RowMajorMatrixXf patches = tico::gptq::unfoldConv2d(input.data(), n, c, h, w, geometry);
  tico::gptq::HessianAccumulator accumulator(patches.cols());
  accumulator.addBatch(patches, n);
  const Eigen::MatrixXd H = accumulator.hessian();  // symmetric: column-major data is row-major too
  writeArray(argv[3], DType::Float64, {H.rows(), H.cols()}, std::vector<double>(H.data(), H.data() + H.size()));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s W.npy H.npy OUT_DIR [options] | conv2d-hessian X.npy H.npy [options]\n", argv[0]);
    return 2;
  }
  try {
    if (std::string(argv[1]) == "conv2d-hessian")
      return conv2dHessian(argc, argv);
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
