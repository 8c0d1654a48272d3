#include "gpusizer/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gpusizer/error.h"

namespace gpusizer {
namespace {

constexpr size_t kMaxPathBytes = 4096;  // PATH_MAX on Linux (linux/limits.h)

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string byte_limit_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

void check_path_text(std::string_view path, const std::string& field) {
  if (path.empty()) throw InputError(field, "the path is empty", "bad_input");
  if (path.size() > kMaxPathBytes)
    throw InputError(field, "the path is longer than 4096 bytes", "bad_input");
  for (size_t i = 0; i < path.size(); ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", c);
      // The name is not echoed: it holds the bytes a terminal or log should not get.
      throw InputError(field,
                       std::string("the path holds a ") + (c == 0 ? "NUL" : "control") + " byte (" +
                           code + " at byte " + std::to_string(i) + ")",
                       "bad_input");
    }
  }
}

RegularFile::RegularFile(const std::string& path, const std::string& field)
    : path_(path), field_(field) {
  check_path_text(path, field);
  // O_NONBLOCK: opening a FIFO without a writer, or a tty or tape device, returns at once
  // instead of waiting (open(2)); the fstat below then refuses it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) {
    const int err = errno;
    throw InputError(field,
                     "cannot open '" + path +
                         "': " + (err == ENOENT ? std::string("no such file") : std::strerror(err)),
                     "bad_file");
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char* kind = ::fstat(fd_, &st) == 0 ? kind_of(st.st_mode) : "unreadable";
    ::close(fd_);
    fd_ = -1;
    throw InputError(field, "'" + path + "' is " + kind + "; only regular files are read",
                     "bad_file");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

void RegularFile::read_at(uint64_t offset, size_t n, char* out) const {
  while (n > 0) {
    const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw InputError(field_,
                       "read failed at byte " + std::to_string(offset) + " of '" + path_ + "'",
                       "bad_file");
    out += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
}

std::string RegularFile::read_all(uint64_t max_bytes) const {
  if (size_ > max_bytes)
    throw InputError(field_,
                     "'" + path_ + "' is " + std::to_string(size_) + " bytes, over the limit of " +
                         byte_limit_text(max_bytes),
                     "bad_file");
  std::string text(static_cast<size_t>(size_), '\0');
  read_at(0, text.size(), text.data());
  return text;
}

std::string read_regular_file(const std::string& path, uint64_t max_bytes,
                              const std::string& field) {
  return RegularFile(path, field).read_all(max_bytes);
}

std::string read_fd_bounded(int fd, uint64_t max_bytes, const std::string& field) {
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(field, std::string("read failed: ") + std::strerror(errno));
    if (got == 0) return text;
    if (text.size() + static_cast<size_t>(got) > max_bytes)
      throw InputError(field, "the input is over the limit of " + byte_limit_text(max_bytes),
                       "bad_input");
    text.append(buf, static_cast<size_t>(got));
  }
}

}  // namespace gpusizer
