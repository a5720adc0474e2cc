//===- EmitParallel.cpp - <name>_run_parallel in a model's header ---------===//
//
// <name>_run_parallel takes the arguments of <name>_run and a parallel-for
// hook (rnnrt_parallel_for, librnnrt's pool or the caller's own), so the
// caller decides how many cores a call uses while the generated code
// creates no threads and keeps no state. It is static inline C in the
// header, built on <name>_run, so both code paths share it.
//
// What it splits: the rows of one batch dim (batch-major, a static time,
// no lengths or token ids), in two parts of whole register blocks, each
// task with every array offset to its part and its own part of the
// workspace; it checks every argument first: whatever the tasks could
// reject (a NULL pointer, the workspace's alignment, the row count) makes
// it run <name>_run serially instead, which then returns the status, so no
// task can fail after another has written. The result is bit-identical:
// a row's order of summation must not depend on the rows it runs with.
//
// A run-time batch (`input.batch: [{max: N}]`), from 2 x the block's rows:
// each task runs <name>_run on its rows. Such a model is compiled without
// alternating sweeps, as a stream is (with them, a task's row blocks take
// other blocks of steps and sum some steps in the other direction).
//
// A static batch of B >= 2 x the block's rows, a multiple of them: each
// task runs an entry point compiled for its part's rows (<name>_rows<N>_run,
// from the same spec and weights, sharing the weights), with a workspace
// for those rows. The parts' scans choose their blocks of steps for B rows
// (rnn.time_block_batch), so with alternating sweeps on (<name>_run is
// compiled as without the split) a part's rows sum as the whole's do.
//
// A static batch of 1 row (splitsGateColumns): the tasks split the gate
// columns instead, each owning half the hidden units; <name>_run_parallel
// calls the hook once a step, each task running <name>_cols_step (added by
// --rnn-split-gate-columns) on its own part of the workspace, with the
// halves of h traded through a shared exchange of two rows (the hook's
// return is the barrier between one step's writes of a row and the next
// step's reads of it).
//
// Every other model gets a serial wrapper, and says why in
// <NAME>_PARALLEL_TASKS = 1.
//
//===----------------------------------------------------------------------===//

#include "rnn/ABI/EntryPointABI.h"
#include "rnn/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace rnnc;
using rnn::abi::EntryPointABI;

/// Why the spec alone rules out a row split, or empty. `blockRows` sizes
/// the smallest static batch that splits.
static std::string modelSerialReason(const spec::Model &model,
                                     int64_t blockRows) {
  if (model.batch.empty())
    return "no batch dim";
  if (model.batch.size() != 1)
    return "more than one batch dim";
  // A static batch's parts are whole register blocks, as the whole's rows
  // are: a matmul whose rows do not tile runs other code (and sums
  // otherwise).
  if (!model.hasRuntimeBatch() &&
      (model.batch[0] < 2 * blockRows || model.batch[0] % blockRows != 0))
    return "a static batch that is not 2 or more register blocks of " +
           std::to_string(blockRows) + " rows";
  if (model.timeMajor)
    return "a time-major layout (rows not contiguous)";
  if (model.runtimeTime)
    return "a run-time time";
  // Values _run_parallel does not check before the tasks run.
  if (model.seqLengths)
    return "sequence lengths";
  if (model.takesTokens())
    return "token ids";
  return "";
}

/// The hidden units from which a batch-1 step pays for a hook call a step
/// (LSTM/GRU, measured in f32 and with bf16 params, int8 weights and
/// dynamic int8; docs/Performance.md "Two cores"). Dynamic int8's step does
/// a quarter of that work (vpdpbusd: four products a lane): at H=256 it
/// takes 4 us, as f32's at H=128, and two threads ran it 1.6x in some
/// calls and 0.97x in others.
constexpr int64_t kMinColumnSplitUnits = 256;
constexpr int64_t kMinColumnSplitUnitsInt8Dynamic = 512;

static bool isBatchOne(const spec::Model &model) {
  return model.batch.size() == 1 && !model.hasRuntimeBatch() &&
         model.batch[0] == 1;
}

