// stencil/operator.hpp - a generated stencil as a linear operator on fields.
#ifndef STENCIL_OPERATOR_HPP
#define STENCIL_OPERATOR_HPP

#include "stencil/blas.hpp"
#include "stencil/clover.hpp"
#include "stencil/coefficients.hpp"
#include "stencil/comm.hpp"
#include "stencil/field.hpp"
#include "stencil/gauge.hpp"
#include "stencil/halo_exchange.hpp"
#include "stencil/kernel_info.hpp"
#include "stencil/random.hpp"
#include "stencil/types.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace stencil {

struct KernelSelection; // stencil/tuning.hpp

namespace detail {

/// A pointer that a move leaves null, so that a moved-from object reads as
/// one never created and its methods refuse instead of using moved-out
/// state.
template <typename T> class NullAfterMove {
public:
  NullAfterMove() = default;
  NullAfterMove(T *pointer) : pointer_(pointer) {}
  NullAfterMove(const NullAfterMove &) = default;
  NullAfterMove &operator=(const NullAfterMove &) = default;
  NullAfterMove(NullAfterMove &&other) noexcept
      : pointer_(std::exchange(other.pointer_, nullptr)) {}
  NullAfterMove &operator=(NullAfterMove &&other) noexcept {
    pointer_ = std::exchange(other.pointer_, nullptr);
    return *this;
  }
  T *operator->() const { return pointer_; }
  T &operator*() const { return *pointer_; }
  operator T *() const { return pointer_; }

private:
  T *pointer_ = nullptr;
};

} // namespace detail

/// A = the stencil of `info` on a lattice of given extents, with parameter
/// values (the spec's defaults until set). On a Dirichlet lattice A acts on
/// the interior unknowns: fields passed to apply() hold zero in the halo
/// unless they carry boundary values on purpose (see README).

class StencilOperator {
public:
  /// Which of a stencil's compiled kernels to run: the one the tuning
  /// cache chooses for this device and these extents (stencil/tuning.hpp),
  /// or exactly the one given.
  enum class Kernels { Tuned, AsGiven };
  static Status create(const KernelInfo &info, const int *extents,
                       StencilOperator &out, Kernels kernels = Kernels::Tuned);
  /// This rank's part of A on the lattice of `extents` (the whole
  /// lattice's, as create() takes them) divided by `grid` among the ranks
  /// of `comm` (docs/distributed.md): its own block of sites with a ghost
  /// zone along every exchanged axis, which the operator fills from the
  /// neighbours before each application. Its lattice() is the rank's;
  /// fields, site parameters and links live on it (scatter_field() and
  /// gather_field() move whole fields; upload_links() and upload_clover()
  /// take the whole gauge field). Needs info.distributed (the spec's
  /// grid.split) unless the grid is one rank. Collective, as are the
  /// applications, set_site_parameter(), set_links(), upload_clover(),
  /// diagonal(), check_spd() and the operator's destruction (with the peer
  /// path): every rank calls them in the same order. A failure on some
  /// ranks only is agreed on where the call ends in a collective anyway
  /// (upload_links(), upload_clover(), diagonal(), check_spd()); in the
  /// calls that exchange halos (the applications, exchange_halos(),
  /// set_site_parameter(), set_links()) it ends the job with its message
  /// (Communicator::local_failure_ends_job), since agreeing would cost a
  /// collective per application.
  ///
  /// The ghost zones of coefficient fields and links are filled when they
  /// are set: after changing their values, set them again. An application
  /// fills the ghost zone of `in` (storage the exchange owns) and zeroes it
  /// afterwards, also when the kernel fails, so that reductions count each
  /// site once; `in` must not be in use elsewhere meanwhile (another
  /// stream, or as a coefficient field of the operator).
  static Status create_distributed(const KernelInfo &info, const int *extents,
                                   const Communicator &comm,
                                   const ProcessGrid &grid,
                                   StencilOperator &out);
  /// The same operator in the precision of mixed-precision CG's inner
  /// iterations (the spec's inner_precision; KernelInfo::inner): the same
  /// extents and parameter values, site parameters, links and clover
  /// arrays converted (out holds the converted arrays; set them here
  /// first). One rank only (an error says so).
  Status create_inner(StencilOperator &out) const;
  /// The rank's block, or null for an operator made by create().
  const Decomposition *decomposition() const { return decomposition_.get(); }
  /// The ranks A spans: one without a decomposition.
  Communicator communicator() const;
  /// The halo exchange, or null for an operator made by create().
  const HaloExchange *exchange() const { return exchange_.get(); }
  /// Distributed: whether an application computes the sites whose stencil
  /// reads no ghost zone while the halos travel, then the others (two
  /// launches), or exchanges first and launches once. create_distributed()
  /// takes the policy select_exchange() chooses (grid.exchange, the tuning
  /// cache, STENCILC_EXCHANGE and STENCILC_OVERLAP;
  /// stencil/exchange_choice.hpp).
  void set_overlap(bool overlap);
  bool overlap() const { return overlap_; }
  /// Distributed: runs the halo exchange with `options` from now on. A new
  /// transport sets the exchange up again: collective. For the exchange
  /// tuner (stencil/exchange_tuning.hpp) and for tests.
  /// `why` goes into exchange_choice().
  Status set_exchange(const ExchangeOptions &options,
                      const std::string &why = "set_exchange");
  ExchangeOptions exchange_options() const { return {transport_, overlap_}; }
  /// Distributed: fills the ghost zones of `field` (on lattice() or one
  /// parity's half of it) from the neighbours and zeroes them again, what
  /// each application's exchange does, without a kernel: for measuring
  /// the exchange alone. Collective.
  Status exchange_halos(const Field &field) const;
  /// Which exchange policy runs and why (the spec, the tuning cache, the
  /// environment), for reports; empty for an operator made by create().
  const std::string &exchange_choice() const { return exchange_choice_; }

