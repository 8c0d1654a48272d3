// Weights, gradients, optimizer states and master weights: the "model states" of ZeRO
// (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", sec. 3.1: mixed-precision Adam keeps 2 + 2 + 12 bytes per parameter).
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text_append.h"
#include "core/text_format.h"
#include "gpusizer/error.h"
#include "memory/fp8_training.h"
#include "memory/held_layer_bytes.h"
#include "memory/kbit_training.h"
#include "memory/memory_parts.h"
#include "memory/mxfp4_marlin.h"
#include "memory/rope_cache.h"
#include "memory/sharding.h"
#include "memory/state_totals.h"
#include "scenario/lookups.h"

namespace gpusizer::memory {
namespace {

// Bytes per value of the embedding or head format a weights format names (resolved by the
// catalog from data/formats.csv), or `fallback` when it names none.
double named_bytes_or(double named_bits, double fallback) {
  return named_bits > 0 ? named_bits / 8.0 : fallback;
}

bool full_training(const Scenario& s) {
  return s.task == Task::kFull || s.task == Task::kPretrain || s.task == Task::kCvTrain;
}
bool adapter_training(const Scenario& s) {
  return s.task == Task::kLora || s.task == Task::kQlora;
}

// Bytes per LoRA adapter value, and so per gradient and optimizer state of one: fp32 where the
// engine keeps adapters in fp32 (PEFT), the model's 16-bit dtype where it builds them with the
// model (torchtune): engines.json adapters_fp32 and its source.
double adapter_bytes(const EngineProfile& engine) {
  return engine.adapters_fp32 ? 4.0 : 2.0;
}

// Whether the optimizer's states take each trainable parameter's own dtype: torch.optim on the
// module's parameters, unsharded. A ZeRO optimizer (DeepSpeed, and Megatron's distributed
// optimizer: engines with persistent contiguous gradient buffers) keeps fp32 partitions and
// fp32 states of every trainable parameter instead.
bool states_like_parameter(const Scenario& s, const EngineProfile& engine) {
  return s.training.zero_stage == 0 && !engine.persistent_grad_buffers;
}

// Bytes of the working copy of trainable weights in full training.
double working_bytes(const Scenario& s) {
  return s.training.mixed_precision == MixedPrecision::kFp32 ? 4 : 2;
}

// Parameters of each place in the model (router, norms, biases and sinks count as layers).
ModelBytes param_split(const ParamCounts& c) {
  ModelBytes p;
  p.embedding = static_cast<double>(c.embedding);
  p.lm_head = static_cast<double>(c.lm_head);
  p.experts = static_cast<double>(c.routed_experts);
  p.layers = static_cast<double>(c.total) - p.embedding - p.lm_head - p.experts;
  return p;
}

double saved_module_params(const Scenario& s, const ParamCounts& c) {
  double n = 0;
  for (const auto& m : s.training.modules_to_save) {
    if (m == "embed_tokens") n += static_cast<double>(c.embedding);
    // A tied head is the embedding itself; PEFT still saves a separate trainable copy.
    if (m == "lm_head")
      n += static_cast<double>(c.lm_head ? c.lm_head : s.model->vocab_size * s.model->hidden_size);
  }
  return n;
}

}  // namespace

// Trainable parameters by place, so that they shard as the model does.
ModelBytes trainable_split(const Scenario& s, const ParamCounts& c, double adapter_params) {
  ModelBytes t;
  if (full_training(s)) return param_split(c);
  if (s.task == Task::kFreeze) {
    const ModelBytes p = param_split(c);
    const double share = std::min(1.0, static_cast<double>(s.training.trainable_layers) /
                                           static_cast<double>(s.model->num_layers));
    t.layers = p.layers * share;
    t.experts = p.experts * share;
    return t;
  }
  if (adapter_training(s)) {
    t.layers = adapter_params;
    t.embedding = saved_module_params(s, c);
  }
  return t;
}

namespace {

ModelBytes scaled(ModelBytes b, double factor) {
  b.layers *= factor;
  b.experts *= factor;
  b.embedding *= factor;
  b.lm_head *= factor;
  return b;
}

// Optimizer state bytes per trainable parameter (PyTorch torch.optim and bitsandbytes).
double optimizer_bytes_per_param(const Scenario& s, double state_bytes) {
  switch (s.training.optimizer) {
    // bitsandbytes 8-bit blockwise states: 1 byte + one fp32 absmax per block of 256
    // (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization").
    case Optimizer::kAdamw8bit:
    case Optimizer::kPagedAdamw8bit:
      return 2.0 * (1.0 + 4.0 / 256.0);
    case Optimizer::kAdamw:
    case Optimizer::kPagedAdamw:
      return 2.0 * state_bytes;  // exp_avg, exp_avg_sq
    case Optimizer::kSgdMomentum:
    case Optimizer::kLion:
      return state_bytes;  // one momentum buffer
    case Optimizer::kSgd:
    case Optimizer::kAdafactor:  // factored, computed separately
      return 0.0;
  }
  return 0.0;
}

// DeepSpeed ZeRO-3 settings in elements, as data/engines.json "deepspeed"."zero3" gives them
// (DeepSpeed's defaults from deepspeed/runtime/zero/config.py, or the Hugging Face "auto" rules).
struct Zero3Settings {
  double max_live = 0;         // stage3_max_live_parameters
  double max_reuse = 0;        // stage3_max_reuse_distance
  double prefetch_bucket = 0;  // stage3_prefetch_bucket_size
  double persistence = 0;      // stage3_param_persistence_threshold
  double reduce_bucket = 0;    // reduce_bucket_size
  bool hf_auto = false;
};

Zero3Settings zero3_settings(const Scenario& s, const Catalog& catalog) {
  const Zero3Defaults& raw = catalog.zero3_defaults();
  Zero3Settings c;
  c.max_live = raw.max_live;
  c.max_reuse = raw.max_reuse;
  c.hf_auto = raw.hf_auto;
  const double h = static_cast<double>(s.model->hidden_size);
  if (raw.hf_auto && h > 0) {
    c.reduce_bucket = raw.auto_reduce_per_hidden_squared * h * h;
    c.prefetch_bucket = std::floor(raw.auto_prefetch_per_hidden_squared * h * h);
    c.persistence = raw.auto_persistence_per_hidden * h;
  } else {
    c.reduce_bucket = raw.reduce_bucket;
    c.prefetch_bucket = raw.prefetch_bucket;
    c.persistence = raw.persistence;
  }
  return c;
}

// FSDP has its own rule (two wrapped units in flight); every other engine's ZeRO-3 is DeepSpeed's.
bool deepspeed_zero3(const Scenario& s, const EngineProfile& engine) {
  return is_training(s.task) && s.training.zero_stage >= 3 && !engine.own_zero3;
}

// Bytes of one element of a gathered parameter: DeepSpeed holds the parameters in the training
// dtype (it casts the module to 16 bits under bf16/fp16; fp32 training keeps fp32), and a
// quantized base is stored in 16-bit elements (bitsandbytes quant_storage for ZeRO-3 QLoRA).
double gathered_element_bytes(const Scenario& s) {
  return s.training.mixed_precision == MixedPrecision::kFp32 ? 4.0 : 2.0;
}

// Equal gathered matrices in a row of the last layer's forward order: a module kind's `count`
// instances (a routed expert kind has one per expert) of `bytes` each.
struct GatheredRun {
  double bytes = 0;
  int64_t count = 0;
};

// The last layer's gathered matrices in forward order, as runs of equal ones: one run per module
// kind (at most LinearModules::kCapacity), held in place, so that no estimate allocates for it.
class GatheredRuns {
 public:
  GatheredRuns() {}  // NOLINT: the storage past size_ is never read (as LinearModules)
  void push_back(GatheredRun r) { runs_[size_++] = r; }
  const GatheredRun* begin() const { return runs_; }
  const GatheredRun* end() const { return runs_ + size_; }

