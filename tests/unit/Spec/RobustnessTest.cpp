//===- RobustnessTest.cpp - parseModel on garbage: errors, never crashes --===//

#include "SpecTestUtils.h"

#include "gtest/gtest.h"

#include <random>

using namespace rnnc::spec;
using namespace rnnc::spec::test;

namespace {

/// A valid spec with `features` of the one LSTM layer replaced by `value`.
std::string withFeatures(const std::string &value) {
  return "rnnc: 1\nname: g\ninput: {batch: [2], time: 3, features: 4}\n"
         "layers:\n  - {type: RNN, cell: {type: LSTMCell, features: " +
         value + "}}\n";
}

std::string repeat(const std::string &s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i)
    out += s;
  return out;
}

std::vector<std::pair<std::string, std::string>> garbageInputs() {
  std::vector<std::pair<std::string, std::string>> inputs = {
      {"empty file", ""},
      {"only a comment", "# nothing here\n"},
      {"only whitespace", "   \n\n  \n"},
      {"binary junk",
       std::string("\x00\x01\x02\xff\xfe\x7f\x80rnnc: 1\x00", 15)},
      {"invalid utf-8", "rnnc: 1\nname: \xc3\x28\xa0\xa1\n"},
      {"utf-16 bom", "\xff\xfer\0n\0n\0c\0"},
      {"scalar document", "hello"},
      {"list document", "[1, 2, 3]"},
      {"deeply nested flow lists", repeat("[", 100000) + repeat("]", 100000)},
      {"deeply nested unclosed lists", repeat("[", 50000)},
      // A million levels: llvm::yaml's recursive skip() would overflow the
      // stack here.
      {"deeply nested block lists", repeat("- ", 1000000) + "x\n"},
      {"deep block lists in a known key",
       "rnnc: 1\nname: d\ninput: {time: 2, features: 2}\nlayers:\n  " +
           repeat("- ", 1000000) + "x\n"},
      {"deeply nested flow maps",
       repeat("{a: ", 100000) + "1" + repeat("}", 100000)},
      {"deep nesting inside a known key",
       "rnnc: 1\nname: d\ninput: {time: 2, features: 2}\nlayers: " +
           repeat("[", 50000) + repeat("]", 50000) + "\n"},
      {"deep nesting as a cell",
       "rnnc: 1\nname: d\ninput: {time: 2, features: 2}\nlayers:\n"
       "  - {type: RNN, cell: " +
           repeat("{a: ", 50000) + "1" + repeat("}", 50000) + "}\n"},
      {"huge integer", withFeatures("99999999999999999999")},
      {"huge negative integer", withFeatures("-99999999999999999999")},
      {"negative features", withFeatures("-5")},
      {"zero features", withFeatures("0")},
      {"largest int64 features", withFeatures("9223372036854775807")},
      {"float features", withFeatures("1.5e3")},
      {"null features", withFeatures("~")},
      {"list features", withFeatures("[1, [2]]")},
      {"negative time",
       "rnnc: 1\nname: g\ninput: {time: -1, features: 4}\nlayers:\n"
       "  - {type: RNN, cell: {type: LSTMCell, features: 3}}\n"},
      {"negative batch",
       "rnnc: 1\nname: g\ninput: {batch: [-2], time: 1, features: 4}\n"
       "layers: [{type: RNN, cell: {type: LSTMCell, features: 3}}]\n"},
      {"tab indentation", "rnnc: 1\n\tname: x\n"},
      {"tab in a nested mapping",
       "rnnc: 1\nname: t\ninput:\n\ttime: 5\n\tfeatures: 3\n"},
      {"unterminated quote", "rnnc: 1\nname: \"abc\n"},
      {"bad escape", "rnnc: 1\nname: \"a\\qb\"\n"},
      {"duplicate keys", "rnnc: 1\nrnnc: 1\n"},
      {"complex key", "? [a, b]\n: c\n"},
      {"alias", "rnnc: &v 1\nname: *v\n"},
      {"undefined alias", "rnnc: *nowhere\n"},
      {"two documents", "rnnc: 1\n---\nrnnc: 1\n"},
      {"document markers only", "---\n...\n---\n...\n"},
      {"many document ends", repeat("...\n", 20000)},
      {"directive", "%YAML 1.2\n%TAG ! tag:x,2000:\n---\nrnnc: 1\n"},
      {"colons everywhere", repeat(": ", 50000)},
      {"very long line", "name: " + repeat("x", 1000000) + "\n"},
      {"huge overflowing model", R"(rnnc: 1
name: huge
input: {batch: [4294967296, 4294967296], time: 4294967296, features: 4294967296}
layers:
  - {type: RNN, cell: {type: LSTMCell, features: 4294967296}}
)"},
  };
  // Random bytes, and random mutations of a valid spec.
  std::mt19937 rng(12345);
  for (int i = 0; i < 20; ++i) {
    std::string junk(1 + rng() % 400, '\0');
    for (char &c : junk)
      c = static_cast<char>(rng());
    inputs.push_back({"random bytes " + std::to_string(i), junk});
  }
  std::string valid = kExampleSpec;
  const std::string alphabet = "[]{}:,-#&*!|>'\"\t\n 0aZ?%@`";
  for (int i = 0; i < 200; ++i) {
    std::string mutated = valid;
    for (int j = 0; j < 1 + i % 4; ++j)
      mutated[rng() % mutated.size()] = alphabet[rng() % alphabet.size()];
    inputs.push_back({"mutation " + std::to_string(i), mutated});
  }
  return inputs;
}

