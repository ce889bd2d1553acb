#include "stencil/operator.hpp"

#include "stencil/blas.hpp"
#include "stencil/clover.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/device.hpp"
#include "stencil/environment.hpp"
#include "stencil/exchange_choice.hpp"
#include "stencil/link_algebra.hpp"
#include "stencil/scatter.hpp"
#include "stencil/symbol.hpp"
#include "stencil/tuning.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace stencil {

namespace {

/// Bytes of a value of the site-parameter, link and clover arrays of an
/// operator on `fields`: the kernels' arithmetic type, so float where the
/// fields hold bfloat16 (the arrays are read once a site, not narrowed).
int array_element_bytes(const Lattice &fields) {
  return fields.element_bytes == 2 ? 4 : fields.element_bytes;
}

/// The lattice of the link array of `info`'s kernels on `fields`: their
/// fields' lattice where they take no links.
Lattice link_lattice_of(const KernelInfo &info, const Lattice &fields) {
  Lattice lattice = fields;
  lattice.element_bytes = array_element_bytes(fields);
  if (const LinkInfo *links = info.links) {
    lattice.components = fields.dims * links->reals_per_link;
    lattice.layout = links->layout;
  }
  return lattice;
}

/// A deviation or tolerance for a message: std::to_string(1e-10) prints
/// "0.000000".
std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

} // namespace

Status StencilOperator::create(const KernelInfo &spec, const int *extents,
                               StencilOperator &out, Kernels kernels) {
  STENCIL_TRY(check_environment());
  KernelSelection selection{&spec, "the kernels given"};
  if (kernels == Kernels::Tuned)
    STENCIL_TRY(select_kernels(spec, extents, device_name(), device_l2_bytes(),
                               selection));
  const KernelInfo &info = *selection.info;
  StencilOperator op;
  op.info_ = &info;
  op.declared_ = &spec;
  op.choice_ = selection.description;
  for (int axis = 0; axis < info.shape.dims; ++axis)
    op.extents_[axis] = extents[axis];
  LaunchConfig config;
  Status status = launch_config(info, op.extents_, config);
  if (!status.ok())
    return Status::failure(std::string(info.name) + ": " + status.message());
  op.lattice_ = lattice_for(info, op.extents_);
  // Extents that each fit may still overflow the lattice's byte count.
  Status valid = check_lattice(op.lattice_);
  if (!valid.ok())
    return Status::failure(std::string(info.name) + ": " + valid.message());
  // Also where the chosen kernels have no fold pass: an entry of its own
  // may give one.
  if (kernels == Kernels::Tuned)
    STENCIL_TRY(op.choose_fold_kernels(spec, selection));
  op.values_.assign(info.param_defaults,
                    info.param_defaults + info.num_params);
  op.site_fields_.assign(info.num_params, nullptr);
  out = std::move(op);
  return Status();
}

Status StencilOperator::require_created(const char *what) const {
  if (created())
    return Status();
  return Status::failure(std::string(what) +
                         ": the operator was never created "
                         "(default-constructed or moved from)");
}

Status StencilOperator::choose_fold_kernels(const KernelInfo &spec,
                                            const KernelSelection &chosen) {
  KernelSelection fold;
  bool found = false;
  STENCIL_TRY(
      select_fold_kernels(spec, extents_, device_name(), chosen, fold, found));
  if (!found) {
    if (!fold.description.empty()) // why the planner's kernels do not serve
      choice_ += "; CG's fold pass: " + fold.description;
    return Status();
  }
  const std::string why =
      std::string(spec.name) + ": CG's fold pass, " + fold.description;
  if (!fold.info->apply_fold_dot)
    return Status::failure(why + ": these kernels have no fold pass");
  LaunchConfig config;
  if (Status fits = launch_config(*fold.info, extents_, config);
      !fits.ok())
    return Status::failure(why + ": " + fits.message());
  // CG's fields are the apply kernels' fields: the fold pass must store
  // them the same way.
  if (Status same = require_same_lattice(
          lattice_, lattice_for(*fold.info, extents_), "its fields");
      !same.ok())
    return Status::failure(why + ": " + same.message());
  if (Status same = require_same_lattice(link_lattice(),
                                         link_lattice_of(*fold.info, lattice_),
                                         "its links");
      !same.ok())
    return Status::failure(why + ": " + same.message());
  if (fold.info != info_)
    fold_info_ = fold.info;
  choice_ += "; CG's fold pass: " + fold.description;
  return Status();
}

Status StencilOperator::create_distributed(const KernelInfo &info,
                                           const int *extents,
                                           const Communicator &comm,
                                           const ProcessGrid &grid,
                                           StencilOperator &out) {
  const std::string name = info.name;
  // Ranks called with another stencil (or another build of it), lattice or
  // grid would divide different lattices and wait for each other's
  // messages: compared first.
  std::string call = name + " (fingerprint " +
                     (info.fingerprint ? info.fingerprint : "none") + ") on ";
  for (int axis = 0; axis < info.shape.dims; ++axis)
    call += (axis ? "x" : "") + std::to_string(extents[axis]);
  call += ", process grid " + grid.text();
  STENCIL_TRY(comm.same("create_distributed's stencil, extents and process "
                        "grid",
                        call));
  const DistributedInfo *distributed = info.distributed;
  if (!distributed) {
    if (grid.splits() || comm.distributed())
      return Status::failure(
          name + ": its spec does not declare grid.split, so no process "
                 "grid may divide its lattice; list the axes to split there "
                 "(e.g. 'grid: {..., split: [z, t]}') and regenerate");
    return create(info, extents, out);
  }
  // The whole lattice must suit the layout as on one rank (even extents for
  // even/odd storage, whole blocks): the ranks' blocks, checked later, are
  // named by their boxes, not by the extents the caller gave.
  if (Status valid = check_lattice(lattice_for(info, extents)); !valid.ok())
    return Status::failure(name + ": " + valid.message());
  const KernelInfo &ranks = distributed->kernels();
  const int dims = info.shape.dims;
  bool layered[kMaxDims] = {false, false, false, false};
  bool splittable[kMaxDims] = {false, false, false, false};
  for (int axis = 0; axis < dims; ++axis) {
    layered[axis] = !wraps(ranks.shape.boundary[axis]);
    splittable[axis] = distributed->split[axis];
  }
  auto decomposition = std::make_shared<Decomposition>();
  Status status = decompose(comm, grid, dims, extents, info.shape.boundary,
                            info.shape.reach, layered, splittable,
                            info.layout.even_odd != 0, *decomposition);
  if (!status.ok())
    return Status::failure(name + ": " + status.message());
  // Along the axes that wrap, a ghost zone moves each site `reach` places
  // in the rank's storage: an odd shift in all would swap the parities.
  if (info.layout.even_odd) {
    int shift = 0;
    for (int axis = 0; axis < dims; ++axis)
      if (layered[axis] && wraps(info.shape.boundary[axis]))
        shift += decomposition->layer[axis];
    if (shift % 2 != 0)
      return Status::failure(
          name + ": its ghost zones (grid.split) shift the checkerboard of "
                 "the ranks' storage by an odd number of sites; list an even "
                 "number of axes that wrap around in grid.split (e.g. [z, t] "
                 "rather than [t])");
  }
  StencilOperator op;
  // Agreed on before the exchange's collective set-up.
  STENCIL_TRY(comm.agree(create(ranks, decomposition->local, op,
                                Kernels::AsGiven)));
  // The largest face a field sends (a whole field's; edges included): what
  // the peer path's receive buffers hold.
  std::size_t face = 0;
  for (int axis = 0; axis < dims; ++axis) {
    std::size_t sites = decomposition->layer[axis];
    for (int other = 0; other < dims; ++other)
      if (other != axis)
        sites *= decomposition->local[other];
    face = std::max(face, sites * static_cast<std::size_t>(info.components) *
                              info.element_bytes);
  }
  // The policy: every rank must take the same, or the peer set-up and the
  // messages would not pair up (ranks on different devices could read
  // different tuning-cache entries).
  ExchangeSelection selection;
  STENCIL_TRY(comm.agree(
      select_exchange(info, extents, grid.ranks, device_name(), selection)));
  const double code = static_cast<int>(selection.options.transport) * 2 +
                      (selection.options.overlap ? 1 : 0);
  double highest = code, lowest = -code;
  STENCIL_TRY(comm.max(highest));
  STENCIL_TRY(comm.max(lowest));
  if (highest != -lowest)
    return Status::failure(name + ": the ranks chose different halo-exchange "
                                  "policies (" +
                           selection.description +
                           " on rank " + std::to_string(comm.rank()) +
                           "); give them the same tuning cache and devices, "
                           "or set STENCILC_EXCHANGE and STENCILC_OVERLAP");
  std::unique_ptr<HaloExchange> exchange;
  STENCIL_TRY(HaloExchange::create(decomposition, distributed->corners, face,
                                   selection.options.transport, exchange));
  op.overlap_ = selection.options.overlap;
  op.transport_ = selection.options.transport;
  op.face_bytes_ = face;
  op.exchange_choice_ = selection.description;
  op.decomposition_ = std::move(decomposition);
  op.exchange_ = std::move(exchange);
  op.describe_distributed(grid);
  op.distributed_ = distributed;
  op.spec_ = &info;
  out = std::move(op);
  return Status();
}

