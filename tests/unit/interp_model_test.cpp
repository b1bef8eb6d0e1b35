// Interpreter, model level: several subgraphs (IF, WHILE), dynamic dimensions bound from the
// inputs, the checks on caller inputs, unsupported operators reported at construction, the
// RunnableCircleModel load/save/run API, and one kernel for every operator the converter emits.
#include "interp_test_support.h"

#include <filesystem>
#include <unistd.h>

namespace tico {
namespace {

using namespace test;
using B = circle::BuiltinOperator;

circle::BuiltinOptionsUnion ifOptions(int32_t then_index, int32_t else_index) {
  circle::IfOptionsT options;
  options.then_subgraph_index = then_index;
  options.else_subgraph_index = else_index;
  return ModelBuilder::options(options);
}

// main(cond, x) = IF(cond, x) with then: x + x, else: x * x.
std::shared_ptr<const CircleModel> ifModel() {
  ModelBuilder b;
  const int32_t cond = b.input("cond", DType::Bool, {});
  const int32_t x = b.input("x", DType::Float32, {3});
  const int32_t y = b.tensor("y", DType::Float32, {3});
  b.op(B::IF, {cond, x}, {y}, ifOptions(1, 2));
  b.output(y);
  for (std::size_t branch : {1u, 2u}) {
    b.subgraph(branch);
    const int32_t in = b.input("in", DType::Float32, {3});
    const int32_t out = b.tensor("out", DType::Float32, {3});
    b.op(branch == 1 ? B::ADD : B::MUL, {in, in}, {out});
    b.output(out);
  }
  return b.build();
}

TEST(InterpControlFlow, IfRunsTheBranchTheConditionSelects) {
  const auto model = ifModel();
  const auto x = f32({3}, {1, 2, 3});
  expectFloats(*runModel(model, {boolean({}, {1}), x}).at(0), {2, 4, 6});
  expectFloats(*runModel(model, {boolean({}, {0}), x}).at(0), {1, 4, 9});
}

// (i, x) = (i, x); while i < limit: (i, x) = (i + 1, x * 2)
std::shared_ptr<const CircleModel> whileModel(int32_t bound) {
  ModelBuilder b;
  const int32_t i0 = b.input("i", DType::Int32, {});
  const int32_t x0 = b.input("x", DType::Float32, {2});
  const int32_t i_out = b.tensor("i_out", DType::Int32, {});
  const int32_t x_out = b.tensor("x_out", DType::Float32, {2});
  circle::WhileOptionsT loop;
  loop.cond_subgraph_index = 1;
  loop.body_subgraph_index = 2;
  b.op(B::WHILE, {i0, x0}, {i_out, x_out}, ModelBuilder::options(loop));
  b.output(i_out);
  b.output(x_out);

  b.subgraph(1); // cond: i < 5
  {
    const int32_t i = b.input("i", DType::Int32, {});
    b.input("x", DType::Float32, {2});
    const int32_t limit = b.constant("limit", i32({}, {bound}));
    const int32_t less = b.tensor("less", DType::Bool, {});
    b.op(B::LESS, {i, limit}, {less});
    b.output(less);
  }
  b.subgraph(2); // body: (i + 1, x * 2)
  {
    const int32_t i = b.input("i", DType::Int32, {});
    const int32_t x = b.input("x", DType::Float32, {2});
    const int32_t one = b.constant("one", i32({}, {1}));
    const int32_t two = b.constant("two", f32({}, {2}));
    const int32_t next_i = b.tensor("next_i", DType::Int32, {});
    const int32_t next_x = b.tensor("next_x", DType::Float32, {2});
    b.op(B::ADD, {i, one}, {next_i});
    b.op(B::MUL, {x, two}, {next_x});
    b.output(next_i);
    b.output(next_x);
  }
  return b.build();
}

TEST(InterpControlFlow, WhileLoopsUntilTheConditionFails) {
  // (0, x) -> (5, 32 x)
  const auto model = whileModel(5);
  const auto out = runModel(model, {i32({}, {0}), f32({2}, {1, -0.5f})});
  expectValues<int32_t>(*out.at(0), DType::Int32, {5});
  expectFloats(*out.at(1), {32, -16});
  // A start value past the limit runs the body zero times.
  const auto skipped = runModel(model, {i32({}, {7}), f32({2}, {1, -0.5f})});
  expectValues<int32_t>(*skipped.at(0), DType::Int32, {7});
  expectFloats(*skipped.at(1), {1, -0.5f});
}

// Issue 31: a WHILE whose condition never turns false ran forever in `run` and `bench`; the
// iteration limit (default 1,000,000) ends it with an error naming the limit.
TEST(InterpControlFlow, WhileStopsAtTheIterationLimit) {
  CircleInterpreter interpreter(whileModel(5));
  const std::vector<std::shared_ptr<const TensorData>> inputs = {i32({}, {0}), f32({2}, {1, -0.5f})};
  interpreter.setMaxLoopIterations(5); // exactly the five iterations the loop needs
  EXPECT_EQ(valuesOf<int32_t>(*interpreter.run(inputs).at(0)), std::vector<int32_t>{5});
  interpreter.setMaxLoopIterations(4);
  EXPECT_TRUE(contains(errorOf([&] { interpreter.run(inputs); }),
                       "the WHILE loop ran 4 iterations and its condition still holds; the limit is the runtime "
                       "option max_loop_iterations"));
  // A loop that never ends (i < 2^31 - 1 from 0, a billion steps) stops at the limit.
  CircleInterpreter endless(whileModel(std::numeric_limits<int32_t>::max()));
  endless.setMaxLoopIterations(1000);
  EXPECT_TRUE(contains(errorOf([&] { endless.run(inputs); }), "ran 1000 iterations"));
  EXPECT_TRUE(contains(errorOf([&] { endless.setMaxLoopIterations(0); }), "must be at least 1"));
}

TEST(InterpControlFlow, BranchInterfaceMismatchIsReportedAtConstruction) {
  ModelBuilder b;
  const int32_t cond = b.input("cond", DType::Bool, {});
  const int32_t x = b.input("x", DType::Float32, {3});
  const int32_t y = b.tensor("y", DType::Float32, {3});
  b.op(B::IF, {cond, x}, {y}, ifOptions(1, 5));
  b.output(y);
  b.subgraph(1);
  const int32_t in = b.input("in", DType::Float32, {3});
  b.output(in);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "IF x1")) << message;
  EXPECT_TRUE(contains(message, "else subgraph 5 does not exist")) << message;
}

