//===- rnn_bench.cpp - rnnc against oneDNN and PyTorch, side by side ------===//
//
// For every config of the grid (docs: bench/README.md): generate a problem
// (spec, Flax weights, inputs), compile it with rnnc for the host CPU and
// time `<name>_run`; run oneDNN and PyTorch on the same weights and inputs,
// check their first-run outputs against rnnc's and time them the same way;
// run the reference implementation where that is cheap. Then print a
// Markdown table and write CSV and JSON files.
//
//===----------------------------------------------------------------------===//

#include "Machine.h"
#include "OneDnnPeer.h"
#include "Ours.h"
#include "Report.h"
#include "TorchPeer.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace rnnc;
using namespace rnnc::bench;
using Status = ImplResult::Status;
namespace cl = llvm::cl;

namespace {

/// The options `--help` lists (LLVM's own are linked in and hidden).
cl::OptionCategory benchCategory("rnn-bench options");

cl::opt<bool> quick("quick", cl::cat(benchCategory),
                    cl::desc("Run 6 representative configs"));
cl::opt<bool> precisionOnly(
    "precision", cl::cat(benchCategory),
    cl::desc("Run only the precision and threads set (bf16, int8, 2 cores)"));
cl::opt<bool> checkOnly(
    "check-only", cl::cat(benchCategory),
    cl::desc("Tiny configs, correctness gate only, no timing claims"));
cl::opt<std::string> csvPath("csv", cl::cat(benchCategory),
                             cl::desc("Where to write the CSV"),
                             cl::init(RNN_BENCH_DEFAULT_OUTPUT ".csv"));
cl::opt<std::string> jsonPath("json", cl::cat(benchCategory),
                              cl::desc("Where to write the JSON"),
                              cl::init(RNN_BENCH_DEFAULT_OUTPUT ".json"));
cl::opt<std::string> filter("filter", cl::cat(benchCategory),
                            cl::desc("Only configs whose id contains this"));
cl::opt<int> cpu("cpu", cl::cat(benchCategory),
                 cl::desc("Pin the run (and the peers) to this CPU"),
                 cl::init(-1));
cl::opt<double> targetSeconds(
    "target-seconds", cl::cat(benchCategory),
    cl::desc("Timed seconds per implementation and config (default 1, "
             "--quick 0.5)"),
    cl::init(0));
cl::opt<double> maxCallSeconds(
    "rnnc-max-call-seconds", cl::cat(benchCategory),
    cl::desc("Extrapolate rnnc from fewer steps when one call would take "
             "longer than this"),
    cl::init(10.0));
cl::opt<bool> noTorch("no-torch", cl::cat(benchCategory),
                      cl::desc("Leave out the PyTorch peer"));
cl::opt<bool> noOneDnn("no-onednn", cl::cat(benchCategory),
                       cl::desc("Leave out the oneDNN peer"));
cl::opt<std::string> torchScript("torch-script", cl::cat(benchCategory),
                                 cl::desc("Path of torch_peer.py"),
                                 cl::init(RNN_BENCH_SOURCE_DIR
                                          "/torch_peer.py"));
cl::opt<std::string> torchBlasDir(
    "torch-blas-dir", cl::cat(benchCategory),
    cl::desc("Directory prepended to the PyTorch peer's LD_LIBRARY_PATH"),
    cl::init(RNN_BENCH_OPENBLAS_DIR));
cl::opt<std::string> dumpProblems(
    "dump-problems", cl::cat(benchCategory),
    cl::desc("Also write each config's spec, weights and inputs to this "
             "directory, to replay its check with rnnc run"),
    cl::value_desc("dir"));
cl::opt<bool> dumpOnly(
    "dump-only", cl::cat(benchCategory),
    cl::desc("With --dump-problems: write the configs (after --filter, "
             "--quick, --precision) and time nothing"));
cl::opt<bool> injectFault(
    "inject-fault", cl::cat(benchCategory),
    cl::desc("Map two gates wrongly in both peers (tests the check)"),
    cl::Hidden);

constexpr double kAtol = 1e-3, kRtol = 1e-3;
/// Peers in bf16 or int8 round differently from rnnc (their own rounding
/// points and quantization), so they are checked to this absolute error
/// only: enough to catch a wrong weight mapping, whose errors are O(1).
constexpr double kReducedAtol = 0.1;
/// bf16 compute against the reference (docs/Semantics.md#bfloat16-compute):
/// both round where Flax does, but rnnc sums each dot in float32, in its own
/// order, where the reference sums in double; now and then a dot lands one
/// bf16 ulp away, moving one value of its step, and the recurrence carries
/// that on. So the outputs are held to a few bf16 ulps of a value near 1
/// and, since a misplaced rounding point moves many values of a step at
/// once, at the first step that differs at most this fraction may.
constexpr double kBF16Atol = 2e-2, kBF16Rtol = 2e-2,
                 kBF16MaxFirstStepDiffering = 0.01;
/// Configs above this are probed on kProbeSteps steps before rnnc runs
/// them in full; a truncated run has at least kProbeSteps steps (so the
/// recurrent weights take part in the check).
constexpr double kProbeFlops = 0.2e9;
constexpr int64_t kProbeSteps = 2;
/// The reference checks rnnc up to this many FLOPs, and is timed up to
/// kReferenceTimeFlops (it is a plain double-precision implementation).
constexpr double kReferenceCheckFlops = 0.5e9, kReferenceTimeFlops = 0.05e9;

uint32_t seedOf(const std::string &id) {
  uint32_t hash = 2166136261u;
  for (char c : id)
    hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  return hash;
}

std::vector<Config> grid() {
  auto make = [](CellType cell, int64_t h, int64_t b, int64_t t) {
    Config c;
    c.cell = cell;
    c.hidden = h;
    c.batch = b;
    c.time = t;
    return c;
  };
  std::vector<Config> configs;
  if (checkOnly) {
    configs.push_back(make(CellType::LSTM, 16, 3, 5));
    configs.push_back(make(CellType::GRU, 16, 3, 5));
    Config bi = make(CellType::LSTM, 8, 2, 4);
    bi.bidirectional = true;
    configs.push_back(bi);
    for (CellType cell : {CellType::GRU, CellType::LSTM}) {
      Config varlen = make(cell, 16, 4, 6);
      varlen.varlen = true;
      varlen.zerosPadded = cell == CellType::LSTM;
      configs.push_back(varlen);
    }
    for (Precision precision : {Precision::BF16Params, Precision::BF16,
                                Precision::Int8Weights}) {
      Config reduced = make(CellType::LSTM, 16, 3, 5);
      reduced.precision = precision;
      configs.push_back(reduced);
    }
    return configs;
  }
  // Precisions and threads: each size in every variant, each against rnnc
  // f32 on one core in the same run. B = 1: bound by streaming the
  // recurrent weights; B >= 16: by the FMA (or dot-product) units.
  std::vector<Config> variants;
  for (CellType cell : {CellType::LSTM, CellType::GRU})
    for (auto [h, b] : {std::pair<int64_t, int64_t>{256, 1},
                        {1024, 1},
                        {256, 16},
                        {1024, 16},
                        {256, 128}})
      for (Precision precision :
           {Precision::BF16Params, Precision::BF16, Precision::Int8Weights,
            Precision::Int8Dynamic, Precision::F32}) {
        Config variant = make(cell, h, b, 32);
        variant.precision = precision;
        variant.threads = precision == Precision::F32 ? 2 : 1;
        variants.push_back(variant);
        // Weights stored in fewer bits split their batch-1 gate columns
        // as f32's do: their two threads at H=1024.
        if (b == 1 && h == 1024 && (precision == Precision::BF16Params ||
                                    precision == Precision::Int8Weights ||
                                    precision == Precision::Int8Dynamic)) {
          variant.threads = 2;
          variants.push_back(variant);
        }
      }
  if (precisionOnly)
    return variants;
  if (quick) {
    configs.push_back(make(CellType::LSTM, 64, 1, 32));
    configs.push_back(make(CellType::LSTM, 256, 16, 32));
    configs.push_back(make(CellType::GRU, 1024, 1, 32));
    configs.push_back(make(CellType::GRU, 256, 128, 32));
    Config bi = make(CellType::LSTM, 256, 16, 128);
    bi.bidirectional = true;
    configs.push_back(bi);
    Config varlen = make(CellType::GRU, 256, 16, 256);
    varlen.varlen = true;
    configs.push_back(varlen);
    return configs;
  }
  for (CellType cell : {CellType::LSTM, CellType::GRU})
    for (int64_t h : {64, 256, 1024})
      for (int64_t b : {1, 16, 128})
        for (int64_t t : {32, 256})
          configs.push_back(make(cell, h, b, t));
  Config bi = make(CellType::LSTM, 256, 16, 128);
  bi.bidirectional = true;
  configs.push_back(bi);
  for (bool zeros : {false, true})
    for (CellType cell : {CellType::LSTM, CellType::GRU})
      for (int64_t b : {16, 128}) {
        Config varlen = make(cell, 256, b, 256);
        varlen.varlen = true;
        varlen.zerosPadded = zeros;
        configs.push_back(varlen);
      }
  configs.insert(configs.end(), variants.begin(), variants.end());
  return configs;
}

/// Which of a peer's positions mean the same as rnnc's.
Positions peerPositions(const Config &config, Impl peer) {
  if (!config.varlen)
    return Positions::All;
  // PyTorch pads with zeros, which is what `padded_outputs: zeros` asks
  // for; oneDNN has no lengths and computes through the padding.
  if (peer == Impl::Torch && config.zerosPadded)
    return Positions::All;
  return Positions::Valid;
}

/// A variant's rnnc run against rnnc f32 on one core: compiles the f32
/// model of `base` on the problem before rounding (cut to `ran`'s steps),
/// records how far `want` (the variant's outputs) is from its outputs, and
/// times the two in turns. False, with row.f32 failed, if the f32 model
/// does not run.
bool timeAgainstF32(Row &row, RnncModel &variant, const Problem &ran,
                    const Config &base, const Outputs &want,
                    const Policy &policy) {
  Problem unrounded = makeProblem(base, seedOf(base.id()));
  if (ran.config.time < base.time)
    unrounded = unrounded.truncated(ran.config.time);
  std::string error;
  std::unique_ptr<RnncModel> f32 = RnncModel::compile(unrounded, error);
  if (!f32 || f32->run() != 0) {
    row.f32.status = Status::Failed;
    row.f32.note = f32 ? "the f32 entry point failed" : error;
    return false;
  }
  row.f32.status = Status::Ok;
  row.f32.compileSeconds = f32->compileSeconds();
  row.f32Deviation =
      checkOutputs(ran, f32->outputs(), want, Positions::All, 1e30, 0).maxAbs;
  variant.run();
  f32->run();
  std::vector<Stats> both = measureAlternating(
      policy, true, [&] { variant.run(); }, [&] { f32->run(); });
  row.results[Impl::Rnnc].stats = both[0];
  row.f32.stats = both[1];
  return true;
}

struct Context {
  Policy policy;
  TorchPeer *torch = nullptr;
  RunInfo *info = nullptr;
};

/// Runs one peer on `checkProblem` (for the check against `want`) and, on
/// `fullProblem`, times it.
template <typename Once, typename Timed>
void runPeer(ImplResult &result, const Problem &checkProblem,
             const Outputs &want, Impl peer, bool truncated, Once once,
             Timed timed) {
  std::string error;
  Outputs got;
  if (!once(checkProblem, got, error)) {
    result.status = Status::Failed;
    result.note = error;
    return;
  }
  bool reduced = peersReduced(checkProblem.config.precision);
  result.check = checkOutputs(checkProblem, want, got,
                              peerPositions(checkProblem.config, peer),
                              reduced ? kReducedAtol : kAtol,
                              reduced ? 0 : kRtol);
  if (truncated)
    result.check.detail =
        "checked over the first " + std::to_string(checkProblem.config.time) +
        " steps" +
        (result.check.detail.empty() ? std::string()
                                     : "; " + result.check.detail);
  if (!result.check.ok) {
    result.status = Status::Failed;
    result.note = "outputs differ from rnnc's";
    return;
  }
  result.status = Status::Ok;
  if (!checkOnly && !timed(result.stats, error)) {
    result.status = Status::Failed;
    result.note = error;
  }
}

/// The one-thread f32 config a variant (precision, threads) is timed
/// against.
Config f32Of(const Config &config) {
  Config base = config;
  base.precision = Precision::F32;
  base.threads = 1;
  return base;
}

/// The config's problem: a variant takes the weights of its f32 config,
/// rounded or quantized.
Problem problemOf(const Config &config) {
  return makeProblem(config, seedOf(f32Of(config).id()));
}

Row runConfig(const Config &config, Context &context) {
  double start = now();
  Row row;
  row.config = config;
  for (Impl impl : kImpls)
    row.results[impl] = ImplResult();
  Config base = f32Of(config);
  Problem full = problemOf(config);
  if (!dumpProblems.empty())
    if (std::string error = writeProblem(full, dumpProblems); !error.empty())
      llvm::errs() << "rnn-bench: " << error << "\n";
  row.flops = full.flops();
  row.workingSetBytes = full.recurrentWeightBytes();
  ImplResult &ours = row.results[Impl::Rnnc];

  // rnnc: slow configs are probed on kProbeSteps steps first; if a call
  // over all T steps would take too long, rnnc runs (and is timed on) the
  // first `steps` steps only, reusing the probe when that is the same.
  int64_t steps = config.time;
  std::string error;
  std::unique_ptr<RnncModel> model;
  bool alternate = false; // rnnc and oneDNN timed in turns
  bool shortCall = false; // ... each turn after an untimed call
  Problem cut;
  Outputs want;
  if (!checkOnly && full.flops() > kProbeFlops && config.time > kProbeSteps) {
    cut = full.truncated(kProbeSteps);
    model = RnncModel::compile(cut, error);
    if (model && model->run() == 0) {
      want = model->outputs();
      double before = now();
      model->run();
      double perStep = (now() - before) / kProbeSteps;
      if (perStep * config.time > maxCallSeconds)
        steps = std::clamp<int64_t>(
            static_cast<int64_t>(maxCallSeconds / 4 / perStep), kProbeSteps,
            config.time);
    }
    if (steps != kProbeSteps)
      model.reset(); // failures are reported by the compilation below
  }
  if (steps < config.time && steps != kProbeSteps)
    cut = full.truncated(steps);
  const Problem &ran = steps < config.time ? cut : full;
  {
    if (!model) {
      model = RnncModel::compile(ran, error);
      if (!model) {
        ours.status = Status::Failed;
        ours.note = "compilation failed: " + error;
        row.seconds = now() - start;
        return row;
      }
      if (int32_t status = model->run()) {
        ours.status = Status::Failed;
        ours.note = "the entry point returned " + std::to_string(status);
        row.seconds = now() - start;
        return row;
      }
      want = model->outputs();
    }
    ours.compileSeconds = model->compileSeconds();
    ours.status = Status::Ok;
    // Timed all the same: a model the hook does not split must run as
    // fast as on one thread.
    if (config.threads > 1 && model->parallelTasks() < config.threads)
      ours.note = "serial: <name>_run_parallel runs this model as " +
                  std::to_string(model->parallelTasks()) +
                  " task(s) (the header's <NAME>_PARALLEL_TASKS says why)";
    if (config.variant() && !checkOnly &&
        !timeAgainstF32(row, *model, ran, base, want, context.policy)) {
      row.seconds = now() - start;
      return row;
    }
    if (steps < config.time) {
      ours.timedSteps = steps;
      ours.scale = static_cast<double>(config.time) / steps;
    }
    // rnnc is timed later, taking turns with oneDNN, unless oneDNN is not
    // timed or runs another problem (all T steps where rnnc's are cut);
    // then right after the warm-up call, before the reference runs. The
    // call that decides whether turns start warm is a second one: the
    // first pays for touching the buffers.
    if (!checkOnly) {
      double before = now();
      model->run();
      shortCall = now() - before <
                  context.policy.targetSeconds * kAlternatingCallFraction;
      alternate = steps == config.time && !noOneDnn && oneDnnAvailable() &&
                  !config.variant();
      if (!alternate && ours.stats.empty())
        ours.stats = measure(context.policy, [&] { model->run(); });
    }
    // The reference: the check of rnnc itself, and a time where cheap.
    ImplResult &ref = row.results[Impl::Reference];
    if (ran.flops() <= kReferenceCheckFlops) {
      Outputs refOut;
      if (!runReference(*model, ran, refOut, error)) {
        ref.status = Status::Failed;
        ref.note = error;
      } else {
        ours.check =
            config.precision == Precision::BF16
                ? checkOutputs(ran, refOut, want, Positions::All, kBF16Atol,
                               kBF16Rtol, kBF16MaxFirstStepDiffering)
                : checkOutputs(ran, refOut, want, Positions::All, kAtol, kRtol);
        ref.status = Status::Ok;
        if (!ours.check.ok) {
          ours.status = Status::Failed;
          ours.note = "outputs differ from the reference's";
        }
        if (!checkOnly && full.flops() <= kReferenceTimeFlops &&
            steps == config.time)
          ref.stats = measure(context.policy, [&] {
            runReference(*model, ran, refOut, error);
          });
      }
    } else {
      ref.note = "too slow to run at this size";
    }
    if (!alternate)
      model.reset();
  }

  bool truncated = steps < config.time;
  // oneDNN.
  ImplResult &onednn = row.results[Impl::OneDnn];
  if (noOneDnn) {
    onednn.note = "--no-onednn";
  } else if (!oneDnnAvailable()) {
    onednn.status = Status::Unavailable;
    onednn.note = oneDnnDescription();
  } else if (config.cell == CellType::GRU &&
             (config.precision == Precision::Int8Weights ||
              config.precision == Precision::Int8Dynamic)) {
    onednn.status = Status::Unavailable;
    onednn.note = "oneDNN 2.6 has no int8 LBR GRU";
  } else if (std::string why = oneDnnUnsupported(config); !why.empty()) {
    onednn.status = Status::Unavailable;
    onednn.note = why;
  } else {
    // The primitive of the full problem is kept from the check to the
    // timing; a truncated problem's is not.
    std::unique_ptr<OneDnnRnn> kept;
    auto once = [&](const Problem &p, Outputs &out, std::string &err) {
      auto rnn = OneDnnRnn::create(p, injectFault, err);
      if (!rnn || !rnn->run(err))
        return false;
      onednn.implementation = rnn->implementation();
      out = rnn->outputs(p);
      if (&p == &full)
        kept = std::move(rnn);
      return true;
    };
    auto timed = [&](Stats &stats, std::string &err) {
      if (!kept) {
        kept = OneDnnRnn::create(full, injectFault, err);
        if (!kept || !kept->run(err)) // warm-up
          return false;
      }
      bool ok = true;
      auto call = [&] { ok = kept->run(err) && ok; };
      if (alternate) {
        std::vector<Stats> both = measureAlternating(
            context.policy, shortCall, [&] { model->run(); }, call);
        ours.stats = both[0];
        stats = both[1];
      } else {
        stats = measure(context.policy, call);
      }
      return ok;
    };
    runPeer(onednn, ran, want, Impl::OneDnn, truncated, once, timed);
  }
  // oneDNN failed before its turns: rnnc is timed on its own.
  if (alternate && ours.stats.empty())
    ours.stats = measure(context.policy, [&] { model->run(); });
  model.reset();

  // PyTorch.
  ImplResult &torch = row.results[Impl::Torch];
  if (!context.torch) {
    torch.status = noTorch ? Status::Skipped : Status::Unavailable;
    torch.note = noTorch ? "--no-torch" : "the PyTorch peer did not start";
  } else {
    auto once = [&](const Problem &p, Outputs &out, std::string &err) {
      // The full problem is checked and timed in one request.
      return context.torch->run(p, !truncated && !checkOnly, context.policy,
                                out, torch.stats, err);
    };
    auto timed = [&](Stats &stats, std::string &err) {
      if (!truncated)
        return true; // timed with the check
      Outputs out;
      return context.torch->run(full, true, context.policy, out, stats, err);
    };
    runPeer(torch, ran, want, Impl::Torch, truncated, once, timed);
  }

  if (config.batch == 1 && !checkOnly) {
    const MachineInfo &m = context.info->machine;
    auto &cached = context.info->bandwidths[row.workingSetBytes];
    if (cached == 0)
      cached = measureReadBandwidth(row.workingSetBytes);
    row.bandwidth = cached;
    double h = config.hidden, g = config.gates();
    double inputFlops = 2 * config.time * g * h * h;
    double stepFlops = 2 * g * h * h;
    double stepSeconds = std::max(stepFlops / (m.peak() * 1e9),
                                  row.workingSetBytes / (cached * 1e9));
    double bound = (inputFlops / (m.peak() * 1e9) + config.time * stepSeconds) *
                   config.directions();
    row.rooflineGflops = row.flops / bound / 1e9;
  }
  row.seconds = now() - start;
  return row;
}

/// `git describe --always --dirty` of the source tree, or "unknown".
std::string sourceRevision() {
  std::string command =
      "git -C '" RNN_BENCH_SOURCE_DIR "' describe --always --dirty 2>/dev/null";
  std::string revision;
  if (FILE *pipe = popen(command.c_str(), "r")) {
    char buffer[128];
    while (std::fgets(buffer, sizeof(buffer), pipe))
      revision += buffer;
    pclose(pipe);
  }
  while (!revision.empty() && std::isspace(revision.back()))
    revision.pop_back();
  return revision.empty() ? "unknown" : revision;
}

/// oneDNN reads OMP_NUM_THREADS when it is loaded: make sure it is 1.
void ensureSingleThread(char **argv) {
  const char *threads = std::getenv("OMP_NUM_THREADS");
  if (threads && std::strcmp(threads, "1") == 0)
    return;
  setenv("OMP_NUM_THREADS", "1", 1);
  execv("/proc/self/exe", argv);
  llvm::errs() << "rnn-bench: cannot restart with OMP_NUM_THREADS=1\n";
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  ensureSingleThread(argv);
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(benchCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "rnn-bench: rnnc's generated code against oneDNN and PyTorch\n");
  double begin = now();
  RunInfo info;
  info.mode = checkOnly       ? "check-only"
              : quick         ? "quick"
              : precisionOnly ? "precision"
                              : "full";
  info.revision = sourceRevision();
  info.atol = kAtol;
  info.rtol = kRtol;
  info.reducedAtol = kReducedAtol;
  info.bf16Atol = kBF16Atol;
  info.bf16Rtol = kBF16Rtol;
  info.bf16MaxFirstStepDiffering = kBF16MaxFirstStepDiffering;
  Context context;
  context.info = &info;
  context.policy.targetSeconds = targetSeconds > 0 ? targetSeconds.getValue()
                                 : quick           ? 0.5
                                                   : 1.0;
  info.policy = context.policy;

  if (dumpOnly) {
    if (dumpProblems.empty()) {
      llvm::errs() << "rnn-bench: --dump-only needs --dump-problems\n";
      return 2;
    }
    for (const Config &config : grid())
      if (filter.empty() || config.id().find(filter) != std::string::npos)
        if (std::string error = writeProblem(problemOf(config), dumpProblems);
            !error.empty()) {
          llvm::errs() << "rnn-bench: " << error << "\n";
          return 1;
        }
    return 0;
  }

  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
      llvm::errs() << "rnn-bench: cannot pin to CPU " << cpu << "\n";
      return 2;
    }
    info.pinnedCpu = std::to_string(cpu);
  }
  if (!checkOnly) {
    llvm::errs() << "measuring the FMA (one and two cores), bf16 and int8 peaks...\n";
    info.machine = probeMachine();
  }
  info.onednn = noOneDnn ? "oneDNN: left out" : oneDnnDescription();

  llvm::SmallString<128> scratch;
  if (llvm::sys::fs::createUniqueDirectory("rnn-bench", scratch)) {
    llvm::errs() << "rnn-bench: cannot create a scratch directory\n";
    return 2;
  }
  std::unique_ptr<TorchPeer> torch;
  if (!noTorch) {
    std::string error;
    torch = TorchPeer::start(torchScript, torchBlasDir, scratch.str().str(),
                             injectFault, error);
    info.torch = torch ? torch->description() : "PyTorch: " + error;
    if (torch && !torch->usesOpenBlas())
      info.torch += " [WARNING: not OpenBLAS]";
    if (torch)
      info.removedEnvironment = torch->removedEnvironment();
  } else {
    info.torch = "PyTorch: left out";
  }
  context.torch = torch.get();
  llvm::errs() << info.onednn << "\n" << info.torch << "\n";

  std::vector<Row> rows;
  std::vector<Config> configs = grid();
  for (const Config &config : configs) {
    if (!filter.empty() && config.id().find(filter) == std::string::npos)
      continue;
    llvm::errs() << "[" << rows.size() + 1 << "/" << configs.size() << "] "
                 << config.id() << " ...";
    llvm::errs().flush();
    rows.push_back(runConfig(config, context));
    const Row &row = rows.back();
    for (Impl impl : kImpls) {
      const ImplResult &r = row.result(impl);
      llvm::errs() << " " << implName(impl) << " "
                   << (r.timed()
                           ? (r.extrapolated() ? "~" : "") +
                                 formatSeconds(r.median())
                           : std::string(r.status == Status::Ok       ? "ok"
                                         : r.status == Status::Failed ? "FAILED"
                                                                      : "-"));
    }
    llvm::errs() << " (" << formatSeconds(row.seconds) << ")\n";
  }
  torch.reset();
  llvm::sys::fs::remove_directories(scratch);
  info.totalSeconds = now() - begin;

  bool failed = false;
  for (const Row &row : rows)
    for (Impl impl : kImpls)
      failed |= row.result(impl).status == Status::Failed;
  if (checkOnly) {
    printCheckSummary(llvm::outs(), info, rows);
    return failed ? 1 : 0;
  }
  printMarkdown(llvm::outs(), info, rows);
  for (auto [path, write] : {std::pair{csvPath.getValue(), &writeCsv},
                             std::pair{jsonPath.getValue(), &writeJson}}) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      llvm::errs() << "rnn-bench: cannot write '" << path
                   << "': " << ec.message() << "\n";
      return 2;
    }
    write(os, info, rows);
    llvm::errs() << "wrote " << path << "\n";
  }
  return failed ? 1 : 0;
}
