//===- rnnc.cpp - The rnnc driver -----------------------------------------===//
//
// rnnc check   SPEC [--weights W]          validate, print a model summary
//              [--quantize int8|int8-dynamic --inputs IN.npz]  and int8's deviation
// rnnc inspect WEIGHTS [--flat]            print a weights file's param tree
// rnnc compile SPEC --weights W [-o DIR] [--emit=obj|c|llvm|asm|mlir]
//              [--target=TRIPLE] [--cpu=NAME]
// rnnc run     SPEC --weights W --inputs IN.npz --output OUT.npz
//              [--emit-path=llvm|c] [--repeat N] [--cpu=NAME]
//
// Test options (as in mlir-opt): --verify-diagnostics checks the diagnostics
// against `# expected-error {{...}}` comments in the spec, and
// --split-input-file checks each piece between `# -----` lines separately.
//
// Exit code: 0 on success, 1 on any user error.
//
//===----------------------------------------------------------------------===//

#include "rnn/Driver/Driver.h"
#include "rnn/Spec/ModelShapes.h"
#include "rnn/Spec/Parser.h"
#include "rnn/Version.h"
#include "rnn/Weights/Binding.h"
#include "rnn/Weights/WeightsFile.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace rnnc;
namespace cl = llvm::cl;

/// The split marker of --split-input-file: a YAML comment.
static constexpr llvm::StringLiteral kSplitMarker = "# -----";

static cl::OptionCategory rnncCategory("rnnc options");

static cl::SubCommand checkCommand(
    "check", "Validate a model spec (and, with --weights, its weights) and "
             "print a summary of the model");
static cl::SubCommand inspectCommand(
    "inspect", "Print the param tree of a weights file with shapes");
static cl::SubCommand compileCommand(
    "compile", "Compile a model to an object file (or C, LLVM IR, assembly, "
               "MLIR) and its C header");
static cl::SubCommand runCommand(
    "run",
    "Compile a model, run it on the arrays of an npz file and write its "
    "outputs to another.\n"
    "  Reads (--inputs):  x             float32 (int32 token ids after an "
    "Embed)\n"
    "                     seq_lengths   int32, with input.seq_lengths: true\n"
    "                     initial_carry/<layer>/<c|h>  float32, layers with "
    "initial_carry: input\n"
    "  Writes (--output): y             float32\n"
    "                     carry/<layer>/<c|h>          float32, layers with "
    "return_carry: true\n"
    "  Bidirectional carries are <layer>/forward/<c|h> and "
    "<layer>/backward/<c|h>;\n"
    "  c only for cells with a cell state (LSTM). 'rnnc run SPEC "
    "--list-arrays' prints\n"
    "  the exact names, dtypes and shapes of SPEC's arrays");

static cl::opt<std::string> specFile(cl::Positional, cl::Required,
                                     cl::desc("<spec.yaml>"),
                                     cl::sub(checkCommand),
                                     cl::sub(compileCommand),
                                     cl::sub(runCommand), cl::cat(rnncCategory));

static cl::opt<std::string> inspectFile(cl::Positional, cl::Required,
                                        cl::desc("<weights.npz|.safetensors>"),
                                        cl::sub(inspectCommand),
                                        cl::cat(rnncCategory));

static cl::opt<std::string>
    weightsFile("weights",
                cl::desc("The model's Flax weights (.npz or .safetensors)"),
                cl::value_desc("file"), cl::sub(checkCommand),
                cl::sub(compileCommand), cl::sub(runCommand),
                cl::cat(rnncCategory));

static cl::opt<std::string> outputDir(
    "o", cl::desc("Write <name>.h and <name>.o (or .c, .ll, .s, .mlir) here; "
                  "without it, --emit=mlir prints to stdout"),
    cl::value_desc("dir"), cl::sub(compileCommand), cl::cat(rnncCategory));

