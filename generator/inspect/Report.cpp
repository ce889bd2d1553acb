//===- Report.cpp - inspect's text, JSON, roofline chart and checks -------===//
#include "inspect/Inspect.h"

#include "emit/Emit.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace stencilc {

namespace {

/// "global_load_dwordx2 6, global_load_dwordx4 4" from the counts by
/// mnemonic.
std::string widths(const std::map<std::string, int> &counts) {
  std::vector<std::string> parts;
  for (const auto &[mnemonic, n] : counts)
    parts.push_back(mnemonic + " " + std::to_string(n));
  return llvm::join(parts, ", ");
}

int total(const std::map<std::string, int> &counts) {
  int sum = 0;
  for (const auto &entry : counts)
    sum += entry.second;
  return sum;
}

Occupancy occupancyOf(const TargetInfo &target, const KernelResources &r,
                      const StencilModel &model) {
  int threads = model.kernel.threadsPerBlock();
  return target.vendor == Vendor::AMD ? amdOccupancy(target, r, threads)
                                      : nvidiaOccupancy(target, r, threads);
}

std::string limitsText(const Occupancy &o) {
  std::vector<std::string> parts;
  for (const auto &[resource, limit] : o.limits)
    parts.push_back(resource + " " + std::to_string(limit));
  return llvm::join(parts, ", ");
}

/// VGPRs spilled without scratch went to AGPRs: register moves on gfx908
/// and gfx90a, no memory traffic, which --check lets pass.
bool vgprSpillsIntoAgprs(const KernelResources &r) {
  return r.vgprSpills && !r.scratchBytesPerLane;
}

} // namespace

void printText(const std::vector<SpecReport> &reports,
               const InspectOptions &options, raw_ostream &os) {
  bool firstSpec = true;
  for (const SpecReport &spec : reports) {
    if (!firstSpec)
      os << "\n";
    firstSpec = false;
    const StencilModel &m = spec.model;
    os << m.name << " (" << m.specFileName << "): " << m.dims << "-D "
       << boundaryText(m) << ", " << valuesText(m) << " per site, block "
       << m.kernel.threadsPerBlock() << " threads\n";
    for (const KernelReport &kernel : spec.kernels) {
      const KernelFigures &k = kernel.kernel;
      os << "  kernel " << k.name << " (" << k.role << ")\n";
      os << format("    plan         %.3f loads and %.3f stores per site, %d "
                   "bytes and %d flops per site, %.3f flop/byte\n",
                   k.loadsPerSite, k.storesPerSite, k.bytesPerSite,
                   k.flopsPerSite, k.intensity());
      if (k.stagedBytes > 0)
        os << "    staging      the loads read the block's box in shared "
              "memory, "
           << k.stagedBytes << " bytes per block\n";
      if (k.hasLinks) {
        const std::string perLoad =
            k.linkVector > 1 ? ", " + std::to_string(k.linkVector) + " per load"
                             : "";
        os << format("    links        %d read per tile (%.3f per site), %d "
                     "reals each%s%s, %d of the %d bytes per site\n",
                     k.linksPerTile, k.linksPerSite, k.realsPerLink,
                     k.compressedLinks ? " (two rows)" : "", perLoad.c_str(),
                     k.linkBytesPerSite, k.bytesPerSite);
      }
      for (const TargetInfo &target : options.targets) {
        auto it = kernel.byTarget.find(target.target);
        if (it == kernel.byTarget.end())
          continue;
        const KernelResources &r = it->second;
        Occupancy o = occupancyOf(target, r, m);
        os << "    " << target.target << " (" << target.gpu << ")\n";
        if (target.vendor == Vendor::AMD) {
          os << format("      registers    VGPRs %d, SGPRs %d, AGPRs %d; "
                       "scratch %d bytes/lane; spills VGPR %d%s, SGPR %d; "
                       "LDS %d bytes/block\n",
                       r.vgprs, r.sgprs, r.agprs, r.scratchBytesPerLane,
                       r.vgprSpills,
                       vgprSpillsIntoAgprs(r) ? " (into AGPRs)" : "",
                       r.sgprSpills, r.ldsBytes);
          os << "      occupancy    compiler " << r.compilerOccupancy
             << " waves/SIMD; model " << o.value << " of " << o.maximum
             << " (" << limitsText(o) << "): limited by " << o.limitedBy
             << format("; %d of %d waves per CU, %.0f%%\n",
                       o.value * target.simdsPerCU,
                       o.maximum * target.simdsPerCU,
                       100.0 * o.value / o.maximum);
          if (o.limitedBy == "LDS" && r.compilerOccupancy > o.value)
            os << "                   (the compiler's LDS limit counts a "
                  "CU's waves, not a SIMD's)\n";
        } else {
          os << format("      registers    %d per thread; spill stores %d, "
                       "loads %d bytes; stack %d bytes; shared %d "
                       "bytes/block\n",
                       r.registers, r.spillStoreBytes, r.spillLoadBytes,
                       r.stackBytes, r.sharedBytes);
          os << format("      occupancy    model %d of %d warps/SM (%.0f%%; ",
                       o.value, o.maximum, 100.0 * o.value / o.maximum)
             << limitsText(o) << "): limited by " << o.limitedBy << "\n";
        }
        os << "      isa (" << r.isaKind << ") " << total(r.loads)
           << " global loads (" << widths(r.loads) << "); "
           << total(r.stores) << " stores (" << widths(r.stores) << "), "
           << r.nontemporalStores << " non-temporal\n";
        Roofline roof = roofline(target, k, m.precision);
        os << format("      roofline     %.3f flop/byte x %.1f GB/s = %.1f "
                     "GFLOP/s of %.0f: %s-bound\n",
                     roof.intensity, roof.peakGBs,
                     roof.intensity * roof.peakGBs, roof.peakGflops,
                     roof.memoryBound ? "memory" : "compute");
        if (!r.isa.empty())
          os << "      --- " << r.isaKind << " ---\n" << r.isa;
      }
    }
  }
}

