// Every generated kernel, run on the host backend, against the independent
// double-precision reference: random input, poisoned output, extents that
// are not multiples of the block or the tile, halo left untouched, periodic
// wrap exact.
#include "HostFixtures.h"
#include "KernelRegistry.h"
#include "Verify.h"

#include "stencil/platform.hpp"

#include "check/Check.h"
#include "plan/ChooseOptions.h"
#include "plan/DeviceRules.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace stencilc;
using namespace stencilc::testing;

namespace {

/// The model as `stencilc generate` makes it: checked, then the kernel
/// options the spec leaves open chosen by the planner (for `device`: its
/// own choice, or the first device's with its rules, plannedModel).
StencilModel loadModel(const std::string &path,
                       const DeviceModel &device = *knownDevices().front()) {
  llvm::SourceMgr sourceMgr;
  std::string output;
  llvm::raw_string_ostream os(output);
  DiagnosticEngine diags(sourceMgr, os);
  std::optional<StencilModel> model = stencilc::loadModel(path, diags);
  os.flush();
  EXPECT_TRUE(model.has_value()) << output;
  if (!model)
    return StencilModel();
  return plannedModel(*model, device);
}

/// Another GPU's planner kernels (tune/DevicePlans.h): the spec with that
/// GPU's choice of its open options, and of that, the kernels named as the
/// registered ones.
StencilModel devicePlanModel(const RegisteredKernel &kernel) {
  const DeviceModel *device = findDevice(kernel.device);
  EXPECT_NE(device, nullptr) << kernel.device;
  if (!device)
    return StencilModel();
  const StencilModel model = loadModel(kernel.specPath, *device);
  StencilModel level = kernel.inner ? innerKernelsModel(model) : model;
  level.name += "_" + device->tag;
  std::vector<StencilModel> named = {
      plannerKernelsModel(level, level.kernel, level.name)};
  if (level.alongX)
    named.push_back(alongXVariantModel(level));
  if (level.largeAlongX)
    named.push_back(largeAlongXVariantModel(level));
  if (level.foldPass)
    named.push_back(foldPassVariantModel(level));
  for (const StencilModel &m : named)
    if (m.name == kernel.info->name)
      return m;
  ADD_FAILURE() << kernel.info->name << ": not among " << device->name
                << "'s planner kernels of " << kernel.specPath;
  return named.front();
}

/// The model of a registered kernel: its spec's, or for the planner's
/// second kernels (of the spec's precision or the inner one) their own.
StencilModel loadModel(const RegisteredKernel &kernel) {
  if (kernel.variant == PlannerVariant::Device)
    return devicePlanModel(kernel); // its own choice of the options
  StencilModel model = loadModel(kernel.specPath);
  if (kernel.inner)
    model = innerKernelsModel(model);
  switch (kernel.variant) {
  case PlannerVariant::None:
    return model;
  case PlannerVariant::AlongX:
    EXPECT_TRUE(model.alongX) << kernel.specPath;
    return model.alongX ? alongXVariantModel(model) : model;
  case PlannerVariant::LargeLattices:
    EXPECT_TRUE(model.largeAlongX) << kernel.specPath;
    return model.largeAlongX ? largeAlongXVariantModel(model) : model;
  case PlannerVariant::FoldPass:
    EXPECT_TRUE(model.foldPass) << kernel.specPath;
    return model.foldPass ? foldPassVariantModel(model) : model;
  case PlannerVariant::Device:
    break;
  }
  return model;
}

/// Extents to test for a grid of `dims` dimensions: none a multiple of a
/// block or a tile, plus small ones where the halo is most of the grid.
/// Even/odd fields take even extents along axes that wrap; the last ones
/// give them halves of 29, 30, 180, 144 and 24 sites, not multiples of the 32
/// of a run of their whole-lattice kernels (ThreadMappingKind::BothHalves).
std::vector<Extents> testExtents(int dims) {
  switch (dims) {
  case 1:
    return {{101, 1, 1, 1}, {7, 1, 1, 1}, {3, 1, 1, 1}, {58, 1, 1, 1}};
  case 2:
    return {{37, 29, 1, 1}, {5, 6, 1, 1}, {70, 3, 1, 1}, {37, 1, 1, 1},
            {16, 12, 1, 1}, {10, 6, 1, 1}};
  case 3:
    return {{37, 29, 23, 1}, {5, 4, 3, 1}, {9, 17, 6, 1}, {16, 12, 10, 1},
            {10, 6, 6, 1}};
  default:
    return {{6, 5, 7, 9}, {4, 3, 5, 4}, {3, 9, 2, 3}, {8, 4, 6, 4},
            {6, 4, 8, 10}, {8, 8, 8, 16}, {4, 2, 6, 6}, {6, 2, 2, 2}};
  }
}

std::string describe(const Extents &extents, int dims) {
  std::string text;
  for (int axis = 0; axis < dims; ++axis)
    text += (axis ? "x" : "") + std::to_string(extents[axis]);
  return text;
}

/// Whether an axis that wraps is shorter than the stencil's reach along it
/// (the launchers refuse such sizes).
bool shorterThanReach(const StencilModel &model, const Extents &extents) {
  for (int axis = 0; axis < model.dims; ++axis)
    if (model.wraps(axis) && extents[axis] < model.reach[axis])
      return true;
  return false;
}

/// Whether the kernel's layouts hold `extents`: the field's, then the link
/// array's and the clover term's, which have their own (blocks of sites);
/// the first refusal.
stencil::Status layoutsHold(const stencil::KernelInfo &info,
                            const StencilModel &model, const Extents &extents) {
  stencil::Status fits = stencil::check_layout(
      info.layout, model.dims, extents.data(), info.shape.boundary);
  if (fits.ok() && info.links)
    fits = stencil::check_layout(info.links->layout, model.dims,
                                 extents.data(), info.shape.boundary);
  if (fits.ok() && info.clover)
    fits = stencil::check_layout(info.clover->layout, model.dims,
                                 extents.data(), info.shape.boundary);
  return fits;
}

class HostKernel : public ::testing::TestWithParam<size_t> {
protected:
  const RegisteredKernel &kernel() const {
    return kernelsWithPlannerVariants()[GetParam()];
  }
};

class HostKernelRole
    : public ::testing::TestWithParam<std::tuple<size_t, bool>> {};

TEST_P(HostKernelRole, MatchesTheNaiveReference) {
  const auto [index, adjoint] = GetParam();
  const stencil::KernelInfo &info = *kernelsWithPlannerVariants()[index].info;
  StencilModel model = loadModel(kernelsWithPlannerVariants()[index]);
  // Kernels with aligned groups of sites along x take only nx that are
  // multiples of the group: others are refused with the reason, and the
  // size is tried again rounded up.
  const int group = info.shape.x_width;
  std::vector<Extents> sizes;
  for (Extents extents : testExtents(model.dims)) {
    if (group > 1 && extents[0] % group != 0) {
      SCOPED_TRACE(describe(extents, model.dims));
      std::vector<double> buffer(siteCount(extents) + group, 1.0);
      std::vector<double> other(buffer.size());
      std::vector<double> params(model.parameters.size() + 1, 1.0);
      std::vector<const void *> fields(model.parameters.size() + 3,
                                       buffer.data());
      stencil::Status status =
          info.apply(other.data(), buffer.data(), extents.data(),
                     params.data(), fields.data(), nullptr);
      EXPECT_FALSE(status.ok());
      EXPECT_NE(status.message().find(
                    "extent nx = " + std::to_string(extents[0]) +
                    " is not a multiple of " + std::to_string(group)),
                std::string::npos)
          << status.message();
      extents[0] += group - extents[0] % group;
    }
    sizes.push_back(extents);
  }
  EXPECT_EQ(group, model.sitesPerThreadX());
  for (const Extents &extents : sizes) {
    SCOPED_TRACE(describe(extents, model.dims) +
                 (adjoint ? " adjoint" : " apply"));
    const bool tooSmall = shorterThanReach(model, extents);
    const stencil::Status fits = layoutsHold(info, model, extents);
    if (!fits.ok()) {
      // Sizes the layout cannot hold are refused with the reason.
      std::vector<double> buffer(siteCount(extents) * model.components);
      std::vector<double> params(model.parameters.size() + 1, 1.0);
      std::vector<const void *> fields(model.parameters.size() + 3,
                                       buffer.data());
      std::vector<double> other(buffer.size());
      stencil::Status status = info.apply(other.data(), buffer.data(),
                                          extents.data(), params.data(),
                                          fields.data(), nullptr);
      EXPECT_FALSE(status.ok());
      EXPECT_NE(status.message().find(fits.message()), std::string::npos)
          << status.message();
      continue;
    }
    Verification result =
        verifyKernel(info, model, extents, 1234 + index, adjoint);
    if (tooSmall) {
      EXPECT_FALSE(result.launched);
      EXPECT_NE(result.launchMessage.find("smaller than the stencil's reach"),
                std::string::npos)
          << result.launchMessage;
      continue;
    }
    ASSERT_TRUE(result.launched) << result.launchMessage;
    EXPECT_EQ(result.writtenHaloValues, 0) << "halo values were written";
    EXPECT_EQ(result.unwrittenValues, 0) << "updated values left unwritten";
    EXPECT_LT(result.maxRelativeError, result.tolerance);
    if (model.allWrap())
      EXPECT_EQ(result.untouchedValues, 0);
    std::int64_t expectedUpdated = 1;
    for (int axis = 0; axis < model.dims; ++axis)
      expectedUpdated *=
          model.wraps(axis)
              ? extents[axis]
              : std::max(0, extents[axis] - 2 * model.reach[axis]);
    EXPECT_EQ(result.updatedSites, expectedUpdated);
    RecordProperty("max_relative_error_" + describe(extents, model.dims),
                   std::to_string(result.maxRelativeError));
  }
}

TEST_P(HostKernel, DescriptorAgreesWithTheSpec) {
  const stencil::KernelInfo &info = *kernel().info;
  StencilModel model = loadModel(kernel());
  EXPECT_EQ(info.name, model.name);
  EXPECT_EQ(info.spec_file, llvm::sys::path::filename(kernel().specPath).str());
  EXPECT_EQ(info.shape.dims, model.dims);
  for (int axis = 0; axis < model.dims; ++axis)
    EXPECT_EQ(info.shape.boundary[axis],
              static_cast<int>(model.boundaries[axis]));
  EXPECT_EQ(info.components, model.components);
  EXPECT_EQ(info.element_bytes, model.elementBytes());
  ASSERT_EQ(info.num_taps, static_cast<int>(model.taps.size()));
  ASSERT_EQ(info.num_params, static_cast<int>(model.parameters.size()));
  std::vector<double> defaults;
  for (const Parameter &p : model.parameters)
    defaults.push_back(p.defaultValue);
  for (int t = 0; t < info.num_taps; ++t) {
    for (int axis = 0; axis < stencil::kMaxDims; ++axis)
      EXPECT_EQ(info.tap_offsets[t][axis], model.taps[t].offset[axis]);
    // Scalars through tap_factors, fields through field_terms.
    double value = info.tap_constants[t];
    Coefficient scalars = model.taps[t].coefficient, fields;
    scalars.terms.clear();
    for (const CoefficientTerm &term : model.taps[t].coefficient.terms)
      (model.parameters[term.parameter].site ? fields : scalars)
          .terms.push_back(term);
    for (int p = 0; p < info.num_params; ++p)
      value += info.tap_factors[t * info.num_params + p] * defaults[p];
    EXPECT_DOUBLE_EQ(value, scalars.evaluate(defaults));
    Coefficient listed;
    for (int i = 0; i < info.num_field_terms; ++i) {
      const stencil::FieldTerm &term = info.field_terms[i];
      if (term.tap != t)
        continue;
      Offset shift{};
      std::copy(term.shift, term.shift + stencil::kMaxDims, shift.begin());
      listed.terms.push_back({term.param, term.factor, shift, term.conjugate});
    }
    EXPECT_TRUE(sameCoefficient(listed, fields))
        << "tap " << t << ": field_terms disagree with the spec";
  }
  for (int p = 0; p < info.num_params; ++p)
    EXPECT_EQ(stencil::is_complex_parameter(info, p),
              model.parameters[p].complex)
        << "parameter " << model.parameters[p].name;
  for (int axis = 0; axis < model.dims; ++axis) {
    EXPECT_EQ(info.shape.reach[axis], model.reach[axis]);
    EXPECT_EQ(info.shape.block[axis], model.kernel.block[axis]);
  }
}

TEST_P(HostKernel, RejectsAliasedAndBadArguments) {
  const stencil::KernelInfo &info = *kernel().info;
  std::vector<int> extents(stencil::kMaxDims, 8);
  std::vector<double> params(info.num_params + 1, 1.0);
  std::vector<double> storage(8 * 8 * 8 * 8 * info.components, 1.0);
  std::vector<double> siteArray(2 * 8 * 8 * 8 * 8, 1.0);
  std::vector<const void *> fields(info.num_params + 1, siteArray.data());
  stencil::Status aliased =
      info.apply(storage.data(), storage.data(), extents.data(), params.data(),
                 fields.data(), nullptr);
  EXPECT_FALSE(aliased.ok());
  EXPECT_NE(aliased.message().find("overlap"), std::string::npos)
      << aliased.message();

  std::vector<double> other(storage.size());
  if (info.shape.x_width > 1) {
    // Vector accesses need aligned fields: one element off is refused.
    const auto *bytes = reinterpret_cast<const char *>(storage.data());
    stencil::Status misaligned = info.apply(
        other.data(), bytes + info.element_bytes, extents.data(),
        params.data(), fields.data(), nullptr);
    EXPECT_FALSE(misaligned.ok());
    EXPECT_NE(misaligned.message().find("'out' and 'in' must be aligned to " +
                                        std::to_string(info.shape.x_width *
                                                       info.element_bytes) +
                                        " bytes"),
              std::string::npos)
        << misaligned.message();
  }
  if (info.layout.vector > 1 && info.links == nullptr) {
    // Groups of a site's values (field.layout.vector) move with one access
    // each: one element off is refused by the whole-lattice launch and by
    // the hops.
    const auto *bytes = reinterpret_cast<const char *>(storage.data());
    const std::string expected =
        " must be aligned to " +
        std::to_string(info.layout.vector * info.element_bytes) +
        " bytes for the " +
        std::to_string(info.layout.vector * info.element_bytes) +
        "-byte accesses of field.layout.vector " +
        std::to_string(info.layout.vector);
    stencil::Status misaligned =
        info.apply(other.data(), bytes + info.element_bytes, extents.data(),
                   params.data(), fields.data(), nullptr);
    EXPECT_FALSE(misaligned.ok());
    EXPECT_NE(misaligned.message().find(expected), std::string::npos)
        << misaligned.message();
    if (info.even_odd != nullptr) {
      stencil::Status hop = info.even_odd->even_to_odd(
          other.data(), bytes + info.element_bytes, nullptr, stencil::kHop, 0.0,
          1.0, extents.data(), params.data(), fields.data(), nullptr);
      EXPECT_FALSE(hop.ok());
      EXPECT_NE(hop.message().find(expected), std::string::npos)
          << hop.message();
    }
  }

  extents[0] = 0;
  stencil::Status empty =
      info.apply(other.data(), storage.data(), extents.data(), params.data(),
                 fields.data(), nullptr);
  EXPECT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("extent nx = 0 is out of range"),
            std::string::npos)
      << empty.message();
}