  /// Whether create() or create_distributed() made this operator (a
  /// default-constructed or moved-from one was not).
  bool created() const { return info_ != nullptr; }
  /// A clear error naming `what` unless created().
  Status require_created(const char *what) const;
  /// The kernels that run (a tuned variant's, or the spec's own).
  const KernelInfo &info() const { return *info_; }
  /// The spec's name, whichever of its kernel sets runs (info().name may
  /// be a variant's, NAME_x2 or NAME_tuned1): what messages name.
  const char *stencil_name() const {
    return declared_ ? declared_->name : info_->name;
  }
  /// The kernels of CG's fold pass (apply_fold_dot): a tuning-cache entry
  /// of its own for this device and these extents, or the planner's
  /// fold-pass kernels (stencil/tuning.hpp), else info().
  const KernelInfo &fold_info() const {
    return fold_info_ ? *fold_info_ : *info_;
  }
  /// Which kernels run and why, for reports.
  const std::string &kernel_choice() const { return choice_; }
  const Lattice &lattice() const { return lattice_; }
  /// The lattice of a real site parameter's array: one value per site.
  Lattice site_lattice() const;
  /// The lattice of site parameter `name`'s array: one value per site, or
  /// for a complex one an (re, im) pair per site (2 components, site-major:
  /// the pair of the site at position i of site_lattice() sits at 2 i).
  /// Fails for a name that is not a site parameter.
  Status site_lattice(const std::string &name, Lattice &out) const;

