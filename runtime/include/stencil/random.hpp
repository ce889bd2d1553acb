// stencil/random.hpp - a portable random sequence (splitmix64): the same
// numbers on every compiler and standard library, so that a solve on the
// host and one on a GPU start from identical data.
#ifndef STENCIL_RANDOM_HPP
#define STENCIL_RANDOM_HPP

#include <cstdint>

namespace stencil {

class Random {
public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += kStep);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [low, high).
  double uniform(double low, double high) {
    return low + (high - low) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
  /// The sequence `count` draws further on, as if next() had been called
  /// `count` times: splitmix64's state only counts, so pieces of a long
  /// sequence can be drawn in parallel and still give the same numbers.
  Random ahead(std::uint64_t count) const {
    Random later(*this);
    later.state_ += count * kStep;
    return later;
  }
  void skip(std::uint64_t count) { state_ += count * kStep; }

private:
  static constexpr std::uint64_t kStep = 0x9e3779b97f4a7c15ull;
  std::uint64_t state_;
};

} // namespace stencil

#endif
