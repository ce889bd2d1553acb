#include "stencil/coefficients.hpp"

#include "stencil/device.hpp"

#include <cmath>
#include <cstdio>

namespace stencil {

Status HostCoefficients::create(const KernelInfo &info, const Lattice &lattice,
                                const double *values,
                                const std::vector<const Field *> &fields,
                                HostCoefficients &out) {
  HostCoefficients c;
  c.info_ = &info;
  c.lattice_ = lattice;
  c.lattice_.parity = -1;
  c.sites_ = c.lattice_.sites();
  c.shared_.assign(info.num_taps, 0.0);
  for (int t = 0; t < info.num_taps; ++t)
    c.shared_[t] = scalar_coefficient(info, t, values);
  c.termsOfTap_.resize(info.num_taps);
  for (int i = 0; i < info.num_field_terms; ++i)
    c.termsOfTap_[info.field_terms[i].tap].push_back(&info.field_terms[i]);
  c.fields_.resize(info.num_params);
  for (int p = 0; p < info.num_params; ++p) {
    if (!info.param_is_site[p])
      continue;
    if (!fields[p])
      return Status::failure(std::string(info.name) + ": site parameter '" +
                             info.param_names[p] + "' has no array; call "
                             "set_site_parameter()");
    const std::int64_t values = c.sites_ * site_parameter_reals(info, p);
    c.fields_[p].resize(values);
    STENCIL_TRY(fields[p]->download_values(c.fields_[p].data(), values));
  }
  out = std::move(c);
  return Status();
}

std::int64_t HostCoefficients::index(const Coordinates &x) const {
  std::int64_t index = 0;
  for (int axis = lattice_.dims - 1; axis >= 0; --axis)
    index = index * lattice_.extents[axis] + x[axis];
  return index;
}

HostCoefficients::Coordinates
HostCoefficients::coordinates(std::int64_t index) const {
  Coordinates x{};
  for (int axis = 0; axis < lattice_.dims; ++axis) {
    x[axis] = static_cast<int>(index % lattice_.extents[axis]);
    index /= lattice_.extents[axis];
  }
  return x;
}

bool HostCoefficients::updated(const Coordinates &x) const {
  for (int axis = 0; axis < lattice_.dims; ++axis) {
    const int halo = lattice_.halo[axis];
    if (x[axis] < halo || x[axis] >= lattice_.extents[axis] - halo)
      return false;
  }
  return true;
}

std::int64_t HostCoefficients::neighbour(const Coordinates &x,
                                         const int *offset) const {
  Coordinates y = x;
  for (int axis = 0; axis < lattice_.dims; ++axis) {
    const int n = lattice_.extents[axis];
    y[axis] += offset[axis];
    if (wraps(lattice_.boundary[axis]))
      y[axis] = ((y[axis] % n) + n) % n;
    else if (y[axis] < 0 || y[axis] >= n)
      return -1;
  }
  return index(y);
}

std::complex<double> HostCoefficients::complex_at(int tap,
                                                  const Coordinates &x) const {
  std::complex<double> value = shared_[tap];
  for (const FieldTerm *field : termsOfTap_[tap]) {
    const FieldTerm &term = *field;
    // The generator keeps every read of an updated site inside the array
    // (its reach check); a site outside has no row to evaluate.
    const std::int64_t site = neighbour(x, term.shift);
    if (site < 0)
      continue;
    const std::vector<double> &f = fields_[term.param];
    if (!is_complex_parameter(*info_, term.param)) {
      value += term.factor * f[site];
      continue;
    }
    const std::complex<double> v(f[2 * site], f[2 * site + 1]);
    value += term.factor * (term.conjugate ? std::conj(v) : v);
  }
  return value;
}

bool HostCoefficients::off_diagonal_fields() const {
  for (int i = 0; i < info_->num_field_terms; ++i) {
    const FieldTerm &term = info_->field_terms[i];
    if (term.tap != info_->centre_tap)
      return true;
    for (int axis = 0; axis < kMaxDims; ++axis)
      if (term.shift[axis] != 0)
        return true;
  }
  return false;
}

namespace {

std::string siteText(const HostCoefficients::Coordinates &x, int dims) {
  std::string text = "(";
  for (int axis = 0; axis < dims; ++axis)
    text += (axis ? ", " : "") + std::to_string(x[axis]);
  return text + ")";
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

} // namespace

Status check_chained_dominance(const KernelInfo &info,
                               const HostCoefficients &c) {
  const int dims = info.shape.dims;
  const int centre = info.centre_tap;
  const std::string name = info.name;
  if (centre < 0)
    return Status::failure(name + " has no centre tap, so its diagonal is "
                                  "zero and A is not positive definite");
  // Rows of the updated sites: dominance, and which are strict.
  std::vector<char> reached(c.sites(), 0);
  std::vector<std::int64_t> frontier;
  std::int64_t rows = 0;
  for (std::int64_t s = 0; s < c.sites(); ++s) {
    const HostCoefficients::Coordinates x = c.coordinates(s);
    if (!c.updated(x)) {
      reached[s] = 1; // not a row of A
      continue;
    }
    ++rows;
    const std::complex<double> complexDiagonal = c.complex_at(centre, x);
    const double diagonal = complexDiagonal.real();
    double off = 0.0;
    for (int t = 0; t < info.num_taps; ++t) {
      if (t == centre)
        continue;
      const std::int64_t y = c.neighbour(x, info.tap_offsets[t]);
      if (y >= 0 && c.updated(c.coordinates(y)))
        off += std::abs(c.complex_at(t, x));
    }
    if (!std::isfinite(diagonal) || !std::isfinite(off) ||
        !std::isfinite(complexDiagonal.imag()))
      return Status::failure(name + ": the coefficients at site " +
                             siteText(x, dims) + " are not finite");
    if (std::fabs(complexDiagonal.imag()) > 1e-12 * std::fabs(diagonal))
      return Status::failure(
          name + ": the diagonal at site " + siteText(x, dims) + " is " +
          number(diagonal) + (complexDiagonal.imag() < 0 ? " - " : " + ") +
          number(std::fabs(complexDiagonal.imag())) +
          "i, not real, so A is not Hermitian and CG does not apply; use "
          "CGNR");
    const double slack = 1e-12 * (std::fabs(diagonal) + off);
    if (diagonal < off - slack)
      return Status::failure(
          name + " is not diagonally dominant at site " + siteText(x, dims) +
          ": A_xx = " + number(diagonal) + " but the off-diagonal entries of "
          "its row sum to " + number(off) + " in magnitude" +
          (diagonal < 0 ? " (a negative diagonal: A is not positive definite)"
                        : "") +
          ", so with these coefficient fields CG cannot be sure that A is "
          "positive definite; check the fields (negative or wrong values?) "
          "or use CGNR");
    if (diagonal > off + slack) {
      reached[s] = 1;
      frontier.push_back(s);
    }
  }
  if (rows == 0)
    return Status();
  // Every row must reach a strictly dominant one through non-zero entries
  // (the matrix is symmetric, so the couplings run both ways).
  while (!frontier.empty()) {
    const std::int64_t s = frontier.back();
    frontier.pop_back();
    const HostCoefficients::Coordinates x = c.coordinates(s);
    for (int t = 0; t < info.num_taps; ++t) {
      if (t == centre)
        continue;
      const std::int64_t y = c.neighbour(x, info.tap_offsets[t]);
      if (y < 0 || reached[y] || c.complex_at(t, x) == 0.0)
        continue;
      reached[y] = 1;
      frontier.push_back(y);
    }
  }
  for (std::int64_t s = 0; s < c.sites(); ++s)
    if (!reached[s])
      return Status::failure(
          name + ": no row reachable from site " +
          siteText(c.coordinates(s), dims) +
          " through non-zero couplings is strictly diagonally dominant, so "
          "A may be singular there (a region the coefficient fields cut off "
          "from the boundary, or no boundary and no positive shift); CG "
          "refuses: make the fields positive, add a mass, or use CGNR");
  return Status();
}

} // namespace stencil
