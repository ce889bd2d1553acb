//===- DeviceRules.cpp - A GPU's rules where its model is unfit -----------===//

#include "plan/DeviceRules.h"

#include "check/Check.h"
#include "plan/ChooseOptions.h"
#include "plan/MarchRules.h"
#include "plan/Plan.h"

#include "llvm/ADT/STLExtras.h"

namespace stencilc {

namespace {

/// The largest site the rule for vector sites changes. It gained on sites
/// of 16 to 48 bytes (4 to 12 floats, 6 doubles); on the 96-byte site of
/// laplacian4d_vec12_f64 (12 doubles) it changed nothing: -0.1% and +1.0%
/// with the spec's block (32x4x2x1, 2 blocks an SM), +0.4% and -0.8% with
/// the H100's choice for every option open (32x2x2x1, tile y x 2, 4 an
/// SM), at 32^3 x 64 and 24^3 x 48 (docs/results/tune-h200-rule-
/// laplacian4d_vec12_f64*.json).
constexpr int kRuleSiteBytes = 48;

KernelOptionNote *findNote(StencilModel &m, const std::string &option) {
  auto it = llvm::find_if(m.optionNotes, [&](const KernelOptionNote &note) {
    return note.option == option;
  });
  return it == m.optionNotes.end() ? nullptr : &*it;
}

/// The note's value set to the rule's, its reason the rule's with the
/// first device's choice after it.
void noteRule(StencilModel &m, const std::string &option,
              const std::string &value, const std::string &reason) {
  KernelOptionNote *note = findNote(m, option);
  if (!note)
    return;
  note->reason = reason + " (the cost model of " +
                 knownDevices().front()->name + " chose " + note->value + ": " +
                 note->reason + ")";
  note->value = value;
}

} // namespace

/// Where the rule applies: 4-D fields of several values a site in plain
/// site-major storage (not even/odd, no subdomains), without links or an
/// inner precision, whose kernels move vectors of 2 or 4 values, do not
/// march or stage and leave the launch bounds and the resident minimum
/// open. Single values a load were measured worse with it: whole 6-float
/// sites so with 4 blocks an SM at 1652-1660 GB/s against 1780-1786 for
/// the H100's 2 floats a thread, and the minimum alone 0.5-3% slower
/// (docs/results/tune-h200-heldout-h_lap4d_c6_f32_dirichlet.json). The
/// H100's choice for them gives blocks of 128 or 256 threads no minimum
/// and, for 6 values a site, shares of one 8-byte vector (a float site
/// over 3 threads).
///
/// On an H200 (the tuner, 32^3 x 64) those choices ran at 1879, 2714 and
/// 1413 GB/s in the first searches (docs/results/tune-h200-heldout-
/// h_lap4d_c6_f32_dirichlet.json, -h_lap4d_c6_f64.json,
/// -h_star4d_c6_f32_dirichlet.json); the same blocks and tiles with 512
/// resident threads and a thread moving 16 bytes or a whole site at 2072,
/// 2840 and 1506, 4.6-10.2% faster (90.7, 91.5 and 90.9% of each search's
/// best before; 100, 95.8 and 96.9% after). A second call timed both side
/// by side: 1814 -> 1983, 2664 -> 2840, 1377 -> 1435 (+9.3, +6.6, +4.2%;
/// the same files' -rule.json). Over the held-out 4-D searches of
/// 2026-12-02 before these (no -rule or -marchmins), 512 resident threads
/// (minimum 4) gained in 199 of 264 pairs of unmarched 128-thread kernels
/// otherwise the same, median +2.3%: nvcc then issues a thread's loads
/// before its sums (12 of 48 outstanding in 44 registers without, all 48
/// in 110 with; docs/results/sass-loads-outstanding-sm90.txt). The
/// exceptions: whole
/// sites of 10 floats lost 3-6% with it (unmarched; the H100's choice for
/// them moves 8-byte shares, which gained 1-4%, and whole sites with the
/// minimum still ran 5-8% faster than those without it).
std::optional<DeviceRule> residentVectorSites(const StencilModel &chosen,
                                              const DeviceModel &device) {
  const KernelOptions &k = chosen.kernel;
  const int resident = device.vectorSiteResidentThreads;
  if (resident == 0 || chosen.dims != 4 || chosen.components == 1 ||
      !chosen.layout.isPlain() || chosen.hasLinkTaps() || chosen.hasInner ||
      k.vectorWidth < 2 || k.march || k.staging != Staging::Registers ||
      k.written.launchBounds || k.written.minBlocksPerSm ||
      k.minBlocksPerSm != 0 || k.threadsPerBlock() > resident ||
      chosen.components * chosen.elementBytes() > kRuleSiteBytes)
    return std::nullopt;
  StencilModel m = chosen;
  KernelOptions &rule = m.kernel;
  rule.minBlocksPerSm = resident / k.threadsPerBlock();
  const int bytes = chosen.componentsPerThread() * chosen.elementBytes();
  DeviceRule result;
  if (!k.written.componentsPerThread && bytes < 16) {
    const int share = wholeVectorShare(chosen);
    if (share > chosen.componentsPerThread()) {
      rule.componentsPerThread = share;
      result.share = std::to_string(share) + " values (" +
                     std::to_string(share * chosen.elementBytes()) +
                     " bytes) a thread a tap, the fewest whole vectors of " +
                     std::to_string(k.vectorWidth) +
                     " that move 16 bytes, in place of shares of " +
                     std::to_string(bytes) + " bytes";
    }
  }
  if (!optionsAdmissible(m))
    return std::nullopt;
  result.options = rule;
  const int threads = rule.minBlocksPerSm * rule.threadsPerBlock();
  result.minimum = std::to_string(threads) +
                   " threads resident an SM, at most " +
                   std::to_string(kRegistersPerMultiprocessor / threads) +
                   " registers a thread: nvcc then issues a thread's loads "
                   "before its sums";
  return result;
}

bool applyDeviceRules(StencilModel &chosen, const DeviceModel &device) {
  std::optional<DeviceRule> rule = residentVectorSites(chosen, device);
  if (!rule)
    return false;
  // CG's fold pass keeps the first device's kernels: the rule was measured
  // on apply only. Where those are the apply kernels, the spec's own run it
  // (the note names them: on this GPU the kernels chosen for apply are
  // NAME_<tag>'s).
  if (!chosen.foldPass && planFoldPass(chosen)) {
    chosen.foldPass = chosen.kernel;
    if (KernelOptionNote *fold = findNote(chosen, "fold_pass"))
      fold->value = chosen.name + "'s kernels";
  }
  const std::string whose = "a rule of " + device.name +
                            ", whose cost model was not fitted to vector "
                            "fields, for unmarched site-major kernels: ";
  const std::string measured =
      "; on that GPU 4-D fields of 6 values a site ran 4.2-10.2% faster so";
  if (!rule->share.empty())
    noteRule(chosen, "components_per_thread",
             std::to_string(rule->options.componentsPerThread),
             whose + rule->share + measured);
  noteRule(chosen, "min_blocks_per_sm",
           std::to_string(rule->options.minBlocksPerSm),
           whose + rule->minimum + measured);
  if (KernelOptionNote *fold = findNote(chosen, "fold_pass"))
    fold->reason += "; on " + device.name + " CG's fold pass runs " +
                    knownDevices().front()->name + "'s choice (" + device.name +
                    "'s rule for vector sites was measured on apply only)";
  chosen.kernel = rule->options;
  return true;
}

const DeviceModel &plannedFor(const StencilModel &open,
                              const DeviceModel &device) {
  const DeviceModel &first = *knownDevices().front();
  return &device == &first || device.fitted(open) ? device : first;
}

StencilModel plannedModel(const StencilModel &open, const DeviceModel &device,
                          bool *changedByRules) {
  StencilModel m = open;
  const DeviceModel &planner = plannedFor(open, device);
  chooseOpenOptions(m, planner);
  const bool ruled = &planner != &device && applyDeviceRules(m, device);
  if (changedByRules)
    *changedByRules = ruled;
  return m;
}

} // namespace stencilc
