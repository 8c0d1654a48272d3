#pragma once
// The language of the human-readable texts (contract v2, "Language"). The library writes its
// texts in English; the faces translate them at the last step, before rendering, with the
// templates of data/lang/zh.json: an English template whose holes stand for numbers and names,
// and the Chinese template that uses them. Keys, ids, codes and numbers never change.
#include <string>
#include <string_view>
#include <vector>

namespace gpusizer {

enum class Lang { kEn, kZh };

/// "en" or "zh" (also "zh-CN", "zh-Hans", "zh_TW", "EN-us": the primary subtag decides).
/// Anything else is an InputError naming `field` and the valid values.
Lang parse_lang(std::string_view text, const std::string& field = "lang");

/// The language an HTTP Accept-Language header asks for (RFC 9110 sec. 12.5.4): the supported
/// language with the highest q-value, English when none is supported or the header is absent.
Lang lang_from_accept_language(std::string_view header);

/// "en" or "zh".
const char* lang_code(Lang lang);

/// One English text in `lang`; unchanged for English, and for a text no template covers.
std::string translate_text(std::string_view english, Lang lang);

/// Whether a key's string values are human-readable text (what localize translates).
bool is_text_key(std::string_view key);

/// The names an error message offers ("did you mean a, b, c?", "it matches a, b"), in order.
std::vector<std::string> suggestions_in(std::string_view message);

}  // namespace gpusizer
