#pragma once
// Re-checking and editing a parsed scenario without JSON: the cross-field checks of
// parse_scenario as validate(), and the typed edits the advisor's levers make (a weights format,
// a shorter context, a ZeRO layout, ...) applied to a Scenario with the defaults that follow them
// derived again, as parse_scenario would derive them for the JSON with the edit merged in.
#include <cstdint>
#include <optional>
#include <string>

#include "gpusizer/catalog.h"
#include "gpusizer/scenario.h"

namespace gpusizer {

/// Which fields the scenario JSON set itself; the others are defaults derived from them, and
/// are derived again when an edit changes what they follow.
struct ScenarioGiven {
  bool kv_cache = false;  ///< else the weights' own 16-bit format (fp16, fp32) or bf16
  bool seq_len = false, prompt_len = false, output_len = false;
  bool engine = false, engine_version = false;    ///< else the default for task, weights and GPU
  bool grad_accum = false, global_batch = false;  ///< else one from the other, batch and dp
  bool traffic_prompt_len = false, traffic_output_len = false;  ///< else the scenario's lengths
  bool parallel = false;                                        ///< a "parallel" object
  bool tp = false, pp = false, dp = false;     ///< else the split follows gpu_count (place_split)
  bool zero_stage = false, recompute = false;  ///< training.zero_stage, .gradient_checkpointing
};

/// The cross-field checks of a complete scenario, in the order parse_scenario meets them: a
/// vision model needs cv-train, qlora a quantized base, the engine must run the task, LoRA
/// targets must name modules of the model, the parallel split must suit the engine, the model
/// and gpu_count. Throws the InputError parse_scenario throws for the same input (same field,
/// same message).
void validate(const Scenario& s, const Catalog& catalog);

/// A typed change to a parsed scenario, as the advisor's levers make them: each field set here
/// replaces the scenario's, as the same key of the scenario JSON would (to_patch renders it).
struct ScenarioEdit {
  std::optional<Task> task{};
  std::optional<std::string> weights{}, kv_cache{};  ///< format ids
  std::optional<int64_t> seq_len{}, prompt_len{}, output_len{}, batch{};
  std::optional<std::string> gpu{};  ///< catalog id: a defaulted serving engine follows it
  std::optional<int64_t> gpus_per_node{};
  /// The system with its split: gpu_count with tp, pp and dp set together (the split is then
  /// given, not chosen by the layout rule), or with default_split.
  std::optional<int64_t> gpu_count{}, tp{}, pp{}, dp{};
  std::optional<int64_t> ep{}, cp{}, pp_interleave{};
  std::optional<bool> sequence_parallel{};
  /// With gpu_count: the input's "parallel" object dropped, the split the parser derives for
  /// gpu_count alone (serving: chosen by the layout rule; training: dp = gpu_count), then the
  /// split fields set here on top.
  bool default_split = false;
  std::optional<Recompute> recompute{};  ///< "gradient_checkpointing" in the JSON
  std::optional<bool> flash_attention{};
  std::optional<Optimizer> optimizer{};
  std::optional<Offload> offload{};
  std::optional<int> zero_stage{};
  std::optional<int64_t> grad_accum{};
  std::optional<int64_t> global_batch{};
  std::optional<MixedPrecision> mixed_precision{};  ///< bf16 fp16 pure-bf16 fp32 fp8 mxfp8
};

/// `b` over `a`: each field `b` sets replaces `a`'s, as a JSON merge patch of the two patches.
ScenarioEdit merged(ScenarioEdit a, const ScenarioEdit& b);
/// merged() in place: `b` over `a`.
void merge_into(ScenarioEdit& a, const ScenarioEdit& b);

/// Which fields are given after the edit: those `given` names and those the edit sets.
ScenarioGiven given_after(ScenarioGiven given, const ScenarioEdit& edit);

/// `s` (as parse_scenario returned it, before the layout is chosen; `given` what its input
/// fixed) with the edit applied (a gpu_count without default_split keeps the input's split
/// fields, as the JSON does), the defaults that follow the edited fields derived again (the KV
/// format from the weights, the default engine and its release, prompt and output lengths from
/// seq_len and the traffic's from them, the global batch or the accumulation), then validate():
/// what parse_scenario returns for the JSON with to_patch(edit) merged in. The notes are the
/// input's.
Scenario edited(const Scenario& s, const ScenarioGiven& given, const ScenarioEdit& edit,
                const Catalog& catalog);
/// What resolve_in_place (estimate/layout.h) sets in a parsed scenario: the serving layout and
/// the memory fraction of the engine's release. A resolved scenario with these put back is the
/// parsed one, so a search can edit the resolved scenario without a copy of the parsed one.
struct LayoutFields {
  Parallelism parallel;
  bool default_layout = false;
  double gpu_memory_utilization = 0.9;
};
inline LayoutFields layout_fields(const Scenario& s) {
  return {s.parallel, s.default_layout, s.gpu_memory_utilization};
}

/// A search's one working candidate: many edits of one parsed scenario, each written over one
/// Scenario. edit(e) gives what edited(base, given, e, catalog) gives, for a fraction of the
/// cost: the base is copied once, and before each edit only the fields an edit can change are
/// restored from it (the lengths, batch, split, training options, formats, GPU, lookups; the
/// model, notes, cost overrides and the like stay as copied). A format is assigned only when it
/// is another row than the one held (a shared row, FormatRef), and the default engine (a few
/// formatted strings) is derived again only when the task, weights or GPU it follows differ from
/// those of its last derivation. The base is validated once, at the second edit (or never, when
/// the constructor is told it is valid); when it passes, an edit's checks are only those that read
/// a field the edit changed (no edit changes the model or
/// the LoRA targets). `base` and `catalog` must outlive the editor, and `base` must not change
/// while it is used. An editor in place (InPlace) writes the edits over the caller's scenario
/// itself and puts it back when it is destroyed.
class ScenarioEditor {
 public:
  /// Selects the constructor that edits the caller's scenario in place.
  struct InPlace {};
  ScenarioEditor(const Scenario& base, const ScenarioGiven& given, const Catalog& catalog)
      : ScenarioEditor(base, layout_fields(base), given, catalog) {}
  /// The base is `resolved` with `parsed`'s layout fields put back: the parsed scenario.
  /// `base_valid`: the caller knows that scenario passes validate() (parse_scenario just made it
  /// and checked it), so it is not checked again: every edit, the first included, is checked
  /// only in the fields it changed.
  ScenarioEditor(const Scenario& resolved, const LayoutFields& parsed, const ScenarioGiven& given,
                 const Catalog& catalog, bool base_valid = false)
      : base_(&resolved),
        layout_(parsed),
        given_(given),
        catalog_(&catalog),
        base_valid_(base_valid) {}
  /// The same edits written over `resolved` itself, not over a copy of it (issue 18: a Scenario
  /// copied and destroyed a search, ~1.7k instructions): the base's fields that an edit reads or
  /// changes are copied first (its formats, lengths, batch, system, training options, GPU,
  /// engine and lookups: a few hundred bytes, no model), and `resolved` is put back as it was,
  /// layout fields included, when the editor is destroyed. Until then the caller reads `resolved`
  /// only as edit() returns it. take() is not for an editor in place.
  ScenarioEditor(InPlace, Scenario& resolved, const LayoutFields& parsed,
                 const ScenarioGiven& given, const Catalog& catalog, bool base_valid);
  ~ScenarioEditor();
  // Neither copied nor moved: an editor in place points into itself (its base is `saved_`).
  ScenarioEditor(const ScenarioEditor&) = delete;
  ScenarioEditor& operator=(const ScenarioEditor&) = delete;
  /// The base with `e` applied, as edited() returns it. Throws edited()'s InputError; the next
  /// edit starts from the base again. The caller may change the scenario it returns only in the
  /// fields an edit changes (resolve_in_place's layout and memory fraction), until the next edit.
  Scenario& edit(const ScenarioEdit& e);
  /// The scenario of the last edit, moved out (the editor is spent).
  Scenario take() && { return std::move(*work_); }

