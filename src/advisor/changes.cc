// "What to change so it fits": the levers a scenario can pull (per task) are grouped into
// dimensions of alternatives (one weights format, one ZeRO layout, ...). Each single lever and
// each combination of up to four, one per dimension, is a typed edit of the parsed scenario
// (scenario_edit.h: the fields set, the defaults that follow them derived again, validate()),
// re-estimated in bytes-only mode (no speed); a combination that contains one already
// fitting is not tried, so only the smallest fitting combinations remain, and only those get
// the full (speed) estimate. The list is ranked fits first, then by the worst quality cost of
// its levers, then by the GPUs it needs, then by the speed it keeps. A change that does not save
// memory is never offered. The search keeps its levers once and each kept change as the levers
// it combines with its figures (advisor/changes.h); the answer writes their texts and the merge
// patch of their edits from that form, and the public Change is made from it on request.
#include "advisor/changes.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <type_traits>

#include "advisor/candidates.h"
#include "estimate/layout.h"
#include "estimate/priced.h"
#include "gpusizer/advisor.h"
#include "gpusizer/error.h"
#include "gpusizer/scenario_edit.h"
#include "gpusizer/units.h"
#include "memory/memory_estimate.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

constexpr size_t kMaxLevers = kMaxChangeLevers;  // levers in one combination
constexpr size_t kMaxCombined = 8;       // fitting combinations of two or more levers returned
constexpr size_t kMaxDims = 8;           // dimensions (training has at most 7)
constexpr size_t kMaxSearchLevers = 64;  // levers of a search (at most 16): a Pick's bits
constexpr size_t kMaxBeyond = 32;        // combinations noted beyond any optimizer (Search)

// A combination: a bit per lever picked (its flat index in Dimensions), at most one of each
// dimension. A combination lies inside another when its bits do (issue 18: one test, where a
// lever per dimension compared cost ~4k instructions a search in the walk).
using Pick = uint64_t;

// The levers, dimension by dimension, in one vector (a lever's price in words is a literal:
// none is formatted, issue 18). A dimension is a run of alternatives (one weights format, one
// ZeRO layout, ...): a combination takes at most one lever of each.
struct Dimensions {
  std::vector<ChangeLever>& levers;
  std::array<uint8_t, kMaxDims + 1> begin{};  // dimension d is levers [begin[d], begin[d + 1])
  std::array<Pick, kMaxDims> masks{};         // the same as bits of a Pick
  size_t count = 0;
  // The levers whose edit sets the optimizer alone, to one that is not paged (8-bit AdamW): a
  // combination's memory with one of them is bounded by the rest's (Search::beyond_optimizer).
  Pick optimizer_only = 0;

  // A lever made in place at the end of `levers`, its edit left for the caller to set (issue
  // 18: a lever built as a temporary, 488 bytes, then moved in and destroyed cost ~250
  // instructions more, ~7 levers a search). `name` is made before the lever is added: a name
  // past its room throws with nothing added.
  ScenarioEdit& add(const LeverName& name, PlainLiteral cost, int quality_class) {
    ChangeLever& lever = levers.emplace_back();
    lever.name = name;
    lever.cost = cost;
    lever.quality_class = quality_class;
    lever.plain = name.plain();  // its price is a PlainLiteral
    return lever.edit;
  }
  // The last lever added sets the optimizer alone (optimizer_only).
  void mark_optimizer_only() { optimizer_only |= Pick{1} << (levers.size() - 1); }
  // The levers added since the last end are a dimension; none, no dimension.
  void end() {
    if (levers.size() == begin[count]) return;
    if (count == kMaxDims || levers.size() > kMaxSearchLevers)
      throw std::logic_error("changes_to_fit: more dimensions or levers than kept");
    // Levers [begin[count], levers.size()) as bits: 2^size - 2^begin, mod 2^64 (a size of 64
    // shifts its bit out, to 0).
    const Pick end = Pick{1} << (levers.size() - 1) << 1;
    masks[count] = end - (Pick{1} << begin[count]);
    begin[++count] = static_cast<uint8_t>(levers.size());
  }
  size_t size() const { return count; }
  size_t size(size_t d) const { return begin[d + 1] - begin[d]; }
  // The flat index of dimension d's lever i.
  uint8_t index(size_t d, size_t i) const { return static_cast<uint8_t>(begin[d] + i); }
  // Dimension d's levers as a Pick.
  Pick mask(size_t d) const { return masks[d]; }
};

// The context levers: half the context, or the model's own maximum when the scenario asks for
// more than that (a suggestion never exceeds the maximum).
void context_levers(const Scenario& s, bool train, Dimensions& d) {
  if (s.model->is_cv()) return;
  const int64_t max_ctx = s.model->max_position_embeddings;
  int64_t to = 0;
  if (max_ctx > 0 && s.seq_len > max_ctx)
    to = max_ctx;
  else if (s.seq_len > 512)
    to = s.seq_len / 2;
  if (to <= 0) return;
  LeverName name(to == max_ctx && s.seq_len > max_ctx
                     ? PlainLiteral("context at the model's maximum (")
                     : PlainLiteral("shorter context ("));
  name.append(to).append(" tokens)");
  ScenarioEdit& p = d.add(name, "longer documents no longer fit; changes what the job can do", 2);
  p.seq_len = to;
  if (!train) {
    p.output_len = std::min<int64_t>(s.output_len, to / 4 > 0 ? to / 4 : 1);
    p.prompt_len = to - *p.output_len;
  }
  d.end();
}