  Status set_parameter(const std::string &name, double value);
  /// The scalar parameters' values, in info().param_names' order (a site
  /// parameter's entry is unused).
  const std::vector<double> &parameter_values() const { return values_; }
  /// Counts the calls that change what the operator reads (set_parameter,
  /// set_site_parameter, set_links, set_clover), so that what was derived
  /// from it (a Schur complement's diagonal) knows when to derive it again;
  /// the same on every rank where every rank makes the same calls.
  std::uint64_t parameter_generation() const { return generation_; }
  /// Whether the operator reads memory of `field`: a site parameter's
  /// array, the links or the clover arrays. A solve must not write there.
  bool reads(const Field &field) const;
  /// `values` must outlive the operator's use; its lattice is
  /// site_lattice(name) and, for CG, its values must make A positive
  /// definite (check_spd()).
  Status set_site_parameter(const std::string &name, const Field &values);

  /// Stencils with links (info().links): the lattice of the link array,
  /// per site dims N x N matrices of reals_per_link reals in the links'
  /// layout.
  Lattice link_lattice() const;
  /// Creates `out` on link_lattice() and fills it from `U` (this lattice's
  /// extents, the stencil's N), converted to the stencil's precision and
  /// layout; with two-row compression only the first two rows are stored,
  /// and links that are not SU(3) to within 1e-6 (float) or 1e-10 (double)
  /// are refused, since their third row would be rebuilt wrong
  /// (GaugeField::reunitarise() projects them). Collective on a
  /// distributed operator: a bad link in one rank's block fails every rank.
  Status upload_links(const GaugeField &U, Field &out) const;
  /// The links the kernels read; `links` must outlive the operator's use.
  Status set_links(const Field &links);
  /// The links set, or null; clear_links() forgets them.
  const Field *links() const { return links_; }
  void clear_links() { links_ = nullptr; }

  /// Wilson-clover stencils (info().clover): the arrays the kernels read,
  /// and the parameter values they were computed with.
  struct CloverArrays {
    Field clover;  ///< A(x) on every site
    Field inverse; ///< A(x)^-1 on the sites of inverse_parity (a half)
    int inverse_parity = -1; ///< -1: no inverse
    std::vector<double> parameters;
  };
  /// The lattice of the clover array: per site 8 N^2 reals in the clover's
  /// layout (its inverse: half(parity) of it).
  Lattice clover_lattice() const;
  /// Computes A(x) = (the clover tap's coefficient) + c_sw (i/4) sum
  /// sigma_mu,nu F_mu,nu(x) from U (stencil/clover.hpp) with the current
  /// parameter values, in the stencil's precision and layout, and with
  /// even/odd storage its inverse on the sites of `inverse_parity` (1, odd,
  /// for the Schur complement on even sites; -1 for none). Fails naming
  /// the site of a block that is not invertible.
  Status upload_clover(const GaugeField &U, CloverArrays &out,
                       int inverse_parity = 1) const;
  /// The clover field of U on the host with the current parameter values.
  Status compute_clover(const GaugeField &U, CloverField &out) const;
  /// The same from a clover field computed already (with the mass and c_sw
  /// the current parameters give; checked).
  Status upload_clover(const CloverField &A, CloverArrays &out,
                       int inverse_parity = 1) const;
  /// The arrays the kernels read; `arrays` must outlive the operator's use.
  /// Launches fail once a parameter that enters them (the clover tap's
  /// coefficient, c_sw) differs from the values they were computed with.
  Status set_clover(const CloverArrays &arrays);
  const CloverArrays *clover() const { return clover_; }
  /// The clover kernel (even/odd Wilson-clover stencils) on half fields of
  /// `parity`: out = beta A^-1 in (kInverseDiagonalHop, the inverse being
  /// of that parity) or alpha A same + beta in (kDiagonalPlusHop).
  Status apply_clover(int parity, Field &out, const Field &in, HopMode mode,
                      double alpha = 0.0, double beta = 1.0,
                      const Field *same = nullptr,
                      Stream stream = nullptr) const;
  /// Theoretical traffic of one apply_clover on the interior sites of one
  /// parity.
  double bytes_per_clover(HopMode mode) const;

