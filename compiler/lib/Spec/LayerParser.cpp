//===- LayerParser.cpp - Reading a spec: layers, RNNs and cells -----------===//

#include "SpecParser.h"

#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/YAMLParser.h"

#include <algorithm>
#include <cmath>

using namespace rnnc::spec;
using namespace rnnc::spec::detail;
namespace yaml = llvm::yaml;
using llvm::ArrayRef;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

namespace {

/// Every key a layer of some type takes.
constexpr StringRef kLayerKeys[] = {
    "type",         "name",          "params",      "cell",
    "reverse",      "keep_order",    "unroll",      "return_carry",
    "initial_carry", "forward_rnn",  "backward_rnn", "merge_fn",
    "features",     "use_bias",      "activation",  "fn",
    "valid_only",   "num_embeddings", "epsilon",    "use_scale",
    "rate"};

/// The keys of each layer type.
ArrayRef<StringRef> layerKeys(Layer::Kind kind) {
  static constexpr StringRef rnn[] = {
      "type",   "name",         "params",       "cell",   "reverse",
      "keep_order", "unroll",   "return_carry", "initial_carry"};
  static constexpr StringRef bidirectional[] = {
      "type",     "name",         "params",       "forward_rnn",
      "backward_rnn", "merge_fn", "return_carry", "initial_carry"};
  static constexpr StringRef dense[] = {"type", "name", "params", "features",
                                        "use_bias", "activation"};
  static constexpr StringRef pool[] = {"type", "name", "fn", "valid_only"};
  static constexpr StringRef embed[] = {"type", "name", "params",
                                        "num_embeddings", "features"};
  static constexpr StringRef layerNorm[] = {"type",    "name",      "params",
                                            "epsilon", "use_scale", "use_bias"};
  static constexpr StringRef activation[] = {"type", "name", "fn"};
  static constexpr StringRef dropout[] = {"type", "name", "rate"};
  switch (kind) {
  case Layer::Kind::RNN:
    return rnn;
  case Layer::Kind::Bidirectional:
    return bidirectional;
  case Layer::Kind::Dense:
    return dense;
  case Layer::Kind::Pool:
    return pool;
  case Layer::Kind::Embed:
    return embed;
  case Layer::Kind::LayerNorm:
    return layerNorm;
  case Layer::Kind::Activation:
    return activation;
  case Layer::Kind::Dropout:
    return dropout;
  }
  return rnn;
}

constexpr StringRef kDirectionKeys[] = {"cell", "unroll", "reverse",
                                        "keep_order", "return_carry"};
constexpr StringRef kCellKeys[] = {
    "type",     "features", "gate_fn", "activation_fn", "reset_gate",
    "residual", "kernel_size", "use_bias", "padding", "strides",
    "dtype",    "param_dtype", "params"};

/// The spec names of the cell kinds, for readEnum.
ArrayRef<std::pair<StringRef, CellKind>> cellKindNames() {
  static const std::vector<std::pair<StringRef, CellKind>> names = [] {
    std::vector<std::pair<StringRef, CellKind>> names;
    for (const CellKindInfo &info : cellKinds())
      names.push_back({info.name, info.kind});
    return names;
  }();
  return names;
}

const std::pair<StringRef, Activation> kActivations[] = {
    {"sigmoid", Activation::Sigmoid}, {"hard_sigmoid", Activation::HardSigmoid},
    {"tanh", Activation::Tanh},       {"hard_tanh", Activation::HardTanh},
    {"relu", Activation::Relu},       {"elu", Activation::Elu},
    {"silu", Activation::Silu},       {"identity", Activation::Identity},
    {"gelu", Activation::Gelu},       {"gelu_exact", Activation::GeluExact},
    {"softmax", Activation::Softmax}, {"log_softmax", Activation::LogSoftmax},
    {"softplus", Activation::Softplus},
    {"leaky_relu", Activation::LeakyRelu}};

const std::pair<StringRef, PoolFn> kPoolFns[] = {
    {"last", PoolFn::Last},         {"first", PoolFn::First},
    {"mean", PoolFn::Mean},         {"max", PoolFn::Max},
    {"sum", PoolFn::Sum},           {"last_valid", PoolFn::LastValid},
    {"final_carry", PoolFn::FinalCarry}};

const std::pair<StringRef, Layer::Kind> kLayerKinds[] = {
    {"RNN", Layer::Kind::RNN},
    {"Bidirectional", Layer::Kind::Bidirectional},
    {"Dense", Layer::Kind::Dense},
    {"Pool", Layer::Kind::Pool},
    {"Embed", Layer::Kind::Embed},
    {"LayerNorm", Layer::Kind::LayerNorm},
    {"Activation", Layer::Kind::Activation},
    {"Dropout", Layer::Kind::Dropout}};

/// Reads a '/'-separated params path; reports empty components.
std::optional<std::string> readParamsPath(YamlReader &reader, Field &f) {
  std::optional<std::string> path = reader.readString(f);
  if (!path)
    return std::nullopt;
  llvm::SmallVector<StringRef> parts;
  StringRef(*path).split(parts, '/');
  if (llvm::any_of(parts, [](StringRef p) { return p.empty(); })) {
    reader.diags.error(f.loc(), "expected a '/'-separated params path, "
                                "found '" +
                                    *path + "'");
    return std::nullopt;
  }
  return path;
}

std::string quote(const std::string &path) { return "'" + path + "'"; }

/// Where each key of a mapping was, for the checks made after reading it.
using KeyLocs = llvm::StringMap<SMLoc>;

//===----------------------------------------------------------------------===//
// Cells
//===----------------------------------------------------------------------===//

void checkConvOptions(YamlReader &reader,
                      const std::optional<std::string> &padding,
                      const std::string &paddingFound, SMLoc paddingLoc,
                      const std::optional<std::vector<int64_t>> &strides,
                      bool stridesIsList, SMLoc stridesLoc, const Cell &cell,
                      bool kernelOk) {
  std::string limits = "only SAME padding and stride 1 are supported for " +
                       std::string(stringify(cell.kind)) + ", found ";
  // (A padding that failed to read as a string was reported already.)
  if (padding ? !StringRef(*padding).equals_insensitive("SAME")
              : !paddingFound.empty())
    reader.diags.error(paddingLoc,
                       limits + ("padding " + (padding ? "'" + *padding + "'"
                                                       : paddingFound)));
  if (!strides)
    return;
  if (llvm::any_of(*strides, [](int64_t s) { return s != 1; })) {
    std::string found = stridesIsList ? formatShape(*strides)
                                      : std::to_string(strides->front());
    reader.diags.error(stridesLoc, limits + ("strides " + found));
  } else if (stridesIsList && kernelOk &&
             strides->size() != cell.kernelSize.size()) {
    reader.diags.error(stridesLoc,
                       "expected " + Twine(cell.kernelSize.size()) +
                           " entries in 'strides' (one per 'kernel_size' "
                           "entry), found " +
                           Twine(strides->size()));
  }
}

/// Reads a `cell:` value into `cell`. `path` ("layers[0].cell") names it in
/// messages.
void parseCell(YamlReader &reader, Field &field, const std::string &path,
               Cell &cell, CellInfo &info) {
  cell.loc = field.loc();
  info.typeLoc = info.paramsLoc = info.kernelSizeLoc = cell.loc;
  yaml::MappingNode *map = reader.readMapping(field);
  if (!map)
    return;
  KeyLocs keys;
  std::optional<CellKind> kind;
  bool featuresOk = false, kernelOk = false;
  std::optional<std::string> padding;
  std::string paddingFound;
  SMLoc paddingLoc, stridesLoc;
  std::optional<std::vector<int64_t>> strides;
  bool stridesIsList = false;

  reader.forEachField(*map, quote(path), kCellKeys, [&](Field &f) {
    keys[f.name] = f.keyLoc;
    if (f.name == "type") {
      info.typeLoc = f.loc();
      kind = reader.readEnum<CellKind>(f, "cell type", cellKindNames());
    } else if (f.name == "features") {
      if (std::optional<int64_t> v = reader.readPositive(f)) {
        cell.features = *v;
        featuresOk = true;
      }
    } else if (f.name == "gate_fn" || f.name == "activation_fn") {
      auto fn = reader.readEnum<Activation>(f, "activation", kActivations);
      if (fn && !isElementwise(*fn))
        reader.diags.error(f.loc(),
                           "'" + Twine(stringify(*fn)) +
                               "' normalizes over the last axis and cannot "
                               "be a cell's " +
                               f.name +
                               "; use it in a Dense 'activation' or an "
                               "Activation layer");
      else if (fn)
        (f.name == "gate_fn" ? cell.gateFn : cell.activationFn) = *fn;
    } else if (f.name == "dtype") {
      if (std::optional<ElementType> v = parseDtype(reader, f)) {
        cell.dtype = *v;
        info.dtypeExplicit = true;
        info.dtypeLoc = f.loc();
      }
    } else if (f.name == "param_dtype") {
      if (std::optional<ElementType> v = parseParamDtype(reader, f)) {
        cell.paramDtype = *v;
        info.paramDtypeExplicit = true;
        info.paramDtypeLoc = f.loc();
      }
    } else if (f.name == "reset_gate" || f.name == "residual" ||
               f.name == "use_bias") {
      if (std::optional<bool> v = reader.readBool(f))
        (f.name == "reset_gate" ? cell.resetGate
         : f.name == "residual" ? cell.residual
                                : cell.useBias) = *v;
    } else if (f.name == "kernel_size") {
      info.kernelSizeLoc = f.loc();
      yaml::SequenceNode *list = reader.readList(f, "a list of integers");
      if (!list)
        return;
      bool ok = true;
      reader.forEachElement(*list, "kernel_size", [&](Field &e) {
        if (std::optional<int64_t> v = reader.readPositive(e))
          cell.kernelSize.push_back(*v);
        else
          ok = false;
      });
      if (ok && cell.kernelSize.empty()) {
        reader.diags.error(f.loc(), "expected at least one entry in "
                                    "'kernel_size'");
        ok = false;
      }
      kernelOk = ok;
    } else if (f.name == "padding") {
      paddingLoc = f.loc();
      // Flax also takes explicit pads ([[1, 1], ...]); say they are
      // unsupported rather than mistyped.
      if (llvm::isa<yaml::SequenceNode, yaml::MappingNode>(f.node))
        paddingFound = YamlReader::describe(f.node);
      else
        padding = reader.readString(f);
    } else if (f.name == "strides") {
      stridesLoc = f.loc();
      if (llvm::isa<yaml::SequenceNode>(f.node)) {
        stridesIsList = true;
        strides = reader.readIntList(f);
      } else if (std::optional<int64_t> v = reader.readInt(f)) {
        strides = std::vector<int64_t>{*v};
      }
    } else if (f.name == "params") {
      info.paramsLoc = f.loc();
      info.paramsExplicit = true;
      if (std::optional<std::string> path = readParamsPath(reader, f))
        cell.params = *path;
    }
  });

  if (!keys.count("type")) {
    reader.diags.error(field.keyLoc, "missing key 'type' in " + quote(path));
    return;
  }
  if (!kind)
    return;
  cell.kind = *kind;
  const CellKindInfo &kindInfo = describe(*kind);
  for (StringRef key : kCellKeys)
    if (keys.count(key) && !kindInfo.takes(key))
      reader.diags.error(keys.lookup(key), Twine(kindInfo.name) +
                                               " has no attribute '" + key +
                                               "'");
  if (!keys.count("features"))
    reader.diags.error(field.keyLoc,
                       "missing key 'features' in " + quote(path));
  if (kindInfo.convolutional) {
    if (!keys.count("kernel_size"))
      reader.diags.error(field.keyLoc,
                         "missing key 'kernel_size' in " + quote(path));
    checkConvOptions(reader, padding, paddingFound, paddingLoc, strides,
                     stridesIsList, stridesLoc, cell, kernelOk);
  }
  info.valid = featuresOk && (!kindInfo.convolutional || kernelOk);
}

//===----------------------------------------------------------------------===//
// RNNs and layers
//===----------------------------------------------------------------------===//

/// The keys shared by RNN layers and Bidirectional directions, as written.
struct RNNKeys {
  bool cellSeen = false;
  std::optional<bool> reverse, keepOrder, returnCarry;
  SMLoc reverseLoc, keepOrderLoc, returnCarryLoc;
  bool reverseBad = false; ///< `reverse` present but unreadable
};

/// Handles `cell`, `unroll`, `reverse` and `keep_order`; returns false for
/// other keys.
bool parseRNNKey(YamlReader &reader, Field &f, const std::string &path,
                 RNN &rnn, CellInfo &cellInfo, RNNKeys &keys) {
  if (f.name == "cell") {
    keys.cellSeen = true;
    parseCell(reader, f, path + ".cell", rnn.cell, cellInfo);
  } else if (f.name == "unroll") {
    if (std::optional<int64_t> v = reader.readPositive(f, "at least 1"))
      rnn.unroll = *v;
  } else if (f.name == "reverse") {
    keys.reverseLoc = f.keyLoc;
    keys.reverse = reader.readBool(f);
    keys.reverseBad = !keys.reverse;
    rnn.reverse = keys.reverse.value_or(false);
  } else if (f.name == "keep_order") {
    keys.keepOrderLoc = f.keyLoc;
    keys.keepOrder = reader.readBool(f);
    rnn.keepOrder = keys.keepOrder.value_or(false);
  } else {
    return false;
  }
  return true;
}

/// Reads `forward_rnn` / `backward_rnn`. Bidirectional overrides `reverse`,
/// `keep_order` and `return_carry` of its RNNs; values that differ from what
/// it forces get a warning.
void parseDirection(YamlReader &reader, Field &field, const std::string &path,
                    bool backward, RNN &rnn, CellInfo &cellInfo) {
  rnn.loc = field.loc();
  cellInfo.typeLoc = cellInfo.paramsLoc = rnn.loc;
  yaml::MappingNode *map = reader.readMapping(field);
  if (!map)
    return;
  RNNKeys keys;
  reader.forEachField(*map, quote(path), kDirectionKeys, [&](Field &f) {
    if (parseRNNKey(reader, f, path, rnn, cellInfo, keys))
      return;
    // return_carry
    keys.returnCarryLoc = f.keyLoc;
    keys.returnCarry = reader.readBool(f);
  });
  if (!keys.cellSeen)
    reader.diags.error(field.keyLoc, "missing key 'cell' in " + quote(path));
  StringRef name = backward ? "backward_rnn" : "forward_rnn";
  std::string how = backward ? "Bidirectional runs it reversed, with "
                               "keep_order"
                             : "Bidirectional runs it forward";
  auto warnIgnored = [&](const std::optional<bool> &value, bool forced,
                         StringRef key, SMLoc loc, StringRef reason) {
    if (value && *value != forced)
      reader.diags.warning(loc, "'" + key + ": " + (*value ? "true" : "false") +
                                    "' is ignored in '" + name +
                                    "': " + reason);
  };
  warnIgnored(keys.reverse, backward, "reverse", keys.reverseLoc, how);
  warnIgnored(keys.keepOrder, backward, "keep_order", keys.keepOrderLoc, how);
  warnIgnored(keys.returnCarry, true, "return_carry", keys.returnCarryLoc,
              "Bidirectional always uses both carries; set 'return_carry' "
              "on the layer");
  rnn.reverse = backward;
  rnn.keepOrder = backward;
}

/// "an RNN layer", "a Dense layer", ...
std::string layerKindPhrase(Layer::Kind kind) {
  StringRef name = stringify(kind);
  bool vowel = StringRef("AEIOU").contains(name.front()) ||
               kind == Layer::Kind::RNN;
  return (vowel ? "an " : "a ") + name.str() + " layer";
}

/// Why a layer of type `kind` has no key `key`, for the "has no key" error.
std::string misplacedKeyHint(Layer::Kind kind, StringRef key) {
  if (kind == Layer::Kind::Bidirectional &&
      llvm::is_contained({"cell", "reverse", "keep_order", "unroll"}, key))
    return "set it inside 'forward_rnn' and 'backward_rnn'";
  if (kind == Layer::Kind::RNN && key == "features")
    return "set it inside 'cell'";
  std::vector<std::string> owners;
  for (const auto &[name, other] : kLayerKinds)
    if (llvm::is_contained(layerKeys(other), key))
      owners.push_back(name.str());
  std::string list;
  for (size_t i = 0; i < owners.size(); ++i)
    list += (i == 0 ? "" : i + 1 == owners.size() ? " and " : ", ") + owners[i];
  return "it belongs to " + list + " layers";
}

void parseLayer(YamlReader &reader, Field &item, size_t index, Layer &layer,
                LayerInfo &info) {
  layer.loc = layer.rnn.loc = item.loc();
  info.nameLoc = info.mergeLoc = info.typeLoc = info.paramsLoc = info.fnLoc =
      layer.loc;
  layer.name = "layers_" + std::to_string(index);
  yaml::MappingNode *map = reader.readMapping(item);
  if (!map)
    return;
  std::string path = "layers[" + std::to_string(index) + "]";
  KeyLocs keys;
  std::optional<Layer::Kind> kind;
  RNNKeys rnnKeys;
  CellInfo rnnCell, forwardCell, backwardCell;
  // `fn` means a PoolFn or an Activation depending on `type`, which may come
  // later: read it once the type is known.
  std::optional<Field> fnField;
  bool featuresOk = false, numEmbeddingsOk = false, rateOk = false;

  reader.forEachField(*map, quote(path), kLayerKeys, [&](Field &f) {
    keys[f.name] = f.keyLoc;
    if (parseRNNKey(reader, f, path, layer.rnn, rnnCell, rnnKeys))
      return;
    if (f.name == "type") {
      info.typeLoc = f.loc();
      kind = reader.readEnum<Layer::Kind>(f, "layer type", kLayerKinds);
    } else if (f.name == "name") {
      info.nameLoc = f.loc();
      std::optional<std::string> name = reader.readString(f);
      if (!name)
        return;
      layer.name = *name;
      if (name->empty())
        reader.diags.error(f.loc(), "expected a non-empty layer name");
      else if (StringRef(*name).contains('/'))
        reader.diags.error(f.loc(), "expected a layer name without '/', "
                                    "found '" +
                                        *name + "'");
    } else if (f.name == "params") {
      info.paramsLoc = f.loc();
      info.paramsExplicit = true;
      if (std::optional<std::string> params = readParamsPath(reader, f))
        layer.params = *params;
    } else if (f.name == "return_carry") {
      if (std::optional<bool> v = reader.readBool(f))
        layer.returnCarry = *v;
    } else if (f.name == "initial_carry") {
      if (auto v = reader.readEnum<InitialCarry>(
              f, "initial_carry",
              {{"zeros", InitialCarry::Zeros}, {"input", InitialCarry::Input}}))
        layer.initialCarry = *v;
    } else if (f.name == "merge_fn") {
      info.mergeLoc = f.loc();
      if (auto v = reader.readEnum<Merge>(f, "merge_fn",
                                          {{"concat", Merge::Concat},
                                           {"add", Merge::Add},
                                           {"mul", Merge::Mul},
                                           {"mean", Merge::Mean}}))
        layer.merge = *v;
    } else if (f.name == "forward_rnn" || f.name == "backward_rnn") {
      bool backward = f.name == "backward_rnn";
      parseDirection(reader, f, path + "." + f.name, backward,
                     backward ? layer.backward : layer.forward,
                     backward ? backwardCell : forwardCell);
    } else if (f.name == "features" || f.name == "num_embeddings") {
      if (std::optional<int64_t> v = reader.readPositive(f)) {
        (f.name == "features" ? layer.features : layer.numEmbeddings) = *v;
        (f.name == "features" ? featuresOk : numEmbeddingsOk) = true;
      }
    } else if (f.name == "use_bias" || f.name == "use_scale" ||
               f.name == "valid_only") {
      if (f.name == "valid_only")
        info.validOnlyLoc = f.loc();
      if (std::optional<bool> v = reader.readBool(f))
        (f.name == "use_bias"    ? layer.useBias
         : f.name == "use_scale" ? layer.useScale
                                 : layer.validOnly) = *v;
    } else if (f.name == "activation") {
      // The default spelled out: `activation: none` (or null) is no
      // activation, as the docs' default column says.
      auto *scalar = llvm::dyn_cast<llvm::yaml::ScalarNode>(f.node);
      llvm::SmallString<16> storage;
      if (llvm::isa<llvm::yaml::NullNode>(f.node) ||
          (scalar && llvm::is_contained(llvm::ArrayRef<llvm::StringRef>{
                                            "none", "null", "~"},
                                        scalar->getValue(storage))))
        layer.activation.reset();
      else if (auto fn =
                   reader.readEnum<Activation>(f, "activation", kActivations))
        layer.activation = *fn;
    } else if (f.name == "fn") {
      info.fnLoc = f.loc();
      fnField = f;
    } else if (f.name == "epsilon") {
      std::string text;
      if (std::optional<double> v = reader.readFloat(f, &text)) {
        if (!(*v > 0) || !std::isfinite(*v))
          reader.diags.error(f.loc(), "'epsilon' must be a positive finite "
                                      "number, found " +
                                          text);
        else
          layer.epsilon = *v;
      }
    } else if (f.name == "rate") {
      std::string text;
      if (std::optional<double> v = reader.readFloat(f, &text)) {
        if (!(*v >= 0 && *v <= 1))
          reader.diags.error(f.loc(), "'rate' must be between 0 and 1, "
                                      "found " +
                                          text);
        else {
          layer.rate = *v;
          rateOk = true;
        }
      }
    }
  });

  if (!keys.count("type")) {
    reader.diags.error(item.loc(), "missing key 'type' in " + quote(path));
    return;
  }
  if (!kind)
    return;
  layer.kind = *kind;
  info.typed = true;
  ArrayRef<StringRef> allowed = layerKeys(*kind);
  for (StringRef key : kLayerKeys) {
    if (!keys.count(key) || llvm::is_contained(allowed, key))
      continue;
    reader.diags.error(keys.lookup(key),
                       layerKindPhrase(*kind) + " has no key '" + key + "' (" +
                           misplacedKeyHint(*kind, key) + ")");
  }
  auto require = [&](StringRef key) {
    if (keys.count(key))
      return true;
    reader.diags.error(item.loc(),
                       "missing key '" + key + "' in " + quote(path));
    return false;
  };

  // The type-dependent `fn`.
  bool fnOk = false;
  if (fnField && *kind == Layer::Kind::Pool) {
    if (auto fn = reader.readEnum<PoolFn>(*fnField, "pool fn", kPoolFns)) {
      layer.poolFn = *fn;
      fnOk = true;
    }
  } else if (fnField && *kind == Layer::Kind::Activation) {
    if (auto fn =
            reader.readEnum<Activation>(*fnField, "activation", kActivations)) {
      layer.activation = *fn;
      fnOk = true;
    }
  }

  switch (*kind) {
  case Layer::Kind::RNN:
    if (!keys.count("cell"))
      reader.diags.error(item.loc(), "missing key 'cell' in " + quote(path));
    if (rnnKeys.keepOrder.value_or(false) && !rnnKeys.reverseBad &&
        !rnnKeys.reverse.value_or(false))
      reader.diags.warning(rnnKeys.keepOrderLoc,
                           "'keep_order: true' has no effect without "
                           "'reverse: true'");
    if (info.paramsExplicit && rnnCell.paramsExplicit)
      reader.diags.error(
          info.paramsLoc,
          "'params' is given both on layer '" + layer.name +
              "' (the nn.RNN module) and on its cell; give one of them",
          {Note{rnnCell.paramsLoc, "the cell's 'params' is here"}});
    info.cells[0] = rnnCell;
    info.valid = rnnCell.valid;
    return;
  case Layer::Kind::Bidirectional:
    for (StringRef key : {"forward_rnn", "backward_rnn"})
      if (!keys.count(key))
        reader.diags.error(item.loc(),
                           "missing key '" + key + "' in " + quote(path));
    for (const CellInfo *cell : {&forwardCell, &backwardCell})
      if (info.paramsExplicit && cell->paramsExplicit)
        reader.diags.error(
            info.paramsLoc,
            "'params' is given both on layer '" + layer.name +
                "' (the nn.Bidirectional module) and on a cell of it; give "
                "one of them",
            {Note{cell->paramsLoc, "the cell's 'params' is here"}});
    info.cells[0] = forwardCell;
    info.cells[1] = backwardCell;
    info.valid = forwardCell.valid && backwardCell.valid;
    return;
  case Layer::Kind::Dense:
    info.valid = require("features") && featuresOk;
    return;
  case Layer::Kind::Embed: {
    bool haveNum = require("num_embeddings");
    bool haveFeatures = require("features");
    info.valid = haveNum && haveFeatures && numEmbeddingsOk && featuresOk;
    return;
  }
  case Layer::Kind::Pool:
  case Layer::Kind::Activation:
    info.valid = require("fn") && fnOk;
    return;
  case Layer::Kind::Dropout:
    info.valid = require("rate") && rateOk;
    return;
  case Layer::Kind::LayerNorm:
    info.valid = true;
    return;
  }
}

} // namespace