void printJson(const std::vector<SpecReport> &reports,
               const InspectOptions &options, raw_ostream &os) {
  json::OStream j(os, 2);
  j.object([&] {
    j.attribute("generator", "stencilc " + generatorVersion().str());
    j.attribute("format", 1);
    j.attributeArray("targets", [&] {
      for (const TargetInfo &t : options.targets)
        j.object([&] {
          j.attribute("target", t.target);
          j.attribute("gpu", t.gpu);
          j.attribute("vendor", t.vendor == Vendor::AMD ? "amd" : "nvidia");
          j.attribute("peak_gb_s", t.peakGBs);
          j.attribute("peak_gflop_s_float", t.peakGflopsFloat);
          j.attribute("peak_gflop_s_double", t.peakGflopsDouble);
        });
    });
    j.attributeArray("specs", [&] {
      for (const SpecReport &spec : reports)
        j.object([&] {
          const StencilModel &m = spec.model;
          j.attribute("name", m.name);
          j.attribute("spec", m.specFileName);
          j.attribute("precision", precisionName(m.precision));
          j.attribute("threads_per_block", m.kernel.threadsPerBlock());
          j.attributeArray("kernels", [&] {
            for (const KernelReport &kernel : spec.kernels)
              j.object([&] {
                const KernelFigures &k = kernel.kernel;
                j.attribute("name", k.name);
                j.attribute("role", k.role == "clover"
                                        ? "clover"
                                        : (k.adjoint ? "adjoint" : "apply"));
                j.attribute("hop", k.hop);
                j.attributeObject("plan", [&] {
                  j.attribute("loads_per_site", k.loadsPerSite);
                  j.attribute("stores_per_site", k.storesPerSite);
                  if (k.stagedBytes > 0)
                    j.attribute("staged_bytes", k.stagedBytes);
                  j.attribute("bytes_per_site", k.bytesPerSite);
                  if (k.hasLinks) {
                    j.attribute("links_per_tile", k.linksPerTile);
                    j.attribute("link_bytes_per_site", k.linkBytesPerSite);
                  }
                  j.attribute("flops_per_site", k.flopsPerSite);
                  j.attribute("arithmetic_intensity", k.intensity());
                });
                j.attributeObject("targets", [&] {
                  for (const TargetInfo &t : options.targets) {
                    auto it = kernel.byTarget.find(t.target);
                    if (it == kernel.byTarget.end())
                      continue;
                    const KernelResources &r = it->second;
                    Occupancy o = occupancyOf(t, r, m);
                    Roofline roof = roofline(t, k, m.precision);
                    j.attributeObject(t.target, [&] {
                      if (t.vendor == Vendor::AMD) {
                        j.attribute("vgprs", r.vgprs);
                        j.attribute("sgprs", r.sgprs);
                        j.attribute("agprs", r.agprs);
                        j.attribute("scratch_bytes_per_lane",
                                    r.scratchBytesPerLane);
                        j.attribute("vgpr_spills", r.vgprSpills);
                        j.attribute("sgpr_spills", r.sgprSpills);
                        j.attribute("lds_bytes", r.ldsBytes);
                        j.attribute("compiler_occupancy", r.compilerOccupancy);
                      } else {
                        j.attribute("registers", r.registers);
                        j.attribute("spill_store_bytes", r.spillStoreBytes);
                        j.attribute("spill_load_bytes", r.spillLoadBytes);
                        j.attribute("stack_bytes", r.stackBytes);
                        j.attribute("shared_bytes", r.sharedBytes);
                      }
                      j.attributeObject("occupancy", [&] {
                        j.attribute("unit", t.vendor == Vendor::AMD
                                                ? "waves per SIMD"
                                                : "warps per SM");
                        j.attribute("value", o.value);
                        j.attribute("maximum", o.maximum);
                        j.attribute("percent", 100.0 * o.value / o.maximum);
                        if (t.vendor == Vendor::AMD)
                          j.attribute("waves_per_cu", o.value * t.simdsPerCU);
                        j.attribute("limited_by", o.limitedBy);
                        j.attributeObject("limits", [&] {
                          for (const auto &[resource, limit] : o.limits)
                            j.attribute(resource, limit);
                        });
                      });
                      j.attributeObject("isa", [&] {
                        j.attribute("kind", r.isaKind);
                        j.attributeObject("global_loads", [&] {
                          for (const auto &[mnemonic, n] : r.loads)
                            j.attribute(mnemonic, n);
                        });
                        j.attributeObject("global_stores", [&] {
                          for (const auto &[mnemonic, n] : r.stores)
                            j.attribute(mnemonic, n);
                        });
                        j.attribute("nontemporal_stores",
                                    r.nontemporalStores);
                        if (!r.isa.empty())
                          j.attribute("listing", r.isa);
                      });
                      j.attributeObject("roofline", [&] {
                        j.attribute("arithmetic_intensity", roof.intensity);
                        j.attribute("attainable_gflop_s",
                                    roof.attainableGflops);
                        j.attribute("bound",
                                    roof.memoryBound ? "memory" : "compute");
                      });
                    });
                  }
                });
              });
          });
        });
    });
  });
  os << "\n";
}