  /// out = A in. Fails with a clear message on lattice mismatch.
  Status apply(Field &out, const Field &in, Stream stream = nullptr) const;
  /// True when the generated code has CG's fused kernel (apply_dot).
  bool has_apply_dot() const { return info_->apply_dot != nullptr; }
  /// out = A in and result = in . out in one pass over the fields (the
  /// kernel sums per block into `reducer`'s block partials). Fails unless
  /// has_apply_dot().
  Status apply_dot(Field &out, const Field &in, Reducer &reducer,
                   double &result, Stream stream = nullptr) const;
  /// True when the generated code has the fused kernel with CG's direction
  /// update folded in (apply_fold_dot) and the operator spans one rank.
  bool has_apply_fold_dot() const {
    return fold_info().apply_fold_dot != nullptr && !distributed_;
  }
  /// CG's next direction and its product in one pass: next_direction =
  /// p' = r + beta direction on the interior (its halo is not written),
  /// out = A p', result = p' . out. Four separate fields of A's lattice.
  /// Fails unless has_apply_fold_dot().
  Status apply_fold_dot(Field &out, Field &next_direction, const Field &r,
                        const Field &direction, double beta, Reducer &reducer,
                        double &result, Stream stream = nullptr) const;
  /// The same pass as CG's pipelined loop runs it: beta read from device
  /// memory, and p' . out left as `blocks` partials in `reducer`'s
  /// block_partials() for a device-side finish; where `solution` is not
  /// null, also the last step's solution += alpha direction on the interior
  /// (alpha read from device memory; the solution stored in the arithmetic
  /// type: like the fields, or float for bfloat16 ones). Returns without
  /// waiting.
  Status apply_fold_partials(Field &out, Field &next_direction,
                             const Field &r, const Field &direction,
                             const double *beta, Field *solution,
                             const double *alpha, Reducer &reducer,
                             std::int64_t &blocks,
                             Stream stream = nullptr) const;
  /// The block partials apply_fold_partials() writes on this lattice, so
  /// that a solver can allocate them before it starts its clock. Fails
  /// unless has_apply_fold_dot().
  Status fold_partial_count(std::int64_t &blocks) const;
  /// out = A^T in (the transposed stencil; A itself when symmetric).
  Status apply_adjoint(Field &out, const Field &in,
                       Stream stream = nullptr) const;
  /// The diagonal of A on every value (1 on the halo, where A is not
  /// defined), for Jacobi preconditioning.
  Status diagonal(Field &out) const;

  /// Even/odd storage only (info().even_odd): one hopping kernel on half
  /// fields (Field::half). EvenToOdd applies A_oe: `in` holds even sites,
  /// `out` odd ones; OddToEven applies A_eo. With `adjoint` the blocks of
  /// A^T instead: (A_eo)^T even-to-odd, (A_oe)^T odd-to-even. `mode`,
  /// `alpha`, `beta` and `same` select the epilogue (stencil::HopMode).
  enum class Hop { EvenToOdd, OddToEven };
  Status hop(Hop direction, bool adjoint, Field &out, const Field &in,
             HopMode mode = kHop, double alpha = 0.0, double beta = 1.0,
             const Field *same = nullptr, Stream stream = nullptr) const;
  /// Theoretical traffic of one hop into the interior sites of the output
  /// parity (kDiagonalPlusHop also reads `same`).
  double bytes_per_hop(Hop direction, HopMode mode) const;

  /// Whether apply(), hop() and apply_clover() launch kernels only (one
  /// rank: no halo exchange with its host-side messages), so that a
  /// sequence of them can be recorded as a launch graph
  /// (stencil/launch_graph.hpp).
  bool launches_only_kernels() const { return distributed_ == nullptr; }
  /// Appends to `key` everything this operator's launches take besides the
  /// fields passed to them: the kernel set, the parameters' values and the
  /// site-parameter, link and clover arrays' addresses (with the checks
  /// the launches make of them). Launches recorded under a key replay
  /// correctly while the key stays equal.
  Status append_launch_key(std::vector<std::uint64_t> &key) const;