std::string kernelName(const ::testing::TestParamInfo<size_t> &info) {
  return kernelsWithPlannerVariants()[info.param].info->name;
}

INSTANTIATE_TEST_SUITE_P(
    AllSpecs, HostKernel,
    ::testing::Range<size_t>(0, kernelsWithPlannerVariants().size()),
    kernelName);

std::string kernelRoleName(
    const ::testing::TestParamInfo<std::tuple<size_t, bool>> &info) {
  return std::string(
             kernelsWithPlannerVariants()[std::get<0>(info.param)].info->name) +
         (std::get<1>(info.param) ? "_adjoint" : "_apply");
}

INSTANTIATE_TEST_SUITE_P(
    AllSpecs, HostKernelRole,
    ::testing::Combine(
        ::testing::Range<size_t>(0, kernelsWithPlannerVariants().size()),
        ::testing::Bool()),
    kernelRoleName);

// The GPUs' tuning-cache entries compiled into the shipped kernels
// (NAME_tunedN, the runtime's choice on that GPU at that size) compute the
// spec's operator too: A and A^T of each against the reference, at the
// test sizes its layouts hold, nx rounded up to its group along x.
// (stencil_bench checks them on their GPU against the naive kernels.)
// Entries on bfloat16 fields too: their inputs rounded to bfloat16 and
// their links and clover terms to float, as the kernels read them, and
// their outputs within a bfloat16 step of the largest value.
TEST(HostKernelEntries, EveryDeviceEntryMatchesTheNaiveReference) {
  int checked = 0, bfloat16 = 0;
  for (const RegisteredKernel &registered : registeredKernels()) {
    if (registered.variant != PlannerVariant::None || registered.inner)
      continue;
    const StencilModel specModel = loadModel(registered.specPath);
    std::vector<std::pair<const stencil::KernelInfo *, StencilModel>> levels =
        {{registered.info, specModel}};
    if (registered.info->inner)
      levels.push_back(
          {&registered.info->inner(), innerKernelsModel(specModel)});
    for (const auto &[spec, model] : levels) {
      for (int i = 0; i < spec->num_tuned; ++i) {
        const stencil::TunedChoice &choice = spec->tuned[i];
        if (!choice.device)
          continue;
        const stencil::KernelInfo &entry = choice.info();
        bfloat16 += entry.element_bytes == 2;
        SCOPED_TRACE(std::string(entry.name) + " (" + choice.device + ")");
        const int group = entry.shape.x_width;
        int sizes = 0;
        for (Extents extents : testExtents(model.dims)) {
          extents[0] += (group - extents[0] % group) % group;
          if (shorterThanReach(model, extents) ||
              !layoutsHold(entry, model, extents).ok())
            continue;
          for (bool adjoint : {false, true}) {
            SCOPED_TRACE(describe(extents, model.dims) +
                         (adjoint ? " adjoint" : " apply"));
            const Verification result =
                verifyKernel(entry, model, extents, 4321 + i, adjoint);
            ASSERT_TRUE(result.launched) << result.launchMessage;
            EXPECT_EQ(result.writtenHaloValues, 0);
            EXPECT_EQ(result.unwrittenValues, 0);
            EXPECT_LT(result.maxRelativeError, result.tolerance);
          }
          if (++sizes == 2)
            break;
        }
        EXPECT_GT(sizes, 0) << "no test size fits";
        ++checked;
      }
    }
  }
  std::printf("%d device entries checked (%d on bfloat16 fields)\n", checked,
              bfloat16);
  EXPECT_GT(checked, 0) << "no shipped spec has a device's entry";
  // laplacian3d_f64_bf16's inner entry (wilson_clover4d_eo_f64_bf16's H100
  // inner entry went with its site-major spinors; its kernels in blocks of
  // 32 sites are the HostKernelRole cases).
  EXPECT_GE(bfloat16, 1);
}

