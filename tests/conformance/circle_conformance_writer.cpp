// Writes Circle files that exercise every table, union member and enumerator of our schema,
// plus expected.json describing what an independent reader must find in them.
//
// The expectations are recorded while the CircleModel is built (never read back from the
// written bytes), and enum values are recorded by *name*: check_circle_schema.py resolves the
// names through the circle_schema package, so every number in our schema is compared against
// the published one.
//
// Usage: tico-circle-conformance-writer <out-dir>

#include "tico/circle/model.h"
#include "tico/circle/writer.h"
#include "tico/support/error.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>

namespace {

using json = nlohmann::ordered_json;
using namespace tico;

json enumValue(const char *enum_name, const char *value_name) {
  return json{{"__enum__", enum_name}, {"name", value_name}};
}

// Sets a field of an object-API table and records the value it must decode to.
class Fields {
public:
  template <typename T> T set(const char *name, T value) {
    fields_[name] = encode(value);
    return value;
  }
  const json &json_() const { return fields_; }

private:
  static json encode(bool v) { return v; }
  static json encode(int32_t v) { return v; }
  static json encode(uint32_t v) { return v; }
  static json encode(int64_t v) { return v; }
  static json encode(float v) { return static_cast<double>(v); }
  static json encode(const std::string &v) { return v; }
  static json encode(const char *v) { return std::string(v); }
  static json encode(const std::vector<int32_t> &v) { return v; }
  static json encode(const std::vector<float> &v) {
    json out = json::array();
    for (float f : v)
      out.push_back(static_cast<double>(f));
    return out;
  }
  static json encode(circle::Padding v) { return enumValue("Padding", circle::EnumNamePadding(v)); }
  static json encode(circle::ActivationFunctionType v) {
    return enumValue("ActivationFunctionType", circle::EnumNameActivationFunctionType(v));
  }
  static json encode(circle::TensorType v) { return enumValue("TensorType", circle::EnumNameTensorType(v)); }
  static json encode(circle::FullyConnectedOptionsWeightsFormat v) {
    return enumValue("FullyConnectedOptionsWeightsFormat", circle::EnumNameFullyConnectedOptionsWeightsFormat(v));
  }
  static json encode(circle::MirrorPadMode v) { return enumValue("MirrorPadMode", circle::EnumNameMirrorPadMode(v)); }
  static json encode(circle::RoPEMode v) { return enumValue("RoPEMode", circle::EnumNameRoPEMode(v)); }
  static json encode(circle::LSHProjectionType v) {
    return enumValue("LSHProjectionType", circle::EnumNameLSHProjectionType(v));
  }
  static json encode(circle::LSTMKernelType v) { return enumValue("LSTMKernelType", circle::EnumNameLSTMKernelType(v)); }
  static json encode(circle::CombinerType v) { return enumValue("CombinerType", circle::EnumNameCombinerType(v)); }

