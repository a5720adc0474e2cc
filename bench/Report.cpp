//===- Report.cpp - Results of a benchmark run ----------------------------===//

#include "Report.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace rnnc::bench;
using Status = ImplResult::Status;

const char *rnnc::bench::implName(Impl impl) {
  switch (impl) {
  case Impl::Rnnc:
    return "rnnc";
  case Impl::OneDnn:
    return "oneDNN";
  case Impl::Torch:
    return "PyTorch";
  case Impl::Reference:
    return "reference";
  }
  return "?";
}

std::optional<double> Row::speedup(Impl peer) const {
  const ImplResult &ours = result(Impl::Rnnc), &theirs = result(peer);
  if (!ours.timed() || !theirs.timed() || ours.median() <= 0)
    return std::nullopt;
  return theirs.median() / ours.median();
}

std::optional<double> Row::speedupOverF32() const {
  const ImplResult &ours = result(Impl::Rnnc);
  if (!ours.timed() || !f32.timed() || ours.median() <= 0)
    return std::nullopt;
  return f32.median() / ours.median();
}

namespace {

const char *statusName(Status status) {
  switch (status) {
  case Status::Skipped:
    return "skipped";
  case Status::Unavailable:
    return "unavailable";
  case Status::Failed:
    return "FAILED";
  case Status::Ok:
    return "ok";
  }
  return "?";
}

std::string format(const char *fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), fmt, value);
  return buffer;
}

double gflops(const Row &row, const ImplResult &result) {
  return row.flops / result.median() / 1e9;
}

/// "1.23 ms (1.20-1.35)", "~12.3 s (11.9-13.0) *", "skipped", ...
std::string timeCell(const Row &row, Impl impl, const Policy &policy) {
  const ImplResult &r = row.result(impl);
  if (!r.timed())
    return r.status == Status::Ok ? "check only" : statusName(r.status);
  std::string cell = (r.extrapolated() ? "~" : "") + formatSeconds(r.median()) +
                     " (" + formatSeconds(r.min()) + "-" +
                     formatSeconds(r.max()) + ")";
  if (r.extrapolated())
    cell += " *";
  if (r.stats.reps() < policy.normalReps)
    cell += " n=" + std::to_string(r.stats.reps());
  return cell;
}

std::string rateCell(const Row &row, Impl impl, double peak) {
  const ImplResult &r = row.result(impl);
  if (!r.timed())
    return "";
  double rate = gflops(row, r);
  return format(rate >= 10 ? "%.1f" : "%.2f", rate) +
         (peak > 0 ? " (" + format("%.1f", 100 * rate / peak) + "%)" : "");
}

std::string checkCell(const ImplResult &r) {
  if (!r.check.ran)
    return "-";
  return (r.check.ok ? "" : "FAILED ") + format("%.1e", r.check.maxAbs);
}

/// Geometric mean of the speed-ups over `peer`; `measuredOnly` leaves out
/// rows whose rnnc time was extrapolated.
std::pair<double, int> geomean(const std::vector<Row> &rows, Impl peer,
                               bool measuredOnly) {
  double logSum = 0;
  int count = 0;
  for (const Row &row : rows) {
    auto speedup = row.speedup(peer);
    if (row.config.variant() || !speedup ||
        (measuredOnly && row.result(Impl::Rnnc).extrapolated()))
      continue;
    logSum += std::log(*speedup);
    ++count;
  }
  return {count ? std::exp(logSum / count) : 0, count};
}

std::string label(const Config &c) {
  return c.kind() + " H=" + std::to_string(c.hidden) +
         " B=" + std::to_string(c.batch) + " T=" + std::to_string(c.time);
}

std::string ratio(std::optional<double> value) {
  return value ? format(*value >= 0.1 ? "%.2fx" : "%.3fx", *value) : "-";
}

/// What the peers of a variant row ran.
std::string peerPrecision(const Config &c) {
  switch (c.precision) {
  case Precision::BF16:
    return "bf16";
  case Precision::Int8Weights:
  case Precision::Int8Dynamic:
    return "int8";
  default:
    return c.threads == 1 ? "f32 (rounded weights)"
                          : "f32, " + std::to_string(c.threads) + " threads";
  }
}