// A march that reads its planes at 32-bit offsets from them (a site-major
// field moved one vector a tap) refuses a lattice whose plane holds more
// than 2^31 - 1 values, in each launcher, before the launch: the fields
// here are addresses far apart, never read. 4-D: t_march_vec4d_aos_c8_v4
// (8 floats a site), 1024 x 1024 x 257 sites a plane; 3-D:
// t_march_vec3d_c2_dz (2 doubles), 33000 x 33000.
TEST(HostBackend, MarchColumnOffsetsRefuseHugePlanes) {
  struct Case {
    const char *name;
    std::vector<int> extents;
    const char *plane;
    int values;
  } cases[] = {
      {"t_march_vec4d_aos_c8_v4", {1024, 1024, 257, 3}, "nx x ny x nz", 8},
      {"t_march_vec3d_c2_dz", {33000, 33000, 5}, "nx x ny", 2}};
  auto at = [](int bit) {
    return reinterpret_cast<void *>(std::uintptr_t{1} << bit);
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    const stencil::KernelInfo &info = kernelNamed(c.name);
    ASSERT_NE(info.apply_dot, nullptr);
    ASSERT_NE(info.apply_fold_dot, nullptr);
    std::vector<double> params(info.num_params + 1, 0.5);
    std::vector<const void *> fields(info.num_params + 1, nullptr);
    const int *n = c.extents.data();
    const std::string expected =
        std::string(c.name) + ": the marching kernel reads a plane (" +
        c.plane + " sites, " + std::to_string(c.values) +
        " values each) at 32-bit offsets, and this lattice's plane holds more "
        "than 2^31 - 1 values";
    double partials[1] = {0.0}, beta = 0.5, alpha = 0.5;
    const stencil::Status statuses[] = {
        info.apply(at(40), at(44), n, params.data(), fields.data(), nullptr),
        info.apply_adjoint(at(40), at(44), n, params.data(), fields.data(),
                           nullptr),
        info.apply_dot(at(40), at(44), n, params.data(), fields.data(),
                       partials, nullptr),
        info.apply_fold_dot(at(40), at(41), at(44), at(45), &beta, nullptr,
                            &alpha, n, params.data(), fields.data(), partials,
                            nullptr)};
    for (const stencil::Status &status : statuses) {
      EXPECT_FALSE(status.ok());
      EXPECT_NE(status.message().find(expected), std::string::npos)
          << status.message();
    }
  }
}

