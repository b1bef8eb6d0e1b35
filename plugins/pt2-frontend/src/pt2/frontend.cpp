#include "pt2/frontend.h"

#include "pt2/archive.h"
#include "pt2/graph_builder.h"
#include "pt2/shape_checks.h"

#include "tico/support/error.h"
#include "tico/support/log.h"

namespace tico::pt2 {

namespace {

// Reads the program of an opened archive; `path` names the file (or the image) in messages.
std::unique_ptr<Graph> readProgram(const Archive &archive, const std::string &path, const OpSchemaRegistry &schemas) {
  const std::string json_name = "models/" + archive.modelName() + ".json";
  try {
    // The DOM is built straight from the mapped bytes; nothing is read into a buffer first.
    Json program = parseJson(archive.read(json_name), json_name);
    std::unique_ptr<Graph> graph = GraphBuilder(archive, program, schemas).build();
    checkRecordedShapes(*graph);
    TICO_INFO << path << ": " << graph->numNodes() << " nodes, " << graph->inputs().size() << " inputs, "
              << graph->outputs().size() << " outputs";
    return graph;
  } catch (const Error &e) {
    throw Error(path + ": " + e.what());
  } catch (const Json::exception &e) {
    // Field access goes through checked helpers; this is the backstop for anything missed.
    throw Error(path + ": malformed " + json_name + " (" + e.what() + ")");
  } catch (const std::bad_alloc &) {
    throw Error(path + ": out of memory while reading " + json_name);
  } catch (const std::length_error &e) {
    throw Error(path + ": malformed " + json_name + " (" + e.what() + ")");
  }
}

} // namespace

std::unique_ptr<Graph> Pt2Frontend::load(const std::string &path, const OpSchemaRegistry &schemas) {
  Archive archive(path); // container errors already name the file
  return readProgram(archive, path, schemas);
}

std::unique_ptr<Graph> Pt2Frontend::loadBytes(std::shared_ptr<const Storage> image, const std::string &name,
                                              const OpSchemaRegistry &schemas) {
  // Weights become views of `image` (ArchiveImage::slice), which the graph's constants keep
  // alive; nothing is copied out of the caller's buffer.
  Archive archive(ArchiveImage::borrowed(std::move(image), name));
  return readProgram(archive, name, schemas);
}

FrontendSpec pt2FrontendSpec() {
  FrontendSpec spec;
  spec.name = "pt2";
  spec.summary = "torch.export archives (.pt2)";
  spec.extensions = {".pt2"};
  spec.sniff = [](const std::string &path) { return looksLikePt2(path); };
  spec.create = [] { return std::make_unique<Pt2Frontend>(); };
  return spec;
}

} // namespace tico::pt2
