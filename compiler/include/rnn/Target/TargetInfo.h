//===- TargetInfo.h - What code generation knows of a target ----*- C++ -*-===//
//
// The target layer's one description of a CPU. The pipelines consult it
// (rnnc::selectCodegenOptions) instead of CPU constants inside shared
// passes, so a new kind of target is a new description here and, where its
// code differs, a new pipeline option, not edits inside the passes.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_TARGET_TARGETINFO_H
#define RNN_TARGET_TARGETINFO_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace rnnc {

struct TargetOptions {
  std::string triple; ///< empty: the host
  std::string cpu;    ///< empty: the host CPU (or "generic" for another triple)
  bool empty() const { return triple.empty() && cpu.empty(); }
};

/// How the scan's time loop is cut into blocks (convert-rnn-scan-to-scf):
/// tuning for caches and code size rather than registers, the same on
/// every target rnnc knows today.
struct ScanBlocking {
  /// Steps per full block of a run-time number of steps: as many as keep
  /// the hoisted projection a matmul of several rows, and few enough that
  /// the code for the remainder's block sizes (16, 8, 4, 2, 1: one copy of
  /// the step loop each) stays small.
  int64_t runtimeStepBlock = 16;
  /// Rows (rows x steps) per block of steps when padded steps are skipped,
  /// for the hoisted projection (measured: 16-32 best, 64 5 % slower at
  /// B = 16, 256 15 %).
  int64_t skipBlockRows = 32;
  /// The most rows of a length-sorted block: a register block's height
  /// (measured best at B = 16 and 128: at B = 128, 16-row blocks were 3-5 %
  /// slower).
  int64_t lengthBlockRows = 4;
};

/// The register block of the matmul kernels: as many accumulators as the
/// target's registers hold with room for the operands.
struct MatmulBlock {
  int64_t rows = 4;
  int64_t columns = 64;
  /// Whether the target has a vector unit for floats. Without one the
  /// block is of scalars (rnn-block-matmuls), and C is built that way too.
  bool vector = true;
};

/// A target as read off LLVM's description of the triple and CPU.
struct TargetInfo {
  std::string triple; ///< normalized
  std::string cpu;    ///< as LLVM names it (the host's, "generic", ...)
  /// The width of the vector registers rnnc uses for IEEE float maths; 0
  /// without such a unit (32-bit NEON flushes denormals, so only MVE counts
  /// on 32-bit Arm).
  unsigned vectorBits = 0;
  /// Architectural registers for the kernels' accumulators and operands:
  /// vector registers with a vector unit, else float registers (32 bits).
  unsigned registers = 0;
  /// Hardware float registers; without them floats are soft-float calls.
  bool floatRegisters = false;
  bool fma = false;     ///< a fused multiply-add instruction for floats
  bool bf16Dot = false; ///< AVX512_BF16's vdpbf16ps
  bool int8Dot = false; ///< VNNI's vpdpbusd (AVX512_VNNI or AVX-VNNI)
  /// AVX2's 256-bit vpmaddwd: pairs of i16 products summed into i32 lanes,
  /// an exact int8 dot product on sign-extended bytes.
  bool int16PairDot = false;
  unsigned pointerBits = 64;
  /// RAM, not time, is what runs out first: an M-profile Arm triple or a
  /// Cortex-M CPU. rnnc lowers for RAM there unless told --optimize=speed.
  bool microcontroller = false;
  /// The private cache a core keeps a working set in (L2), in bytes; 0
  /// where rnnc has no figure (no tuning reads it there).
  int64_t cacheBytes = 0;