Status StencilOperator::create_inner(StencilOperator &out) const {
  STENCIL_TRY(require_created("create_inner"));
  const KernelInfo &spec = declared();
  const std::string name = spec.name;
  // Both refusals hold on every rank alike: one spec, one decomposition.
  if (!spec.inner)
    return Status::failure_on_every_rank(
        name + ": its spec does not declare inner_precision, so no "
               "lower-precision kernels were generated for mixed-precision "
               "CG; add 'inner_precision: float' to the spec and regenerate");
  if (decomposition_)
    return Status::failure_on_every_rank(
        name + ": mixed-precision CG on several ranks is not built yet; "
               "solve in double");
  StencilOperator inner;
  STENCIL_TRY(create(spec.inner(), extents_, inner));
  inner.values_ = values_;
  for (int p = 0; p < info_->num_params; ++p) {
    if (!site_fields_[p])
      continue;
    Lattice lattice;
    STENCIL_TRY(inner.site_lattice(info_->param_names[p], lattice));
    auto converted = std::make_shared<Field>();
    STENCIL_TRY(Field::create(lattice, *converted));
    STENCIL_TRY(convert(*site_fields_[p], *converted));
    inner.site_fields_[p] = converted.get();
    inner.owned_fields_.push_back(std::move(converted));
  }
  // Links and the clover term, value by value in the inner precision (the
  // same layouts; convert() refuses others). The clover inverse was
  // computed in this operator's precision and is rounded, not recomputed.
  if (links_) {
    auto converted = std::make_shared<Field>();
    STENCIL_TRY(Field::create(inner.link_lattice(), *converted));
    STENCIL_TRY(convert(*links_, *converted));
    STENCIL_TRY(inner.set_links(*converted));
    inner.owned_fields_.push_back(std::move(converted));
  }
  if (clover_) {
    auto arrays = std::make_shared<CloverArrays>();
    STENCIL_TRY(Field::create(inner.clover_lattice(), arrays->clover));
    STENCIL_TRY(convert(clover_->clover, arrays->clover));
    arrays->inverse_parity = clover_->inverse_parity;
    if (clover_->inverse_parity >= 0) {
      STENCIL_TRY(Field::create(
          inner.clover_lattice().half(clover_->inverse_parity),
          arrays->inverse));
      STENCIL_TRY(convert(clover_->inverse, arrays->inverse));
    }
    arrays->parameters = clover_->parameters;
    STENCIL_TRY(inner.set_clover(*arrays));
    inner.owned_clover_ = std::move(arrays);
  }
  out = std::move(inner);
  return Status();
}

Communicator StencilOperator::communicator() const {
  return decomposition_ ? decomposition_->comm : Communicator();
}

Status StencilOperator::local_failure_ends_job(const Status &status,
                                               const char *call) const {
  return decomposition_
             ? decomposition_->comm.local_failure_ends_job(status, call)
             : status;
}

Status StencilOperator::fill_ghosts(const Field &field, BoxCopy copy,
                                    bool signs, Stream stream) const {
  if (!exchange_)
    return Status();
  STENCIL_TRY(stream_synchronize(stream)); // the field is complete
  // The ghost zone is storage the exchange owns, not the field's values.
  return exchange_->fill(const_cast<void *>(field.data()), field.lattice(),
                         field.lattice().components, copy, signs);
}

Region StencilOperator::interior_region() const {
  // Sites whose stencil reads only owned sites: a reach (one layer) inside
  // the owned sites along every exchanged axis.
  const Decomposition &d = *decomposition_;
  Region r;
  r.mode = kInteriorSites;
  for (int axis = 0; axis < kMaxDims; ++axis) {
    const int n = axis < d.dims ? d.local[axis] : 1;
    r.lo[axis] = 0;
    r.hi[axis] = n;
    if (axis < d.dims && d.exchanged[axis]) {
      r.lo[axis] = 2 * d.layer[axis];
      r.hi[axis] = n - 2 * d.layer[axis];
    }
  }
  return r;
}

Status StencilOperator::with_halos(
    const Field &in, Stream stream,
    const std::function<Status(const Region &)> &launch) const {
  const BoxCopy copy = distributed_->copy_field;
  if (!overlap_) {
    STENCIL_TRY(fill_ghosts(in, copy, true, stream));
    return cleared(in, copy, stream, launch(Region()));
  }
  // The interior runs while the halos travel (the exchange has a stream of
  // its own), the boundary once they have arrived. The exchange goes ahead
  // whatever the interior launch said: the neighbours wait for it.
  STENCIL_TRY(stream_synchronize(stream)); // `in` is complete
  Region region = interior_region();
  const Status interior = launch(region);
  const Status filled =
      exchange_->fill(const_cast<void *>(in.data()), in.lattice(),
                      in.lattice().components, copy, /*signs=*/true);
  region.mode = kBoundarySites;
  const Status boundary =
      interior.ok() && filled.ok() ? launch(region) : Status();
  return cleared(in, copy, stream,
                 !interior.ok() ? interior : !filled.ok() ? filled : boundary);
}

void StencilOperator::describe_distributed(const ProcessGrid &grid) {
  choice_ = "the ranks' kernels (" + std::string(info_->name) +
            "), process grid " + grid.text() + ", halo exchange " +
            exchange_policy_name(exchange_->policy()) +
            (overlap_ ? ", overlapped with the interior"
                      : ", before the kernels");
}

void StencilOperator::set_overlap(bool overlap) {
  overlap_ = overlap;
  if (exchange_)
    describe_distributed(decomposition_->grid);
}

Status StencilOperator::set_exchange(const ExchangeOptions &options,
                                     const std::string &why) {
  STENCIL_TRY(require_created("set_exchange"));
  if (!exchange_)
    return Status::failure(std::string(stencil_name()) +
                           ": set_exchange needs a distributed operator");
  if (options.transport != transport_) {
    // The old exchange's peer buffers go first (collective), then the new
    // one's are set up (collective).
    exchange_.reset();
    std::unique_ptr<HaloExchange> exchange;
    const Status created =
        HaloExchange::create(decomposition_, distributed_->corners,
                             face_bytes_, options.transport, exchange);
    if (!created.ok())
      return created; // the operator has no exchange until set again
    exchange_ = std::move(exchange);
    transport_ = options.transport;
  }
  exchange_choice_ = std::string("transport ") +
                     exchange_transport_name(options.transport) +
                     ", overlap " + (options.overlap ? "on" : "off") + " (" +
                     why + ")";
  set_overlap(options.overlap);
  return Status();
}

