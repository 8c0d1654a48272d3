#include "importers/byte_reader.h"

#include <algorithm>
#include <cstring>

#include "gpusizer/error.h"
#include "gpusizer/regular_file.h"

namespace gpusizer {
namespace {
constexpr size_t kWindow = size_t{1} << 20;
}  // namespace

void MemorySource::read(uint64_t offset, size_t n, char* out) const {
  if (n > 0) std::memcpy(out, bytes_.data() + offset, n);
}

FileSource::FileSource(const std::string& path, const std::string& field, uint64_t max_read)
    : file_(std::make_unique<RegularFile>(path, field)),
      path_(path),
      field_(field),
      size_(file_->size()),
      max_read_(max_read) {}

FileSource::~FileSource() = default;

void FileSource::read(uint64_t offset, size_t n, char* out) const {
  if (offset + n > max_read_)
    throw InputError(field_,
                     "the header reaches past its first " + byte_limit_text(max_read_) +
                         ", the limit for this kind of file",
                     "bad_file");
  while (n > 0) {
    if (offset < window_offset_ || offset >= window_offset_ + window_.size()) {
      // Refill the window at `offset`; reads past the file end were refused by the caller.
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kWindow, size_ - offset));
      window_.resize(want);
      try {
        file_->read_at(offset, want, window_.data());
      } catch (...) {
        window_.clear();
        throw;
      }
      window_offset_ = offset;
    }
    const size_t at = static_cast<size_t>(offset - window_offset_);
    const size_t take = std::min(n, window_.size() - at);
    std::memcpy(out, window_.data() + at, take);
    out += take;
    offset += take;
    n -= take;
  }
}

void ByteReader::fail(const std::string& what) const {
  throw InputError(where_, "at byte " + std::to_string(pos_) + ": " + what, "bad_file");
}

void ByteReader::need(uint64_t n) const {
  if (n > remaining())
    fail("truncated: needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) +
         " left");
}

void ByteReader::seek(uint64_t pos) {
  if (pos > size()) fail("offset " + std::to_string(pos) + " is past the end of the file");
  pos_ = pos;
}

void ByteReader::skip(uint64_t n) {
  need(n);
  pos_ += n;
}

uint64_t ByteReader::le(int width) {
  need(static_cast<uint64_t>(width));
  unsigned char b[8] = {};
  src_.read(pos_, static_cast<size_t>(width), reinterpret_cast<char*>(b));
  pos_ += static_cast<uint64_t>(width);
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

uint8_t ByteReader::u8() {
  return static_cast<uint8_t>(le(1));
}
uint16_t ByteReader::u16() {
  return static_cast<uint16_t>(le(2));
}
uint32_t ByteReader::u32() {
  return static_cast<uint32_t>(le(4));
}
uint64_t ByteReader::u64() {
  return le(8);
}

std::string ByteReader::bytes(uint64_t n) {
  need(n);
  std::string out(static_cast<size_t>(n), '\0');
  src_.read(pos_, static_cast<size_t>(n), out.data());
  pos_ += n;
  return out;
}

std::string ByteReader::str(uint64_t cap) {
  const uint64_t start = pos_;
  const uint64_t n = u64();
  if (n > cap) {
    pos_ = start;
    fail("string length " + std::to_string(n) + " exceeds the limit of " + std::to_string(cap));
  }
  return bytes(n);
}

}  // namespace gpusizer
