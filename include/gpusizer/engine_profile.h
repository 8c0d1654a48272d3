#pragma once
// Typed engine figures read from data/engines.json: one EngineProfile per engine with its
// capability flags and, per release, the rules by which it sizes its memory at start-up; the
// device figures (driver reservation, ECC, CUDA context, NCCL) apart from the engines. The
// estimators read these structs, never the JSON and never an engine's name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusizer/training_options.h"

namespace gpusizer {

/// DeepSpeed ZeRO-3's parameter-coordinator and bucket settings (engines.json deepspeed.zero3):
/// DeepSpeed's own defaults, and the per-hidden-size rules of the HF "auto" config templates.
struct Zero3Defaults {
  double max_live = 0;         ///< stage3_max_live_parameters
  double max_reuse = 0;        ///< stage3_max_reuse_distance
  double prefetch_bucket = 0;  ///< stage3_prefetch_bucket_size
  double persistence = 0;      ///< stage3_param_persistence_threshold
  double reduce_bucket = 0;    ///< reduce_bucket_size
  double auto_reduce_per_hidden_squared = 0;
  double auto_prefetch_per_hidden_squared = 0;
  double auto_persistence_per_hidden = 0;
  bool hf_auto = false;  ///< buckets: "hf-auto" (the templates' sizes) or DeepSpeed's defaults
};

/// Figures of the device and driver, the same under every engine (engines.json "device").
struct DeviceProfile {
  double driver_reserved_fraction = 0;
  /// The same on NVIDIA GeForce cards, whose driver keeps more of the memory from CUDA.
  double geforce_driver_reserved_fraction = 0;
  double gddr_ecc_fraction = 0;
  double apple_wired_fraction = 0;
  double cuda_context_bytes = 0;
  double nccl_bytes_per_communicator = 0;
};

/// How a preallocating engine sizes its KV pool at start-up.
enum class PoolRule {
  /// vLLM: fraction x total memory - weights - profiled activation peak - non-torch memory
  /// (vllm/worker/worker.py determine_num_available_blocks; v1/worker/gpu_worker.py).
  kShareOfTotal,
  /// SGLang: memory free after the weights - (1 - fraction) x total, i.e. fraction x total -
  /// weights - non-torch memory; activations and CUDA graphs live in the reserve
  /// (sglang/srt/model_executor/model_runner.py profile_max_num_token).
  kStaticShareOfTotal,
  /// TensorRT-LLM: fraction x the memory free once weights and the activation workspace are in
  /// place (tensorrt_llm KvCacheConfig.free_gpu_memory_fraction).
  kShareOfFree,
};

/// The defaults SGLang gives a GPU of less than `below_gib` of memory (engines.json
/// reserved_memory.gpu_classes; server_args.py _handle_gpu_memory_settings): its chunked prefill
/// size and its CUDA-graph batch limit, below and from reserved_memory.large_tp ranks.
struct GpuClassDefaults {
  double below_gib = 0;  ///< 0: every larger GPU (the last class)
  int64_t chunk_tokens = 0;
  int64_t graph_bs = 0, graph_bs_large_tp = 0;
};

/// The memory SGLang from 0.5.3 keeps out of mem_fraction_static when none is given
/// (engines.json ENGINE.releases[].reserved_memory; python/sglang/srt/server_args.py
/// _handle_gpu_memory_settings): base + per_chunk_token x max(chunk, min_chunk_tokens) +
/// per_graph_seq x cuda_graph_max_bs + per_rank x tp x pp MiB (+ the piecewise CUDA graphs'
/// per_size_mib x captured sizes from 0.5.10), at least floor above floor_above GiB of GPU memory;
/// the fraction is 1 - that / the GPU's memory, to 3 decimals. Empty classes: the release has no
/// such rule. The token counts SGLang captures piecewise (prefill) CUDA graphs for from 0.5.10
/// (engines.json reserved_memory.prefill_graphs; server_args.py
/// _generate_piecewise_cuda_graph_tokens): each range's first, first + step, ... up to its last (0:
/// up to the largest captured count), and per_size_mib reserved for each captured count. Empty
/// ranges: no such term.
struct PrefillGraphRule {
  struct Range {
    int64_t first = 0, last = 0, step = 1;
  };
  double per_size_mib = 0;
  int64_t mla_max_tokens = 0;  ///< the largest count for an MLA model (else the chunk size)
  std::vector<Range> ranges;
  /// How many counts up to `max_tokens` are captured.
  int64_t sizes(int64_t max_tokens) const;
};

struct ReservedMemoryRule {
  double base_mib = 0, per_chunk_token_mib = 0, per_graph_seq_mib = 0, per_rank_mib = 0;
  int64_t min_chunk_tokens = 0;
  double floor_mib = 0, floor_above_gib = 0;
  int64_t large_tp = 0;                   ///< from this TP size a class's graph_bs_large_tp applies
  std::vector<GpuClassDefaults> classes;  ///< ascending below_gib, the last with 0
  PrefillGraphRule prefill_graphs;        ///< piecewise CUDA graphs (from 0.5.10)
  /// The class of a GPU with `gpu_gib` of memory; nullptr when the rule is empty.
  const GpuClassDefaults* gpu_class(double gpu_gib) const;
};

/// One release's start-up rules (engines.json ENGINE.releases[]); engines whose rules do not
/// differ by release have one release, version "all".
struct EngineRelease {
  std::string version;
  std::string source;
  /// The released versions these rules stand for, both ends inclusive (engines.json "covers":
  /// [first, last]; "0.21" as the last also covers 0.21.x); empty: only `version` itself.
  std::string covers_first, covers_last;
  /// Whether `version` (dotted numbers, "0.16.0") lies in [covers_first, covers_last].
  bool covers(std::string_view version) const;
  /// The versions covered as messages write them, in words no language needs translated:
  /// "0.21-0.28.x", "0.4.x" (a range's last version takes in its patch releases); "" without a
  /// range.
  std::string range_text() const;
  /// The engine's code path these rules are of, where it has several (vLLM: "V0" for
  /// vllm/worker/worker.py, "V1" for vllm/v1/worker/gpu_worker.py); empty: one path. A start-up
  /// log that names its path is checked with a release of that path (validate/log_check.cc).
  std::string engine_path;
  // Preallocating engines only.
  PoolRule pool_rule = PoolRule::kShareOfTotal;
  double memory_fraction = 0;  ///< default gpu_memory_utilization / mem_fraction_static / ...
  /// Defaults that depend on the replica's TP size (SGLang): (smallest tp, fraction), ascending.
  std::vector<std::pair<int64_t, double>> memory_fraction_by_tp;
  /// Defaults derived from the GPU's memory (SGLang from 0.5.3); empty classes: none.
  ReservedMemoryRule reserved_memory;
  double non_torch_bytes = 0;           ///< counted against the budget, TP 1
  double non_torch_tp_extra_bytes = 0;  ///< added per GPU when tp > 1
  /// The CUDA graphs: held beyond the budget (captured after the pool), or reserved inside it
  /// by the start-up profile when cuda_graphs_in_budget (vLLM from 0.21).
  double cuda_graph_bytes = 0;
  bool cuda_graphs_in_budget = false;
  /// The CUDA context and NCCL buffers sit outside the budget (vLLM V1 snapshots after them).
  bool baseline_outside_budget = false;
  // The start-up profile run (its token budget and rows sampled).
  int64_t profile_tokens = 0;  ///< default max_num_batched_tokens
  int64_t profile_seqs = 0;    ///< default max_num_seqs
  /// V0 without chunked prefill: the budget is max(max_model_len, profile_tokens).
  bool profile_covers_max_model_len = false;
  /// Above this max_model_len chunked prefill is on and the budget is chunked_tokens; 0 = never.
  int64_t chunked_prefill_above = 0;
  int64_t chunked_tokens = 0;
  /// Larger defaults on large GPUs (vLLM V1 get_batch_defaults): total memory at least this
  /// many GiB and a name containing none of large_gpu_excluded; 0 = no such class.
  double large_gpu_min_gib = 0;
  std::vector<std::string> large_gpu_excluded;
  int64_t large_gpu_tokens = 0, large_gpu_seqs = 0;
  double sampler_bytes_per_logit = 0;  ///< per vocabulary entry per sampled row in the profile
  /// TensorRT-LLM's C++ runtime (memory/trt_runtime.h): the buffers it allocates for every
  /// sequence slot of the engine's max_batch_size before it sizes the KV pool, per padded
  /// vocabulary entry, per token of the engine's max_seq_len and per slot; 0 = none modelled.
  int64_t runtime_max_batch = 0;
  double runtime_bytes_per_seq_logit = 0, runtime_bytes_per_seq_token = 0,
         runtime_bytes_per_seq = 0;
  // Engines that allocate as they go (Hugging Face transformers releases).
  /// Model families (config model_type) whose every attention layer builds its own rotary cos
  /// and sin cache of max_position_embeddings x head_dim at load (memory/rope_cache.h).
  std::vector<std::string> rope_cache_families;
};

/// The training layout levers an engine offers (engines.json ENGINE.training_levers, each cited
/// there and in docs/speed.md "Training layout search"): what the layout search may vary.
struct TrainingLevers {
  bool tp = false, pp = false, sp = false, cp = false, ep = false;
  bool selective = false;              ///< selective (attention-only) recomputation besides full
  int64_t max_interleave = 1;          ///< virtual pipeline stages the schedule supports
  std::vector<int> zero_stages = {0};  ///< ascending
  std::vector<Offload> offloads = {Offload::kNone};  ///< cheapest first: kNone always first
};

/// Memory-model families.
enum class EngineKind { kEager, kPreallocating, kLlamaCpp };

/// Every flag and figure is a required key of engines.json (engine_profile.cc says which keys
/// may be left out and the rule that then applies).
/// How an engine holds the layers' weights under an FP8 recipe: cast from the 16-bit copy at each
/// pass (kPerPass), cast once a step into FP8 copies kept beside it (kCached: Transformer Engine's
/// weight workspace), or held in FP8 alone, the fp32 master copy in the optimizer (kPrimary:
/// Megatron-Core's fp8_param_gather).
enum class Fp8Weights : uint8_t { kPerPass, kCached, kPrimary };

struct EngineProfile {
  std::string name;
  EngineKind kind = EngineKind::kEager;
  std::vector<std::string> tasks;   ///< to_string(Task) values it runs
  bool preallocates = false;        ///< takes a share of the GPU and pages its KV cache in it
  bool splits_tensors = false;      ///< serving splits by tensor parallelism, not by layers
  bool caches_mla_latent = false;   ///< MLA models cache the compressed latent (not full K/V)
  bool kv_grows_by_concat = false;  ///< HF DynamicCache: torch.cat keeps one layer's copy twice
  bool pp_uses_nccl = false;        ///< pipeline stages talk over an NCCL communicator
  /// Training over a layer split runs naive pipeline parallelism: one micro-batch visits the
  /// stages in turn, no pipeline schedule (Hugging Face accelerate device_map), so no 1F1B
  /// overlap and one micro-batch's activations in flight.
  bool naive_pipeline = false;
  bool persistent_grad_buffers = false;  ///< contiguous gradient buffers (DeepSpeed, Megatron)
  bool ddp_grad_buckets = false;         ///< DDP gradient buckets when data-parallel (dp > 1)
  bool own_zero3 = false;  ///< shards parameters by its own rule (FSDP), not DeepSpeed's ZeRO-3
  bool trains_on_apple = false;
  bool language_models_only = false;  ///< serves token models, not vision (CV) models
  bool fp8_kv_cache = false;          ///< can store its KV cache in fp8 (an advisor lever)
  bool fp8_kv_any_gpu = false;        ///< reads an fp8 KV cache in its own kernels on any GPU
  int max_zero_stage = 0;  ///< highest ZeRO stage it shards to (Megatron: 1); 0 if it cannot train
  std::vector<std::string> vendors;       ///< GPU vendors it runs on (gpus.csv vendor)
  std::vector<std::string> weight_kinds;  ///< formats.csv kinds it loads
  std::vector<std::string> knobs;         ///< scenario keys it honours
  // Memory figures.
  bool norm_saves_fp32_input = false;
  bool logits_all_positions_in_generate = false;
  double loss_bytes_per_logit = 0;
  double loss_bytes_per_logit_16bit = 0;
  double allocator_overhead_fraction = 0;
  bool kbit_training_fp32_upcast = false;
  bool adapters_fp32 = false;  ///< LoRA adapters (and their grads and states) in fp32
  /// FP8 training: a Linear saves its input's FP8 copy (column-wise, for the weight gradient)
  /// instead of the 16-bit input (Transformer Engine; torchao float8 keeps the 16-bit one).
  bool fp8_saves_quantized_inputs = false;
  /// A gated MLP's activation runs as one fused kernel that saves only its input (gate and up
  /// outputs) and recomputes SiLU in the backward (Megatron-Core's bias_swiglu_impl), instead
  /// of autograd saving the gate output, act(gate) and the up output.
  bool fused_swiglu = false;
  /// FP8 training: where the layers' weights live (engines.json fp8_weights).
  Fp8Weights fp8_weights = Fp8Weights::kPerPass;
  /// State-sized temporaries its default AdamW step allocates at once, in second moments
  /// (torch.optim foreach: 1; a fused or in-place optimizer: 0).
  int64_t optimizer_step_temporaries = 0;
  int64_t default_ubatch = 0;           ///< llama.cpp
  double activation_bytes = 0;          ///< llama.cpp: bytes per intermediate value
  double cuda_context_bytes = 0;        ///< 0: the device's figure
  std::vector<EngineRelease> releases;  ///< newest first
  TrainingLevers training_levers;       ///< training engines only