/// The precision and threads table: every variant against rnnc f32 on one
/// core and against its peers, and geometric means per variant kind.
void printVariants(llvm::raw_ostream &os, const RunInfo &info,
                   const std::vector<Row> &rows) {
  bool any = false;
  for (const Row &row : rows)
    any |= row.config.variant();
  if (!any)
    return;
  os << "\n### Precisions and threads\n\n"
        "Each variant (`bf16p`: `param_dtype: bfloat16`; `bf16`: "
        "`dtype: bfloat16` too; `int8w`: int8 weights, f32 maths; `int8d`: "
        "int8 weights and activations; `2T`: two cores) is timed in turns "
        "with rnnc f32 on one core on the same problem; `dev f32` is its "
        "largest deviation from rnnc f32 over all outputs. The peers run in "
        "the precision named (bf16/int8 peers are checked to |err| <= "
     << format("%.0e", info.reducedAtol)
     << "); `max err` is theirs from rnnc's variant. rnnc's `bf16` rows "
        "are checked against the reference to |err| <= "
     << format("%.0e", info.bf16Atol) << " + "
     << format("%.0e", info.bf16Rtol) << " |ref|, and at the first step "
        "that differs at most "
     << format("%.0f", 100 * info.bf16MaxFirstStepDiffering)
     << "% of its values may (docs/Semantics.md#bfloat16-compute).\n\n";
  os << "| config | rnnc | rnnc f32 1T | vs rnnc f32 | dev f32 | peers | "
        "oneDNN | oneDNN impl | vs oneDNN | PyTorch | vs PyTorch | max err "
        "oneDNN / PyTorch |\n";
  os << "|---|---|---|---:|---:|---|---|---|---:|---|---:|---|\n";
  for (const Row &row : rows) {
    if (!row.config.variant())
      continue;
    Row f32Row = row; // timeCell reads the Rnnc slot
    f32Row.results[Impl::Rnnc] = row.f32;
    os << "| " << label(row.config) << " | "
       << timeCell(row, Impl::Rnnc, info.policy) << " | "
       << timeCell(f32Row, Impl::Rnnc, info.policy) << " | "
       << ratio(row.speedupOverF32()) << " | "
       << (row.f32Deviation ? format("%.1e", *row.f32Deviation) : "-")
       << " | " << peerPrecision(row.config) << " | "
       << timeCell(row, Impl::OneDnn, info.policy) << " | "
       << row.result(Impl::OneDnn).implementation << " | "
       << ratio(row.speedup(Impl::OneDnn)) << " | "
       << timeCell(row, Impl::Torch, info.policy) << " | "
       << ratio(row.speedup(Impl::Torch)) << " | "
       << checkCell(row.result(Impl::OneDnn)) << " / "
       << checkCell(row.result(Impl::Torch)) << " |\n";
  }
  // Geometric means per variant kind, at batch 1 and batched.
  os << "\n**Geometric means per variant** (B=1 | B>=16):\n\n";
  std::map<std::string, std::vector<const Row *>> kinds;
  for (const Row &row : rows)
    if (row.config.variant()) {
      std::string kind = row.config.kind();
      kinds[kind.substr(kind.find(' ') + 1)].push_back(&row);
    }
  for (const auto &entry : kinds) {
    const std::vector<const Row *> &members = entry.second;
    os << "- " << entry.first << ":";
    for (bool batched : {false, true}) {
      auto mean = [&](auto speedupOf) {
        double logSum = 0;
        int count = 0;
        for (const Row *row : members)
          if ((row->config.batch > 1) == batched)
            if (std::optional<double> s = speedupOf(*row)) {
              logSum += std::log(*s);
              ++count;
            }
        return count ? format("%.2fx", std::exp(logSum / count)) + " (" +
                           std::to_string(count) + ")"
                     : std::string("-");
      };
      os << (batched ? " | B>=16:" : " B=1:") << " vs rnnc f32 "
         << mean([](const Row &r) { return r.speedupOverF32(); })
         << ", vs oneDNN "
         << mean([](const Row &r) { return r.speedup(Impl::OneDnn); })
         << ", vs PyTorch "
         << mean([](const Row &r) { return r.speedup(Impl::Torch); });
    }
    const MachineInfo &m = info.machine;
    if (members.front()->config.threads > 1 && m.peakTwoCores > 0 &&
        m.peak() > 0)
      os << " (the FMA peak on two threads: "
         << format("%.2fx", m.peakTwoCores / m.peak()) << " one core's)";
    os << "\n";
  }
}

} // namespace

