//===- CheckLinks.cpp - Complex values and link taps ----------------------===//
//
// The checker's rules for field.type and field.shape, the links section and
// the taps that multiply by links (nearest neighbours, on complex fields whose
// shape ends in the links' N).
//
//===----------------------------------------------------------------------===//
#include "check/Check.h"
#include "check/Checker.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"

#include <cstdlib>

using namespace llvm;

namespace stencilc {
namespace checker {

/// field.type and field.shape: complex values, and the site's values as an
/// array (colour, spin x colour); `components` then follows from them.
void Checker::checkValueShape() {
  if (spec.valueType.present) {
    StringRef type = spec.valueType.value;
    if (type == "complex")
      model.complexValues = true;
    else if (type != "real")
      diags.error(spec.valueType.range,
                  "unknown field type '" + type +
                      "'; expected 'real' or 'complex'");
  }
  if (!spec.shape.present) {
    if (model.complexValues) {
      // A complex field without a shape: `components` complex values.
      if (2 * model.components > kMaxComponents) {
        diags.error(spec.components.present ? spec.components.range
                                            : spec.valueType.range,
                    "a complex field of " + Twine(model.components) +
                        " components holds " + Twine(2 * model.components) +
                        " reals per site, more than the supported " +
                        Twine(kMaxComponents));
        return;
      }
      model.shape = {model.components};
      model.components *= 2;
    }
    return;
  }
  if (spec.components.present) {
    diags.error(spec.components.range,
                "give either 'field.components' or 'field.shape', not both; "
                "the shape sets the values per site");
    return;
  }
  const std::vector<long long> &extents = spec.shape.value;
  if (extents.empty() || extents.size() > 4) {
    diags.error(spec.shape.range, "'field.shape' needs 1 to 4 extents, not " +
                                      Twine(extents.size()));
    return;
  }
  long long values = model.complexValues ? 2 : 1;
  for (long long extent : extents) {
    if (extent < 1 || extent > kMaxComponents) {
      diags.error(spec.shape.range,
                  "'field.shape' extents must be from 1 to " +
                      Twine(kMaxComponents) + ", not " + Twine(extent));
      return;
    }
    values *= extent;
    model.shape.push_back(static_cast<int>(extent));
  }
  if (values > kMaxComponents) {
    diags.error(spec.shape.range,
                "'field.shape' makes " + Twine(values) +
                    " reals per site, more than the supported " +
                    Twine(kMaxComponents));
    model.shape.clear();
    return;
  }
  model.components = static_cast<int>(values);
}

/// The `links` section: name, colours, compression, storage order.
void Checker::checkLinks() {
  const LinksSpec &links = spec.links;
  if (!links.present)
    return;
  LinkField &out = model.links;
  if (links.name.present) {
    const std::string &name = links.name.value;
    if (!isIdentifier(name))
      diags.error(links.name.range,
                  "link field name '" + name + "' is not a C identifier");
    else if (isReservedName(name))
      diags.error(links.name.range,
                  "link field name '" + name + "' is a reserved word");
    else if (any_of(model.parameters,
                    [&](const Parameter &p) { return p.name == name; }))
      diags.error(links.name.range, "link field '" + name +
                                        "' has the name of a parameter");
    else
      out.name = name;
  }
  if (links.colours.present) {
    long long n = links.colours.value;
    if (n < 1 || n > 4)
      diags.error(links.colours.range,
                  "'links.colours' must be from 1 to 4 (N x N link "
                  "matrices), not " +
                      Twine(n));
    else
      out.colours = static_cast<int>(n);
  }
  if (links.compression.present) {
    StringRef value = links.compression.value;
    if (value == "two_rows")
      out.compression = LinkCompression::TwoRows;
    else if (value != "none")
      diags.error(links.compression.range,
                  "unknown link compression '" + value +
                      "'; expected 'none' (every entry) or 'two_rows' (12 "
                      "reals of SU(3), the third row reconstructed)");
    else
      out.compression = LinkCompression::None;
    if (out.compression == LinkCompression::TwoRows && out.colours != 3)
      diags.error(links.compression.range,
                  "'two_rows' compression reconstructs the third row of an "
                  "SU(3) matrix as a cross product; it needs 'colours: 3', "
                  "not " +
                      Twine(out.colours));
  }
  out.layoutWritten = links.layoutOrder.present || links.layoutBlock.present ||
                      links.layoutVector.present;
  checkStorageOrder(links.layoutOrder, links.layoutBlock, links.layoutRange,
                    {"links.layout", "link layout", "a site's matrices together",
                     "one array per real"},
                    out.order, out.block);
  checkLinkVector();
}

/// Reals per load: groups of 2 or 4 adjacent reals (QUDA's FloatN order),
/// whole groups per matrix, one load of at most 16 bytes.
void Checker::checkLinkVector() {
  const Located<long long> &vector = spec.links.layoutVector;
  if (!vector.present)
    return;
  const long long v = vector.value;
  if (v != 1 && v != 2 && v != 4)
    diags.error(vector.range,
                "'links.layout.vector' must be 1, 2 or 4 reals per load, not " +
                    Twine(v));
  else if (std::string problem = linkVectorProblem(model, static_cast<int>(v));
           !problem.empty())
    diags.error(vector.range,
                "'links.layout.vector' " + Twine(v) + " " + problem);
  else
    model.links.vector = static_cast<int>(v);
}

/// Link taps: nearest-neighbour steps on a complex field whose last shape
/// extent is the links' N.
void Checker::checkLinkTaps() {
  bool reported = false;
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const TapSpec &tapSpec = spec.taps[t];
    if (tapSpec.spin.present && !tapSpec.link.present) {
      diags.error(tapSpec.spin.range,
                  "a spin projector acts together with a link; add 'link: " +
                      (model.links.present() ? model.links.name
                                             : std::string("U")) +
                      "' to this tap");
      tapsKnown = false;
    }
    if (!tapSpec.link.present)
      continue;
    const std::string &name = tapSpec.link.value;
    if (!spec.links.present) {
      // A malformed `links` section has its own error already.
      if (!spec.links.range.isValid())
        diags.error(tapSpec.link.range,
                    "tap multiplies by link field '" + name +
                        "', but the spec declares no 'links'");
      tapsKnown = false;
      continue;
    }
    if (!model.links.present())
      continue; // the links section's own error
    if (name != model.links.name) {
      diags.error(tapSpec.link.range, "unknown link field '" + name +
                                          "'; the spec's links are named '" +
                                          model.links.name + "'");
      tapsKnown = false;
      continue;
    }
    // An offset of the wrong length has its own error already.
    if (!tapSpec.offset.present || !gridKnown ||
        static_cast<int>(tapSpec.offset.value.size()) != model.dims)
      continue;
    const Offset &offset = model.taps[t].offset;
    int distance = 0;
    for (int axis = 0; axis < model.dims; ++axis)
      distance += std::abs(offset[axis]);
    if (distance != 1) {
      diags.error(tapRanges[t],
                  "link tap " + formatOffset(offset, model.dims) +
                      " is not a nearest neighbour; a link joins a site to "
                      "the next one along one axis (+1 or -1)");
      tapsKnown = false;
      continue;
    }
    model.taps[t].link = true;
    checkSpinProjector(t);
    if (reported)
      continue;
    const int n = model.links.colours;
    if (!model.complexValues) {
      diags.error(tapSpec.link.range,
                  "link taps multiply complex colour vectors; declare "
                  "'field.type: complex' with 'field.shape' ending in the "
                  "links' " +
                      Twine(n) + " colours");
      reported = true;
      tapsKnown = false;
    } else if (model.shape.empty() || model.shape.back() != n) {
      diags.error(spec.shape.present ? spec.shape.range : tapSpec.link.range,
                  "the field's shape must end in the links' " + Twine(n) +
                      " colours (each colour vector is multiplied by the " +
                      Twine(n) + " x " + Twine(n) + " link), not " +
                      Twine(model.shape.empty() ? 0 : model.shape.back()));
      reported = true;
      tapsKnown = false;
    }
  }
  checkCloverTaps();
  if (spec.links.present && model.links.present() && !model.hasLinkTaps() &&
      tapsKnown)
    diags.warning(spec.links.range, "links '" + model.links.name +
                                        "' are declared but no tap uses them");
}

/// `spin: 1 - gamma` / `1 + gamma` on link tap `t` of a spinor field
/// (shape [4, N]) with real coefficients.
void Checker::checkSpinProjector(size_t t) {
  const Located<std::string> &spin = spec.taps[t].spin;
  if (!spin.present)
    return;
  std::string text;
  for (char c : spin.value)
    if (c != ' ')
      text += c;
  Tap &tap = model.taps[t];
  if (text == "1-gamma")
    tap.spin = -1;
  else if (text == "1+gamma")
    tap.spin = 1;
  else {
    diags.error(spin.range, "unknown spin projector '" + spin.value +
                                "'; expected '1 - gamma' or '1 + gamma' "
                                "(gamma of the tap's axis)");
    tapsKnown = false;
    return;
  }
  const int n = model.links.colours;
  if (!model.complexValues || model.shape.size() != 2 ||
      model.shape[0] != 4) {
    diags.error(spin.range,
                "a spin projector acts on spinors: declare 'field.type: "
                "complex' with 'field.shape: [4, " +
                    Twine(n) + "]' (4 spins x " + Twine(n) + " colours)");
    tap.spin = 0;
    tapsKnown = false;
    return;
  }
  if (isComplexCoefficient(model, tap.coefficient)) {
    diags.error(spec.taps[t].coefficient.range,
                "complex coefficient fields on a spin-projected tap are not "
                "supported; give the tap a real coefficient");
    tapsKnown = false;
  }
}

/// The `clover` section: its name, c_sw over scalar parameters, and the
/// storage order of its blocks.
void Checker::checkClover() {
  const CloverSpec &clover = spec.clover;
  if (!clover.present)
    return;
  CloverTerm &out = model.clover;
  bool ok = true;
  if (clover.name.present) {
    const std::string &name = clover.name.value;
    if (!isIdentifier(name) || isReservedName(name)) {
      diags.error(clover.name.range, "clover field name '" + name +
                                         "' is not a C identifier or is a "
                                         "reserved word");
      ok = false;
    } else if (any_of(model.parameters,
                      [&](const Parameter &p) { return p.name == name; }) ||
               name == model.links.name) {
      diags.error(clover.name.range,
                  "clover field '" + name +
                      "' has the name of a parameter or of the links");
      ok = false;
    } else if (any_of(model.parameters, [&](const Parameter &p) {
                 return p.name == name + "_inverse";
               }) || model.links.name == name + "_inverse") {
      diags.error(clover.name.range,
                  "the generated code names the clover term's inverse '" +
                      name + "_inverse', which a parameter or the links "
                             "already use");
      ok = false;
    }
  }
  if (clover.csw.present && resolveCoefficient(clover.csw, out.csw)) {
    for (const CoefficientTerm &term : out.csw.terms)
      if (model.parameters[term.parameter].site) {
        diags.error(clover.csw.range,
                    "'clover.csw' may use scalar parameters only; '" +
                        model.parameters[term.parameter].name +
                        "' is a coefficient field");
        ok = false;
      }
  } else {
    ok = false;
  }
  out.layoutWritten = clover.layoutOrder.present ||
                      clover.layoutBlock.present || clover.layoutVector.present;
  checkStorageOrder(clover.layoutOrder, clover.layoutBlock, clover.layoutRange,
                    {"clover.layout", "clover layout",
                     "a site's blocks together", "one array per real"},
                    out.order, out.block);
  if (const Located<long long> &vector = clover.layoutVector;
      vector.present) {
    const long long v = vector.value;
    if (v != 1 && v != 2 && v != 4) {
      diags.error(vector.range,
                  "'clover.layout.vector' must be 1, 2 or 4 reals per load, "
                  "not " + Twine(v));
      ok = false;
    } else if (v > 1 && out.order == LayoutOrder::SiteMajor) {
      diags.error(vector.range,
                  "'clover.layout.vector' groups the reals of one array per "
                  "real ('soa') or of a block of sites ('aosoa'); the 'aos' "
                  "layout already keeps a site's reals together");
      ok = false;
    } else if (v * model.elementBytes() > 16) {
      diags.error(vector.range, "'clover.layout.vector' " + Twine(v) +
                                    " makes loads of " +
                                    Twine(v * model.elementBytes()) +
                                    " bytes; at most 16 bytes per load");
      ok = false;
    } else {
      out.vector = static_cast<int>(v);
    }
  }
  if (ok && clover.name.present)
    out.name = clover.name.value;
}

/// `clover: A` on the centre tap of a 4-D spinor stencil with links, every
/// axis wrapping; the section and the tap come together.
void Checker::checkCloverTaps() {
  const CloverSpec &section = spec.clover;
  int cloverTaps = 0;
  for (size_t t = 0; t < model.taps.size(); ++t) {
    const TapSpec &tapSpec = spec.taps[t];
    if (!tapSpec.clover.present)
      continue;
    ++cloverTaps;
    const std::string &name = tapSpec.clover.value;
    auto fail = [&](SMRange range, const Twine &message) {
      diags.error(range, message);
      tapsKnown = false;
    };
    if (!section.present) {
      fail(tapSpec.clover.range,
           "tap adds clover term '" + name +
               "', but the spec declares no 'clover' section");
      continue;
    }
    if (!model.clover.present())
      continue; // the section's own error
    if (name != model.clover.name) {
      fail(tapSpec.clover.range, "unknown clover field '" + name +
                                     "'; the spec's clover term is named '" +
                                     model.clover.name + "'");
      continue;
    }
    const Tap &tap = model.taps[t];
    if (tap.offset != Offset{}) {
      fail(tapRanges[t], "the clover term is site-local: it belongs to the "
                         "centre tap, not to " +
                             formatOffset(tap.offset, model.dims));
      continue;
    }
    if (!tap.coefficient.isLiteral() &&
        any_of(tap.coefficient.terms, [&](const CoefficientTerm &term) {
          return model.parameters[term.parameter].site;
        })) {
      fail(tapSpec.coefficient.range,
           "the clover tap's coefficient (the Wilson diagonal, such as '4 + "
           "mass') may use scalar parameters only");
      continue;
    }
    if (!model.links.present()) {
      fail(tapSpec.clover.range,
           "the clover term is computed from the links; declare 'links'");
      continue;
    }
    const int n = model.links.colours;
    if (model.dims != 4 || !model.complexValues || model.shape.size() != 2 ||
        model.shape[0] != 4 || model.shape[1] != n) {
      fail(tapSpec.clover.range,
           "the clover term acts on spinors of a 4-D lattice: declare 'grid: "
           "{dimensions: 4}' and 'field.type: complex' with 'field.shape: "
           "[4, " + Twine(n) + "]'");
      continue;
    }
    if (!model.allWrap()) {
      fail(tapSpec.clover.range,
           "the clover term's field strength needs the links around every "
           "site: every axis must be periodic or antiperiodic, not "
           "Dirichlet");
      continue;
    }
    model.taps[t].clover = true;
  }
  if (section.present && model.clover.present() && cloverTaps == 0 &&
      tapsKnown) {
    diags.error(section.range,
                "clover term '" + model.clover.name +
                    "' is declared but no tap uses it; add 'clover: " +
                    model.clover.name + "' to the centre tap");
    tapsKnown = false;
  }
}

} // namespace checker
} // namespace stencilc