  bool symmetric() const { return info_->symmetric; }
  /// A clear error unless A is symmetric positive definite with the current
  /// parameter values (Hermitian for complex fields and links; with links,
  /// they must be unitary, and the symbol test counts each link tap as
  /// -|c|, which bounds <psi, A psi> from below for every unitary gauge
  /// field): the symbol test of stencil/symbol.hpp, with site
  /// parameters on the diagonal checked to add a non-negative term; with
  /// coefficient fields off the diagonal or complex ones, weakly chained
  /// diagonal dominance of the matrix itself (stencil/coefficients.hpp:
  /// moduli of the couplings against a real diagonal), judged from the
  /// fields' values on the host.
  Status check_spd() const;
  /// The coefficients at each site, on the host (fields downloaded).
  Status host_coefficients(HostCoefficients &out) const;

  /// Theoretical traffic and work of one application (interior sites).
  double bytes_per_apply() const;
  double flops_per_apply() const;

private:
  int parameter_index(const std::string &name) const;
  /// The work of the collective calls that exchange halos, on this rank.
  /// Their local failures (a field of another lattice, an allocation inside
  /// the exchange, a kernel) would leave the other ranks waiting: the
  /// public functions end the job on them (local_failure_ends_job).
  Status apply_on_rank(Field &out, const Field &in, Stream stream) const;
  Status apply_dot_on_rank(Field &out, const Field &in, Reducer &reducer,
                           double &result, Stream stream) const;
  Status apply_adjoint_on_rank(Field &out, const Field &in,
                               Stream stream) const;
  Status hop_on_rank(Hop direction, bool adjoint, Field &out, const Field &in,
                     HopMode mode, double alpha, double beta, const Field *same,
                     Stream stream) const;
  Status exchange_halos_on_rank(const Field &field) const;
  Status set_site_parameter_on_rank(const std::string &name,
                                    const Field &values);
  Status set_links_on_rank(const Field &links);
  /// `status`, or on a distributed operator the end of the job if it is
  /// this rank's failure alone (Communicator::local_failure_ends_job).
  Status local_failure_ends_job(const Status &status, const char *call) const;
  /// The work of check_spd(), diagonal(), upload_links() and
  /// upload_clover() on this rank's sites; the public functions agree on
  /// the result over the ranks.
  Status check_spd_on_rank() const;
  Status upload_links_on_rank(const GaugeField &whole, Field &out) const;
  Status diagonal_on_rank(Field &out) const;
  Status upload_clover_on_rank(const CloverField &A, CloverArrays &out,
                               int inverse_parity) const;
  Status check_unitary_links() const;
  /// A clear error unless the clover inverse set is of `parity`.
  Status require_clover_inverse(int parity) const;
  /// A clear error unless U fits the stencil: dimensions, N, extents.
  Status check_gauge(const GaugeField &U) const;
  Status gather_parameters(std::vector<const void *> &fields) const;
  /// create(): CG's fold pass from its own tuning-cache entry, or the
  /// planner's fold-pass kernels, where `chosen` (select_kernels') allows.
  Status choose_fold_kernels(const KernelInfo &spec,
                             const KernelSelection &chosen);

