#include "layers.h"

#include <tico/ops/circle_ops.h>
#include <tico/quant/graph_edits.h>
#include <tico/ops/torch_ops.h>
#include <tico/support/error.h>

#include <cstring>
#include <fnmatch.h>

namespace tico::gptq_plugin {
namespace {

bool pair(const Node &node, std::string_view name, int &a, int &b) {
  const Argument *arg = node.findArg(name);
  if (arg == nullptr || !arg->isIntList())
    return false;
  const std::vector<int64_t> &v = arg->asInts();
  if (v.size() == 1) {
    a = b = static_cast<int>(v[0]);
    return true;
  }
  if (v.size() != 2)
    return false;
  a = static_cast<int>(v[0]);
  b = static_cast<int>(v[1]);
  return true;
}


} // namespace

std::vector<float> floatsOf(const TensorData &t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  t.copyContiguousTo(reinterpret_cast<std::byte *>(out.data()));
  return out;
}

std::optional<LayerShape> layerOf(const Node &node, std::string &why) {
  LayerShape shape;
  const bool linear = node.opId() == ops::aten::linear_default;
  const bool conv = node.opId() == ops::aten::conv2d_default;
  const bool conv_nhwc = node.opId() == ops::circle::conv2d_default;
  if (!linear && !conv && !conv_nhwc) {
    why = "not a linear or conv2d";
    return std::nullopt;
  }
  const Value *weight = node.input(1);
  if (!weight->isConstant() || weight->dtype() != DType::Float32) {
    why = "its weight is not a float32 constant (already quantized?)";
    return std::nullopt;
  }
  shape.weight_sizes = weight->constant()->sizes;
  const std::vector<int64_t> &w = shape.weight_sizes;
  if (linear) {
    if (w.size() != 2) {
      why = "its weight is not 2-D";
      return std::nullopt;
    }
    shape.rows = w[0];
    shape.columns = w[1];
    return shape;
  }
  if (w.size() != 4) {
    why = "its weight is not 4-D";
    return std::nullopt;
  }
  gptq::Conv2dGeometry &g = shape.conv;
  if (!pair(node, "stride", g.stride_h, g.stride_w) || !pair(node, "padding", g.pad_h, g.pad_w) ||
      !pair(node, "dilation", g.dilation_h, g.dilation_w)) {
    why = "its stride, padding or dilation is not numeric";
    return std::nullopt;
  }
  if (conv) {
    const Argument *groups = node.findArg("groups");
    g.groups = groups && groups->isInt() ? static_cast<int>(groups->asInt()) : 1;
    g.kernel_h = static_cast<int>(w[2]);
    g.kernel_w = static_cast<int>(w[3]);
    shape.kind = LayerShape::Kind::ConvNchw;
    shape.rows = w[0];
    shape.columns = w[1] * w[2] * w[3];
  } else {
    g.kernel_h = static_cast<int>(w[1]);
    g.kernel_w = static_cast<int>(w[2]);
    shape.kind = LayerShape::Kind::ConvNhwc;
    shape.rows = w[0];
    shape.columns = w[3] * w[1] * w[2];
  }
  return shape;
}

Eigen::MatrixXf weightMatrix(const TensorData &weight, const LayerShape &shape) {
  const std::vector<float> v = floatsOf(weight);
  Eigen::MatrixXf W(shape.rows, shape.columns);
  if (shape.kind != LayerShape::Kind::ConvNhwc) {
    for (Eigen::Index r = 0; r < shape.rows; ++r)
      for (Eigen::Index c = 0; c < shape.columns; ++c)
        W(r, c) = v[static_cast<std::size_t>(r * shape.columns + c)];
    return W;
  }
  // OHWI -> rows of (c, i, j), the patch order of unfoldConv2d.
  const int64_t kh = shape.weight_sizes[1], kw = shape.weight_sizes[2], ci = shape.weight_sizes[3];
  for (Eigen::Index o = 0; o < shape.rows; ++o)
    for (int64_t c = 0; c < ci; ++c)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          W(o, (c * kh + i) * kw + j) = v[static_cast<std::size_t>(((o * kh + i) * kw + j) * ci + c)];
  return W;
}

template <typename T>
std::vector<T> toWeightLayout(const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> &m, const LayerShape &shape) {
  std::vector<T> out(static_cast<std::size_t>(shape.rows * shape.columns));
  if (shape.kind != LayerShape::Kind::ConvNhwc) {
    for (Eigen::Index r = 0; r < shape.rows; ++r)
      for (Eigen::Index c = 0; c < shape.columns; ++c)
        out[static_cast<std::size_t>(r * shape.columns + c)] = m(r, c);
    return out;
  }
  const int64_t kh = shape.weight_sizes[1], kw = shape.weight_sizes[2], ci = shape.weight_sizes[3];
  for (Eigen::Index o = 0; o < shape.rows; ++o)
    for (int64_t c = 0; c < ci; ++c)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          out[static_cast<std::size_t>(((o * kh + i) * kw + j) * ci + c)] = m(o, (c * kh + i) * kw + j);
  return out;
}

template std::vector<float> toWeightLayout(const Eigen::MatrixXf &, const LayerShape &);
template std::vector<int32_t> toWeightLayout(const Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic> &,
                                             const LayerShape &);

namespace {

void addSums(SampleMeans *means, const float *samples, Eigen::Index rows, Eigen::Index columns) {
  if (means == nullptr)
    return;
  if (means->sums.size() == 0)
    means->sums = Eigen::VectorXd::Zero(columns);
  const Eigen::Map<const gptq::RowMajorMatrixXf> m(samples, rows, columns);
  means->sums += m.cast<double>().colwise().sum().transpose();
  means->rows += static_cast<double>(rows);
}

} // namespace

void accumulate(gptq::HessianAccumulator &hessian, const TensorData &input, const LayerShape &shape,
                SampleMeans *means) {
  const std::vector<float> x = floatsOf(input);
  const std::vector<int64_t> &s = input.sizes;
  if (shape.kind == LayerShape::Kind::Linear) {
    const Eigen::Index rows = static_cast<Eigen::Index>(x.size()) / shape.columns;
    addSums(means, x.data(), rows, shape.columns);
    // The original counts the leading dimension of a 3-D input as its batch items.
    hessian.addBatch(x.data(), rows, s.size() >= 3 ? s[0] : 1);
    return;
  }
  if (s.size() != 4)
    throw Error("GPTQ: a conv input must be 4-D");
  if (shape.kind == LayerShape::Kind::ConvNchw) {
    const gptq::RowMajorMatrixXf patches = gptq::unfoldConv2d(x.data(), static_cast<int>(s[0]), static_cast<int>(s[1]),
                                                              static_cast<int>(s[2]), static_cast<int>(s[3]), shape.conv);
    hessian.addBatch(patches, s[0]);
    addSums(means, patches.data(), patches.rows(), patches.cols());
    return;
  }
  // NHWC -> NCHW, then the same patches.
  const int64_t n = s[0], h = s[1], w = s[2], c = s[3];
  std::vector<float> nchw(x.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t xx = 0; xx < w; ++xx)
        for (int64_t ch = 0; ch < c; ++ch)
          nchw[static_cast<std::size_t>(((b * c + ch) * h + y) * w + xx)] =
              x[static_cast<std::size_t>(((b * h + y) * w + xx) * c + ch)];
  const gptq::RowMajorMatrixXf patches = gptq::unfoldConv2d(nchw.data(), static_cast<int>(n), static_cast<int>(c),
                                                            static_cast<int>(h), static_cast<int>(w), shape.conv);
  hessian.addBatch(patches, n);
  addSums(means, patches.data(), patches.rows(), patches.cols());
}

double setBiasShift(QuantizedLayer &layer, const Eigen::MatrixXf &W, const Eigen::MatrixXf &Wq, const SampleMeans &means) {
  if (means.rows <= 0.0 || layer.shape.conv.groups != 1 || means.sums.size() != W.cols())
    return 0.0;
  const Eigen::VectorXd shift = (Wq - W).cast<double>() * (means.sums / means.rows);
  layer.bias_shift.assign(shift.data(), shift.data() + shift.size());
  return shift.cwiseAbs().maxCoeff();
}

bool globMatch(const std::vector<std::string> &patterns, const std::string &name) {
  for (const std::string &p : patterns)
    if (::fnmatch(p.c_str(), name.c_str(), 0) == 0)
      return true;
  return false;
}

std::vector<OptionSpec> weightQuantizerSpecs() {
  return {
      {"bits", OptionType::Int, int64_t{4}, "weight bits: 4 or 8"},
      {"symmetric", OptionType::Bool, false, "symmetric grids (zero at 2^(bits-1), or signed storage)"},
      {"signed", OptionType::Bool, false, "symmetric only: store int4/int8 codes with zero point 0"},
      {"per_channel", OptionType::Bool, true, "one grid per output channel (false: one per layer)"},
      {"inputs_from", OptionType::String, std::string("quantized"),
       "what later layers calibrate on: 'quantized' (earlier layers' quantized weights) or 'float'"},
      {"quantize_lm_head", OptionType::Bool, false, "also quantize a linear whose output is a graph output"},
      {"include", OptionType::StringList, std::vector<std::string>{}, "node-name globs to quantize (empty: all)"},
      {"exclude", OptionType::StringList, std::vector<std::string>{}, "node-name globs to leave float"},
      {"bias_correction", OptionType::Bool, false,
       "each layer's bias absorbs the mean output change of its quantized weight, (W_q - W) E[x] over the "
       "calibration batches"},
  };
}

WeightQuantizerSettings weightQuantizerSettings(const Options &o, const std::string &quantizer) {
  WeightQuantizerSettings s;
  const int64_t bits = o.getInt("bits");
  if (bits != 4 && bits != 8)
    throw Error(quantizer + ": bits must be 4 or 8 (Circle's uint4/int4 and uint8/int8 weights), got " +
                std::to_string(bits));
  s.bits = static_cast<int>(bits);
  s.symmetric = o.getBool("symmetric");
  s.per_channel = o.getBool("per_channel");
  s.signed_storage = o.getBool("signed");
  if (s.signed_storage && !s.symmetric)
    throw Error(quantizer +
                ": signed storage needs symmetric: true (an asymmetric grid has no signed form with zero point 0)");
  const std::string &from = o.getString("inputs_from");
  if (from != "quantized" && from != "float")
    throw Error(quantizer + ": inputs_from must be 'quantized' or 'float', got '" + from + "'");
  s.inputs_from_quantized = from == "quantized";
  s.bias_correction = o.getBool("bias_correction");
  s.selection = {quantizer, o.getStringList("include"), o.getStringList("exclude"), o.getBool("quantize_lm_head")};
  return s;
}

std::string geometryKey(const LayerShape &s) {
  const gptq::Conv2dGeometry &g = s.conv;
  return std::to_string(static_cast<int>(s.kind)) + ":" + std::to_string(s.columns) + ":" + std::to_string(g.kernel_h) +
         "x" + std::to_string(g.kernel_w) + "/" + std::to_string(g.stride_h) + "," + std::to_string(g.stride_w) + "/" +
         std::to_string(g.pad_h) + "," + std::to_string(g.pad_w) + "/" + std::to_string(g.dilation_h) + "," +
         std::to_string(g.dilation_w) + "/" + std::to_string(g.groups);
}

std::vector<QuantizedLayer> planLayers(const Graph &graph, const LayerSelection &selection, CalibrationPlan &plan) {
  std::vector<QuantizedLayer> layers;
  std::vector<std::string> unused_include = selection.include;
  for (const auto &node : graph.nodes()) {
    std::string why;
    std::optional<LayerShape> shape = layerOf(*node, why);
    if (!shape)
      continue;
    const std::string &name = node->name();
    if (!selection.include.empty() && !globMatch(selection.include, name))
      continue;
    if (globMatch(selection.exclude, name))
      continue;
    if (!selection.quantize_lm_head && shape->kind == LayerShape::Kind::Linear && graph.isGraphOutput(node->output()))
      continue;
    for (auto it = unused_include.begin(); it != unused_include.end();)
      it = ::fnmatch(it->c_str(), name.c_str(), 0) == 0 ? unused_include.erase(it) : it + 1;
    QuantizedLayer layer;
    layer.node = name;
    layer.shape = std::move(*shape);
    layer.input = node->input(0);
    plan.observe(*layer.input);
    plan.layer(*node);
    layers.push_back(std::move(layer));
  }
  if (!unused_include.empty()) {
    std::string list;
    for (const std::string &p : unused_include)
      list += (list.empty() ? "'" : ", '") + p + "'";
    throw Error(selection.quantizer + ": include pattern(s) " + list +
                " match no linear or conv2d layer with a float weight");
  }
  return layers;
}

std::vector<std::byte> codeBytes(const gptq::CodeMatrix &codes, const gptq::CircleQuant &circle,
                                 const LayerShape &shape) {
  const gptq::CodeMatrix stored = circle.is_signed ? gptq::toSignedCodes(codes, circle.bits) : codes;
  const std::vector<int32_t> ordered =
      toWeightLayout<int32_t>(Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic>(stored), shape);
  std::vector<std::byte> bytes(ordered.size());
  for (std::size_t i = 0; i < ordered.size(); ++i)
    bytes[i] = static_cast<std::byte>(static_cast<uint8_t>(ordered[i] & 0xff));
  return bytes;
}

ConstantOverride weightOverride(const Node &node, const Eigen::MatrixXf &values, const LayerShape &shape) {
  return {node.input(1), std::make_shared<TensorData>(TensorData::fromVector(DType::Float32, shape.weight_sizes,
                                                                             toWeightLayout<float>(values, shape)))};
}

bool writeQuantizedLayers(Graph &graph, std::vector<QuantizedLayer> &layers, const std::string &quantizer) {
  bool changed = false;
  for (QuantizedLayer &layer : layers) {
    if (!layer.done)
      continue;
    Node *node = graph.findNode(layer.node);
    if (node == nullptr)
      throw Error(quantizer + ": node '" + layer.node + "' is gone before convert");
    quant::Encoding encoding = quant::gridOf(layer.circle.bits, layer.circle.is_signed);
    // One grid per output channel (the weight's first dimension in every layout), or per output
    // channel and group of group_size input columns (linear weights [out, in]).
    encoding.params.axis = layer.circle.group_size > 0 ? 1 : 0;
    if (layer.circle.group_size > 0)
      encoding.params.block_size = layer.circle.group_size;
    encoding.params.scale = layer.circle.scale;
    encoding.params.zero_point = layer.circle.zero_point;
    auto data = std::make_shared<TensorData>(
        TensorData::fromBytes(encoding.storage, layer.shape.weight_sizes, std::move(layer.codes)));
    quant::dequantizedWeight(graph, *node, "weight", std::move(data), encoding);
    changed = true;
    if (layer.bias_shift.empty())
      continue;
    if (const std::string why = quant::subtractFromBias(graph, *node, layer.bias_shift); !why.empty())
      throw Error(quantizer + ": node '" + layer.node + "': no bias correction: " + why);
  }
  return changed;
}

} // namespace tico::gptq_plugin
