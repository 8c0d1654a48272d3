#include "gpusizer/json/json_input.h"

#include <vector>

#include "gpusizer/error.h"
#include "scenario/plain_json.h"

namespace gpusizer {
namespace {

// One open object or array while parsing: its keys so far (objects) and the key being read.
struct Frame {
  bool object = false;
  std::vector<std::string> keys;
  std::string key;
  size_t index = 0;  // arrays: the next element's index
};

std::string path_of(const std::vector<Frame>& stack) {
  std::string path;
  for (const Frame& f : stack) {
    if (f.object) {
      if (f.key.empty()) continue;
      if (!path.empty()) path += '.';
      path += f.key;
    } else {
      path += "[" + std::to_string(f.index) + "]";
    }
  }
  return path;
}

std::string join(const std::string& where, const std::string& path) {
  if (path.empty()) return where;
  return where.empty() ? path : where + ": " + path;
}

}  // namespace

nlohmann::json parse_json_input(std::string_view text, const std::string& where) {
  using nlohmann::json;
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw InputError(where, "malformed JSON: a NUL byte at byte " + std::to_string(nul),
                     "bad_json");
  // The common plain text without nlohmann's lexer and this callback; the rest, and every error,
  // below.
  if (std::optional<nlohmann::json> plain = parse_plain_json(text)) return std::move(*plain);
  std::vector<Frame> stack;
  auto callback = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        stack.push_back(Frame{true, {}, {}, 0});
        break;
      case json::parse_event_t::array_start:
        stack.push_back(Frame{false, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& f = stack.back();
        f.key = parsed.get<std::string>();
        for (const auto& k : f.keys)
          if (k == f.key)
            throw InputError(join(where, path_of(stack)), "the key appears twice in one object",
                             "bad_input");
        f.keys.push_back(f.key);
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack.pop_back();
        [[fallthrough]];
      case json::parse_event_t::value:
        if (!stack.empty() && !stack.back().object) ++stack.back().index;
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::parse_error& e) {
    throw InputError(where, std::string("malformed JSON: ") + e.what(), "bad_json");
  } catch (const json::out_of_range& e) {
    // 406: "number overflow parsing '1e400'" — the number's text is quoted in the message.
    const std::string what = e.what();
    const size_t open = what.find('\'');
    const size_t close = what.rfind('\'');
    const std::string number =
        open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
    const std::string path = path_of(stack);
    throw InputError(path.empty() ? where : path,
                     "must be a finite number that a double can hold" +
                         (number.empty() ? std::string() : ", not " + number),
                     "out_of_range");
  }
}

}  // namespace gpusizer
