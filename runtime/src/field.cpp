#include "stencil/field.hpp"

#include "stencil/bfloat16.hpp"
#include "stencil/blas.hpp"
#include "stencil/device.hpp"

#include "host_parallel.hpp"
#include "storage_types.hpp"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace stencil {

std::int64_t Lattice::sites() const {
  std::int64_t count = 1;
  for (int axis = 0; axis < dims; ++axis)
    count *= extents[axis];
  return parity < 0 ? count : count / 2;
}

std::int64_t Lattice::interior_sites() const {
  std::int64_t count = 1;
  for (int axis = 0; axis < dims; ++axis) {
    std::int64_t inside = extents[axis] - 2LL * halo[axis];
    count *= inside > 0 ? inside : 0;
  }
  // Even/odd lattices have an even nx and a symmetric halo, so the interior
  // rows have even length and each parity holds half of them.
  return parity < 0 ? count : count / 2;
}

bool Lattice::has_halo() const {
  for (int axis = 0; axis < dims; ++axis)
    if (halo[axis] > 0)
      return true;
  return false;
}

Lattice Lattice::half(int which) const {
  Lattice l = *this;
  l.parity = which;
  return l;
}

std::string Lattice::describe() const {
  std::string text;
  for (int axis = 0; axis < dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(extents[axis]);
  const char *stored = storage_name(element_bytes);
  text += ", " + std::to_string(components) + " " +
          (stored ? stored : std::to_string(element_bytes) + "-byte value") +
          " per site, ";
  if (!layout.is_plain()) {
    static const char *const orders[3] = {"aos", "soa", "aosoa"};
    // (even/odd is appended below)
    // A hand-built Layout may hold any order; check_lattice refuses it,
    // and its message describes it.
    text += layout.order >= 0 && layout.order < 3
                ? std::string(orders[layout.order])
                : "order " + std::to_string(layout.order);
    if (layout.order == kBlocked)
      text += "(" + std::to_string(layout.block) + ")";
    if (layout.vector > 1)
      text += " in groups of " + std::to_string(layout.vector);
    if (layout.has_subdomains()) {
      text += " in subdomains of ";
      for (int axis = 0; axis < dims; ++axis)
        text += (axis ? "x" : "") + std::to_string(layout.sub[axis]);
    }
    if (layout.even_odd)
      text += std::string(" even/odd") +
              (parity == 0 ? " (even half)" : parity == 1 ? " (odd half)" : "");
    text += ", ";
  }
  bool uniform = true;
  for (int axis = 1; axis < dims; ++axis)
    uniform &= boundary[axis] == boundary[0];
  if (uniform)
    text += boundary_name(boundary[0]);
  else
    for (int axis = 0; axis < dims; ++axis)
      text += std::string(axis ? " " : "") + axis_name(axis) + ":" +
              boundary_name(boundary[axis]);
  bool dirichlet = false;
  for (int axis = 0; axis < dims; ++axis)
    dirichlet |= !wraps(boundary[axis]);
  if (!dirichlet)
    return text;
  text += " (halo";
  for (int axis = 0; axis < dims; ++axis)
    text += " " + std::to_string(halo[axis]);
  return text + ")";
}

bool Lattice::operator==(const Lattice &other) const {
  if (dims != other.dims || components != other.components ||
      element_bytes != other.element_bytes)
    return false;
  for (int axis = 0; axis < kMaxDims; ++axis)
    if (extents[axis] != other.extents[axis] ||
        boundary[axis] != other.boundary[axis] ||
        halo[axis] != other.halo[axis] ||
        layout.sub[axis] != other.layout.sub[axis])
      return false;
  return layout.order == other.layout.order &&
         (layout.order != kBlocked || layout.block == other.layout.block) &&
         layout.vector == other.layout.vector &&
         layout.even_odd == other.layout.even_odd && parity == other.parity;
}

Lattice lattice_for(const KernelInfo &info, const int *extents) {
  Lattice lattice;
  lattice.dims = info.shape.dims;
  lattice.components = info.components;
  lattice.element_bytes = info.element_bytes;
  lattice.layout = info.layout;
  for (int axis = 0; axis < info.shape.dims; ++axis) {
    lattice.extents[axis] = extents[axis];
    lattice.boundary[axis] = info.shape.boundary[axis];
    lattice.halo[axis] =
        wraps(info.shape.boundary[axis]) ? 0 : info.shape.reach[axis];
  }
  return lattice;
}

namespace {

/// Where site `site` (host order: x fastest, or a half's own order) keeps
/// its component c: layout_element's site argument, computed once a site.
std::int64_t stored_site(const Lattice &l, std::int64_t site) {
  if (l.parity >= 0)
    return site;
  int coordinate[kMaxDims] = {0, 0, 0, 0};
  for (int axis = 0; axis < l.dims; ++axis) {
    coordinate[axis] = static_cast<int>(site % l.extents[axis]);
    site /= l.extents[axis];
  }
  return layout_site(l.layout, coordinate[0], coordinate[1], coordinate[2],
                     coordinate[3], l.extents[0], l.extents[1], l.extents[2],
                     l.extents[3]);
}

std::int64_t stored_element(const Lattice &l, std::int64_t stored, int c) {
  if (l.parity >= 0) // a half's own order: its sites as stored
    return order_element(l.layout.order, l.layout.block, l.layout.vector,
                         stored, c, l.components, l.sites());
  return layout_element(l.layout, stored, c, l.components, l.sites());
}

} // namespace

std::int64_t storage_index(const Lattice &l, std::int64_t index) {
  if (l.layout.is_plain())
    return index;
  const int c = static_cast<int>(index % l.components);
  return stored_element(l, stored_site(l, index / l.components), c);
}

namespace {

/// Host order -> storage order (or back, with `toStorage` false), in the
/// element type T: site by site over the host's threads.
template <typename T>
std::vector<T> permuted(const Lattice &l, const T *from, bool toStorage) {
  const std::int64_t n = l.values();
  std::vector<T> to(n);
  if (l.layout.is_plain()) {
    std::copy(from, from + n, to.begin());
    return to;
  }
  const int nc = l.components;
  parallel_ranges(l.sites(), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t site = begin; site < end; ++site) {
      const std::int64_t stored = stored_site(l, site);
      for (int c = 0; c < nc; ++c) {
        const std::int64_t i = site * nc + c;
        const std::int64_t j = stored_element(l, stored, c);
        if (toStorage)
          to[j] = from[i];
        else
          to[i] = from[j];
      }
    }
  });
  return to;
}