  /// f32 lanes of a vector register (0 without a vector unit). Also the
  /// lanes of the dot-product instructions' 32-bit sums (vdpbf16ps,
  /// vpdpbusd), which work on whole registers.
  int64_t vectorLanes() const { return vectorBits / 32; }
  /// The narrowest block of f32 columns worth vector code (0 without a
  /// vector unit): 8, one AVX2 register, half an AVX-512 one; a narrower
  /// matmul would leave most of each register idle and stays scalar
  /// (rnn-vectorize-matmuls' min-block-columns).
  int64_t narrowestVectorBlock() const { return vectorBits ? 8 : 0; }
  /// Registers a kernel keeps its sums in: half, the other half holding
  /// its operands (AVX-512: 16 of 32; rnn-int8-matmuls' accumulators).
  int64_t kernelAccumulators() const { return registers / 2; }
  /// The scan's cache blocking.
  ScanBlocking scanBlocking() const { return {}; }
  /// Whether a batch-1 recurrence computes a piece of its hoisted input
  /// projection in each step's loop over k (rnn-overlap-input-projection).
  /// The piece and the recurrent product share one block's accumulators,
  /// which leaves enough for the recurrence with 32 vector registers of 16
  /// floats (AVX-512: 10 % faster at LSTM H=64) but not with 16 (AVX2,
  /// NEON: 6 % slower).
  bool overlapsInputProjection() const {
    return vectorBits >= 512 && registers >= 32;
  }

  /// The block of the LLVM path: 4 x 64 floats (16 accumulators) with 32
  /// 512-bit registers (AVX-512), 4 x 16 with other vector units (8 AVX2
  /// registers of 16, or 16 NEON registers of 32). Without a vector unit:
  /// 4 x 4 scalars with a float register file (16 of 32 registers:
  /// FPv4-SP-D16, VFPv3-D16, F/D), 2 x 2 with soft float, where each value
  /// lives in one of the few integer registers a libgcc call keeps.
  MatmulBlock matmulBlock() const;
  /// Whether LLVM rounds f32 to bf16 (and widens back) with vector
  /// instructions of vectorLanes: x86 with AVX512_BF16 (vcvtneps2bf16,
  /// round to nearest even like arith-expand's integer ops, denormals
  /// flushed to zero as vdpbf16ps does).
  bool bf16Convert() const;
  /// The block of the C path: the LLVM path's without a vector unit, else
  /// 4 x 4 scalars (the C compiler vectorizes what it can).
  MatmulBlock cMatmulBlock() const;
  /// Whether the gates' sigmoid and tanh are rational functions
  /// (rnn-approximate-math's rational-gates): 32-bit Arm with a scalar FPU
  /// and no vector unit, where a division is one instruction while the
  /// exponent bits of 2^y are moves between register files (Cortex-M4F: 22
  /// fewer instructions per LSTM unit and step). Not with soft float, whose
  /// division is a long routine; not on Xtensa, where LLVM 22 cannot
  /// assemble the range branch ("fixup value must be 4-byte aligned"), nor
  /// on RISC-V, where it is not measured.
  bool rationalGates() const;
  /// Whether a float load's immediate offset is short (32-bit Arm: vldr
  /// reaches 1020 bytes), so that the buffers of the innermost loops go
  /// first in the workspace (rnn-assign-workspace's innermost-first).
  bool shortLoadOffsets() const;
  /// The width of `index` in the code: 32 on 32-bit targets, whose pointers
  /// and sizes are 32 bits (no register pairs for loop counters), else 0
  /// (MLIR's default, 64).
  unsigned indexBitwidth() const { return pointerBits == 32 ? 32 : 0; }
};

/// Describes the target `options` name. Fails, with a message for the user,
/// for an unknown triple or CPU (listing close CPU names), a triple LLVM
/// cannot emit code for, and a hard-float triple without an FPU.
llvm::Expected<TargetInfo> describeTarget(const TargetOptions &options);

/// Shorthands for describeTarget(options)->...: the LLVM path's and the C
/// path's matmul block, the index width, and whether it is a
/// microcontroller (this one needs no LLVM target: a name test).
llvm::Expected<MatmulBlock> selectMatmulBlock(const TargetOptions &options);
llvm::Expected<MatmulBlock> selectCMatmulBlock(const TargetOptions &options);
llvm::Expected<unsigned> indexBitwidth(const TargetOptions &options);
bool isMicrocontroller(const TargetOptions &options);

/// Fails, with a message for the user, unless this machine can run code for
/// `options` (a CPU of the host's triple): every feature LLVM gives that
/// CPU is one the host reports or one of the host CPU's own LLVM
/// description (what rnnc targets by default). Without a CPU, succeeds.
llvm::Error checkHostRuns(const TargetOptions &options);

} // namespace rnnc

#endif // RNN_TARGET_TARGETINFO_H