/// Why the spec alone rules out splitting a batch-1 model's gate columns,
/// or empty.
static std::string gateColumnsSerialReason(const spec::Model &model) {
  if (model.runtimeTime)
    return "a run-time time";
  // Values _run_parallel does not check before the tasks run.
  if (model.seqLengths)
    return "sequence lengths";
  if (model.takesTokens())
    return "token ids";
  if (model.layers.size() != 1 ||
      model.layers.front().kind != spec::Layer::Kind::RNN)
    return "batch 1 and not one RNN layer (the gate-column split runs one "
           "recurrence)";
  const spec::Layer &layer = model.layers.front();
  const spec::Cell &cell = layer.rnn.cell;
  if (cell.kind != spec::CellKind::LSTM && cell.kind != spec::CellKind::GRU)
    return "batch 1 and a cell other than LSTM or GRU";
  if (layer.rnn.reverse || layer.rnn.unroll != 1)
    return "batch 1 and a reversed or unrolled scan";
  if (layer.initialCarry != spec::InitialCarry::Zeros)
    return "batch 1 and initial carries taken";
  // bf16 params and int8 weights split as f32 does: a column's panels are
  // still a contiguous stream, widened or scaled where the column is read.
  // With dynamic int8 activations each task quantizes all of h, which it
  // holds once the halves are traded.
  if (cell.dtype == spec::ElementType::BFloat16)
    return "batch 1 and bf16 compute";
  if (cell.features < kMinColumnSplitUnits)
    return "batch 1 and H < " + std::to_string(kMinColumnSplitUnits) +
           " (a step too short to pay for a hook call)";
  if (cell.int8Activations && cell.features < kMinColumnSplitUnitsInt8Dynamic)
    return "batch 1, dynamic int8 and H < " +
           std::to_string(kMinColumnSplitUnitsInt8Dynamic) +
           " (a step too short to pay for a hook call)";
  return "";
}

bool rnnc::splitsGateColumns(const spec::Model &model) {
  return isBatchOne(model) && gateColumnsSerialReason(model).empty();
}

std::string rnnc::columnStepName(const spec::Model &model) {
  return model.name + "_cols_step";
}

bool rnnc::splitsParallelRows(const spec::Model &model) {
  return model.hasRuntimeBatch() && modelSerialReason(model, 1).empty();
}

SmallVector<int64_t, 2> rnnc::staticParallelParts(const spec::Model &model,
                                                  int64_t blockRows) {
  if (model.hasRuntimeBatch() || !modelSerialReason(model, blockRows).empty())
    return {};
  int64_t blocks = model.batch[0] / blockRows;
  int64_t first = (blocks + 1) / 2 * blockRows;
  if (first == model.batch[0] - first)
    return {first};
  return {first, model.batch[0] - first};
}

std::string rnnc::partModelName(const spec::Model &model, int64_t rows) {
  return model.name + "_rows" + std::to_string(rows);
}

