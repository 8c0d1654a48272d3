// Gpu's derived figures against the PCI-SIG per-lane rates (gpu.cc): 0.985, 1.969, 3.938 and
// 7.877 GB/s per lane and direction for Gen3 to Gen6.
#include "gpusizer/gpu.h"

#include <gtest/gtest.h>

namespace gpusizer {
namespace {

double pcie(const std::string& text, int typed_gen = 0) {
  Gpu g;
  g.pcie_gen_lanes = text;
  g.pcie_gen = typed_gen;
  return g.pcie_bytes_per_s();
}

// The texts of data/gpus.csv's pcie_gen_lanes column.
TEST(Gpu, PcieRateFromTheCatalogText) {
  EXPECT_DOUBLE_EQ(pcie("Gen3 x16"), 0.985e9 * 16);
  EXPECT_DOUBLE_EQ(pcie("Gen4 x8"), 1.969e9 * 8);
  EXPECT_DOUBLE_EQ(pcie("Gen5 (4x16 from Grace)"), 3.938e9 * 16);
  EXPECT_DOUBLE_EQ(pcie("Gen5 x16 host (Gen6-capable silicon per some sources)"), 3.938e9 * 16);
  EXPECT_DOUBLE_EQ(pcie("Gen6 x16"), 7.877e9 * 16);
  EXPECT_DOUBLE_EQ(pcie("via Grace (Gen5)"), 3.938e9 * 16);  // no lanes: x16
  EXPECT_DOUBLE_EQ(pcie("gen4 X4"), 1.969e9 * 4);            // either case
  EXPECT_DOUBLE_EQ(pcie("Gen4 16"), 1.969e9 * 16);           // a count without "x" is no lanes
  EXPECT_DOUBLE_EQ(pcie("NA"), 1.969e9 * 16);                // nothing: Gen4 x16
  // The typed pcie_gen column wins over the text's generation; the lanes stay the text's.
  EXPECT_DOUBLE_EQ(pcie("Gen4 x8", 5), 3.938e9 * 8);
}

}  // namespace
}  // namespace gpusizer
