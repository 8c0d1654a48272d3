#pragma once
// Opening files named by strangers: the name is checked before any system call (no NUL or control
// bytes, so the name the checks saw is the name the kernel opens), the file is opened with
// O_NONBLOCK (a FIFO or a device cannot block the open) and checked with fstat after the open (only
// regular files are read, so what was checked is what is read), and every kind of file has a size
// cap. Used by the importers, the CLI's --input and the data-directory loaders.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpusizer {

/// Size caps per kind of file (docs/security.md lists them).
inline constexpr uint64_t kMaxJsonFileBytes = uint64_t{64} << 20;     ///< config.json, index files
inline constexpr uint64_t kMaxDataFileBytes = uint64_t{64} << 20;     ///< one file of a data dir
inline constexpr uint64_t kMaxInputBytes = uint64_t{256} << 20;       ///< estimate --input FILE
inline constexpr uint64_t kMaxScenarioBytes = uint64_t{1} << 20;      ///< one scenario / JSONL line
inline constexpr uint64_t kMaxGgufHeaderBytes = uint64_t{512} << 20;  ///< GGUF metadata + tensors

/// Throws InputError(field, ..., "bad_input") when `path` is empty, longer than 4096 bytes, or
/// holds a NUL or another control byte (0x01-0x1f, 0x7f): the C library would open only the part
/// before a NUL, and control bytes in names are only ever an attack or an accident.
void check_path_text(std::string_view path, const std::string& field);

/// An open regular file. The constructor checks the name (check_path_text), opens it read-only
/// with O_NONBLOCK | O_NOCTTY | O_CLOEXEC, and refuses with InputError(field, ..., "bad_file")
/// anything fstat does not call a regular file (FIFO, socket, character or block device,
/// directory) and a missing or unreadable file.
class RegularFile {
 public:
  RegularFile(const std::string& path, const std::string& field);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  /// Reads exactly `n` bytes at `offset` (pread); a short read is an InputError ("bad_file").
  void read_at(uint64_t offset, size_t n, char* out) const;
  /// The whole file; larger than `max_bytes`: InputError naming the field and the limit.
  std::string read_all(uint64_t max_bytes) const;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string path_, field_;
};

/// The whole regular file at `path`, at most `max_bytes` (see RegularFile).
std::string read_regular_file(const std::string& path, uint64_t max_bytes,
                              const std::string& field);

/// Reads a descriptor (stdin) to its end, at most `max_bytes`: one byte more is an InputError
/// naming `field` and the limit, so /dev/zero or an endless pipe stops at the cap.
std::string read_fd_bounded(int fd, uint64_t max_bytes, const std::string& field);

/// "64 MiB", "1 MiB", "512 KiB", "100 bytes": a limit as messages and docs write it.
std::string byte_limit_text(uint64_t bytes);

}  // namespace gpusizer
