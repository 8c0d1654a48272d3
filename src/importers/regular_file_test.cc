// Files named by strangers: names with NUL or control bytes are refused before any system call,
// FIFOs, devices and directories are refused without blocking, and each kind of file has a cap.
#include "gpusizer/regular_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gpusizer/error.h"
#include "gpusizer/importers.h"
#include "importers/test_files.h"

namespace gpusizer {
namespace {

namespace fs = std::filesystem;

/// A fresh folder for one test.
fs::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(::testing::TempDir()) /
                 (std::string("regular_file_") + info->name() + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PathText, RefusesNulAndControlBytesWithoutEchoingThem) {
  EXPECT_NO_THROW(check_path_text("/models/llama/config.json", "model"));
  EXPECT_NO_THROW(check_path_text("models/Llama 2 (7B)/model.gguf", "model"));  // spaces pass
  const std::string nul("/dir/config.json\0.json", 22);
  const std::string what = error_of([&] { check_path_text(nul, "model"); });
  EXPECT_NE(what.find("model: the path holds a NUL byte (0x00 at byte 16)"), std::string::npos)
      << what;
  for (char c : {'\x01', '\n', '\r', '\t', '\x1b', '\x7f'}) {
    const std::string name = std::string("a") + c + "b.json";
    const std::string msg = error_of([&] { check_path_text(name, "--input"); });
    EXPECT_NE(msg.find("--input: the path holds a control byte"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(name), std::string::npos) << "the name is echoed: " << msg;
  }
  EXPECT_NE(error_of([] { check_path_text("", "model"); }), "");
  EXPECT_NE(error_of([] { check_path_text(std::string(4097, 'a'), "model"); }), "");
}

TEST(RegularFile, RefusesAFifoWithoutWaitingForAWriter) {
  const fs::path dir = scratch();
  const std::string fifo = (dir / "config.json").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Without O_NONBLOCK this open would wait for a writer forever.
  const std::string what = error_of([&] { RegularFile f(fifo, "model"); });
  EXPECT_NE(what.find("is a FIFO; only regular files are read"), std::string::npos) << what;
}

TEST(RegularFile, RefusesDevicesAndDirectories) {
  EXPECT_NE(error_of([] { RegularFile f("/dev/null", "x"); }).find("a character device"),
            std::string::npos);
  EXPECT_NE(error_of([] { RegularFile f("/dev/zero", "x"); }).find("a character device"),
            std::string::npos);
  const fs::path dir = scratch();
  EXPECT_NE(error_of([&] { RegularFile f(dir.string(), "x"); }).find("a directory"),
            std::string::npos);
  EXPECT_NE(error_of([&] { RegularFile f((dir / "missing").string(), "x"); }).find("no such file"),
            std::string::npos);
}

TEST(RegularFile, CapsTheSize) {
  const fs::path dir = scratch();
  const std::string path = (dir / "a.json").string();
  std::ofstream(path) << std::string(100, 'x');
  EXPECT_EQ(read_regular_file(path, 100, "f").size(), 100u);
  const std::string what = error_of([&] { read_regular_file(path, 99, "f"); });
  EXPECT_NE(what.find("is 100 bytes, over the limit of 99 bytes"), std::string::npos) << what;
  EXPECT_EQ(byte_limit_text(kMaxInputBytes), "256 MiB");
  EXPECT_EQ(byte_limit_text(kMaxScenarioBytes), "1 MiB");
}

TEST(ReadFdBounded, StopsAnEndlessStreamAtTheCap) {
  const int fd = ::open("/dev/zero", O_RDONLY);
  ASSERT_GE(fd, 0);
  const std::string what = error_of([&] { read_fd_bounded(fd, 1 << 20, "--input"); });
  ::close(fd);
  EXPECT_NE(what.find("--input: the input is over the limit of 1 MiB"), std::string::npos) << what;
}

// Every file input of the importers goes through the rule: the model path itself, a GGUF, a
// safetensors file, an index's shard, a folder's config.json and weights.
TEST(ImportersOpenOnlyRegularFiles, FifosEverywhere) {
  const fs::path dir = scratch();
  auto fifo = [&](const fs::path& p) { ASSERT_EQ(mkfifo(p.c_str(), 0600), 0) << p; };
  fifo(dir / "model.gguf");
  fifo(dir / "model.safetensors");
  fifo(dir / "config.json");
  EXPECT_NE(error_of([&] { import_model_path((dir / "model.gguf").string()); }).find("a FIFO"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { import_model_path((dir / "model.safetensors").string()); }).find("a FIFO"),
      std::string::npos);
  EXPECT_NE(error_of([&] { import_model_path((dir / "config.json").string()); }).find("a FIFO"),
            std::string::npos);

  // An index whose shard is a FIFO.
  const fs::path sharded = dir / "sharded";
  fs::create_directories(sharded);
  std::ofstream(sharded / "model.safetensors.index.json")
      << R"({"weight_map": {"a": "model-00001-of-00001.safetensors"}})";
  fifo(sharded / "model-00001-of-00001.safetensors");
  EXPECT_NE(error_of([&] { import_model_path(sharded.string()); }).find("a FIFO"),
            std::string::npos);

  // A folder whose config.json is a FIFO beside a real weights file.
  const fs::path folder = dir / "folder";
  fs::create_directories(folder);
  std::ofstream(folder / "model.safetensors", std::ios::binary)
      << testing::safetensors_file({{"model.embed_tokens.weight", "F16", {8, 4}}});
  fifo(folder / "config.json");
  EXPECT_NE(error_of([&] { import_model_path(folder.string()); }), "");

  // A FIFO named *.gguf inside a folder.
  const fs::path ggufs = dir / "ggufs";
  fs::create_directories(ggufs);
  fifo(ggufs / "x.gguf");
  EXPECT_NE(error_of([&] { import_model_path(ggufs.string()); }).find("a FIFO"), std::string::npos);
}

TEST(ImportersOpenOnlyRegularFiles, NulInTheNameIsRefusedBeforeOpening) {
  const fs::path dir = scratch();
  std::ofstream(dir / "config.json") << R"({"model_type": "llama"})";
  // Without the check the C library would open ".../config.json" and answer its contents.
  const std::string name = (dir / "config.json").string() + std::string("\0.json", 6);
  const std::string what = error_of([&] { import_model_path(name); });
  EXPECT_NE(what.find("NUL byte"), std::string::npos) << what;
  EXPECT_NE(error_of([&] { import_gguf_path(name); }).find("NUL byte"), std::string::npos);
  EXPECT_NE(error_of([&] { read_safetensors_path(name); }).find("NUL byte"), std::string::npos);
}

}  // namespace
}  // namespace gpusizer
