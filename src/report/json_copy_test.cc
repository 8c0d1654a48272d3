// The text writer's short copies (report/json_copy.h): a string shorter than 16 bytes is copied
// and tested in one pass, plain exactly when none of its bytes is a control character, '"', '\'
// or outside ASCII (what nlohmann's dump() would escape or check as UTF-8).
#include "report/json_copy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace gpusizer {
namespace {

bool plain_byte(unsigned char c) {
  return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

// Every length below 16, every position, every byte value: the copy is the text (whether plain
// or not, the bytes copied are the source's) and the answer is the rule's.
TEST(JsonCopy, ShortCopyTestsEveryByte) {
  for (size_t n = 0; n < 16; ++n) {
    for (size_t at = 0; at < (n ? n : 1); ++at) {
      for (int c = 0; c < 256; ++c) {
        std::string text(n, 'a');
        if (n) text[at] = static_cast<char>(c);
        char out[16];
        std::memset(out, '#', sizeof out);
        const bool plain = json_copy::copy_short_plain(out, text.data(), n);
        EXPECT_EQ(plain, n == 0 || plain_byte(static_cast<unsigned char>(c)))
            << "length " << n << ", byte " << c << " at " << at;
        EXPECT_EQ(std::string(out, n), text);
        EXPECT_EQ(out[n], '#') << "written past the text, length " << n;
      }
    }
  }
}

// Texts of 1-15 bytes with two odd bytes apart, and the plain printable ASCII range whole.
TEST(JsonCopy, ShortCopyOfMixedTexts) {
  const std::string ascii = " !#$%&'()*+,-./0123456789:;<=>?@AZ[]^_`az{|}~\x7f";
  for (size_t i = 0; i + 15 <= ascii.size(); ++i) {
    char out[16];
    EXPECT_TRUE(json_copy::copy_short_plain(out, ascii.data() + i, 15));
  }
  char out[16];
  EXPECT_FALSE(json_copy::copy_short_plain(out, "ab\"cdefgh\\ij", 12));
  EXPECT_FALSE(json_copy::copy_short_plain(out, "a\xc3\x97", 3));  // UTF-8 is not plain here
  EXPECT_TRUE(json_copy::copy_short_plain(out, "h100-80gb", 9));
}

}  // namespace
}  // namespace gpusizer
