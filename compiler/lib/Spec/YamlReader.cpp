//===- YamlReader.cpp - Typed, diagnosed access to YAML nodes -------------===//

#include "YamlReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/Regex.h"

#include <cstdlib>
#include <limits>

using namespace rnnc::spec::detail;
namespace yaml = llvm::yaml;
using llvm::SMLoc;
using llvm::StringRef;

llvm::SMLoc Field::loc() const {
  if (llvm::isa<yaml::NullNode>(node) || !valueLoc.isValid())
    return keyLoc;
  return valueLoc;
}

llvm::SMLoc YamlReader::startOf(yaml::Node *node) const {
  SMLoc start = node->getSourceRange().Start;
  if (!start.isValid() ||
      !llvm::isa<yaml::MappingNode, yaml::SequenceNode>(node))
    return start;
  // llvm::yaml starts a flow collection after its bracket; point at the
  // bracket.
  const char *p = start.getPointer();
  while (p > bufferStart) {
    --p;
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
      break;
  }
  return *p == '[' || *p == '{' ? SMLoc::getFromPointer(p) : start;
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

namespace {
enum class PlainKind { Null, Bool, Int, Float, String };
} // namespace

static bool isQuoted(const yaml::ScalarNode &node) {
  StringRef raw = node.getRawValue();
  return !raw.empty() && (raw.front() == '"' || raw.front() == '\'');
}

/// The text of a plain scalar. llvm::yaml's raw value of a plain scalar that
/// ends a line inside a flow collection (pretty-printed JSON) includes the
/// line break and the next line's indentation.
static StringRef plainText(const yaml::ScalarNode &node) {
  return node.getRawValue().rtrim(" \t\r\n");
}

static bool isIntegerText(StringRef text) {
  StringRef digits = text.starts_with("-") ? text.drop_front() : text;
  return !digits.empty() && llvm::all_of(digits, llvm::isDigit);
}

static PlainKind classifyPlain(StringRef text) {
  if (text.empty() || llvm::is_contained({"~", "null", "Null", "NULL"}, text))
    return PlainKind::Null;
  if (llvm::is_contained({"true", "True", "TRUE", "false", "False", "FALSE"},
                         text))
    return PlainKind::Bool;
  if (isIntegerText(text))
    return PlainKind::Int;
  static const llvm::Regex floatRegex(
      "^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$|"
      "^[-+]?\\.(inf|Inf|INF)$|^\\.(nan|NaN|NAN)$");
  if (floatRegex.match(text))
    return PlainKind::Float;
  return PlainKind::String;
}

std::string YamlReader::describe(yaml::Node *node) {
  if (!node)
    return "nothing";
  switch (node->getType()) {
  case yaml::Node::NK_Null:
    return "an empty value";
  case yaml::Node::NK_Scalar: {
    auto *scalar = llvm::cast<yaml::ScalarNode>(node);
    if (isQuoted(*scalar))
      return "a string";
    switch (classifyPlain(plainText(*scalar))) {
    case PlainKind::Null:
      return "null";
    case PlainKind::Bool:
      return "a boolean";
    case PlainKind::Int:
      return "an integer";
    case PlainKind::Float:
      return "a floating-point number";
    case PlainKind::String:
      return "a string";
    }
    return "a string";
  }
  case yaml::Node::NK_BlockScalar:
    return "a string";
  case yaml::Node::NK_KeyValue:
    return "a key-value pair";
  case yaml::Node::NK_Mapping:
    return "a mapping";
  case yaml::Node::NK_Sequence:
    return "a list";
  case yaml::Node::NK_Alias:
    return "an alias";
  }
  return "an unknown value";
}

void YamlReader::typeError(const Field &field, StringRef expected) {
  diags.error(field.loc(), "expected " + expected + " for '" + field.name +
                               "', found " + describe(field.node));
}

bool YamlReader::rejectAlias(Field &field) {
  auto *alias = llvm::dyn_cast<yaml::AliasNode>(field.node);
  if (!alias)
    return false;
  diags.error(field.loc(), "aliases ('*" + alias->getName() +
                               "') are not supported in specs; write the "
                               "value out");
  return true;
}

std::optional<int64_t> YamlReader::readInt(Field &field) {
  if (rejectAlias(field))
    return std::nullopt;
  auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(field.node);
  if (scalar && !isQuoted(*scalar) &&
      classifyPlain(plainText(*scalar)) == PlainKind::Int) {
    StringRef text = plainText(*scalar);
    int64_t value;
    if (!text.getAsInteger(10, value))
      return value;
    diags.error(field.loc(), "integer " + text + " for '" + field.name +
                                 "' does not fit in 64 bits");
    return std::nullopt;
  }
  typeError(field, "an integer");
  return std::nullopt;
}

std::optional<int64_t> YamlReader::readPositive(Field &field,
                                                StringRef requirement) {
  std::optional<int64_t> v = readInt(field);
  if (v && *v < 1) {
    diags.error(field.loc(), "'" + field.name + "' must be " + requirement +
                                 ", found " + llvm::Twine(*v));
    return std::nullopt;
  }
  return v;
}

std::optional<double> YamlReader::readFloat(Field &field, std::string *text) {
  if (rejectAlias(field))
    return std::nullopt;
  auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(field.node);
  if (scalar && !isQuoted(*scalar)) {
    StringRef plain = plainText(*scalar);
    PlainKind kind = classifyPlain(plain);
    if (kind == PlainKind::Int || kind == PlainKind::Float) {
      if (text)
        *text = plain.str();
      StringRef lower = plain.ltrim("+-");
      bool negative = plain.starts_with("-");
      if (lower.equals_insensitive(".inf"))
        return negative ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
      if (lower.equals_insensitive(".nan"))
        return std::numeric_limits<double>::quiet_NaN();
      // strtod accepts every form the YAML float regex admits.
      std::string copy = plain.str();
      return std::strtod(copy.c_str(), nullptr);
    }
  }
  typeError(field, "a number");
  return std::nullopt;
}

bool YamlReader::isInteger(yaml::Node *node) {
  auto *scalar = llvm::dyn_cast_or_null<yaml::ScalarNode>(node);
  return scalar && !isQuoted(*scalar) &&
         classifyPlain(plainText(*scalar)) == PlainKind::Int;
}

std::optional<bool> YamlReader::readBool(Field &field) {
  if (rejectAlias(field))
    return std::nullopt;
  auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(field.node);
  if (scalar && !isQuoted(*scalar)) {
    StringRef text = plainText(*scalar);
    if (llvm::is_contained({"true", "True", "TRUE"}, text))
      return true;
    if (llvm::is_contained({"false", "False", "FALSE"}, text))
      return false;
  }
  typeError(field, "a boolean");
  return std::nullopt;
}

std::optional<std::string> YamlReader::readString(Field &field) {
  if (rejectAlias(field))
    return std::nullopt;
  if (auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(field.node)) {
    if (isQuoted(*scalar) ||
        classifyPlain(plainText(*scalar)) != PlainKind::Null) {
      llvm::SmallString<32> storage;
      return scalar->getValue(storage).str();
    }
  }
  if (auto *block = llvm::dyn_cast<yaml::BlockScalarNode>(field.node))
    return block->getValue().str();
  typeError(field, "a string");
  return std::nullopt;
}

std::optional<size_t> YamlReader::readChoice(Field &field, StringRef noun,
                                             llvm::ArrayRef<StringRef> names) {
  std::optional<std::string> text = readString(field);
  if (!text)
    return std::nullopt;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == *text)
      return i;
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i ? ", " : "") + names[i].str();
  diags.error(field.loc(),
              "unknown " + noun + " '" + *text + "'; expected one of " + list,
              didYouMean(*text, names));
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Collections
//===----------------------------------------------------------------------===//

