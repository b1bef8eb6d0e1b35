// tico-interp-timer: steady-state timing of the built-in interpreter for
// tests/bench/bench_interpreter.py (test-only, not installed).
//
//   tico-interp-timer model.circle --runs N --warmup W [--output-dir DIR] in0.npy in1.npy ...
//
// Loads and checks the model once, runs it W times untimed, then N timed times, and prints one
// line `TIMES_MS t1 t2 ...` (wall milliseconds per run). With --output-dir the last run's
// outputs are written as out0.npy, ... so the caller can check them. Timing inside the process
// leaves out start-up and file I/O, as the onert side of the benchmark does with a prepared session.
#include "tico/circle/reader.h"
#include "tico/io/npy.h"
#include "tico/interpreter/interpreter.h"
#include "tico/support/error.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  try {
    std::string model_path, output_dir;
    int runs = 5, warmup = 1;
    std::vector<std::string> input_paths;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc)
          throw tico::Error(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--runs")
        runs = std::stoi(value());
      else if (arg == "--warmup")
        warmup = std::stoi(value());
      else if (arg == "--output-dir")
        output_dir = value();
      else if (model_path.empty())
        model_path = arg;
      else
        input_paths.push_back(arg);
    }
    if (model_path.empty() || runs < 1 || warmup < 0)
      throw tico::Error("usage: tico-interp-timer model.circle [--runs N] [--warmup W] [--output-dir DIR] in.npy...");
    auto model = std::make_shared<const tico::CircleModel>(tico::readCircleFile(model_path));
    const tico::CircleInterpreter interpreter(model);
    std::vector<std::shared_ptr<const tico::TensorData>> inputs;
    for (const auto &path : input_paths)
      inputs.push_back(tico::readNpy(path));
    std::vector<std::shared_ptr<const tico::TensorData>> outputs;
    for (int i = 0; i < warmup; ++i)
      outputs = interpreter.run(inputs);
    std::cout << "TIMES_MS";
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      outputs = interpreter.run(inputs);
      const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
      std::cout << ' ' << elapsed.count();
    }
    std::cout << std::endl;
    if (!output_dir.empty()) {
      std::filesystem::create_directories(output_dir);
      for (std::size_t i = 0; i < outputs.size(); ++i)
        tico::writeNpy((std::filesystem::path(output_dir) / ("out" + std::to_string(i) + ".npy")).string(), *outputs[i]);
    }
    return 0;
  } catch (const std::exception &error) {
    std::cerr << "tico-interp-timer: error: " << error.what() << "\n";
    return 1;
  }
}