  /// The training options an edit can set (the levers' own), as the base has them.
  struct EditedTraining {
    Recompute recompute;
    bool flash_attention;
    Optimizer optimizer;
    Offload offload;
    int zero_stage;
    int64_t grad_accum, global_batch;
    MixedPrecision mixed_precision;
  };
  /// An editor in place's copy of the base's fields that an edit changes or that edit() reads
  /// of the base (restore(), derive_engine(), set_kv(), the checks), under a Scenario's names:
  /// the editor writes over its base and puts these back at the end. Not a whole Scenario
  /// (issue 18: a default one made and destroyed a search, ~800 instructions). The engine's three
  /// strings are copied only when an edit first derives another engine (engine_saved_): until
  /// then the edited scenario holds the base's. An editor of a copy reads its base itself.
  struct BaseFields {
    // Declared here, defaulted in scenario_edit.cc: clang-14 does not take a nested struct with
    // member initializers as default-constructible inside its enclosing class (std::optional).
    BaseFields();
    Task task = Task::kInference;
    FormatRef weights, kv_cache;
    int64_t seq_len = 0, prompt_len = 0, output_len = 0, batch = 0;
    std::optional<Traffic> traffic;
    GpuRef gpu;
    EditedTraining training{};
    int64_t gpus_per_node = 0, gpu_count = 0, requested_replicas = 0;
    ScenarioLookups lookups;
    std::string engine, engine_version, engine_basis;  ///< once engine_saved_
    bool engine_defaulted = false;
  };

