//===- Parser.cpp - Reading a spec: document, top level and input ---------===//

#include "SpecParser.h"

#include "rnn/Spec/Parser.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace rnnc::spec;
using namespace rnnc::spec::detail;
namespace yaml = llvm::yaml;
using llvm::SMLoc;
using llvm::StringRef;

mlir::Location rnnc::spec::toLocation(const llvm::SourceMgr &sourceMgr,
                                      SMLoc loc, mlir::MLIRContext &ctx) {
  if (!loc.isValid())
    return mlir::UnknownLoc::get(&ctx);
  unsigned id = sourceMgr.FindBufferContainingLoc(loc);
  if (id == 0)
    return mlir::UnknownLoc::get(&ctx);
  auto [line, col] = sourceMgr.getLineAndColumn(loc, id);
  return mlir::FileLineColLoc::get(
      &ctx, sourceMgr.getMemoryBuffer(id)->getBufferIdentifier(), line, col);
}

namespace {

/// Owns the llvm::yaml::Stream of one pass and keeps its first syntax error
/// (the later ones are consequences of it). The stream gets a private
/// SourceMgr (it registers its input there); its buffer aliases the
/// caller's, so locations are shared.
class YamlPass {
public:
  YamlPass(llvm::MemoryBufferRef buffer)
      : begin(buffer.getBufferStart()), end(buffer.getBufferEnd()) {
    yamlSourceMgr.setDiagHandler(&YamlPass::handle, this);
    stream = std::make_unique<yaml::Stream>(buffer, yamlSourceMgr,
                                            /*ShowColors=*/false);
  }

  yaml::Stream &getStream() { return *stream; }
  bool hadSyntaxError() const { return errorLoc.isValid(); }
  SMLoc getErrorLoc() const { return errorLoc; }
  const std::string &getErrorMessage() const { return errorMessage; }

private:
  static void handle(const llvm::SMDiagnostic &diag, void *context) {
    auto *self = static_cast<YamlPass *>(context);
    if (self->hadSyntaxError())
      return;
    // LLVM's messages are capitalized and may end in '!' or '.'.
    std::string message = diag.getMessage().str();
    while (!message.empty() && (message.back() == '!' || message.back() == '.'))
      message.pop_back();
    // Lowercase sentence starts ("Unexpected token. Expected Key" becomes
    // "unexpected token; expected Key"), but not acronyms.
    for (size_t i = 0; i + 1 < message.size(); ++i) {
      bool sentenceStart =
          i == 0 || (i >= 2 && message[i - 2] == '.' && message[i - 1] == ' ');
      if (sentenceStart && llvm::isUpper(message[i]) &&
          !llvm::isUpper(message[i + 1])) {
        message[i] = llvm::toLower(message[i]);
        if (i >= 2)
          message[i - 2] = ';';
      }
    }
    // Keep the location inside the buffer (the scanner may point one past it).
    const char *p = diag.getLoc().getPointer();
    if (!p || p < self->begin || p > self->end)
      p = self->begin;
    self->errorLoc = SMLoc::getFromPointer(p);
    self->errorMessage = message.empty() ? "syntax error" : message;
  }

