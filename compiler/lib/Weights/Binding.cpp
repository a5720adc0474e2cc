//===- Binding.cpp - Checking weights against a model spec ----------------===//

#include "rnn/Weights/Binding.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Weights/Array.h"
#include "rnn/Weights/Quantize.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"

#include <cmath>
#include <set>

using namespace rnnc;
using namespace rnnc::spec;
using llvm::StringRef;


std::string rnnc::defaultParamsPath(const Layer &layer, Direction direction) {
  if (!layer.isBidirectional())
    return layer.name + "/cell";
  return layer.name + (direction == Direction::Forward ? "/forward_rnn/cell"
                                                       : "/backward_rnn/cell");
}

/// `path` without a leading `params/` and trailing slashes.
static std::string cleanPath(StringRef path) {
  path.consume_front("params/");
  while (path.consume_back("/"))
    ;
  return path.str();
}

/// True when `tree` has a key under `prefix` ("" holds every key).
static bool hasKeysUnder(const ParamTree &tree, const std::string &prefix) {
  if (prefix.empty())
    return !tree.empty();
  auto it = tree.lower_bound(prefix + "/");
  return it != tree.end() && StringRef(it->first).starts_with(prefix + "/");
}

std::string rnnc::cellParamsPath(const Layer &layer, Direction direction,
                                 const ParamTree &tree) {
  const RNN &rnn = !layer.isBidirectional()         ? layer.rnn
                   : direction == Direction::Forward ? layer.forward
                                                     : layer.backward;
  if (rnn.cell.params.empty())
    return defaultParamsPath(layer, direction);
  std::string path = cleanPath(rnn.cell.params);
  if (layer.kind == Layer::Kind::RNN && !layer.params.empty()) {
    std::string module = cleanPath(layer.params);
    if (path == module + "/cell" && !hasKeysUnder(tree, path))
      return module;
  }
  return path;
}

void rnnc::resolveParamsPaths(Model &model, const ParamTree &tree) {
  for (Layer &layer : model.layers) {
    if (layer.kind == Layer::Kind::RNN)
      layer.rnn.cell.params = cellParamsPath(layer, Direction::Forward, tree);
    if (layer.isBidirectional()) {
      layer.forward.cell.params =
          cellParamsPath(layer, Direction::Forward, tree);
      layer.backward.cell.params =
          cellParamsPath(layer, Direction::Backward, tree);
    }
  }
}

bool rnnc::isIgnoredParam(StringRef key, llvm::ArrayRef<std::string> globs) {
  for (const std::string &glob : globs) {
    llvm::Expected<llvm::GlobPattern> pattern = llvm::GlobPattern::create(glob);
    if (!pattern) {
      llvm::consumeError(pattern.takeError());
      continue;
    }
    // The key itself or any parent path: `step` and `opt_state` match
    // `opt_state/mu/...`.
    for (size_t end = 0; end != StringRef::npos;) {
      end = key.find('/', end + 1);
      if (pattern->match(key.substr(0, end)))
        return true;
    }
  }
  return false;
}

std::vector<ParamSpec> rnnc::expectedLayerParams(const Layer &layer,
                                                 StringRef prefix,
                                                 int64_t in) {
  std::vector<ParamSpec> params;
  auto add = [&](StringRef name, std::vector<int64_t> shape) {
    params.push_back({prefix.empty() ? name.str() : (prefix + "/" + name).str(),
                      std::move(shape)});
  };
  switch (layer.kind) {
  case Layer::Kind::Dense:
    add("kernel", {in, layer.features});
    if (layer.useBias)
      add("bias", {layer.features});
    break;
  case Layer::Kind::Embed:
    add("embedding", {layer.numEmbeddings, layer.features});
    break;
  case Layer::Kind::LayerNorm:
    if (layer.useScale)
      add("scale", {in});
    if (layer.useBias)
      add("bias", {in});
    break;
  default:
    break;
  }
  return params;
}

namespace {
/// How to build one cell's CellParams: the params it expects (relative to
/// its path) and, for each fused array, the params concatenated along the
/// last axis in gate order. An empty part is a zero block; an empty list is
/// an absent array.
struct Recipe {
  std::vector<ParamSpec> params;
  std::vector<std::string> wi, bi, wh, bh;
};
} // namespace

/// The parts of fused array `array` from the params `stored` puts in it:
/// one param holding every gate, or one per gate with zero blocks for the
/// gates it has none of; none when no param goes there.
static std::vector<std::string> fusedParts(const CellKindInfo &kind,
                                           llvm::ArrayRef<StoredParam> stored,
                                           FusedArray array) {
  std::vector<const FlaxParam *> params;
  for (const StoredParam &param : stored)
    if (param.param->array == array)
      params.push_back(param.param);
  if (params.empty())
    return {};
  if (params.front()->gate.empty())
    return {params.front()->name.str()};
  std::vector<std::string> parts;
  for (StringRef gate : kind.gates) {
    auto it = llvm::find_if(
        params, [&](const FlaxParam *param) { return param->gate == gate; });
    parts.push_back(it == params.end() ? "" : (*it)->name.str());
  }
  return parts;
}