void rnnc::spec::detail::parseLayers(YamlReader &reader, Field &field,
                                     Model &model, ModelInfo &info) {
  yaml::SequenceNode *list = reader.readList(field, "a list of layers");
  if (!list)
    return;
  size_t index = 0;
  reader.forEachElement(*list, "layers", [&](Field &item) {
    Layer layer;
    LayerInfo layerInfo;
    parseLayer(reader, item, index++, layer, layerInfo);
    model.layers.push_back(std::move(layer));
    info.layers.push_back(layerInfo);
  });
  if (model.layers.empty())
    reader.diags.error(field.loc(), "expected at least one layer in 'layers'");
}

void rnnc::spec::detail::finalizeLayers(Model &model) {
  // A stream's state is every layer's carries: the entry point takes and
  // returns them all, and runs a run-time number of steps per chunk.
  if (model.stream) {
    model.runtimeTime = true;
    for (Layer &layer : model.layers)
      if (layer.isRecurrent()) {
        layer.initialCarry = InitialCarry::Input;
        layer.returnCarry = true;
      }
  }
  for (Layer &layer : model.layers) {
    if (!layer.isRecurrent()) {
      // Dense, Embed and LayerNorm read `<params>/kernel`, ...
      if (layer.params.empty() &&
          (layer.kind == Layer::Kind::Dense ||
           layer.kind == Layer::Kind::Embed ||
           layer.kind == Layer::Kind::LayerNorm))
        layer.params = layer.name;
      continue;
    }
    // A layer-level `params` names the nn.RNN / nn.Bidirectional module; its
    // cells sit below it as Flax nests them (binding falls back to the bare
    // path for an RNN layer whose file has no `<params>/cell`).
    std::string module = layer.params.empty() ? layer.name : layer.params;
    auto finish = [&](RNN &rnn, StringRef defaultPath) {
      if (rnn.cell.params.empty())
        rnn.cell.params = (module + "/" + defaultPath).str();
      if (model.time >= 1)
        rnn.unroll = std::min(rnn.unroll, model.time);
    };
    if (layer.isBidirectional()) {
      finish(layer.forward, "forward_rnn/cell");
      finish(layer.backward, "backward_rnn/cell");
    } else {
      finish(layer.rnn, "cell");
    }
  }
}