  const char *begin;
  const char *end;
  llvm::SourceMgr yamlSourceMgr;
  std::unique_ptr<yaml::Stream> stream;
  SMLoc errorLoc;
  std::string errorMessage;
};

/// Flow collections ('[', '{') may nest this deep. llvm::yaml's scanner slows
/// down on deep nesting on one line (seconds for 100k levels) and its own
/// skip() recurses; real specs nest a few levels.
constexpr int kMaxFlowDepth = 100;

/// What a light scan of the text finds before llvm::yaml parses it: the first
/// tab in the indentation of a block-context line with content (YAML forbids
/// it, llvm::yaml guesses; inside flow collections tabs are fine, so
/// tab-indented JSON is accepted), or the first bracket nested deeper than
/// kMaxFlowDepth. Comments and quoted strings are skipped, brackets counted.
struct Prescan {
  const char *tab = nullptr;
  const char *tooDeep = nullptr;
};

Prescan prescan(StringRef text) {
  Prescan result;
  int flowDepth = 0;
  bool atLineStart = true;
  const char *tab = nullptr;
  char prev = '\n';
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n' || c == '\r') {
      atLineStart = true;
      tab = nullptr;
      prev = c;
      continue;
    }
    if (atLineStart) {
      if (c == '\t' && !tab)
        tab = text.data() + i;
      if (c == '\t' || c == ' ')
        continue;
      atLineStart = false;
      if (tab && c != '#' && flowDepth == 0 && !result.tab)
        result.tab = tab;
    }
    bool afterSeparator =
        llvm::isSpace(prev) || StringRef("[{,:").contains(prev);
    if (c == '#' && llvm::isSpace(prev)) {
      while (i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != '\r')
        ++i;
    } else if ((c == '"' || c == '\'') && afterSeparator) {
      // Skip to the closing quote ('' and \" are escapes).
      for (++i; i < text.size(); ++i) {
        if (c == '"' && text[i] == '\\') {
          ++i;
          continue;
        }
        if (text[i] != c)
          continue;
        if (c == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;
          continue;
        }
        break;
      }
    } else if (c == '[' || c == '{') {
      if (++flowDepth > kMaxFlowDepth) {
        result.tooDeep = text.data() + i;
        return result;
      }
    } else if ((c == ']' || c == '}') && flowDepth > 0) {
      --flowDepth;
    }
    prev = c;
  }
  return result;
}

/// Walks every document once to find syntax errors before any schema error
/// is reported, so a syntax error is always reported alone. Reports the
/// first one in source order.
bool checkSyntax(llvm::MemoryBufferRef buffer, SpecDiagnostics &diags) {
  Prescan scan = prescan(buffer.getBuffer());
  if (scan.tooDeep) {
    diags.error(SMLoc::getFromPointer(scan.tooDeep),
                "invalid YAML: '[' and '{' nested more than " +
                    llvm::Twine(kMaxFlowDepth) + " levels deep");
    return false;
  }
  YamlPass pass(buffer);
  YamlReader reader(diags, buffer.getBufferStart(), /*decodeScalars=*/true);
  yaml::Stream &stream = pass.getStream();
  for (auto it = stream.begin(), e = stream.end(); it != e; ++it) {
    reader.consume(it->getRoot());
    if (pass.hadSyntaxError())
      break;
  }
  SMLoc loc = pass.getErrorLoc();
  std::string message = pass.getErrorMessage();
  if (scan.tab && (!loc.isValid() || scan.tab <= loc.getPointer())) {
    loc = SMLoc::getFromPointer(scan.tab);
    message = "found a tab character in indentation; indent with spaces";
  }
  if (!loc.isValid() && stream.failed()) {
    loc = SMLoc::getFromPointer(buffer.getBufferStart());
    message = "syntax error";
  }
  if (!loc.isValid())
    return true;
  diags.error(loc, "invalid YAML: " + message);
  return false;
}

constexpr StringRef kTopKeys[] = {
    "rnnc",   "name",           "dtype",         "param_dtype", "quantize",
    "params_layout", "input", "layers", "padded_outputs", "ignore_params"};
constexpr StringRef kInputKeys[] = {"batch",       "time",  "features",
                                    "time_major",  "seq_lengths",
                                    "stream"};

bool isCKeyword(StringRef name) {
  static constexpr StringRef keywords[] = {
      "auto",         "break",     "case",           "char",
      "const",        "continue",  "default",        "do",
      "double",       "else",      "enum",           "extern",
      "float",        "for",       "goto",           "if",
      "inline",       "int",       "long",           "register",
      "restrict",     "return",    "short",          "signed",
      "sizeof",       "static",    "struct",         "switch",
      "typedef",      "union",     "unsigned",       "void",
      "volatile",     "while",     "_Bool",          "_Complex",
      "_Imaginary",   "_Alignas",  "_Alignof",       "_Atomic",
      "_Generic",     "_Noreturn", "_Static_assert", "_Thread_local",
      "bool",         "true",      "false",          "nullptr",
      "alignas",      "alignof",   "constexpr",      "static_assert",
      "thread_local", "typeof",    "typeof_unqual"};
  return llvm::is_contained(keywords, name);
}

