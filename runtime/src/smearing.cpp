#include "stencil/smearing.hpp"

#include "stencil/blas.hpp"
#include "stencil/device.hpp"

#include <cmath>

namespace stencil {

Status JacobiSmearing::create(const KernelInfo &info, const int *extents,
                              JacobiSmearing &out) {
  const std::string name = info.name;
  if (!info.links)
    return Status::failure("Jacobi smearing needs a gauge-covariant "
                           "Laplacian, but " + name + " has no link taps");
  for (int axis = 0; axis < info.shape.dims; ++axis)
    if (info.shape.boundary[axis] != 1)
      return Status::failure("Jacobi smearing needs periodic axes, but " +
                             name + "'s axis " + std::to_string(axis) +
                             " is not periodic");
  if (!info.symmetric)
    return Status::failure("Jacobi smearing needs a Hermitian hopping term, "
                           "but " + name + " is not Hermitian (a link tap's "
                           "mirror is missing or differs)");
  if (info.centre_tap < 0 || info.num_params != 0 ||
      info.tap_constants[info.centre_tap] <= 0)
    return Status::failure(name + " is not of the form D = c - H (a centre "
                                  "tap with a positive constant coefficient "
                                  "and no parameters) that smearing needs");
  for (int t = 0; t < info.num_taps; ++t)
    if (t != info.centre_tap &&
        (!info.links->tap_link[t] || info.tap_constants[t] != -1.0))
      return Status::failure(
          name + "'s tap " + std::to_string(t) +
          " is not a link tap of coefficient -1; smearing needs D = c - H "
          "with H the plain covariant hopping term");
  JacobiSmearing smearing;
  STENCIL_TRY(StencilOperator::create(info, extents, smearing.op_));
  smearing.centre_ = info.tap_constants[info.centre_tap];
  out = std::move(smearing);
  return Status();
}

Status JacobiSmearing::smear(Field &psi, double kappa, int iterations) {
  if (!std::isfinite(kappa) || kappa < 0)
    return Status::failure("Jacobi smearing: kappa must be finite and "
                           "non-negative, not " + std::to_string(kappa));
  if (iterations < 0)
    return Status::failure("Jacobi smearing: the number of steps must be "
                           "non-negative");
  Field d;
  STENCIL_TRY(Field::create(psi.lattice(), d));
  const double factor = step_factor(kappa);
  for (int i = 0; i < iterations; ++i) {
    STENCIL_TRY(op_.apply(d, psi));
    STENCIL_TRY(axpy(-factor, d, psi));
  }
  return device_synchronize();
}

Status JacobiSmearing::smear_time_slices(const GaugeField &U, double kappa,
                                         int iterations,
                                         std::vector<double> &psi,
                                         const Progress &progress) {
  const Lattice &slice = op_.lattice();
  if (U.dims() != slice.dims + 1)
    return Status::failure("smearing per time slice: the gauge field has " +
                           std::to_string(U.dims()) + " dimensions; the " +
                           std::to_string(slice.dims) +
                           "-D operator needs " +
                           std::to_string(slice.dims + 1));
  for (int axis = 0; axis < slice.dims; ++axis)
    if (U.extents()[axis] != slice.extents[axis])
      return Status::failure(
          "smearing per time slice: the gauge field's extent along axis " +
          std::to_string(axis) + " is " + std::to_string(U.extents()[axis]) +
          ", the operator's " + std::to_string(slice.extents[axis]));
  const int nt = U.extents()[slice.dims];
  const std::int64_t perSlice = slice.values();
  if (psi.size() != static_cast<std::size_t>(perSlice * nt))
    return Status::failure("smearing per time slice: the field holds " +
                           std::to_string(psi.size()) + " values; " +
                           std::to_string(nt) + " slices of " +
                           std::to_string(perSlice) + " need " +
                           std::to_string(perSlice * nt));
  Field field;
  STENCIL_TRY(Field::create(slice, field));
  // The operator reads each slice's links from slice_links_; on the way out
  // it gets back the links it had (so that no pointer into this object
  // outlives the call, and smear() keeps the caller's links).
  const Field *previous = op_.links();
  Status status;
  for (int t = 0; t < nt && status.ok(); ++t) {
    GaugeField links;
    status = time_slice_links(U, t, links);
    if (status.ok())
      status = op_.upload_links(links, slice_links_);
    if (status.ok())
      status = op_.set_links(slice_links_);
    double *values = psi.data() + t * perSlice;
    if (status.ok())
      status = field.upload_values(values, perSlice);
    if (status.ok())
      status = smear(field, kappa, iterations);
    if (status.ok())
      status = field.download_values(values, perSlice);
    if (status.ok() && progress)
      progress(t + 1, nt);
  }
  if (previous)
    (void)op_.set_links(*previous); // it was accepted before
  else
    op_.clear_links();
  slice_links_ = Field();
  return status;
}

} // namespace stencil