void batch_levers(const Scenario& s, const ScenarioGiven& given, const Estimate& e, bool train,
                  Dimensions& d) {
  if (s.batch <= 1) return;
  // Half, a quarter, an eighth, a sixteenth of the batch (activations and KV cache scale with
  // it), and for serving the largest batch that fits (max_batch; for a preallocating engine the
  // sequences its KV pool holds).
  std::array<int64_t, 5> sizes{};
  size_t n = 0;
  for (int64_t part : {2, 4, 8, 16})
    if (s.batch / part >= 1 && (n == 0 || sizes[n - 1] != s.batch / part))
      sizes[n++] = s.batch / part;
  if (!train && e.memory.max_batch && *e.memory.max_batch >= 1 &&
      *e.memory.max_batch < s.batch / 2 &&
      std::find(sizes.begin(), sizes.begin() + n, *e.memory.max_batch) == sizes.begin() + n)
    sizes[n++] = *e.memory.max_batch;
  for (size_t i = 0; i < n; ++i) {
    const int64_t b = sizes[i];
    ScenarioEdit& p = d.add(LeverName("smaller batch (").append(b).append(")"),
                            train ? PlainLiteral("same global batch through gradient "
                                                 "accumulation; slower steps")
                                  : PlainLiteral("fewer concurrent sequences: lower throughput"),
                            train ? 0 : 2);
    p.batch = b;
    if (train && !given.global_batch && s.batch % b == 0)
      p.grad_accum = s.training.grad_accum * (s.batch / b);
  }
  d.end();
}

// Serving: lower-precision weights and KV cache, tensor parallelism over more GPUs.
void serving_dimensions(const Scenario& s, const Catalog& catalog, Dimensions& d) {
  const double bits = s.weights->bits_per_value;
  const EngineProfile& engine = catalog.engine(s.engine);
  const bool gguf = engine.loads("gguf");  // its quantized formats are GGUF
  if (bits > 8.5 && s.gpu && s.gpu->supports("fp8") && !gguf)
    d.add("fp8 weights", "small quality cost; faster on FP8 tensor cores", 1).weights = "fp8";
  if (bits > 8.5)
    d.add(gguf ? LeverName("q8_0 weights") : LeverName("int8 weights"),
          "small quality cost (LLM.int8 / Q8_0 are near lossless)", 1)
        .weights = gguf ? "q8_0" : "int8";
  if (bits > 4.6)
    d.add(gguf ? LeverName("q4_k_m weights") : LeverName("int4 weights (AWQ)"),
          "noticeable quality cost on hard tasks (about 1-3 points on benchmarks)", 2)
        .weights = gguf ? "q4_k_m" : "awq-int4";
  d.end();
  // GGUF engines quantize the cache in their own block types (llama.cpp --cache-type-k/v);
  // an fp8 cache only where the engine stores one (engines.json fp8_kv_cache, as the traffic
  // search asks).
  if (s.kv_cache->bits_per_value > 8 && gguf)
    d.add("q8_0 KV cache", "small quality cost", 1).kv_cache = "q8_0";
  else if (s.kv_cache->bits_per_value > 8 && engine.fp8_kv_cache)
    d.add("fp8 KV cache", "small quality cost (per-tensor scales); halves KV memory", 1).kv_cache =
        "fp8";
  d.end();
  // Tensor parallelism inside the fast-link domain; the heads must split evenly (Megatron-LM,
  // Shoeybi et al. 2019, sec. 3).
  if (!s.model->is_cv())
    for (int64_t k : {2, 4, 8}) {
      const int64_t t = s.parallel.tp * k;
      if (s.model->num_heads % t != 0 || t > std::max<int64_t>(8, s.gpus_per_node)) continue;
      ScenarioEdit& p =
          d.add(LeverName("TP=").append(t).append(" (").append(s.gpu_count * k).append(" GPUs)"),
                k == 2   ? PlainLiteral("twice the GPUs; all-reduce per layer (NVLink helps)")
                : k == 4 ? PlainLiteral("4 times the GPUs; all-reduce per layer (NVLink helps)")
                         : PlainLiteral("8 times the GPUs; all-reduce per layer (NVLink helps)"),
                0);
      p.gpu_count = s.gpu_count * k;
      p.tp = t;
      p.pp = s.parallel.pp;
      p.dp = s.parallel.dp;
    }
  d.end();
}

// The price of ZeRO-3 over more GPUs than the scenario has: a power of two from 2 to
// kMaxZeroGpus (zero_levers: more than gpu_count only when the step's count is).
PlainLiteral more_gpus_cost(int64_t gpus) {
  switch (gpus) {
    case 2:
      return "2 GPUs to buy or rent; all-gathers cost speed without NVLink";
    case 4:
      return "4 GPUs to buy or rent; all-gathers cost speed without NVLink";
    case 8:
      return "8 GPUs to buy or rent; all-gathers cost speed without NVLink";
    case 16:
      return "16 GPUs to buy or rent; all-gathers cross nodes";
    case 32:
      return "32 GPUs to buy or rent; all-gathers cross nodes";
    case 64:
      return "64 GPUs to buy or rent; all-gathers cross nodes";
    case 128:
      return "128 GPUs to buy or rent; all-gathers cross nodes";
    case 256:
      return "256 GPUs to buy or rent; all-gathers cross nodes";
    case 512:
      return "512 GPUs to buy or rent; all-gathers cross nodes";
    case 1024:
      return "1024 GPUs to buy or rent; all-gathers cross nodes";
    default:
      throw std::logic_error("zero_levers: more GPUs than a power of two up to 1024");
  }
}

// The most GPUs a ZeRO-3 lever asks for: recommend's default reach for training (advisor.md).
constexpr int64_t kMaxZeroGpus = 1024;

// Where one node is not enough: the smallest power of two past 8 GPUs (and past the scenario's
// own count) over which the model states alone fit a GPU, or 0. A 70B full fine-tune holds
// ~1.1 TB of bf16 weights and gradients and fp32 master weights and AdamW moments (16 B a
// parameter, Rajbhandari et al. 2020, sec. 3), 141 GB a GPU even sharded over 8. The states are
// the base estimate's per GPU, unsharded by its own ZeRO stage and data-parallel count and
// multiplied back over its tensor and pipeline split; activations and buffers come on top, so
// this is a lower bound, and zero_levers tries it and twice it: each candidate's own estimate
// decides whether it fits.
int64_t zero_reach(const Scenario& s, const Estimate& e) {
  const MemoryEstimate& m = e.memory;
  if (!m.capacity || *m.capacity <= 0) return 0;
  const int z = s.training.zero_stage;
  const double dp = static_cast<double>(std::max<int64_t>(1, s.parallel.dp));
  const double states = (m.weights * (z >= 3 ? dp : 1) + m.gradients * (z >= 2 ? dp : 1) +
                         (m.optimizer + m.master_weights) * (z >= 1 ? dp : 1)) *
                        static_cast<double>(s.parallel.tp * s.parallel.pp);
  int64_t n = std::max<int64_t>(8, s.gpu_count);
  if (states <= *m.capacity * static_cast<double>(n)) return 0;
  n = 16;
  while (n < kMaxZeroGpus && states > *m.capacity * static_cast<double>(n)) n *= 2;
  return n > s.gpu_count ? n : 0;
}