namespace {

struct Param {
  std::string type;   ///< "const float *", "int32_t *", "void *"
  std::string name;   ///< the C parameter name
  int64_t rowElems = 0; ///< elements per row of batch dim 0; 0: not a row array
  bool rowCount = false;  ///< batch_0
  bool workspace = false;
};

/// Why the rows cannot be split, or empty when they can.
std::string serialReason(ModuleOp module, const EntryPointABI &entry,
                         const spec::Model &model, int64_t blockRows) {
  if (isBatchOne(model)) {
    if (std::string reason = gateColumnsSerialReason(model); !reason.empty())
      return reason;
    if (!module.lookupSymbol(columnStepName(model)))
      return "batch 1 and no column step function (none on "
             "microcontrollers; elsewhere the recurrence was not of the "
             "shape rnn-split-gate-columns splits)";
    return "";
  }
  if (std::string reason = modelSerialReason(model, blockRows);
      !reason.empty())
    return reason;
  if (!model.hasRuntimeBatch()) {
    for (int64_t rows : staticParallelParts(model, blockRows))
      if (!module.lookupSymbol(
              rnn::abi::entryPointName(partModelName(model, rows))))
        return "no entry points for the parts (none on microcontrollers: "
               "no threads, and they would double the code)";
    return "";
  }
  for (const rnn::abi::Parameter &param : entry.parameters) {
    if (param.isWorkspace() || param.role == rnn::abi::Role::BatchSize)
      continue;
    if (param.batchAxis != 0)
      return "an array without leading rows";
  }
  return "";
}

/// `fn(param)` of each of `params`, joined by ", ".
template <typename Fn>
std::string joinParams(ArrayRef<Param> params, Fn fn) {
  std::string text;
  for (auto [i, param] : llvm::enumerate(params))
    text += (i ? ", " : "") + fn(param);
  return text;
}

/// The start of <name>_run_parallel's body after its locals: anything the
/// tasks could reject (no hook, a NULL pointer, the workspace's alignment)
/// runs <name>_run serially instead, which reports it itself.
void emitSerialFallback(ArrayRef<Param> params, const std::string &prefix,
                        const std::string &serialCall, llvm::raw_ostream &os) {
  os << "  if (!fn";
  for (const Param &p : params)
    os << " || !" << p.name;
  os << " ||\n      (uintptr_t)workspace % " << prefix
     << "WORKSPACE_MIN_ALIGNMENT != 0)\n    return " << serialCall << ";\n";
}

/// The end of <name>_run_parallel's body: the two tasks on the hook, and
/// the first failure's status.
void emitTaskLaunch(const spec::Model &model, llvm::raw_ostream &os) {
  os << "  c.status[0] = c.status[1] = 0;\n"
     << "  fn(ctx, 2, " << model.name << "_parallel_task, &c);\n"
     << "  return c.status[0] != 0 ? c.status[0] : c.status[1];\n}\n\n";
}

/// `<NAME>_PARALLEL_WORKSPACE(name)`: a workspace array of
/// `<NAME>_WORKSPACE_SIZE_PARALLEL` bytes.
void emitParallelWorkspaceMacro(const std::string &prefix,
                                llvm::raw_ostream &os) {
  os << "#define " << prefix << "PARALLEL_WORKSPACE(name) "
     << rnn::abi::WorkspaceABI::cArrayDeclaration(
            prefix + "WORKSPACE_ALIGNAS", prefix + "WORKSPACE_SIZE_PARALLEL")
     << "\n";
}

/// The call struct's fields for the caller's arguments the tasks pass on
/// (all but the workspace and a run-time row count).
void emitCallArgumentFields(ArrayRef<Param> params, llvm::raw_ostream &os) {
  for (const Param &p : params)
    if (!p.rowCount && !p.workspace)
      os << "  " << p.type << p.name << ";\n";
}

/// Those arguments copied into the call `c`, and its workspace.
void emitCallArgumentCopies(ArrayRef<Param> params, llvm::raw_ostream &os) {
  for (const Param &p : params)
    if (!p.rowCount && !p.workspace)
      os << "  c." << p.name << " = " << p.name << ";\n";
  os << "  c.workspace = (char *)workspace;\n";
}

/// The bytes of `entry`'s workspace (static after rnn-assign-workspace).
int64_t workspaceBytes(const EntryPointABI &entry) {
  const rnn::abi::Parameter *workspace = entry.workspaceParameter();
  return workspace ? workspace->numElements() : 0;
}

/// A static batch of B rows: task t runs its part's entry point
/// (staticParallelParts, partModelName) on its rows, with every array
/// offset to them and a workspace sized for its rows.
llvm::Error emitStaticSplit(ModuleOp module, const EntryPointABI &entry,
                            const spec::Model &model, int64_t blockRows,
                            ArrayRef<Param> params,
                            const std::string &signature,
                            const std::string &serialCall,
                            llvm::raw_ostream &os) {
  std::string prefix = llvm::StringRef(model.name).upper() + "_";
  int64_t batch = model.batch[0];
  SmallVector<int64_t, 2> parts = staticParallelParts(model, blockRows);
  int64_t rows[2] = {parts[0], batch - parts[0]};
  SmallVector<EntryPointABI, 2> partEntries;
  for (int t = 0; t < 2; ++t) {
    std::string name = rnn::abi::entryPointName(partModelName(model, rows[t]));
    auto func = module.lookupSymbol<func::FuncOp>(name);
    FailureOr<EntryPointABI> part = failure();
    if (func)
      part = rnn::abi::describeEntryPoint(func);
    if (failed(part) || part->parameters.size() != entry.parameters.size())
      return llvm::createStringError("no part entry point '" + name + "'");
    // Every array's rows lead, as the whole's.
    for (auto [whole, partParam] :
         llvm::zip_equal(entry.parameters, part->parameters)) {
      if (whole.isWorkspace())
        continue;
      ArrayRef<int64_t> wholeShape = whole.shape, partShape = partParam.shape;
      if (wholeShape.empty() || wholeShape[0] != batch ||
          partShape.size() != wholeShape.size() ||
          partShape.drop_front() != wholeShape.drop_front() ||
          partShape[0] != rows[t])
        return llvm::createStringError("part entry point '" + name +
                                       "' does not take the whole's rows");
    }
    partEntries.push_back(std::move(*part));
  }
  std::string callType = model.name + "_parallel_call";
  os << "#define " << prefix
     << "PARALLEL_TASKS 2 /* rows split in two, each part its own entry "
        "point */\n"
     << "#define " << prefix << "PARALLEL_MIN_ROWS " << batch << "\n"
     << "/* Each task's part of the workspace, for its rows; " << model.name
     << "_run_parallel\n * may also run " << model.name
     << "_run serially on the whole. */\n"
     << "#define " << prefix << "PARALLEL_WORKSPACE_STRIDE "
     << (workspaceBytes(partEntries[0]) + 63) / 64 * 64 << "\n"
     << "#define " << prefix << "WORKSPACE_SIZE_PARALLEL "
     << std::max(workspaceBytes(entry),
                 (workspaceBytes(partEntries[0]) + 63) / 64 * 64 +
                     workspaceBytes(partEntries[1]))
     << "\n";
  emitParallelWorkspaceMacro(prefix, os);
  // The parts' entry points (for the tasks only).
  for (int64_t part : parts)
    os << "/* " << model.name << "_run on " << part << " of its " << batch
       << " rows (for " << model.name << "_run_parallel's tasks). */\n"
       << "int32_t " << partModelName(model, part) << "_run("
       << joinParams(params, [](const Param &p) { return p.type + p.name; })
       << ");\n";
  os << "typedef struct {\n";
  emitCallArgumentFields(params, os);
  os << "  char *workspace;\n  int32_t status[2];\n} " << callType << ";\n";
  std::string inlineMacro = prefix + "PARALLEL_INLINE";
  os << inlineMacro << " void " << model.name
     << "_parallel_task(void *task_ctx, int32_t task) {\n"
     << "  " << callType << " *c = (" << callType << " *)task_ctx;\n";
  for (int t = 0; t < 2; ++t) {
    os << (t ? "  else\n" : "  if (task == 0)\n") << "    c->status[" << t
       << "] = " << partModelName(model, rows[t]) << "_run(";
    for (auto [i, p] : llvm::enumerate(params)) {
      os << (i ? ",\n        " : "");
      if (p.workspace)
        os << "c->workspace" << (t ? " + " + prefix + "PARALLEL_WORKSPACE_STRIDE"
                                   : "");
      else if (t)
        os << "c->" << p.name << " + "
           << rows[0] * (entry.parameters[i].numElements() / batch);
      else
        os << "c->" << p.name;
    }
    os << ");\n";
  }
  os << "}\n";
  os << inlineMacro << " int32_t " << model.name << "_run_parallel("
     << signature << ") {\n"
     << "  " << callType << " c;\n";
  emitSerialFallback(params, prefix, serialCall, os);
  emitCallArgumentCopies(params, os);
  emitTaskLaunch(model, os);
  return llvm::Error::success();
}

/// A batch of 1 row: the gate columns in two, one hook call a step, each
/// task running <name>_cols_step on its own part of the workspace; the
/// exchange of h after both parts.
llvm::Error emitColumnSplit(ModuleOp module, const spec::Model &model,
                            ArrayRef<Param> params,
                            const std::string &signature,
                            const std::string &serialCall,
                            llvm::raw_ostream &os) {
  std::string prefix = llvm::StringRef(model.name).upper() + "_";
  std::string step = columnStepName(model);
  auto func = module.lookupSymbol<func::FuncOp>(step);
  // Its arguments: <name>_run's, with exchange, the task's row of h, task
  // and step before the workspace.
  bool hasStep = func && func.getNumArguments() == params.size() + 4 &&
                 params.back().workspace;
  MemRefType exchange =
      hasStep ? dyn_cast<MemRefType>(func.getArgumentTypes()[params.size() - 1])
              : MemRefType();
  if (!exchange || !exchange.hasStaticShape() || exchange.getRank() != 2)
    return llvm::createStringError("no column step function '" + step + "'");
  int64_t units = exchange.getShape()[1];
  std::optional<StringRef> exchangeType =
      rnn::abi::cElementTypeName(exchange.getElementType());
  if (!exchangeType)
    return llvm::createStringError("no C type for the exchange of '" + step +
                                   "'");
  // Two exchange rows, then each task's own row of h.
  int64_t exchangeBytes = 4 * units * exchange.getElementTypeBitWidth() / 8;
  // The step's own workspace (rnn-assign-workspace's static size): that of
  // <name>_run, or of the function built for the split (rnn.column_split),
  // which WORKSPACE_SIZE leaves out.
  auto stepWorkspace =
      dyn_cast<MemRefType>(func.getArgumentTypes()[params.size() + 3]);
  if (!stepWorkspace || !stepWorkspace.hasStaticShape())
    return llvm::createStringError("no static workspace in '" + step + "'");
  int64_t stride = (stepWorkspace.getNumElements() + 63) / 64 * 64;
  std::string callType = model.name + "_parallel_call";
  std::string inlineMacro = prefix + "PARALLEL_INLINE";
  os << "#define " << prefix
     << "PARALLEL_TASKS 2 /* batch 1: the gate columns split in two, a hook "
        "call a step */\n"
     << "#define " << prefix << "PARALLEL_MIN_ROWS 1\n"
     << "/* Each task's part of the workspace, then the exchange of h (two "
        "rows) and\n * each task's own row of h; " << model.name
     << "_run_parallel\n * may also run " << model.name
     << "_run serially on the whole. */\n"
     << "#define " << prefix << "PARALLEL_WORKSPACE_STRIDE " << stride
     << "\n"
     << "#define " << prefix << "WORKSPACE_SIZE_PARALLEL (2 * " << prefix
     << "PARALLEL_WORKSPACE_STRIDE + " << exchangeBytes << ")\n";
  emitParallelWorkspaceMacro(prefix, os);
  os << "/* Step `step` of task `task`'s units (for " << model.name
     << "_run_parallel's tasks). */\n"
     << "int32_t " << step << "(";
  for (const Param &p : params) {
    if (p.workspace)
      os << *exchangeType << " *exchange, " << *exchangeType
         << " *hidden, int32_t task, int32_t step, ";
    os << p.type << p.name << (p.workspace ? ");\n" : ", ");
  }
  os << "typedef struct {\n";
  emitCallArgumentFields(params, os);
  os << "  char *workspace;\n  " << *exchangeType
     << " *exchange;\n  int32_t step;\n"
     << "  int32_t status[2];\n} " << callType << ";\n";
  os << inlineMacro << " void " << model.name
     << "_parallel_task(void *task_ctx, int32_t task) {\n"
     << "  " << callType << " *c = (" << callType << " *)task_ctx;\n"
     << "  int32_t status = " << step << "(";
  for (const Param &p : params) {
    if (!p.workspace) {
      os << "c->" << p.name << ",\n      ";
      continue;
    }
    os << "c->exchange, c->exchange + (2 + task) * " << units
       << ", task, c->step,\n      c->workspace + (int64_t)task * " << prefix
       << "PARALLEL_WORKSPACE_STRIDE);\n";
  }
  os << "  if (status != 0)\n    c->status[task] = status;\n}\n";
  os << inlineMacro << " int32_t " << model.name << "_run_parallel("
     << signature << ") {\n"
     << "  " << callType << " c;\n  int32_t step;\n";
  emitSerialFallback(params, prefix, serialCall, os);
  emitCallArgumentCopies(params, os);
  os << "  c.exchange = (" << *exchangeType
     << " *)(void *)(c.workspace + 2 * " << prefix
     << "PARALLEL_WORKSPACE_STRIDE);\n"
     << "  c.status[0] = c.status[1] = 0;\n"
     << "  for (step = 0; step < " << model.time
     << " && c.status[0] == 0 && c.status[1] == 0; ++step) {\n"
     << "    c.step = step;\n"
     << "    fn(ctx, 2, " << model.name << "_parallel_task, &c);\n  }\n"
     << "  return c.status[0] != 0 ? c.status[0] : c.status[1];\n}\n\n";
  return llvm::Error::success();
}

} // namespace

