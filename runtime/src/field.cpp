#include "stencil/field.hpp"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"

#include <utility>
#include <vector>

namespace stencil {

std::int64_t Lattice::sites() const {
  std::int64_t count = 1;
  for (int axis = 0; axis < dims; ++axis)
    count *= extents[axis];
  return count;
}

std::int64_t Lattice::interior_sites() const {
  std::int64_t count = 1;
  for (int axis = 0; axis < dims; ++axis) {
    std::int64_t inside = extents[axis] - 2LL * halo[axis];
    count *= inside > 0 ? inside : 0;
  }
  return count;
}

std::string Lattice::describe() const {
  std::string text;
  for (int axis = 0; axis < dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(extents[axis]);
  text += ", " + std::to_string(components) + " " +
          (element_bytes == 4 ? "float" : "double") + " per site, ";
  if (periodic)
    return text + "periodic";
  text += "dirichlet (halo";
  for (int axis = 0; axis < dims; ++axis)
    text += " " + std::to_string(halo[axis]);
  return text + ")";
}

bool Lattice::operator==(const Lattice &other) const {
  if (dims != other.dims || components != other.components ||
      element_bytes != other.element_bytes || periodic != other.periodic)
    return false;
  for (int axis = 0; axis < kMaxDims; ++axis)
    if (extents[axis] != other.extents[axis] || halo[axis] != other.halo[axis])
      return false;
  return true;
}

Lattice lattice_for(const KernelInfo &info, const int *extents) {
  Lattice lattice;
  lattice.dims = info.shape.dims;
  lattice.components = info.components;
  lattice.element_bytes = info.element_bytes;
  lattice.periodic = info.shape.periodic;
  for (int axis = 0; axis < info.shape.dims; ++axis) {
    lattice.extents[axis] = extents[axis];
    lattice.halo[axis] = info.shape.periodic ? 0 : info.shape.reach[axis];
  }
  return lattice;
}

Status require_same_lattice(const Lattice &a, const Lattice &b,
                            const char *what) {
  if (a == b)
    return Status();
  return Status::failure(std::string(what) + ": field lattice " +
                         b.describe() + " does not match " + a.describe());
}

Field::~Field() { device_free(data_); }

Field::Field(Field &&other) noexcept
    : lattice_(other.lattice_), data_(std::exchange(other.data_, nullptr)) {}

Field &Field::operator=(Field &&other) noexcept {
  if (this != &other) {
    device_free(data_);
    lattice_ = other.lattice_;
    data_ = std::exchange(other.data_, nullptr);
  }
  return *this;
}

Status Field::create(const Lattice &lattice, Field &out) {
  if (lattice.dims < 1 || lattice.dims > kMaxDims)
    return Status::failure("field: lattice dimension " +
                           std::to_string(lattice.dims) + " is not 1..4");
  for (int axis = 0; axis < lattice.dims; ++axis)
    if (lattice.extents[axis] < 1)
      return Status::failure("field: extent " +
                             std::to_string(lattice.extents[axis]) +
                             " along axis " + std::to_string(axis) +
                             " is not positive");
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

Status Field::upload(const void *host, std::size_t bytes) {
  STENCIL_TRY(require_bytes(lattice_, bytes, "upload"));
  return copy_to_device(data_, host, bytes);
}

Status Field::download(void *host, std::size_t bytes) const {
  STENCIL_TRY(require_bytes(lattice_, bytes, "download"));
  return copy_to_host(host, data_, bytes);
}

Status Field::upload_values(const double *host, std::int64_t count) {
  if (count != lattice_.values())
    return Status::failure("upload of " + std::to_string(count) +
                           " values into a field of " +
                           std::to_string(lattice_.values()) + " (" +
                           lattice_.describe() + ")");
  if (lattice_.element_bytes == 8)
    return copy_to_device(data_, host, lattice_.bytes());
  std::vector<float> converted(host, host + count);
  return copy_to_device(data_, converted.data(), lattice_.bytes());
}

Status Field::download_values(double *host, std::int64_t count) const {
  if (count != lattice_.values())
    return Status::failure("download of " + std::to_string(count) +
                           " values from a field of " +
                           std::to_string(lattice_.values()) + " (" +
                           lattice_.describe() + ")");
  if (lattice_.element_bytes == 8)
    return copy_to_host(host, data_, lattice_.bytes());
  std::vector<float> converted(count);
  STENCIL_TRY(copy_to_host(converted.data(), data_, lattice_.bytes()));
  for (std::int64_t i = 0; i < count; ++i)
    host[i] = converted[i];
  return Status();
}

Status Field::copy_from(const Field &other) {
  STENCIL_TRY(require_same_lattice(lattice_, other.lattice_, "copy"));
  return copy_device_to_device(data_, other.data_, lattice_.bytes());
}

Status Field::fill(double value) { return stencil::fill(*this, value); }

} // namespace stencil
