// Typed edits of a parsed scenario (gpusizer/scenario_edit.h): the fields set, then the defaults
// that follow them derived again with parse_scenario's own steps (scenario/defaults.h), then the
// cross-field checks (validate, scenario.cc).
#include "gpusizer/scenario_edit.h"

#include <functional>
#include <type_traits>
#include <vector>

#include "gpusizer/error.h"
#include "scenario/defaults.h"
#include "scenario/engine_choice.h"
#include "scenario/lookups.h"
#include "scenario/traffic.h"
#include "scenario/validated.h"

namespace gpusizer {
namespace {

template <typename T>
void take(std::optional<T>& a, const std::optional<T>& b) {
  if (b) a = b;
}

// Lengths the edit sets; the others follow them as in parse_scenario, and so do the traffic's
// mean lengths that its object left out. Inlined into edit(), whose edits mostly set no length
// (issue 18: a call to find that out, ~20 instructions an edit).
[[gnu::always_inline]] inline void edit_lengths(Scenario& s, const ScenarioGiven& given,
                                                const ScenarioEdit& e) {
  if (!e.seq_len && !e.prompt_len && !e.output_len) return;
  if (e.seq_len) s.seq_len = *e.seq_len;
  if (e.prompt_len) s.prompt_len = *e.prompt_len;
  if (e.output_len) s.output_len = *e.output_len;
  derive_lengths(s, given.seq_len,
                 given.prompt_len ? std::optional<int64_t>(s.prompt_len) : std::nullopt,
                 given.output_len ? std::optional<int64_t>(s.output_len) : std::nullopt);
  if (s.traffic)
    follow_scenario_lengths(*s.traffic, s, given.traffic_prompt_len, given.traffic_output_len);
}

// Inlined into edit() as well (its eight tests are fewer instructions than the call).
[[gnu::always_inline]] inline void edit_training(TrainingOptions& t, const ScenarioEdit& e) {
  if (e.recompute) t.recompute = *e.recompute;
  if (e.flash_attention) t.flash_attention = *e.flash_attention;
  if (e.optimizer) t.optimizer = *e.optimizer;
  if (e.offload) t.offload = *e.offload;
  if (e.zero_stage) t.zero_stage = *e.zero_stage;
  if (e.grad_accum) t.grad_accum = *e.grad_accum;
  if (e.global_batch) t.global_batch = *e.global_batch;
  if (e.mixed_precision) t.mixed_precision = *e.mixed_precision;
}

// The split fields the edit sets, over `p`.
void edit_split(Parallelism& p, const ScenarioEdit& e) {
  p.tp = e.tp.value_or(p.tp);
  p.pp = e.pp.value_or(p.pp);
  p.dp = e.dp.value_or(p.dp);
  p.ep = e.ep.value_or(p.ep);
  p.cp = e.cp.value_or(p.cp);
  p.pp_interleave = e.pp_interleave.value_or(p.pp_interleave);
  p.sequence_parallel = e.sequence_parallel.value_or(p.sequence_parallel);
}

// The count and its split with the parser's own rule (place_split): over the input's split, or
// with default_split over the parser's default Parallelism (the input's "parallel" dropped).
void edit_system(Scenario& s, const ScenarioGiven& given, const ScenarioEdit& e) {
  if (e.gpus_per_node) s.gpus_per_node = *e.gpus_per_node;
  if (!e.gpu_count) return;
  const bool kept = !e.default_split;  // the input's split fields stay
  if (!kept) s.parallel = Parallelism{};
  if (kept && s.requested_replicas > 0) s.parallel.dp = s.requested_replicas;  // the dp given
  edit_split(s.parallel, e);
  place_split(s, *e.gpu_count, e.tp || (kept && given.tp), e.pp || (kept && given.pp),
              e.dp || (kept && given.dp));
}

}  // namespace

ScenarioEdit merged(ScenarioEdit a, const ScenarioEdit& b) {
  merge_into(a, b);
  return a;
}

void merge_into(ScenarioEdit& a, const ScenarioEdit& b) {
  take(a.task, b.task);
  take(a.weights, b.weights);
  take(a.kv_cache, b.kv_cache);
  take(a.seq_len, b.seq_len);
  take(a.prompt_len, b.prompt_len);
  take(a.output_len, b.output_len);
  take(a.batch, b.batch);
  take(a.gpu, b.gpu);
  take(a.gpus_per_node, b.gpus_per_node);
  take(a.gpu_count, b.gpu_count);
  take(a.tp, b.tp);
  take(a.pp, b.pp);
  take(a.dp, b.dp);
  take(a.ep, b.ep);
  take(a.cp, b.cp);
  take(a.pp_interleave, b.pp_interleave);
  take(a.sequence_parallel, b.sequence_parallel);
  a.default_split = a.default_split || b.default_split;
  take(a.recompute, b.recompute);
  take(a.flash_attention, b.flash_attention);
  take(a.optimizer, b.optimizer);
  take(a.offload, b.offload);
  take(a.zero_stage, b.zero_stage);
  take(a.grad_accum, b.grad_accum);
  take(a.global_batch, b.global_batch);
  take(a.mixed_precision, b.mixed_precision);
}

namespace {

// The given-flags edit() reads after the edit (the KV format's, the lengths', the batches'):
// the split's, the ZeRO stage's and checkpointing's it does not (edit_system reads the base's),
// so the in-place editor sets only these (issue 18: ~30 instructions an edit).
[[gnu::always_inline]] inline void add_given_read(ScenarioGiven& g, const ScenarioEdit& e) {
  g.kv_cache |= e.kv_cache.has_value();
  g.seq_len |= e.seq_len.has_value();
  g.prompt_len |= e.prompt_len.has_value();
  g.output_len |= e.output_len.has_value();
  g.grad_accum |= e.grad_accum.has_value();
  g.global_batch |= e.global_batch.has_value();
}

// given_after in place: every field the edit sets marked given in `g` (returning the 17 flags by
// value cost ~50 instructions an edit, issue 18).
void add_given(ScenarioGiven& g, const ScenarioEdit& e) {
  add_given_read(g, e);
  g.zero_stage |= e.zero_stage.has_value();
  g.recompute |= e.recompute.has_value();
  if (e.gpu_count && e.default_split) g.parallel = g.tp = g.pp = g.dp = false;
  g.parallel |= e.tp || e.pp || e.dp || e.ep || e.cp || e.pp_interleave || e.sequence_parallel;
  g.tp |= e.tp.has_value();
  g.pp |= e.pp.has_value();
  g.dp |= e.dp.has_value();
}

}  // namespace

ScenarioGiven given_after(ScenarioGiven g, const ScenarioEdit& e) {
  add_given(g, e);
  return g;
}

namespace {

// `field` set to `row`, assigned only when it holds another row (a shared row's count otherwise).
void set_format(FormatRef& field, const FormatRef& row) {
  if (field.get() != row.get()) field = row;
}

// Whether `row` is one of the catalog's own rows (not a format built by hand).
bool catalog_row(const NumberFormat* row, const Catalog& catalog) {
  const std::vector<NumberFormat>& rows = catalog.formats();
  const std::less<const NumberFormat*> before;
  return !before(row, rows.data()) && before(row, rows.data() + rows.size());
}

// The catalog's row `id` for `role` (Catalog::format_ref): the one `held` when it is a catalog row
// with that id (an earlier edit looked it up for the same role; the base's may be no catalog
// row), else looked up.
FormatRef format_row(const FormatRef& held, const FormatRef& base_field, std::string_view id,
                     const Catalog& catalog, const char* role, const char* field) {
  if (held.get() != base_field.get() && held->id == id) return held;
  return catalog.format_ref(id, role, field);
}

// The training options an edit can change (the levers of advisor/changes.cc), one list for
// saving the base's before a search and putting them back before each candidate: between
// TrainingOptions and ScenarioEditor::EditedTraining either way.
template <typename From, typename To>
void copy_edited_training(const From& from, To& to) {
  to.recompute = from.recompute;
  to.flash_attention = from.flash_attention;
  to.optimizer = from.optimizer;
  to.offload = from.offload;
  to.zero_stage = from.zero_stage;
  to.grad_accum = from.grad_accum;
  to.global_batch = from.global_batch;
  to.mixed_precision = from.mixed_precision;
}

}  // namespace

ScenarioEditor::BaseFields::BaseFields() = default;

ScenarioEditor::ScenarioEditor(InPlace, Scenario& resolved, const LayoutFields& parsed,
                               const ScenarioGiven& given, const Catalog& catalog, bool base_valid)
    : base_(nullptr),
      layout_(parsed),
      given_(given),
      catalog_(&catalog),
      target_(&resolved),
      in_place_(true),
      resolved_layout_(layout_fields(resolved)),
      base_valid_(base_valid) {
  save_base(resolved);
}

// The base's fields but the engine's strings (save_engine, when they are first written over).
void ScenarioEditor::save_base(const Scenario& s) {
  BaseFields& b = saved_.emplace();
  b.task = s.task;
  b.weights = s.weights;
  b.kv_cache = s.kv_cache;
  b.seq_len = s.seq_len;
  b.prompt_len = s.prompt_len;
  b.output_len = s.output_len;
  b.traffic = s.traffic;
  b.batch = s.batch;
  b.gpu = s.gpu;
  copy_edited_training(s.training, b.training);
  b.gpus_per_node = s.gpus_per_node;
  b.gpu_count = s.gpu_count;
  b.requested_replicas = s.requested_replicas;
  b.lookups = s.lookups;
  b.engine_defaulted = s.engine_defaulted;
}

// The engine's strings of `s`, the edited scenario before an engine is first derived for it: the
// base's, which it holds until then (derive_engine keeps them while the engine is the base's).
void ScenarioEditor::save_engine(const Scenario& s) {
  saved_->engine = s.engine;
  saved_->engine_version = s.engine_version;
  saved_->engine_basis = s.engine_basis;
  engine_saved_ = true;
}

ScenarioEditor::~ScenarioEditor() {
  if (in_place_) put_back();
}

// In place: every field an edit or resolve_in_place can change, back to what the caller's
// scenario held (restore()'s fields, the formats, the engine's and the layout's), moved out of
// the copy that dies with the editor.
void ScenarioEditor::put_back() noexcept {
  BaseFields& b = *saved_;
  Scenario& s = *target_;
  s.task = b.task;
  s.weights = std::move(b.weights);
  s.kv_cache = std::move(b.kv_cache);
  s.seq_len = b.seq_len;
  s.prompt_len = b.prompt_len;
  s.output_len = b.output_len;
  s.traffic = b.traffic;
  s.batch = b.batch;
  s.gpu = std::move(b.gpu);
  copy_edited_training(b.training, s.training);
  s.gpus_per_node = b.gpus_per_node;
  s.gpu_count = b.gpu_count;
  s.requested_replicas = b.requested_replicas;
  s.lookups = std::move(b.lookups);
  if (engine_saved_) {  // else s holds the base's: no engine was derived
    s.engine = std::move(b.engine);
    s.engine_version = std::move(b.engine_version);
    s.engine_basis = std::move(b.engine_basis);
  }
  s.engine_defaulted = b.engine_defaulted;
  s.parallel = resolved_layout_.parallel;
  s.default_layout = resolved_layout_.default_layout;
  s.gpu_memory_utilization = resolved_layout_.gpu_memory_utilization;
}

// The fields an edit (or resolve_in_place after it) can change, back to the base's. The formats
// are edit()'s and the engine fields derive_engine's.
template <typename Base>
void ScenarioEditor::restore(const Base& b) {
  Scenario& s = *target_;
  s.task = b.task;  // the formats are edit()'s: each is assigned once, when it changes
  s.seq_len = b.seq_len;
  s.prompt_len = b.prompt_len;
  s.output_len = b.output_len;
  s.traffic = b.traffic;
  s.batch = b.batch;
  if (gpu_changed_) s.gpu = b.gpu;
  gpu_changed_ = false;
  copy_edited_training(b.training, s.training);
  s.gpus_per_node = b.gpus_per_node;
  s.gpu_count = b.gpu_count;
  s.requested_replicas = b.requested_replicas;
  s.parallel = layout_.parallel;
  s.default_layout = layout_.default_layout;
  s.gpu_memory_utilization = layout_.gpu_memory_utilization;
  if (lookups_changed_) s.lookups = b.lookups;
  lookups_changed_ = false;
}

namespace {

// Whether `s`'s lookups were resolved in `catalog` for its engine: with the engine fields they
// were resolved with (the base's, while derive_engine keeps them), resolve_lookups would find the
// same profile and release again.
bool engine_lookups(const Scenario& s, const Catalog& catalog) {
  const ScenarioLookups& l = s.lookups;
  return l.catalog == &catalog && l.engine && l.engine->name == s.engine;
}

// Whether rederive_engine gives `s`, an edit of `b`, the base's engine fields whatever its
// weights and GPU: an engine defaulted with no release given is, for every training task, the
// catalog's training default at its newest release (default_engine, set_release), so the
// base's when it trains too. The one step of that derivation that reads the task is its check
// that the engine runs it.
template <typename Base>
bool training_default_engine(const Scenario& s, const Base& b, const ScenarioGiven& given) {
  return b.engine_defaulted && !given.engine_version && is_training(s.task) && is_training(b.task);
}

}  // namespace

// rederive_engine, which reads the task, the weights, the GPU and the model (the base's) and,
// with a release given, the base's release: the same key gives the same fields, so they are
// derived again only for another key; a training task's are the base's when it trains
// (training_default_engine).
template <typename Base>
[[gnu::always_inline]] inline void ScenarioEditor::derive_engine(const Base& b,
                                                                 const ScenarioGiven& given) {
  Scenario& s = *target_;
  if (given.engine) return;  // the engine and its release stay as given (rederive_engine)
  if (engine_ == Engine::kDerived && engine_task_ == s.task && engine_weights_ == s.weights.get() &&
      engine_gpu_.get() == s.gpu.get())
    return;
  // A defaulted engine with no release given is what rederive_engine makes for the base's own
  // task, weights and GPU: resolve_engine (parse_scenario) and rederive_engine (edited) made it
  // with the same two steps (default_engine, set_release without a version) from those fields
  // and the model. So the base's fields serve for its key (issue 18: a derivation, ~630
  // instructions, at the first edit of every search and at each return to the base's key).
  const bool base_key = b.engine_defaulted && !given.engine_version && s.task == b.task &&
                        s.weights.get() == b.weights.get() && s.gpu.get() == b.gpu.get();
  if (engine_ == Engine::kBase && base_key) return;
  if (engine_ != Engine::kBase) {
    s.engine = b.engine;
    s.engine_version = b.engine_version;
    s.engine_basis = b.engine_basis;
    s.engine_defaulted = b.engine_defaulted;
    engine_ = Engine::kBase;
    if (base_key) return;
  }
  if (training_default_engine(s, b, given)) {
    // The base's fields, checked for the task as rederive_engine checks them (issue 18: a
    // derivation, ~510 instructions, for each of a full fine-tune's LoRA and QLoRA levers).
    check_engine_runs_task(catalog_->engine(s.engine, "engine"), s);
    return;
  }
  if constexpr (std::is_same_v<Base, BaseFields>)  // in place: s holds the base's engine
    if (!engine_saved_) save_engine(s);            // (kBase, or just restored)
  engine_ = Engine::kStale;
  rederive_engine(*catalog_, given.engine, given.engine_version, s);
  engine_ = Engine::kDerived;
  engine_task_ = s.task;
  engine_weights_ = s.weights.get();
  engine_gpu_ = s.gpu;
}

// The KV format: the edit's, else the base's when its input named one, else the default for the
// weights (default_kv_id). That default reads the weights row alone, so while the row is the one
// the held KV row was derived for, the held row is it: neither its id nor the catalog is read
// again (~100 instructions an edit, issue 18).
template <typename Base>
void ScenarioEditor::set_kv(const Base& b, const ScenarioEdit& e, bool kv_given) {
  Scenario& s = *target_;
  if (e.kv_cache || kv_given) {
    kv_weights_ = nullptr;  // first: the held row may change below
    set_format(s.kv_cache, e.kv_cache ? format_row(s.kv_cache, b.kv_cache, *e.kv_cache, *catalog_,
                                                   "kv", "kv_cache")
                                      : b.kv_cache);
    return;
  }
  if (kv_weights_ == s.weights.get()) return;
  kv_weights_ = nullptr;
  // The base's row when it is the catalog's own row with the default's id: the row the lookup
  // finds (the ids are unique, and a default KV id, fp16, fp32 or bf16, names a KV format). At
  // the first edit and on each return to the base's weights (issue 18: a lookup, ~300
  // instructions).
  const std::string_view id = default_kv_id(*s.weights);
  const FormatRef& base_kv = b.kv_cache;
  if (base_kv->id == id && catalog_row(base_kv.get(), *catalog_))
    set_format(s.kv_cache, base_kv);
  else
    set_format(s.kv_cache, format_row(s.kv_cache, base_kv, id, *catalog_, "kv", "kv_cache"));
  kv_weights_ = s.weights.get();
}

// The edit's fields set, then the defaults that follow them derived again, then validate().
Scenario& ScenarioEditor::edit(const ScenarioEdit& e) {
  return in_place_ ? edit_from(*saved_, e) : edit_from(*base_, e);
}

template <typename Base>
Scenario& ScenarioEditor::edit_from(const Base& b, const ScenarioEdit& e) {
  if (!target_) target_ = &work_.emplace(*base_);
  restore(b);
  Scenario& s = *target_;
  const Catalog& catalog = *catalog_;
  // At the second edit (a single edit is checked whole), the base as it was parsed, unless the
  // caller said it is valid: once it is, the checks of the fields an edit leaves as the base's
  // hold (issue 18: validate() twice a search, ~460 instructions each, for a just-parsed base).
  if (edits_++ == 1 && !base_valid_) {
    try {
      validate(s, catalog);
      base_valid_ = true;
    } catch (const InputError&) {
    }
  }
  ScenarioGiven given = given_;  // what the input and the edit fix, in the flags read below
  add_given_read(given, e);
  if (e.task) s.task = *e.task;
  set_format(s.weights,
             e.weights ? format_row(s.weights, b.weights, *e.weights, catalog, "weights", "weights")
                       : b.weights);
  // set_kv's own first tests, here: most edits keep the KV format and the weights row it was
  // derived for (issue 18: the call, ~25 instructions an edit).
  if (e.kv_cache || given.kv_cache || kv_weights_ != s.weights.get()) set_kv(b, e, given.kv_cache);
  edit_lengths(s, given, e);
  if (e.batch) s.batch = *e.batch;
  if (e.gpu) {            // before the engine: it may follow the GPU
    gpu_changed_ = true;  // first: restored even when the lookup below throws
    s.gpu = catalog.gpu_ref(*e.gpu, "gpu");
  }
  derive_engine(b, given);
  edit_training(s.training, e);
  edit_system(s, given_, e);
  if (base_valid_)
    // The base's engine, or one derive_engine checked for the candidate's task (derived for it,
    // or the base's for another training task): not looked up and checked again (issue 18:
    // ~160 instructions a candidate of another task).
    validate_edit(s, b, layout_, catalog, engine_ == Engine::kBase,
                  engine_ == Engine::kDerived ||
                      (engine_ == Engine::kBase && training_default_engine(s, b, given)));
  else
    validate(s, catalog);
  derive_batches(s, given);
  // The base's lookups stay while the edit keeps the engine, GPU and weights they are keyed by.
  // Other candidates get the engine profile only: most are sized bytes-only, which reads no
  // speed entry, and looking those up would cost more than it saves. A candidate that keeps the
  // base's engine and release (another weights format or GPU) keeps the base's lookups too: their
  // engine profile and release are the rows the lookup would find again, and their speed entries
  // are keyed by the weights and GPU, so not read (issue 18: a lookup, ~260 instructions, for a
  // full fine-tune's QLoRA lever).
  if (!speed_lookups(s, catalog.speed()) &&
      !(engine_ == Engine::kBase && !lookups_changed_ && engine_lookups(s, catalog))) {
    lookups_changed_ = true;  // first: a lookup that throws may have set some of them
    resolve_lookups(s, catalog, false);
  }
  return s;
}

Scenario edited(const Scenario& base, const ScenarioGiven& base_given, const ScenarioEdit& e,
                const Catalog& catalog) {
  ScenarioEditor editor(base, base_given, catalog);
  editor.edit(e);
  return std::move(editor).take();
}

}  // namespace gpusizer