// y = x * 2 + bias over a [-1, 3] input (batch dynamic via shape_signature).
std::shared_ptr<const CircleModel> dynamicBatchModel() {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {1, 3}, {-1, 3});
  const int32_t two = b.constant("two", f32({}, {2}));
  const int32_t bias = b.constant("bias", f32({3}, {1, 2, 3}));
  const int32_t scaled = b.tensor("scaled", DType::Float32, {1, 3}, {-1, 3});
  const int32_t y = b.tensor("y", DType::Float32, {1, 3}, {-1, 3});
  b.op(B::MUL, {x, two}, {scaled});
  b.op(B::ADD, {scaled, bias}, {y});
  b.output(y);
  return b.build();
}

TEST(InterpModel, DynamicDimensionsAreBoundFromTheInputs) {
  const auto model = dynamicBatchModel();
  CircleInterpreter interpreter(model);
  ASSERT_EQ(interpreter.inputs().size(), 1u);
  EXPECT_EQ(interpreter.inputs()[0].shape, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(interpreter.outputs()[0].name, "y");
  for (int64_t batch : {1, 4, 0}) {
    std::vector<float> x(static_cast<std::size_t>(batch * 3)), expected;
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(i) - 2.5f;
      expected.push_back(x[i] * 2 + static_cast<float>(i % 3 + 1));
    }
    const auto out = interpreter.run({f32({batch, 3}, x)});
    expectShape(*out.at(0), {batch, 3});
    expectFloats(*out.at(0), expected);
  }
}

