#pragma once
// Errors that cross the library's surface. Faces map InputError to exit code 2 or HTTP 400.
#include <stdexcept>
#include <string>

namespace gpusizer {

/// Bad input from the user: names the field at fault (a JSON path or flag) and what is wrong.
class InputError : public std::runtime_error {
 public:
  InputError(std::string field, const std::string& message, std::string code = "bad_input")
      : std::runtime_error(whole_text(field.empty() ? message : field + ": " + message)),
        field_(std::move(field)),
        code_(std::move(code)) {}
  const std::string& field() const { return field_; }
  /// Machine-readable kind: bad_input, unknown_name, bad_file, out_of_range.
  const std::string& code() const { return code_; }

 private:
  // what() is a C string, read up to its first NUL: a NUL byte the input put in a name would cut
  // the message there, so it is written as the two characters "\0" (src/core/input_error.cc).
  static std::string whole_text(std::string text);

  std::string field_;
  std::string code_;
};

}  // namespace gpusizer