yaml::MappingNode *YamlReader::readMapping(Field &field) {
  if (rejectAlias(field))
    return nullptr;
  if (auto *map = llvm::dyn_cast<yaml::MappingNode>(field.node))
    return map;
  typeError(field, "a mapping");
  consume(field.node);
  return nullptr;
}

yaml::SequenceNode *YamlReader::readList(Field &field, StringRef expected) {
  if (rejectAlias(field))
    return nullptr;
  if (auto *list = llvm::dyn_cast<yaml::SequenceNode>(field.node))
    return list;
  typeError(field, expected);
  consume(field.node);
  return nullptr;
}

std::optional<std::vector<int64_t>> YamlReader::readIntList(Field &field) {
  yaml::SequenceNode *list = readList(field, "a list of integers");
  if (!list)
    return std::nullopt;
  std::vector<int64_t> values;
  bool ok = true;
  forEachElement(*list, field.name, [&](Field &element) {
    if (std::optional<int64_t> v = readInt(element))
      values.push_back(*v);
    else
      ok = false;
  });
  if (!ok)
    return std::nullopt;
  return values;
}

void YamlReader::forEachElement(yaml::SequenceNode &list, StringRef name,
                                llvm::function_ref<void(Field &)> fn) {
  if (!iterated.insert(&list).second)
    return;
  size_t index = 0;
  for (yaml::Node &element : list) {
    SMLoc start = startOf(&element);
    Field field{(name + "[" + llvm::Twine(index++) + "]").str(), start,
                &element, start};
    fn(field);
    consume(&element);
  }
}