TEST(InterpModel, BadInputsGetErrorsNamingTheInput) {
  CircleInterpreter interpreter(dynamicBatchModel());
  const auto good = f32({2, 3}, std::vector<float>(6, 1.0f));
  std::string message = errorOf([&] { interpreter.run({}); });
  EXPECT_TRUE(contains(message, "takes 1 input, got 0")) << message;
  message = errorOf([&] { interpreter.run({good, good}); });
  EXPECT_TRUE(contains(message, "takes 1 input, got 2")) << message;
  message = errorOf([&] { interpreter.run({i32({2, 3}, std::vector<int32_t>(6, 1))}); });
  EXPECT_TRUE(contains(message, "input 0 'x': dtype int32 given, the model expects float32")) << message;
  message = errorOf([&] { interpreter.run({f32({6}, std::vector<float>(6, 1.0f))}); });
  EXPECT_TRUE(contains(message, "input 0 'x': rank 1 given")) << message;
  message = errorOf([&] { interpreter.run({f32({3, 2}, std::vector<float>(6, 1.0f))}); });
  EXPECT_TRUE(contains(message, "dimension 1 is 2, the model expects 3")) << message;
  message = errorOf([&] { interpreter.run({nullptr}); });
  EXPECT_TRUE(contains(message, "is null")) << message;
  message = errorOf([&] { interpreter.run({good}, 3); });
  EXPECT_TRUE(contains(message, "subgraph 3 does not exist")) << message;
}

TEST(InterpModel, UnsupportedOperatorsAreListedWithCountsAtConstruction) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {4});
  const int32_t a = b.tensor("a", DType::Float32, {4});
  const int32_t c = b.tensor("c", DType::Float32, {4});
  const int32_t d = b.tensor("d", DType::Float32, {4});
  b.op(B::L2_NORMALIZATION, {x}, {a});
  b.op(B::L2_NORMALIZATION, {a}, {c});
  b.op(B::LOCAL_RESPONSE_NORMALIZATION, {c}, {d});
  b.output(d);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "cannot run 3 operators")) << message;
  EXPECT_TRUE(contains(message, "L2_NORMALIZATION x2: no kernel")) << message;
  EXPECT_TRUE(contains(message, "LOCAL_RESPONSE_NORMALIZATION x1: no kernel")) << message;
}

TEST(InterpModel, DataflowErrorsAreReportedAtConstruction) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {2});
  const int32_t later = b.tensor("later", DType::Float32, {2});
  const int32_t y = b.tensor("y", DType::Float32, {2});
  b.op(B::ADD, {x, later}, {y});
  b.op(B::RELU, {x}, {later});
  b.output(y);
  const std::string message = errorOf([&] { CircleInterpreter interpreter(b.build()); });
  EXPECT_TRUE(contains(message, "reads tensor 1 'later' before anything produces it")) << message;
}

TEST(InterpModel, KernelErrorsNameTheOperatorAndItsOutput) {
  ModelBuilder b;
  const int32_t x = b.input("x", DType::Float32, {2, 3}, {-1, 3});
  const int32_t shape = b.constant("shape", i32({1}, {4}));
  const int32_t y = b.tensor("flat", DType::Float32, {4});
  b.op(B::RESHAPE, {x, shape}, {y});
  b.output(y);
  CircleInterpreter interpreter(b.build());
  // Three elements cannot become four: the size depends on the dynamic batch, so this fails
  // only at run time, with the operator's position, name and output in the message.
  const std::string message = errorOf([&] { interpreter.run({f32({1, 3}, {1, 2, 3})}); });
  EXPECT_TRUE(contains(message, "operator #0 (RESHAPE) -> 'flat'")) << message;
}