TEST(SpecRobustness, GarbageIsRejectedWithoutCrashing) {
  for (const auto &[name, text] : garbageInputs()) {
    ParseResult r = parse(text);
    if (llvm::StringRef(name).starts_with("mutation")) {
      // A mutation may still be a valid spec; it must not crash, and a
      // rejection must come with an error.
      if (!r.model)
        EXPECT_NE(r.diagnostics.find("error: "), std::string::npos) << name;
      continue;
    }
    EXPECT_FALSE(r.model) << name;
    EXPECT_NE(r.diagnostics.find("error: "), std::string::npos) << name;
    EXPECT_EQ(r.diagnostics.find("error: error:"), std::string::npos) << name;
    EXPECT_LE(count(r.diagnostics, ": error: "), kMaxErrors) << name;
  }
}

TEST(SpecRobustness, SpecificMessages) {
  auto expectError = [](const std::string &text, const std::string &message) {
    ParseResult r = parse(text);
    EXPECT_FALSE(r.model);
    EXPECT_NE(r.diagnostics.find(message), std::string::npos)
        << "expected: " << message << "\ngot:\n"
        << r.diagnostics;
  };
  expectError("", "spec.yaml:1:1: error: expected a mapping at the top level "
                  "of the spec, found an empty document");
  expectError(withFeatures("99999999999999999999"),
              "error: integer 99999999999999999999 for 'features' does not "
              "fit in 64 bits");
  expectError(withFeatures("-5"),
              "error: 'features' must be positive, found -5");
  expectError(withFeatures("\"8\""),
              "error: expected an integer for 'features', found a string");
  expectError(withFeatures("9223372036854775807"),
              "error: layer 'layers_0' is too large: its sizes overflow "
              "64-bit integers");
  expectError("rnnc: 1\n\tname: x\n", "spec.yaml:2:1: error: invalid YAML: ");
  expectError("rnnc: 1\nrnnc: 1\n", "spec.yaml:2:1: error: duplicate key "
                                    "'rnnc'");
  expectError("x: " + repeat("[", 101) + repeat("]", 101),
              "spec.yaml:1:104: error: invalid YAML: '[' and '{' nested more "
              "than 100 levels deep");
}

} // namespace
