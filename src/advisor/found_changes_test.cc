// The change search's own form (advisor/changes.h): a change is the levers it combines, its edit
// their edits merged in order, its public Change their texts joined; and the search's answer in
// that form is the public one. Values worked by hand in the comments.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "advisor/changes.h"
#include "advisor/testing_found_changes.h"
#include "estimate/layout.h"
#include "estimate/priced.h"
#include "gpusizer/json/scenario.h"
#include "memory/model_counts.h"
#include "report/estimate_json.h"
#include "report/json_text_parts.h"
#include "speed/training_speed.h"

namespace gpusizer {
namespace {

using testing::hand_found_changes;

// The later lever's fields win (QLoRA's nf4 over int8), the others are kept from each.
TEST(FoundChanges, EditIsTheLeversMergedInOrder) {
  const FoundChanges f = hand_found_changes();
  const ScenarioEdit e = f.edit(f.changes[0]);
  EXPECT_EQ(e.weights, "nf4");
  EXPECT_EQ(e.task, Task::kQlora);
  EXPECT_EQ(e.recompute, Recompute::kFull);
  EXPECT_FALSE(e.batch);
  const ScenarioEdit single = f.edit(f.changes[1]);
  EXPECT_EQ(single.batch, 2);
  EXPECT_FALSE(single.weights);
}

// A kept combination's edit is the one the search merged to try it (FoundChange::combination_edit),
// the same as its levers' merged again: Llama-2-70B served on two RTX 4090s at TP 2 keeps
// "fp8 weights + TP=4 (4 GPUs)" (69 GB of fp8 weights over 4 x 24 GB, 17.2 GB a GPU), whose patch
// sets 4 GPUs split tp 4, pp 1, dp 1 and fp8 weights, and the same with int8 weights. A second
// search on the thread, given the first one's storage back, holds its own combinations' edits.
TEST(FoundChanges, CombinationsKeepTheEditsTheSearchMerged) {
  const auto search = [] {
    ScenarioGiven given;
    const Scenario parsed = parse_scenario(
        {{"model", "llama-2-70b"}, {"gpu", "rtx-4090-24gb"}, {"parallel", {{"tp", 2}}}},
        Catalog::builtin(), given);
    const Scenario s = resolved(parsed, Catalog::builtin());
    const Estimate e = estimate(s, Catalog::builtin(), Detail::kFigures);
    return find_changes(s, layout_fields(parsed), given, e, Catalog::builtin());
  };
  for (int round = 0; round < 2; ++round) {
    FoundChanges found = search();
    size_t combinations = 0;
    bool named = false;
    for (const FoundChange& c : found.changes) {
      if (c.count < 2) continue;
      ++combinations;
      ASSERT_LT(c.combination_edit, found.combination_edits.size());
      FoundChange by_hand = c;  // merged again from the levers
      by_hand.combination_edit = FoundChange::kNotMerged;
      EXPECT_EQ(to_patch(found.edit(c)), to_patch(found.edit(by_hand)));
      if (found.lever(c, 0).name.view() != "fp8 weights") continue;
      ASSERT_EQ(c.count, 2);
      named = true;
      EXPECT_EQ(found.lever(c, 1).name.view(), "TP=4 (4 GPUs)");
      const ScenarioEdit& e = found.edit(c);
      EXPECT_EQ(e.gpu_count, 4);
      EXPECT_EQ(e.tp, 4);
      EXPECT_EQ(e.pp, 1);
      EXPECT_EQ(e.dp, 1);
      EXPECT_EQ(e.weights, "fp8");
      EXPECT_FALSE(e.seq_len);
    }
    EXPECT_EQ(combinations, 2u);  // fp8 and int8 weights, each with TP=4
    EXPECT_TRUE(named);
    recycle(std::move(found));
  }
}

// A lever's name held in place: literal parts and integers as fmt's "{}" writes them.
TEST(LeverName, PartsAndIntegers) {
  EXPECT_EQ(LeverName("fp8 weights"), "fp8 weights");
  EXPECT_EQ(LeverName("TP=").append(8).append(" (").append(16).append(" GPUs)"), "TP=8 (16 GPUs)");
  EXPECT_EQ(LeverName("shorter context (").append(65536).append(" tokens)"),
            "shorter context (65536 tokens)");
  EXPECT_EQ(LeverName().append(0), "0");
  EXPECT_EQ(LeverName().append(-42), "-42");
  // The extremes: 2^63 - 1 = 9223372036854775807, and -2^63, whose magnitude no int64_t holds.
  EXPECT_EQ(LeverName().append(INT64_MAX), "9223372036854775807");
  EXPECT_EQ(LeverName().append(INT64_MIN), "-9223372036854775808");
  EXPECT_EQ(LeverName().view().size(), 0u);
}

// 61 characters fit; one more is refused, not cut.
TEST(LeverName, RefusesPastItsRoom) {
  const std::string full(LeverName::kCapacity, 'x');
  LeverName n(full);
  EXPECT_EQ(n.view().size(), 61u);
  EXPECT_THROW(n.append("y"), std::length_error);
  EXPECT_THROW(LeverName(full).append(7), std::length_error);
  EXPECT_EQ(n, full);  // unchanged by the refused append
}

// A name of literal parts and integers is known plain; one made of other text is not known to
// be, plain or not (the answer tests it).
TEST(LeverName, KnownPlainFromLiteralsAndIntegers) {
  EXPECT_TRUE(LeverName("fp8 weights").plain());
  EXPECT_TRUE(LeverName("TP=").append(8).append(" (").append(-16).append(" GPUs)").plain());
  EXPECT_TRUE(LeverName().plain());
  EXPECT_FALSE(LeverName(std::string_view("fp8 weights")).plain());
  EXPECT_FALSE(LeverName(std::string_view("fp8 weights")).append(" (2)").plain());
  EXPECT_FALSE(LeverName(std::string_view("batch \"2\"")).plain());
  // A literal's text is its own, each byte that json_plain takes: the space to '~', and DEL.
  EXPECT_EQ(PlainLiteral(" !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~\x7f").view().size(), 38u);
}

TEST(FoundChanges, PublicChangesJoinTheLeversTexts) {
  const std::vector<Change> c = hand_found_changes().to_changes();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].change, "int8 weights + QLoRA");
  EXPECT_EQ(c[0].cost, "small cost; changes the job");
  EXPECT_EQ(c[0].levers, (std::vector<std::string>{"int8 weights", "QLoRA"}));
  EXPECT_EQ(c[0].edit.weights, "nf4");
  EXPECT_EQ(c[0].needed_bytes, 70e9);
  EXPECT_EQ(c[0].saves_bytes, 10e9);
  EXPECT_TRUE(c[0].fits);
  EXPECT_EQ(c[0].speed_factor, 0.5);
  EXPECT_EQ(c[0].quality_class, 3);
  EXPECT_EQ(c[1].change, "smaller batch (2)");
  EXPECT_EQ(c[1].cost, "slower");
  EXPECT_EQ(c[1].levers, std::vector<std::string>{"smaller batch (2)"});
  EXPECT_FALSE(c[1].fits);
  EXPECT_FALSE(c[1].speed_factor);
}