// ZeRO-3 shards weights, gradients and optimizer states over the data-parallel ranks
// (Rajbhandari et al. 2020, sec. 5); ZeRO-Offload keeps the optimizer on the host (Ren et
// al. 2021). Over the GPUs there are, or more.
void zero_levers(const Scenario& s, const Estimate& e, Dimensions& d) {
  int64_t last = 0;
  const int64_t reach = zero_reach(s, e);
  for (int64_t n :
       {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}, reach, std::min(2 * reach, kMaxZeroGpus)}) {
    if (n == 0) continue;
    const int64_t gpus = std::max<int64_t>(n, s.gpu_count);
    if (gpus == last || gpus < 2) continue;
    last = gpus;
    if (gpus == s.gpu_count && s.training.zero_stage >= 3 && s.parallel.dp == gpus) continue;
    ScenarioEdit& p = d.add(
        LeverName(gpus == s.gpu_count ? PlainLiteral("ZeRO-3 over the ")
                                      : PlainLiteral("ZeRO-3 over "))
            .append(gpus)
            .append(" GPUs"),
        gpus == s.gpu_count ? PlainLiteral("no quality cost; all-gathers cost speed without NVLink")
                            : more_gpus_cost(gpus),
        0);
    p.gpu_count = gpus;
    p.tp = 1;
    p.pp = 1;
    p.dp = gpus;
    p.zero_stage = 3;
  }
  if (s.training.offload == Offload::kNone && !s.model->is_cv()) {
    const int64_t gpus = s.gpu_count;
    ScenarioEdit& p = d.add("ZeRO-3 with the optimizer offloaded to the CPU",
                            "no quality cost; the optimizer step runs on the host (ZeRO-Offload): "
                            "slower steps, needs host memory",
                            0);
    p.gpu_count = gpus;
    p.tp = 1;
    p.pp = 1;
    p.dp = gpus;
    p.offload = Offload::kOptimizer;
    p.zero_stage = 3;
  }
  d.end();
}

// Training: checkpointing, 8-bit AdamW, a lighter method, FlashAttention, ZeRO layouts.
void training_dimensions(const Scenario& s, const Estimate& e, Dimensions& d) {
  if (s.training.recompute != Recompute::kFull) {
    d.add("gradient checkpointing",
          "about 30% slower steps (one more forward pass); no quality cost", 0)
        .recompute = Recompute::kFull;
    d.end();
  }
  if (s.training.optimizer == Optimizer::kAdamw) {
    d.add("8-bit AdamW", "no measurable quality cost (Dettmers et al. 2022); same speed", 0)
        .optimizer = Optimizer::kAdamw8bit;
    d.mark_optimizer_only();
    d.end();
  }
  if (s.task == Task::kFull || s.task == Task::kFreeze || s.task == Task::kPretrain)
    d.add("LoRA instead of full fine-tuning",
          "trains 0.1-1% of the parameters: slightly lower quality on large domain "
          "shifts; changes the job",
          3)
        .task = Task::kLora;
  if (s.task == Task::kFull || s.task == Task::kLora || s.task == Task::kFreeze) {
    // PEFT's prepare_model_for_kbit_training turns gradient checkpointing on by default
    // (use_gradient_checkpointing=True), and QLoRA recipes keep it on.
    ScenarioEdit& p = d.add("QLoRA (4-bit NF4 base)",
                            "4-bit base: small quality cost, about 30% slower than LoRA; changes "
                            "the job",
                            3);
    p.task = Task::kQlora;
    p.weights = "nf4";
    p.recompute = Recompute::kFull;
  }
  d.end();
  if (!s.training.flash_attention) {
    d.add("FlashAttention", "none; faster (needs Ampere or newer)", 0).flash_attention = true;
    d.end();
  }
  zero_levers(s, e, d);
}

// The levers of every dimension (training has at most 7 dimensions), into `d`.
void dimensions(const Scenario& s, const ScenarioGiven& given, const Estimate& e,
                const Catalog& catalog, Dimensions& d) {
  // At most 16 levers (training: 1 + 1 + 2 + 1 + 6 ZeRO + 1 context + 4 batch; serving 13).
  d.levers.reserve(16);
  const bool train = is_training(s.task);
  if (train)
    training_dimensions(s, e, d);
  else
    serving_dimensions(s, catalog, d);
  context_levers(s, train, d);
  batch_levers(s, given, e, train, d);
}

// The model counted per task, held in place: a task's counts keep their address (the memory
// memo and the matrix sums key them by it); a search meets at most three tasks (the base's,
// LoRA, QLoRA). A vector of them was an allocation a search (~300 instructions and a free).
// LoRA and QLoRA share one set: their counts read the model, the targets, the rank and the
// modules to save, not which of the two tasks it is (model_counts.h count_training), so they are
// the same figures, and a memo keyed by the counts' address holds them for both (issue 18: the
// second task's counts, ~200 instructions, and its matrix sums, FLOP costs and forward FLOPs,
// ~500 more, a full fine-tune's search).
class TaskCounts {
 public:
  // Not zeroed (five ModelCounts, ~4.8k bytes): only the slots counted are read. The slots are
  // a union's, not std::optional's: GCC zeroed an array of four optionals whole (~480
  // instructions a search, issue 18).
  TaskCounts() {}  // NOLINT(modernize-use-equals-default): `= default` would zero it

  // The base's task counted by the caller (its own estimate's counts, kept at their address so
  // that a memo the caller filled with them is the search's too); `counted` must outlive this.
  void seed(Task task, const ModelCounts& counted) {
    seeded_task_ = task;
    seeded_ = &counted;
  }

  // Inlined into the candidate's code: a held task is found in a few compares; a new one is
  // counted by count() (issue 18: the call cost each candidate ~50 instructions).
  [[gnu::always_inline]] const ModelCounts& of(const Scenario& sc) {
    if (seeded_ && sc.task == seeded_task_) return *seeded_;
    for (size_t i = 0; i < n_; ++i)
      if (tasks_[i] == sc.task) return *of_task_[i];
    return count(sc);
  }