// kernel.march: a block's chunk of planes fills about two whole waves of
// the device's resident blocks, at least 8 planes where there are as many;
// without a residency (the host backend) each column is walked whole, and
// STENCILC_MARCH_PLANES overrides the choice.
TEST(HostBackend, MarchPlanesFillWholeWaves) {
  // 510 planes of a 512^3 lattice; 1584 resident blocks (12 a multiprocessor
  // on 132): 12 chunks over 256 columns, 6 over 512.
  EXPECT_EQ(stencil::march_planes(510, 256, 1584, 0), 43);
  EXPECT_EQ(stencil::march_planes(510, 512, 1584, 0), 85);
  EXPECT_EQ(stencil::march_planes(510, 1 << 20, 1584, 0), 510);
  EXPECT_EQ(stencil::march_planes(100, 4, 1584, 0), 8);
  EXPECT_EQ(stencil::march_planes(5, 4, 1584, 0), 5);
  EXPECT_EQ(stencil::march_planes(17, 4, 0, 0), 17);
  EXPECT_EQ(stencil::march_planes(510, 256, 1584, 7), 7);
  EXPECT_EQ(stencil::march_planes(5, 256, 1584, 7), 5);
  // The grid follows: one block along z per chunk, the chunk passed on.
  stencil::StencilShape shape = {3, {0, 0, 0, 0}, {1, 1, 1, 0}, {32, 8, 1, 1},
                                 2, 1, 4, 1, 0, 1};
  const int n[stencil::kMaxDims] = {512, 512, 512, 1};
  stencil::LaunchConfig config;
  const char *before = std::getenv("STENCILC_MARCH_PLANES");
  const std::string saved = before ? before : "";
  unsetenv("STENCILC_MARCH_PLANES");
  ASSERT_TRUE(stencil::make_launch_config(shape, n, config, 1584).ok());
  EXPECT_EQ(config.planes, 43);
  EXPECT_EQ(config.grid.x, 4u);
  EXPECT_EQ(config.grid.y, 64u);
  EXPECT_EQ(config.grid.z, 12u);
  setenv("STENCILC_MARCH_PLANES", "100", 1);
  ASSERT_TRUE(stencil::make_launch_config(shape, n, config, 1584).ok());
  EXPECT_EQ(config.planes, 100);
  EXPECT_EQ(config.grid.z, 6u);
  for (const char *bad : {"0", "-3", "12x", "many"}) {
    setenv("STENCILC_MARCH_PLANES", bad, 1);
    const stencil::Status status =
        stencil::make_launch_config(shape, n, config, 1584);
    EXPECT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.message().find(std::string("STENCILC_MARCH_PLANES='") +
                                    bad + "'"),
              std::string::npos)
        << status.message();
  }
  // A 4-D march along t (laplacian4d_periodic_march at 64^3 x 128: 512
  // columns, 528 resident blocks): the fewest chunks that fill whole waves,
  // here one chunk of 0.97 waves; the chunks follow t in blockIdx.z, with
  // z's blocks.
  unsetenv("STENCILC_MARCH_PLANES");
  auto grid = [](const stencil::StencilShape &shape, const int *extents,
                 std::int64_t resident) {
    stencil::LaunchConfig marched;
    EXPECT_TRUE(
        stencil::make_launch_config(shape, extents, marched, resident).ok());
    return marched;
  };
  const stencil::StencilShape periodic = {
      4, {1, 1, 1, 1}, {1, 1, 1, 1}, {32, 4, 2, 1}, 3, 1, 2, 1, 0, 1};
  const int n4[stencil::kMaxDims] = {64, 64, 64, 128};
  config = grid(periodic, n4, 528);
  EXPECT_EQ(config.planes, 128);
  EXPECT_EQ(config.grid.z, 32u);
  EXPECT_EQ(config.blocks_z, 32u);
  config = grid(periodic, n4, 1056);
  EXPECT_EQ(config.planes, 64); // two chunks: 1024 of 1056 blocks
  EXPECT_EQ(config.grid.z, 64u);
  // A site's components over 6 threads (6 blocks along x side by side):
  // they are columns too, 1536 of them at 32^3 x 64 with 32x2x2 threads.
  const stencil::StencilShape shared = {
      4, {1, 1, 1, 1}, {1, 1, 1, 1}, {32, 2, 2, 1}, 3, 1, 1, 6, 0, 1};
  const int n24[stencil::kMaxDims] = {32, 32, 32, 64};
  config = grid(shared, n24, 1188);
  EXPECT_EQ(config.planes, 22);
  EXPECT_EQ(config.grid.x, 6u);
  EXPECT_EQ(config.grid.z, 48u); // 16 blocks along z, 3 chunks
  // A lattice no GPU launches (2^30 sites along x, y and z: about 2^81
  // columns, which the chunk's sizing saturates at 2^40) is refused by the
  // grid limits; so many columns take the whole march axis in one chunk.
  const int huge[stencil::kMaxDims] = {1 << 30, 1 << 30, 1 << 30, 64};
  stencil::LaunchConfig refused;
  const stencil::Status status =
      stencil::make_launch_config(periodic, huge, refused, 528);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("exceeds the GPU limits"), std::string::npos)
      << status.message();
  EXPECT_EQ(stencil::march_planes(64, 1LL << 40, 528, 0,
                                  stencil::MarchWaves::FewestWhole),
            64);
  if (before)
    setenv("STENCILC_MARCH_PLANES", saved.c_str(), 1);
  else
    unsetenv("STENCILC_MARCH_PLANES");
}