template <typename T>
Status upload_typed(const Lattice &l, void *device, const T *host) {
  std::vector<T> data = permuted(l, host, true);
  return copy_to_device(device, data.data(), l.bytes());
}

template <typename T>
Status download_typed(const Lattice &l, T *host, const void *device) {
  std::vector<T> stored(l.values());
  STENCIL_TRY(copy_to_host(stored.data(), device, l.bytes()));
  std::vector<T> data = permuted(l, stored.data(), false);
  std::copy(data.begin(), data.end(), host);
  return Status();
}

Status upload_any(const Lattice &l, void *device, const void *host) {
  if (l.layout.is_plain())
    return copy_to_device(device, host, l.bytes());
  return with_storage(l.element_bytes, [&](auto zero) {
    using S = decltype(zero);
    return upload_typed(l, device, static_cast<const S *>(host));
  });
}

Status download_any(const Lattice &l, void *host, const void *device) {
  if (l.layout.is_plain())
    return copy_to_host(host, device, l.bytes());
  return with_storage(l.element_bytes, [&](auto zero) {
    using S = decltype(zero);
    return download_typed(l, static_cast<S *>(host), device);
  });
}

} // namespace

Status require_field(const Lattice &expected, const Field &field,
                     const char *what) {
  STENCIL_TRY(require_storage(field, what));
  return require_same_lattice(expected, field.lattice(), what);
}

bool share_memory(const Field &a, const Field &b) {
  if (!a.has_storage() || !b.has_storage())
    return false;
  const char *aBegin = static_cast<const char *>(a.data());
  const char *bBegin = static_cast<const char *>(b.data());
  return aBegin < bBegin + b.lattice().bytes() &&
         bBegin < aBegin + a.lattice().bytes();
}

Status require_storage(const Field &field, const char *what) {
  if (field.has_storage())
    return Status();
  return Status::failure(std::string(what) +
                         ": the field has no storage (default-constructed or "
                         "moved from)");
}

Status check_lattice(const Lattice &l) {
  if (l.dims < 1 || l.dims > kMaxDims)
    return Status::failure("lattice dimension " + std::to_string(l.dims) +
                           " is not 1..4");
  // Extents are check_layout's, below.
  if (l.components < 1)
    return Status::failure(std::to_string(l.components) +
                           " components per site: at least 1 needed");
  STENCIL_TRY(check_storage(l.element_bytes));
  for (int axis = 0; axis < l.dims; ++axis)
    if (l.halo[axis] < 0)
      return Status::failure("halo " + std::to_string(l.halo[axis]) +
                             " along " + axis_name(axis) + " is negative");
  if (l.parity < -1 || l.parity > 1)
    return Status::failure("parity " + std::to_string(l.parity) +
                           " is not -1 (whole), 0 (even) or 1 (odd)");
  if (l.parity >= 0 && !l.layout.even_odd)
    return Status::failure("a parity half needs an even/odd layout");
  STENCIL_TRY(check_layout(l.layout, l.dims, l.extents, l.boundary));
  STENCIL_TRY(check_layout_vector(l.layout, l.components, l.element_bytes));
  // check_layout bounds the sites by 2^62; the bytes must fit too.
  const std::int64_t limit = (std::int64_t{1} << 62) /
                             (static_cast<std::int64_t>(l.components) *
                              l.element_bytes);
  if (l.sites() > limit)
    return Status::failure(std::to_string(l.sites()) + " sites of " +
                           std::to_string(l.components) + " " +
                           std::to_string(l.element_bytes) +
                           "-byte values do not fit in 64-bit byte counts");
  return Status();
}

