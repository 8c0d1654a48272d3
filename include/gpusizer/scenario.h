#pragma once
// A Scenario is what the user asked: Model (what) + Workload (how it is run) + System (on what),
// checked and with every default applied. Parsed from the contract's scenario JSON
// (docs/contract.md); every bad field is named in an InputError.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusizer/catalog.h"
#include "gpusizer/gpu.h"
#include "gpusizer/model.h"
#include "gpusizer/number_format.h"
#include "gpusizer/traffic.h"
#include "gpusizer/training_options.h"
#include "gpusizer/weights_file.h"

namespace gpusizer {

enum class Task { kInference, kLora, kQlora, kFull, kFreeze, kPretrain, kCvTrain };

/// "inference", "lora", ... as the contract spells them.
std::string to_string(Task task);
/// The same, not copied.
std::string_view task_name(Task task);
/// Every task but inference trains. Inline: estimates ask it a dozen times each (issue 18).
inline bool is_training(Task task) {
  return task != Task::kInference;
}

struct Parallelism {
  int64_t tp = 1, pp = 1, dp = 1, ep = 1;
  bool sequence_parallel = false;
  int64_t pp_interleave = 1;
  /// Context parallelism (training): the sequence split over cp ranks, attention as a ring of
  /// key/value blocks (Megatron-Core context_parallel; Liu et al. 2023, Ring Attention).
  int64_t cp = 1;
  /// Tensor-parallel collectives pipelined with the GEMMs they feed or follow (Megatron-Core
  /// --tp-comm-overlap: Transformer Engine userbuffers; torchtitan's async TP): the all-gathers
  /// and reduce-scatters of sequence parallelism, which it needs.
  bool tp_comm_overlap = false;
};

/// What the estimators read of the catalog on every call, looked up once per scenario (by
/// parse_scenario, resolved() in estimate/layout.h and edited() in scenario_edit.h) instead of by
/// name in each estimator (issue 18). Read it only through src/scenario/lookups.h, which checks
/// its key: the entries are used only while the scenario's engine, GPU and weights format are
/// those they were looked up for, and only with the catalog (and its speed profile) that looked
/// them up; otherwise the estimators look the figures up again. So a scenario edited after it was
/// resolved never reads a stale entry, it only loses the shortcut. The weights format is keyed by
/// its row (FormatRef::get()): another row, even with the same id, is another key. The pointers
/// point into that Catalog, which owns the rows: a resolved scenario must not be estimated after
/// its catalog is destroyed (the catalog's address is part of the key, a destroyed one's is not
/// recognisable). The model's counts are not kept here: each estimate counts its model once
/// (ModelCounts, src/memory/model_counts.h), and a search over one model counts it once for the
/// search.
struct ScenarioLookups {
  // The key (the engine's is engine->name == Scenario::engine).
  const Catalog* catalog = nullptr;
  GpuRef gpu;  ///< held, so that its address cannot be reused by another GPU while it is a key
  FormatRef weights;  ///< held, so that its address cannot be reused by another row
  const EngineProfile* engine = nullptr;  ///< data/engines.json
  /// engine->release(engine_version) when the version was known at the lookup; keyed by its own
  /// version (engine_release() in src/scenario/lookups.h compares it with the scenario's).
  const EngineRelease* release = nullptr;
  // With a GPU: the speed profile's entries (data/speed.json) for the engine, GPU and weights.
  bool speed = false;
  const InferenceProfile* inference = nullptr;
  const TrainingProfile* training = nullptr;
  KernelScale weight_kernel, vendor;
  double fp16_accumulate_factor = 1;
  double attention_efficiency = 0;         ///< the engine's kernels on the GPU's family
  double training_attention_backward = 0;  ///< the GPU's family
  double matmul_fraction = 0, matmul_fraction_default = 0, fp8_matmul_fraction = 0;
  const BitsandbytesKernel* bitsandbytes = nullptr;
};

struct Scenario {
  /// The catalog's row (Catalog::model_ref) or an import's, shared, not copied: read it as
  /// `*model` or `model->`, change it through model.edit() (copy on write, ModelRef in model.h).
  ModelRef model;
  std::string model_origin;                 ///< "catalog", "hf_config", "path", "params",
                                            ///< "hf-cache", "modelscope", "ollama"
  std::optional<WeightsFile> weights_file;  ///< exact bytes read from safetensors/GGUF
  std::vector<std::string> notes;           ///< assumptions made while reading the input

  Task task = Task::kInference;
  /// The rows of data/formats.csv (Catalog::format_ref), shared, not copied: a scenario holds
  /// them past its catalog's life. A format built by hand (an importer's, a test's) is its own.
  FormatRef weights;
  FormatRef kv_cache;
  int64_t batch = 1;
  int64_t seq_len = 2048;
  int64_t prompt_len = 1536;
  int64_t output_len = 512;
  std::string engine = "hf";
  std::string engine_version;     ///< the release whose rules apply (engines.json releases)
  std::string engine_basis;       ///< why this engine: given, or the default and its reason
  bool engine_defaulted = false;  ///< the input named no engine: it is the default (follows GPU)
  double gpu_memory_utilization = 0.9;
  bool gpu_memory_utilization_given = false;  ///< else the engine release's default fraction
  int64_t max_num_batched_tokens = 0;  ///< preallocating engines' token budget; 0 = engine default
  /// Preallocating engines' limits as launched or built; 0 = the engine's default. max_num_seqs:
  /// sequences one step may run (vLLM --max-num-seqs, SGLang --max-running-requests,
  /// TensorRT-LLM max_batch_size); max_model_len: the longest sequence the engine takes (vLLM
  /// --max-model-len, SGLang --context-length, TensorRT-LLM max_seq_len).
  int64_t max_num_seqs = 0;
  int64_t max_model_len = 0;
  /// The longest sequence the engine is launched or built for: max_model_len when given, else
  /// the scenario's own seq_len (the engine taken as set up for this workload).
  int64_t engine_max_model_len() const { return max_model_len > 0 ? max_model_len : seq_len; }
  TrainingOptions training;
  Parallelism parallel;