Status StencilOperator::exchange_halos(const Field &field) const {
  return local_failure_ends_job(exchange_halos_on_rank(field),
                                "exchange_halos");
}

Status StencilOperator::exchange_halos_on_rank(const Field &field) const {
  STENCIL_TRY(require_created("exchange_halos"));
  if (!exchange_)
    return Status::failure(std::string(stencil_name()) +
                           ": exchange_halos needs a distributed operator");
  const BoxCopy copy = distributed_->copy_field;
  const Status filled = fill_ghosts(field, copy, true, nullptr);
  const Status cleared = clear_ghosts(field, copy, nullptr);
  return filled.ok() ? cleared : filled;
}

Status StencilOperator::clear_ghosts(const Field &field, BoxCopy copy,
                                     Stream stream) const {
  if (!exchange_)
    return Status();
  return exchange_->clear(const_cast<void *>(field.data()), field.lattice(),
                          field.lattice().components, copy, stream);
}

Status StencilOperator::cleared(const Field &in, BoxCopy copy, Stream stream,
                                const Status &launched) const {
  // The ghost zone goes back to zero whether the kernel ran or not.
  const Status status = clear_ghosts(in, copy, stream);
  return launched.ok() ? status : launched;
}

Status StencilOperator::local_gauge(const GaugeField &U,
                                    const GaugeField *&local,
                                    GaugeField &box) const {
  local = &U;
  if (!decomposition_)
    return Status();
  const Decomposition &d = *decomposition_;
  for (int axis = 0; axis < d.dims; ++axis)
    if (U.dims() != d.dims || U.extents()[axis] != d.global[axis])
      return Status::failure(
          std::string(stencil_name()) + ": a distributed operator takes the "
          "whole lattice's gauge field; its extent along axis " +
          std::to_string(axis) + " is " +
          std::to_string(U.dims() == d.dims ? U.extents()[axis] : 0) +
          ", the lattice's " + std::to_string(d.global[axis]));
  int first[kMaxDims] = {0, 0, 0, 0};
  for (int axis = 0; axis < d.dims; ++axis)
    first[axis] = d.global_of(axis, 0);
  STENCIL_TRY(gauge_box(U, first, d.local, box));
  local = &box;
  return Status();
}

Lattice StencilOperator::site_lattice() const {
  Lattice lattice = lattice_;
  lattice.components = 1;
  lattice.element_bytes = array_element_bytes(lattice_);
  // The kernels read a site's one value by its site index: no groups of a
  // site's values (field.layout.vector) in an array of one a site.
  lattice.layout.vector = 1;
  return lattice;
}

Status StencilOperator::site_lattice(const std::string &name,
                                     Lattice &out) const {
  STENCIL_TRY(require_created("site_lattice"));
  const int p = parameter_index(name);
  if (p < 0 || !info_->param_is_site[p])
    return Status::failure(std::string(stencil_name()) +
                           " has no site parameter named '" + name + "'");
  out = site_lattice();
  out.components = site_parameter_reals(*info_, p);
  if (out.components > 1) {
    // Pairs stay together whatever the field's component order.
    out.layout.order = 0;
    out.layout.block = 1;
    out.layout.vector = 1;
  }
  return Status();
}

int StencilOperator::parameter_index(const std::string &name) const {
  for (int p = 0; p < info_->num_params; ++p)
    if (name == info_->param_names[p])
      return p;
  return -1;
}

Status StencilOperator::set_parameter(const std::string &name, double value) {
  STENCIL_TRY(require_created("set_parameter"));
  int p = parameter_index(name);
  if (p < 0)
    return Status::failure(std::string(stencil_name()) +
                           " has no parameter named '" + name + "'");
  if (info_->param_is_site[p])
    return Status::failure("parameter '" + name + "' of " + stencil_name() +
                           " is a site parameter: set it with an array");
  if (!std::isfinite(value))
    return Status::failure("parameter '" + name + "' must be finite");
  values_[p] = value;
  ++generation_;
  return Status();
}

bool StencilOperator::reads(const Field &field) const {
  for (const Field *site : site_fields_)
    if (site && share_memory(*site, field))
      return true;
  if (links_ && share_memory(*links_, field))
    return true;
  return clover_ && (share_memory(clover_->clover, field) ||
                     share_memory(clover_->inverse, field));
}

Status StencilOperator::set_site_parameter(const std::string &name,
                                           const Field &values) {
  return local_failure_ends_job(set_site_parameter_on_rank(name, values),
                                "set_site_parameter");
}

Status StencilOperator::set_site_parameter_on_rank(const std::string &name,
                                                   const Field &values) {
  STENCIL_TRY(require_created("set_site_parameter"));
  int p = parameter_index(name);
  if (p < 0)
    return Status::failure(std::string(stencil_name()) +
                           " has no parameter named '" + name + "'");
  if (!info_->param_is_site[p])
    return Status::failure("parameter '" + name + "' of " + stencil_name() +
                           " is a scalar: set it with a value");
  const std::string what = "site parameter '" + name + "'";
  Lattice expected;
  STENCIL_TRY(site_lattice(name, expected));
  STENCIL_TRY(require_field(expected, values, what.c_str()));
  // A coefficient field is read at neighbours too: its ghost zone is
  // filled once, here (periodic: coefficients take no antiperiodic sign).
  if (distributed_)
    STENCIL_TRY(
        fill_ghosts(values, distributed_->copy_site_values, false, nullptr));
  site_fields_[p] = &values;
  ++generation_;
  return Status();
}

Lattice StencilOperator::link_lattice() const {
  return link_lattice_of(*info_, lattice_);
}

Status StencilOperator::check_gauge(const GaugeField &U) const {
  const LinkInfo *links = info_->links;
  const std::string name = stencil_name();
  if (!links)
    return Status::failure(name + " has no link taps, so it takes no links");
  if (U.dims() != lattice_.dims || U.colours() != links->colours)
    return Status::failure(
        name + ": the gauge field has " + std::to_string(U.dims()) +
        " dimensions and " + std::to_string(U.colours()) +
        " colours; the stencil needs " + std::to_string(lattice_.dims) +
        " and " + std::to_string(links->colours));
  for (int axis = 0; axis < lattice_.dims; ++axis)
    if (U.extents()[axis] != lattice_.extents[axis])
      return Status::failure(
          name + ": the gauge field's extent along axis " +
          std::to_string(axis) + " is " + std::to_string(U.extents()[axis]) +
          ", the lattice's " + std::to_string(lattice_.extents[axis]));
  return Status();
}

Status StencilOperator::upload_links(const GaugeField &whole,
                                     Field &out) const {
  STENCIL_TRY(require_created("upload_links"));
  // A link that fails the check in one rank's block: every rank returns
  // (set_links, next, exchanges ghost links), and none has replaced `out`.
  Field uploaded;
  const Status mine = upload_links_on_rank(whole, uploaded);
  STENCIL_TRY(decomposition_ ? decomposition_->comm.agree(mine) : mine);
  out = std::move(uploaded);
  return Status();
}

