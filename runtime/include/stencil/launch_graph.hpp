// stencil/launch_graph.hpp - short sequences of kernel launches recorded
// once as a device graph and replayed with one launch.
//
// An operator made of several dependent kernels (the even/odd Schur
// complement's two hops, four with the clover kernel between) on a small
// lattice runs each kernel in a few microseconds, about what the GPU needs
// to start the next one: replaying the sequence as a graph removes most of
// that gap (docs/performance.md, "Launch graphs"). A graph holds the
// launches' arguments as they were recorded, so each is kept under a key
// that must name everything the arguments depend on (field pointers,
// parameter values, kernel choice): a new key records again.
//
// The host backend runs every sequence as it is launched (no graphs), as
// does STENCILC_GRAPHS=off or set_enabled(false).
#ifndef STENCIL_LAUNCH_GRAPH_HPP
#define STENCIL_LAUNCH_GRAPH_HPP

#include "stencil/types.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace stencil {

class LaunchGraphs {
public:
  using Key = std::vector<std::uint64_t>;
  /// Graphs kept at once; recording another drops the least recently used.
  static constexpr int kMaxGraphs = 8;

  LaunchGraphs() = default;
  ~LaunchGraphs();
  LaunchGraphs(const LaunchGraphs &) = delete;
  LaunchGraphs &operator=(const LaunchGraphs &) = delete;
  LaunchGraphs(LaunchGraphs &&other) noexcept;
  LaunchGraphs &operator=(LaunchGraphs &&other) noexcept;

  /// Reads STENCILC_GRAPHS (unset or "on": graphs where the backend has
  /// them; "off": none; anything else an error naming the value).
  static Status from_environment(LaunchGraphs &out);

  /// The launches `record` makes on the stream it is given, run on
  /// `stream`: replayed from the graph kept for `key`, or recorded first
  /// (the launches' own checks run then, and a failure is returned without
  /// keeping a graph). Without graphs `record(stream)` runs directly.
  Status run(const Key &key, Stream stream,
             const std::function<Status(Stream)> &record);
  /// Records the graph for `key` where none is kept, without running it (a
  /// solver records before its clock starts); nothing without graphs.
  Status prepare(const Key &key, const std::function<Status(Stream)> &record);

  /// Turning graphs off drops the kept ones.
  void set_enabled(bool enabled);
  /// Whether run() records and replays graphs on this backend.
  bool enabled() const;
  /// How many graphs run() has recorded (each new key once, again after it
  /// was dropped).
  int recordings() const { return recordings_; }
  /// "launch graphs (N recorded)", or why the launches run one by one.
  std::string description() const;

private:
  struct Graph {
    Key key;
    void *exec = nullptr;
  };
  void clear();
  /// The graph kept for `key`, or graphs_.end().
  std::vector<Graph>::iterator kept(const Key &key);
  /// Records `record`'s launches under `key` as the most recently used
  /// graph (dropping the least recently used one past kMaxGraphs).
  Status keep(const Key &key, const std::function<Status(Stream)> &record);

  bool wanted_ = true;
  bool switched_off_by_environment_ = false;
  std::vector<Graph> graphs_; ///< least recently used first
  Stream capture_ = nullptr;  ///< the stream graphs are recorded on
  int recordings_ = 0;
};

} // namespace stencil

#endif