bool isCIdentifier(StringRef name) {
  if (name.empty() || llvm::isDigit(name.front()))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// `{max: N}` (of `what`, a batch entry or 'time'): N, the most a run-time
/// size may be; none after an error.
std::optional<int64_t> readMaximum(YamlReader &reader, Field &field,
                                   StringRef what) {
  auto *bounds = llvm::cast<yaml::MappingNode>(field.node);
  bool seenMax = false;
  std::optional<int64_t> result;
  reader.forEachField(*bounds, what, {"max"}, [&](Field &m) {
    seenMax = true;
    result = reader.readPositive(m, "at least 1");
  });
  if (!seenMax)
    reader.diags.error(field.loc(), "missing key 'max' in " + what.str());
  return result;
}

void parseInput(YamlReader &reader, Field &field, Model &model,
                ModelInfo &info) {
  yaml::MappingNode *map = reader.readMapping(field);
  if (!map)
    return;
  bool seenTime = false;
  info.inputSeen = true;
  info.inputLoc = info.seqLengthsLoc = field.keyLoc;
  info.batchValid = true; // absent batch means unbatched
  reader.forEachField(*map, "'input'", kInputKeys, [&](Field &f) {
    if (f.name == "batch") {
      info.batchValid = false;
      yaml::SequenceNode *list = reader.readList(f, "a list of integers");
      if (!list)
        return;
      bool ok = true;
      reader.forEachElement(*list, "batch", [&](Field &e) {
        std::optional<int64_t> v;
        bool runtime = llvm::isa<yaml::MappingNode>(e.node);
        if (runtime)
          v = readMaximum(reader, e, "batch entry");
        else
          v = reader.readPositive(e);
        if (!v) {
          ok = false;
          return;
        }
        if (runtime && !model.hasRuntimeBatch())
          info.runtimeBatchLoc = e.loc();
        model.batch.push_back(*v);
        model.runtimeBatch.push_back(runtime);
      });
      info.batchValid = ok;
    } else if (f.name == "time") {
      seenTime = true;
      info.timeLoc = f.loc();
      if (llvm::isa<yaml::MappingNode>(f.node)) {
        // {max: N}: the actual number of steps is a run-time argument.
        if (std::optional<int64_t> v = readMaximum(reader, f, "'time'")) {
          model.time = *v;
          model.runtimeTime = true;
          info.timeValid = true;
        }
      } else if (std::optional<int64_t> v =
                     reader.readPositive(f, "at least 1")) {
        model.time = *v;
        info.timeValid = true;
      }
    } else if (f.name == "features") {
      info.featuresSeen = true;
      info.featuresLoc = f.loc();
      if (llvm::isa<yaml::SequenceNode>(f.node)) {
        yaml::SequenceNode *list = reader.readList(f, "a list of integers");
        bool ok = true;
        reader.forEachElement(*list, "features", [&](Field &e) {
          if (std::optional<int64_t> v = reader.readPositive(e))
            model.features.push_back(*v);
          else
            ok = false;
        });
        if (ok && model.features.empty()) {
          reader.diags.error(f.loc(), "expected at least one entry in "
                                      "'features'");
          ok = false;
        }
        info.featuresValid = ok;
      } else if (llvm::isa<yaml::AliasNode>(f.node) ||
                 YamlReader::isInteger(f.node)) {
        if (std::optional<int64_t> v = reader.readPositive(f)) {
          model.features = {*v};
          info.featuresValid = true;
        }
      } else {
        reader.typeError(f, "an integer or a list of integers");
      }
    } else if (f.name == "time_major") {
      if (std::optional<bool> v = reader.readBool(f))
        model.timeMajor = *v;
    } else if (f.name == "stream") {
      info.streamLoc = f.loc();
      if (std::optional<bool> v = reader.readBool(f))
        model.stream = *v;
    } else if (f.name == "seq_lengths") {
      info.seqLengthsLoc = f.keyLoc;
      if (std::optional<bool> v = reader.readBool(f))
        model.seqLengths = *v;
    }
  });
  if (!seenTime)
    reader.diags.error(field.keyLoc, "missing key 'time' in 'input'");
  // A missing `features` is checked with the layers (an Embed takes none).
}

/// Reads `ignore_params: [GLOB, ...]`.
void parseIgnoreParams(YamlReader &reader, Field &field, Model &model) {
  yaml::SequenceNode *list = reader.readList(field, "a list of globs");
  if (!list)
    return;
  reader.forEachElement(*list, "ignore_params", [&](Field &e) {
    std::optional<std::string> glob = reader.readString(e);
    if (!glob)
      return;
    if (glob->empty()) {
      reader.diags.error(e.loc(), "expected a non-empty glob in "
                                  "'ignore_params'");
      return;
    }
    llvm::Expected<llvm::GlobPattern> pattern =
        llvm::GlobPattern::create(*glob);
    if (!pattern) {
      reader.diags.error(e.loc(), "invalid glob '" + *glob +
                                      "' in 'ignore_params': " +
                                      llvm::toString(pattern.takeError()));
      return;
    }
    model.ignoreParams.push_back(*glob);
  });
}

/// `quantize: {weights: int8, activations: float32 | dynamic}` (an rnnc
/// extension): int8 weights, dequantized in the kernel; with `dynamic` the
/// cells also quantize their activations per row on the fly (int8 dot
/// products). Whether the path and target can run that is the compiler's
/// check (compileModel), at the value recorded here.
void parseQuantize(YamlReader &reader, Field &field, Model &model) {
  yaml::MappingNode *map = reader.readMapping(field);
  if (!map)
    return;
  static constexpr StringRef keys[] = {"weights", "activations"};
  bool weights = false, valid = true, dynamic = false;
  reader.forEachField(*map, "'quantize'", keys, [&](Field &f) {
    if (f.name == "weights") {
      weights = true;
      if (!reader.readEnum<bool>(f, "weight quantization", {{"int8", true}}))
        valid = false;
    } else if (f.name == "activations") {
      std::optional<bool> value = reader.readEnum<bool>(
          f, "activation quantization",
          {{"float32", false}, {"dynamic", true}});
      if (!value)
        valid = false;
      else if (*value) {
        dynamic = true;
        model.int8ActivationsLoc = f.loc();
      }
    }
  });
  if (!weights) {
    reader.diags.error(field.keyLoc,
                       "missing key 'weights' in 'quantize' (add "
                       "'weights: int8')");
    valid = false;
  }
  model.int8Weights = valid;
  model.int8Activations = valid && dynamic;
}

/// Applies `quantize: {weights: int8}` to the cells; a cell with bfloat16
/// params or bfloat16 compute cannot have int8 weights too (an error at
/// `quantize`).
void applyQuantize(Model &model, const ModelInfo &info,
                   SpecDiagnostics &diags) {
  if (!model.int8Weights)
    return;
  std::optional<std::string> conflict = applyInt8Weights(model);
  if (!conflict) {
    if (model.int8Activations)
      applyInt8Activations(model);
    return;
  }
  // Which of the two made the cell's params bfloat16.
  bool paramDtype = false;
  for (const Layer &layer : model.layers)
    if (layer.name == *conflict)
      for (const RNN *rnn : {&layer.rnn, &layer.forward, &layer.backward})
        paramDtype |= rnn->cell.paramDtype == ElementType::BFloat16;
  diags.error(info.quantizeLoc,
              "'quantize: {weights: int8}' and " +
                  std::string(paramDtype ? "param_dtype" : "dtype") +
                  " 'bfloat16' exclude each other (layer '" + *conflict +
                  "'); use one of them");
}

void parseTopLevel(YamlReader &reader, yaml::MappingNode &root, SMLoc rootLoc,
                   Model &model, ModelInfo &info) {
  bool seen[4] = {}; // rnnc, name, input, layers
  info.paramsLayoutLoc = rootLoc;
  reader.forEachField(root, "the spec", kTopKeys, [&](Field &f) {
    if (f.name == "rnnc") {
      seen[0] = true;
      if (std::optional<int64_t> v = reader.readInt(f); v && *v != 1)
        reader.diags.error(f.loc(), "unsupported spec version " +
                                        llvm::Twine(*v) + "; expected 1");
    } else if (f.name == "name") {
      seen[1] = true;
      std::optional<std::string> name = reader.readString(f);
      if (!name)
        return;
      model.name = *name;
      if (!isCIdentifier(*name))
        reader.diags.error(f.loc(),
                           "expected a C identifier for 'name', found '" +
                               *name + "'");
      else if (isCKeyword(*name))
        reader.diags.error(f.loc(), "'" + *name +
                                        "' is a C keyword and cannot "
                                        "be used as 'name'");
    } else if (f.name == "dtype") {
      if (std::optional<ElementType> v = parseDtype(reader, f)) {
        model.dtype = *v;
        info.dtypeLoc = f.loc();
      }
    } else if (f.name == "param_dtype") {
      if (std::optional<ElementType> v = parseParamDtype(reader, f)) {
        model.paramDtype = *v;
        info.paramDtypeLoc = f.loc();
      }
    } else if (f.name == "quantize") {
      info.quantizeLoc = f.keyLoc;
      parseQuantize(reader, f, model);
    } else if (f.name == "params_layout") {
      info.paramsLayoutLoc = f.loc();
      if (auto v = reader.readEnum<ParamsLayout>(
              f, "params_layout",
              {{"linen", ParamsLayout::Linen}, {"nnx", ParamsLayout::NNX}}))
        model.paramsLayout = *v;
    } else if (f.name == "padded_outputs") {
      if (auto v = reader.readEnum<PaddedOutputs>(
              f, "padded_outputs",
              {{"compute", PaddedOutputs::Compute},
               {"zeros", PaddedOutputs::Zeros}}))
        model.paddedOutputs = *v;
    } else if (f.name == "ignore_params") {
      parseIgnoreParams(reader, f, model);
    } else if (f.name == "input") {
      seen[2] = true;
      parseInput(reader, f, model, info);
    } else if (f.name == "layers") {
      seen[3] = true;
      parseLayers(reader, f, model, info);
    }
  });
  if (!seen[0])
    reader.diags.error(rootLoc, "missing key 'rnnc' in the spec (the spec "
                                "format version; add 'rnnc: 1')");
  static constexpr StringRef required[] = {"name", "input", "layers"};
  for (int i = 0; i < 3; ++i)
    if (!seen[i + 1])
      reader.diags.error(rootLoc,
                         "missing key '" + required[i] + "' in the spec");
}

/// Reads the one document of `stream` into `model`.
void parseStream(yaml::Stream &stream, YamlReader &reader,
                 llvm::MemoryBufferRef buffer, Model &model, ModelInfo &info,
                 SpecDiagnostics &diags) {
  auto it = stream.begin(), e = stream.end();
  if (it == e)
    return;
  yaml::Node *root = it->getRoot();
  if (!root)
    return;
  SMLoc rootLoc = reader.startOf(root);
  if (!rootLoc.isValid() || llvm::isa<yaml::NullNode>(root))
    rootLoc = SMLoc::getFromPointer(buffer.getBufferEnd());
  model.loc = rootLoc;
  if (auto *map = llvm::dyn_cast<yaml::MappingNode>(root)) {
    parseTopLevel(reader, *map, rootLoc, model, info);
  } else {
    std::string found = llvm::isa<yaml::NullNode>(root)
                            ? "an empty document"
                            : YamlReader::describe(root);
    diags.error(rootLoc,
                "expected a mapping at the top level of the spec, found " +
                    found);
    reader.consume(root);
  }
  if (++it != e && it->getRoot())
    diags.error(reader.startOf(it->getRoot()),
                "expected one YAML document, found more than one");
}

/// The schema pass over a syntactically valid buffer.
void parseDocument(llvm::MemoryBufferRef buffer, Model &model, ModelInfo &info,
                   SpecDiagnostics &diags) {
  YamlPass pass(buffer);
  YamlReader reader(diags, buffer.getBufferStart());
  yaml::Stream &stream = pass.getStream();
  parseStream(stream, reader, buffer, model, info, diags);
  // The syntax pass found no error, but reading values (escapes) can.
  if (pass.hadSyntaxError())
    diags.error(pass.getErrorLoc(), "invalid YAML: " + pass.getErrorMessage());
}

} // namespace

