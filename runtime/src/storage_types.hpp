// storage_types.hpp - internal to the runtime: the value types a field may
// store, chosen by Lattice::element_bytes (2 bfloat16, 4 float, 8 double),
// so that fields and BLAS dispatch on them the same way and refuse any other
// size with the same message.
#ifndef STENCIL_RUNTIME_STORAGE_TYPES_HPP
#define STENCIL_RUNTIME_STORAGE_TYPES_HPP

#include "stencil/bfloat16.hpp"
#include "stencil/types.hpp"

#include <string>

namespace stencil {

/// "bfloat16", "float" or "double"; null for any other size.
inline const char *storage_name(int element_bytes) {
  switch (element_bytes) {
  case 2:
    return "bfloat16";
  case 4:
    return "float";
  case 8:
    return "double";
  }
  return nullptr;
}

/// A clear error unless `element_bytes` is the size of a type fields store.
inline Status check_storage(int element_bytes) {
  if (storage_name(element_bytes))
    return Status();
  return Status::failure("field: " + std::to_string(element_bytes) +
                         "-byte values; fields store bfloat16 (2 bytes), "
                         "float (4) or double (8)");
}

/// Calls body(S()) with S the type stored in `element_bytes`-byte values,
/// or returns check_storage's error.
template <typename Body>
Status with_storage(int element_bytes, Body body) {
  switch (element_bytes) {
  case 2:
    return body(bfloat16());
  case 4:
    return body(float());
  case 8:
    return body(double());
  }
  return check_storage(element_bytes);
}

} // namespace stencil

#endif