static cl::opt<Emit> emitKind(
    "emit", cl::desc("What to generate"), cl::init(Emit::Object),
    cl::values(clEnumValN(Emit::Object, "obj", "an object file (default)"),
               clEnumValN(Emit::C, "c", "portable C99 source"),
               clEnumValN(Emit::LLVMIR, "llvm", "LLVM IR"),
               clEnumValN(Emit::Assembly, "asm", "assembly"),
               clEnumValN(Emit::MLIR, "mlir", "the model in the rnn dialect")),
    cl::sub(compileCommand), cl::cat(rnncCategory));

static cl::opt<std::string>
    targetTriple("target", cl::desc("Target triple (default: this machine)"),
                 cl::value_desc("triple"), cl::sub(compileCommand),
                 cl::cat(rnncCategory));

static cl::opt<std::string>
    targetCpu("cpu",
              cl::desc("Target CPU (default: this machine's; for run, one "
                       "this machine runs)"),
              cl::value_desc("name"), cl::sub(compileCommand),
              cl::sub(runCommand),
              cl::cat(rnncCategory));

static cl::opt<Optimize> optimizeFor(
    "optimize",
    cl::desc("What the code is lean in (default: ram for Cortex-M and other "
             "M-profile targets, speed elsewhere)"),
    cl::init(Optimize::Default),
    cl::values(clEnumValN(Optimize::Speed, "speed",
                          "time: the input projection of all steps computed "
                          "before the recurrence (workspace grows with T)"),
               clEnumValN(Optimize::Ram, "ram",
                          "RAM: the input projection computed step by step, "
                          "workspace independent of T")),
    cl::sub(compileCommand), cl::cat(rnncCategory));

static cl::opt<std::string> inputsFile("inputs",
                                       cl::desc("The model's inputs (.npz)"),
                                       cl::value_desc("file"),
                                       cl::sub(runCommand),
                                       cl::sub(checkCommand),
                                       cl::cat(rnncCategory));

/// `rnnc check --quantize int8`: what int8 weights would cost in accuracy.
enum class QuantizeCheck { None, Int8, Int8Dynamic };
static cl::opt<QuantizeCheck> quantizeCheck(
    "quantize",
    cl::desc("Also run the model with int8 weights ('quantize: {weights: "
             "int8}') on --inputs and print every output's deviation from "
             "the float model (needs --weights and --inputs)"),
    cl::init(QuantizeCheck::None),
    cl::values(clEnumValN(QuantizeCheck::Int8, "int8",
                          "int8 weights, per output channel"),
               clEnumValN(QuantizeCheck::Int8Dynamic, "int8-dynamic",
                          "int8 weights and dynamic int8 activations "
                          "('activations: dynamic')")),
    cl::sub(checkCommand), cl::cat(rnncCategory));

static cl::opt<std::string>
    outputsFile("output", cl::desc("Where to write the outputs (.npz)"),
                cl::value_desc("file"), cl::sub(runCommand),
                cl::cat(rnncCategory));

static cl::opt<CodegenPath> emitPath(
    "emit-path", cl::desc("Which code generator to run"),
    cl::init(CodegenPath::LLVM),
    cl::values(clEnumValN(CodegenPath::LLVM, "llvm", "an object file (default)"),
               clEnumValN(CodegenPath::C, "c", "C99 through EmitC")),
    cl::sub(runCommand), cl::cat(rnncCategory));

static cl::opt<bool> listArrays(
    "list-arrays",
    cl::desc("Print the names, dtypes and shapes of the arrays the model "
             "reads and writes, and exit (needs only the spec)"),
    cl::sub(runCommand), cl::cat(rnncCategory));

static cl::opt<unsigned>
    repeatCount("repeat",
                cl::desc("Time this many runs and print the median"),
                cl::init(0), cl::sub(runCommand), cl::cat(rnncCategory));

