// tico-circle verify: every structural and referential problem of a model, with rule codes.
//
// The report goes to stdout, one finding per line in the verifier's format
// ("ERROR [RULE] path: message"), then a summary line. A file the reader cannot decode at all
// (not a FlatBuffer, truncated, payloads outside the file) is reported as one error with the
// rule code UNREADABLE.
#include "incremental_manifest.h"
#include "tool.h"

#include "tico/circle/verify.h"
#include "tico/support/error.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace tico::circle_tool {
namespace {

struct VerifyRequest {
  std::string input;
  bool warnings_as_errors = false, no_warnings = false, as_json = false, quiet = false;
};

int report(const VerifyRequest &request, const std::vector<CircleDiagnostic> &diagnostics) {
  const std::size_t errors = countDiagnostics(diagnostics, CircleSeverity::Error);
  const std::size_t warnings = countDiagnostics(diagnostics, CircleSeverity::Warning);
  int code = errors > 0 ? kError : warnings > 0 ? (request.warnings_as_errors ? kError : kWarnings) : kOk;
  if (request.as_json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &d : diagnostics)
      list.push_back({{"severity", d.severity == CircleSeverity::Error ? "error" : "warning"},
                      {"rule", d.rule},
                      {"path", d.path},
                      {"message", d.message}});
    // Names come from the file: bytes that are not UTF-8 become U+FFFD instead of failing.
    std::cout << nlohmann::json{{"file", request.input}, {"errors", errors}, {"warnings", warnings},
                                {"diagnostics", std::move(list)}}
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
    return code;
  }
  if (!request.quiet)
    for (const auto &d : diagnostics)
      std::cout << d.str() << "\n";
  std::cout << request.input << ": " << errors << (errors == 1 ? " error, " : " errors, ") << warnings
            << (warnings == 1 ? " warning" : " warnings") << "\n";
  return code;
}

} // namespace

Action addVerify(CLI::App &app) {
  auto request = std::make_shared<VerifyRequest>();
  app.add_option("input", request->input, "Circle file")->required();
  app.add_flag("--warnings-as-errors", request->warnings_as_errors, "exit with 2 when there are warnings");
  app.add_flag("--no-warnings", request->no_warnings, "skip the hygiene rules (report errors only)");
  app.add_flag("--json", request->as_json, "print the findings as a JSON document");
  app.add_flag("-q,--quiet", request->quiet, "print only the summary line");
  app.footer("Rules:\n" + [] {
    std::string text;
    for (const auto &rule : circleVerifierRules())
      text += std::string("  ") + (rule.severity == CircleSeverity::Error ? "error   " : "warning ") + rule.code +
              ": " + rule.summary + "\n";
    return text;
  }());
  return [request] {
    std::vector<CircleDiagnostic> diagnostics;
    try {
      const CircleModel model = loadModel(request->input, /*check_indices=*/false);
      CircleVerifyOptions options;
      options.warnings = !request->no_warnings;
      diagnostics = verifyCircleModel(model, options);
      // The incremental manifest against the file (only when the indices hold: it follows them).
      if (countDiagnostics(diagnostics, CircleSeverity::Error) == 0)
        for (auto &d : checkIncrementalManifest(model))
          diagnostics.push_back(std::move(d));
    } catch (const Error &e) {
      // Reader messages start with the file name, which is the diagnostic's path already.
      std::string message = e.what();
      if (message.rfind(request->input + ": ", 0) == 0)
        message.erase(0, request->input.size() + 2);
      diagnostics.push_back({CircleSeverity::Error, "UNREADABLE", request->input, message});
    }
    return report(*request, diagnostics);
  };
}

} // namespace tico::circle_tool