Status StencilOperator::upload_links_on_rank(const GaugeField &whole,
                                             Field &out) const {
  GaugeField box;
  const GaugeField *local = nullptr;
  STENCIL_TRY(local_gauge(whole, local, box));
  const GaugeField &U = *local;
  STENCIL_TRY(check_gauge(U));
  const LinkInfo *links = info_->links;
  const std::string name = stencil_name();
  const int n = links->colours;
  const int stored = links->reals_per_link;
  if (stored != 2 * n * n) {
    const double tolerance = lattice_.element_bytes == 4 ? 1e-6 : 1e-10;
    std::int64_t site = 0;
    int mu = 0;
    const double worst = U.worst_link(site, mu);
    if (!(worst <= tolerance))
      return Status::failure(
          name +
          ": links are stored as two rows with the third rebuilt, "
          "which needs SU(" +
          std::to_string(n) + ") matrices, but U_" + std::to_string(mu) +
          " at site " + std::to_string(site) +
          (decomposition_ ? " of this rank's box (its block and ghost "
                            "layers, x fastest)"
                          : "") +
          " is " + number_text(worst) +
          " from unitary with det 1 "
          "(tolerance " +
          number_text(tolerance) +
          "); reunitarise the links (GaugeField::reunitarise, or "
          "--reunitarise in a solve program) or use "
          "'compression: none'");
  }
  Field field;
  STENCIL_TRY(Field::create(link_lattice(), field));
  const std::int64_t sites = lattice_.sites();
  if (stored == U.reals_per_link()) {
    // The gauge field's own order: no copy (a 48^3 x 64 lattice's links
    // are 2.5 GB in double).
    STENCIL_TRY(field.upload_values(
        U.data().data(), static_cast<std::int64_t>(U.data().size())));
  } else {
    std::vector<double> values(sites * lattice_.dims * stored);
    for (std::int64_t s = 0; s < sites; ++s)
      for (int mu = 0; mu < lattice_.dims; ++mu)
        std::copy(U.link(s, mu), U.link(s, mu) + stored,
                  values.data() + (s * lattice_.dims + mu) * stored);
    STENCIL_TRY(field.upload_values(
        values.data(), static_cast<std::int64_t>(values.size())));
  }
  out = std::move(field);
  return Status();
}

Status StencilOperator::set_links(const Field &links) {
  return local_failure_ends_job(set_links_on_rank(links), "set_links");
}

Status StencilOperator::set_links_on_rank(const Field &links) {
  STENCIL_TRY(require_created("set_links"));
  if (!info_->links) // the spec's, compared by create_distributed
    return Status::failure_on_every_rank(
        std::string(stencil_name()) +
        " has no link taps, so it takes no links");
  STENCIL_TRY(require_field(link_lattice(), links, "links"));
  // Backward taps read U_mu(x - mu) in the ghost zone: filled once, here
  // (links are periodic; the antiperiodic sign belongs to fields).
  if (distributed_)
    STENCIL_TRY(fill_ghosts(links, distributed_->copy_links, false, nullptr));
  links_ = &links;
  ++generation_;
  return Status();
}

Lattice StencilOperator::clover_lattice() const {
  Lattice lattice = lattice_;
  lattice.element_bytes = array_element_bytes(lattice_);
  if (const CloverInfo *clover = info_->clover) {
    lattice.components = clover->reals_per_site;
    lattice.layout = clover->layout;
  }
  return lattice;
}

namespace {

/// c_sw with the parameter values `values`.
double clover_csw(const KernelInfo &info, const double *values) {
  double csw = info.clover->csw_constant;
  for (int p = 0; p < info.num_params; ++p)
    csw += info.clover->csw_factors[p] * values[p];
  return csw;
}

/// The clover tap's coefficient (the diagonal without the clover term).
double clover_diagonal(const KernelInfo &info, const double *values) {
  return scalar_coefficient(info, info.clover->tap, values);
}

/// Whether parameter p enters the clover term.
bool enters_clover(const KernelInfo &info, int p) {
  return info.clover->csw_factors[p] != 0.0 ||
         info.tap_factors[info.clover->tap * info.num_params + p] != 0.0;
}

} // namespace

Status StencilOperator::upload_clover(const GaugeField &U, CloverArrays &out,
                                      int inverse_parity) const {
  CloverField A; // compute_clover refuses an operator never created
  // Agreed on: a rank that failed here would leave the others waiting in
  // the next call's agreement.
  const Status computed = compute_clover(U, A);
  STENCIL_TRY(decomposition_ ? decomposition_->comm.agree(computed) : computed);
  return upload_clover(A, out, inverse_parity);
}

Status StencilOperator::compute_clover(const GaugeField &U,
                                       CloverField &out) const {
  STENCIL_TRY(require_created("compute_clover"));
  if (!info_->clover)
    return Status::failure(std::string(stencil_name()) + " has no clover term");
  const double diagonal = clover_diagonal(*info_, values_.data());
  const double csw = clover_csw(*info_, values_.data());
  if (!decomposition_) {
    STENCIL_TRY(check_gauge(U));
    return CloverField::create(U, diagonal - 4.0, csw, out);
  }
  // The rank's sites, ghosts included, from a box two sites wider on every
  // side: a clover leaf reaches x +/- mu +/- nu, so the margins' wrapped
  // links spoil only the margins.
  const GaugeField *local = nullptr;
  GaugeField rankBox;
  STENCIL_TRY(local_gauge(U, local, rankBox));
  const Decomposition &d = *decomposition_;
  int first[kMaxDims] = {0, 0, 0, 0}, extents[kMaxDims] = {1, 1, 1, 1},
      inner[kMaxDims] = {2, 2, 2, 2};
  for (int axis = 0; axis < d.dims; ++axis) {
    first[axis] = d.global_of(axis, 0) - 2;
    extents[axis] = d.local[axis] + 4;
  }
  GaugeField wide;
  STENCIL_TRY(gauge_box(U, first, extents, wide));
  CloverField margins;
  STENCIL_TRY(CloverField::create(wide, diagonal - 4.0, csw, margins));
  return margins.box(inner, d.local, out);
}

Status StencilOperator::upload_clover(const CloverField &A, CloverArrays &out,
                                      int inverse_parity) const {
  STENCIL_TRY(require_created("upload_clover"));
  // A block that cannot be inverted on one rank stops every rank.
  const Status mine = upload_clover_on_rank(A, out, inverse_parity);
  return decomposition_ ? decomposition_->comm.agree(mine) : mine;
}

Status StencilOperator::upload_clover_on_rank(const CloverField &A,
                                              CloverArrays &out,
                                              int inverse_parity) const {
  const std::string name = stencil_name();
  if (!info_->clover)
    return Status::failure(name + " has no clover term");
  if (inverse_parity < -1 || inverse_parity > 1)
    return Status::failure(name + ": upload_clover: inverse parity " +
                           std::to_string(inverse_parity) +
                           " is not -1 (none), 0 (even) or 1 (odd)");
  if (inverse_parity >= 0 && !info_->layout.even_odd)
    return Status::failure(name + ": the clover inverse on one parity needs "
                                  "even/odd storage; pass -1");
  if (A.colours() != info_->clover->colours ||
      A.sites() != lattice_.sites())
    return Status::failure(name + ": the clover field has " +
                           std::to_string(A.sites()) + " sites of " +
                           std::to_string(A.colours()) +
                           " colours; the lattice " +
                           std::to_string(lattice_.sites()) + " of " +
                           std::to_string(info_->clover->colours));
  const double diagonal = clover_diagonal(*info_, values_.data());
  const double csw = clover_csw(*info_, values_.data());
  auto differs = [](double a, double b) {
    return std::fabs(a - b) > 1e-12 * std::max(1.0, std::fabs(b));
  };
  if (differs(4.0 + A.mass(), diagonal) || differs(A.csw(), csw))
    return Status::failure(
        name + ": the clover field was computed with 4 + mass = " +
        std::to_string(4.0 + A.mass()) + " and c_sw = " +
        std::to_string(A.csw()) + "; the parameters give " +
        std::to_string(diagonal) + " and " + std::to_string(csw));
  CloverArrays arrays;
  STENCIL_TRY(Field::create(clover_lattice(), arrays.clover));
  STENCIL_TRY(arrays.clover.upload_values(
      A.data().data(), static_cast<std::int64_t>(A.data().size())));
  if (inverse_parity >= 0) {
    CloverField inverse;
    Status status = A.invert(inverse_parity, inverse);
    if (!status.ok())
      return Status::failure(name + ": " + status.message());
    // The half's values in its own order (site h of the parity is the
    // one of lexicographic sites 2h, 2h + 1 with that parity; nx is even).
    const Lattice half = clover_lattice().half(inverse_parity);
    const int reals = info_->clover->reals_per_site;
    std::vector<double> values(half.values());
    const int *n = lattice_.extents;
    for (std::int64_t h = 0; h < half.sites(); ++h) {
      std::int64_t site = 2 * h;
      const int parity = static_cast<int>(
          (site % n[0] + site / n[0] % n[1] + site / n[0] / n[1] % n[2] +
           site / n[0] / n[1] / n[2]) % 2);
      if (parity != inverse_parity)
        ++site;
      std::copy_n(inverse.data().data() + site * reals, reals,
                  values.data() + h * reals);
    }
    STENCIL_TRY(Field::create(half, arrays.inverse));
    STENCIL_TRY(arrays.inverse.upload_values(
        values.data(), static_cast<std::int64_t>(values.size())));
  }
  arrays.inverse_parity = inverse_parity;
  arrays.parameters = values_;
  out = std::move(arrays);
  return Status();
}

