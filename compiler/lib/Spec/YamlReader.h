//===- YamlReader.h - Typed, diagnosed access to YAML nodes -----*- C++ -*-===//
//
// A thin layer over llvm::yaml's lazy node tree that reads typed values and
// reports every mismatch ("expected an integer for 'features', found a
// string"), unknown and duplicate keys, through SpecDiagnostics.
//
// llvm::yaml parses lazily and its Node::skip() recurses once per nesting
// level; consume() walks with an explicit stack instead, so deeply nested
// garbage cannot overflow the C++ stack. Every reader here leaves the node it
// was given fully consumed.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_LIB_SPEC_YAMLREADER_H
#define RNN_LIB_SPEC_YAMLREADER_H

#include "SpecDiagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/YAMLParser.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rnnc::spec::detail {

/// A value read from a mapping or a list, named for messages.
struct Field {
  std::string name;       ///< "features", or "batch[1]" for list elements
  llvm::SMLoc keyLoc;     ///< the key (the element itself in lists)
  llvm::yaml::Node *node; ///< the value, never null
  llvm::SMLoc valueLoc;   ///< where the value starts

  /// Where to point at the value: its start, or the key for an empty value.
  llvm::SMLoc loc() const;
};

class YamlReader {
public:
  /// `bufferStart` is the start of the buffer being read. With
  /// `decodeScalars`, consume() also decodes every scalar it passes, so that
  /// bad escapes are reported (the syntax pass uses this).
  YamlReader(SpecDiagnostics &diags, const char *bufferStart,
             bool decodeScalars = false)
      : diags(diags), bufferStart(bufferStart), decodeScalars(decodeScalars) {}

  /// Calls `fn` for every key of `map` that is in `known`, in source order.
  /// Reports non-string keys, duplicate keys (with a note at the first) and
  /// unknown keys (with a did-you-mean note); `context` names the mapping in
  /// those messages ("'input'", "the spec").
  void forEachField(llvm::yaml::MappingNode &map, llvm::StringRef context,
                    llvm::ArrayRef<llvm::StringRef> known,
                    llvm::function_ref<void(Field &)> fn);

  /// Calls `fn` for every element of `list`, named "<name>[i]".
  void forEachElement(llvm::yaml::SequenceNode &list, llvm::StringRef name,
                      llvm::function_ref<void(Field &)> fn);

  /// Typed reads. Each reports "expected <type> for '<name>', found <what>"
  /// on a mismatch and returns std::nullopt / nullptr.
  std::optional<int64_t> readInt(Field &field);
  std::optional<bool> readBool(Field &field);
  /// An integer that must be at least 1; else reports "'<name>' must be
  /// <requirement>, found <n>".
  std::optional<int64_t> readPositive(Field &field,
                                      llvm::StringRef requirement = "positive");
  std::optional<std::string> readString(Field &field);
  /// A number: an integer or a YAML float (1e-6, 0.5, .inf, .nan). `text`,
  /// if given, receives the value as written (for messages).
  std::optional<double> readFloat(Field &field, std::string *text = nullptr);
  std::optional<std::vector<int64_t>> readIntList(Field &field);
  llvm::yaml::MappingNode *readMapping(Field &field);
  llvm::yaml::SequenceNode *readList(Field &field, llvm::StringRef expected);

  /// Reads one of `names` (reporting "unknown <noun> 'x'; expected one of
  /// ..." with a did-you-mean note) and returns its index.
  std::optional<size_t> readChoice(Field &field, llvm::StringRef noun,
                                   llvm::ArrayRef<llvm::StringRef> names);

  template <typename E>
  std::optional<E>
  readEnum(Field &field, llvm::StringRef noun,
           llvm::ArrayRef<std::pair<llvm::StringRef, E>> table) {
    std::vector<llvm::StringRef> names;
    for (const auto &entry : table)
      names.push_back(entry.first);
    if (std::optional<size_t> i = readChoice(field, noun, names))
      return table[*i].second;
    return std::nullopt;
  }

  /// Reports "expected <expected> for '<name>', found <what>".
  void typeError(const Field &field, llvm::StringRef expected);

  /// Consumes `node` and everything below it, without recursion. A node
  /// already iterated by this reader is left alone (iterating a collection
  /// twice would make llvm::yaml parse past its end).
  void consume(llvm::yaml::Node *node);

  /// Where `node` starts in the source (for flow collections: the bracket).
  llvm::SMLoc startOf(llvm::yaml::Node *node) const;

  /// True for a plain scalar that reads as an integer.
  static bool isInteger(llvm::yaml::Node *node);

  /// "a string", "an integer", "a list", "an empty value", ...
  static std::string describe(llvm::yaml::Node *node);

  SpecDiagnostics &diags;

private:
  const char *bufferStart;
  bool decodeScalars;

  /// Collections this reader has iterated.
  llvm::DenseSet<llvm::yaml::Node *> iterated;

  /// Reports aliases (which specs do not support); returns true if `field`
  /// is one.
  bool rejectAlias(Field &field);
};

} // namespace rnnc::spec::detail

#endif // RNN_LIB_SPEC_YAMLREADER_H