void rnnc::bench::printMarkdown(llvm::raw_ostream &os, const RunInfo &info,
                                const std::vector<Row> &rows) {
  const MachineInfo &m = info.machine;
  double peak = m.peak();
  os << "## rnn-bench (" << info.mode << ")\n\n";
  os << "- rnnc: sources at " << info.revision << "\n";
  os << "- CPU: " << m.cpuModel << (m.avx512 ? ", AVX-512" : "")
     << (m.avx2 ? ", AVX2+FMA" : "") << "; load average at start "
     << format("%.2f", m.loadAverage)
     << (info.pinnedCpu.empty() ? "; not pinned"
                                : "; pinned to CPU " + info.pinnedCpu)
     << "\n";
  os << "- FP32 FMA peak, one core (measured, best of 7): AVX-512 "
     << format("%.1f", m.peakAvx512) << " GFLOP/s, AVX2 "
     << format("%.1f", m.peakAvx2) << " GFLOP/s; % peak uses "
     << format("%.1f", peak) << "\n";
  if (m.peakTwoCores > 0)
    os << "- FP32 FMA peak, two threads at once (best of 7): "
       << format("%.1f", m.peakTwoCores) << " GFLOP/s ("
       << format("%.2f", peak > 0 ? m.peakTwoCores / peak : 0)
       << "x one core): the ceiling of `2T`'s speed-up\n";
  if (m.matmulKernelAvx512 > 0)
    os << "- Matmul kernel on cached operands (rnnc's 4x64 AVX-512 register "
          "block, loads included; best of 7): "
       << format("%.1f", m.matmulKernelAvx512) << " GFLOP/s ("
       << format("%.1f", 100 * m.matmulKernelAvx512 / peak)
       << "% of peak): what any matmul here can reach\n";
  if (!info.bandwidths.empty()) {
    os << "- Read bandwidth, one core (best of 7):";
    for (auto [bytes, gbs] : info.bandwidths)
      os << " " << format("%.0f", bytes / 1024.0) << " KiB "
         << format("%.1f", gbs) << " GB/s;";
    os << "\n";
  }
  if (m.peakBF16 > 0 || m.peakInt8 > 0 || m.peakInt16Pairs > 0) {
    auto ratio = [&](double gops) {
      return format("%.2f", peak > 0 ? gops / peak : 0);
    };
    os << "- Dot-product peaks, one core (measured like the FMA peak): ";
    if (m.peakBF16 > 0)
      os << "vdpbf16ps " << format("%.1f", m.peakBF16) << " GFLOP/s ("
         << ratio(m.peakBF16) << "x FMA)";
    else
      os << "no vdpbf16ps (bf16 runs on the FMAs)";
    if (m.peakInt8 > 0)
      os << ", vpdpbusd " << format("%.1f", m.peakInt8) << " Gop/s ("
         << ratio(m.peakInt8) << "x FMA)";
    if (m.peakInt16Pairs > 0)
      os << ", no vpdpbusd; vpmaddwd " << format("%.1f", m.peakInt16Pairs)
         << " Gop/s (" << ratio(m.peakInt16Pairs) << "x FMA)";
    os << "\n";
  }
  os << "- Peers: " << info.onednn << "; " << info.torch << "\n";
  if (!info.removedEnvironment.empty())
    os << "- Removed for the PyTorch peer: " << info.removedEnvironment << "\n";
  os << "- Timing: first call = warm-up and correctness check; then >= "
     << info.policy.minReps
     << " timed calls and >= " << format("%.2f", info.policy.targetSeconds)
     << " s (rnnc and oneDNN in " << kAlternatingRounds
     << " alternating rounds where both run all T steps); median (min-max). "
        "Check: |peer - rnnc| <= "
     << format("%.0e", info.atol) << " + " << format("%.0e", info.rtol)
     << " |rnnc|\n\n";

  os << "| config | GFLOP | rnnc | rnnc GF/s (%pk) | oneDNN | oneDNN GF/s "
        "(%pk) | PyTorch | PyTorch GF/s (%pk) | reference | roofline GF/s "
        "(%pk) | vs oneDNN | vs PyTorch | max err oneDNN / PyTorch / ref |\n";
  os << "|---|---:|---|---:|---|---:|---|---:|---|---:|---:|---:|---|\n";
  for (const Row &row : rows) {
    if (row.config.variant())
      continue;
    auto speedup = [&](Impl peer) {
      auto s = row.speedup(peer);
      return s ? format(*s >= 0.1 ? "%.2fx" : "%.3fx", *s) : std::string("-");
    };
    std::string roof =
        row.rooflineGflops > 0
            ? format("%.1f", row.rooflineGflops) + " (" +
                  format("%.1f", 100 * row.rooflineGflops / peak) + "%)"
            : "";
    os << "| " << label(row.config) << " | " << format("%.3g", row.flops / 1e9)
       << " | " << timeCell(row, Impl::Rnnc, info.policy) << " | "
       << rateCell(row, Impl::Rnnc, peak) << " | "
       << timeCell(row, Impl::OneDnn, info.policy) << " | "
       << rateCell(row, Impl::OneDnn, peak) << " | "
       << timeCell(row, Impl::Torch, info.policy) << " | "
       << rateCell(row, Impl::Torch, peak) << " | "
       << timeCell(row, Impl::Reference, info.policy) << " | " << roof << " | "
       << speedup(Impl::OneDnn) << " | " << speedup(Impl::Torch) << " | "
       << checkCell(row.result(Impl::OneDnn)) << " / "
       << checkCell(row.result(Impl::Torch)) << " / "
       << checkCell(row.result(Impl::Rnnc)) << " |\n";
  }
  os << "\n**rnnc speed-up, geometric mean** (peer time / rnnc time; > 1 = "
        "rnnc faster):\n\n";
  for (Impl peer : {Impl::OneDnn, Impl::Torch}) {
    auto [all, n] = geomean(rows, peer, false);
    auto [measured, k] = geomean(rows, peer, true);
    os << "- vs " << implName(peer) << ": " << format("%.4g", all) << "x over "
       << n << " configs; " << format("%.4g", measured) << "x over the " << k
       << " configs whose rnnc time was measured, not extrapolated\n";
  }
  printVariants(os, info, rows);
  os << "\nNotes:\n\n- `*`: rnnc's time is extrapolated: a call over all T "
        "steps would exceed the time budget, so a call over the first "
        "T' steps (same weights, same B and H) was timed and scaled by "
        "T/T'. Its outputs over those steps were checked against the "
        "peers run on the same truncated problem.\n"
        "- `n=k`: fewer than "
     << info.policy.normalReps << " timed calls (slow calls; at least "
     << info.policy.minReps << ").\n";
  os << "- Variable lengths: PyTorch pads with zeros, so it is compared at "
        "valid positions (everywhere for `varlen zeros`); oneDNN 2.6 has no "
        "lengths and runs the padded batch: valid positions of y and h "
        "(read from y at the last valid step) are compared, c is not.\n";
  for (const Row &row : rows) {
    const ImplResult &ours = row.result(Impl::Rnnc);
    if (ours.extrapolated())
      os << "- " << label(row.config)
         << ": rnnc timed over T'=" << ours.timedSteps << " steps and scaled x"
         << format("%.4g", ours.scale)
         << "; the peers were checked against rnnc over those steps\n";
    for (Impl impl : kImpls) {
      const ImplResult &r = row.result(impl);
      if (r.status == Status::Failed || r.status == Status::Unavailable ||
          (impl == Impl::Rnnc && !r.note.empty()))
        os << "- " << label(row.config) << ": " << implName(impl)
           << (r.status == Status::Ok ? "" : std::string(" ") + statusName(r.status))
           << (r.note.empty() ? "" : ": " + r.note)
           << (r.check.detail.empty() ? "" : " [" + r.check.detail + "]")
           << "\n";
    }
  }
  os << "\nTotal wall time: " << format("%.0f", info.totalSeconds) << " s\n";
}