  /// Distributed operators: ghost zones of `field` (an array of
  /// `components` reals per site, moved by `copy`) filled from the
  /// neighbours, and zeroed again; nothing otherwise.
  Status fill_ghosts(const Field &field, BoxCopy copy, bool signs,
                     Stream stream) const;
  Status clear_ghosts(const Field &field, BoxCopy copy, Stream stream) const;
  /// clear_ghosts(in), then `launched` (the kernel's status) unless it
  /// succeeded.
  Status cleared(const Field &in, BoxCopy copy, Stream stream,
                 const Status &launched) const;
  /// Distributed applications: the halos of `in` exchanged and `launch`
  /// run on the interior meanwhile and on the boundary after (overlap), or
  /// once on every site after the exchange; the ghost zone zeroed after.
  Status with_halos(const Field &in, Stream stream,
                    const std::function<Status(const Region &)> &launch) const;
  /// The sites whose stencil reads only this rank's own.
  Region interior_region() const;
  /// The gauge field of this rank's lattice: `U` itself, or for a
  /// distributed operator given the whole lattice's, its block with the
  /// ghost layers.
  Status local_gauge(const GaugeField &U, const GaugeField *&local,
                     GaugeField &box) const;

  /// Null for an operator never created (default-constructed or moved
  /// from): require_created() refuses it.
  detail::NullAfterMove<const KernelInfo> info_;
  /// CG's fold pass, where the tuning cache chose other kernels for it
  /// (their fields stored as info_'s); null otherwise.
  const KernelInfo *fold_info_ = nullptr;
  /// Distributed: the stencil as its spec declares it (info_ is the ranks'
  /// kernels); null otherwise.
  const KernelInfo *spec_ = nullptr;
  std::shared_ptr<const Decomposition> decomposition_;
  std::shared_ptr<HaloExchange> exchange_;
  const DistributedInfo *distributed_ = nullptr;
  bool overlap_ = true;
  ExchangeTransport transport_ = ExchangeTransport::Auto;
  std::size_t face_bytes_ = 0; ///< what the peer path's buffers hold
  std::string choice_, exchange_choice_;
  /// choice_ for a distributed operator: its kernels, grid and exchange.
  void describe_distributed(const ProcessGrid &grid);
  Lattice lattice_;
  int extents_[kMaxDims] = {1, 1, 1, 1};
  std::vector<double> values_;
  std::vector<const Field *> site_fields_;
  std::uint64_t generation_ = 0; ///< see parameter_generation()
  /// The stencil as created (info_ may be a tuned variant of it, or the
  /// planner's groups along x): what messages name.
  const KernelInfo *declared_ = nullptr;
  const KernelInfo &declared() const { return declared_ ? *declared_ : *info_; }
  /// create_inner(): the converted site parameter arrays and links, and
  /// the converted clover arrays.
  std::vector<std::shared_ptr<Field>> owned_fields_;
  std::shared_ptr<CloverArrays> owned_clover_;
  const Field *links_ = nullptr;
  const CloverArrays *clover_ = nullptr;
};

/// The range of values a site parameter's array is drawn from, by name.
using SiteRange =
    std::function<std::pair<double, double>(const std::string &name)>;

/// Gives each site parameter of A an array of values uniform in
/// range(name) (the real and the imaginary part of a complex one each),
/// drawn from `random` parameter by parameter in declaration order;
/// `arrays` keeps them alive. For manufactured problems, benchmarks and
/// tests.
Status set_random_site_parameters(StencilOperator &A, Random &random,
                                  const SiteRange &range,
                                  std::vector<std::unique_ptr<Field>> &arrays);

/// Gives a stencil with links (info().links) random SU(N) links
/// (GaugeField::set_random, drawn from `random`), stored in `links`, and for
/// a clover term its arrays from the same gauge field (the inverse on the
/// odd sites with even/odd storage) in `clover`; does nothing for other
/// stencils. For benchmarks, tests and the tuner.
Status set_random_links(StencilOperator &A, Random &random, Field &links,
                        StencilOperator::CloverArrays *clover = nullptr);
/// Gives a stencil with links the gauge field U, stored in `links` in the
/// stencil's link layout, and for a clover term its arrays computed from U
/// (the inverse on the odd sites with even/odd storage) in `clover`.
Status set_gauge_field(StencilOperator &A, const GaugeField &U, Field &links,
                       StencilOperator::CloverArrays *clover = nullptr);

} // namespace stencil

#endif