static std::optional<Recipe> recipeFor(const Cell &cell, ParamsLayout layout,
                                       int64_t in) {
  std::optional<std::vector<StoredParam>> stored =
      storedParams(cell, layout, in);
  if (!stored)
    return std::nullopt;
  const CellKindInfo &kind = describe(cell.kind);
  Recipe r;
  for (const StoredParam &param : *stored)
    r.params.push_back({param.param->name.str(), param.shape});
  r.wi = fusedParts(kind, *stored, FusedArray::Wi);
  r.bi = fusedParts(kind, *stored, FusedArray::Bi);
  r.wh = fusedParts(kind, *stored, FusedArray::Wh);
  r.bh = fusedParts(kind, *stored, FusedArray::Bh);
  return r;
}

static std::string joinKey(StringRef prefix, StringRef name) {
  return prefix.empty() ? name.str() : (prefix + "/" + name).str();
}

std::optional<std::vector<ParamSpec>>
rnnc::expectedCellParams(const Cell &cell, ParamsLayout layout,
                         StringRef prefix, int64_t inputFeatures) {
  std::optional<Recipe> recipe = recipeFor(cell, layout, inputFeatures);
  if (!recipe)
    return std::nullopt;
  for (ParamSpec &param : recipe->params)
    param.key = joinKey(prefix, param.key);
  return recipe->params;
}

/// Concatenates `parts` (same shapes; nullptr = zeros) along the last axis,
/// as float32, which every array of a weights file widens to exactly.
static Tensor concatLast(llvm::ArrayRef<const Tensor *> parts) {
  const Tensor *like = *llvm::find_if(parts, [](const Tensor *t) { return t; });
  Tensor out;
  out.elementType = spec::ElementType::Float32;
  out.shape = like->shape;
  int64_t cols = out.shape.empty() ? 1 : out.shape.back();
  int64_t rows = cols ? like->numElements() / cols : 0;
  int64_t width = cols * int64_t(parts.size());
  if (out.shape.empty())
    out.shape.push_back(width);
  else
    out.shape.back() = width;
  out.data.assign(size_t(rows * width), 0.0f);
  for (size_t g = 0; g < parts.size(); ++g) {
    if (!parts[g])
      continue;
    for (int64_t row = 0; row < rows; ++row)
      std::copy_n(parts[g]->data.begin() + row * cols, cols,
                  out.data.begin() + row * width + int64_t(g) * cols);
  }
  return out;
}

namespace {
/// Where a `params:` value would go, for the "no params" note: `where`
/// ("on layer 'd'"), and for a cell, the suffix its module's path adds
/// ("/cell", "/forward_rnn/cell") and where the module's `params` goes.
struct ParamsHint {
  std::string where;
  std::string moduleSuffix;
  std::string moduleWhere;
};

/// Something that reads params from the file: a cell or a non-recurrent
/// layer.
struct Owner {
  std::string prefix; ///< its params path
  mlir::Location loc;
  std::string layerName;
};

/// One bindParams() run: collects diagnostics and which keys were used.
class Binder {
public:
  Binder(const Model &model, const ParamTree &tree, StringRef weightsPath,
         const llvm::SourceMgr &sourceMgr, mlir::MLIRContext &ctx,
         const BindOptions &options, bool shapesOnly = false)
      : model(model), tree(tree), weightsPath(weightsPath),
        sourceMgr(sourceMgr), ctx(ctx), options(options),
        shapesOnly(shapesOnly),
        modelLoc(locOf(model.loc,
                       mlir::FileLineColLoc::get(&ctx, weightsPath, 0, 0))) {}

  std::optional<std::vector<LayerParams>> run();

private:
  mlir::Location locOf(llvm::SMLoc loc, mlir::Location fallback) const;
  mlir::InFlightDiagnostic error(mlir::Location loc) {
    failed = true;
    return mlir::emitError(loc);
  }
  std::optional<CellParams> bindCell(const Layer &layer, const RNN &rnn,
                                     Direction direction, int64_t in);
  std::optional<LayerParams> bindLayer(const Layer &layer, int64_t in);
  void roundCellParams(CellParams &params, const char *key, mlir::Location loc,
                       const std::string &what);
  void warnWidenedBF16(const std::map<std::string, const Tensor *> &found,
                       mlir::Location loc, const std::string &what,
                       bool cell);
  /// Looks up every param of `specs`, reporting missing, misshapen and
  /// non-float ones; fills `found` (keyed by the full key) and returns
  /// whether all were there and well-formed. `what` names the owner in the
  /// "no params" message ("layer 'enc'", "the backward cell of layer 'b'").
  bool lookUp(const std::vector<ParamSpec> &specs, const std::string &prefix,
              mlir::Location loc,
              const std::string &what, const ParamsHint &paramsHint,
              std::map<std::string, const Tensor *> &found);
  void reportNoParams(const std::vector<ParamSpec> &specs,
                      const std::string &prefix, mlir::Location loc,
                      const std::string &what, const ParamsHint &paramsHint);
  void reportUnexpected();