  bool runs(std::string_view task) const;
  bool runs_on(std::string_view vendor) const;
  bool loads(std::string_view format_kind) const;
  bool honours(std::string_view knob) const;
  /// The release named exactly `version`; nullptr for any other (no default, no error).
  const EngineRelease* find_release(std::string_view version) const;
  /// Whether `version` (dotted numbers) comes after the newest release's range ("0.28" when
  /// the newest covers 0.21 to 0.27.x): none of the releases modelled was checked against it.
  bool newer_than_modelled(std::string_view version) const;
  /// The release named `version` ("" = the newest), else named_release's.
  const EngineRelease& release(std::string_view version,
                               std::string_view field = "engine_version") const;
  /// The release named `version`, else the one whose range covers it, else the newest for a
  /// version after its range (newer_than_modelled); throws InputError naming `field` and the
  /// known versions for any other (older, between two ranges, not a number, or empty).
  const EngineRelease& named_release(std::string_view version,
                                     std::string_view field = "engine_version") const;
  const std::string& newest_version() const { return releases.front().version; }
};

/// Which engine a scenario gets when it names none (engines.json "defaults").
struct EngineDefaults {
  std::vector<std::string> serving;  ///< first that runs on the GPU and loads the weights
  std::string training;
};

/// The KV-pool fraction a preallocating engine uses: the scenario's when given, else the
/// release's default (by TP size where it has a table; a release whose default follows the GPU's
/// memory gives its fallback for an unknown GPU, as SGLang does).
double memory_fraction(const EngineRelease& r, bool given, double scenario_value, int64_t tp);

/// What a release's default fraction may depend on besides TP: pipeline stages, the chunked
/// prefill size when given (0: the GPU class's), the GPU's memory as nvidia-smi reports
/// its memory.total (0: unknown), and whether SGLang would capture piecewise prefill graphs
/// (from 0.5.10: off with PP > 1 and off CUDA) and for an MLA model.
struct FractionInputs {
  int64_t tp = 1, pp = 1;
  int64_t chunk_tokens = 0;
  double gpu_bytes = 0;
  bool piecewise = true, mla = false;
};
/// As above, with the GPU known: SGLang from 0.5.3 derives its default from the GPU's memory
/// (ReservedMemoryRule).
double memory_fraction(const EngineRelease& r, bool given, double scenario_value,
                       const FractionInputs& in);

/// What a ReservedMemoryRule derives for one GPU and layout: the settings SGLang takes by the
/// GPU's class and the default fraction they give (what the KV pool's basis names).
struct DerivedDefaults {
  double gpu_mib = 0;               ///< nvidia-smi's memory.total
  int64_t chunk_tokens = 0;         ///< the given chunked prefill size, else the class's
  int64_t graph_bs = 0;             ///< cuda_graph_max_bs
  bool prefill_graphs = false;      ///< piecewise prefill CUDA graphs captured (from 0.5.10)
  int64_t prefill_graph_sizes = 0;  ///< how many token counts they are captured for
  double fraction = 0;              ///< mem_fraction_static, to 3 decimals
};
/// The rule's defaults for `in`; nullopt when the release has no such rule or the GPU's memory is
/// unknown.
std::optional<DerivedDefaults> derived_defaults(const ReservedMemoryRule& m,
                                                const FractionInputs& in);

/// The start-up profile run's token budget and sampled rows for a context of `max_model_len`
/// on a GPU of `gpu_gib` named `gpu_name` (lower case id), unless `given_tokens` > 0.
struct ProfileRun {
  int64_t tokens = 0, seqs = 0;
};
ProfileRun profile_run(const EngineRelease& r, int64_t given_tokens, int64_t max_model_len,
                       double gpu_gib, std::string_view gpu_id);

}  // namespace gpusizer
