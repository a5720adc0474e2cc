//===- Report.h - Results of a benchmark run --------------------*- C++ -*-===//
//
// One Row per config with one ImplResult per implementation, and the three
// ways a run is reported: a Markdown table (stdout), a CSV file and a JSON
// file. Speed-ups are peer time / rnnc time (above 1: rnnc is faster) and
// are only given where both sides ran and the peer's outputs matched.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_BENCH_REPORT_H
#define RNN_BENCH_REPORT_H

#include "Machine.h"
#include "Problem.h"
#include "Timing.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rnnc::bench {

struct ImplResult {
  enum class Status {
    Skipped,     ///< not run, on purpose (see note)
    Unavailable, ///< could not run (see note)
    Failed,      ///< ran, but failed or its outputs did not match rnnc's
    Ok,
  };
  Status status = Status::Skipped;
  Stats stats;      ///< timed calls (empty: not timed)
  Check check;      ///< against rnnc's outputs (rnnc: against the reference)
  std::string note; ///< why skipped / unavailable / failed, or a remark
  /// oneDNN: the implementation it picked (what ONEDNN_VERBOSE prints).
  std::string implementation;
  int64_t timedSteps = 0; ///< rnnc: steps actually run when extrapolated
  double scale = 1;       ///< T / timedSteps: times are stats * scale
  double compileSeconds = 0;

  bool timed() const { return status == Status::Ok && !stats.empty(); }
  bool extrapolated() const { return scale != 1; }
  double median() const { return stats.median * scale; }
  double min() const { return stats.min * scale; }
  double max() const { return stats.max * scale; }
};

/// The implementations, in report order.
enum class Impl { Rnnc, OneDnn, Torch, Reference };
constexpr Impl kImpls[] = {Impl::Rnnc, Impl::OneDnn, Impl::Torch,
                           Impl::Reference};
const char *implName(Impl impl); ///< "rnnc", "oneDNN", "PyTorch", "reference"

struct Row {
  Config config;
  double flops = 0;            ///< effective FLOPs of one call
  int64_t workingSetBytes = 0; ///< recurrent weights of one direction
  double bandwidth = 0;        ///< GB/s at workingSetBytes (B = 1 only)
  double rooflineGflops = 0;   ///< B = 1 only
  std::map<Impl, ImplResult> results;
  /// Variants (Config::variant): rnnc in f32 on one core on the same
  /// problem before rounding, timed in turns with the variant, and the
  /// largest |variant - f32| over all outputs.
  ImplResult f32;
  std::optional<double> f32Deviation;
  double seconds = 0; ///< wall time spent on this config

  const ImplResult &result(Impl impl) const { return results.at(impl); }
  /// Peer median / rnnc median, if both were timed and matched.
  std::optional<double> speedup(Impl peer) const;
  /// rnnc f32 median / rnnc (variant) median.
  std::optional<double> speedupOverF32() const;
};

struct RunInfo {
  MachineInfo machine;
  std::string mode;     ///< "quick", "full", "check-only"
  std::string revision; ///< `git describe --always --dirty` of the sources
  std::string onednn;   ///< oneDNN's description
  std::string torch;    ///< the PyTorch peer's description
  std::string removedEnvironment;
  std::string pinnedCpu; ///< "" or the CPU the run was pinned to
  Policy policy;
  double atol = 0, rtol = 0;
  double reducedAtol = 0; ///< the check of peers running in bf16 or int8
  /// rnnc's bf16-compute rows against the reference.
  double bf16Atol = 0, bf16Rtol = 0, bf16MaxFirstStepDiffering = 0;
  double totalSeconds = 0;
  std::map<int64_t, double> bandwidths; ///< working set bytes -> GB/s
};

/// The Markdown report: machine, table, geometric means and notes.
void printMarkdown(llvm::raw_ostream &os, const RunInfo &info,
                   const std::vector<Row> &rows);
/// The check-only summary: one line per config and peer, no timings.
void printCheckSummary(llvm::raw_ostream &os, const RunInfo &info,
                       const std::vector<Row> &rows);
void writeCsv(llvm::raw_ostream &os, const RunInfo &info,
              const std::vector<Row> &rows);
void writeJson(llvm::raw_ostream &os, const RunInfo &info,
               const std::vector<Row> &rows);

} // namespace rnnc::bench

#endif // RNN_BENCH_REPORT_H