  const Model &model;
  const ParamTree &tree;
  StringRef weightsPath;
  const llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext &ctx;
  const BindOptions &options;
  /// The tree's tensors have shapes but no data (checkParamShapes): check,
  /// do not build params.
  bool shapesOnly;
  mlir::Location modelLoc;
  bool failed = false;
  std::set<std::string> used;
  std::vector<std::string> missing;
  std::vector<Owner> owners;
};
} // namespace

mlir::Location Binder::locOf(llvm::SMLoc loc, mlir::Location fallback) const {
  if (!loc.isValid())
    return fallback;
  unsigned id = sourceMgr.FindBufferContainingLoc(loc);
  if (!id)
    return fallback;
  auto [line, col] = sourceMgr.getLineAndColumn(loc, id);
  return mlir::FileLineColLoc::get(
      &ctx, sourceMgr.getMemoryBuffer(id)->getBufferIdentifier(), line, col);
}

/// The first path component of `key`.
static StringRef topOf(StringRef key) { return key.split('/').first; }

/// "a/, b/, step": the top-level subtrees and arrays of `keys`.
static std::string describeTops(const std::vector<std::string> &keys) {
  std::vector<std::string> tops;
  for (const std::string &key : keys) {
    std::string top = topOf(key).str();
    if (top.size() < key.size())
      top += "/";
    if (tops.empty() || tops.back() != top)
      tops.push_back(top);
  }
  std::string text;
  size_t shown = std::min<size_t>(tops.size(), 8);
  for (size_t i = 0; i < shown; ++i)
    text += (i ? ", " : "") + tops[i];
  if (tops.size() > shown)
    text += ", and " + std::to_string(tops.size() - shown) + " more";
  return text;
}

void Binder::reportNoParams(const std::vector<ParamSpec> &specs,
                            const std::string &prefix, mlir::Location loc, const std::string &what,
                            const ParamsHint &paramsHint) {
  size_t skip = prefix.empty() ? 0 : prefix.size() + 1;

  // Every directory of the file whose arrays fit the owner exactly.
  std::vector<std::string> fits;
  std::set<std::string> dirs;
  for (const auto &entry : tree) {
    StringRef key = entry.first;
    for (size_t end = key.find('/'); end != StringRef::npos;
         end = key.find('/', end + 1))
      dirs.insert(key.substr(0, end).str());
  }
  for (const std::string &dir : dirs) {
    bool all = llvm::all_of(specs, [&](const ParamSpec &spec) {
      auto it = tree.find(dir + "/" + spec.key.substr(skip));
      return it != tree.end() && it->second.shape == spec.shape;
    });
    if (all)
      fits.push_back(dir);
  }
  // Best first: directories no other layer reads, then those named like the
  // owner's module (a forward cell's '.../forward_rnn/cell').
  {
    auto rank = [&](const std::string &dir) {
      bool taken = used.count(dir + "/" + specs.front().key.substr(skip));
      bool named = !paramsHint.moduleSuffix.empty() &&
                   StringRef(dir).ends_with(paramsHint.moduleSuffix);
      return 2 * int(taken) + int(!named);
    };
    std::vector<std::string> ranked;
    for (int r = 0; r < 4; ++r)
      for (const std::string &dir : fits)
        if (rank(dir) == r)
          ranked.push_back(dir);
    fits = std::move(ranked);
  }
  std::vector<std::string> keys;
  for (const auto &entry : tree)
    keys.push_back(entry.first);
  for (const auto &entry : options.nonFloatKeys)
    keys.push_back(entry.first);
  llvm::sort(keys);

  mlir::InFlightDiagnostic diag = error(loc);
  diag << "no params of " << what << " in '" << weightsPath
       << "' (expected '" << specs.front().key << "'";
  if (specs.size() > 1)
    diag << " and " << specs.size() - 1 << " more";
  diag << ")";
  if (keys.empty())
    diag << "; the file holds no arrays";
  else
    diag << "; the file holds " << describeTops(keys);
  if (fits.empty())
    return;
  // A fitting directory: the owner's params are there. For a cell, a
  // directory ending in its module's suffix (/cell, /forward_rnn/cell) is
  // the module's: suggest the layer's `params`.
  std::string value = fits.front();
  std::string where = paramsHint.where;
  if (!paramsHint.moduleSuffix.empty() &&
      StringRef(value).ends_with(paramsHint.moduleSuffix) &&
      value.size() > paramsHint.moduleSuffix.size()) {
    value.resize(value.size() - paramsHint.moduleSuffix.size());
    where = paramsHint.moduleWhere;
  }
  std::string text = "its params fit '" + fits.front() + "/...'; set 'params: " +
                     value + "' " + where;
  if (fits.size() > 1) {
    text += " (also fit:";
    for (size_t i = 1; i < fits.size() && i < 4; ++i)
      text += " '" + fits[i] + "'";
    text += fits.size() > 4 ? " ...)" : ")";
  }
  diag.attachNote(loc) << text;
  // Those arrays are explained by the note; do not report them again.
  for (const ParamSpec &spec : specs)
    used.insert(fits.front() + "/" + spec.key.substr(skip));
}

