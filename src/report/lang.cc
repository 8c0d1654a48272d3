// The language layer at the face (docs/design.md, "Language"): English texts in, the same texts in
// the asked language out, by the templates of data/lang/zh.json.
//
// A template is an English text with holes: "{}" keeps what it covers as it is (a number, a name,
// an id: one phrase, never across "; " or ", " outside parentheses), "{*}" keeps anything (quoted
// data: a format's source note, an instance and its price source), "{t}" translates what it
// covers again (a nested phrase, a list of levers). The Chinese
// side names the holes by position ("{0}", "{1}", ...), so the order may change. Templates are
// tried most specific first (most literal characters); a text no template covers is split at
// "; ", then at ". ", then at ", " and its parts translated one by one, then "name: rest" keeps
// the name and translates the rest. What is still not covered stays English, and the language
// test (lang_coverage_test.cc) lists it.
#include "gpusizer/lang.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "embed/embedded.h"
#include "gpusizer/error.h"
#include "gpusizer/json/lang.h"
#include "gpusizer/names.h"

namespace gpusizer {
namespace {

enum class Hole { kPhrase, kAny, kTranslate };  // "{}", "{*}", "{t}"

struct Template {
  std::vector<std::string> literals;  // holes + 1 pieces around the holes
  std::vector<Hole> holes;
  std::string zh;  // "{0}".."{9}" name the holes
  size_t literal_chars = 0;
};

Template parse_template(const std::string& en, const std::string& zh) {
  Template t;
  t.zh = zh;
  std::string piece;
  for (size_t i = 0; i < en.size(); ++i) {
    if (en[i] == '{' && i + 1 < en.size() && en[i + 1] == '}') {
      t.literals.push_back(piece);
      t.holes.push_back(Hole::kPhrase);
      piece.clear();
      ++i;
    } else if (en[i] == '{' && i + 2 < en.size() && (en[i + 1] == 't' || en[i + 1] == '*') &&
               en[i + 2] == '}') {
      t.literals.push_back(piece);
      t.holes.push_back(en[i + 1] == 't' ? Hole::kTranslate : Hole::kAny);
      piece.clear();
      i += 2;
    } else {
      piece += en[i];
    }
  }
  t.literals.push_back(piece);
  for (const auto& l : t.literals) t.literal_chars += l.size();
  return t;
}

class Table {
 public:
  static const Table& zh() {
    static const Table table(embedded::find("lang/zh.json"));
    return table;
  }
  const std::vector<Template>& templates() const { return templates_; }