static cl::list<std::string> ignoreParams(
    "ignore-params",
    cl::desc("Weights-file keys that may be in the file without being used "
             "(a glob over the key or a parent path; repeatable)"),
    cl::value_desc("glob"), cl::sub(checkCommand), cl::sub(compileCommand),
    cl::sub(runCommand), cl::cat(rnncCategory));

static cl::opt<bool>
    inspectFlat("flat",
                cl::desc("One full path per line: path, dtype, shape"),
                cl::sub(inspectCommand), cl::cat(rnncCategory));

static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check the diagnostics against 'expected-error {{...}}' comments "
             "in the spec instead of printing them (for tests)"),
    cl::sub(checkCommand), cl::sub(compileCommand), cl::cat(rnncCategory));

static cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Split the spec at '# -----' lines and process each piece on "
             "its own (for tests)"),
    cl::sub(checkCommand), cl::sub(compileCommand), cl::cat(rnncCategory));

static std::vector<std::string> ignoreGlobs() {
  return std::vector<std::string>(ignoreParams.begin(), ignoreParams.end());
}

static cl::opt<uint64_t> maxWeightsBytes(
    "max-weights-bytes",
    cl::desc("Refuse a weights or inputs file whose arrays declare more "
             "bytes of data than this, before reading any (default: 2 GiB)"),
    cl::init(rnnc::weights::kDefaultMaxWeightsBytes), cl::value_desc("bytes"),
    cl::sub(checkCommand), cl::sub(compileCommand), cl::sub(runCommand),
    cl::cat(rnncCategory));

static void error(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "rnnc") << message << "\n";
}

/// What one subcommand does with a parsed spec buffer.
using SpecAction = mlir::LogicalResult (*)(llvm::SourceMgr &,
                                           mlir::MLIRContext &,
                                           llvm::raw_ostream &);

static mlir::LogicalResult checkAction(llvm::SourceMgr &sourceMgr,
                                       mlir::MLIRContext &ctx,
                                       llvm::raw_ostream &os) {
  if (!weightsFile.empty()) {
    std::optional<LoadedModel> loaded =
        loadModel(sourceMgr, 1, weightsFile, ctx, ignoreGlobs());
    if (!loaded)
      return mlir::failure();
    spec::printModelSummary(os, loaded->model);
    if (quantizeCheck != QuantizeCheck::None)
      return printQuantizationDeviation(
          *loaded, sourceMgr, inputsFile,
          quantizeCheck == QuantizeCheck::Int8Dynamic, os, ctx);
    return mlir::success();
  }
  std::optional<spec::Model> model = spec::parseModel(sourceMgr, 1, ctx);
  if (!model)
    return mlir::failure();
  spec::printModelSummary(os, *model);
  return mlir::success();
}

static mlir::LogicalResult writeFile(llvm::StringRef path,
                                     llvm::StringRef contents) {
  std::error_code code;
  llvm::raw_fd_ostream os(path, code);
  if (code) {
    error("cannot write '" + path + "': " + code.message());
    return mlir::failure();
  }
  os << contents;
  return mlir::success();
}

/// The one line `rnnc compile -o DIR` prints on stdout (README, "Using
/// rnnc"): params and FLOPs per step as `rnnc check` counts them, the
/// workspace, the code (an object's executable sections; for the other
/// kinds the file's bytes, named by kind) and the weights' constant data.
static void printCompileSummary(llvm::raw_ostream &os,
                                const spec::Model &model,
                                const Compiled &compiled) {
  os << model.name << ": " << spec::numParams(model) << " params, "
     << spec::flopsPerStep(model) << " FLOPs/step, workspace "
     << compiled.workspaceSize << " bytes, ";
  if (compiled.codeBytes >= 0)
    os << "code " << compiled.codeBytes << " bytes";
  else
    os << (emitKind == Emit::C        ? "C source "
           : emitKind == Emit::LLVMIR ? "LLVM IR "
                                      : "assembly ")
       << compiled.code.size() << " bytes";
  os << ", weights " << compiled.weightsBytes << " bytes\n";
}