bool Binder::lookUp(const std::vector<ParamSpec> &specs,
                    const std::string &prefix, mlir::Location loc,
                    const std::string &what, const ParamsHint &paramsHint,
                    std::map<std::string, const Tensor *> &found) {
  if (specs.empty())
    return true;
  // Nothing of the owner at its path: it is most likely elsewhere (one
  // error with a suggestion). Other keys at its path are more likely another
  // cell type or attribute: report each missing key.
  bool none = llvm::none_of(specs, [&](const ParamSpec &spec) {
    return tree.count(spec.key) || options.nonFloatKeys.count(spec.key);
  });
  auto nonFloatUnder = [&] {
    auto it = options.nonFloatKeys.lower_bound(prefix + "/");
    return it != options.nonFloatKeys.end() &&
           StringRef(it->first).starts_with(prefix + "/");
  };
  if (none && !prefix.empty() && !hasKeysUnder(tree, prefix) &&
      !nonFloatUnder()) {
    reportNoParams(specs, prefix, loc, what, paramsHint);
    return false;
  }
  bool ok = true;
  for (const ParamSpec &param : specs) {
    const std::string &key = param.key;
    if (auto nonFloat = options.nonFloatKeys.find(key);
        nonFloat != options.nonFloatKeys.end()) {
      used.insert(key);
      error(loc) << "param '" << key << "' in '" << weightsPath
                 << "' has dtype " << nonFloat->second
                 << ", expected a floating-point dtype";
      ok = false;
      continue;
    }
    auto it = tree.find(key);
    if (it == tree.end()) {
      error(loc) << "missing param '" << key << "' with shape "
                 << spec::formatShape(param.shape) << " in '" << weightsPath
                 << "'";
      missing.push_back(key);
      ok = false;
      continue;
    }
    used.insert(key);
    const Tensor &tensor = it->second;
    if (tensor.shape != param.shape) {
      error(loc) << "param '" << key << "' in '" << weightsPath
                 << "' has shape " << spec::formatShape(tensor.shape)
                 << ", expected " << spec::formatShape(param.shape);
      ok = false;
    } else if (!shapesOnly &&
               int64_t(tensor.data.size()) != tensor.numElements()) {
      error(loc) << "param '" << key << "' in '" << weightsPath << "' has "
                 << tensor.data.size() << " values, expected "
                 << tensor.numElements() << " for shape "
                 << spec::formatShape(tensor.shape);
      ok = false;
    }
    found[key] = &tensor;
  }
  return ok;
}

