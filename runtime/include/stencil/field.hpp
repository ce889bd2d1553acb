// stencil/field.hpp - lattice fields in device memory.
#ifndef STENCIL_FIELD_HPP
#define STENCIL_FIELD_HPP

#include "stencil/kernel_info.hpp"
#include "stencil/layout.hpp"
#include "stencil/types.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace stencil {

/// The shape of a field: what must agree between an operator and the
/// fields it is applied to.
struct Lattice {
  int dims = 0;
  int extents[kMaxDims] = {1, 1, 1, 1};
  int components = 1;
  /// The stored type: 2 bfloat16 (stencil/bfloat16.hpp; arithmetic in
  /// float), 4 float, 8 double. Field::create refuses any other.
  int element_bytes = 8;
  /// Per axis, a stencil::Boundary.
  int boundary[kMaxDims] = {0, 0, 0, 0};
  /// Halo width per axis (both sides): the reach along Dirichlet axes, 0
  /// along axes that wrap around.
  int halo[kMaxDims] = {0, 0, 0, 0};
  /// How values are stored on the device (stencil/layout.hpp).
  Layout layout;
  /// Even/odd layouts only: -1 for the whole lattice, 0 or 1 for the field
  /// of the even or odd sites alone (the unknowns of the Schur complement).
  int parity = -1;

  /// Sites stored: all, or one parity's half.
  std::int64_t sites() const;
  std::int64_t values() const { return sites() * components; }
  std::size_t bytes() const {
    return static_cast<std::size_t>(values()) * element_bytes;
  }
  /// Whether some axis has a halo (a Dirichlet boundary).
  bool has_halo() const;
  /// Sites the operator updates: all but the halo along Dirichlet axes (of
  /// this parity for a half).
  std::int64_t interior_sites() const;
  /// The lattice of one parity's half (an even/odd whole lattice only).
  Lattice half(int which) const;
  /// "48x48x48, 1 double per site, dirichlet (halo 1 1 1)".
  std::string describe() const;
  bool operator==(const Lattice &other) const;
  bool operator!=(const Lattice &other) const { return !(*this == other); }
};

/// The lattice of a generated stencil on `extents` (info.shape.dims entries).
Lattice lattice_for(const KernelInfo &info, const int *extents);

/// A clear error unless Field::create can make a field of `lattice`: its
/// dimensions, extents, components, stored type, layout and parity in
/// range, and its bytes within 64 bits.
Status check_lattice(const Lattice &lattice);

/// A field in device memory; zero-filled on creation. Move-only.
/// A view (see half()) shares another field's memory and frees nothing.
class Field {
public:
  Field() = default;
  ~Field();
  Field(Field &&other) noexcept;
  Field &operator=(Field &&other) noexcept;
  Field(const Field &) = delete;
  Field &operator=(const Field &) = delete;

  static Status create(const Lattice &lattice, Field &out);
  /// A view of the even (0) or odd (1) sites of this even/odd field: the
  /// half's values in place, no copy. It must not outlive this field.
  Status half(int parity, Field &view) const;

  const Lattice &lattice() const { return lattice_; }
  void *data() { return data_; }
  const void *data() const { return data_; }
  /// False for a default-constructed or moved-from field: every operation
  /// on it is an error.
  bool has_storage() const { return data_ != nullptr; }

  /// Host buffers in the user's order (site-major, x fastest; for a half,
  /// that parity's sites in that order) and the field's type; `bytes` must equal lattice().bytes(). Fields stored in
  /// another layout are converted on the way.
  Status upload(const void *host, std::size_t bytes);
  Status download(void *host, std::size_t bytes) const;
  /// Host buffers of doubles, converted to and from the field's type.
  Status upload_values(const double *host, std::int64_t count);
  Status download_values(double *host, std::int64_t count) const;
  Status copy_from(const Field &other);
  Status fill(double value);

private:
  Lattice lattice_;
  void *data_ = nullptr;
  bool owner_ = true;
};

/// The device element index of value `index` of the user's site-major order.
std::int64_t storage_index(const Lattice &lattice, std::int64_t index);

/// A clear error unless `a` and `b` have the same lattice; `what` names the
/// operation, e.g. "apply: out".
Status require_same_lattice(const Lattice &a, const Lattice &b,
                            const char *what);

/// require_storage(field) and require_same_lattice(expected, its lattice):
/// what every operation checks of a field argument.
Status require_field(const Lattice &expected, const Field &field,
                     const char *what);

/// Whether `a` and `b` hold some of the same memory (a field and a view of
/// its half, or one field twice).
bool share_memory(const Field &a, const Field &b);

/// A clear error unless `field` has storage (see Field::has_storage); `what`
/// names the operation and the argument, e.g. "solve: x".
Status require_storage(const Field &field, const char *what);

} // namespace stencil

#endif