 private:
  // The counts of a task not held yet: another LoRA task's, or counted into the next slot.
  [[gnu::noinline]] const ModelCounts& count(const Scenario& sc) {
    if (n_ == tasks_.size()) throw std::logic_error("changes_to_fit: more tasks than kept");
    if (const ModelCounts* adapted = lora_counts(sc.task)) return hold(sc.task, *adapted);
    // count_model's two halves: the model's own counts (its parameters and matrices, the same
    // for every task: the seeded counts' with their task's part cleared, else made once, ~450
    // instructions) and the task's (count_training).
    ModelCounts* counted_at = &counts_[made_];
    if (seeded_) {
      std::construct_at(counted_at, *seeded_);
      clear_training(*counted_at);
    } else {
      if (!model_) model_.emplace(*sc.model);
      std::construct_at(counted_at, *model_);
    }
    ModelCounts& counted = *counted_at;
    count_training(sc, counted);  // may throw: the slot is not counted
    ++made_;
    return hold(sc.task, counted);
  }

  const ModelCounts& hold(Task task, const ModelCounts& counts) {
    tasks_[n_] = task;
    of_task_[n_++] = &counts;
    return counts;
  }

  static bool lora_task(Task t) { return t == Task::kLora || t == Task::kQlora; }
  // For a LoRA task, the counts of another LoRA task held (the same figures); else nullptr.
  const ModelCounts* lora_counts(Task task) const {
    if (!lora_task(task)) return nullptr;
    if (seeded_ && lora_task(seeded_task_)) return seeded_;
    for (size_t i = 0; i < n_; ++i)
      if (lora_task(tasks_[i])) return of_task_[i];
    return nullptr;
  }

  static_assert(std::is_trivially_destructible_v<ModelCounts>);  // a slot is never destroyed
  std::array<Task, 4> tasks_;                                    // the first n_ held
  std::array<const ModelCounts*, 4> of_task_;  // their counts: a slot, or the seeded ones
  union {
    std::array<ModelCounts, 4> counts_;  // the first made_ counted (made when counted)
  };
  size_t n_ = 0, made_ = 0;
  std::optional<ModelCounts> model_;  // ModelCounts(model), made where no counts were seeded
  const ModelCounts* seeded_ = nullptr;
  Task seeded_task_{};
};

// The engine's rules (memory::engine_rules: the profile and release, found by comparing the
// engine's name and version) of the candidates, by what the editor derives the engine from. Its
// engine fields are the base's, or derived again from the candidate's task, weights row and GPU
// row with the base's other fields (ScenarioEditor::derive_engine: the same key gives the same
// fields), so candidates with the same three have the same rules (issue 18: the look-up, ~85
// instructions, each candidate; a search meets a few keys). Past kHeld keys, looked up each time.
class RulesByKey {
 public:
  RulesByKey() {}  // NOLINT(modernize-use-equals-default): `= default` would zero the slots

  memory::EngineRules of(const Scenario& sc, const Catalog& catalog) {
    const NumberFormat* weights = sc.weights.get();
    const Gpu* gpu = sc.gpu.get();
    for (size_t i = 0; i < n_; ++i) {
      const Held& h = held_[i];
      if (h.task == sc.task && h.weights == weights && h.gpu == gpu) return {*h.engine, h.release};
    }
    const memory::EngineRules rules = memory::engine_rules(sc, catalog);
    if (n_ < kHeld) held_[n_++] = {sc.task, weights, gpu, &rules.engine, rules.release};
    return rules;
  }

 private:
  static constexpr size_t kHeld = 8;
  struct Held {
    Task task;
    const NumberFormat* weights;  // rows the search's scenarios hold: the catalog's or the base's
    const Gpu* gpu;
    const EngineProfile* engine;
    const EngineRelease* release;
  };
  std::array<Held, kHeld> held_;
  size_t n_ = 0;
};

struct Tried {
  FoundChange change;
  int gpus = 0;
};

// The search over combinations: what the scenario needs now, the editor of the parsed scenario
// the edits apply to.
struct Search {
  // Not an aggregate: its brace initialisation zeroed the whole object first (~8.5k bytes).
  Search(const Dimensions& d, const Catalog& c, double room, double needed,
         std::optional<double> tps, ScenarioEditor& e, std::vector<Tried>& kept_storage,
         std::vector<Pick>& fitting_storage, std::vector<ScenarioEdit>& edit_storage,
         Estimate& estimate_storage, ModuleSumsMemo& sums)
      : dims(d),
        catalog(c),
        headroom(room),
        need(needed),
        base_tps(tps),
        kept(kept_storage),
        fitting(fitting_storage),
        editor(e),
        combination_edits(edit_storage),
        estimated(estimate_storage),
        parts(),
        module_sums(sums),
        rules() {}