std::optional<CellParams> Binder::bindCell(const Layer &layer, const RNN &rnn,
                                           Direction direction, int64_t in) {
  const Cell &cell = rnn.cell;
  mlir::Location loc =
      locOf(cell.loc, locOf(rnn.loc, locOf(layer.loc, modelLoc)));
  std::string prefix = cellParamsPath(layer, direction, tree);
  owners.push_back({prefix, loc, layer.name});

  std::optional<Recipe> recipe;
  if (cell.features <= 0)
    error(loc) << stringify(cell.kind) << " of layer '" << layer.name
               << "' has features " << cell.features
               << ", expected a positive number";
  else if (in <= 0)
    error(loc) << "layer '" << layer.name << "' reads " << in
               << " input features, expected a positive number";
  else if (describe(cell.kind).convolutional &&
           (cell.kernelSize.empty() ||
            llvm::any_of(cell.kernelSize, [](int64_t k) { return k <= 0; })))
    error(loc) << stringify(cell.kind) << " of layer '" << layer.name
               << "' has kernel_size " << spec::formatShape(cell.kernelSize)
               << ", expected positive sizes";
  else if (!(recipe = recipeFor(cell, model.paramsLayout, in)))
    error(loc) << stringify(cell.kind)
               << " has no params in the nnx layout (nnx provides "
               << cellKindsIn(ParamsLayout::NNX) << ")";
  if (!recipe) {
    // Keys under this cell are not "unexpected": the cell itself is wrong.
    for (const auto &entry : tree)
      if (prefix.empty() || StringRef(entry.first).starts_with(prefix + "/"))
        used.insert(entry.first);
    return std::nullopt;
  }

  std::vector<ParamSpec> specs = recipe->params;
  for (ParamSpec &param : specs)
    param.key = joinKey(prefix, param.key);
  std::string what = "layer '" + layer.name + "'";
  std::string onLayer = "on layer '" + layer.name + "'";
  ParamsHint hint{onLayer, "/cell", onLayer};
  if (layer.isBidirectional()) {
    StringRef rnnKey =
        direction == Direction::Forward ? "forward_rnn" : "backward_rnn";
    what = std::string(direction == Direction::Forward ? "the forward"
                                                       : "the backward") +
           " cell of layer '" + layer.name + "'";
    hint = {("on the cell of '" + rnnKey + "' of layer '" + layer.name + "'")
                .str(),
            ("/" + rnnKey + "/cell").str(), onLayer};
  }
  std::map<std::string, const Tensor *> found;
  if (!lookUp(specs, prefix, loc, what, hint, found))
    return std::nullopt;
  if (shapesOnly)
    return CellParams{};

  auto fuse = [&](const std::vector<std::string> &parts) {
    std::vector<const Tensor *> tensors;
    for (const std::string &part : parts)
      tensors.push_back(part.empty() ? nullptr
                                     : found.at(joinKey(prefix, part)));
    return concatLast(tensors);
  };
  CellParams params;
  params.wi = fuse(recipe->wi);
  params.wh = fuse(recipe->wh);
  if (!recipe->bi.empty())
    params.bi = fuse(recipe->bi);
  if (!recipe->bh.empty())
    params.bh = fuse(recipe->bh);
  if (cell.storedParamType() == spec::ElementType::BFloat16)
    roundCellParams(params,
                    cell.paramDtype == spec::ElementType::BFloat16
                        ? "param_dtype"
                        : "dtype",
                    loc, what);
  else
    warnWidenedBF16(found, loc, what, /*cell=*/true);
  return params;
}

/// bfloat16 arrays of the file read by an owner that stores float32 params
/// are widened, exactly, to twice their bytes: worth a word at the spec
/// line, since a cell's `param_dtype: bfloat16` would keep them as stored.
void Binder::warnWidenedBF16(const std::map<std::string, const Tensor *> &found,
                             mlir::Location loc, const std::string &what,
                             bool cell) {
  int64_t widened = 0;
  std::string first;
  for (const auto &[key, tensor] : found) {
    if (tensor->elementType != spec::ElementType::BFloat16)
      continue;
    widened += tensor->numElements();
    if (first.empty())
      first = key;
  }
  if (widened == 0)
    return;
  mlir::InFlightDiagnostic diag =
      ctx.getDiagEngine().emit(loc, mlir::DiagnosticSeverity::Warning)
      << "widened " << widened << " bfloat16 params of " << what << " in '"
      << weightsPath << "' (first: '" << first
      << "') to float32, exactly; they take 4 bytes each";
  if (cell)
    diag << " (param_dtype: bfloat16 keeps them as stored)";
}

/// A cell with `param_dtype: bfloat16` computes with its params rounded to
/// bfloat16, as Flax stores them: bfloat16 arrays in the file are exact
/// already, others are rounded here (round to nearest even), with a note
/// saying how many values changed. The params become bfloat16 tensors.
void Binder::roundCellParams(CellParams &params, const char *key,
                             mlir::Location loc,
                             const std::string &what) {
  // Counted over the fused arrays, whose filler zero blocks (GRU's bh) are
  // exact: the count is of values read from the file.
  int64_t rounded = 0;
  auto round = [&](Tensor &tensor) {
    tensor.elementType = spec::ElementType::BFloat16;
    for (float &v : tensor.data) {
      float r = weights::roundToBFloat16(v);
      // NaN != NaN: count only values that really change.
      if (r != v && !(std::isnan(r) && std::isnan(v)))
        ++rounded;
      v = r;
    }
  };
  round(params.wi);
  round(params.wh);
  if (params.bi)
    round(*params.bi);
  if (params.bh)
    round(*params.bh);
  if (rounded == 0)
    return;
  ctx.getDiagEngine().emit(loc, mlir::DiagnosticSeverity::Note)
      << key << " bfloat16: rounded " << rounded << " params of " << what
      << " in '" << weightsPath
      << "' to bfloat16 (round to nearest even); the file holds wider "
         "values";
}