  bool default_layout = false;     ///< serving: gpu_count given without tp/pp (estimate/layout.h)
  int64_t requested_replicas = 0;  ///< with default_layout: the dp the user fixed, 0 = free

  std::optional<Traffic> traffic;  ///< serving: the request traffic (scenario/traffic.cc)
  /// Serving: an offline job of this many requests of prompt_len + output_len tokens, all
  /// queued at once (a batch-inference run or trtllm-bench's dataset); 0 = none.
  int64_t offline_requests = 0;
  ServiceLevel slo;  ///< with traffic: the service level it must meet

  GpuRef gpu;
  int64_t gpu_count = 1;
  int64_t gpus_per_node = 8;

  int64_t image_size = 0;  ///< cv-train
  int64_t dataset_items = 0;
  int64_t epochs = 0;

  /// Overrides of data/costs.json and data/facility.json: null when the input gives none (read as
  /// no overrides, as an empty object is; issue 18: two empty objects were two allocations a
  /// Scenario and each of its copies), else the input's object.
  nlohmann::json costs;
  nlohmann::json facility;

  ScenarioLookups lookups;  ///< catalog entries resolved once; keyed, see ScenarioLookups

  /// GPUs one model replica spans: the one layout rule that memory, speed and the advisor read.
  /// Serving: pp x max(tp, ep); expert parallelism lives inside the replica, over its tensor
  /// ranks and any attention data-parallel groups (vLLM FusedMoEParallelConfig: ep = tp x dp;
  /// SGLang --enable-dp-attention), so gpu_count = dp x pp x max(tp, ep), dp = replicas.
  /// Training: tp x pp x ep x cp; Megatron carves expert parallelism out of the data-parallel
  /// ranks, and parallel.dp counts the data-parallel groups beyond it; context-parallel ranks
  /// share one sequence (Megatron-Core parallel_state: world = tp x cp x pp x dp).
  int64_t replica_gpus() const {
    return task == Task::kInference ? parallel.pp * std::max(parallel.tp, parallel.ep)
                                    : parallel.tp * parallel.pp * parallel.ep * parallel.cp;
  }
  /// Serving with ep > tp: groups of tp GPUs inside a replica that each run attention (and hold
  /// the KV cache) for their own share of the sequences; 1 otherwise.
  int64_t attention_groups() const {
    return task == Task::kInference && parallel.ep > parallel.tp ? parallel.ep / parallel.tp : 1;
  }
  /// Ranks over which one routed expert's weights are split: serving splits the experts over
  /// ep whole (vLLM's MoE layers run with tp 1 under expert parallelism), training over tp x ep.
  int64_t expert_shards() const {
    if (task == Task::kInference) return parallel.ep > 1 ? parallel.ep : parallel.tp;
    return parallel.tp * parallel.ep;
  }
  /// Training: the ranks that hold the same dense (non-expert) parameters, over which their
  /// gradients are reduced and ZeRO shards their states: dp x ep x cp. Megatron-Core's
  /// data-parallel group with context parallelism (world / (tp x pp)), out of which expert
  /// parallelism is carved (parallel_state.py; DeepSpeed-MoE and torchtitan's FSDP likewise
  /// shard the dense states over the expert and context ranks).
  int64_t dense_data_ranks() const { return parallel.dp * parallel.ep * parallel.cp; }
  /// Training: the ranks that hold the same shard of the routed experts: dp x cp, Megatron-Core's
  /// expert-data-parallel group (world / (etp x ep x pp), etp = tp).
  int64_t expert_data_ranks() const { return parallel.dp * parallel.cp; }
};

/// Whether a LoRA target name selects a module, matching by suffix as PEFT does
/// ("gate_proj" selects "experts.gate_proj"); "all-linear" selects every matrix but the router.
bool lora_target_matches(std::string_view target, std::string_view module);

/// The keys the scenario JSON reads (docs/contract.md, plus the extensions the code accepts), by
/// object. parse_scenario turns any other key of the top level, "training" or "parallel" into a
/// note ("ignored unknown field ..."); the fuzz seed dictionary is built from these lists.
struct ScenarioKeys {
  std::vector<std::string> top;       ///< the scenario object itself
  std::vector<std::string> model;     ///< an inline "model" object: {"hf_config"} or {"params"}
  std::vector<std::string> training;  ///< the "training" object
  std::vector<std::string> parallel;  ///< the "parallel" object
};
const ScenarioKeys& scenario_keys();

}  // namespace gpusizer