  const Dimensions& dims;
  const Catalog& catalog;
  double headroom, need;
  std::optional<double> base_tps;
  // The changes kept, the singles first (every single lever is tried before any combination):
  // one storage, reserved once for the most there can be (issue 18: the singles, the
  // combinations and the counts below were an allocation each, ~300 instructions and a free).
  // It and `fitting` are the thread's, emptied for each search (search_changes).
  std::vector<Tried>& kept;
  size_t singles = 0;  // kept's first `singles` are single levers
  // The smallest fitting combinations found so far: the single levers' as a mask (a pick holding
  // one is covered: one test, issue 18), the combinations' in `fitting`.
  Pick fitting_singles = 0;
  std::vector<Pick>& fitting;
  // The combinations tried without an optimizer-only lever (Dimensions::optimizer_only) that
  // no optimizer makes fit: their total_without_optimizer (memory/memory_estimate.h) is past the
  // GPU. The same with 8-bit AdamW added cannot fit, and a combination that does not fit is not
  // kept, so it is not tried (issue 18: 6 of the QLoRA search's 17 candidates, ~1.3k
  // instructions each). Past kMaxBeyond, not noted (tried, as before). Not zeroed: the first
  // `beyond` are read.
  std::array<Pick, kMaxBeyond> beyond_optimizer;
  size_t beyond = 0;
  ScenarioEditor& editor;  // the candidate, one storage for the whole search
  // The combinations' edits, their levers' merged (FoundChanges::combination_edits): each is
  // merged into the slot of the next combination kept, so that a kept one's stays for its patch
  // and one not kept is written over by the next (an optional made per candidate was zeroed
  // each time, ~55 instructions). Slots are made as the search first needs them.
  std::vector<ScenarioEdit>& combination_edits;
  // The candidate's figures, one storage for the thread's searches (an Estimate made and
  // destroyed per candidate cost ~0.2k instructions, per search ~0.1k): each candidate's memory
  // stage assigns its counts and memory whole, its speed is read only after add_speed made it
  // anew, and a candidate reads nothing else of it.
  Estimate& estimated;
  // The model counted per task (count_model): no lever changes the model or the training
  // options the counts read (LoRA targets and rank, trainable layers, modules to save), only
  // the task, so each task's counts serve every candidate of it (issue 18: ~580 instructions a
  // candidate).
  TaskCounts counts;
  // The candidates' memory parts by the fields they read (memory/parts_memo.h): a part whose
  // fields an earlier candidate had is that candidate's (issue 18).
  memory::PartsMemo parts;
  // The training step's matrix sums by the fields they read (speed/training_speed.h): the
  // model and the counts above stay while the search runs (issue 18). The caller's: an answer's
  // holds what its own estimate made for the base's task.
  ModuleSumsMemo& module_sums;
  RulesByKey rules;  // the candidates' engine rules

  const ModelCounts& counts_for(const Scenario& sc) { return counts.of(sc); }

  // The quality cost and GPUs of each single lever that fits. A combination that costs at least
  // as much quality and needs at least as many GPUs as one of them, and more of either, is a
  // worse way to fit on both of the list's first counts (ranked: quality cost, then GPUs) and
  // is not tried (issue 18: on a training line that gradient checkpointing makes fit, the ZeRO
  // + shorter-context combinations, ~4k instructions a mixed JSONL line). One that trades them
  // (fp8 weights + TP=4 against TP=8 alone) is. Its levers still show alone. Not zeroed: the
  // first `fitting_points` are read.
  struct Rank {
    int quality;
    int64_t gpus;
    // Whether this is at least as good as `other` on both counts and better on one.
    bool dominates(Rank other) const {
      return quality <= other.quality && gpus <= other.gpus &&
             (quality < other.quality || gpus < other.gpus);
    }
  };
  std::array<Rank, kMaxSearchLevers> fitting_ranks;  // a search's singles are its levers
  size_t fitting_points = 0;
  // The levers a fitting single lever dominates: every combination holding one is dominated
  // too (its quality cost and GPUs are its levers' largest), so the walk leaves them out as it
  // does the single levers that fit.
  Pick dominated_levers = 0;
  int64_t gpus_of_base = 0;

  // A lever's quality cost and the GPUs its edit asks for: only the GPU-count levers (tensor
  // parallelism, ZeRO over more GPUs; never fewer than the base's) set them, alternatives of one
  // dimension, so a combination's count is the largest of its levers', as its quality cost is.
  Rank lever_rank(size_t index) const {
    const ChangeLever& lever = dims.levers[index];
    return {lever.quality_class, lever.edit.gpu_count.value_or(gpus_of_base)};
  }

  // After the single levers: the ranks of those that fit, and the levers they dominate.
  void note_fitting_singles(int64_t base_gpus) {
    gpus_of_base = base_gpus;
    for (size_t i = 0; i < singles; ++i)
      if (kept[i].change.fits)  // the count the ranking reads
        fitting_ranks[fitting_points++] = {kept[i].change.quality_class, kept[i].gpus};
    for (size_t i = 0; i < dims.levers.size(); ++i)
      if (dominated(lever_rank(i))) dominated_levers |= Pick{1} << i;
  }

  bool dominated(Rank r) const {
    for (size_t i = 0; i < fitting_points; ++i)
      if (fitting_ranks[i].dominates(r)) return true;
    return false;
  }

  // Whether a fitting single lever dominates combination `p` (note_fitting_singles).
  bool dominated_combination(Pick p) const {
    if (fitting_points == 0) return false;
    Rank r{0, gpus_of_base};
    for (Pick rest = p; rest != 0; rest &= rest - 1) {
      const Rank lever = lever_rank(static_cast<size_t>(std::countr_zero(rest)));
      r.quality = std::max(r.quality, lever.quality);
      r.gpus = std::max(r.gpus, lever.gpus);
    }
    return dominated(r);
  }

  // Whether a fitting combination of two or more levers lies inside `p` (the walk leaves the
  // single levers that fit out).
  bool covered_by_combination(Pick p) const {
    return std::any_of(fitting.begin(), fitting.end(), [p](Pick f) { return (f & ~p) == 0; });
  }

  // Every combination of exactly `size` levers, one per dimension, in the order of a walk that
  // skips a dimension before it takes its levers in turn, and that does not already contain a
  // fitting one (those are not tried: only the smallest fitting combinations are kept). A
  // subtree whose decided levers already contain one is not walked. The walk goes over the
  // levers that do not fit alone, by dimension (`live`): a combination holding one that does is
  // covered, and a dimension without another lever adds none (issue 18: each such lever was
  // picked and tested, and the walk went through its dimension, ~15 instructions a pick). The
  // order of the combinations tried is the walk's over every lever, those left out.
  void try_size(size_t size) {
    walked_size = size;
    // The single levers are all tried before the combinations: the live levers are those
    // before a walk of one, and after it for every larger one.
    if (size <= 2) {
      live_count = 0;
      for (size_t d = 0; d < dims.size(); ++d)
        if (const Pick m = dims.mask(d) & ~fitting_singles & ~dominated_levers; m != 0)
          live[live_count++] = m;
    }
    try_from(0, size, 0);
  }
  size_t walked_size = 0;  // the size of the combinations the walk makes
  // The levers of each dimension that do not fit alone, the dimensions without any left out.
  // Not zeroed: the first `live_count` are read.
  std::array<Pick, kMaxDims> live;
  size_t live_count = 0;