std::optional<LayerParams> Binder::bindLayer(const Layer &layer, int64_t in) {
  LayerParams result;
  if (!layer.hasParams())
    return result;
  mlir::Location loc = locOf(layer.loc, modelLoc);
  std::string prefix = cleanPath(layer.params.empty() ? layer.name
                                                      : layer.params);
  owners.push_back({prefix, loc, layer.name});
  if ((layer.kind == Layer::Kind::Dense || layer.kind == Layer::Kind::Embed) &&
      layer.features <= 0) {
    error(loc) << stringify(layer.kind) << " layer '" << layer.name
               << "' has features " << layer.features
               << ", expected a positive number";
    return std::nullopt;
  }
  if ((layer.kind == Layer::Kind::Embed && layer.numEmbeddings <= 0) ||
      (layer.kind != Layer::Kind::Embed && in <= 0)) {
    error(loc) << "layer '" << layer.name << "' reads "
               << (layer.kind == Layer::Kind::Embed ? layer.numEmbeddings : in)
               << (layer.kind == Layer::Kind::Embed ? " embeddings"
                                                    : " input features")
               << ", expected a positive number";
    return std::nullopt;
  }
  std::vector<ParamSpec> specs = expectedLayerParams(layer, prefix, in);
  std::map<std::string, const Tensor *> found;
  if (!lookUp(specs, prefix, loc, "layer '" + layer.name + "'",
              ParamsHint{"on layer '" + layer.name + "'", "", ""}, found))
    return std::nullopt;
  if (shapesOnly)
    return result;
  warnWidenedBF16(found, loc, "layer '" + layer.name + "'", /*cell=*/false);
  // The layers around the cells hold their params in the activations' type
  // (float32, which a bfloat16 array of the file widens to exactly).
  auto get = [&](StringRef name) -> std::optional<Tensor> {
    auto it = found.find(joinKey(prefix, name));
    if (it == found.end())
      return std::nullopt;
    Tensor tensor = *it->second;
    tensor.elementType = model.activationType();
    return tensor;
  };
  switch (layer.kind) {
  case Layer::Kind::Dense:
    result.kernel = get("kernel");
    if (layer.useBias)
      result.bias = get("bias");
    break;
  case Layer::Kind::Embed:
    result.embedding = get("embedding");
    break;
  case Layer::Kind::LayerNorm:
    if (layer.useScale)
      result.scale = get("scale");
    if (layer.useBias)
      result.bias = get("bias");
    break;
  default:
    break;
  }
  return result;
}

/// Number of leading path components `a` and `b` share.
static size_t commonComponents(StringRef a, StringRef b) {
  size_t n = 0;
  while (!a.empty() && !b.empty()) {
    auto [headA, restA] = a.split('/');
    auto [headB, restB] = b.split('/');
    if (headA != headB)
      break;
    ++n;
    a = restA;
    b = restB;
  }
  return n;
}

/// "Dense_3/{bias, kernel}, step, opt/ (24 arrays)": `keys` (sorted) by
/// parent directory; a top-level subtree of which nothing is used and whose
/// arrays sit in several directories is counted instead.
static std::string describeSubtrees(const std::vector<std::string> &keys,
                                    const std::set<std::string> &usedTops) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < keys.size();) {
    StringRef key = keys[i];
    StringRef top = topOf(key);
    size_t j = i;
    bool oneDir = true;
    StringRef dir = key.rsplit('/').first == key ? "" : key.rsplit('/').first;
    while (j < keys.size() && topOf(keys[j]) == top) {
      StringRef d = StringRef(keys[j]).rsplit('/').first == keys[j]
                        ? ""
                        : StringRef(keys[j]).rsplit('/').first;
      oneDir &= d == dir;
      ++j;
    }
    if (!oneDir && !usedTops.count(top.str())) {
      parts.push_back(top.str() + "/ (" + std::to_string(j - i) + " arrays)");
      i = j;
      continue;
    }
    // By parent directory.
    while (i < j) {
      StringRef d = StringRef(keys[i]).rsplit('/').first == keys[i]
                        ? ""
                        : StringRef(keys[i]).rsplit('/').first;
      size_t k = i;
      std::vector<std::string> leaves;
      while (k < j &&
             (StringRef(keys[k]).rsplit('/').first == keys[k]
                  ? StringRef("")
                  : StringRef(keys[k]).rsplit('/').first) == d) {
        leaves.push_back(StringRef(keys[k]).rsplit('/').second.empty()
                             ? keys[k]
                             : StringRef(keys[k]).rsplit('/').second.str());
        ++k;
      }
      if (d.empty() || leaves.size() == 1)
        for (size_t l = i; l < k; ++l)
          parts.push_back(keys[l]);
      else
        parts.push_back(d.str() + "/{" + llvm::join(leaves, ", ") + "}");
      i = k;
    }
  }
  size_t shown = std::min<size_t>(parts.size(), 10);
  std::string text;
  for (size_t i = 0; i < shown; ++i)
    text += (i ? ", " : "") + parts[i];
  if (parts.size() > shown)
    text += ", and " + std::to_string(parts.size() - shown) + " more";
  return text;
}