llvm::Error rnnc::emitParallelDeclarations(ModuleOp module,
                                           const EntryPointABI &entry,
                                           const spec::Model &model,
                                           int64_t blockRows,
                                           llvm::raw_ostream &os) {
  std::string prefix = rnn::abi::macroPrefix(model.name);
  std::string run = entry.name;
  SmallVector<Param> params;
  for (const rnn::abi::Parameter &abiParam : entry.parameters) {
    if (!abiParam.isNamed())
      return llvm::createStringError("entry point argument without a name");
    FailureOr<std::string> type = abiParam.cPointerType();
    if (failed(type))
      return llvm::createStringError("no C type for '" + abiParam.key + "'");
    Param param;
    param.type = *type;
    param.name = abiParam.cName;
    param.workspace = abiParam.isWorkspace();
    param.rowCount = abiParam.batchSizeOf == 0;
    if (abiParam.batchAxis && !abiParam.shape.empty())
      param.rowElems = abiParam.numElements() / abiParam.shape[0];
    params.push_back(param);
  }
  auto join = [&](auto fn) { return joinParams(params, fn); };
  std::string signature =
      join([](const Param &p) { return p.type + p.name; }) +
      ",\n    rnnrt_parallel_for fn, void *ctx";
  std::string serialCall =
      run + "(" + join([](const Param &p) { return p.name; }) + ")";
  std::string reason = serialReason(module, entry, model, blockRows);
  std::string inlineMacro = prefix + "PARALLEL_INLINE";

  os << "/* Parallel runs: " << run << "_parallel is " << run
     << " with a parallel-for hook,\n"
     << " * e.g. librnnrt's pool (rnnrt.h):\n"
     << " *   rnnrt_pool *pool = rnnrt_pool_init(malloc(rnnrt_pool_size(2)), 2);\n"
     << " *   " << run << "_parallel(<" << run
     << "'s arguments>, rnnrt_pool_parallel_for, pool);\n"
     << " * It returns what " << run
     << " returns, bit for bit, and fn == NULL runs serially.\n"
     << " * The workspace must hold " << prefix
     << "WORKSPACE_SIZE_PARALLEL bytes. */\n"
     << "#ifndef RNNRT_PARALLEL_TYPES\n#define RNNRT_PARALLEL_TYPES\n"
     << "typedef void (*rnnrt_task_fn)(void *task_ctx, int32_t task);\n"
     << "typedef void (*rnnrt_parallel_for)(void *ctx, int32_t num_tasks,\n"
     << "                                   rnnrt_task_fn task, void "
        "*task_ctx);\n#endif\n"
     // Not a warning in a file that includes the header and calls neither.
     << "#if defined(__GNUC__) || defined(__clang__)\n"
     << "#define " << inlineMacro
     << " static inline __attribute__((unused))\n#else\n"
     << "#define " << inlineMacro << " static inline\n#endif\n";

  if (!reason.empty()) {
    os << "#define " << prefix << "PARALLEL_TASKS 1 /* serial: " << reason
       << " */\n"
       << "#define " << prefix << "WORKSPACE_SIZE_PARALLEL " << prefix
       << "WORKSPACE_SIZE\n"
       << "#define " << prefix << "PARALLEL_WORKSPACE(name) " << prefix
       << "WORKSPACE(name)\n"
       << inlineMacro << " int32_t " << run << "_parallel(" << signature
       << ") {\n"
       << "  (void)fn;\n  (void)ctx;\n  return " << serialCall << ";\n}\n\n";
    return llvm::Error::success();
  }

  if (isBatchOne(model))
    return emitColumnSplit(module, model, params, signature, serialCall, os);
  if (!model.hasRuntimeBatch())
    return emitStaticSplit(module, entry, model, blockRows, params, signature,
                           serialCall, os);

  std::string callType = model.name + "_parallel_call";
  os << "#define " << prefix << "PARALLEL_TASKS 2 /* rows split in two */\n"
     << "/* Rows from which a call splits (2 x the register block's rows;\n"
     << " * below it " << run << "_parallel runs serially). */\n"
     << "#define " << prefix << "PARALLEL_MIN_ROWS " << 2 * blockRows << "\n"
     << "/* A task's part of the workspace, and the whole. */\n"
     << "#define " << prefix << "PARALLEL_WORKSPACE_STRIDE ((" << prefix
     << "WORKSPACE_SIZE + 63) / 64 * 64)\n"
     << "#define " << prefix << "WORKSPACE_SIZE_PARALLEL (" << prefix
     << "PARALLEL_TASKS * " << prefix << "PARALLEL_WORKSPACE_STRIDE)\n";
  emitParallelWorkspaceMacro(prefix, os);

  // The call's arguments, each task's rows and its status.
  os << "typedef struct {\n";
  emitCallArgumentFields(params, os);
  os << "  char *workspace;\n"
     << "  int32_t first[2], rows[2], status[2];\n"
     << "} " << callType << ";\n";

  os << inlineMacro << " void " << model.name
     << "_parallel_task(void *task_ctx, int32_t task) {\n"
     << "  " << callType << " *c = (" << callType << " *)task_ctx;\n"
     << "  int64_t r = c->first[task];\n"
     << "  c->status[task] = " << run << "(";
  for (auto [i, p] : llvm::enumerate(params)) {
    os << (i ? ",\n      " : "");
    if (p.rowCount)
      os << "&c->rows[task]";
    else if (p.workspace)
      os << "c->workspace + (int64_t)task * " << prefix
         << "PARALLEL_WORKSPACE_STRIDE";
    else
      os << "c->" << p.name << " + r * " << p.rowElems;
  }
  os << ");\n}\n";

  os << inlineMacro << " int32_t " << run << "_parallel(" << signature
     << ") {\n"
     << "  " << callType << " c;\n  int32_t rows;\n";
  emitSerialFallback(params, prefix, serialCall, os);
  os << "  rows = *batch_0;\n"
     << "  if (rows < " << prefix << "PARALLEL_MIN_ROWS || rows > " << prefix
     << "BATCH_DIM_0)\n    return " << serialCall << ";\n";
  emitCallArgumentCopies(params, os);
  // Parts of whole register blocks, as even as that allows.
  os << "  c.first[0] = 0;\n"
     << "  c.rows[0] = (rows + " << blockRows << ") / " << 2 * blockRows
     << " * " << blockRows << ";\n"
     << "  c.first[1] = c.rows[0];\n"
     << "  c.rows[1] = rows - c.rows[0];\n";
  emitTaskLaunch(model, os);
  return llvm::Error::success();
}
