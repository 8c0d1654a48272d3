#pragma once
// Bounded reading of untrusted binary files: every read is checked against the source's size,
// and a short or bad read is an InputError ("bad_file") naming the byte offset.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace gpusizer {

/// Bytes that can be read at an offset: a memory buffer or a file (read through a window).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Total size in bytes.
  virtual uint64_t size() const = 0;
  /// Copies `n` bytes at `offset` into `out`; the caller has checked the range.
  virtual void read(uint64_t offset, size_t n, char* out) const = 0;
};

/// A source over bytes already in memory (fuzzing, tests).
class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, size_t n, char* out) const override;

 private:
  std::string_view bytes_;
};

class RegularFile;

/// A source over a file, read on demand through a 1 MiB window so that headers with many small
/// fields (GGUF metadata) cost few system calls and tensor data is never read. Only regular files
/// are opened (gpusizer/regular_file.h: no FIFO or device, no NUL in the name).
class FileSource : public ByteSource {
 public:
  /// Opens `path`; throws InputError naming `field` when it cannot be opened or is not a regular
  /// file. Reads past `max_read` bytes from the start are refused (the cap on a header's size).
  FileSource(const std::string& path, const std::string& field, uint64_t max_read = UINT64_MAX);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, size_t n, char* out) const override;

 private:
  std::unique_ptr<RegularFile> file_;
  std::string path_, field_;
  uint64_t size_ = 0;
  uint64_t max_read_ = UINT64_MAX;
  mutable std::string window_;
  mutable uint64_t window_offset_ = 0;
};

/// A little-endian cursor over a ByteSource that refuses to read past its end.
class ByteReader {
 public:
  ByteReader(const ByteSource& source, std::string where)
      : src_(source), where_(std::move(where)) {}

  uint64_t pos() const { return pos_; }
  uint64_t size() const { return src_.size(); }
  uint64_t remaining() const { return src_.size() - pos_; }
  void seek(uint64_t pos);
  void skip(uint64_t n);

  uint8_t u8();
  uint16_t u16();
  uint32_t u32();
  uint64_t u64();
  /// A string stored as a u64 length then bytes; the length must be <= `cap` and fit the file.
  std::string str(uint64_t cap);
  /// Reads `n` raw bytes (checked against the remaining size first).
  std::string bytes(uint64_t n);

  /// Throws InputError ("bad_file") naming the file and the current offset.
  [[noreturn]] void fail(const std::string& what) const;
  const std::string& where() const { return where_; }

 private:
  void need(uint64_t n) const;
  uint64_t le(int width);

  const ByteSource& src_;
  std::string where_;
  uint64_t pos_ = 0;
};

}  // namespace gpusizer