 private:
  explicit Table(std::string_view text) {
    if (text.empty()) return;
    const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end());
    for (const auto& [en, zh] : j.at("templates").items())
      if (!en.empty() && en[0] != '_' && zh.is_string())
        templates_.push_back(parse_template(en, zh.get<std::string>()));
    // Most specific first, so that a general template does not take a text a specific one fits.
    std::stable_sort(
        templates_.begin(), templates_.end(),
        [](const Template& a, const Template& b) { return a.literal_chars > b.literal_chars; });
  }
  std::vector<Template> templates_;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Whether a kept hole may cover `text`: its parentheses balance (it never closes one opened before
// it, so "params x {} bits ({*})" cannot run past the note's closing parenthesis), and a "{}" is
// one phrase, not across "; " or ", " outside parentheses ("{} GiB taken" does not swallow the
// clause before it, nor "{} mixed precision" a list). kNotYet: a longer text may still fit (a
// parenthesis left open); kNever: no longer one will.
enum class Fit { kYes, kNotYet, kNever };

Fit fits_hole(Hole h, std::string_view text) {
  if (h == Hole::kTranslate) return Fit::kYes;
  int level = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++level;
    if (text[i] == ')' && --level < 0) return Fit::kNever;
    if (h == Hole::kPhrase && level == 0 && (text[i] == ';' || text[i] == ',') &&
        i + 1 < text.size() && text[i + 1] == ' ')
      return Fit::kNever;
  }
  return level == 0 ? Fit::kYes : Fit::kNotYet;
}

// Fills the holes from hole `i` on, the text before `pos` being matched. Holes are never empty.
// `budget` bounds the backtracking on texts that nearly match many ways.
bool match_from(const Template& t, std::string_view s, size_t i, size_t pos,
                std::vector<std::string_view>& holes, int& budget) {
  if (--budget < 0) return false;
  const std::string& next = t.literals[i + 1];
  const bool last = i + 1 == t.holes.size();
  if (next.empty()) {  // a hole at the end of the template
    if (!last || pos >= s.size()) return false;
    holes[i] = s.substr(pos);
    return fits_hole(t.holes[i], holes[i]) == Fit::kYes;
  }
  if (last) {
    if (s.size() < pos + 1 + next.size() || !ends_with(s, next)) return false;
    holes[i] = s.substr(pos, s.size() - next.size() - pos);
    return fits_hole(t.holes[i], holes[i]) == Fit::kYes;
  }
  for (size_t p = s.find(next, pos + 1); p != std::string_view::npos; p = s.find(next, p + 1)) {
    holes[i] = s.substr(pos, p - pos);
    const Fit fit = fits_hole(t.holes[i], holes[i]);
    if (fit == Fit::kNever) return false;  // a longer hole holds the same fault
    if (fit == Fit::kNotYet) continue;
    if (match_from(t, s, i + 1, p + next.size(), holes, budget)) return true;
  }
  return false;
}

bool match(const Template& t, std::string_view s, std::vector<std::string_view>& holes) {
  const std::string& first = t.literals[0];
  if (s.substr(0, first.size()) != first) return false;
  if (t.holes.empty()) return s.size() == first.size();
  holes.assign(t.holes.size(), {});
  int budget = 4000;
  return match_from(t, s, 0, first.size(), holes, budget);
}

std::string translate_zh(std::string_view s, int depth);

std::string fill(const Template& t, const std::vector<std::string_view>& holes, int depth) {
  std::string out;
  for (size_t i = 0; i < t.zh.size(); ++i) {
    const char c = t.zh[i];
    if (c == '{' && i + 2 < t.zh.size() && std::isdigit(static_cast<unsigned char>(t.zh[i + 1])) &&
        t.zh[i + 2] == '}') {
      const size_t k = static_cast<size_t>(t.zh[i + 1] - '0');
      if (k < holes.size())
        out += t.holes[k] == Hole::kTranslate ? translate_zh(holes[k], depth + 1)
                                              : std::string(holes[k]);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

// Splits `s` at `sep` and translates the parts; nullopt when `s` holds no `sep`.
std::optional<std::string> split_join(std::string_view s, std::string_view sep,
                                      std::string_view joint, int depth) {
  if (s.find(sep) == std::string_view::npos) return std::nullopt;
  // A separator inside parentheses belongs to the part around it ("(a, b)").
  std::vector<std::string_view> parts;
  int level = 0;
  size_t begin = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++level;
    if (s[i] == ')' && level > 0) --level;
    if (level == 0 && s.substr(i, sep.size()) == sep) {
      parts.push_back(s.substr(begin, i - begin));
      begin = i + sep.size();
      i += sep.size() - 1;
    }
  }
  if (parts.empty()) return std::nullopt;
  parts.push_back(s.substr(begin));
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += joint;
    out += translate_zh(parts[i], depth + 1);
  }
  return out;
}

std::string translate_zh(std::string_view s, int depth) {
  if (s.empty() || depth > 8) return std::string(s);
  std::vector<std::string_view> holes;
  for (const Template& t : Table::zh().templates())
    if (match(t, s, holes)) return fill(t, holes, depth);
  if (auto out = split_join(s, "; ", "；", depth)) return *out;
  if (auto out = split_join(s, ". ", "。", depth)) return *out;
  if (auto out = split_join(s, ", ", "，", depth)) return *out;
  // "name: rest": the name stays (a GPU, a field), the rest is translated.
  if (const size_t colon = s.find(": "); colon != std::string_view::npos && colon > 0) {
    const std::string rest = translate_zh(s.substr(colon + 2), depth + 1);
    if (rest != s.substr(colon + 2))
      return translate_zh(s.substr(0, colon), depth + 1) + "：" + rest;
  }
  return std::string(s);
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void translate_strings(nlohmann::json& j, Lang lang) {
  if (j.is_string()) {
    j = translate_text(j.get_ref<const std::string&>(), lang);
  } else if (j.is_array() || j.is_object()) {
    for (auto& v : j) translate_strings(v, lang);
  }
}

void walk(nlohmann::json& j, Lang lang) {
  if (j.is_array()) {
    for (auto& v : j) walk(v, lang);
    return;
  }
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    if (key == "scenario" || key == "patch" || key == "request") continue;  // the input: ids
    if (key == "error" && it->is_object()) {
      auto& e = *it;
      if (e.contains("message") && e["message"].is_string()) {
        const std::string field = e.value("field", "");
        e["message"] = error_json(e.value("code", ""), e["message"].get<std::string>(), field,
                                  lang)["error"]["message"];
      }
      continue;
    }
    if (key == "basis" || is_text_key(key)) {
      if (it->is_string() || key == "basis" || it->is_array())
        translate_strings(*it, lang);
      else
        walk(*it, lang);
      continue;
    }
    walk(*it, lang);
  }
}

}  // namespace

Lang parse_lang(std::string_view text, const std::string& field) {
  std::string primary = lower_ascii(text.substr(0, text.find_first_of("-_")));
  if (primary == "en") return Lang::kEn;
  if (primary == "zh") return Lang::kZh;
  throw InputError(field, "unknown language '" + shown_input(text) + "'; use en or zh",
                   "unknown_name");
}

Lang lang_from_accept_language(std::string_view header) {
  Lang best = Lang::kEn;
  double best_q = -1;
  size_t begin = 0;
  while (begin <= header.size()) {
    size_t end = header.find(',', begin);
    if (end == std::string_view::npos) end = header.size();
    std::string_view item = header.substr(begin, end - begin);
    begin = end + 1;
    double q = 1;
    if (const size_t semi = item.find(';'); semi != std::string_view::npos) {
      const std::string params = lower_ascii(item.substr(semi + 1));
      if (const size_t qpos = params.find("q="); qpos != std::string::npos)
        q = std::atof(params.c_str() + qpos + 2);
      item = item.substr(0, semi);
    }
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty() || q <= 0) continue;
    const std::string primary = lower_ascii(item.substr(0, item.find_first_of("-_")));
    if ((primary == "en" || primary == "zh") && q > best_q) {
      best_q = q;
      best = primary == "zh" ? Lang::kZh : Lang::kEn;
    }
  }
  return best;
}

const char* lang_code(Lang lang) {
  return lang == Lang::kZh ? "zh" : "en";
}

std::string translate_text(std::string_view english, Lang lang) {
  if (lang == Lang::kEn) return std::string(english);
  return translate_zh(english, 0);
}

bool is_text_key(std::string_view key) {
  static const char* const kKeys[] = {"warnings",
                                      "reasons",
                                      "why",
                                      "message",
                                      "change",
                                      "cost",
                                      "verdict",
                                      "notes",
                                      "note",
                                      "units",
                                      "summary",
                                      "peak_phase",
                                      "objective_basis",
                                      "advice",
                                      "risks",
                                      "hint",
                                      "explanation",
                                      "assumption",
                                      "assumptions_text",
                                      "meaning",
                                      "levers",
                                      "context_warning",
                                      "not_rented"};
  for (const char* k : kKeys)
    if (key == k) return true;
  return false;
}

void localize(nlohmann::json& result, Lang lang) {
  if (lang == Lang::kEn) return;
  walk(result, lang);
}

std::vector<std::string> suggestions_in(std::string_view message) {
  std::vector<std::string> out;
  for (std::string_view marker :
       {std::string_view("did you mean "), std::string_view("it matches ")}) {
    const size_t at = message.find(marker);
    if (at == std::string_view::npos) continue;
    std::string_view rest = message.substr(at + marker.size());
    rest = rest.substr(0, rest.find_first_of("?;)"));
    size_t begin = 0;
    while (begin < rest.size()) {
      size_t end = rest.find_first_of(", ", begin);
      if (end == std::string_view::npos) end = rest.size();
      std::string_view name = rest.substr(begin, end - begin);
      while (!name.empty() && (name.front() == '\'' || name.front() == '"')) name.remove_prefix(1);
      while (!name.empty() && (name.back() == '\'' || name.back() == '"')) name.remove_suffix(1);
      if (!name.empty()) out.emplace_back(name);
      begin = end + 1;
    }
    break;
  }
  return out;
}

nlohmann::json error_json(const std::string& code, const std::string& message,
                          const std::string& field, Lang lang) {
  std::string text = message;
  if (lang != Lang::kEn) {
    const std::string prefix = field + ": ";
    if (!field.empty() && message.starts_with(prefix))
      text = field + "：" + translate_text(message.substr(prefix.size()), lang);
    else
      text = translate_text(message, lang);
  }
  nlohmann::json e = {{"code", code}, {"message", text}, {"field", field}};
  if (auto names = suggestions_in(message); !names.empty()) e["suggestions"] = names;
  return {{"error", e}};
}

}  // namespace gpusizer