  json fields_ = json::object();
};

struct OptionCase {
  circle::BuiltinOperator op;
  circle::BuiltinOptionsUnion options;
  json expected; // {"__table__": name, "fields": {...}}
};

template <typename T>
OptionCase option(circle::BuiltinOperator op, const std::function<void(T &, Fields &)> &fill = {}) {
  T table;
  Fields fields;
  if (fill)
    fill(table, fields);
  OptionCase c{op, {}, {}};
  c.options.Set(std::move(table));
  c.expected = {{"__table__", circle::EnumNameBuiltinOptions(c.options.type)}, {"fields", fields.json_()}};
  return c;
}

using Op = circle::BuiltinOperator;
using Act = circle::ActivationFunctionType;
using TT = circle::TensorType;

// One case per member of the BuiltinOptions union; every field gets a non-default value so a
// wrong id or type cannot go unnoticed.
std::vector<OptionCase> optionCases() {
  std::vector<OptionCase> cases;
  cases.push_back(option<circle::Conv2DOptionsT>(Op::CONV_2D, [](auto &o, Fields &f) {
    o.padding = f.set("padding", circle::Padding::VALID);
    o.stride_w = f.set("stride_w", 2);
    o.stride_h = f.set("stride_h", 3);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU6);
    o.dilation_w_factor = f.set("dilation_w_factor", 4);
    o.dilation_h_factor = f.set("dilation_h_factor", 5);
    o.quantized_bias_type = f.set("quantized_bias_type", TT::INT32);
  }));
  cases.push_back(option<circle::DepthwiseConv2DOptionsT>(Op::DEPTHWISE_CONV_2D, [](auto &o, Fields &f) {
    o.padding = f.set("padding", circle::Padding::VALID);
    o.stride_w = f.set("stride_w", 2);
    o.stride_h = f.set("stride_h", 3);
    o.depth_multiplier = f.set("depth_multiplier", 4);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
    o.dilation_w_factor = f.set("dilation_w_factor", 5);
    o.dilation_h_factor = f.set("dilation_h_factor", 6);
  }));
  cases.push_back(option<circle::Conv3DOptionsT>(Op::CONV_3D, [](auto &o, Fields &f) {
    o.padding = f.set("padding", circle::Padding::VALID);
    o.stride_d = f.set("stride_d", 2);
    o.stride_w = f.set("stride_w", 3);
    o.stride_h = f.set("stride_h", 4);
    o.fused_activation_function = f.set("fused_activation_function", Act::TANH);
    o.dilation_d_factor = f.set("dilation_d_factor", 5);
    o.dilation_w_factor = f.set("dilation_w_factor", 6);
    o.dilation_h_factor = f.set("dilation_h_factor", 7);
  }));
  cases.push_back(option<circle::TransposeConvOptionsT>(Op::TRANSPOSE_CONV, [](auto &o, Fields &f) {
    o.padding = f.set("padding", circle::Padding::VALID);
    o.stride_w = f.set("stride_w", 2);
    o.stride_h = f.set("stride_h", 3);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
    o.quantized_bias_type = f.set("quantized_bias_type", TT::INT64);
  }));
  cases.push_back(option<circle::Pool2DOptionsT>(Op::MAX_POOL_2D, [](auto &o, Fields &f) {
    o.padding = f.set("padding", circle::Padding::VALID);
    o.stride_w = f.set("stride_w", 2);
    o.stride_h = f.set("stride_h", 3);
    o.filter_width = f.set("filter_width", 4);
    o.filter_height = f.set("filter_height", 5);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU_N1_TO_1);
  }));
  cases.push_back(option<circle::FullyConnectedOptionsT>(Op::FULLY_CONNECTED, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
    o.weights_format = f.set("weights_format", circle::FullyConnectedOptionsWeightsFormat::SHUFFLED16x1FLOAT32);
    o.keep_num_dims = f.set("keep_num_dims", true);
    o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
    o.quantized_bias_type = f.set("quantized_bias_type", TT::INT32);
  }));
  cases.push_back(option<circle::BatchMatMulOptionsT>(Op::BATCH_MATMUL, [](auto &o, Fields &f) {
    o.adjoint_lhs = f.set("adjoint_lhs", true);
    o.adjoint_rhs = f.set("adjoint_rhs", true);
    o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
  }));
  cases.push_back(option<circle::SoftmaxOptionsT>(Op::SOFTMAX, [](auto &o, Fields &f) { o.beta = f.set("beta", 1.0f); }));
  cases.push_back(option<circle::LogSoftmaxOptionsT>(Op::LOG_SOFTMAX));
  cases.push_back(option<circle::ConcatenationOptionsT>(Op::CONCATENATION, [](auto &o, Fields &f) {
    o.axis = f.set("axis", -1);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
  }));
  cases.push_back(option<circle::AddOptionsT>(Op::ADD, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU6);
    o.pot_scale_int16 = f.set("pot_scale_int16", false);
  }));
  cases.push_back(option<circle::SubOptionsT>(Op::SUB, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::TANH);
    o.pot_scale_int16 = f.set("pot_scale_int16", false);
  }));
  cases.push_back(option<circle::MulOptionsT>(Op::MUL, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::SIGN_BIT);
  }));
  cases.push_back(option<circle::DivOptionsT>(Op::DIV, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
  }));
  cases.push_back(option<circle::L2NormOptionsT>(Op::L2_NORMALIZATION, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU6);
  }));
  cases.push_back(option<circle::LocalResponseNormalizationOptionsT>(
      Op::LOCAL_RESPONSE_NORMALIZATION, [](auto &o, Fields &f) {
        o.radius = f.set("radius", 5);
        o.bias = f.set("bias", 1.5f);
        o.alpha = f.set("alpha", 0.25f);
        o.beta = f.set("beta", 0.75f);
      }));
  cases.push_back(option<circle::ResizeBilinearOptionsT>(Op::RESIZE_BILINEAR, [](auto &o, Fields &f) {
    o.align_corners = f.set("align_corners", true);
    o.half_pixel_centers = f.set("half_pixel_centers", true);
  }));
  cases.push_back(option<circle::ResizeNearestNeighborOptionsT>(Op::RESIZE_NEAREST_NEIGHBOR, [](auto &o, Fields &f) {
    o.align_corners = f.set("align_corners", true);
    o.half_pixel_centers = f.set("half_pixel_centers", true);
  }));
  cases.push_back(option<circle::ReshapeOptionsT>(Op::RESHAPE, [](auto &o, Fields &f) {
    o.new_shape = f.set("new_shape", std::vector<int32_t>{2, -1, 8});
  }));
  cases.push_back(option<circle::PadOptionsT>(Op::PAD));
  cases.push_back(option<circle::PadV2OptionsT>(Op::PADV2));
  cases.push_back(option<circle::MirrorPadOptionsT>(Op::MIRROR_PAD, [](auto &o, Fields &f) {
    o.mode = f.set("mode", circle::MirrorPadMode::SYMMETRIC);
  }));
  cases.push_back(option<circle::GatherOptionsT>(Op::GATHER, [](auto &o, Fields &f) {
    o.axis = f.set("axis", 2);
    o.batch_dims = f.set("batch_dims", 1);
  }));
  cases.push_back(option<circle::GatherNdOptionsT>(Op::GATHER_ND));
  cases.push_back(option<circle::TransposeOptionsT>(Op::TRANSPOSE));
  cases.push_back(option<circle::ReducerOptionsT>(Op::MEAN, [](auto &o, Fields &f) { o.keep_dims = f.set("keep_dims", true); }));
  cases.push_back(option<circle::SqueezeOptionsT>(Op::SQUEEZE, [](auto &o, Fields &f) {
    o.squeeze_dims = f.set("squeeze_dims", std::vector<int32_t>{0, 2});
  }));
  cases.push_back(option<circle::ExpandDimsOptionsT>(Op::EXPAND_DIMS));
  cases.push_back(option<circle::StridedSliceOptionsT>(Op::STRIDED_SLICE, [](auto &o, Fields &f) {
    o.begin_mask = f.set("begin_mask", 1);
    o.end_mask = f.set("end_mask", 2);
    o.ellipsis_mask = f.set("ellipsis_mask", 4);
    o.new_axis_mask = f.set("new_axis_mask", 8);
    o.shrink_axis_mask = f.set("shrink_axis_mask", 16);
    o.offset = f.set("offset", true);
  }));
  cases.push_back(option<circle::SliceOptionsT>(Op::SLICE));
  cases.push_back(option<circle::SplitOptionsT>(Op::SPLIT, [](auto &o, Fields &f) { o.num_splits = f.set("num_splits", 3); }));
  cases.push_back(option<circle::SplitVOptionsT>(Op::SPLIT_V, [](auto &o, Fields &f) { o.num_splits = f.set("num_splits", 4); }));
  cases.push_back(option<circle::PackOptionsT>(Op::PACK, [](auto &o, Fields &f) {
    o.values_count = f.set("values_count", 3);
    o.axis = f.set("axis", 1);
  }));
  cases.push_back(option<circle::UnpackOptionsT>(Op::UNPACK, [](auto &o, Fields &f) {
    o.num = f.set("num", 2);
    o.axis = f.set("axis", -1);
  }));
  // Tables without fields: only the union discriminant is checked.
  cases.push_back(option<circle::ExpOptionsT>(Op::EXP));
  cases.push_back(option<circle::NegOptionsT>(Op::NEG));
  cases.push_back(option<circle::AbsOptionsT>(Op::ABS));
  cases.push_back(option<circle::CosOptionsT>(Op::COS));
  cases.push_back(option<circle::SquareOptionsT>(Op::SQUARE));
  cases.push_back(option<circle::PowOptionsT>(Op::POW));
  cases.push_back(option<circle::HardSwishOptionsT>(Op::HARD_SWISH));
  cases.push_back(option<circle::ZerosLikeOptionsT>(Op::ZEROS_LIKE));
  cases.push_back(option<circle::FillOptionsT>(Op::FILL));
  cases.push_back(option<circle::RangeOptionsT>(Op::RANGE));
  cases.push_back(option<circle::RankOptionsT>(Op::RANK));
  cases.push_back(option<circle::TileOptionsT>(Op::TILE));
  cases.push_back(option<circle::BroadcastToOptionsT>(Op::BROADCAST_TO));
  cases.push_back(option<circle::WhereOptionsT>(Op::WHERE));
  cases.push_back(option<circle::SelectOptionsT>(Op::SELECT));
  cases.push_back(option<circle::SelectV2OptionsT>(Op::SELECT_V2));
  cases.push_back(option<circle::MaximumMinimumOptionsT>(Op::MAXIMUM));
  cases.push_back(option<circle::LessOptionsT>(Op::LESS));
  cases.push_back(option<circle::LessEqualOptionsT>(Op::LESS_EQUAL));
  cases.push_back(option<circle::GreaterOptionsT>(Op::GREATER));
  cases.push_back(option<circle::GreaterEqualOptionsT>(Op::GREATER_EQUAL));
  cases.push_back(option<circle::EqualOptionsT>(Op::EQUAL));
  cases.push_back(option<circle::NotEqualOptionsT>(Op::NOT_EQUAL));
  cases.push_back(option<circle::LogicalOrOptionsT>(Op::LOGICAL_OR));
  cases.push_back(option<circle::LogicalAndOptionsT>(Op::LOGICAL_AND));
  cases.push_back(option<circle::LogicalNotOptionsT>(Op::LOGICAL_NOT));
  cases.push_back(option<circle::FloorDivOptionsT>(Op::FLOOR_DIV));
  cases.push_back(option<circle::FloorModOptionsT>(Op::FLOOR_MOD));
  cases.push_back(option<circle::SquaredDifferenceOptionsT>(Op::SQUARED_DIFFERENCE));
  cases.push_back(option<circle::QuantizeOptionsT>(Op::QUANTIZE));
  cases.push_back(option<circle::DequantizeOptionsT>(Op::DEQUANTIZE));
  cases.push_back(option<circle::TopKV2OptionsT>(Op::TOPK_V2));
  cases.push_back(option<circle::AttentionOptionsT>(Op::ATTENTION));
  cases.push_back(option<circle::CastOptionsT>(Op::CAST, [](auto &o, Fields &f) {
    o.in_data_type = f.set("in_data_type", TT::INT64);
    o.out_data_type = f.set("out_data_type", TT::BFLOAT16);
  }));
  cases.push_back(option<circle::ArgMaxOptionsT>(Op::ARG_MAX, [](auto &o, Fields &f) { o.output_type = f.set("output_type", TT::INT64); }));
  cases.push_back(option<circle::ArgMinOptionsT>(Op::ARG_MIN, [](auto &o, Fields &f) { o.output_type = f.set("output_type", TT::INT32); }));
  cases.push_back(option<circle::ShapeOptionsT>(Op::SHAPE, [](auto &o, Fields &f) { o.out_type = f.set("out_type", TT::INT64); }));
  cases.push_back(option<circle::OneHotOptionsT>(Op::ONE_HOT, [](auto &o, Fields &f) { o.axis = f.set("axis", -1); }));
  cases.push_back(option<circle::SpaceToDepthOptionsT>(Op::SPACE_TO_DEPTH, [](auto &o, Fields &f) { o.block_size = f.set("block_size", 2); }));
  cases.push_back(option<circle::DepthToSpaceOptionsT>(Op::DEPTH_TO_SPACE, [](auto &o, Fields &f) { o.block_size = f.set("block_size", 3); }));
  cases.push_back(option<circle::LeakyReluOptionsT>(Op::LEAKY_RELU, [](auto &o, Fields &f) { o.alpha = f.set("alpha", 0.125f); }));
  cases.push_back(option<circle::CumsumOptionsT>(Op::CUMSUM, [](auto &o, Fields &f) {
    o.exclusive = f.set("exclusive", true);
    o.reverse = f.set("reverse", true);
  }));
  cases.push_back(option<circle::GeluOptionsT>(Op::GELU, [](auto &o, Fields &f) { o.approximate = f.set("approximate", true); }));
  cases.push_back(option<circle::IfOptionsT>(Op::IF, [](auto &o, Fields &f) {
    o.then_subgraph_index = f.set("then_subgraph_index", 1);
    o.else_subgraph_index = f.set("else_subgraph_index", 2);
  }));
  cases.push_back(option<circle::WhileOptionsT>(Op::WHILE, [](auto &o, Fields &f) {
    o.cond_subgraph_index = f.set("cond_subgraph_index", 2);
    o.body_subgraph_index = f.set("body_subgraph_index", 1);
  }));
  cases.push_back(option<circle::RunModelOptionsT>(Op::RUN_MODEL, [](auto &o, Fields &f) {
    o.location = f.set("location", std::string("parts/decoder.circle"));
    o.signature = f.set("signature", std::string("decode"));
  }));
  cases.push_back(option<circle::RoPEOptionsT>(Op::ROPE, [](auto &o, Fields &f) { o.mode = f.set("mode", circle::RoPEMode::GPT_J); }));
  cases.push_back(option<circle::RmsNormOptionsT>(Op::RMS_NORM, [](auto &o, Fields &f) { o.epsilon = f.set("epsilon", 1e-6f); }));
  cases.push_back(option<circle::GRUOptionsT>(Op::GRU, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::TANH);
    o.return_sequences = f.set("return_sequences", true);
    o.time_major = f.set("time_major", true);
  }));
  cases.push_back(option<circle::BCQGatherOptionsT>(Op::BCQ_GATHER, [](auto &o, Fields &f) {
    o.input_hidden_size = f.set("input_hidden_size", 16);
    o.axis = f.set("axis", 1);
  }));
  cases.push_back(option<circle::BCQFullyConnectedOptionsT>(Op::BCQ_FULLY_CONNECTED, [](auto &o, Fields &f) {
    o.weights_hidden_size = f.set("weights_hidden_size", 32);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
  }));
  cases.push_back(option<circle::InstanceNormOptionsT>(Op::INSTANCE_NORM, [](auto &o, Fields &f) {
    o.epsilon = f.set("epsilon", 1e-5f);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
  }));
  // Options of operators the converter never emits: a reader of foreign files must keep them.
  cases.push_back(option<circle::SVDFOptionsT>(Op::SVDF, [](auto &o, Fields &f) {
    o.rank = f.set("rank", 2);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
    o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
  }));
  cases.push_back(option<circle::RNNOptionsT>(Op::RNN, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::TANH);
    o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
  }));
  cases.push_back(option<circle::SequenceRNNOptionsT>(Op::UNIDIRECTIONAL_SEQUENCE_RNN, [](auto &o, Fields &f) {
    o.time_major = f.set("time_major", true);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU6);
    o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
  }));
  cases.push_back(option<circle::BidirectionalSequenceRNNOptionsT>(Op::BIDIRECTIONAL_SEQUENCE_RNN, [](auto &o, Fields &f) {
    o.time_major = f.set("time_major", true);
    o.fused_activation_function = f.set("fused_activation_function", Act::RELU_N1_TO_1);
    o.merge_outputs = f.set("merge_outputs", true);
    o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
  }));
  cases.push_back(option<circle::LSTMOptionsT>(Op::LSTM, [](auto &o, Fields &f) {
    o.fused_activation_function = f.set("fused_activation_function", Act::TANH);
    o.cell_clip = f.set("cell_clip", 10.5f);
    o.proj_clip = f.set("proj_clip", 3.25f);
    o.kernel_type = f.set("kernel_type", circle::LSTMKernelType::BASIC);
    o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
  }));
  cases.push_back(option<circle::UnidirectionalSequenceLSTMOptionsT>(
      Op::UNIDIRECTIONAL_SEQUENCE_LSTM, [](auto &o, Fields &f) {
        o.fused_activation_function = f.set("fused_activation_function", Act::RELU);
        o.cell_clip = f.set("cell_clip", 1.5f);
        o.proj_clip = f.set("proj_clip", 2.5f);
        o.time_major = f.set("time_major", true);
        o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
        o.diagonal_recurrent_tensors = f.set("diagonal_recurrent_tensors", true);
      }));
  cases.push_back(option<circle::BidirectionalSequenceLSTMOptionsT>(
      Op::BIDIRECTIONAL_SEQUENCE_LSTM, [](auto &o, Fields &f) {
        o.fused_activation_function = f.set("fused_activation_function", Act::SIGN_BIT);
        o.cell_clip = f.set("cell_clip", 0.75f);
        o.proj_clip = f.set("proj_clip", 0.125f);
        o.merge_outputs = f.set("merge_outputs", true);
        o.time_major = f.set("time_major", false); // the one bool option that defaults to true
        o.asymmetric_quantize_inputs = f.set("asymmetric_quantize_inputs", true);
      }));
  cases.push_back(option<circle::ConcatEmbeddingsOptionsT>(Op::CONCAT_EMBEDDINGS, [](auto &o, Fields &f) {
    o.num_channels = f.set("num_channels", 2);
    o.num_columns_per_channel = f.set("num_columns_per_channel", std::vector<int32_t>{3, 5});
    o.embedding_dim_per_channel = f.set("embedding_dim_per_channel", std::vector<int32_t>{8, 16});
  }));
  cases.push_back(option<circle::LSHProjectionOptionsT>(Op::LSH_PROJECTION, [](auto &o, Fields &f) {
    o.type = f.set("type", circle::LSHProjectionType::DENSE);
  }));
  cases.push_back(option<circle::SkipGramOptionsT>(Op::SKIP_GRAM, [](auto &o, Fields &f) {
    o.ngram_size = f.set("ngram_size", 3);
    o.max_skip_size = f.set("max_skip_size", 2);
    o.include_all_ngrams = f.set("include_all_ngrams", true);
  }));
  cases.push_back(option<circle::EmbeddingLookupSparseOptionsT>(Op::EMBEDDING_LOOKUP_SPARSE, [](auto &o, Fields &f) {
    o.combiner = f.set("combiner", circle::CombinerType::SQRTN);
  }));
  cases.push_back(option<circle::HashtableOptionsT>(Op::HASHTABLE, [](auto &o, Fields &f) {
    o.table_id = f.set("table_id", 7);
    o.key_dtype = f.set("key_dtype", TT::STRING);
    o.value_dtype = f.set("value_dtype", TT::INT64);
  }));
  cases.push_back(option<circle::HashtableFindOptionsT>(Op::HASHTABLE_FIND));
  cases.push_back(option<circle::HashtableImportOptionsT>(Op::HASHTABLE_IMPORT));
  cases.push_back(option<circle::HashtableSizeOptionsT>(Op::HASHTABLE_SIZE));
  cases.push_back(option<circle::CallOptionsT>(Op::CALL, [](auto &o, Fields &f) { o.subgraph = f.set("subgraph", 2u); }));
  cases.push_back(option<circle::CallOnceOptionsT>(Op::CALL_ONCE, [](auto &o, Fields &f) {
    o.init_subgraph_index = f.set("init_subgraph_index", 1);
  }));
  cases.push_back(option<circle::VarHandleOptionsT>(Op::VAR_HANDLE, [](auto &o, Fields &f) {
    o.container = f.set("container", std::string("state"));
    o.shared_name = f.set("shared_name", std::string("counter"));
  }));
  cases.push_back(option<circle::ReadVariableOptionsT>(Op::READ_VARIABLE));
  cases.push_back(option<circle::AssignVariableOptionsT>(Op::ASSIGN_VARIABLE));
  cases.push_back(option<circle::RandomOptionsT>(Op::RANDOM_UNIFORM, [](auto &o, Fields &f) {
    o.seed = f.set("seed", int64_t{1} << 40);
    o.seed2 = f.set("seed2", int64_t{-12345});
  }));
  cases.push_back(option<circle::SparseToDenseOptionsT>(Op::SPARSE_TO_DENSE, [](auto &o, Fields &f) {
    o.validate_indices = f.set("validate_indices", true);
  }));
  cases.push_back(option<circle::FakeQuantOptionsT>(Op::FAKE_QUANT, [](auto &o, Fields &f) {
    o.min = f.set("min", -6.0f);
    o.max = f.set("max", 6.0f);
    o.num_bits = f.set("num_bits", 8);
    o.narrow_range = f.set("narrow_range", true);
  }));
  cases.push_back(option<circle::UniqueOptionsT>(Op::UNIQUE, [](auto &o, Fields &f) {
    o.idx_out_type = f.set("idx_out_type", TT::INT64); // default INT32
  }));
  cases.push_back(option<circle::ReverseSequenceOptionsT>(Op::REVERSE_SEQUENCE, [](auto &o, Fields &f) {
    o.seq_dim = f.set("seq_dim", 1);
    o.batch_dim = f.set("batch_dim", 2);
  }));
  cases.push_back(option<circle::BucketizeOptionsT>(Op::BUCKETIZE, [](auto &o, Fields &f) {
    o.boundaries = f.set("boundaries", std::vector<float>{-1.5f, 0.f, 2.25f});
  }));
  cases.push_back(option<circle::BatchToSpaceNDOptionsT>(Op::BATCH_TO_SPACE_ND));
  cases.push_back(option<circle::SpaceToBatchNDOptionsT>(Op::SPACE_TO_BATCH_ND));
  cases.push_back(option<circle::ReverseV2OptionsT>(Op::REVERSE_V2));
  cases.push_back(option<circle::AddNOptionsT>(Op::ADD_N));
  cases.push_back(option<circle::MatrixDiagOptionsT>(Op::MATRIX_DIAG));
  cases.push_back(option<circle::MatrixSetDiagOptionsT>(Op::MATRIX_SET_DIAG));
  cases.push_back(option<circle::NonMaxSuppressionV4OptionsT>(Op::NON_MAX_SUPPRESSION_V4));
  cases.push_back(option<circle::NonMaxSuppressionV5OptionsT>(Op::NON_MAX_SUPPRESSION_V5));
  cases.push_back(option<circle::ScatterNdOptionsT>(Op::SCATTER_ND));
  cases.push_back(option<circle::DensifyOptionsT>(Op::DENSIFY));
  cases.push_back(option<circle::SegmentSumOptionsT>(Op::SEGMENT_SUM));
  cases.push_back(option<circle::Rfft2dOptionsT>(Op::RFFT2D));
  cases.push_back(option<circle::DynamicUpdateSliceOptionsT>(Op::DYNAMIC_UPDATE_SLICE));
  cases.push_back(option<circle::UnsortedSegmentProdOptionsT>(Op::UNSORTED_SEGMENT_PROD));
  cases.push_back(option<circle::UnsortedSegmentMaxOptionsT>(Op::UNSORTED_SEGMENT_MAX));
  cases.push_back(option<circle::UnsortedSegmentMinOptionsT>(Op::UNSORTED_SEGMENT_MIN));
  cases.push_back(option<circle::UnsortedSegmentSumOptionsT>(Op::UNSORTED_SEGMENT_SUM));
  cases.push_back(option<circle::ATan2OptionsT>(Op::ATAN2));
  cases.push_back(option<circle::SignOptionsT>(Op::SIGN));
  cases.push_back(option<circle::BitcastOptionsT>(Op::BITCAST));
  cases.push_back(option<circle::BitwiseXorOptionsT>(Op::BITWISE_XOR));
  cases.push_back(option<circle::RightShiftOptionsT>(Op::RIGHT_SHIFT));
  return cases;
}