static mlir::LogicalResult compileAction(llvm::SourceMgr &sourceMgr,
                                         mlir::MLIRContext &ctx,
                                         llvm::raw_ostream &os) {
  std::optional<LoadedModel> loaded = loadModel(sourceMgr, 1, weightsFile, ctx, ignoreGlobs());
  if (!loaded)
    return mlir::failure();
  CompileOptions options;
  options.emit = emitKind;
  options.target = {targetTriple, targetCpu};
  options.optimize = optimizeFor;
  auto start = std::chrono::steady_clock::now();
  mlir::FailureOr<Compiled> compiled =
      compileModel(*loaded, sourceMgr, options, ctx);
  if (mlir::failed(compiled))
    return mlir::failure();
  if (outputDir.empty()) {
    os << compiled->code;
    return mlir::success();
  }
  if (std::error_code code = llvm::sys::fs::create_directories(outputDir)) {
    error("cannot create '" + outputDir + "': " + code.message());
    return mlir::failure();
  }
  llvm::SmallString<256> path(outputDir);
  llvm::sys::path::append(path, artifactName(loaded->model, emitKind));
  if (mlir::failed(writeFile(path, compiled->code)))
    return mlir::failure();
  if (!compiled->header.empty()) {
    llvm::SmallString<256> header(outputDir);
    llvm::sys::path::append(header, loaded->model.name + ".h");
    if (mlir::failed(writeFile(header, compiled->header)))
      return mlir::failure();
  }
  if (emitKind != Emit::MLIR)
    printCompileSummary(os, loaded->model, *compiled);
  auto seconds = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  llvm::errs() << llvm::format("rnnc: compiled '%s' into %s in %.2f s\n",
                               loaded->model.name.c_str(), outputDir.c_str(),
                               seconds);
  return mlir::success();
}

static mlir::LogicalResult listArraysAction(llvm::SourceMgr &sourceMgr,
                                            mlir::MLIRContext &ctx,
                                            llvm::raw_ostream &os) {
  std::optional<spec::Model> model = spec::parseModel(sourceMgr, 1, ctx);
  if (!model)
    return mlir::failure();
  printModelArrays(os, *model);
  return mlir::success();
}

static mlir::LogicalResult runAction(llvm::SourceMgr &sourceMgr,
                                     mlir::MLIRContext &ctx,
                                     llvm::raw_ostream &) {
  std::optional<LoadedModel> loaded = loadModel(sourceMgr, 1, weightsFile, ctx, ignoreGlobs());
  if (!loaded)
    return mlir::failure();
  RunOptions options;
  options.inputsPath = inputsFile;
  options.outputPath = outputsFile;
  options.path = emitPath;
  options.repeat = repeatCount;
  options.cpu = targetCpu;
  return runModel(*loaded, sourceMgr, options, ctx);
}

/// Diagnostics about files without lines (weights, npz inputs) carry line
/// 0; print them as "rnnc: error: file: message" rather than "file:0:0".
static mlir::LogicalResult printFileDiagnostic(mlir::Diagnostic &diag) {
  auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(diag.getLocation());
  if (!loc || loc.getLine() != 0)
    return mlir::failure();
  auto &os = llvm::errs();
  switch (diag.getSeverity()) {
  case mlir::DiagnosticSeverity::Error:
    llvm::WithColor::error(os, "rnnc");
    break;
  case mlir::DiagnosticSeverity::Warning:
    llvm::WithColor::warning(os, "rnnc");
    break;
  default:
    llvm::WithColor::note(os, "rnnc");
    break;
  }
  os << loc.getFilename().getValue() << ": " << diag << "\n";
  return mlir::success();
}

static SpecAction currentAction;