Status require_same_lattice(const Lattice &a, const Lattice &b,
                            const char *what) {
  if (a == b)
    return Status();
  return Status::failure(std::string(what) + ": field lattice " +
                         b.describe() + " does not match " + a.describe());
}

Field::~Field() {
  if (owner_)
    device_free(data_);
}

Field::Field(Field &&other) noexcept
    : lattice_(other.lattice_), data_(std::exchange(other.data_, nullptr)),
      owner_(other.owner_) {}

Field &Field::operator=(Field &&other) noexcept {
  if (this != &other) {
    if (owner_)
      device_free(data_);
    lattice_ = other.lattice_;
    data_ = std::exchange(other.data_, nullptr);
    owner_ = other.owner_;
  }
  return *this;
}

Status Field::half(int which, Field &view) const {
  STENCIL_TRY(require_storage(*this, "half"));
  // The view would be freed by the move into `view` before it is made.
  if (&view == this)
    return Status::failure("half: the view may not be the field itself");
  if (!lattice_.layout.even_odd || lattice_.parity >= 0)
    return Status::failure("half: " + lattice_.describe() +
                           " is not a whole even/odd field");
  if (which != 0 && which != 1)
    return Status::failure("half: parity " + std::to_string(which) +
                           " is not 0 (even) or 1 (odd)");
  Field out;
  out.lattice_ = lattice_.half(which);
  out.data_ = static_cast<char *>(data_) + which * out.lattice_.bytes();
  out.owner_ = false;
  view = std::move(out);
  return Status();
}

Status Field::create(const Lattice &lattice, Field &out) {
  Status valid = check_lattice(lattice);
  if (!valid.ok())
    return Status::failure("field: " + valid.message());
  Field field;
  field.lattice_ = lattice;
  STENCIL_TRY(device_allocate(&field.data_, lattice.bytes()));
  STENCIL_TRY(device_zero(field.data_, lattice.bytes()));
  out = std::move(field);
  return Status();
}

static Status require_bytes(const Lattice &lattice, std::size_t bytes,
                            const char *what) {
  if (bytes == lattice.bytes())
    return Status();
  return Status::failure(std::string(what) + " of " + std::to_string(bytes) +
                         " bytes into a field of " +
                         std::to_string(lattice.bytes()) + " bytes (" +
                         lattice.describe() + ")");
}

/// A clear error unless `host` points somewhere.
static Status require_host(const void *host, const char *what) {
  if (host)
    return Status();
  return Status::failure(std::string(what) + ": the host buffer is null");
}

Status Field::upload(const void *host, std::size_t bytes) {
  STENCIL_TRY(require_storage(*this, "upload"));
  STENCIL_TRY(require_host(host, "upload"));
  STENCIL_TRY(require_bytes(lattice_, bytes, "upload"));
  return upload_any(lattice_, data_, host);
}

Status Field::download(void *host, std::size_t bytes) const {
  STENCIL_TRY(require_storage(*this, "download"));
  STENCIL_TRY(require_host(host, "download"));
  STENCIL_TRY(require_bytes(lattice_, bytes, "download"));
  return download_any(lattice_, host, data_);
}

Status Field::upload_values(const double *host, std::int64_t count) {
  STENCIL_TRY(require_storage(*this, "upload"));
  STENCIL_TRY(require_host(host, "upload"));
  if (count != lattice_.values())
    return Status::failure("upload of " + std::to_string(count) +
                           " values into a field of " +
                           std::to_string(lattice_.values()) + " (" +
                           lattice_.describe() + ")");
  return with_storage(lattice_.element_bytes, [&](auto zero) {
    using S = decltype(zero);
    if constexpr (std::is_same<S, double>::value)
      return upload_any(lattice_, data_, host);
    std::vector<S> converted(count);
    for (std::int64_t i = 0; i < count; ++i)
      converted[i] = narrow<S>(host[i]);
    return upload_any(lattice_, data_, converted.data());
  });
}

Status Field::download_values(double *host, std::int64_t count) const {
  STENCIL_TRY(require_storage(*this, "download"));
  STENCIL_TRY(require_host(host, "download"));
  if (count != lattice_.values())
    return Status::failure("download of " + std::to_string(count) +
                           " values from a field of " +
                           std::to_string(lattice_.values()) + " (" +
                           lattice_.describe() + ")");
  return with_storage(lattice_.element_bytes, [&](auto zero) {
    using S = decltype(zero);
    if constexpr (std::is_same<S, double>::value)
      return download_any(lattice_, host, data_);
    std::vector<S> converted(count);
    STENCIL_TRY(download_any(lattice_, converted.data(), data_));
    for (std::int64_t i = 0; i < count; ++i)
      host[i] = widen(converted[i]);
    return Status();
  });
}

Status Field::copy_from(const Field &other) {
  STENCIL_TRY(require_storage(*this, "copy: destination"));
  STENCIL_TRY(require_storage(other, "copy: source"));
  STENCIL_TRY(require_same_lattice(lattice_, other.lattice_, "copy"));
  return copy_device_to_device(data_, other.data_, lattice_.bytes());
}

Status Field::fill(double value) { return stencil::fill(*this, value); }

} // namespace stencil