  // try_size's walk from live dimension `from` on, `pick` the levers of the dimensions before
  // it, `left` more to pick. Skipping a dimension comes before taking its levers, so the next
  // dimension to take a lever from goes from the last that leaves room for the others down to
  // `from` (one call per lever taken, not per dimension skipped: issue 18). `left` >= 1: the
  // last lever's combinations are tried here, not in a call of their own (~30 instructions a
  // candidate, issue 18).
  void try_from(size_t from, size_t left, Pick pick) {
    const size_t n = live_count;
    if (n < from + left) return;  // too few dimensions left
    for (size_t d = n - left + 1; d-- > from;)
      for (Pick rest = live[d]; rest != 0; rest &= rest - 1) {  // its levers, ascending
        const Pick p = pick | (rest & (~rest + 1));
        // Only a fitting combination can cover it: no live lever fits alone.
        if (covered_by_combination(p)) continue;
        // The walk's size, not std::popcount(p): without POPCNT in the x86-64 baseline that is
        // a libgcc call (~20 instructions a candidate).
        if (left == 1)
          try_one(p, walked_size);
        else
          try_from(d + 1, left - 1, p);
      }
  }

  // useful_tokens_per_s of a kept candidate after staged.add_speed(&module_sums), for a training
  // candidate without the rest of its speed stage: training_tokens_per_s with add_speed's
  // arguments (its engine, counts, profile and memo) gives the tokens per second that add_speed
  // writes as train_tokens_per_s, the only figure the search reads (issue 18: the performance
  // estimate made and reset, its other figures copied, ~100 instructions a kept change; the
  // step's figures past its time, ~90 more).
  std::optional<double> kept_tokens_per_s(const Scenario& sc, StagedEstimate& staged,
                                          const EngineProfile& engine) {
    if (!is_training(sc.task)) {
      staged.add_speed(&module_sums);
      return useful_tokens_per_s(sc, estimated);
    }
    // A speed not estimated is no factor, as without the sink.
    const auto tps =
        training_tokens_per_s(sc, engine, catalog.speed(), staged.counts(), module_sums);
    if (tps && *tps > 0) return tps;
    return std::nullopt;
  }

  // Whether `p` adds an optimizer-only lever to a combination noted beyond any optimizer: it
  // cannot fit. That combination, `p` less the lever, was tried before `p` (the walk goes by
  // size); one that held a fitting combination was not, but then `p` holds it too and the walk
  // does not make `p`; one whose edit threw is not noted, and `p` is tried.
  bool beyond_any_optimizer(Pick p) const {
    if ((p & dims.optimizer_only) == 0) return false;
    const Pick rest = p & ~dims.optimizer_only;
    return std::find(beyond_optimizer.begin(), beyond_optimizer.begin() + beyond, rest) !=
           beyond_optimizer.begin() + beyond;
  }

  // `p` noted in beyond_optimizer when it has no optimizer-only lever and even its memory
  // without the optimizer's bytes does not fit (`fit`: its fit, `engine` its engine's profile).
  void note_beyond_optimizer(Pick p, const Scenario& sc, const MemoryFit& fit,
                             const EngineProfile& engine) {
    if (fit.fits || dims.optimizer_only == 0 || (p & dims.optimizer_only) != 0 ||
        beyond == kMaxBeyond)
      return;
    if (total_without_optimizer(sc, estimated.memory, engine) > fit.capacity * (1.0 - headroom))
      beyond_optimizer[beyond++] = p;
  }

  // An edit this model or GPU cannot take (e.g. TP beyond the heads) throws InputError: not
  // offered. A combination that cannot fit (beyond_any_optimizer) is not tried: it would not be
  // kept (a single lever is kept fitting or not).
  void try_one(Pick p, size_t count) {
    if (count > 1 && (beyond_any_optimizer(p) || dominated_combination(p))) return;
    try {
      try_combination(p, count);
    } catch (const InputError&) {
    }
  }

  // One combination: its edit applied and checked, bytes only first (speed is estimated for the
  // changes that are kept). Throws InputError for an edit the model or GPU cannot take (try_one).
  // A single lever's edit is its own; a combination's is merged here, into the slot its patch is
  // written from if it is kept.
  void try_combination(Pick p, size_t count) {
    const bool single = count == 1;
    Tried t{};
    FoundChange& ch = t.change;
    // The levers in the order of their dimensions: their flat indices ascending.
    for (Pick rest = p; rest != 0; rest &= rest - 1) {
      const auto index = static_cast<uint8_t>(std::countr_zero(rest));
      ch.levers[ch.count++] = index;
      ch.quality_class = std::max(ch.quality_class, dims.levers[index].quality_class);
    }
    const ScenarioEdit* edit = &dims.levers[ch.levers[0]].edit;
    if (!single) {
      // The slot of the next combination kept: at most kMaxCombined * 4 are, and one more tried.
      ch.combination_edit = static_cast<uint8_t>(kept.size() - singles);
      if (combination_edits.size() == ch.combination_edit) combination_edits.emplace_back();
      ScenarioEdit& combination = combination_edits[ch.combination_edit];
      combination = *edit;
      for (size_t i = 1; i < ch.count; ++i) merge_into(combination, dims.levers[ch.levers[i]].edit);
      edit = &combination;
    }
    // candidate() (advisor/candidates.h) with the engine's rules found once for both: the
    // layout changes neither the engine nor its release.
    Scenario& edited = editor.edit(*edit);
    const memory::EngineRules engine = rules.of(edited, catalog);
    resolve_in_place(edited, catalog, engine.engine);
    const Scenario& sc = edited;
    Estimate& m = estimated;
    m.performance.reset();  // no earlier candidate's speed is read as this one's
    // The bytes first; speed if kept.
    StagedEstimate staged(sc, catalog, m, counts_for(sc), parts, engine);
    const MemoryFit fit = memory_fit(sc, m, headroom);
    ch.needed_bytes = fit.needed;
    ch.saves_bytes = need - ch.needed_bytes;
    ch.fits = fit.fits;
    note_beyond_optimizer(p, sc, fit, engine.engine);
    if (ch.saves_bytes <= 0) return;  // never a "saving" that adds memory
    if (ch.fits) {
      if (single)
        fitting_singles |= p;
      else
        fitting.push_back(p);
    }
    if (!single && !ch.fits) return;
    if (!single && kept.size() - singles >= kMaxCombined * 4) return;
    const auto tps = kept_tokens_per_s(sc, staged, engine.engine);
    if (tps && base_tps) ch.speed_factor = *tps / *base_tps;
    t.gpus = static_cast<int>(std::min<int64_t>(sc.gpu_count, 1 << 20));
    kept.push_back(t);
  }
};