static mlir::LogicalResult
processBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
              llvm::raw_ostream &os) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::DialectRegistry registry;
  registerCompilerDialects(registry);
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  if (verifyDiagnostics) {
    mlir::SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &ctx);
    (void)currentAction(sourceMgr, ctx, os);
    return handler.verify();
  }
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &ctx);
  mlir::ScopedDiagnosticHandler fileHandler(&ctx, printFileDiagnostic);
  return currentAction(sourceMgr, ctx, os);
}

static int runOnSpec(SpecAction action) {
  currentAction = action;
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(specFile, &message);
  if (!file) {
    error(message);
    return 1;
  }
  mlir::LogicalResult result = mlir::splitAndProcessBuffer(
      std::move(file), processBuffer, llvm::outs(),
      splitInputFile ? llvm::StringRef(kSplitMarker) : llvm::StringRef(),
      kSplitMarker);
  return mlir::succeeded(result) ? 0 : 1;
}

/// Reads only the array headers: a file's size costs inspect nothing.
static int runInspect() {
  llvm::Expected<std::vector<WeightsEntry>> entries = listWeights(inspectFile);
  if (!entries) {
    error(llvm::toString(entries.takeError()));
    return 1;
  }
  printWeightsListing(llvm::outs(), *entries, inspectFlat);
  return 0;
}

/// Checks that the options a command needs are there.
static bool require(bool present, llvm::StringRef option,
                    llvm::StringRef command) {
  if (!present)
    error("'rnnc " + command + "' needs " + option);
  return present;
}

/// `rnnc --version`: what a bug report needs to name this build.
static void printVersion(llvm::raw_ostream &os) {
  os << "rnnc " << RNNC_VERSION << " (git " << RNNC_GIT_REVISION << ")\n"
     << "  spec format version " << RNNC_SPEC_FORMAT_VERSION << "\n"
     << "  LLVM " << LLVM_VERSION_STRING << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::SetVersionPrinter(printVersion);
  for (cl::SubCommand *command :
       {&cl::SubCommand::getTopLevel(), &checkCommand, &inspectCommand,
        &compileCommand, &runCommand})
    cl::HideUnrelatedOptions(rnncCategory, *command);
  cl::ParseCommandLineOptions(
      argc, argv,
      "rnnc: ahead-of-time compiler for Flax RNN models\n\n"
      "  rnnc check SPEC [--weights W]        validate, print a summary\n"
      "    [--quantize int8|int8-dynamic --inputs IN.npz]  and int8's deviation\n"
      "  rnnc inspect WEIGHTS [--flat]        print a weights file's params\n"
      "  rnnc compile SPEC --weights W -o DIR [--emit=obj|c|llvm|asm|mlir]\n"
      "  rnnc run SPEC --weights W --inputs IN.npz --output OUT.npz\n");
  rnnc::weights::setMaxWeightsBytes(maxWeightsBytes);
  if (checkCommand) {
    if (quantizeCheck != QuantizeCheck::None &&
        (!require(!weightsFile.empty(), "--weights", "check --quantize") ||
         !require(!inputsFile.empty(), "--inputs", "check --quantize")))
      return 1;
    return runOnSpec(checkAction);
  }
  if (inspectCommand)
    return runInspect();
  if (compileCommand) {
    if (!require(!weightsFile.empty(), "--weights", "compile") ||
        !require(!outputDir.empty() || emitKind == Emit::MLIR ||
                     emitKind == Emit::C || emitKind == Emit::LLVMIR ||
                     emitKind == Emit::Assembly,
                 "-o DIR", "compile"))
      return 1;
    return runOnSpec(compileAction);
  }
  if (runCommand && listArrays)
    return runOnSpec(listArraysAction);
  if (runCommand) {
    if (!require(!weightsFile.empty(), "--weights", "run") ||
        !require(!inputsFile.empty(), "--inputs", "run") ||
        !require(!outputsFile.empty(), "--output", "run"))
      return 1;
    return runOnSpec(runAction);
  }
  error("expected a subcommand (check, inspect, compile, run); see 'rnnc "
        "--help'");
  return 1;
}