Error writeRoofline(const std::vector<SpecReport> &reports,
                       const InspectOptions &options, StringRef path) {
  ErrorOr<std::string> gnuplot = sys::findProgramByName("gnuplot");
  if (!gnuplot)
    return createStringError(
        inconvertibleErrorCode(),
        "gnuplot not found on PATH: install the Debian package gnuplot-nox "
        "(scripts/install-deps.sh does) to draw --roofline charts");
  // One data block per target: the roofs, then the kernels.
  std::string terminal =
      path.endswith_insensitive(".png")
          ? "set terminal pngcairo size 1100,700 noenhanced font 'sans,10'\n"
          : "set terminal svg size 1100,700 dynamic noenhanced font "
            "'sans,11'\n";
  // A quote in gnuplot's single-quoted string is written twice.
  std::string quoted;
  for (char c : path)
    quoted += c == '\'' ? std::string("''") : std::string(1, c);
  std::string script =
      terminal +
      "set output '" + quoted + "'\n"
      "set title 'stencilc roofline'\nset logscale xy\n"
      "set xlabel 'arithmetic intensity (flop/byte)'\n"
      "set ylabel 'attainable GFLOP/s'\nset xrange [0.01:100]\n"
      "set key outside right\nset grid\n";
  std::string plots;
  int style = 1;
  for (const TargetInfo &t : options.targets) {
    bool anyFloat = false, anyDouble = false;
    for (const SpecReport &spec : reports)
      (spec.model.precision == Precision::Double ? anyDouble : anyFloat) = true;
    for (bool isDouble : {false, true}) {
      if (!(isDouble ? anyDouble : anyFloat))
        continue;
      double peak = isDouble ? t.peakGflopsDouble : t.peakGflopsFloat;
      std::string memory = "x * " + std::to_string(t.peakGBs);
      std::string roof = "(" + memory + " < " + std::to_string(peak) +
                         " ? " + memory + " : " + std::to_string(peak) + ")";
      plots += std::string(plots.empty() ? "plot " : ", ") + roof +
               " with lines lt " + std::to_string(style) +
               (isDouble ? " dt 2" : "") + " title '" +
               t.target + " " + t.gpu + (isDouble ? " FP64" : " FP32") +
               formatv(" roof ({0} GB/s, {1} GFLOP/s)'", t.peakGBs, peak)
                   .str();
    }
    // Numbered points, their names in the key: kernels at one spot (apply
    // and CG's fused kernels often are) share a label, "1,2", that their
    // names would have drawn on top of each other.
    struct Spot {
      double intensity, gflops;
      std::string label;
    };
    std::vector<Spot> spots;
    int number = 0;
    for (const SpecReport &spec : reports)
      for (const KernelReport &kernel : spec.kernels) {
        Roofline roof = roofline(t, kernel.kernel, spec.model.precision);
        const std::string id = std::to_string(++number);
        auto near = [&](const Spot &s) {
          return std::fabs(std::log(s.intensity / roof.intensity)) < 0.03 &&
                 std::fabs(std::log(s.gflops / roof.attainableGflops)) < 0.03;
        };
        auto same = std::find_if(spots.begin(), spots.end(), near);
        if (same != spots.end())
          same->label += "," + id;
        else
          spots.push_back({roof.intensity, roof.attainableGflops, id});
      }
    std::string points;
    for (const Spot &spot : spots)
      points +=
          formatv("{0} {1} \"{2}\"\n", spot.intensity, spot.gflops, spot.label)
              .str();
    script += "$" + t.target + " << EOD\n" + points +
              "EOD\n";
    plots += ", $" + t.target + " using 1:2:3 with labels point lt " +
             std::to_string(style) +
             " pt 7 offset 0.6,-0.4 left font ',8' title '" + t.target +
             " kernels (at the roof)'";
    ++style;
  }
  int number = 0;
  for (const SpecReport &spec : reports)
    for (const KernelReport &kernel : spec.kernels)
      plots += formatv(", NaN with dots lc rgb 'white' title '{0} {1}'",
                       ++number, kernel.kernel.name)
                   .str();
  script += plots + "\n";
  SmallString<128> scriptPath;
  if (std::error_code ec = sys::fs::createTemporaryFile("stencilc-roofline",
                                                        "gp", scriptPath))
    return createStringError(ec, "cannot create a temporary file");
  if (Error error = writeFile(scriptPath, script))
    return error;
  StringRef argv[] = {*gnuplot, scriptPath};
  std::string message;
  int status = sys::ExecuteAndWait(*gnuplot, argv, llvm::None, {}, 0, 0,
                                   &message);
  sys::fs::remove(scriptPath);
  if (status != 0)
    return createStringError(inconvertibleErrorCode(),
                             "gnuplot failed to draw '%s'%s",
                             path.str().c_str(),
                             message.empty() ? "" : (": " + message).c_str());
  return Error::success();
}

