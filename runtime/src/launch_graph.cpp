#include "stencil/launch_graph.hpp"

#include "stencil/device.hpp"
#include "stencil/environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace stencil {
namespace {

/// A failure of the graph calls themselves, with the way around them.
Status explained(const Status &status) {
  if (status.ok())
    return status;
  return Status::failure(status.message() +
                         " (a launch graph; STENCILC_GRAPHS=off launches the "
                         "kernels one by one)");
}

} // namespace

LaunchGraphs::~LaunchGraphs() {
  clear();
  stream_destroy(capture_);
}

LaunchGraphs::LaunchGraphs(LaunchGraphs &&other) noexcept
    : wanted_(other.wanted_),
      switched_off_by_environment_(other.switched_off_by_environment_),
      graphs_(std::move(other.graphs_)),
      capture_(std::exchange(other.capture_, nullptr)),
      recordings_(other.recordings_) {
  other.graphs_.clear();
}

LaunchGraphs &LaunchGraphs::operator=(LaunchGraphs &&other) noexcept {
  if (this != &other) {
    clear();
    stream_destroy(capture_);
    wanted_ = other.wanted_;
    switched_off_by_environment_ = other.switched_off_by_environment_;
    graphs_ = std::move(other.graphs_);
    other.graphs_.clear();
    capture_ = std::exchange(other.capture_, nullptr);
    recordings_ = other.recordings_;
  }
  return *this;
}

Status LaunchGraphs::from_environment(LaunchGraphs &out) {
  out = LaunchGraphs();
  if (const char *asked = environment_value("STENCILC_GRAPHS")) {
    const std::string value = asked;
    if (value != "on" && value != "off")
      return Status::failure("STENCILC_GRAPHS='" + value +
                             "': expected on or off");
    out.wanted_ = value == "on";
    out.switched_off_by_environment_ = !out.wanted_;
  }
  return Status();
}

void LaunchGraphs::clear() {
  for (Graph &graph : graphs_)
    graph_destroy(graph.exec);
  graphs_.clear();
}

void LaunchGraphs::set_enabled(bool enabled) {
  wanted_ = enabled;
  switched_off_by_environment_ = false;
  if (!enabled)
    clear();
}

bool LaunchGraphs::enabled() const { return wanted_ && have_graphs(); }

std::string LaunchGraphs::description() const {
  if (!have_graphs())
    return "kernels launched one by one (the " + backend_name() +
           " backend has no launch graphs)";
  if (!wanted_)
    return std::string("kernels launched one by one (launch graphs off") +
           (switched_off_by_environment_ ? ": STENCILC_GRAPHS=off)" : ")");
  return "launch graphs (" + std::to_string(recordings_) + " recorded)";
}

Status LaunchGraphs::prepare(const Key &key,
                             const std::function<Status(Stream)> &record) {
  if (!enabled() || kept(key) != graphs_.end())
    return Status();
  return keep(key, record);
}

std::vector<LaunchGraphs::Graph>::iterator
LaunchGraphs::kept(const Key &key) {
  return std::find_if(graphs_.begin(), graphs_.end(),
                      [&](const Graph &g) { return g.key == key; });
}

Status LaunchGraphs::keep(const Key &key,
                          const std::function<Status(Stream)> &record) {
  if (!capture_)
    STENCIL_TRY(stream_create(capture_));
  STENCIL_TRY(explained(graph_begin_capture(capture_)));
  const Status recorded = record(capture_);
  Graph graph;
  graph.key = key;
  const Status ended = graph_end_capture(capture_, !recorded.ok(), graph.exec);
  // The launches' own failure first: it says what was wrong.
  STENCIL_TRY(recorded);
  STENCIL_TRY(explained(ended));
  ++recordings_;
  if (static_cast<int>(graphs_.size()) == kMaxGraphs) {
    graph_destroy(graphs_.front().exec);
    graphs_.erase(graphs_.begin());
  }
  graphs_.push_back(std::move(graph));
  return Status();
}

Status LaunchGraphs::run(const Key &key, Stream stream,
                         const std::function<Status(Stream)> &record) {
  if (!enabled())
    return record(stream);
  auto graph = kept(key);
  if (graph == graphs_.end()) {
    STENCIL_TRY(keep(key, record));
    graph = graphs_.end() - 1;
  } else if (graph != graphs_.end() - 1) {
    // Most recently used last.
    std::rotate(graph, graph + 1, graphs_.end());
    graph = graphs_.end() - 1;
  }
  return explained(graph_launch(graph->exec, stream));
}

} // namespace stencil
