//===- TuningCache.cpp - The tuning cache: best kernel options per device -===//
#include "tune/TuningCache.h"

#include "check/Check.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <cmath>

using namespace llvm;

namespace stencilc {

std::string stencilFingerprint(const StencilModel &model) {
  std::string text = std::to_string(model.dims) + "|" +
                     boundaryText(model) + "|" +
                     precisionName(model.precision) + "|" +
                     std::to_string(model.components) + "|" +
                     (model.layout.evenOdd ? "eo" : "whole");
  for (const Parameter &p : model.parameters)
    text += "|p:" + p.name + (p.site ? ":site" : "") +
            (p.complex ? ":complex" : "");
  for (const Tap &tap : model.taps) {
    text += "|t:" + formatOffset(tap.offset, model.dims) + "=" +
            shortestNumberText(tap.coefficient.constant);
    for (const CoefficientTerm &term : tap.coefficient.terms)
      text += "+" + shortestNumberText(term.factor) + "*" +
              model.parameters[term.parameter].name + shiftText(term.shift) +
              (term.conjugate ? "~conj" : "");
  }
  // Complex values and links change what is computed; the links' storage
  // is a tuning option.
  if (model.complexValues) {
    text += "|complex";
    for (int extent : model.shape)
      text += ":" + std::to_string(extent);
  }
  if (model.hasLinkTaps()) {
    text += "|links:" + std::to_string(model.links.colours) + ":" +
            linkCompressionName(model.links.compression);
    for (const Tap &tap : model.taps)
      text += std::string(tap.link ? "L" : "-") +
              (tap.spin < 0 ? "s-" : tap.spin > 0 ? "s+" : "") +
              (tap.clover ? "C" : "");
  }
  // The clover term's c_sw (its storage is a tuning option).
  if (model.hasCloverTap()) {
    text += "|clover:" + shortestNumberText(model.clover.csw.constant);
    for (const CoefficientTerm &term : model.clover.csw.terms)
      text += "+" + shortestNumberText(term.factor) + "*" +
              model.parameters[term.parameter].name;
  }
  return utohexstr(xxHash64(text), /*LowerCase=*/true, /*Width=*/16);
}

namespace {

std::string layoutText(const FieldLayout &l) {
  const std::string vector =
      l.vector > 1 ? ":v" + std::to_string(l.vector) : std::string();
  switch (l.order) {
  case LayoutOrder::SiteMajor:
    return "aos";
  case LayoutOrder::ComponentMajor:
    return "soa" + vector;
  case LayoutOrder::Blocked:
    return "aosoa:" + std::to_string(l.block) + vector;
  }
  return "aos";
}

Error bad(StringRef item, const Twine &why) {
  return createStringError(inconvertibleErrorCode(), "'%s': %s",
                           item.str().c_str(), why.str().c_str());
}

bool parseInt(StringRef text, int &value) {
  return !text.trim().getAsInteger(10, value);
}

/// aos, soa or aosoa:N, the last two optionally followed by :vV (V values
/// per load), into `order`, `block` and `vector`.
bool parseLayoutOrder(StringRef value, LayoutOrder &order, int &block,
                      int &vector) {
  vector = 1;
  if (size_t colon = value.rfind(":v"); colon != StringRef::npos) {
    if (!parseInt(value.substr(colon + 2), vector) ||
        (vector != 2 && vector != 4))
      return false;
    value = value.take_front(colon);
    if (value == "aos")
      return false;
  }
  if (value == "aos" || value == "soa") {
    order = value == "aos" ? LayoutOrder::SiteMajor
                           : LayoutOrder::ComponentMajor;
    block = 1;
    return true;
  }
  int n = 0;
  if (value.consume_front("aosoa:") && parseInt(value, n) && n >= 1 &&
      n <= 1024) {
    order = LayoutOrder::Blocked;
    block = n;
    return true;
  }
  return false;
}

} // namespace

std::string storageOptionsText(const StencilModel &model) {
  return "layout=" + layoutText(model.layout) +
         (model.hasLinkTaps()
              ? "; links=" + layoutText(model.links.storageOrder())
              : std::string()) +
         (model.hasCloverTap()
              ? "; clover=" + layoutText(model.clover.storageOrder())
              : std::string());
}

std::string tuningOptionsText(const StencilModel &model) {
  const KernelOptions &k = model.kernel;
  const std::string block = blockShapeText(model);
  std::string order = k.loadOrder == LoadOrder::Explicit
                          ? "spec"
                          : loadOrderName(k.loadOrder);
  return "block=" + block + "; tile=" + axisName(k.tileAxis) +
         std::to_string(k.tileFactor) + "; order=" + order +
         "; stores=" + (k.nontemporalStore ? "nontemporal" : "regular") +
         "; launch_bounds=" + std::to_string(k.launchBounds) +
         // Written only when set, as components_per_thread below.
         (k.minBlocksPerSm
              ? "; min_blocks_per_sm=" + std::to_string(k.minBlocksPerSm)
              : std::string()) +
         "; layout=" + layoutText(model.layout) +
         "; vector_width=" + std::to_string(k.vectorWidth) +
         // Written only for a split, so that entries from before the option
         // read back unchanged: absent means all of a site's components.
         (model.componentGroups() > 1
              ? "; components_per_thread=" +
                    std::to_string(model.componentsPerThread())
              : std::string()) +
         (model.hasLinkTaps()
              ? "; links=" + layoutText(model.links.storageOrder())
              : std::string()) +
         (model.hasCloverTap()
              ? "; clover=" + layoutText(model.clover.storageOrder())
              : std::string()) +
         // Written only when not auto, the default (entries from before
         // the option read back as auto).
         (model.layout.evenOdd && model.kernel.slab != KernelOptions::kSlabAuto
              ? "; slab=" + slabText(model.kernel.slab)
              : std::string()) +
         // Last, and only when shared: entries from before the option read
         // back as registers.
         (model.kernel.staging == Staging::Shared ? "; staging=shared"
                                                  : std::string()) +
         // Only when on, as staging.
         (model.kernel.march ? "; march=on" : std::string());
}

Expected<StencilModel> withTuningOptions(const StencilModel &model,
                                         StringRef text) {
  StencilModel m = model;
  KernelOptions &k = m.kernel;
  k.componentsPerThread = m.components;
  k.minBlocksPerSm = 0; // absent: the compiler's choice
  k.slab = KernelOptions::kSlabAuto; // absent: chosen at launch
  k.staging = Staging::Registers;     // absent: registers
  k.march = false;                    // absent: one tile a thread
  SmallVector<StringRef, 8> items;
  text.split(items, ';', -1, /*KeepEmpty=*/false);
  SmallVector<StringRef, 8> keys;
  for (StringRef raw : items) {
    StringRef item = raw.trim();
    auto [key, value] = item.split('=');
    key = key.trim();
    value = value.trim();
    // A second value for a key would silently replace the first.
    if (is_contained(keys, key))
      return bad(item, "repeats option '" + key + "'");
    keys.push_back(key);
    if (key == "block") {
      SmallVector<StringRef, 4> parts;
      value.split(parts, 'x');
      if (static_cast<int>(parts.size()) != model.dims)
        return bad(item, "needs " + Twine(model.dims) + " block extents");
      std::array<int, kMaxDims> block{1, 1, 1, 1};
      long long threads = 1;
      for (int axis = 0; axis < model.dims; ++axis) {
        if (!parseInt(parts[axis], block[axis]) || block[axis] < 1)
          return bad(item, "block extents must be positive integers");
        threads *= block[axis];
      }
      if (threads > kMaxThreadsPerBlock)
        return bad(item, "a block has at most " + Twine(kMaxThreadsPerBlock) +
                             " threads, not " + Twine(threads));
      // As the spec's checker: z and t share the GPU's third block axis.
      long long third = 1;
      for (int axis = 2; axis < model.dims; ++axis)
        third *= block[axis];
      if (third > 64)
        return bad(item, "the block's z and t extents multiply to " +
                             Twine(third) +
                             "; the GPU's third block axis holds 64");
      k.block = block;
    } else if (key == "tile") {
      int factor = 0;
      int axis = value.empty() ? -1 : StringRef("xyzt").find(value[0]);
      if (axis < 0 || axis >= model.dims ||
          !parseInt(value.drop_front(), factor) || factor < 1 ||
          factor > kMaxTileFactor)
        return bad(item, "expected an axis of the " + Twine(model.dims) +
                             "-D grid and a factor from 1 to " +
                             Twine(kMaxTileFactor) + ", e.g. y4");
      if (factor > 1 && model.layout.evenOdd)
        return bad(item, "even/odd storage takes no tile");
      k.tileAxis = axis;
      k.tileFactor = factor;
    } else if (key == "order") {
      if (value == "ascending" || value == "as-written") {
        k.loadOrder =
            value == "ascending" ? LoadOrder::Ascending : LoadOrder::AsWritten;
        k.loadOrderText.clear();
        k.tapOrder.clear();
      } else if (value != "spec") {
        return bad(item, "expected ascending, as-written, or spec (the "
                         "spec's explicit order)");
      } else if (model.kernel.loadOrder != LoadOrder::Explicit) {
        return bad(item, "the spec writes no explicit load order to keep; "
                         "expected ascending or as-written");
      }
    } else if (key == "stores") {
      if (value != "regular" && value != "nontemporal")
        return bad(item, "expected regular or nontemporal");
      k.nontemporalStore = value == "nontemporal";
    } else if (key == "launch_bounds") {
      int bounds = 0;
      if (!parseInt(value, bounds) || bounds < 0 ||
          bounds > kMaxThreadsPerBlock)
        return bad(item, "expected 0 (none) to " + Twine(kMaxThreadsPerBlock));
      k.launchBounds = bounds;
    } else if (key == "min_blocks_per_sm") {
      int blocks = 0;
      if (!parseInt(value, blocks) || blocks < 0 || blocks > 32)
        return bad(item, "expected 0 (none) to 32 blocks");
      k.minBlocksPerSm = blocks;
    } else if (key == "layout") {
      FieldLayout &l = m.layout;
      LayoutOrder order = l.order;
      int block = l.block, vector = 1;
      if (!parseLayoutOrder(value, order, block, vector))
        return bad(item, "expected aos, soa or aosoa:N (N from 1 to 1024), "
                         "the last two optionally with :v2 or :v4 (values "
                         "per load)");
      // Entries spell a subdomain layout by its order alone (the timing
      // program writes what it timed); only a change is refused.
      if (l.hasSubdomains() &&
          (order != l.order || block != l.block || vector != l.vector))
        return bad(item, "the spec stores subdomains; the cache cannot "
                         "change its layout");
      l.order = order;
      l.block = block;
      l.vector = vector;
      m.layoutWritten = true; // an entry's storage is not the planner's
    } else if (key == "links") {
      if (!m.hasLinkTaps())
        return bad(item, "the stencil has no link taps");
      if (!parseLayoutOrder(value, m.links.order, m.links.block,
                            m.links.vector))
        return bad(item, "expected aos, soa or aosoa:N, the last two "
                         "optionally with :v2 or :v4 (reals per load)");
      if (std::string problem = linkVectorProblem(m, m.links.vector);
          !problem.empty())
        return bad(item, "links.layout.vector " + Twine(m.links.vector) +
                             " " + problem);
    } else if (key == "clover") {
      if (!m.hasCloverTap())
        return bad(item, "the stencil has no clover term");
      if (!parseLayoutOrder(value, m.clover.order, m.clover.block,
                            m.clover.vector) ||
          (m.clover.vector > 1 && m.clover.order == LayoutOrder::SiteMajor) ||
          m.clover.vector * m.elementBytes() > 16)
        return bad(item, "expected aos, soa or aosoa:N, the last two "
                         "optionally with :v2 or :v4 (at most 16 bytes per "
                         "load)");
    } else if (key == "slab") {
      int slab = KernelOptions::kSlabAuto;
      if (value != "auto" && (!parseInt(value, slab) || slab < 1))
        return bad(item, "expected auto or a number of slices");
      if (std::string problem = slabProblem(m, std::max(slab, 1));
          !problem.empty())
        return bad(item, "slab " + value + " " + problem);
      k.slab = slab;
    } else if (key == "march") {
      if (value != "on" && value != "off")
        return bad(item, "expected on or off");
      k.march = value == "on";
    } else if (key == "staging") {
      if (value != "registers" && value != "shared")
        return bad(item, "expected registers or shared");
      k.staging = value == "shared" ? Staging::Shared : Staging::Registers;
    } else if (key == "vector_width") {
      int width = 0;
      // 8 only where 8 values fill one 16-byte access (bfloat16 fields).
      const bool eightFit = 8 * m.elementBytes() <= 16;
      if (!parseInt(value, width) ||
          (width != 1 && width != 2 && width != 4 && !(width == 8 && eightFit)))
        return bad(item, eightFit ? "expected 1, 2, 4 or 8"
                                  : "expected 1, 2 or 4");
      k.vectorWidth = width;
    } else if (key == "components_per_thread") {
      int perThread = 0;
      if (!parseInt(value, perThread) || perThread < 1 ||
          perThread > m.components)
        return bad(item, "expected 1 to the " + Twine(m.components) +
                             " components per site");
      k.componentsPerThread = perThread;
    } else {
      return bad(item, "unknown option (expected block, tile, order, stores, "
                       "launch_bounds, min_blocks_per_sm, layout, vector_width, "
                       "components_per_thread, links, clover, slab, "
                       "staging, march)");
    }
  }
  if (k.minBlocksPerSm && !k.launchBounds)
    return bad(text, "min_blocks_per_sm needs launch_bounds");
  if (static_cast<long long>(k.minBlocksPerSm) * k.launchBounds >
      kMaxThreadsPerMultiprocessor)
    return bad(text, "min_blocks_per_sm " + Twine(k.minBlocksPerSm) + " of " +
                         Twine(k.launchBounds) + " threads is more than the " +
                         Twine(kMaxThreadsPerMultiprocessor) +
                         " threads a multiprocessor holds");
  if (k.launchBounds && k.launchBounds < k.threadsPerBlock())
    return bad(text, "launch_bounds " + Twine(k.launchBounds) +
                         " is below the block's " +
                         Twine(k.threadsPerBlock()) + " threads");
  if (k.vectorWidth > 1 && m.groupsSitesAlongX()) {
    if (std::string problem = siteVectorProblem(m, k.vectorWidth);
        !problem.empty())
      return bad(text, "vector_width " + Twine(k.vectorWidth) +
                           " (sites along x per access) " + problem);
  } else if (std::string problem = componentVectorProblem(m, k.vectorWidth);
             !problem.empty()) {
    return bad(text, "vector_width " + Twine(k.vectorWidth) + " " + problem);
  }
  if (std::string problem = fieldVectorProblem(m, m.layout.vector);
      !problem.empty())
    return bad(text, "layout " + layoutText(m.layout) + " (" +
                         Twine(m.layout.vector) + " values per load) " +
                         problem);
  if (std::string problem = componentSplitProblem(m, k.componentsPerThread);
      !problem.empty())
    return bad(text, "components_per_thread " +
                         Twine(k.componentsPerThread) + " " + problem);
  if (std::string problem = stagingProblem(m); !problem.empty())
    return bad(text, "staging=shared " + problem);
  if (std::string problem = marchProblem(m); !problem.empty())
    return bad(text, "march=on " + problem);
  if (model.storagePinned()) {
    // The mixed solver converts the outer operator's arrays value by value
    // into the inner one's (Field::convert needs the same storage in both
    // precisions), so neither kind of kernel may move them.
    const auto pinned = [&](const char *what, const FieldLayout &spec,
                            const FieldLayout &asked) -> Error {
      if (layoutText(spec) == layoutText(asked))
        return Error::success();
      return bad(text,
                 Twine(what) + "=" + layoutText(asked) + ": " + model.name +
                     (model.hasInner
                          ? " has inner-precision kernels, whose arrays the "
                            "mixed solver converts value by value"
                          : " converts the outer precision's arrays value "
                            "by value") +
                     ", so its " +
                     (StringRef(what) == "layout" ? "field's" : what) +
                     " storage stays the spec's, " + layoutText(spec));
    };
    if (Error e = pinned("layout", model.layout, m.layout))
      return e;
    if (m.hasLinkTaps())
      if (Error e = pinned("links", model.links.storageOrder(),
                           m.links.storageOrder()))
        return e;
    if (m.hasCloverTap())
      if (Error e = pinned("clover", model.clover.storageOrder(),
                           m.clover.storageOrder()))
        return e;
  }
  return m;
}

bool isExchangeEntry(StringRef options) {
  return options.trim().startswith("grid=");
}

static constexpr llvm::StringLiteral kFoldPrefix = "kernel=fold;";

bool isFoldEntry(StringRef options) {
  return options.trim().startswith(kFoldPrefix);
}

StringRef foldEntryOptions(StringRef options) {
  StringRef text = options.trim();
  if (text.consume_front(kFoldPrefix))
    return text.trim();
  return options;
}

std::string exchangeOptionsText(const std::vector<int> &grid,
                                const ExchangeOptions &options) {
  std::string text = "grid=";
  for (size_t axis = 0; axis < grid.size(); ++axis)
    text += (axis ? "x" : "") + std::to_string(grid[axis]);
  return text + "; transport=" + exchangeTransportName(options.transport) +
         "; overlap=" + (options.overlap ? "on" : "off");
}

Expected<ExchangeCacheOptions> parseExchangeOptions(const StencilModel &model,
                                                    StringRef text) {
  ExchangeCacheOptions out;
  bool haveTransport = false, haveOverlap = false;
  SmallVector<StringRef, 4> items;
  text.split(items, ';', -1, /*KeepEmpty=*/false);
  for (StringRef raw : items) {
    StringRef item = raw.trim();
    auto [key, value] = item.split('=');
    key = key.trim();
    value = value.trim();
    if (key == "grid") {
      SmallVector<StringRef, 4> parts;
      value.split(parts, 'x');
      if (static_cast<int>(parts.size()) != model.dims)
        return bad(item, "needs " + Twine(model.dims) + " ranks per axis");
      out.grid.assign(model.dims, 1);
      for (int axis = 0; axis < model.dims; ++axis) {
        if (!parseInt(parts[axis], out.grid[axis]) || out.grid[axis] < 1)
          return bad(item, "ranks per axis must be positive integers");
        if (out.grid[axis] > 1 && !model.split[axis])
          return bad(item, Twine("the grid splits ") + axisName(axis) +
                               ", which the spec's grid.split does not list");
      }
    } else if (key == "transport") {
      haveTransport = true;
      bool known = false;
      for (ExchangeTransport t :
           {ExchangeTransport::Auto, ExchangeTransport::Peer,
            ExchangeTransport::Staged, ExchangeTransport::GpuAware})
        if (value == exchangeTransportName(t)) {
          out.options.transport = t;
          known = true;
        }
      if (!known)
        return bad(item, "expected auto, peer, staged or gpu-aware");
    } else if (key == "overlap") {
      haveOverlap = true;
      if (value != "on" && value != "off")
        return bad(item, "expected on or off");
      out.options.overlap = value == "on";
    } else {
      return bad(item, "unknown item of a halo-exchange entry (grid, "
                       "transport, overlap)");
    }
  }
  if (out.grid.empty() || !haveTransport || !haveOverlap)
    return bad(text, "a halo-exchange entry names grid, transport and "
                     "overlap");
  if (!model.splittable())
    return bad(text, "a halo-exchange entry for " + Twine(model.name) +
                         ", whose spec lists no axis in grid.split");
  return out;
}

Expected<std::vector<TuningCacheEntry>> readTuningCache(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(path);
  if (!file)
    return createStringError(file.getError(), "cannot read tuning cache '%s': %s",
                             path.str().c_str(),
                             file.getError().message().c_str());
  std::vector<TuningCacheEntry> entries;
  SmallVector<StringRef, 64> lines;
  // An editor's UTF-8 byte order mark had hidden the first entry.
  StringRef text = (*file)->getBuffer();
  text.consume_front("\xEF\xBB\xBF");
  text.split(lines, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    StringRef line = lines[i].rtrim("\r");
    if (line.trim().empty() || line.startswith("#"))
      continue;
    auto fail = [&](size_t column, const Twine &why) {
      return createStringError(inconvertibleErrorCode(), "%s:%zu:%zu: %s",
                               path.str().c_str(), i + 1, column + 1,
                               why.str().c_str());
    };
    SmallVector<StringRef, 8> fields;
    line.split(fields, '\t');
    if (fields.size() != 7)
      return fail(0, "expected 7 tab-separated fields (spec, fingerprint, "
                     "device, extents, options, ms, GB/s), found " +
                         Twine(fields.size()));
    auto columnOf = [&](int f) { return fields[f].data() - line.data(); };
    TuningCacheEntry e;
    e.line = i + 1;
    e.spec = fields[0].str();
    e.fingerprint = fields[1].str();
    e.device = fields[2].str();
    e.options = fields[4].str();
    SmallVector<StringRef, 4> extents;
    fields[3].split(extents, 'x');
    for (StringRef n : extents) {
      int value = 0;
      if (!parseInt(n, value) || value < 1)
        return fail(columnOf(3), "extents must look like 64x64x64, not '" +
                                     fields[3] + "'");
      e.extents.push_back(value);
    }
    if (!to_float(fields[5].trim(), e.milliseconds) ||
        !to_float(fields[6].trim(), e.gbs))
      return fail(columnOf(5), "time and bandwidth must be numbers");
    // Both are printed into the generated tables as literals.
    if (!std::isfinite(e.milliseconds) || !(e.milliseconds > 0))
      return fail(columnOf(5), "time must be a positive number of "
                               "milliseconds, not '" +
                                   fields[5].trim() + "'");
    // Zero is allowed: the exchange tuner prints tenths of a GB/s, and a
    // tiny lattice's exchange can round to 0.0.
    if (!std::isfinite(e.gbs) || e.gbs < 0)
      return fail(columnOf(6), "bandwidth must be a number of GB/s, at least "
                               "0, not '" +
                                   fields[6].trim() + "'");
    if (e.spec.empty() || e.fingerprint.size() != 16 || e.device.empty())
      return fail(0, "needs a spec name, a 16-digit fingerprint and a device");
    entries.push_back(std::move(e));
  }
  return entries;
}

} // namespace stencilc