void Binder::reportUnexpected() {
  std::vector<std::string> unused;
  for (const auto &entry : tree)
    if (!used.count(entry.first))
      unused.push_back(entry.first);
  for (const auto &entry : options.nonFloatKeys)
    if (!used.count(entry.first))
      unused.push_back(entry.first);
  llvm::sort(unused);
  llvm::erase_if(unused, [&](const std::string &key) {
    return isIgnoredParam(key, model.ignoreParams) ||
           isIgnoredParam(key, options.ignoreParams);
  });
  if (unused.empty())
    return;
  std::set<std::string> usedTops;
  for (const std::string &key : used)
    usedTops.insert(topOf(key).str());

  // The owner that most plausibly wanted each key: the one whose path holds
  // it (the longest), else the longest shared prefix, else the closest
  // top-level name; -1 if none fits.
  auto ownerOf = [&](StringRef key) -> int {
    int best = -1;
    size_t bestScore = 0;
    for (size_t i = 0; i < owners.size(); ++i) {
      const std::string &prefix = owners[i].prefix;
      if ((prefix.empty() || key.starts_with(prefix + "/")) &&
          prefix.size() + 1 > bestScore) {
        best = int(i);
        bestScore = prefix.size() + 1;
      }
    }
    if (best >= 0)
      return best;
    for (size_t i = 0; i < owners.size(); ++i) {
      size_t n = commonComponents(key, owners[i].prefix);
      if (n > bestScore) {
        best = int(i);
        bestScore = n;
      }
    }
    if (best >= 0)
      return best;
    unsigned bestDistance = 0;
    StringRef top = topOf(key);
    for (size_t i = 0; i < owners.size(); ++i) {
      for (StringRef name : {topOf(owners[i].prefix),
                             StringRef(owners[i].layerName)}) {
        unsigned limit = std::max<unsigned>(2, name.size() / 3);
        unsigned distance = top.edit_distance(name, true, limit);
        if (distance <= limit && (best < 0 || distance <= bestDistance)) {
          best = int(i);
          bestDistance = distance;
        }
      }
    }
    return best;
  };
  // A key close to a missing one is a misspelling: its own error, at the
  // cell that missed it. Each missing key explains at most one key (its
  // closest), so another cell type's keys are not all "did you mean".
  std::map<std::string, std::pair<std::string, unsigned>> typoOf; // missing ->
  for (const std::string &key : unused) {
    const std::string *closest = nullptr;
    unsigned closestDistance = 0;
    for (const std::string &candidate : missing) {
      unsigned limit = std::max<unsigned>(2, candidate.size() / 3);
      unsigned distance = StringRef(key).edit_distance(candidate, true, limit);
      if (distance <= limit && (!closest || distance < closestDistance)) {
        closest = &candidate;
        closestDistance = distance;
      }
    }
    if (!closest)
      continue;
    auto [it, inserted] =
        typoOf.try_emplace(*closest, std::make_pair(key, closestDistance));
    if (!inserted && closestDistance < it->second.second)
      it->second = {key, closestDistance};
  }
  std::map<std::string, std::string> typos; // unused key -> missing key
  for (const auto &[candidate, typo] : typoOf)
    typos[typo.first] = candidate;
  std::vector<std::string> stray;
  for (const std::string &key : unused) {
    auto typo = typos.find(key);
    if (typo == typos.end()) {
      stray.push_back(key);
      continue;
    }
    int owner = ownerOf(key);
    mlir::Location loc = owner < 0 ? modelLoc : owners[owner].loc;
    mlir::InFlightDiagnostic diag = error(loc);
    diag << "unexpected param '" << key << "' in '" << weightsPath << "'";
    diag.attachNote(loc) << "did you mean '" << typo->second << "'?";
  }
  if (stray.empty())
    return;

  // The others: one error, at the layer most of them are closest to.
  std::map<int, size_t> votes;
  for (const std::string &key : stray)
    ++votes[ownerOf(key)];
  int owner = -1;
  size_t most = 0;
  for (const auto &[candidate, count] : votes)
    if (candidate >= 0 && count > most) {
      owner = candidate;
      most = count;
    }
  mlir::Location loc = owner < 0 ? modelLoc : owners[owner].loc;
  mlir::InFlightDiagnostic diag = error(loc);
  if (stray.size() == 1)
    diag << "unexpected param '" << stray.front() << "' in '" << weightsPath
         << "'";
  else
    diag << stray.size() << " unexpected params in '" << weightsPath << "'";
  // All under the owner's own path: the layer's attributes (use_bias,
  // reset_gate, ...) may be what is wrong, and its subtree is not stray.
  bool inside =
      owner >= 0 && llvm::all_of(stray, [&](const std::string &key) {
        const std::string &prefix = owners[owner].prefix;
        return prefix.empty() || StringRef(key).starts_with(prefix + "/");
      });
  std::set<std::string> shownTops = usedTops;
  if (inside)
    shownTops.insert(topOf(owners[owner].prefix).str());
  // Globs that skip them: a whole top-level subtree no layer reads, else
  // the keys themselves.
  std::vector<std::string> globs;
  for (const std::string &key : stray) {
    StringRef top = topOf(key);
    std::string glob =
        shownTops.count(top.str()) || top == key ? key : (top + "/*").str();
    if (globs.empty() || globs.back() != glob)
      globs.push_back(glob);
  }
  std::string globList;
  for (size_t i = 0; i < globs.size() && i < 4; ++i)
    globList += (i ? ", " : "") + globs[i];
  if (globs.size() > 4)
    globList += ", ...";
  std::string what = describeSubtrees(stray, shownTops);
  if (inside)
    diag.attachNote(loc) << "layer '" << owners[owner].layerName
                         << "' does not read " << what
                         << " with the attributes the spec gives it; if the "
                            "file holds more than the model, skip them with "
                            "'ignore_params: ["
                         << globList << "]' in the spec or --ignore-params='"
                         << globs.front() << "'";
  else
    diag.attachNote(loc) << "no layer reads " << what
                         << "; if the file holds more than the model, skip "
                            "them with 'ignore_params: ["
                         << globList << "]' in the spec or --ignore-params='"
                         << globs.front() << "'";
}