void rnnc::bench::printCheckSummary(llvm::raw_ostream &os, const RunInfo &info,
                                    const std::vector<Row> &rows) {
  os << "peers: " << info.onednn << "; " << info.torch << "\n";
  int failed = 0, checks = 0;
  for (const Row &row : rows)
    for (Impl impl : kImpls) {
      const ImplResult &r = row.result(impl);
      const char *against = impl == Impl::Rnnc ? "reference" : "rnnc";
      os << row.config.id() << " " << implName(impl) << ": "
         << statusName(r.status);
      if (r.check.ran) {
        ++checks;
        os << " vs " << against << " max abs err "
           << format("%.2e", r.check.maxAbs) << " over " << r.check.compared
           << " values";
        if (r.check.maxFirstStepDiffering < 1)
          os << ", " << r.check.differing << " differ";
      }
      if (!r.check.detail.empty())
        os << " [" << r.check.detail << "]";
      if (!r.note.empty())
        os << " (" << r.note << ")";
      os << "\n";
      if (r.status == Status::Failed)
        ++failed;
    }
  os << "check-only: " << rows.size() << " configs, " << checks
     << " comparisons, " << failed << " failed\n";
}

void rnnc::bench::writeCsv(llvm::raw_ostream &os, const RunInfo &info,
                           const std::vector<Row> &rows) {
  os << "config,cell,bidirectional,varlen,padded_zeros,precision,threads,H,B,"
        "T,gflop,"
        "working_set_bytes,bandwidth_gbs,roofline_gflops";
  for (Impl impl : kImpls) {
    std::string n = implName(impl);
    os << "," << n << "_status," << n << "_median_s," << n << "_min_s," << n
       << "_max_s," << n << "_reps," << n << "_gflops," << n << "_pct_peak,"
       << n << "_timed_steps," << n << "_max_abs_err";
  }
  os << ",speedup_vs_oneDNN,speedup_vs_PyTorch,rnnc_compile_s,"
        "rnnc_f32_median_s,speedup_vs_rnnc_f32,deviation_from_f32,"
        "oneDNN_impl\n";
  double peak = info.machine.peak();
  for (const Row &row : rows) {
    const Config &c = row.config;
    os << c.id() << "," << (c.cell == CellType::LSTM ? "lstm" : "gru") << ","
       << c.bidirectional << "," << c.varlen << "," << c.zerosPadded << ","
       << precisionName(c.precision) << "," << c.threads << "," << c.hidden << "," << c.batch << "," << c.time << ","
       << format("%.6g", row.flops / 1e9) << "," << row.workingSetBytes << ","
       << format("%.4g", row.bandwidth) << ","
       << format("%.4g", row.rooflineGflops);
    for (Impl impl : kImpls) {
      const ImplResult &r = row.result(impl);
      os << "," << statusName(r.status);
      if (r.timed())
        os << "," << format("%.6g", r.median()) << ","
           << format("%.6g", r.min()) << "," << format("%.6g", r.max()) << ","
           << r.stats.reps() << "," << format("%.4g", gflops(row, r)) << ","
           << format("%.4g", peak > 0 ? 100 * gflops(row, r) / peak : 0);
      else
        os << ",,,,,,";
      os << "," << (r.extrapolated() ? std::to_string(r.timedSteps) : "") << ","
         << (r.check.ran ? format("%.3g", r.check.maxAbs) : "");
    }
    for (Impl peer : {Impl::OneDnn, Impl::Torch}) {
      auto s = row.speedup(peer);
      os << "," << (s ? format("%.4g", *s) : "");
    }
    os << "," << format("%.3g", row.result(Impl::Rnnc).compileSeconds) << ","
       << (row.f32.timed() ? format("%.6g", row.f32.median()) : "") << ","
       << (row.speedupOverF32() ? format("%.4g", *row.speedupOverF32()) : "")
       << ","
       << (row.f32Deviation ? format("%.3g", *row.f32Deviation) : "") << ","
       << row.result(Impl::OneDnn).implementation << "\n";
  }
}