 private:
  // The edit's steps, reading the base's fields from `b`: the base itself (a Scenario), or an
  // editor in place's saved_ (BaseFields), which has the same names.
  template <typename Base>
  Scenario& edit_from(const Base& b, const ScenarioEdit& e);
  template <typename Base>
  void restore(const Base& b);
  template <typename Base>
  void derive_engine(const Base& b, const ScenarioGiven& given);
  template <typename Base>
  void set_kv(const Base& b, const ScenarioEdit& e, bool kv_given);
  void put_back() noexcept;
  void save_base(const Scenario& s);
  void save_engine(const Scenario& s);

  const Scenario* base_;  // not in place: the base, which work_ is copied from at the first edit
  LayoutFields layout_;   // the base's, or those it had before it was resolved
  ScenarioGiven given_;
  const Catalog* catalog_;
  std::optional<Scenario> work_;     // copied from the base at the first edit (not in place)
  Scenario* target_ = nullptr;       // what edit() writes: work_, or the caller's scenario in place
  std::optional<BaseFields> saved_;  // in place: the base's, as the constructor found them
  bool engine_saved_ = false;        // in place: saved_'s engine strings are set
  bool in_place_ = false;
  LayoutFields resolved_layout_;  // in place: the caller's layout fields, put back at the end
  // The weights row whose default KV row (default_kv_id) work_'s KV format is, or null. Both
  // rows are the catalog's or the base's, which outlive the editor.
  const NumberFormat* kv_weights_ = nullptr;
  bool gpu_changed_ = false, lookups_changed_ = false;  // work_'s differ from the base's
  int edits_ = 0;
  bool base_valid_ = false;  // the base (with layout_) passes validate(): given, or checked
  // work_'s engine, release and engine basis: the base's, derived by derive_engine for the key
  // below (the default engine for this task, weights row and GPU), or partly derived (it threw).
  enum class Engine { kBase, kDerived, kStale } engine_ = Engine::kBase;
  Task engine_task_ = Task::kInference;
  const NumberFormat* engine_weights_ = nullptr;
  GpuRef engine_gpu_;  // held, so that its address cannot be reused by another GPU
};

}  // namespace gpusizer
