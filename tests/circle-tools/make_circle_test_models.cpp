// Writes the inputs of the tico-circle CLI tests into one directory:
//   valid.circle, control_flow.circle, external.circle,
//   dead_code.circle                                        well-formed models
//   broken_<RULE>.circle                                    one per verifier rule a file can carry
//   empty.circle, garbage.circle, truncated.circle,
//   tflite.circle, far_payload.circle                       files the reader must refuse
//   x.npy, x2.npy, c_true.npy, c_false.npy, x_wrong.npy     interpreter inputs
//   mlp_*.circle, mlp_*.npy, mlp_quant.encodings.json        compare tests (compare_test_models.h)
#include "circle_doc_test_support.h"
#include "compare_test_models.h"

#include "tico/circle/writer.h"
#include "tico/io/npy.h"
#include "tico/support/error.h"

#include <filesystem>
#include <fstream>
#include <iostream>

namespace {

using namespace tico;
using namespace tico::circle_doc_test;

void writeBytes(const std::filesystem::path &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw Error("cannot write " + path.string());
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: make_circle_test_models DIR\n";
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    writeCircleFile(linearModel(), (dir / "valid.circle").string());
    writeCircleFile(controlFlowModel(), (dir / "control_flow.circle").string());
    writeCircleFile(quantizedModel(), (dir / "quantized.circle").string());
    // A multiplication nothing reads: -O1 (dce) removes it.
    CircleModel dead = linearModel();
    dead.subgraphs[0].tensors.push_back(tensor("dead", {1, 4}));
    dead.subgraphs[0].operators.push_back(mulOp(1, {0, 0}, {5}));
    writeCircleFile(dead, (dir / "dead_code.circle").string());
    CircleWriteOptions external;
    external.force_external_buffers = true;
    writeCircleFile(linearModel(), (dir / "external.circle").string(), external);

    for (const auto &[rule, broken] : brokenModelCases())
      if (broken.representable_in_file)
        writeBytes(dir / ("broken_" + rule + ".circle"), packUnchecked(broken.make()));

    const auto valid = serializeCircle(linearModel());
    writeBytes(dir / "empty.circle", {});
    std::vector<uint8_t> garbage(256);
    uint32_t state = 12345;
    for (auto &b : garbage) {
      state = state * 1664525u + 1013904223u;
      b = static_cast<uint8_t>(state >> 24);
    }
    writeBytes(dir / "garbage.circle", garbage);
    writeBytes(dir / "truncated.circle", std::vector<uint8_t>(valid.begin(), valid.begin() + valid.size() / 2));
    auto tflite = valid;
    std::memcpy(tflite.data() + 4, "TFL3", 4);
    writeBytes(dir / "tflite.circle", tflite);
    circle::ModelT far;
    circle::GetModel(valid.data())->UnPackTo(&far);
    far.buffers[1]->data.clear();
    far.buffers[1]->offset = 1u << 30;
    far.buffers[1]->size = 16;
    flatbuffers::FlatBufferBuilder builder;
    builder.Finish(circle::Model::Pack(builder, &far), "CIR0");
    writeBytes(dir / "far_payload.circle",
               std::vector<uint8_t>(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()));

    writeNpy((dir / "x.npy").string(), TensorData::fromVector(DType::Float32, {1, 4}, std::vector<float>{1, 2, 3, 4}));
    writeNpy((dir / "x2.npy").string(), TensorData::fromVector(DType::Float32, {2}, std::vector<float>{3, -2}));
    writeNpy((dir / "c_true.npy").string(), TensorData::fromVector(DType::Bool, {1}, std::vector<uint8_t>{1}));
    writeNpy((dir / "c_false.npy").string(), TensorData::fromVector(DType::Bool, {1}, std::vector<uint8_t>{0}));
    tico::circle_tools_test::writeCompareTestModels(dir);
    writeNpy((dir / "x_wrong.npy").string(), TensorData::fromVector(DType::Float32, {3}, std::vector<float>{1, 2, 3}));
  } catch (const std::exception &e) {
    std::cerr << "make_circle_test_models: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