void rnnc::bench::writeJson(llvm::raw_ostream &os, const RunInfo &info,
                            const std::vector<Row> &rows) {
  llvm::json::OStream j(os, 1);
  const MachineInfo &m = info.machine;
  j.object([&] {
    j.attribute("mode", info.mode);
    j.attribute("revision", info.revision);
    j.attributeObject("machine", [&] {
      j.attribute("cpu", m.cpuModel);
      j.attribute("avx512", m.avx512);
      j.attribute("peak_avx512_gflops", m.peakAvx512);
      j.attribute("peak_avx2_gflops", m.peakAvx2);
      j.attribute("peak_gflops", m.peak());
      j.attribute("peak_bf16_gflops", m.peakBF16);
      j.attribute("peak_int8_gops", m.peakInt8);
      j.attribute("peak_int16_pairs_gops", m.peakInt16Pairs);
      j.attribute("peak_two_cores_gflops", m.peakTwoCores);
      j.attribute("matmul_kernel_avx512_gflops", m.matmulKernelAvx512);
      j.attribute("load_average", m.loadAverage);
      j.attribute("pinned_cpu", info.pinnedCpu);
      j.attributeArray("read_bandwidth", [&] {
        for (const auto &entry : info.bandwidths)
          j.object([&] {
            j.attribute("bytes", entry.first);
            j.attribute("gbs", entry.second);
          });
      });
    });
    j.attribute("onednn", info.onednn);
    j.attribute("torch", info.torch);
    j.attribute("removed_environment", info.removedEnvironment);
    j.attributeObject("policy", [&] {
      j.attribute("target_seconds", info.policy.targetSeconds);
      j.attribute("min_reps", info.policy.minReps);
      j.attribute("max_reps", info.policy.maxReps);
      j.attribute("atol", info.atol);
      j.attribute("rtol", info.rtol);
      j.attribute("bf16_atol", info.bf16Atol);
      j.attribute("bf16_rtol", info.bf16Rtol);
      j.attribute("bf16_max_first_step_differing",
                  info.bf16MaxFirstStepDiffering);
    });
    j.attribute("total_seconds", info.totalSeconds);
    j.attributeArray("rows", [&] {
      for (const Row &row : rows)
        j.object([&] {
          const Config &c = row.config;
          j.attribute("config", c.id());
          j.attribute("cell", c.cell == CellType::LSTM ? "lstm" : "gru");
          j.attribute("bidirectional", c.bidirectional);
          j.attribute("varlen", c.varlen);
          j.attribute("padded_zeros", c.zerosPadded);
          j.attribute("precision", precisionName(c.precision));
          j.attribute("threads", c.threads);
          if (row.f32.timed())
            j.attribute("rnnc_f32_median_s", row.f32.median());
          if (auto s = row.speedupOverF32())
            j.attribute("speedup_vs_rnnc_f32", *s);
          if (row.f32Deviation)
            j.attribute("deviation_from_f32", *row.f32Deviation);
          j.attribute("H", c.hidden);
          j.attribute("B", c.batch);
          j.attribute("T", c.time);
          j.attribute("gflop", row.flops / 1e9);
          j.attribute("working_set_bytes", row.workingSetBytes);
          j.attribute("bandwidth_gbs", row.bandwidth);
          j.attribute("roofline_gflops", row.rooflineGflops);
          j.attribute("wall_seconds", row.seconds);
          for (Impl peer : {Impl::OneDnn, Impl::Torch})
            if (auto s = row.speedup(peer))
              j.attribute(std::string("speedup_vs_") + implName(peer), *s);
          j.attributeObject("results", [&] {
            for (Impl impl : kImpls) {
              const ImplResult &r = row.result(impl);
              j.attributeObject(implName(impl), [&] {
                j.attribute("status", statusName(r.status));
                if (!r.note.empty())
                  j.attribute("note", r.note);
                if (!r.implementation.empty())
                  j.attribute("implementation", r.implementation);
                if (r.timed()) {
                  j.attribute("median_s", r.median());
                  j.attribute("min_s", r.min());
                  j.attribute("max_s", r.max());
                  j.attribute("gflops", gflops(row, r));
                  j.attributeArray("timed_calls_s", [&] {
                    for (double s : r.stats.seconds)
                      j.value(s);
                  });
                }
                if (r.extrapolated()) {
                  j.attribute("timed_steps", r.timedSteps);
                  j.attribute("scale", r.scale);
                }
                if (r.check.ran) {
                  j.attribute("check_ok", r.check.ok);
                  j.attribute("max_abs_err", r.check.maxAbs);
                  j.attribute("compared", r.check.compared);
                  j.attribute("differing", r.check.differing);
                  j.attribute("first_step_differing", r.check.firstStep);
                  j.attribute("first_step_differing_values",
                              r.check.firstStepDiffering);
                }
                if (!r.check.detail.empty())
                  j.attribute("check_detail", r.check.detail);
                if (impl == Impl::Rnnc)
                  j.attribute("compile_s", r.compileSeconds);
              });
            }
          });
        });
    });
  });
  os << "\n";
}