// The 4-D rule: the fewest chunks whose grid fills 0.75 to 1 wave, or more
// waves with the last at least 90% full; failing that, the grid whose last
// wave is fullest (up to 8 waves, chunks of at least 8 planes).
TEST(HostBackend, MarchPlanesAlongTFillTheLastWave) {
  using stencil::MarchWaves;
  const MarchWaves rule = MarchWaves::FewestWhole;
  EXPECT_EQ(stencil::march_planes(128, 512, 528, 0, rule), 128); // 0.97
  EXPECT_EQ(stencil::march_planes(128, 256, 528, 0, rule), 64);  // 2 x 0.48
  // 700 columns: 1.33 and 2.65 waves leave the last one short; 3 chunks of
  // 22 planes make 3.98.
  EXPECT_EQ(stencil::march_planes(64, 700, 528, 0, rule), 22);
  EXPECT_EQ(stencil::march_planes(64, 700, 528, 0, MarchWaves::Two), 64);
  // 1536 columns (a 24-float site over 6 threads), 1188 resident blocks:
  // 1.29, 2.59, 3.88, 5.17, 6.46 and 7.76 waves leave the last one short;
  // the fullest is 3.88 waves' (22 planes), not one chunk of 1.29 waves.
  EXPECT_EQ(stencil::march_planes(64, 1536, 1188, 0, rule), 22);
  // 16 columns need 25 chunks for 0.75 waves: under 8 planes; the most
  // chunks of 8 planes fill the wave most.
  EXPECT_EQ(stencil::march_planes(128, 16, 528, 0, rule), 8);
  EXPECT_EQ(stencil::march_planes(128, 16, 0, 0, rule), 128);
  EXPECT_EQ(stencil::march_planes(128, 512, 528, 5, rule), 5);
}

TEST(HostBackend, LaunchCoversAnyGrid) {
  // The launch helper runs each (block, thread) exactly once.
  std::vector<int> hits(5 * 3 * 2 * 4 * 2 * 3, 0);
  auto kernel = [](int *counts) {
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned thread =
        threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    counts[block * blockDim.x * blockDim.y * blockDim.z + thread] += 1;
  };
  stencil::host::launch(kernel, stencil::LaunchDims{5, 3, 2},
                        stencil::LaunchDims{4, 2, 3}, hits.data());
  for (int count : hits)
    EXPECT_EQ(count, 1);
}

} // namespace
