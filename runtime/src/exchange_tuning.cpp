#include "stencil/exchange_tuning.hpp"

#include "stencil/device.hpp"
#include "stencil/exchange_choice.hpp"
#include "stencil/halo_exchange.hpp"
#include "stencil/tuning.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

namespace stencil {

namespace {

/// One batch of `count` applications: the slowest rank's seconds.
Status time_batch(const std::function<Status()> &apply, int count,
                  const Communicator &comm, double &seconds) {
  STENCIL_TRY(device_synchronize());
  STENCIL_TRY(comm.barrier());
  const auto start = std::chrono::steady_clock::now();
  Status status;
  for (int i = 0; i < count && status.ok(); ++i)
    status = apply();
  if (status.ok())
    status = device_synchronize();
  STENCIL_TRY(comm.agree(status));
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          start)
                .count();
  return comm.max(seconds);
}

} // namespace

Status tune_exchange(StencilOperator &A, const std::function<Status()> &apply,
                     ExchangeTuneResult &out, std::FILE *progress,
                     const Field *halos) {
  if (!A.exchange())
    return Status::failure(std::string(A.info().name) +
                           ": tuning the halo exchange needs a distributed "
                           "operator");
  const Communicator comm = A.communicator();
  if (comm.rank() != 0)
    progress = nullptr;
  out = ExchangeTuneResult();
  std::vector<ExchangeTransport> transports;
  if (backend_name() == "host") {
    transports.push_back(ExchangeTransport::Auto);
  } else {
    transports.push_back(ExchangeTransport::Peer);
    transports.push_back(ExchangeTransport::Staged);
    if (mpi_gpu_aware())
      transports.push_back(ExchangeTransport::GpuAware);
  }
  const ExchangeOptions before = A.exchange_options();
  for (ExchangeTransport transport : transports)
    for (bool overlap : {true, false}) {
      STENCIL_TRY(A.set_exchange({transport, overlap}));
      // Peer without a neighbour on this node is the MPI path again.
      double peers = A.exchange()->policy() == ExchangePolicy::Peer;
      STENCIL_TRY(comm.max(peers));
      if (transport == ExchangeTransport::Peer && peers == 0.0)
        continue;
      ExchangeTiming timing;
      timing.options = {transport, overlap};
      timing.policy = exchange_policy_name(A.exchange()->policy());
      double seconds = 0.0;
      STENCIL_TRY(time_batch(apply, 2, comm, seconds)); // warm-up
      if (out.repetitions == 0) {
        STENCIL_TRY(time_batch(apply, 1, comm, seconds));
        out.repetitions = static_cast<int>(
            std::clamp(std::ceil(0.05 / std::max(seconds, 1e-7)), 3.0, 200.0));
      }
      double sent = A.exchange()->bytes_sent();
      double batches[3];
      for (double &batch : batches)
        STENCIL_TRY(time_batch(apply, out.repetitions, comm, batch));
      sent = (A.exchange()->bytes_sent() - sent) / (3.0 * out.repetitions);
      STENCIL_TRY(comm.sum(sent));
      std::sort(batches, batches + 3);
      timing.ms = batches[1] / out.repetitions * 1e3;
      timing.halo_bytes = sent;
      std::string alone;
      if (halos && overlap) { // the overlap does not touch the exchange
        const auto exchange = [&] { return A.exchange_halos(*halos); };
        for (double &batch : batches)
          STENCIL_TRY(time_batch(exchange, out.repetitions, comm, batch));
        std::sort(batches, batches + 3);
        timing.exchange_ms = batches[1] / out.repetitions * 1e3;
        char text[96];
        std::snprintf(text, sizeof text, "; exchange alone %.4f ms (%.1f GB/s)",
                      timing.exchange_ms,
                      timing.halo_bytes / (timing.exchange_ms * 1e-3) * 1e-9);
        alone = text;
      }
      if (progress)
        std::fprintf(progress,
                     "  exchange %-10s overlap %-3s (%s): %.4f ms per "
                     "application, %.3f MB of halos%s\n",
                     exchange_transport_name(transport), overlap ? "on" : "off",
                     timing.policy.c_str(), timing.ms,
                     timing.halo_bytes * 1e-6, alone.c_str());
      out.timings.push_back(timing);
    }
  if (out.timings.empty()) {
    STENCIL_TRY(A.set_exchange(before));
    return Status::failure("tuning the halo exchange: no policy ran");
  }
  out.best = 0;
  for (size_t i = 1; i < out.timings.size(); ++i)
    if (out.timings[i].ms < out.timings[out.best].ms)
      out.best = static_cast<int>(i);
  return A.set_exchange(out.timings[out.best].options,
                        "the fastest of " +
                            std::to_string(out.timings.size()) +
                            " policies timed by tune_exchange");
}

Status record_exchange(const KernelInfo &spec, const int *extents,
                       const ProcessGrid &grid, const std::string &device,
                       const ExchangeTuneResult &result,
                       double bytes_per_apply, const Communicator &comm,
                       const std::string &path) {
  Status status;
  if (result.best < 0)
    status = Status::failure("no exchange timing to record");
  else if (comm.rank() == 0) {
    const ExchangeTiming &best = result.timings[result.best];
    std::ofstream file(path, std::ios::app);
    char numbers[64];
    std::snprintf(numbers, sizeof numbers, "%.6g\t%.1f", best.ms,
                  bytes_per_apply / (best.ms * 1e-3) * 1e-9);
    file << spec.name << '\t' << spec.fingerprint << '\t' << device << '\t'
         << extents_text(extents, spec.shape.dims) << '\t'
         << exchange_options_text(grid.ranks, spec.shape.dims, best.options)
         << '\t' << numbers << '\n';
    if (!file)
      status = Status::failure("cannot append to the tuning cache '" + path +
                               "'");
  }
  return comm.agree(status);
}

} // namespace stencil