std::vector<std::string> findProblems(const std::vector<SpecReport> &reports) {
  std::vector<std::string> problems;
  for (const SpecReport &spec : reports)
    for (const KernelReport &kernel : spec.kernels)
      for (const auto &[targetName, r] : kernel.byTarget) {
        const TargetInfo *t = findTarget(targetName);
        std::string where = kernel.kernel.name + " on " + targetName;
        if (t->vendor == Vendor::AMD) {
          // The report line still shows spills into AGPRs.
          if (r.sgprSpills || (r.vgprSpills && !vgprSpillsIntoAgprs(r)))
            problems.push_back(where + ": spills " +
                               std::to_string(r.vgprSpills) + " VGPRs and " +
                               std::to_string(r.sgprSpills) + " SGPRs");
          if (r.scratchBytesPerLane)
            problems.push_back(where + ": uses " +
                               std::to_string(r.scratchBytesPerLane) +
                               " bytes of scratch per lane");
          const int threads = spec.model.kernel.threadsPerBlock();
          Occupancy o = amdOccupancy(*t, r, threads);
          // The compiler's LDS limit counts waves per CU (Inspect.h).
          const int compilerModel = amdCompilerOccupancy(*t, r, threads);
          if (r.compilerOccupancy != compilerModel)
            problems.push_back(where + ": the occupancy model gives " +
                               std::to_string(o.value) +
                               " waves/SIMD (the compiler's formula " +
                               std::to_string(compilerModel) +
                               "), the compiler " +
                               std::to_string(r.compilerOccupancy));
        } else if (r.spillStoreBytes || r.spillLoadBytes) {
          problems.push_back(where + ": spills (" +
                             std::to_string(r.spillStoreBytes) +
                             " bytes stored, " +
                             std::to_string(r.spillLoadBytes) + " loaded)");
        }
      }
  return problems;
}

} // namespace stencilc