// ---- expected-value dump of the object model ----------------------------------------------------

std::string hex(const std::vector<std::byte> &bytes) {
  static const char *digits = "0123456789abcdef";
  std::string out;
  for (std::byte b : bytes) {
    out += digits[static_cast<unsigned>(b) >> 4];
    out += digits[static_cast<unsigned>(b) & 15];
  }
  return out;
}

json tensorJson(const CircleTensor &t, const json &quantization) {
  json j;
  j["shape"] = t.shape;
  j["type"] = enumValue("TensorType", circle::EnumNameTensorType(t.type));
  j["buffer"] = t.buffer;
  j["name"] = t.name;
  j["quantization"] = quantization;
  j["is_variable"] = t.is_variable;
  j["shape_signature"] = t.shape_signature.empty() ? json(nullptr) : json(t.shape_signature);
  return j;
}

struct Expected {
  // Per subgraph, per operator: expected builtin_options (null for none).
  std::map<std::pair<std::size_t, std::size_t>, json> options;
  // Per subgraph, per tensor: expected quantization (null for none).
  std::map<std::pair<std::size_t, std::size_t>, json> quantization;
};

json modelJson(const CircleModel &model, const Expected &expected) {
  json j;
  j["version"] = model.version;
  j["description"] = model.description;
  j["operator_codes"] = json::array();
  for (const auto &code : model.operator_codes) {
    const char *name = circle::EnumNameBuiltinOperator(static_cast<circle::BuiltinOperator>(code.builtin_code));
    j["operator_codes"].push_back({{"builtin_code", enumValue("BuiltinOperator", name)},
                                   {"custom_code", code.custom_code.empty() ? json(nullptr) : json(code.custom_code)},
                                   {"version", code.version}});
  }
  j["subgraphs"] = json::array();
  for (std::size_t s = 0; s < model.subgraphs.size(); ++s) {
    const auto &sg = model.subgraphs[s];
    json sj;
    sj["name"] = sg.name;
    sj["inputs"] = sg.inputs;
    sj["outputs"] = sg.outputs;
    sj["tensors"] = json::array();
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      auto q = expected.quantization.find({s, t});
      sj["tensors"].push_back(tensorJson(sg.tensors[t], q == expected.quantization.end() ? json(nullptr) : q->second));
    }
    sj["operators"] = json::array();
    for (std::size_t o = 0; o < sg.operators.size(); ++o) {
      const auto &op = sg.operators[o];
      json oj;
      oj["opcode_index"] = op.opcode_index;
      oj["inputs"] = op.inputs;
      oj["outputs"] = op.outputs;
      oj["builtin_options_type"] =
          enumValue("BuiltinOptions", circle::EnumNameBuiltinOptions(op.builtin_options.type));
      auto opt = expected.options.find({s, o});
      oj["builtin_options"] = opt == expected.options.end() ? json(nullptr) : opt->second;
      oj["custom_options"] = op.custom_options.empty() ? json(nullptr) : json(op.custom_options);
      sj["operators"].push_back(oj);
    }
    j["subgraphs"].push_back(sj);
  }
  j["buffers"] = json::array();
  for (const auto &buffer : model.buffers) {
    const bool has = buffer.data && buffer.data->nbytes() > 0;
    j["buffers"].push_back({{"__payload__", has ? json(hex(buffer.data->contiguousBytes())) : json(nullptr)}});
  }
  j["metadata"] = json::array();
  for (const auto &[name, buffer] : model.metadata)
    j["metadata"].push_back({{"name", name}, {"buffer", buffer}});
  if (model.metadata.empty())
    j["metadata"] = nullptr;
  j["signature_defs"] = json::array();
  for (const auto &sig : model.signatures) {
    json sj;
    auto maps = [](const std::vector<CircleTensorMap> &v) {
      json a = json::array();
      for (const auto &m : v)
        a.push_back({{"name", m.name}, {"tensor_index", m.tensor_index}});
      return a;
    };
    sj["inputs"] = maps(sig.inputs);
    sj["outputs"] = maps(sig.outputs);
    sj["signature_key"] = sig.key;
    sj["subgraph_index"] = sig.subgraph_index;
    j["signature_defs"].push_back(sj);
  }
  if (model.signatures.empty())
    j["signature_defs"] = nullptr;
  return j;
}