// Full fine-tuning of Llama-2-7B on 8 x A10 does not fit (changes_test.cc: ZeRO-3 and
// checkpointing together do); the search in its own form names the same changes, in the same
// order, as changes_to_fit, and every change's levers are levers of the search.
TEST(FoundChanges, SameAsChangesToFit) {
  ScenarioGiven given;
  const Scenario parsed = parse_scenario(
      {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a10-24gb"}, {"gpu_count", 8}},
      Catalog::builtin(), given);
  const Scenario s = resolved(parsed, Catalog::builtin());
  const Estimate e = estimate(s, Catalog::builtin(), Detail::kFigures);
  const FoundChanges found = find_changes(s, layout_fields(parsed), given, e, Catalog::builtin());
  const std::vector<Change> expected = changes_to_fit(parsed, given, Catalog::builtin());
  ASSERT_FALSE(expected.empty());
  ASSERT_EQ(found.changes.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const FoundChange& c = found.changes[i];
    ASSERT_GE(c.count, 1);
    ASSERT_LE(c.count, kMaxChangeLevers);
    for (size_t k = 0; k < c.count; ++k) EXPECT_LT(c.levers[k], found.levers.size());
    EXPECT_EQ(found.lever(c, 0).name, expected[i].levers.front());
    EXPECT_EQ(c.needed_bytes, expected[i].needed_bytes);
    EXPECT_EQ(c.fits, expected[i].fits);
    EXPECT_EQ(to_patch(found.edit(c)), to_patch(expected[i].edit));
  }
  // Every lever the search makes is known plain, and is (the answer copies it untested).
  for (const ChangeLever& lever : found.levers) {
    EXPECT_TRUE(lever.plain) << lever.name.view();
    EXPECT_TRUE(json_plain(lever.name.view()) && json_plain(lever.cost)) << lever.name.view();
  }
}

// An answer's search goes on with its estimate's counts and training-step memo (issue 18): the
// estimate made with them is the plain one, byte for byte as JSON, it leaves the base's matrix
// sums and FLOP costs in the memo under those counts, and the search seeded with both keeps the
// changes an unseeded search keeps, figure for figure (the speed factors double for double).
// Training searches, the base's task kept by some levers and changed by others.
TEST(FoundChanges, SeededWithTheEstimatesCountsAndMemo) {
  const Catalog& catalog = Catalog::builtin();
  const std::vector<nlohmann::json> inputs = {
      {{"model", "qwen3-32b"},
       {"task", "full"},
       {"gpu", "h100"},
       {"gpu_count", 8},
       {"training", {{"zero_stage", 3}}}},
      {{"model", "llama-3.1-70b"}, {"task", "qlora"}, {"gpu", "a100-80g"}},
      {{"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a10-24gb"}, {"gpu_count", 8}},
      {{"model", "llama-2-70b"}, {"task", "lora"}, {"gpu", "h100"}}};
  for (const nlohmann::json& input : inputs) {
    ScenarioGiven given;
    Scenario seeded = parse_scenario(input, catalog, given);
    Scenario plain = seeded;
    const LayoutFields layout = layout_fields(seeded);
    resolve_in_place(seeded, catalog);
    resolve_in_place(plain, catalog);
    ModelCounts counts(*seeded.model);
    count_training(seeded, counts);
    ModuleSumsMemo memo;
    const Estimate e = estimate(seeded, catalog, Detail::kFull, counts, memo);
    const Estimate expected = estimate(plain, catalog, Detail::kFull);
    EXPECT_EQ(to_json(e).dump(), to_json(expected).dump()) << input;
    EXPECT_EQ(memo.slots[0].counts, &counts) << input;
    EXPECT_EQ(memo.costs_counts, &counts) << input;
    ASSERT_TRUE(e.memory.fits && !*e.memory.fits) << input;  // a search runs
    const FoundChanges got =
        find_changes_in_place(seeded, layout, given, e, catalog, &counts, memo);
    ModuleSumsMemo own;  // the search's own memo and counts
    const FoundChanges want =
        find_changes_in_place(plain, layout, given, expected, catalog, nullptr, own);
    ASSERT_FALSE(want.changes.empty()) << input;
    ASSERT_EQ(got.changes.size(), want.changes.size()) << input;
    for (size_t i = 0; i < want.changes.size(); ++i) {
      const FoundChange &a = got.changes[i], &b = want.changes[i];
      EXPECT_EQ(got.lever(a, 0).name, want.lever(b, 0).name) << input << " " << i;
      EXPECT_EQ(a.count, b.count);
      EXPECT_EQ(a.needed_bytes, b.needed_bytes);
      EXPECT_EQ(a.saves_bytes, b.saves_bytes);
      EXPECT_EQ(a.fits, b.fits);
      EXPECT_EQ(a.speed_factor, b.speed_factor) << input << " " << i;
      EXPECT_EQ(a.quality_class, b.quality_class);
    }
  }
}

// A result given back (recycle) lends its storage to the thread's next search, emptied: the
// next search, of the same scenario or of another with other levers, names what changes_to_fit
// names (no lever or change of the earlier search is left in it), in the storage given back.
// Run in a thread of its own: the storage is the thread's, and a search of an earlier test in
// the same process could have left it larger than this test's (recycle then keeps that one).
void recycled_storage_serves_the_next_search() {
  const Catalog& catalog = Catalog::builtin();
  const auto search = [&](const nlohmann::json& input) {
    ScenarioGiven given;
    const Scenario parsed = parse_scenario(input, catalog, given);
    const Scenario s = resolved(parsed, catalog);
    const Estimate e = estimate(s, catalog, Detail::kFigures);
    return std::pair(find_changes(s, layout_fields(parsed), given, e, catalog),
                     changes_to_fit(parsed, given, catalog));
  };
  const auto expect_as_public = [](const FoundChanges& found, const std::vector<Change>& c) {
    const std::vector<Change> got = found.to_changes();
    ASSERT_EQ(got.size(), c.size());
    for (size_t i = 0; i < c.size(); ++i) {
      EXPECT_EQ(got[i].change, c[i].change);
      EXPECT_EQ(got[i].needed_bytes, c[i].needed_bytes);
      EXPECT_EQ(to_patch(got[i].edit), to_patch(c[i].edit));
    }
  };
  const nlohmann::json full = {
      {"model", "llama-2-7b"}, {"task", "full"}, {"gpu", "a10-24gb"}, {"gpu_count", 8}};
  const nlohmann::json serving = {{"model", "llama-3.1-70b"}, {"gpu", "rtx-4090-24gb"}};
  auto [first, first_expected] = search(full);
  ASSERT_FALSE(first_expected.empty());
  expect_as_public(first, first_expected);
  const ChangeLever* storage = first.levers.data();
  recycle(std::move(first));
  auto [again, again_expected] = search(full);
  EXPECT_EQ(again.levers.data(), storage);
  expect_as_public(again, again_expected);
  recycle(std::move(again));
  auto [other, other_expected] = search(serving);
  ASSERT_FALSE(other_expected.empty());
  EXPECT_EQ(other.levers.data(), storage);
  expect_as_public(other, other_expected);
}

TEST(FoundChanges, RecycledStorageServesTheNextSearch) {
  std::thread own(recycled_storage_serves_the_next_search);
  own.join();
}

}  // namespace
}  // namespace gpusizer