Status StencilOperator::require_clover_inverse(int parity) const {
  if (clover_->inverse_parity == parity)
    return Status();
  auto sites = [](int p) {
    return std::string(p == 1 ? "odd" : "even") + " sites";
  };
  return Status::failure(
      std::string(stencil_name()) + ": applying A^-1 on the " + sites(parity) +
      " needs the clover inverse there; " +
      (clover_->inverse_parity < 0
           ? std::string("none was computed")
           : "it was computed on the " + sites(clover_->inverse_parity)) +
      " (upload_clover's inverse_parity)");
}

Status StencilOperator::set_clover(const CloverArrays &arrays) {
  STENCIL_TRY(require_created("set_clover"));
  if (!info_->clover)
    return Status::failure(std::string(stencil_name()) + " has no clover term");
  STENCIL_TRY(require_same_lattice(clover_lattice(), arrays.clover.lattice(),
                                   "clover"));
  if (arrays.inverse_parity >= 0)
    STENCIL_TRY(require_same_lattice(
        clover_lattice().half(arrays.inverse_parity), arrays.inverse.lattice(),
        "clover inverse"));
  if (arrays.parameters.size() != values_.size())
    return Status::failure(std::string(stencil_name()) +
                           ": clover arrays of another stencil");
  clover_ = &arrays;
  ++generation_;
  return Status();
}

Status StencilOperator::gather_parameters(
    std::vector<const void *> &fields) const {
  fields.assign(info_->num_params + (info_->links ? 1 : 0) +
                    (info_->clover ? 2 : 0),
                nullptr);
  if (info_->clover) {
    const std::string name = stencil_name();
    if (!clover_)
      return Status::failure(name + ": clover term '" + info_->clover->name +
                             "' has no arrays; call upload_clover() and "
                             "set_clover()");
    for (int p = 0; p < info_->num_params; ++p)
      if (enters_clover(*info_, p) && clover_->parameters[p] != values_[p])
        return Status::failure(
            name + ": the clover term was computed with " +
            info_->param_names[p] + " = " +
            std::to_string(clover_->parameters[p]) + ", and " +
            info_->param_names[p] + " is now " + std::to_string(values_[p]) +
            "; compute it again (upload_clover, set_clover)");
    fields[info_->num_params + 1] = clover_->clover.data();
    if (clover_->inverse_parity >= 0)
      fields[info_->num_params + 2] = clover_->inverse.data();
  }
  if (info_->links) {
    if (!links_)
      return Status::failure(std::string(stencil_name()) + ": link field '" +
                             info_->links->name + "' has no array; call "
                             "set_links()");
    fields[info_->num_params] = links_->data();
  }
  for (int p = 0; p < info_->num_params; ++p) {
    if (!info_->param_is_site[p])
      continue;
    if (!site_fields_[p])
      return Status::failure(std::string(stencil_name()) + ": site parameter '" +
                             info_->param_names[p] + "' has no array; call "
                             "set_site_parameter()");
    fields[p] = site_fields_[p]->data();
  }
  return Status();
}

Status StencilOperator::apply(Field &out, const Field &in,
                              Stream stream) const {
  return local_failure_ends_job(apply_on_rank(out, in, stream), "apply");
}

Status StencilOperator::apply_on_rank(Field &out, const Field &in,
                                      Stream stream) const {
  STENCIL_TRY(require_created("apply"));
  STENCIL_TRY(require_field(lattice_, in, "apply: in"));
  STENCIL_TRY(require_field(lattice_, out, "apply: out"));
  std::vector<const void *> fields;
  STENCIL_TRY(gather_parameters(fields));
  if (!distributed_)
    return info_->apply(out.data(), in.data(), extents_, values_.data(),
                        fields.data(), stream);
  return with_halos(in, stream, [&](const Region &region) {
    return distributed_->apply(out.data(), in.data(), extents_,
                               values_.data(), fields.data(), region, stream);
  });
}

namespace {

/// The blocks of the whole-lattice launch over `extents` (0 for an empty
/// lattice): the block partials a summing kernel writes.
Status launch_blocks(const KernelInfo &info, const int *extents, int kernel,
                     std::int64_t &blocks) {
  LaunchConfig config;
  STENCIL_TRY(launch_config(info, extents, config, kernel));
  blocks = config.empty ? 0
                        : static_cast<std::int64_t>(config.grid.x) *
                              config.grid.y * config.grid.z;
  return Status();
}

} // namespace

Status StencilOperator::fold_partial_count(std::int64_t &blocks) const {
  STENCIL_TRY(require_created("fold_partial_count"));
  if (!has_apply_fold_dot())
    return Status::failure(std::string("fold_partial_count: ") +
                           stencil_name() +
                           " has no fold kernel for this operator");
  return launch_blocks(fold_info(), extents_, kMarchFold, blocks);
}

Status StencilOperator::apply_fold_dot(Field &out, Field &next_direction,
                                       const Field &r, const Field &direction,
                                       double beta, Reducer &reducer,
                                       double &result, Stream stream) const {
  STENCIL_TRY(require_created("apply_fold_dot"));
  const double *betaOnDevice = nullptr;
  STENCIL_TRY(reducer.device_scalar(beta, betaOnDevice));
  std::int64_t blocks = 0;
  STENCIL_TRY(apply_fold_partials(out, next_direction, r, direction,
                                  betaOnDevice, nullptr, nullptr, reducer,
                                  blocks, stream));
  result = 0.0;
  if (blocks == 0)
    return Status();
  return reducer.sum_block_partials(blocks, result);
}