 private:
  union {
    GatheredRun runs_[LinearModules::kCapacity];
  };
  size_t size_ = 0;
};

// The parameters DeepSpeed ZeRO-3 gathers and releases, in bytes on one rank (after TP/EP).
struct GatheredParams {
  GatheredRuns last_layer;         // the last layer's gathered matrices in forward order
  double largest_layer_param = 0;  // the largest matrix of any layer
  double head = 0;                 // the output head's weight (the embedding when tied)
  double embedding = 0;
  double total = 0;  // every gathered parameter of the busiest stage
  ModelBytes held;   // the same parameters at the bytes weights() holds them in, by place
};

GatheredParams gathered_params(const Scenario& s, const ModelCounts& counts,
                               const Zero3Settings& z) {
  GatheredParams g;
  const double e = gathered_element_bytes(s);
  const NumberFormat& f = *s.weights;
  const bool quantized = !full_training(s) && f.kind != std::string_view("float");
  const double matrix_bytes = quantized ? f.bytes_per_value() : e;
  const double dense_matrix_bytes = quantized ? f.dense_bytes_per_value(s.model->is_moe()) : e;
  // What weights() holds the same parameters in (the working copy, or the format), so that what
  // is not gathered (norms, biases, adapters) is the difference.
  const double held_matrix = full_training(s) ? working_bytes(s) : f.bytes_per_value();
  const double held_dense =
      full_training(s) ? held_matrix : f.dense_bytes_per_value(s.model->is_moe());
  const double held_embed =
      full_training(s) ? held_matrix : named_bytes_or(f.embedding_bits, held_matrix);
  const double held_head =
      full_training(s) ? held_matrix : named_bytes_or(f.lm_head_bits, held_matrix);
  const double tp = static_cast<double>(s.parallel.tp);
  const double expert_shards = static_cast<double>(s.expert_shards());
  const Model& m = *s.model;
  const ParamCounts& c = counts.params;
  ModelBytes all;  // gathered bytes by place, for the stage total
  ModelBytes& held = g.held;
  const LinearModules none;
  const LinearModules& mods = c.computed ? counts.modules : none;
  const bool moe_last = m.is_moe() && m.num_moe_layers > 0;
  for (const auto& mod : mods) {
    const double numel = static_cast<double>(mod.in) * static_cast<double>(mod.out);
    if (numel < z.persistence) continue;  // persistent: gathered once and kept (norm-sized)
    const double bytes = numel * (mod.expert ? matrix_bytes : dense_matrix_bytes) /
                         (mod.expert ? expert_shards : tp);
    (mod.expert ? all.experts : all.layers) += bytes * static_cast<double>(mod.count);
    (mod.expert ? held.experts : held.layers) +=
        numel * (mod.expert ? held_matrix : held_dense) * static_cast<double>(mod.count);
    g.largest_layer_param = std::max(g.largest_layer_param, bytes);
    // Only a MoE model lists MoE modules (linear_modules): a dense one's names are not read.
    const bool moe_module = m.is_moe() && !mod.attention &&
                            (mod.expert || mod.name.rfind("shared_experts.", 0) == 0 ||
                             mod.role == MatrixRole::kRouter);
    if (!mod.attention && moe_module != moe_last) continue;  // not in the last layer
    g.last_layer.push_back({bytes, mod.expert ? m.num_experts : 1});
  }
  if (mods.empty()) {
    // Given counts (hybrid or CV networks): the matrices are unknown, a layer is taken whole.
    const double layers = static_cast<double>(std::max<int64_t>(1, m.num_layers));
    const double params = static_cast<double>(c.total - c.embedding - c.lm_head);
    const double per_layer = params * matrix_bytes / tp / layers;
    all.layers = per_layer * layers;
    held.layers = params * held_matrix;
    g.largest_layer_param = per_layer;
    g.last_layer.push_back({per_layer, 1});
  }
  const double embed_bytes = quantized ? f.embedding_bytes_per_value() : e;
  const double head_bytes = quantized ? f.lm_head_bytes_per_value() : e;
  g.embedding = static_cast<double>(c.embedding) * embed_bytes / tp;
  g.head = c.lm_head > 0 ? static_cast<double>(c.lm_head) * head_bytes / tp : g.embedding;
  all.embedding = static_cast<double>(c.embedding) * embed_bytes;
  all.lm_head = static_cast<double>(c.lm_head) * head_bytes;
  held.embedding = static_cast<double>(c.embedding) * held_embed;
  held.lm_head = static_cast<double>(c.lm_head) * held_head;
  g.total = per_gpu(all, s, false);
  return g;
}

// Bytes of gathered (whole) parameters DeepSpeed ZeRO-3 holds on one GPU at the peak, beside the
// rank's own 1/dp shard (deepspeed/runtime/zero/partitioned_param_coordinator.py):
// - streaming: each module's hook gathers its own parameters, then prefetches upcoming ones while
//   fewer than stage3_max_live_parameters elements are gathered, a whole parameter at a time
//   (at most stage3_prefetch_bucket_size per hook). Every module, parameterless ones included,
//   runs the hook, so the prefetch outruns the release and the gathered set climbs to the live
//   limit; the last parameter added may cross it by its own size, which is how the output head
//   (250k x 4096 for BLOOM) comes on top of a full window: max_live + the largest parameter.
// - the forward/backward turn: a parameter is not released when its next use lies within
//   stage3_max_reuse_distance elements of the trace. The head is used again at once; a module of
//   the last layers is kept while 2 x (the parameters after it, head included) stays under the
//   distance (the trace runs forward to the head and back). Head + kept tail + the module in use.
// - with no prefetch (bucket 0) only the module in use and what the reuse distance keeps.
// The set never exceeds the stage's parameters. Limits count elements of the gathered dtype.
Part deepspeed_gathered(const Scenario& s, const Zero3Settings& z, const GatheredParams& g,
                        const Explanations* why) {
  const double e = gathered_element_bytes(s);
  const double live = z.max_live * e, reuse = z.max_reuse * e;
  const double largest = std::max({g.largest_layer_param, g.head, g.embedding});
  // Walk back from the head: a module is kept while the trace from it to its backward use
  // (the parameters after it, forward and again backward) is shorter than the reuse distance.
  double after = g.head, tail = 0;
  const int64_t layers = std::max<int64_t>(1, s.model->num_layers);
  // Every loop stops at the first module past the distance (the runs before it are not walked).
  for (int64_t l = 0; l < layers && 2.0 * after < reuse; ++l) {
    for (const GatheredRun* run = g.last_layer.end();
         run != g.last_layer.begin() && 2.0 * after < reuse;) {
      --run;
      for (int64_t i = 0; i < run->count && 2.0 * after < reuse; ++i) {
        tail += run->bytes;
        after += run->bytes;
      }
    }
  }
  const double turn = g.head + tail + g.largest_layer_param;
  const double stream = z.prefetch_bucket > 0 ? live + largest : largest;
  const double bytes = std::min(g.total, std::max(stream, turn));
  Part part{bytes, {}};
  // The text's pieces appended one by one (core/text_append.h; issue 18: fmt's compiled format
  // of its eight numbers cost ~1,300 instructions a ZeRO-3 estimate more).
  if (wants_basis(why)) {
    constexpr double kGiB = 1073741824.0;
    append_text(part.basis, "DeepSpeed ZeRO-3 gathered set ", Fixed{bytes / kGiB, 2},
                " GiB = min(stage's params, max(max_live ", Significant{z.max_live, 3}, " x ",
                General{e}, " B + largest param ", Fixed{largest / kGiB, 2}, " GiB, head ",
                Fixed{g.head / kGiB, 2}, " + ", Fixed{tail / kGiB, 2},
                " GiB kept within reuse distance ", Significant{z.max_reuse, 3}, " + one module))",
                z.hf_auto ? std::string_view(" (HF \"auto\" buckets)") : std::string_view());
  }
  return part;
}

}  // namespace

double usable_capacity(const Gpu& gpu, const Catalog& catalog) {
  const DeviceProfile& device = catalog.device();
  // Vendors market HBM and GDDR capacity in binary units ("80GB" A100 = 80 GiB).
  double bytes = gpu.memory_gb * 1024.0 * 1024.0 * 1024.0;
  if (gpu.segment == "apple-soc") return bytes * device.apple_wired_fraction;
  const bool gddr = gpu.memory_type.rfind("GDDR", 0) == 0;
  // Datacenter GDDR cards ship with ECC on, which takes capacity in-band.
  if (gddr && gpu.has_ecc() && gpu.segment == "datacenter") bytes *= 1.0 - device.gddr_ecc_fraction;
  // GeForce cards show CUDA less of their memory than datacenter cards do (data/engines.json
  // device: measured totals of the RTX 3090 and 5090); AMD's consumer cards show almost all.
  const bool geforce = gpu.segment == "consumer" && gpu.vendor == "NVIDIA";
  return bytes * (1.0 - (geforce ? device.geforce_driver_reserved_fraction
                                 : device.driver_reserved_fraction));
}

namespace {

// Inference and adapter or freeze training: the weights in their number format (quantized
// matrices, 16-bit norms and routers), the weights file's exact bytes when given, and the
// trainable copies next to them.
// Inlined into both callers of held_weights (issue 18: a call of its own cost a numbers-only
// estimate ~100 instructions once weights() and state_totals both read it).
[[gnu::always_inline]] inline ModelBytes stored_weights(
    const Scenario& s, const EngineProfile& engine, const ModelCounts& counts, const ModelBytes& p,
    const Explanations* why, std::string& basis) {
  ModelBytes b;
  const NumberFormat& f = *s.weights;
  const LinearModules& mods = counts.modules;
  const double layer_bytes = held_layer_bytes(f, s.model->is_moe(), p.layers, mods);
  // Where the count is a given fact (hybrid or CV networks), the layers' split into matrices
  // is unknown: all of it takes the format.
  // (A count is not computed exactly when it is given: count_params, model.cc.)
  b.layers = mods.empty() || s.model->given_params
                 ? p.layers * f.dense_bytes_per_value(s.model->is_moe())
                 : layer_bytes;
  b.experts = p.experts * f.bytes_per_value();
  b.embedding = p.embedding * f.embedding_bytes_per_value();
  b.lm_head = p.lm_head * f.lm_head_bytes_per_value();
  // The text's pieces appended one by one (core/text_append.h, issue 18).
  if (why) {
    basis.clear();
    basis.reserve(128);  // one allocation for the text, not one per doubling
    append_text(basis, "params x ", General{f.bits_per_value}, " bits (", f.id, ": ", f.source,
                ')');
  }
  if (wants_basis(why)) {
    if (!f.embedding_format.empty())
      append_text(basis, "; embedding ", f.embedding_format, " and head ", f.lm_head_format);
    if (!f.dense_format.empty() && s.model->is_moe())
      append_text(basis, "; ", f.dense_format, " outside the routed experts");
  }
  if (s.weights_file && s.weights_file->weights_format == f.id && s.weights_file->total_bytes > 0) {
    b = scaled(b, s.weights_file->total_bytes / b.total());
    basis = explain_if(why, FMT_COMPILE("exact tensor bytes read from {} ({})"),
                       s.weights_file->format, s.weights_file->path);
  }
  // vLLM on a GPU without FP4 tensor cores repacks the routed experts for its Marlin kernel at
  // padded shapes after loading, whatever the file holds (mxfp4_marlin.cc).
  if (vllm_marlin_mxfp4(s, engine)) {
    b.experts = marlin_mxfp4_routed_bytes(s);
    if (why)
      basis +=
          "; routed experts as vLLM's Marlin MXFP4 kernel holds them on compute capability 8.x: "
          "hidden padded to 256, intermediate per rank to 128, E8M0 scales, bf16 biases (vLLM "
          "mxfp4.py create_weights)";
  }
  // Trainable copies: LoRA adapters (fp32 in PEFT, autocast_adapter_dtype=True; 16-bit in
  // torchtune), freeze-tuned layers upcast to fp32 (LLaMA-Factory upcast_trainable_params),
  // modules_to_save copies.
  const ModelBytes& t = counts.trainable;
  if (adapter_training(s)) {
    b.layers += t.layers * adapter_bytes(engine);
    // modules_to_save copies keep the module's 16-bit dtype (PEFT ModulesToSaveWrapper).
    b.embedding += t.embedding * 2.0;
    if (why)
      basis += engine.adapters_fp32 ? "; + LoRA adapters in fp32" : "; + LoRA adapters in 16-bit";
    if (why && t.embedding > 0) basis += " and 16-bit trainable copies of the saved modules";
  } else if (s.task == Task::kFreeze) {
    b.layers += t.layers * 2.0;
    b.experts += t.experts * 2.0;
    if (why) basis += "; + trainable layers upcast to fp32";
  }
  return b;
}

// The weights' totals from their bytes `b` for the whole model (per_gpu unsharded).
[[gnu::always_inline]] inline WeightTotals weight_totals(const Scenario& s, const ModelBytes& b) {
  WeightTotals w;
  w.held = per_gpu_split(b, s);
  w.layer = (b.layers + b.experts) / static_cast<double>(s.model->num_layers);
  return w;
}

// The ranks ZeRO shards over where expert or context parallelism widens them beyond dp
// (sharding.cc zero_shard); empty where they are dp's alone.
std::string shard_ranks_text(const Scenario& s) {
  if (s.parallel.ep > 1)
    return fmt::format(
        FMT_COMPILE("; dense part over dp x ep x cp = {} ranks, routed experts over dp x cp = {}"),
        s.dense_data_ranks(), s.expert_data_ranks());
  if (s.parallel.cp > 1)
    return fmt::format(FMT_COMPILE("; over dp x cp = {} ranks"), s.expert_data_ranks());
  return {};
}

// ZeRO-3 or FSDP sharding and parameter offload of the weights `w` (weight_totals), per GPU.
double sharded_weights(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                       const ModelCounts& counts, WeightTotals& w, std::string& basis,
                       const Explanations* why) {
  const bool zero3 = is_training(s.task) && s.training.zero_stage >= 3;
  const bool params_offloaded =
      s.training.offload == Offload::kOptimizerParams && is_training(s.task);
  // zero_shard of the totals is per_gpu(b, s, true) (sharding.cc): the same double.
  double bytes = zero3 ? zero_shard(w.held, s) : w.held.whole;
  if (deepspeed_zero3(s, rules.engine)) {
    // The gathered set reads the split, not the count or the stage: made once per totals, and
    // again where a basis is asked for its text (an estimate's own totals are made for it).
    Part gathered;
    if (!w.gathered_made || why) {
      const Zero3Settings z = zero3_settings(s, catalog);
      const GatheredParams g = gathered_params(s, counts, z);
      gathered = deepspeed_gathered(s, z, g, why);
      w.gathered = gathered.bytes;
      w.gathered_held = g.held;
      w.gathered_made = true;
    }
    if (params_offloaded) {
      // The shard lives in host memory; the GPU holds the gathered set and what never leaves it
      // (persistent norms and biases, adapters, saved-module copies).
      const double resident = std::max(0.0, w.held.whole - per_gpu(w.gathered_held, s, false));
      bytes = w.gathered + resident;
      basis +=
          explain_if(why, FMT_COMPILE("; parameters offloaded to host: {} + {:.2f} GiB resident"),
                     gathered.basis, resident / 1073741824.0);
    } else if (s.dense_data_ranks() > 1) {
      bytes += w.gathered;
      // Appended in two pieces: the sum of the two was a string of its own (issue 18).
      if (why) {
        basis.append("; ZeRO-3: sharded over dp + ").append(gathered.basis);
        basis += shard_ranks_text(s);
      }
    } else {
      // One rank: a parameter is gathered as a view of its own partition (NoGatherHandle).
      if (why) basis += "; ZeRO-3 on one rank: parameters gathered in place, nothing extra";
    }
    return bytes;
  }
  if (zero3) {
    // FSDP gathers one wrapped unit (a layer) at a time; limit_all_gathers keeps two in flight.
    bytes += 2.0 * w.layer / static_cast<double>(s.parallel.tp);
    if (why) basis.append("; FSDP: sharded over dp + 2 gathered layers") += shard_ranks_text(s);
  }
  if (params_offloaded) {
    // 2 x layer is 2 x (layers + experts) / num_layers to the bit: doubling is exact.
    bytes = 2.0 * w.layer;
    if (why) basis += "; parameters offloaded to host: 2 layers resident";
  }
  return bytes;
}

// The weights held for the whole model, before any split: the working copy in full training,
// else the stored format with the trainable copies (its text into `basis` when explaining).
// This, stored_weights and weight_totals are inlined into their two callers, weights() and
// state_totals (issue 18: as calls they cost a numbers-only estimate ~85 instructions more than
// the code they were split from; the gradients' and master weights' helpers are left to GCC,
// whose inlining them too cost the explained estimates' strings' inlined appends, +30 a part).
[[gnu::always_inline]] inline ModelBytes held_weights(const Scenario& s,
                                                      const EngineProfile& engine,
                                                      const ModelCounts& counts,
                                                      const Explanations* why, std::string& basis) {
  const ModelBytes p = param_split(counts.params);
  if (!full_training(s)) return stored_weights(s, engine, counts, p, why, basis);
  if (wants_basis(why))  // its pieces appended (core/text_append.h, issue 18)
    append_text(basis, "params x ", General{working_bytes(s)}, " B (",
                s.training.mixed_precision == MixedPrecision::kFp32 ? std::string_view("fp32")
                                                                    : std::string_view("16-bit"),
                " working copy)");
  ModelBytes b = scaled(p, working_bytes(s));
  // FP8 recipes: the layers' weights as the engine holds them (fp8_training.h); the layers'
  // norms, biases and routers are counted with their matrices (a few in a thousand of them).
  if (!is_fp8(s.training.mixed_precision)) return b;
  const double layer_bytes = fp8_weight_bytes(s, engine, working_bytes(s));
  if (layer_bytes != working_bytes(s)) {
    b.layers = p.layers * layer_bytes;
    b.experts = p.experts * layer_bytes;
    if (wants_basis(why))
      append_text(basis, "; layer params x ", General{layer_bytes},
                  engine.fp8_weights == Fp8Weights::kPrimary
                      ? std::string_view(" B (FP8 weights, Megatron fp8_param_gather)")
                      : std::string_view(" B (16-bit copy and its FP8 copies kept between steps)"));
  }
  return b;
}

// Bytes per gradient: mixed precision keeps 16-bit gradients (ZeRO sec. 3.1); fp32 training and
// the fp32 trainable copies of freeze tuning keep fp32 ones; adapters keep their own dtype
// (adapter_bytes).
double gradient_bytes(const Scenario& s, const EngineProfile& engine) {
  return full_training(s) ? working_bytes(s) : adapter_training(s) ? adapter_bytes(engine) : 4.0;
}

// All the trainable parameters' gradients on one GPU of the split, before ZeRO.
SplitBytes gradient_totals(const Scenario& s, const EngineProfile& engine,
                           const ModelCounts& counts) {
  const double bytes = gradient_bytes(s, engine);
  ModelBytes t = scaled(counts.trainable, bytes);
  if (adapter_training(s)) t.embedding *= 2.0 / bytes;  // saved modules: 16-bit gradients
  return per_gpu_split(t, s);
}

// The gradients per GPU (training) from their totals `whole`: ZeRO-2/3 shards them over the
// data-parallel ranks.
double sharded_gradients(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                         const SplitBytes& whole) {
  double part = s.training.zero_stage >= 2 ? zero_shard(whole, s) : whole.whole;
  // Each gradient is applied and freed as soon as it exists (torchtune optimizer_in_bwd):
  // about one layer's worth is alive at a time.
  if (s.training.optimizer_in_backward)
    part /= static_cast<double>(std::max<int64_t>(1, s.model->num_layers));
  // DeepSpeed ZeRO-3 keeps a flat reduce bucket of reduce_bucket_size elements in the
  // parameters' dtype on the GPU for the whole run (stage3.py _setup_for_real_optimizer,
  // contiguous_gradients on by default). The fp32 gradient partitions go to the host with an
  // offloaded optimizer and are the sharded gradients above otherwise: nothing more to add.
  if (deepspeed_zero3(s, rules.engine))
    part += zero3_settings(s, catalog).reduce_bucket * gathered_element_bytes(s);
  return part;
}

// Whether the optimizer runs on the host (ZeRO-Offload): its states and the fp32 master copy
// are off the GPU. The one test of it for the optimizer states, the master copy's sharding step
// and the master copy's text.
bool optimizer_on_host(const Scenario& s) {
  return s.training.offload != Offload::kNone;
}

// Whether full training keeps a separate fp32 master copy (mixed precision).
bool keeps_master(const Scenario& s) {
  return full_training(s) && is_amp(s.training.mixed_precision);
}

// The fp32 master copy on one GPU of the split, before ZeRO (0 where none is kept).
SplitBytes master_totals(const Scenario& s, const ModelCounts& counts) {
  return keeps_master(s) ? per_gpu_split(scaled(counts.trainable, 4.0), s) : SplitBytes{};
}

// The master copy per GPU from its totals: ZeRO-1+ shards it over the data-parallel ranks.
double sharded_master(const Scenario& s, const SplitBytes& whole) {
  return s.training.zero_stage >= 1 ? zero_shard(whole, s) : whole.whole;
}

// The sharding step of the gradients and of the master copy, each the one home of its rules:
// gradients() and master_weights() (the explained estimate) and shard_states (the search's
// numbers) both apply them to the totals. No gradients without training; none of the master
// copy on the GPU when the optimizer is offloaded.
double gradients_part(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                      const SplitBytes& whole) {
  return is_training(s.task) ? sharded_gradients(s, catalog, rules, whole) : 0.0;
}
double master_part(const Scenario& s, const SplitBytes& whole) {
  return optimizer_on_host(s) ? 0.0 : sharded_master(s, whole);
}

}  // namespace

double weights(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
               const ModelCounts& counts, Explanations* why) {
  // The text is built here and copied into the basis: a string kept by the thread, cleared, so
  // no allocation per estimate (issue 18).
  thread_local std::string basis;
  basis.clear();
  WeightTotals w = weight_totals(s, held_weights(s, rules.engine, counts, why, basis));
  const double bytes = sharded_weights(s, catalog, rules, counts, w, basis, why);
  if (why) why->basis.set("weights_bytes", basis);
  return bytes;
}

double gradients(const Scenario& s, const Catalog& catalog, const EngineRules& rules,
                 const ModelCounts& counts, Explanations* why) {
  if (!is_training(s.task))  // the text's choice; gradients_part holds the rule
    return explained(0, "inference keeps no gradients", "gradients_bytes", why);
  const double part = gradients_part(s, catalog, rules, gradient_totals(s, rules.engine, counts));
  if (!wants_basis(why)) return part;
  // The text written straight into the basis, clause by clause (issue 18: a string of its own,
  // then copied), the clauses in the order sharded_gradients applies its steps, each clause's
  // pieces appended (core/text_append.h; issue 18: fmt's compiled format, ~250 instructions a
  // clause with numbers more).
  why->basis.set_with("gradients_bytes", [&](std::string& out) {
    append_text(out, "trainable params x ", General{gradient_bytes(s, rules.engine)}, " B");
    if (s.training.zero_stage >= 2)
      out.append("; ZeRO-2/3: sharded over dp") += shard_ranks_text(s);
    if (s.training.optimizer_in_backward) out.append("; optimizer in backward: one layer alive");
    if (deepspeed_zero3(s, rules.engine))
      append_text(out, "; + ZeRO-3 reduce bucket ",
                  Significant{zero3_settings(s, catalog).reduce_bucket, 3}, " x ",
                  General{gathered_element_bytes(s)}, " B");
  });
  return part;
}

double optimizer_states(const Scenario& s, const EngineRules& rules, const ModelCounts& counts,
                        Explanations* why) {
  if (!is_training(s.task))
    return explained(0, "inference keeps no optimizer states", "optimizer_bytes", why);
  // States follow the trainable parameters' dtype: fp32 with a master copy, the adapters' own
  // dtype, bf16 in pure-bf16 training (torch.optim creates states like the parameter).
  const double state_bytes = full_training(s)
                                 ? (s.training.mixed_precision == MixedPrecision::kPureBf16 ? 2 : 4)
                             : adapter_training(s) ? adapter_bytes(rules.engine)
                                                   : 4;
  const ModelBytes& t = counts.trainable;
  double per_param = optimizer_bytes_per_param(s, state_bytes);
  // The text written straight into the basis, clause by clause (issue 18: a string of its own,
  // then copied); a later set replaces what was written.
  constexpr BasisKey figure = "optimizer_bytes";
  const bool text = wants_basis(why);
  if (text)  // its pieces appended (core/text_append.h, issue 18)
    why->basis.set_with(figure, [&](std::string& out) {
      append_text(out, "trainable params x ", Significant{per_param, 3}, " B (",
                  to_string(s.training.optimizer), ')');
    });
  ModelBytes b = scaled(t, per_param);
  if (adapter_training(s) && states_like_parameter(s, rules.engine)) {
    // modules_to_save copies are 16-bit (weights above), and torch.optim creates each state
    // like its parameter (torch/optim/adamw.py _init_group: torch.zeros_like(p,
    // memory_format=torch.preserve_format)), so their states are 16-bit as their gradients are;
    // PEFT's autocast_adapter_dtype upcasts only the adapter layers (lora_A/lora_B), not the
    // saved copies.
    b.embedding = t.embedding * optimizer_bytes_per_param(s, 2.0);
  }
  if (s.training.optimizer == Optimizer::kAdafactor) {
    // Adafactor (Shazeer & Stern 2018) factors the second moment of each matrix into a row and
    // a column vector; no first moment by default.
    double factored = 0;
    for (const auto& m : counts.modules)
      factored += static_cast<double>(m.count * (m.in + m.out)) * state_bytes;
    const double share = t.total() / std::max(1.0, static_cast<double>(counts.params.total));
    b = scaled(param_split(counts.params), 0);
    b.layers = factored * std::min(1.0, share) + std::max(0.0, t.total() - t.layers) * state_bytes;
    if (text) why->basis.set(figure, "adafactor: factored second moments (rows + columns) x 4 B");
  }
  double part = per_gpu(b, s, s.training.zero_stage >= 1);
  if (text && s.training.zero_stage >= 1) {
    why->basis.append(figure, "; ZeRO-1+: sharded over dp");
    why->basis.append(figure, shard_ranks_text(s));
  }
  if (text && is_paged(s.training.optimizer))
    why->basis.append(figure, "; paged: can spill to host memory under pressure");
  if (optimizer_on_host(s)) {
    part = 0;
    if (text) why->basis.set(figure, "offloaded to host memory (ZeRO-Offload)");
  }
  return part;
}

double master_weights(const Scenario& s, const ModelCounts& counts, Explanations* why) {
  constexpr BasisKey figure = "master_weights_bytes";
  if (!keeps_master(s)) return explained(0, "no separate fp32 master copy", figure, why);
  // master_part holds the offload rule; the text follows what it decided.
  const double part = master_part(s, master_totals(s, counts));
  if (optimizer_on_host(s))
    return explained(part, "offloaded to host memory with the optimizer", figure, why);
  return explained(part, "trainable params x 4 B (fp32 master, mixed precision; ZeRO sec. 3.1)",
                   figure, why);
}

StateTotals state_totals(const Scenario& s, const EngineRules& rules, const ModelCounts& counts) {
  StateTotals t;
  std::string no_text;  // held_weights writes none without a sink
  t.weights = weight_totals(s, held_weights(s, rules.engine, counts, nullptr, no_text));
  t.kbit_upcast = kbit_upcast_extra_bytes_unsharded(s, rules.engine, counts.params);
  t.rope = rope_cache_bytes(s, *rules.release);
  if (is_training(s.task)) t.gradients = gradient_totals(s, rules.engine, counts);
  t.master = master_totals(s, counts);
  return t;
}

ShardedStates shard_states(StateTotals& t, const Scenario& s, const Catalog& catalog,
                           const EngineRules& rules, const ModelCounts& counts) {
  ShardedStates p;
  std::string no_text;  // sharded_weights writes none without a sink
  p.weights = sharded_weights(s, catalog, rules, counts, t.weights, no_text, nullptr);
  // What the load adds, as weights_part (memory_estimate.cc) adds it and in its order; a run
  // sharded by ZeRO-3 skips PEFT's cast (kbit_upcast_skipped, the rule kbit_upcast_extra_bytes
  // applies too).
  if (!kbit_upcast_skipped(s)) p.weights += t.kbit_upcast;
  p.weights += t.rope;
  p.gradients = gradients_part(s, catalog, rules, t.gradients);
  p.master = master_part(s, t.master);
  return p;
}

}  // namespace gpusizer::memory
