#include "Verify.h"

#include "stencil/bfloat16.hpp"
#include "stencil/field.hpp"
#include "stencil/gauge.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <vector>

namespace stencilc {
namespace testing {
namespace {

/// A quiet NaN with a payload no arithmetic produces.
template <typename T> T poison();
template <> float poison<float>() {
  std::uint32_t bits = 0x7fc0beefu;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
template <> double poison<double>() {
  std::uint64_t bits = 0x7ff8deadbeef0001ull;
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

template <> stencil::bfloat16 poison<stencil::bfloat16>() {
  return stencil::bfloat16{0x7fc1};
}

template <typename T> bool isPoison(T value) {
  T expected = poison<T>();
  return std::memcmp(&value, &expected, sizeof value) == 0;
}

/// The value a T holds, exactly.
template <typename T> double exactly(T v) {
  return static_cast<double>(stencil::widen(v));
}

/// S: the fields' element type; T: the kernels' arithmetic, in which they
/// read parameters, coefficient fields, links and clover terms (float for
/// bfloat16 fields, else S).
template <typename S, typename T>
Verification verify(const stencil::KernelInfo &info, const StencilModel &model,
                    const Extents &extents, std::uint64_t seed, bool adjoint) {
  Verification result;
  // bfloat16 fields: the output rounded once to 8 significant bits, the
  // error measured against the largest value (as below), a step at most.
  result.tolerance = sizeof(S) == 2   ? 1.0 / 128.0
                     : sizeof(T) == 4 ? 1e-5
                                      : 1e-12;
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::uniform_real_distribution<double> parameter(0.5, 1.5);

  const int nc = model.components;
  const std::int64_t values = siteCount(extents) * nc;
  // The kernel reads and writes its own layout; the reference and the
  // checks below use the host order (site-major, x fastest). at(i) is where
  // value i of the host order is stored.
  const stencil::Lattice lattice = stencil::lattice_for(info, extents.data());
  const stencil::Lattice siteLattice = [&] {
    stencil::Lattice l = lattice;
    l.components = 1;
    l.layout.vector = 1; // one value a site (StencilOperator::site_lattice)
    return l;
  }();
  auto at = [&](std::int64_t i) { return stencil::storage_index(lattice, i); };
  std::vector<S> in(values), out(values, poison<S>());
  std::vector<double> inExact(values);
  for (std::int64_t i = 0; i < values; ++i) {
    bool halo = adjoint && !isUpdated(model, extents, i / nc);
    in[at(i)] = stencil::narrow<S>(halo ? 0.0 : uniform(random));
    inExact[i] = exactly(in[at(i)]);
  }
  // Parameters reach the kernel in T: the reference uses the same values.
  std::vector<double> params, paramsExact;
  std::vector<std::vector<T>> siteArrays(model.parameters.size());
  std::vector<std::vector<double>> siteExact(model.parameters.size());
  std::vector<const void *> fields(model.parameters.size(), nullptr);
  std::uniform_real_distribution<double> siteValue(0.0, 2.0);
  for (size_t p = 0; p < model.parameters.size(); ++p) {
    params.push_back(parameter(random));
    paramsExact.push_back(static_cast<T>(params.back()));
    if (!model.parameters[p].site)
      continue;
    // A complex field's (re, im) pair of the site at position i of the site
    // order sits at 2 i (StencilOperator::site_lattice); each part random.
    const int reals = model.parameters[p].complex ? 2 : 1;
    siteArrays[p].resize(reals * siteCount(extents));
    for (std::int64_t s = 0; s < siteCount(extents); ++s)
      for (int part = 0; part < reals; ++part) {
        T value = static_cast<T>(reals == 2 ? uniform(random)
                                            : siteValue(random));
        siteArrays[p][reals * stencil::storage_index(siteLattice, s) + part] =
            value;
        siteExact[p].push_back(value);
      }
    fields[p] = siteArrays[p].data();
  }

  // Links: random SU(N), rounded to T as the kernel reads them; compressed
  // links keep two rows and the reference rebuilds the third from them.
  std::vector<T> linkArray;
  std::vector<double> linksExact;
  if (info.links) {
    const int n = info.links->colours;
    const int stored = info.links->reals_per_link;
    stencil::GaugeField gauge;
    stencil::Status made = stencil::GaugeField::create(
        model.dims, extents.data(), n, gauge);
    if (!made.ok()) {
      result.launchMessage = made.message();
      return result;
    }
    stencil::Random linkRandom(seed ^ 0x5eedull);
    gauge.set_random(linkRandom);
    stencil::Lattice linkLattice = lattice;
    linkLattice.components = model.dims * stored;
    linkLattice.layout = info.links->layout;
    linkArray.resize(siteCount(extents) * model.dims * stored);
    linksExact.resize(siteCount(extents) * model.dims * 2 * n * n);
    for (std::int64_t s = 0; s < siteCount(extents); ++s)
      for (int mu = 0; mu < model.dims; ++mu) {
        const double *u = gauge.link(s, mu);
        double *exact = linksExact.data() + (s * model.dims + mu) * 2 * n * n;
        for (int k = 0; k < stored; ++k) {
          const T value = static_cast<T>(u[k]);
          linkArray[stencil::storage_index(
              linkLattice, (s * model.dims + mu) * stored + k)] = value;
          exact[k] = value;
        }
        if (stored == 2 * n * n)
          continue;
        // Row 2 = conj(row 0 x row 1), from the rounded rows.
        for (int j = 0; j < 3; ++j) {
          const int k = (j + 1) % 3, l = (j + 2) % 3;
          const std::complex<double> a(exact[2 * k], exact[2 * k + 1]);
          const std::complex<double> b(exact[2 * (3 + l)], exact[2 * (3 + l) + 1]);
          const std::complex<double> c(exact[2 * l], exact[2 * l + 1]);
          const std::complex<double> d(exact[2 * (3 + k)], exact[2 * (3 + k) + 1]);
          const std::complex<double> entry = std::conj(a * b - c * d);
          exact[2 * (6 + j)] = entry.real();
          exact[2 * (6 + j) + 1] = entry.imag();
        }
      }
    fields.push_back(linkArray.data());
  }
  // The clover term: random compact Hermitian blocks in T (the kernel does
  // not care where they come from), placed by the clover's layout; the
  // whole-lattice kernels read no inverse.
  std::vector<T> cloverArray;
  std::vector<double> cloverExact;
  if (info.clover) {
    const int reals = info.clover->reals_per_site;
    stencil::Lattice cloverLattice = lattice;
    cloverLattice.components = reals;
    cloverLattice.layout = info.clover->layout;
    cloverArray.resize(siteCount(extents) * reals);
    cloverExact.resize(cloverArray.size());
    for (std::int64_t i = 0; i < siteCount(extents) * reals; ++i) {
      const T value = static_cast<T>(uniform(random));
      cloverArray[stencil::storage_index(cloverLattice, i)] = value;
      cloverExact[i] = value;
    }
    fields.push_back(cloverArray.data());
    fields.push_back(nullptr);
  }

  auto start = std::chrono::steady_clock::now();
  stencil::GenericApply apply = adjoint ? info.apply_adjoint : info.apply;
  stencil::Status status = apply(out.data(), in.data(), extents.data(),
                                 params.data(), fields.data(), nullptr);
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  result.launched = status.ok();
  result.launchMessage = status.message();
  if (!status.ok())
    return result;

  std::vector<double> expected =
      referenceApply(model, paramsExact, siteExact, extents, inExact, adjoint,
                     linksExact, cloverExact);
  double maxReference = 0.0, maxError = 0.0;
  for (std::int64_t site = 0; site < siteCount(extents); ++site) {
    bool updated = isUpdated(model, extents, site);
    result.updatedSites += updated;
    for (int k = 0; k < nc; ++k) {
      std::int64_t i = site * nc + k;
      const double value = exactly(out[at(i)]);
      if (!updated) {
        if (isPoison(out[at(i)]))
          ++result.untouchedValues;
        else
          ++result.writtenHaloValues;
        continue;
      }
      if (!std::isfinite(value)) {
        ++result.unwrittenValues;
        continue;
      }
      maxReference = std::max(maxReference, std::fabs(expected[i]));
      maxError = std::max(maxError, std::fabs(value - expected[i]));
    }
  }
  result.maxRelativeError = maxReference > 0 ? maxError / maxReference : maxError;
  return result;
}

} // namespace

Verification verifyKernel(const stencil::KernelInfo &info,
                          const StencilModel &model, const Extents &extents,
                          std::uint64_t seed, bool adjoint) {
  if (info.element_bytes == 2)
    return verify<stencil::bfloat16, float>(info, model, extents, seed,
                                            adjoint);
  if (info.element_bytes == 4)
    return verify<float, float>(info, model, extents, seed, adjoint);
  return verify<double, double>(info, model, extents, seed, adjoint);
}

} // namespace testing
} // namespace stencilc