Status StencilOperator::apply_fold_partials(Field &out, Field &next_direction,
                                            const Field &r,
                                            const Field &direction,
                                            const double *beta,
                                            Field *solution,
                                            const double *alpha,
                                            Reducer &reducer,
                                            std::int64_t &blocks,
                                            Stream stream) const {
  STENCIL_TRY(require_created("apply_fold_partials"));
  const KernelInfo &fold = fold_info();
  if (!fold.apply_fold_dot)
    return Status::failure(std::string("apply_fold_dot: ") + stencil_name() +
                           " has no kernel with CG's direction update folded "
                           "in (emitted with apply_dot, except for the "
                           "kernels only ranks run)");
  if (distributed_)
    return Status::failure("apply_fold_dot: not for operators split over "
                           "ranks (the halos of both fields would travel); "
                           "use apply_dot");
  const std::pair<const Field *, const char *> fields[] = {
      {&out, "apply_fold_dot: out"},
      {&next_direction, "apply_fold_dot: next_direction"},
      {&r, "apply_fold_dot: r"},
      {&direction, "apply_fold_dot: direction"}};
  for (const auto &[field, what] : fields)
    STENCIL_TRY(require_field(lattice_, *field, what));
  if (solution) {
    // x in the kernels' arithmetic type: float for bfloat16 fields.
    Lattice xLattice = lattice_;
    xLattice.element_bytes = std::max(lattice_.element_bytes, 4);
    STENCIL_TRY(
        require_field(xLattice, *solution, "apply_fold_dot: solution"));
    if (alpha == nullptr)
      return Status::failure("apply_fold_dot: a solution to update but no "
                             "alpha");
  }
  blocks = 0;
  STENCIL_TRY(launch_blocks(fold, extents_, kMarchFold, blocks));
  if (blocks == 0)
    return Status();
  std::vector<const void *> parameters;
  STENCIL_TRY(gather_parameters(parameters));
  double *partials = nullptr;
  STENCIL_TRY(reducer.block_partials(blocks, partials));
  return fold.apply_fold_dot(out.data(), next_direction.data(), r.data(),
                               direction.data(), beta,
                               solution ? solution->data() : nullptr, alpha,
                               extents_,
                               values_.data(), parameters.data(), partials,
                               stream);
}

Status StencilOperator::apply_dot(Field &out, const Field &in,
                                  Reducer &reducer, double &result,
                                  Stream stream) const {
  return local_failure_ends_job(
      apply_dot_on_rank(out, in, reducer, result, stream), "apply_dot");
}

Status StencilOperator::apply_dot_on_rank(Field &out, const Field &in,
                                          Reducer &reducer, double &result,
                                          Stream stream) const {
  STENCIL_TRY(require_created("apply_dot"));
  if (!info_->apply_dot)
    return Status::failure_on_every_rank(
        std::string("apply_dot: ") + stencil_name() +
        " has no fused stencil-and-dot kernel (emitted "
        "for solver: cg, storage not even/odd, blocks of "
        "a multiple of 64 threads)");
  STENCIL_TRY(require_field(lattice_, in, "apply_dot: in"));
  STENCIL_TRY(require_field(lattice_, out, "apply_dot: out"));
  std::int64_t blocks = 0;
  STENCIL_TRY(launch_blocks(*info_, extents_, kMarchDot, blocks));
  result = 0.0;
  if (blocks == 0)
    return Status();
  std::vector<const void *> fields;
  STENCIL_TRY(gather_parameters(fields));
  double *partials = nullptr;
  if (!distributed_) {
    STENCIL_TRY(reducer.block_partials(blocks, partials));
    STENCIL_TRY(info_->apply_dot(out.data(), in.data(), extents_,
                                 values_.data(), fields.data(), partials,
                                 stream));
    return reducer.sum_block_partials(blocks, result);
  }
  // The interior and the boundary launches write a set of partials each.
  STENCIL_TRY(reducer.block_partials(2 * blocks, partials));
  int launch = 0;
  STENCIL_TRY(with_halos(in, stream, [&](const Region &region) {
    return distributed_->apply_dot(out.data(), in.data(), extents_,
                                   values_.data(), fields.data(),
                                   partials + blocks * launch++, region,
                                   stream);
  }));
  if (launch == 1) // one launch (no overlap): no second set
    STENCIL_TRY(device_zero(partials + blocks, blocks * sizeof(double)));
  return reducer.sum_block_partials(2 * blocks, result);
}

Status StencilOperator::apply_adjoint(Field &out, const Field &in,
                                      Stream stream) const {
  return local_failure_ends_job(apply_adjoint_on_rank(out, in, stream),
                                "apply_adjoint");
}

Status StencilOperator::apply_adjoint_on_rank(Field &out, const Field &in,
                                              Stream stream) const {
  STENCIL_TRY(require_created("apply_adjoint"));
  STENCIL_TRY(require_field(lattice_, in, "apply_adjoint: in"));
  STENCIL_TRY(require_field(lattice_, out, "apply_adjoint: out"));
  std::vector<const void *> fields;
  STENCIL_TRY(gather_parameters(fields));
  if (!distributed_)
    return info_->apply_adjoint(out.data(), in.data(), extents_,
                                values_.data(), fields.data(), stream);
  return with_halos(in, stream, [&](const Region &region) {
    return distributed_->apply_adjoint(out.data(), in.data(), extents_,
                                       values_.data(), fields.data(), region,
                                       stream);
  });
}

Status StencilOperator::diagonal(Field &out) const {
  STENCIL_TRY(require_created("diagonal"));
  // A zero diagonal on one rank stops every rank.
  const Status mine = diagonal_on_rank(out);
  return decomposition_ ? decomposition_->comm.agree(mine) : mine;
}

Status StencilOperator::diagonal_on_rank(Field &out) const {
  STENCIL_TRY(require_field(lattice_, out, "diagonal"));
  if (info_->clover)
    return Status::failure(std::string(stencil_name()) +
                           ": the diagonal is the clover term, a matrix per "
                           "site, not one value per component (Jacobi does "
                           "not apply; the Schur complement inverts it)");
  const int centre = info_->centre_tap;
  // Computed once per solve, so on the host: simple and exact.
  const std::int64_t count = lattice_.sites();
  const int nc = lattice_.components;
  std::vector<double> diag(count, 0.0);
  if (centre >= 0) {
    HostCoefficients coefficients;
    STENCIL_TRY(host_coefficients(coefficients));
    for (std::int64_t s = 0; s < count; ++s) {
      const HostCoefficients::Coordinates x = coefficients.coordinates(s);
      // The halo's entries are overwritten below.
      if (!coefficients.updated(x))
        continue;
      // A complex field may enter as a + conj(a); its values decide.
      const std::complex<double> d = coefficients.complex_at(centre, x);
      if (d.imag() != 0.0)
        return Status::failure(
            std::string(stencil_name()) + ": the diagonal at site " +
            std::to_string(s) + " (host order) is complex (imaginary part " +
            std::to_string(d.imag()) + "); Jacobi preconditioning divides by "
            "a real diagonal only");
      diag[s] = d.real();
    }
  }
  std::vector<double> expanded(count * nc);
  for (std::int64_t s = 0; s < count; ++s)
    for (int k = 0; k < nc; ++k)
      expanded[s * nc + k] = diag[s];
  STENCIL_TRY(out.upload_values(expanded.data(), count * nc));
  STENCIL_TRY(set_halo(out, 1.0));
  // A zero diagonal on an interior site makes Jacobi undefined.
  std::vector<double> check(count * nc);
  STENCIL_TRY(out.download_values(check.data(), count * nc));
  for (double d : check)
    if (d == 0.0 || !std::isfinite(d))
      return Status::failure(std::string(stencil_name()) +
                             ": the diagonal has a zero or non-finite entry; "
                             "Jacobi preconditioning is undefined");
  return Status();
}

Status StencilOperator::hop(Hop direction, bool adjoint, Field &out,
                            const Field &in, HopMode mode, double alpha,
                            double beta, const Field *same,
                            Stream stream) const {
  return local_failure_ends_job(
      hop_on_rank(direction, adjoint, out, in, mode, alpha, beta, same, stream),
      "hop");
}