// ---- the model ------------------------------------------------------------------------------------

template <typename T>
std::shared_ptr<const TensorData> values(DType dtype, std::vector<int64_t> sizes, const std::vector<T> &v) {
  return std::make_shared<TensorData>(TensorData::fromVector(dtype, std::move(sizes), v));
}

CircleTensor tensor(std::string name, std::vector<int32_t> shape, circle::TensorType type, uint32_t buffer = 0) {
  CircleTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.type = type;
  t.buffer = buffer;
  return t;
}

void check(bool ok, const std::string &message) {
  if (!ok)
    throw Error("conformance writer: " + message);
}

CircleModel buildModel(const std::filesystem::path &out_dir, Expected &expected) {
  CircleModel model;
  model.description = "tico conformance";

  // Every enumerator of BuiltinOperator gets an operator code, so each number is checked by name.
  for (auto op : circle::EnumValuesBuiltinOperator())
    model.operatorCodeIndex(op, op == Op::CUSTOM ? "TicoConformanceOp" : "");
  model.operator_codes[model.operatorCodeIndex(Op::CUSTOM, "TicoConformanceOp")].version = 3;

  // Payloads from every kind of source: owned, a slice of a mapped file, a strided view.
  const uint32_t weights = model.addBuffer(values<float>(DType::Float32, {2, 3}, {0.5f, -1.f, 2.f, 3.25f, -4.f, 8.f}));
  {
    std::vector<uint8_t> file_bytes = {0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE}; // 7-byte header
    for (int i = 0; i < 64; ++i)
      file_bytes.push_back(static_cast<uint8_t>(i * 3 + 1));
    const auto path = (out_dir / "mapped_weights.bin").string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(file_bytes.data()),
                                                static_cast<std::streamsize>(file_bytes.size()));
    auto storage = Storage::fromMapped(MappedFile::open(path), 7, 64);
    auto view = std::make_shared<TensorData>();
    view->storage = storage;
    view->dtype = DType::Int8;
    view->sizes = {64};
    view->strides = {1};
    model.addBuffer(view);
    auto strided = std::make_shared<TensorData>(*view);
    strided->sizes = {4, 4};
    strided->strides = {1, 16}; // the transpose of rows 0..3 taken every 16 elements
    model.addBuffer(strided);
  }
  const uint32_t mapped = weights + 1, strided = weights + 2;
  const uint32_t int_consts = model.addBuffer(values<int64_t>(DType::Int64, {3}, {-1, 0, 1LL << 40}));
  const uint32_t empty = model.addBuffer(nullptr);
  const uint32_t meta = model.addBuffer(values<uint8_t>(DType::UInt8, {6}, {'t', 'i', 'c', 'o', '!', 0}));
  model.metadata.push_back({"tico_conformance", meta});

  CircleSubGraph main;
  main.name = "main";
  main.tensors.push_back(tensor("input", {1, 6}, TT::FLOAT32));
  main.tensors.back().shape_signature = {-1, 6};
  main.tensors.push_back(tensor("output", {1, 6}, TT::FLOAT32));
  main.tensors.push_back(tensor("weights", {2, 3}, TT::FLOAT32, weights));
  main.tensors.push_back(tensor("mapped", {64}, TT::INT8, mapped));
  main.tensors.push_back(tensor("strided", {4, 4}, TT::INT8, strided));
  main.tensors.push_back(tensor("int_consts", {3}, TT::INT64, int_consts));
  main.tensors.push_back(tensor("no_data", {0}, TT::FLOAT32, empty));
  main.tensors.push_back(tensor("state", {1, 6}, TT::FLOAT32));
  main.tensors.back().is_variable = true;
  // One tensor per element type, to check every TensorType number.
  for (auto type : circle::EnumValuesTensorType())
    main.tensors.push_back(tensor(std::string("type_") + circle::EnumNameTensorType(type), {2}, type));

  // Quantization records: per-axis affine + MX details, custom and block-wise details.
  auto quantize = [&](std::size_t t, const std::function<void(circle::QuantizationParametersT &, json &)> &fill) {
    auto q = std::make_shared<circle::QuantizationParametersT>();
    json j;
    fill(*q, j);
    main.tensors[t].quantization = q;
    expected.quantization[{0, t}] = j;
  };
  quantize(3, [](circle::QuantizationParametersT &q, json &j) {
    q.min = {-1.5f, -2.f};
    q.max = {1.5f, 2.25f};
    q.scale = {0.0125f, 0.25f};
    q.zero_point = {-3, 1LL << 33};
    q.quantized_dimension = 1;
    circle::MXQuantizationT mx;
    mx.axis = 2;
    q.details.Set(mx);
    // Floats are recorded as the doubles of their float32 values, so comparisons are exact.
    j = {{"min", q.min}, {"max", q.max}, {"scale", q.scale}, {"zero_point", q.zero_point},
         {"quantized_dimension", q.quantized_dimension},
         {"details_type", enumValue("QuantizationDetails", "MXQuantization")},
         {"details", {{"__table__", "MXQuantization"}, {"fields", {{"axis", 2}}}}}};
  });
  quantize(4, [](circle::QuantizationParametersT &q, json &j) {
    q.scale = {0.5f};
    q.zero_point = {0};
    circle::CustomQuantizationT custom;
    custom.custom = {1, 2, 3, 250};
    q.details.Set(custom);
    j = {{"scale", {0.5}}, {"zero_point", {0}},
         {"details_type", enumValue("QuantizationDetails", "CustomQuantization")},
         {"details", {{"__table__", "CustomQuantization"}, {"fields", {{"custom", {1, 2, 3, 250}}}}}}};
  });
  quantize(2, [](circle::QuantizationParametersT &q, json &j) {
    circle::BlockwiseQuantizationT block;
    block.scales = 5;
    block.zero_points = 6;
    block.block_size = 32;
    q.details.Set(block);
    j = {{"details_type", enumValue("QuantizationDetails", "BlockwiseQuantization")},
         {"details",
          {{"__table__", "BlockwiseQuantization"},
           {"fields", {{"scales", 5}, {"zero_points", 6}, {"block_size", 32}}}}}};
  });

  main.inputs = {0};
  main.outputs = {1};
  std::set<circle::BuiltinOptions> covered;
  for (auto &c : optionCases()) {
    CircleOperator op;
    op.opcode_index = model.operatorCodeIndex(c.op);
    op.inputs = {0, -1, 2};
    op.outputs = {1};
    covered.insert(c.options.type);
    op.builtin_options = std::move(c.options);
    expected.options[{0, main.operators.size()}] = c.expected;
    main.operators.push_back(std::move(op));
  }
  // Every union member of our schema must be covered, or the check silently shrinks.
  for (auto type : circle::EnumValuesBuiltinOptions())
    check(type == circle::BuiltinOptions::NONE || covered.count(type),
          std::string("no case for ") + circle::EnumNameBuiltinOptions(type));
  {
    CircleOperator relu; // an operator without options
    relu.opcode_index = model.operatorCodeIndex(Op::RELU);
    relu.inputs = {0};
    relu.outputs = {1};
    main.operators.push_back(relu);
    CircleOperator custom;
    custom.opcode_index = model.operatorCodeIndex(Op::CUSTOM, "TicoConformanceOp");
    custom.inputs = {0, 5};
    custom.outputs = {1};
    custom.custom_options = {0x10, 0x20, 0x30};
    main.operators.push_back(custom);
  }
  model.subgraphs.push_back(std::move(main));

  for (const char *name : {"branch", "condition"}) {
    CircleSubGraph sg;
    sg.name = name;
    sg.tensors.push_back(tensor("x", {2}, TT::INT32));
    sg.tensors.push_back(tensor("y", {2}, TT::INT32));
    sg.inputs = {0};
    sg.outputs = {1};
    CircleOperator neg;
    neg.opcode_index = model.operatorCodeIndex(Op::NEG);
    neg.inputs = {0};
    neg.outputs = {1};
    sg.operators.push_back(neg);
    model.subgraphs.push_back(std::move(sg));
  }

  model.signatures.push_back({"serving_default", 0, {{"x", 0}}, {{"y", 1}}});
  model.signatures.push_back({"branch", 1, {{"in", 0}}, {{"out", 1}}});
  return model;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <out-dir>\n";
    return 2;
  }
  try {
    const std::filesystem::path out_dir = argv[1];
    std::filesystem::create_directories(out_dir);
    Expected expected;
    CircleModel model = buildModel(out_dir, expected);

    json files = json::array();
    auto emit = [&](const std::string &name, const CircleWriteOptions &options, const std::string &layout) {
      writeCircleFile(model, (out_dir / name).string(), options);
      files.push_back({{"path", name},
                       {"identifier", options.file_identifier},
                       {"layout", layout},
                       {"model", modelJson(model, expected)}});
    };
    emit("inline.circle", {}, "inline");
    CircleWriteOptions external;
    external.force_external_buffers = true;
    emit("external.circle", external, "external");
    // The LiteRT-flavoured copy: identifier and version change, nothing else.
    model.version = 3;
    CircleWriteOptions litert;
    litert.file_identifier = "TFL3";
    emit("litert.circle", litert, "inline");

    std::ofstream((out_dir / "expected.json").string()) << json{{"files", files}}.dump(1) << "\n";
    std::cout << "wrote " << files.size() << " Circle files to " << out_dir.string() << "\n";
    return 0;
  } catch (const std::exception &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