// A thread's storage for its searches, emptied by each (issue 18: each vector was an allocation
// and a free per search, some past malloc's small-size caches). A search runs no other search,
// so one set per thread serves. The levers and changes are those recycle() gave back.
struct SearchStorage {
  std::vector<ChangeLever> levers;
  std::vector<FoundChange> changes;
  std::vector<ScenarioEdit> combination_edits;  // not emptied: its slots are written over
  std::vector<Tried> kept;
  std::vector<Pick> fitting;
  Estimate estimated;  // the candidates' (Search::estimated)
};
SearchStorage& thread_storage() {
  thread_local SearchStorage storage;
  return storage;
}

// Fits first; then the least quality cost, the fewest GPUs, the most speed kept (or, not
// fitting, the most memory saved). The best kMaxCombined combinations join the single levers.
// The order is that of a stable sort of the combinations, cut to the best, then a stable sort of
// the singles followed by those: each list is sorted stably in place (order(), without a stable
// sort's buffer), and the two are merged, a single first among equals.
std::vector<FoundChange> ranked(std::span<const Tried> singles, std::span<const Tried> combined) {
  auto better = [](const Tried& a, const Tried& b) {
    const FoundChange &x = a.change, &y = b.change;
    if (x.fits != y.fits) return x.fits;
    if (!x.fits) return x.saves_bytes > y.saves_bytes;
    if (x.quality_class != y.quality_class) return x.quality_class < y.quality_class;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return x.speed_factor.value_or(0) > y.speed_factor.value_or(0);
  };
  // The tried changes in order, held in place: a search keeps at most UINT8_MAX levers (as
  // singles) and kMaxCombined * 4 combinations. Not zeroed (2 x 256 pointers, ~520
  // instructions a search): order() writes the first n before any is read.
  std::array<const Tried*, UINT8_MAX + 1> one, many;
  // A stable insertion sort: each change passes those before it it is strictly better than, so
  // equals keep their index order (issue 18: std::sort with the index as the tiebreak tested
  // each pair both ways; a search sorts ~7 singles and ~2 combinations).
  auto order = [&](std::span<const Tried> v, std::array<const Tried*, UINT8_MAX + 1>& out) {
    const size_t n = std::min(v.size(), out.size());
    for (size_t i = 0; i < n; ++i) {
      const Tried* next = &v[i];
      size_t j = i;
      for (; j > 0 && better(*next, *out[j - 1]); --j) out[j] = out[j - 1];
      out[j] = next;
    }
    return n;
  };
  const size_t n_one = order(singles, one);
  const size_t n_many = std::min(order(combined, many), kMaxCombined);
  // Empty, with an earlier one's room.
  std::vector<FoundChange> out = std::move(thread_storage().changes);
  out.clear();
  out.reserve(n_one + n_many);
  size_t i = 0, k = 0;
  while (i < n_one || k < n_many) {
    // A combination goes first only when it is strictly better (std::merge's rule).
    const bool take_many = k < n_many && (i == n_one || better(*many[k], *one[i]));
    out.push_back((take_many ? many[k++] : one[i++])->change);
  }
  return out;
}

// The base's memory parts from its own estimate `e`, as the memo's first slots: the answer made
// it without the memo, by the same formulas state_parts and batch_parts apply (memory_estimate.cc
// compute_parts), and the candidates that keep the base's task, layout and formats
// (checkpointing, the optimizer, the context, the batch) have its states, those that keep its
// lengths, batch and training options (the optimizer, an offload) its activations (issue 18: a
// miss of each group, ~1.7k instructions a search). Training only, where the estimate's
// weights, master weights and overhead are the parts' own, gradients_full all the gradients (the
// training peak moves only the gradients it frees, the activations and the optimizer's), no KV
// cache is held and no trtllm-bench build made; not with a paged optimizer (its states join the
// overhead). The activations only when the estimate kept them (not zero: the peak frees them
// whole or not at all); the base's optimizer states unless the step, which adds its temporaries
// to them, is the peak. A serving estimate's pool and runtime buffers are not the parts'.
void seed_base_parts(const Scenario& s, const Estimate& e, const Catalog& catalog, Search& search) {
  if (!is_training(s.task) || is_paged(s.training.optimizer)) return;
  const MemoryEstimate& m = e.memory;
  // Through the search's rules by key: the candidates that keep the base's task, weights and GPU
  // rows have its engine fields, so its rules (issue 18: looked up again at the first of them,
  // ~95 instructions a search).
  const memory::EngineRules rules = search.rules.of(s, catalog);
  search.parts.seed_states(s, search.counts_for(s), rules,
                           {m.weights, m.gradients_full, m.master_weights, m.overhead},
                           m.peak_phase == kOptimizerStepPeak ? nullptr : &m.optimizer);
  if (m.activations > 0) search.parts.seed_batch(s, rules, {m.kv_cache, 0.0, m.activations, 0});
}