std::optional<Model> rnnc::spec::parseModel(llvm::SourceMgr &sourceMgr,
                                            unsigned bufferId,
                                            mlir::MLIRContext &ctx) {
  SpecDiagnostics diags(sourceMgr, ctx);
  if (bufferId == 0 || bufferId > sourceMgr.getNumBuffers()) {
    diags.error(SMLoc(), "no spec buffer with id " + llvm::Twine(bufferId));
    diags.flush();
    return std::nullopt;
  }
  llvm::MemoryBufferRef buffer =
      sourceMgr.getMemoryBuffer(bufferId)->getMemBufferRef();
  if (!checkSyntax(buffer, diags)) {
    diags.flush();
    return std::nullopt;
  }
  Model model;
  ModelInfo info;
  parseDocument(buffer, model, info, diags);
  finalizeLayers(model);
  applyParamDtypes(model, info, diags);
  applyQuantize(model, info, diags);
  checkModel(model, info, diags);
  bool failed = diags.hadError();
  diags.flush();
  if (failed)
    return std::nullopt;
  return model;
}

/// Reads an element type: float32, or one of `also`; any other name is an
/// error at the value (a numeric type rnnc does not support yet, or an
/// unknown name with a suggestion).
static std::optional<std::string>
parseElementType(YamlReader &reader, Field &field,
                 llvm::ArrayRef<StringRef> also) {
  std::optional<std::string> dtype = reader.readString(field);
  if (!dtype)
    return std::nullopt;
  if (*dtype == "float32" || llvm::is_contained(also, *dtype))
    return dtype;
  std::string expected = "float32";
  std::vector<StringRef> names = {"float32"};
  for (StringRef name : also) {
    expected += " or " + name.str();
    names.push_back(name);
  }
  static const llvm::Regex numericType(
      "^(b?float[0-9]+|u?int[0-9]+|complex[0-9]+|half|double|bool)$");
  if (numericType.match(*dtype))
    reader.diags.error(field.loc(), field.name + " '" + *dtype +
                                        "' is not supported yet; use " +
                                        expected);
  else
    reader.diags.error(field.loc(),
                       "unknown " + field.name + " '" + *dtype +
                           "'; expected " + expected,
                       didYouMean(*dtype, names));
  return std::nullopt;
}

std::optional<ElementType> rnnc::spec::detail::parseDtype(YamlReader &reader,
                                                          Field &field) {
  std::optional<std::string> dtype =
      parseElementType(reader, field, {"bfloat16"});
  if (!dtype)
    return std::nullopt;
  return *dtype == "bfloat16" ? ElementType::BFloat16 : ElementType::Float32;
}

std::optional<ElementType>
rnnc::spec::detail::parseParamDtype(YamlReader &reader, Field &field) {
  std::optional<std::string> dtype =
      parseElementType(reader, field, {"bfloat16"});
  if (!dtype)
    return std::nullopt;
  return *dtype == "bfloat16" ? ElementType::BFloat16 : ElementType::Float32;
}
