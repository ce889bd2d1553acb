// fnv1a.hpp - internal to the runtime: the 64-bit FNV-1a hash that gauge
// files record as their checksum and that Communicator::same compares over
// the ranks.
#ifndef STENCIL_RUNTIME_FNV1A_HPP
#define STENCIL_RUNTIME_FNV1A_HPP

#include <cstddef>
#include <cstdint>

namespace stencil {

/// FNV-1a (64 bits) over `count` bytes.
inline std::uint64_t fnv1a(const void *bytes, std::size_t count) {
  const auto *byte = static_cast<const unsigned char *>(bytes);
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < count; ++i) {
    hash ^= byte[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

} // namespace stencil

#endif