TEST(InterpModel, RunnableModelSavesLoadsAndRuns) {
  const auto dir = std::filesystem::temp_directory_path() / ("tico-interp-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "model.circle").string();
  RunnableCircleModel original(*dynamicBatchModel());
  const auto x = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  const auto expected = original.run({x}).at(0);
  original.save(path);
  const RunnableCircleModel loaded = RunnableCircleModel::load(path);
  EXPECT_EQ(loaded.model().subgraphs.size(), 1u);
  const auto out = loaded.run({x}).at(0);
  expectShape(*out, {2, 3});
  expectFloats(*out, valuesOf<float>(*expected));
  expectFloats(*out, {1, 4, 7, 7, 10, 13});
  const std::string message = errorOf([&] { RunnableCircleModel::load((dir / "missing.circle").string()); });
  EXPECT_TRUE(contains(message, "missing.circle")) << message;
  std::filesystem::remove_all(dir);
}

TEST(InterpReverse, FlipsTheListedAxes) {
  // torch.arange(6).reshape(2, 3).flip(1) = [[2, 1, 0], [5, 4, 3]]; .flip(0, 1) = [[5, 4, 3], [2, 1, 0]]
  const auto x = i64({2, 3}, {0, 1, 2, 3, 4, 5});
  expectValues<int64_t>(*runSingle({B::REVERSE_V2, {}, {x, i32({1}, {1})}, DType::Int64}).at(0), DType::Int64,
                        {2, 1, 0, 5, 4, 3});
  expectValues<int64_t>(*runSingle({B::REVERSE_V2, {}, {x, i32({2}, {0, -1})}, DType::Int64}).at(0), DType::Int64,
                        {5, 4, 3, 2, 1, 0});
  // Leading axis only, on floats: rows swap, each row keeps its order.
  expectFloats(*runSingle({B::REVERSE_V2, {}, {f32({2, 2}, {1, 2, 3, 4}), i32({1}, {0})}}).at(0), {3, 4, 1, 2});
  EXPECT_TRUE(contains(errorOf([&] { runSingle({B::REVERSE_V2, {}, {x, i32({1}, {2})}, DType::Int64}); }),
                       "axis 2 is out of range for rank 2"));
}

TEST(InterpCoverage, EveryOperatorTheConverterEmitsHasAKernel) {
  // The builtin codes written by plugins/circle-lowering and plugins/circle-legalize
  // (`grep -rhoE 'BuiltinOperator::[A-Z_0-9]+' plugins/circle-lowering plugins/circle-legalize`).
  const std::vector<B> emitted = {
      B::ABS, B::ADD, B::ARG_MAX, B::ARG_MIN, B::ATTENTION, B::AVERAGE_POOL_2D, B::BATCH_MATMUL,
      B::BROADCAST_TO, B::CAST, B::CEIL, B::CONCATENATION, B::CONV_2D, B::COS, B::CUMSUM,
      B::DEPTHWISE_CONV_2D, B::DEQUANTIZE, B::DIV, B::ELU, B::EQUAL, B::EXP, B::EXPAND_DIMS, B::FILL,
      B::FLOOR, B::FLOOR_DIV, B::FLOOR_MOD, B::FULLY_CONNECTED, B::GATHER, B::GATHER_ND, B::GELU,
      B::GREATER, B::GREATER_EQUAL, B::HARD_SWISH, B::IF, B::INSTANCE_NORM, B::LEAKY_RELU, B::LESS,
      B::LESS_EQUAL, B::LOG, B::LOGICAL_AND, B::LOGICAL_NOT, B::LOGICAL_OR, B::LOGISTIC, B::LOG_SOFTMAX,
      B::MAXIMUM, B::MAX_POOL_2D, B::MEAN, B::MINIMUM, B::MIRROR_PAD, B::MUL, B::NEG, B::NOT_EQUAL,
      B::PACK, B::PAD, B::PADV2, B::POW, B::PRELU, B::QUANTIZE, B::RANGE, B::REDUCE_ANY, B::REDUCE_ALL,
      B::REDUCE_MAX, B::REDUCE_MIN, B::REDUCE_PROD, B::RELU, B::RELU6, B::RELU_0_TO_1, B::RELU_N1_TO_1,
      B::RESHAPE, B::RESIZE_BILINEAR, B::RESIZE_NEAREST_NEIGHBOR, B::REVERSE_V2, B::RMS_NORM, B::ROPE,
      B::ROUND, B::RSQRT, B::SCATTER_ND, B::SELECT, B::SELECT_V2, B::SHAPE, B::SIGN, B::SIN, B::SLICE, B::SOFTMAX,
      B::SPLIT, B::SPLIT_V, B::SQRT, B::SQUARE, B::SQUARED_DIFFERENCE, B::SQUEEZE, B::STRIDED_SLICE,
      B::SUB, B::SUM, B::TANH, B::TILE, B::TOPK_V2, B::TRANSPOSE, B::TRANSPOSE_CONV, B::UNPACK, B::WHILE,
      B::ZEROS_LIKE};
  for (B op : emitted) {
    // An operator without operands: a kernel's own check may object, but never "no kernel".
    ModelBuilder b;
    b.op(op, {}, {});
    std::string message;
    try {
      CircleInterpreter interpreter(b.build());
    } catch (const Error &error) {
      message = error.what();
    }
    EXPECT_FALSE(contains(message, "no kernel")) << circle::EnumNameBuiltinOperator(op) << ": " << message;
  }
}

} // namespace
} // namespace tico