std::optional<std::vector<LayerParams>> Binder::run() {
  std::vector<LayerParams> result;
  for (size_t i = 0; i < model.layers.size(); ++i) {
    const Layer &layer = model.layers[i];
    spec::Shape inShape = spec::layerInputFeatures(model, i);
    int64_t in = inShape.empty() ? 0 : inShape.back();
    if (!layer.isRecurrent()) {
      if (std::optional<LayerParams> params = bindLayer(layer, in))
        result.push_back(std::move(*params));
      continue;
    }
    if (!layer.isBidirectional()) {
      if (std::optional<CellParams> cell =
              bindCell(layer, layer.rnn, Direction::Forward, in)) {
        LayerParams params;
        params.forward = std::move(*cell);
        result.push_back(std::move(params));
      }
      continue;
    }
    int64_t forward = layer.forward.cell.features,
            backward = layer.backward.cell.features;
    if (layer.merge != Merge::Concat && forward != backward)
      error(locOf(layer.loc, modelLoc))
          << "merge '" << stringify(layer.merge) << "' of layer '" << layer.name
          << "' needs equal forward and backward features, found " << forward
          << " and " << backward;
    std::optional<CellParams> fwd =
        bindCell(layer, layer.forward, Direction::Forward, in);
    std::optional<CellParams> bwd =
        bindCell(layer, layer.backward, Direction::Backward, in);
    if (fwd && bwd) {
      LayerParams params;
      params.forward = std::move(*fwd);
      params.backward = std::move(*bwd);
      result.push_back(std::move(params));
    }
  }
  reportUnexpected();
  if (failed)
    return std::nullopt;
  return result;
}

std::optional<std::vector<LayerParams>>
rnnc::bindParams(const Model &model, const ParamTree &tree,
                 StringRef weightsPath, const llvm::SourceMgr &sourceMgr,
                 mlir::MLIRContext &ctx, const BindOptions &options) {
  std::optional<std::vector<LayerParams>> params =
      Binder(model, tree, weightsPath, sourceMgr, ctx, options).run();
  // quantize: {weights: int8}: rnnc quantizes the float checkpoint here, so
  // every client (compiler, reference, benchmark) sees the same weights.
  if (params)
    if (llvm::Error error = quantizeWeights(model, *params)) {
      mlir::emitError(mlir::FileLineColLoc::get(&ctx, weightsPath, 0, 0))
          << llvm::toString(std::move(error));
      return std::nullopt;
    }
  return params;
}

mlir::LogicalResult rnnc::checkParamShapes(const Model &model,
                                           const ParamShapes &shapes,
                                           StringRef weightsPath,
                                           const llvm::SourceMgr &sourceMgr,
                                           mlir::MLIRContext &ctx,
                                           const BindOptions &options) {
  ParamTree tree;
  for (const auto &[key, shape] : shapes)
    tree[key].shape = shape;
  return mlir::success(
      Binder(model, tree, weightsPath, sourceMgr, ctx, options,
             /*shapesOnly=*/true)
          .run()
          .has_value());
}
