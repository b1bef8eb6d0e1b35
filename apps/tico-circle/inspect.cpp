// tico-circle inspect: what a model contains, as text or JSON (summary.h builds both).
#include "summary.h"
#include "tool.h"

#include <filesystem>
#include <iostream>
#include <memory>

namespace tico::circle_tool {
namespace {

using nlohmann::json;

struct InspectRequest : SummaryOptions {
  std::string input;
  bool as_json = false;
};

} // namespace

Action addInspect(CLI::App &app) {
  auto request = std::make_shared<InspectRequest>();
  app.add_option("input", request->input, "Circle file")->required();
  app.add_option("--subgraph", request->subgraph, "only this subgraph")->check(CLI::NonNegativeNumber);
  app.add_flag("--tensors", request->tensors, "list every tensor (type, shape, buffer, payload bytes)");
  app.add_flag("--operators", request->operators, "list every operator with its tensor indices");
  app.add_flag("--buffers", request->buffers, "list the size of every buffer that holds data");
  app.add_flag("--json", request->as_json, "print a JSON document instead of text");
  app.add_flag("--verify", request->verify, "append the verifier's findings");
  return [request] {
    // The verifier reports bad indices itself; everything else needs a model whose indices hold.
    const CircleModel model = loadModel(request->input, !request->verify);
    std::error_code ec;
    const uint64_t file_bytes = std::filesystem::file_size(request->input, ec);
    const json doc = summarizeModel(model, request->input, ec ? 0 : file_bytes, *request);
    // Names come from the file: bytes that are not UTF-8 become U+FFFD instead of failing.
    if (request->as_json)
      std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    else
      printSummary(doc, std::cout);
    if (request->verify && doc["verify"]["errors"].get<std::size_t>() > 0)
      return kError;
    return kOk;
  };
}

} // namespace tico::circle_tool
