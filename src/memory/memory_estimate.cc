#include "memory/memory_estimate.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpusizer/units.h"
#include "memory/kbit_training.h"
#include "memory/memory_parts.h"

namespace gpusizer {
namespace {

using memory::explain_if;
using memory::Part;

struct Parts {
  Part weights, kv, activations, gradients, optimizer, master, overhead;
  double allocated() const {
    return weights.bytes + kv.bytes + activations.bytes + gradients.bytes + optimizer.bytes +
           master.bytes;
  }
};

// The parts that grow with the batch: KV cache and activations.
void fill_batch_parts(const Scenario& s, const Catalog& catalog, Parts& p, bool explain = true) {
  if (s.task == Task::kInference) {
    p.kv = memory::kv_cache(s, s.batch, s.seq_len, explain);
    // Hugging Face's DynamicCache grows by torch.cat: one layer's old and new cache coexist.
    if (s.engine == "hf") p.kv.bytes *= 1.0 + 1.0 / static_cast<double>(s.model.num_layers);
  }
  p.activations = memory::activations(s, catalog, explain);
}

Parts compute_parts(const Scenario& s, const Catalog& catalog, bool explain) {
  Parts p;
  p.weights = memory::weights(s, catalog, explain);
  if (const double up = memory::kbit_upcast_extra_bytes(s, catalog.engine(s.engine)); up > 0) {
    // PEFT prepare_model_for_kbit_training: embedding, head and norms cast to fp32.
    p.weights.bytes += up;
    p.weights.basis +=
        "; + embedding, head and norms cast to fp32 (PEFT prepare_model_for_kbit_training)";
  }
  fill_batch_parts(s, catalog, p, explain);
  p.gradients = memory::gradients(s, catalog, explain);
  p.optimizer = memory::optimizer_states(s, explain);
  p.master = memory::master_weights(s, explain);
  p.overhead = memory::overhead(s, catalog, explain);
  if (s.training.optimizer.rfind("paged-", 0) == 0 && is_training(s.task)) {
    // bitsandbytes pages these states in CUDA unified memory: the device holds them while there
    // is room, PyTorch's allocator never sees them, and they move to host memory under pressure.
    p.overhead.bytes += p.optimizer.bytes;
    p.overhead.basis +=
        explain_if(explain,
                   FMT_COMPILE(" + paged optimizer states {:.2f} GiB (unified memory, outside "
                               "PyTorch's allocator)"),
                   p.optimizer.bytes / kGiB);
    p.optimizer.basis += "; held in unified memory outside the allocator: counted in overhead";
    p.optimizer.bytes = 0;
  }
  return p;
}

// Training: the components alive at the peak. PyTorch frees gradients before each forward
// (Optimizer.zero_grad(set_to_none=True), the default since PyTorch 2.0), so without
// accumulation and without persistent gradient buffers the peak is either at the loss (all
// activations, no gradients yet) or at the end of backward (all gradients, activations freed).
// DeepSpeed and Megatron keep contiguous gradient buffers and DDP keeps gradient buckets, so
// there gradients and activations coexist.
void place_training_peak(const Scenario& s, Parts& p, MemoryEstimate& m, bool explain) {
  m.gradients_full = p.gradients.bytes;
  const bool persistent_buffers =
      s.engine == "deepspeed" || s.engine == "megatron" || (s.engine == "hf" && s.parallel.dp > 1);
  if (s.training.grad_accum > 1 || persistent_buffers || s.training.optimizer_in_backward) {
    m.peak_phase = s.training.grad_accum > 1 ? "backward of a later micro-batch (gradients "
                                               "accumulate)"
                                             : "backward (gradient buffers persist)";
    return;
  }
  if (p.activations.bytes >= p.gradients.bytes) {
    m.peak_phase = "loss (before any gradient exists)";
    p.gradients.basis +=
        explain_if(explain,
                   FMT_COMPILE("; none alive at the peak: freed by zero_grad, all {:.2f} GiB "
                               "exist only at the end of backward"),
                   p.gradients.bytes / kGiB);
    p.gradients.bytes = 0;
  } else {
    m.peak_phase = "end of backward (activations freed)";
    p.activations.basis +=
        explain_if(explain,
                   FMT_COMPILE("; freed at the peak, which comes at the end of backward "
                               "({:.2f} GiB at the loss)"),
                   p.activations.bytes / kGiB);
    p.activations.bytes = 0;
  }
}

double allocator_fraction(const Scenario& s, const Catalog& catalog) {
  return catalog.engine(s.engine).value("allocator_overhead_fraction", 0.0);
}

// Device total for a non-preallocating engine.
double device_total(const Parts& p, const Scenario& s, const Catalog& catalog) {
  return p.allocated() * (1.0 + allocator_fraction(s, catalog)) + p.overhead.bytes;
}

}  // namespace

namespace memory {

Part overhead(const Scenario& s, const Catalog& catalog, bool explain) {
  const nlohmann::json& engine = catalog.engine(s.engine);
  const nlohmann::json& device = catalog.engines().at("device");
  if (engine.value("preallocates", false)) {
    double bytes = engine.value("non_torch_bytes", 0.0);
    if (s.parallel.tp > 1) bytes += engine.value("non_torch_tp_extra_bytes", 0.0);
    return {bytes, engine.value("non_torch_source", std::string())};
  }
  const double context =
      engine.value("cuda_context_bytes", device.value("cuda_context_bytes", 5.24288e8));
  // One NCCL communicator per parallel group this GPU belongs to.
  int communicators = 0;
  communicators += s.parallel.tp > 1;
  communicators += s.parallel.pp > 1 && s.engine != "hf" && s.engine != "llama.cpp";
  communicators += s.parallel.dp > 1 && is_training(s.task);
  communicators += s.parallel.ep > 1;
  const double nccl = communicators * device.value("nccl_bytes_per_communicator", 3.3554432e8);
  std::string basis = explain_if(explain, FMT_COMPILE("CUDA context {:.0f} MiB"), context / kMiB);
  if (communicators)
    basis +=
        explain_if(explain, FMT_COMPILE(" + {} NCCL communicator(s) x {:.0f} MiB"), communicators,
                   device.value("nccl_bytes_per_communicator", 3.3554432e8) / kMiB);
  return {context + nccl, basis};
}

}  // namespace memory

MemoryEstimate estimate_memory(const Scenario& s, const Catalog& catalog, Estimate& out,
                               bool explain) {
  MemoryEstimate m;
  Parts p = compute_parts(s, catalog, explain);
  const nlohmann::json& engine = catalog.engine(s.engine);
  const bool preallocates = engine.value("preallocates", false) && s.task == Task::kInference;
  std::optional<double> capacity;
  if (s.gpu) capacity = memory::usable_capacity(*s.gpu, catalog);

  const memory::Part kv_one_sequence = memory::kv_cache(s, 1, s.seq_len, explain && preallocates);
  m.kv_bytes_per_token = s.task == Task::kInference && s.seq_len > 0
                             ? kv_one_sequence.bytes / static_cast<double>(s.seq_len)
                             : 0;
  if (is_training(s.task)) place_training_peak(s, p, m, explain);

  if (preallocates && capacity) {
    // vLLM-style: the engine takes gpu_memory_utilization x capacity and gives the KV cache
    // whatever weights, the profiled activation peak and non-torch memory leave
    // (vLLM Worker.determine_num_available_blocks).
    const double budget = s.gpu_memory_utilization * *capacity;
    const double pool = budget - p.weights.bytes - p.activations.bytes - p.overhead.bytes;
    // With attention data-parallel groups inside the replica (ep > tp) each group caches only
    // its own sequences, so a GPU holds 1/groups of the batch and the replica groups x the pool.
    const auto groups = s.attention_groups();
    const double requested = p.kv.bytes / static_cast<double>(groups);
    p.kv.bytes = std::max(0.0, pool);
    p.kv.basis =
        explain_if(explain,
                   FMT_COMPILE("KV pool = {:g} x capacity - weights - activation peak - non-torch; "
                               "per sequence: {}"),
                   s.gpu_memory_utilization, kv_one_sequence.basis);
    m.kv_cache_capacity_tokens =
        m.kv_bytes_per_token > 0
            ? groups * static_cast<int64_t>(std::max(0.0, pool) / m.kv_bytes_per_token)
            : 0;
    m.max_batch =
        kv_one_sequence.bytes > 0
            ? groups * static_cast<int64_t>(std::floor(std::max(0.0, pool) / kv_one_sequence.bytes))
            : 0;
    m.fits = pool > 0 && requested <= pool;
    m.allocated = p.allocated();
    m.reserved = m.allocated;
    m.total = std::max(budget, m.reserved + p.overhead.bytes);
    m.low = m.total * 0.99;
    m.high = m.total * 1.01;
    if (pool <= 0)
      out.warnings.push_back(fmt::format(
          "{}: weights, activations and non-torch memory exceed {:g} x {:.1f} GiB; no room for "
          "any KV cache",
          s.engine, s.gpu_memory_utilization, *capacity / kGiB));
    else if (requested > pool)
      out.warnings.push_back(
          fmt::format("the KV pool holds {} sequences of {} tokens, fewer than the batch of {}",
                      *m.max_batch, s.seq_len, s.batch));
  } else {
    if (preallocates)
      out.warnings.push_back(s.engine +
                             " preallocates a share of the GPU: give a gpu to size its "
                             "KV pool; showing the memory the batch needs");
    m.allocated = p.allocated();
    m.reserved = m.allocated * (1.0 + allocator_fraction(s, catalog));
    m.total = m.reserved + p.overhead.bytes;
    // Band: weights and states are near exact; activations and overhead are not.
    const double spread = 0.02 * (p.weights.bytes + p.kv.bytes + p.gradients.bytes +
                                  p.optimizer.bytes + p.master.bytes) +
                          0.25 * p.activations.bytes + 0.5 * p.overhead.bytes;
    m.low = m.allocated + p.overhead.bytes - spread;
    m.high = m.total + spread + 0.1 * m.allocated;
    if (capacity) {
      m.fits = m.total <= *capacity;
      if (s.task == Task::kInference && s.engine != "llama.cpp") {
        // Largest batch of seq_len sequences that fits. Every part is affine in the batch
        // (weights fixed; KV cache, prefill activations and logits per sequence), so two
        // evaluations give the line; checks on either side absorb rounding.
        Scenario t = s;
        Parts q = p;
        auto total_at = [&](int64_t b) {
          t.batch = b;
          fill_batch_parts(t, catalog, q, /*explain=*/false);
          return device_total(q, t, catalog);
        };
        const double one = total_at(1), slope = total_at(2) - one;
        int64_t b = 0;
        if (one <= *capacity)
          b = slope > 0 ? static_cast<int64_t>(std::floor((*capacity - one) / slope)) + 1
                        : int64_t{1} << 24;
        b = std::min<int64_t>(b, int64_t{1} << 24);
        while (b > 0 && total_at(b) > *capacity) --b;
        while (b < (int64_t{1} << 24) && total_at(b + 1) <= *capacity) ++b;
        m.max_batch = b;
      } else if (s.task == Task::kInference) {
        m.max_batch = s.batch;  // llama.cpp serves the slots it was started with
      }
    }
  }

  m.weights = p.weights.bytes;
  m.kv_cache = p.kv.bytes;
  m.activations = p.activations.bytes;
  m.gradients = p.gradients.bytes;
  m.optimizer = p.optimizer.bytes;
  m.master_weights = p.master.bytes;
  m.overhead = p.overhead.bytes;
  m.capacity = capacity;
  out.basis["weights_bytes"] = p.weights.basis;
  out.basis["kv_cache_bytes"] = p.kv.basis;
  out.basis["activations_bytes"] = p.activations.basis;
  out.basis["gradients_bytes"] = p.gradients.basis;
  out.basis["optimizer_bytes"] = p.optimizer.basis;
  out.basis["master_weights_bytes"] = p.master.basis;
  out.basis["overhead_bytes"] = p.overhead.basis;
  out.basis["reserved_bytes"] =
      preallocates
          ? "the engine's own allocator: reserved = allocated"
          : explain_if(explain, FMT_COMPILE("allocated x (1 + {:g}) caching-allocator slack ({})"),
                       allocator_fraction(s, catalog), s.engine);
  out.basis["total_bytes"] = preallocates && capacity
                                 ? "gpu_memory_utilization x usable capacity"
                                 : "reserved + memory outside the allocator (overhead)";
  if (capacity)
    out.basis["gpu_capacity_bytes"] =
        "marketed GiB less in-band ECC (datacenter GDDR) and the driver's reservation";
  return m;
}

}  // namespace gpusizer