Status StencilOperator::hop_on_rank(Hop direction, bool adjoint, Field &out,
                                    const Field &in, HopMode mode, double alpha,
                                    double beta, const Field *same,
                                    Stream stream) const {
  STENCIL_TRY(require_created("hop"));
  const EvenOddKernels *kernels = info_->even_odd;
  if (!kernels) // the spec's, compared by create_distributed
    return Status::failure_on_every_rank(
        std::string(stencil_name()) +
        " does not store its fields even/odd "
        "(field.even_odd), so it has no hopping kernels");
  const bool toOdd = direction == Hop::EvenToOdd;
  const Lattice target = lattice_.half(toOdd ? 1 : 0);
  const Lattice source = lattice_.half(toOdd ? 0 : 1);
  STENCIL_TRY(require_field(target, out, "hop: out"));
  STENCIL_TRY(require_field(source, in, "hop: in"));
  if (same)
    STENCIL_TRY(require_field(target, *same, "hop: same"));
  std::vector<const void *> fields;
  STENCIL_TRY(gather_parameters(fields));
  if (info_->clover && mode == kInverseDiagonalHop)
    STENCIL_TRY(require_clover_inverse(toOdd ? 1 : 0));
  HopApply kernel = toOdd ? (adjoint ? kernels->even_to_odd_adjoint
                                     : kernels->even_to_odd)
                          : (adjoint ? kernels->odd_to_even_adjoint
                                     : kernels->odd_to_even);
  if (!distributed_)
    return kernel(out.data(), in.data(), same ? same->data() : nullptr, mode,
                  alpha, beta, extents_, values_.data(), fields.data(),
                  stream);
  const RegionHop regionKernel =
      toOdd ? (adjoint ? distributed_->even_to_odd_adjoint
                       : distributed_->even_to_odd)
            : (adjoint ? distributed_->odd_to_even_adjoint
                       : distributed_->odd_to_even);
  return with_halos(in, stream, [&](const Region &region) {
    return regionKernel(out.data(), in.data(), same ? same->data() : nullptr,
                        mode, alpha, beta, extents_, values_.data(),
                        fields.data(), region, stream);
  });
}

Status StencilOperator::append_launch_key(
    std::vector<std::uint64_t> &key) const {
  STENCIL_TRY(require_created("append_launch_key"));
  std::vector<const void *> fields;
  STENCIL_TRY(gather_parameters(fields));
  key.push_back(reinterpret_cast<std::uintptr_t>(&info()));
  for (const double value : values_) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    key.push_back(bits);
  }
  for (const void *field : fields)
    key.push_back(reinterpret_cast<std::uintptr_t>(field));
  // Checked only when a launch is recorded (require_clover_inverse).
  const int inverseParity = clover_ ? clover_->inverse_parity : -1;
  key.push_back(static_cast<std::uint64_t>(inverseParity + 1));
  return Status();
}

double StencilOperator::bytes_per_hop(Hop direction, HopMode mode) const {
  if (!info_->even_odd)
    return 0.0;
  const Lattice target = lattice_.half(direction == Hop::EvenToOdd ? 1 : 0);
  const double sites = static_cast<double>(target.interior_sites());
  double bytes = sites * info_->even_odd->bytes_per_site;
  if (mode == kDiagonalPlusHop)
    bytes += sites * target.components * target.element_bytes;
  // The clover term (or its inverse) of each output site.
  if (info_->clover && mode != kHop)
    bytes += sites * info_->clover->reals_per_site *
             array_element_bytes(target);
  return bytes;
}

Status StencilOperator::apply_clover(int parity, Field &out, const Field &in,
                                     HopMode mode, double alpha, double beta,
                                     const Field *same, Stream stream) const {
  STENCIL_TRY(require_created("apply_clover"));
  const std::string name = stencil_name();
  if (!info_->clover || !info_->clover->apply)
    return Status::failure(name + " has no clover kernel (a clover term "
                                  "with even/odd storage)");
  if (parity != 0 && parity != 1)
    return Status::failure(name + ": apply_clover: parity " +
                           std::to_string(parity) + " is not 0 or 1");
  const Lattice target = lattice_.half(parity);
  STENCIL_TRY(require_field(target, out, "clover: out"));
  STENCIL_TRY(require_field(target, in, "clover: in"));
  if (same)
    STENCIL_TRY(require_field(target, *same, "clover: same"));
  std::vector<const void *> fields;
  STENCIL_TRY(gather_parameters(fields));
  if (mode == kInverseDiagonalHop)
    STENCIL_TRY(require_clover_inverse(parity));
  return info_->clover->apply(out.data(), in.data(),
                              same ? same->data() : nullptr, mode, alpha,
                              beta, parity, extents_, values_.data(),
                              fields.data(), stream);
}

double StencilOperator::bytes_per_clover(HopMode mode) const {
  if (!info_->clover)
    return 0.0;
  const Lattice half = lattice_.half(0);
  const double sites = static_cast<double>(half.interior_sites());
  const double site_bytes = half.components * half.element_bytes;
  const double clover_bytes =
      info_->clover->reals_per_site * array_element_bytes(half);
  if (mode == kHop)
    return sites * 2 * site_bytes;
  return sites * ((mode == kDiagonalPlusHop ? 3 : 2) * site_bytes +
                  clover_bytes);
}

Status StencilOperator::host_coefficients(HostCoefficients &out) const {
  STENCIL_TRY(require_created("host_coefficients"));
  std::vector<const Field *> fields(info_->num_params, nullptr);
  for (int p = 0; p < info_->num_params; ++p)
    if (info_->param_is_site[p]) {
      if (!site_fields_[p])
        return Status::failure(std::string(stencil_name()) +
                               ": site parameter '" + info_->param_names[p] +
                               "' has no array; call set_site_parameter()");
      fields[p] = site_fields_[p];
    }
  return HostCoefficients::create(*info_, lattice_, values_.data(), fields,
                                  out);
}

Status StencilOperator::check_spd() const {
  STENCIL_TRY(require_created("check_spd"));
  const Status mine = check_spd_on_rank();
  // Every rank judges its rows; all must agree before CG starts.
  return decomposition_ ? decomposition_->comm.agree(mine) : mine;
}