void YamlReader::forEachField(yaml::MappingNode &map, StringRef context,
                              llvm::ArrayRef<StringRef> known,
                              llvm::function_ref<void(Field &)> fn) {
  if (!iterated.insert(&map).second)
    return;
  llvm::StringMap<SMLoc> seen;
  for (yaml::KeyValueNode &entry : map) {
    yaml::Node *key = entry.getKey();
    if (!key)
      continue;
    SMLoc keyLoc = startOf(key);
    auto *scalarKey = llvm::dyn_cast<yaml::ScalarNode>(key);
    if (!scalarKey) {
      diags.error(keyLoc, "expected a string key, found " + describe(key));
      consume(key);
      consume(entry.getValue());
      continue;
    }
    llvm::SmallString<32> storage;
    std::string name = scalarKey->getValue(storage).str();
    yaml::Node *value = entry.getValue();
    if (!value)
      continue;
    auto [it, inserted] = seen.try_emplace(name, keyLoc);
    if (!inserted) {
      diags.error(keyLoc, "duplicate key '" + name +
                              "' (first defined on line " +
                              llvm::Twine(diags.lineOf(it->second)) + ")");
    } else if (!llvm::is_contained(known, name)) {
      diags.error(keyLoc, "unknown key '" + name + "' in " + context,
                  didYouMean(name, known));
    } else {
      Field field{name, keyLoc, value, startOf(value)};
      fn(field);
    }
    consume(value);
  }
}

void YamlReader::consume(yaml::Node *root) {
  if (!root ||
      !(llvm::isa<yaml::SequenceNode, yaml::MappingNode, yaml::ScalarNode>(
          root)) ||
      !iterated.insert(root).second)
    return;
  // One frame per open collection; a child is fully consumed before its
  // parent advances (advancing would otherwise skip it recursively).
  struct Frame {
    yaml::SequenceNode *list = nullptr;
    yaml::SequenceNode::iterator listIt;
    yaml::MappingNode *map = nullptr;
    yaml::MappingNode::iterator mapIt;
    yaml::KeyValueNode *entry = nullptr;
    int stage = 0; ///< collections: 0 = not begun; entries: 0 key, 1 value
  };
  std::vector<Frame> stack;
  auto push = [&](yaml::Node *node) {
    if (!node)
      return;
    Frame frame;
    if (auto *list = llvm::dyn_cast<yaml::SequenceNode>(node))
      frame.list = list;
    else if (auto *map = llvm::dyn_cast<yaml::MappingNode>(node))
      frame.map = map;
    else if (auto *entry = llvm::dyn_cast<yaml::KeyValueNode>(node))
      frame.entry = entry;
    else if (auto *scalar = llvm::dyn_cast<yaml::ScalarNode>(node);
             scalar && decodeScalars) {
      llvm::SmallString<32> storage;
      (void)scalar->getValue(storage); // reports bad escapes
      return;
    } else
      return; // scalars, aliases and nulls have nothing left to parse
    stack.push_back(frame);
  };

  push(root);
  while (!stack.empty()) {
    Frame &top = stack.back();
    yaml::Node *child = nullptr;
    bool done = false;
    if (top.list) {
      if (top.stage == 0) {
        top.listIt = top.list->begin();
        top.stage = 1;
      } else {
        ++top.listIt;
      }
      if (top.listIt == top.list->end())
        done = true;
      else
        child = &*top.listIt;
    } else if (top.map) {
      if (top.stage == 0) {
        top.mapIt = top.map->begin();
        top.stage = 1;
      } else {
        ++top.mapIt;
      }
      if (top.mapIt == top.map->end())
        done = true;
      else
        child = &*top.mapIt;
    } else if (top.stage == 0) {
      top.stage = 1;
      child = top.entry->getKey();
    } else if (top.stage == 1) {
      top.stage = 2;
      child = top.entry->getValue();
    } else {
      done = true;
    }
    if (done)
      stack.pop_back();
    else
      push(child); // may invalidate `top`
  }
}