// The search, its candidates edits of the parsed scenario through `editor`; `s` resolved (read
// before the first edit: an editor in place writes over it). `base_counts`, when given, is the
// base's count_model(s), and `sums` the memo its estimate `e` was made with (or an empty one).
FoundChanges search_changes(const Scenario& s, ScenarioEditor& editor, const ScenarioGiven& given,
                            const Estimate& e, const Catalog& catalog, double headroom,
                            const ModelCounts* base_counts, ModuleSumsMemo& sums) {
  if (!s.gpu) throw InputError("gpu", "what to change needs a GPU to fit");
  SearchStorage& storage = thread_storage();
  FoundChanges found;
  found.levers = std::move(storage.levers);  // empty, with the room an earlier search had
  found.levers.clear();
  found.combination_edits = std::move(storage.combination_edits);
  // Every candidate is a typed edit of the parsed scenario.
  Dimensions dims{found.levers};
  dimensions(s, given, e, catalog, dims);
  // The kept changes and the fitting combinations in the thread's storage, emptied here.
  storage.kept.clear();
  storage.fitting.clear();
  Search search(dims, catalog, headroom, memory_needed(s, e), useful_tokens_per_s(s, e), editor,
                storage.kept, storage.fitting, found.combination_edits, storage.estimated, sums);
  if (base_counts) search.counts.seed(s.task, *base_counts);
  // Each lever is tried alone once; combinations are kept up to kMaxCombined * 4: reserved once.
  search.kept.reserve(found.levers.size() + kMaxCombined * 4);
  search.fitting.reserve(found.levers.size());
  seed_base_parts(s, e, catalog, search);  // before the first edit, which writes over `s`
  // No additive bound on a combination's savings: the peak is a maximum over phases (forward,
  // backward, optimizer step), so two levers that each lower a different phase save together
  // more than the sum of what each saves alone (checkpointing + LoRA, measured): every
  // combination gets its bytes-only estimate, which is what prunes before speed is estimated.
  // The one bound kept is a lever's that changes a single part in every phase alike: the
  // optimizer's (Search::beyond_optimizer).
  // Smallest first: every combination of one size is tried before the next size, so that a
  // fitting one is known before any combination that contains it.
  const int64_t base_gpus = s.gpu_count;  // read before the first edit writes over `s`
  search.try_size(1);
  search.singles = search.kept.size();
  search.note_fitting_singles(base_gpus);
  for (size_t size = 2; size <= kMaxLevers; ++size) search.try_size(size);
  const std::span<const Tried> kept(search.kept);
  found.changes = ranked(kept.first(search.singles), kept.subspan(search.singles));
  return found;
}

// The same with the search's own memo and counts.
FoundChanges search_changes(const Scenario& s, ScenarioEditor& editor, const ScenarioGiven& given,
                            const Estimate& e, const Catalog& catalog, double headroom) {
  ModuleSumsMemo sums;
  return search_changes(s, editor, given, e, catalog, headroom, nullptr, sums);
}

}  // namespace

LeverName& LeverName::append(int64_t v) {
  // std::to_chars writes what fmt's "{}" writes (19 digits and a sign at most).
  std::array<char, 24> text{};
  const char* end = std::to_chars(text.data(), text.data() + text.size(), v).ptr;
  return append_text(std::string_view(text.data(), static_cast<size_t>(end - text.data())));
}

const ScenarioEdit& FoundChanges::edit(const FoundChange& c) const {
  if (c.count > 1 && c.combination_edit < combination_edits.size())
    return combination_edits[c.combination_edit];
  static const ScenarioEdit kNone;
  if (c.count == 0) return kNone;
  if (c.count == 1) return lever(c, 0).edit;
  thread_local ScenarioEdit scratch;
  scratch = lever(c, 0).edit;
  for (size_t i = 1; i < c.count; ++i) merge_into(scratch, lever(c, i).edit);
  return scratch;
}

std::vector<Change> FoundChanges::to_changes() const {
  std::vector<Change> out;
  out.reserve(changes.size());
  for (const FoundChange& c : changes) {
    Change& ch = out.emplace_back();
    for (size_t i = 0; i < c.count; ++i) {
      const ChangeLever& l = lever(c, i);
      if (i) {
        ch.change += " + ";
        ch.cost += "; ";
      }
      ch.change += l.name;
      ch.cost += l.cost;
      ch.levers.emplace_back(l.name.view());
    }
    ch.edit = edit(c);
    ch.needed_bytes = c.needed_bytes;
    ch.saves_bytes = c.saves_bytes;
    ch.fits = c.fits;
    ch.speed_factor = c.speed_factor;
    ch.quality_class = c.quality_class;
  }
  return out;
}

void recycle(FoundChanges&& found) {
  SearchStorage& storage = thread_storage();
  if (found.levers.capacity() > storage.levers.capacity()) {
    found.levers.clear();
    storage.levers = std::move(found.levers);
  }
  if (found.changes.capacity() > storage.changes.capacity())
    storage.changes = std::move(found.changes);  // cleared when taken (trivially destroyed)
  if (found.combination_edits.size() > storage.combination_edits.size())
    storage.combination_edits = std::move(found.combination_edits);
}

FoundChanges find_changes(const Scenario& resolved, const LayoutFields& parsed_layout,
                          const ScenarioGiven& given, const Estimate& estimated,
                          const Catalog& catalog, double headroom) {
  ScenarioEditor editor(resolved, parsed_layout, given, catalog);
  return search_changes(resolved, editor, given, estimated, catalog, headroom);
}

FoundChanges find_changes_in_place(Scenario& resolved, const LayoutFields& parsed_layout,
                                   const ScenarioGiven& given, const Estimate& estimated,
                                   const Catalog& catalog, const ModelCounts* base_counts,
                                   ModuleSumsMemo& sums) {
  // The levers and the base's figures are read from `resolved` before the first edit.
  ScenarioEditor editor(ScenarioEditor::InPlace{}, resolved, parsed_layout, given, catalog,
                        /*base_valid=*/true);
  return search_changes(resolved, editor, given, estimated, catalog, 0.0, base_counts, sums);
}

std::vector<Change> changes_to_fit(const Scenario& parsed, const ScenarioGiven& given,
                                   const Catalog& catalog, double headroom) {
  const Scenario s = resolved(parsed, catalog);
  return changes_to_fit(parsed, given, s, estimate(s, catalog, Detail::kFigures), catalog,
                        headroom);
}

std::vector<Change> changes_to_fit(const Scenario& parsed, const ScenarioGiven& given,
                                   const Scenario& s, const Estimate& e, const Catalog& catalog,
                                   double headroom) {
  ScenarioEditor editor(parsed, given, catalog);
  return search_changes(s, editor, given, e, catalog, headroom).to_changes();
}

std::vector<Change> changes_to_fit(const Scenario& resolved, const LayoutFields& parsed_layout,
                                   const ScenarioGiven& given, const Estimate& e,
                                   const Catalog& catalog, double headroom) {
  return find_changes(resolved, parsed_layout, given, e, catalog, headroom).to_changes();
}

}  // namespace gpusizer