Status StencilOperator::check_spd_on_rank() const {
  const std::string name = stencil_name();
  if (!info_->symmetric)
    return Status::failure(name + " is not symmetric (some tap's mirror has a "
                                  "different coefficient), so CG does not "
                                  "apply; use CGNR");
  if (info_->links)
    STENCIL_TRY(check_unitary_links());
  HostCoefficients coefficients;
  STENCIL_TRY(host_coefficients(coefficients));
  // Fields off the diagonal: the entries vary, so the symbol says nothing;
  // judge the matrix itself from the fields' values. Complex fields have
  // no sign to check either, wherever they are.
  if (coefficients.off_diagonal_fields() || has_complex_parameters(*info_))
    return check_chained_dominance(declared(), coefficients);
  // Fields on the diagonal only must add a non-negative term.
  for (int i = 0; i < info_->num_field_terms; ++i) {
    const FieldTerm &term = info_->field_terms[i];
    const std::vector<double> &values = coefficients.field(term.param);
    double lowest = *std::min_element(values.begin(), values.end());
    if (term.factor * lowest < 0)
      return Status::failure(
          name + ": site parameter '" + info_->param_names[term.param] +
          "' makes the diagonal term negative somewhere (factor " +
          std::to_string(term.factor) + ", minimum value " +
          std::to_string(lowest) + "), so A may not be positive definite; "
                                   "use CGNR");
  }
  std::vector<std::array<int, 4>> offsets;
  std::vector<double> weights;
  for (int t = 0; t < info_->num_taps; ++t) {
    std::array<int, 4> offset;
    for (int axis = 0; axis < 4; ++axis)
      offset[axis] = info_->tap_offsets[t][axis];
    offsets.push_back(offset);
    // The taps' shared part: the fields' terms are checked above. With
    // links every off-centre tap enters as -|c| (the diamagnetic bound for
    // unitary links; see check/CheckSolver.cpp).
    const double weight = coefficients.shared(t);
    weights.push_back(info_->links && t != info_->centre_tap
                          ? -std::fabs(weight)
                          : weight);
  }
  SymbolMinimum minimum =
      symbol_minimum(info_->shape.dims, offsets, weights);
  // The lattice's own boundaries: the ranks' kernels see Dirichlet ghost
  // zones where the whole lattice wraps around.
  const StencilShape &shape = spec_ ? spec_->shape : info_->shape;
  // |psi| of the bound carries no antiperiodic sign: with links, judge such
  // axes as periodic.
  int boundary[kMaxDims];
  for (int axis = 0; axis < kMaxDims; ++axis)
    boundary[axis] = info_->links && shape.boundary[axis] == kAntiperiodic
                         ? kPeriodic
                         : shape.boundary[axis];
  if (symbol_positive_definite(shape.dims, offsets, weights, minimum,
                               boundary))
    return Status();
  // Not on every lattice; on this one, with the momenta its extents allow
  // (the whole lattice's, on ranks)?
  int extents[kMaxDims];
  for (int axis = 0; axis < kMaxDims; ++axis)
    extents[axis] =
        decomposition_ ? decomposition_->global[axis] : lattice_.extents[axis];
  const double tolerance = symbol_tolerance(minimum);
  const double bound =
      info_->links ? std::numeric_limits<double>::quiet_NaN()
                   : separable_lattice_bound(shape.dims, offsets, weights,
                                             boundary, extents);
  if (bound > tolerance)
    return Status();
  char value[64];
  std::string theta;
  for (int axis = 0; axis < shape.dims; ++axis) {
    std::snprintf(value, sizeof value, "%s%.6g", axis ? ", " : "",
                  minimum.theta[axis]);
    theta += value;
  }
  std::snprintf(value, sizeof value, "%.6g", minimum.value);
  std::string message =
      name +
      " is not positive definite with these parameter values: its "
      "symbol sum_o c_o cos(theta . o) reaches " +
      value + " at theta = (" + theta + ")";
  if (!std::isnan(bound)) {
    // Exact where every axis wraps; a Dirichlet section only bounds it.
    bool dirichlet = false;
    for (int axis = 0; axis < shape.dims; ++axis)
      dirichlet |= boundary[axis] == 0;
    std::snprintf(value, sizeof value, "%.6g", bound);
    message += dirichlet ? ", and at least " + std::string(value) +
                               " on this lattice's extents and boundaries"
                         : ", and " + std::string(value) +
                               " at the momenta this lattice's extents and "
                               "boundaries allow";
  }
  return Status::failure(
      message + "; it must be positive there (a zero is accepted only where "
                "no lattice reaches it: see stencil/symbol.hpp); use CGNR or a "
                "positive shift");
}

Status StencilOperator::check_unitary_links() const {
  if (!links_)
    return Status::failure(std::string(stencil_name()) + ": link field '" +
                           info_->links->name + "' has no array; call "
                           "set_links()");
  // The links as the kernels see them: rounded to the field's precision,
  // the third row rebuilt where compressed.
  const LinkInfo &links = *info_->links;
  const int n = links.colours;
  const int stored = links.reals_per_link;
  const std::int64_t sites = lattice_.sites();
  std::vector<double> values(sites * lattice_.dims * stored);
  STENCIL_TRY(links_->download_values(
      values.data(), static_cast<std::int64_t>(values.size())));
  GaugeField U;
  STENCIL_TRY(GaugeField::create(lattice_.dims, lattice_.extents, n, U));
  for (std::int64_t s = 0; s < sites; ++s)
    for (int mu = 0; mu < lattice_.dims; ++mu) {
      LinkMatrix<double, 3> m3{};
      double *target = U.link(s, mu);
      const double *from = values.data() + (s * lattice_.dims + mu) * stored;
      if (stored == 2 * n * n) {
        std::copy(from, from + stored, target);
        continue;
      }
      std::copy(from, from + stored, m3.v);
      reconstruct_third_row(m3);
      std::copy(m3.v, m3.v + 18, target);
    }
  // Unitary is what the bound needs; det U = -1 (a sign folded into the
  // links) is fine.
  const double tolerance = lattice_.element_bytes == 4 ? 1e-5 : 1e-10;
  std::int64_t site = 0;
  int mu = 0;
  const double worst = U.worst_link(site, mu, /*determinant=*/false);
  if (worst <= tolerance)
    return Status();
  return Status::failure(std::string(stencil_name()) +
                         ": CG needs unitary links (definiteness "
                         "rests on them), but U_" +
                         std::to_string(mu) + " at site " +
                         std::to_string(site) + " is " + number_text(worst) +
                         " from unitary (tolerance " + number_text(tolerance) +
                         "); reunitarise the gauge field (GaugeField::"
                         "reunitarise, or --reunitarise in a solve program) "
                         "or use CGNR");
}

double StencilOperator::bytes_per_apply() const {
  return static_cast<double>(lattice_.interior_sites()) *
         info_->bytes_per_site;
}

double StencilOperator::flops_per_apply() const {
  return static_cast<double>(lattice_.interior_sites()) *
         info_->flops_per_site;
}

Status set_random_site_parameters(StencilOperator &A, Random &random,
                                  const SiteRange &range,
                                  std::vector<std::unique_ptr<Field>> &arrays) {
  STENCIL_TRY(A.require_created("set_random_site_parameters"));
  const KernelInfo &info = A.info();
  for (int p = 0; p < info.num_params; ++p) {
    if (!info.param_is_site[p])
      continue;
    const auto [low, high] = range(info.param_names[p]);
    auto field = std::make_unique<Field>();
    Lattice lattice;
    STENCIL_TRY(A.site_lattice(info.param_names[p], lattice));
    STENCIL_TRY(Field::create(lattice, *field));
    // Distributed: the whole lattice's values, drawn as one rank would, and
    // this rank's part of them, so that any process grid sees one problem.
    const Decomposition *d = A.decomposition();
    std::int64_t count = lattice.values();
    if (d) {
      count = lattice.components;
      for (int axis = 0; axis < d->dims; ++axis)
        count *= d->global[axis];
    }
    std::vector<double> values(count);
    for (double &v : values)
      v = random.uniform(low, high);
    if (d)
      STENCIL_TRY(scatter_field(*d, values.data(), count, *field));
    else
      STENCIL_TRY(field->upload_values(values.data(), values.size()));
    STENCIL_TRY(A.set_site_parameter(info.param_names[p], *field));
    arrays.push_back(std::move(field));
  }
  return Status();
}

Status set_random_links(StencilOperator &A, Random &random, Field &links,
                        StencilOperator::CloverArrays *clover) {
  STENCIL_TRY(A.require_created("set_random_links"));
  const LinkInfo *info = A.info().links;
  if (!info)
    return Status();
  if (A.info().clover && !clover)
    return Status::failure(std::string(A.info().name) +
                           " has a clover term: pass arrays to hold it");
  // The whole lattice's links for a distributed operator (upload_links
  // takes its block of them).
  const Decomposition *d = A.decomposition();
  GaugeField U;
  STENCIL_TRY(GaugeField::create(A.lattice().dims,
                                 d ? d->global : A.lattice().extents,
                                 info->colours, U));
  U.set_random(random);
  return set_gauge_field(A, U, links, clover);
}

Status set_gauge_field(StencilOperator &A, const GaugeField &U, Field &links,
                       StencilOperator::CloverArrays *clover) {
  if (!A.info().links)
    return Status::failure(std::string(A.info().name) +
                           " has no link taps, so it takes no gauge field");
  if (A.info().clover && !clover)
    return Status::failure(std::string(A.info().name) +
                           " has a clover term: pass arrays to hold it");
  STENCIL_TRY(A.upload_links(U, links));
  STENCIL_TRY(A.set_links(links));
  if (!A.info().clover)
    return Status();
  STENCIL_TRY(
      A.upload_clover(U, *clover, A.info().layout.even_odd ? 1 : -1));
  return A.set_clover(*clover);
}

} // namespace stencil
