//===- StoreBF16AsBits.cpp - bf16 buffers as uint16 bit patterns ----------===//
//
// The C path's form of bf16 params: C99 has no bfloat16 type, so a bf16
// buffer becomes a ui16 buffer of the same bits (static const uint16_t in
// the C), and each element read is widened to f32 by rnnrt_bf16_to_f32.
//
//===----------------------------------------------------------------------===//

#include "rnn/ABI/Runtime.h"
#include "rnn/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNSTOREBF16ASBITSPASS
#include "rnn/Conversion/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;

namespace {

/// librnnrt's widening and rounding, declared by rnnrt/rnnrt.h.
constexpr StringLiteral kWiden = rnn::abi::kBF16ToF32;
constexpr StringLiteral kRound = rnn::abi::kRoundToBF16;

bool isBF16Buffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getElementType().isBF16();
}

bool mentionsBF16(Type type) {
  return getElementTypeOrSelf(type).isBF16();
}

struct RNNStoreBF16AsBitsPass
    : rnn::impl::RNNStoreBF16AsBitsPassBase<RNNStoreBF16AsBitsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Type bits = IntegerType::get(ctx, 16, IntegerType::Unsigned);
    auto toBits = [&](Type type) -> Type {
      auto memref = cast<MemRefType>(type);
      return MemRefType::get(memref.getShape(), bits, memref.getLayout(),
                             memref.getMemorySpace());
    };

    // Constants: the same bits, as ui16.
    bool failed = false;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      if (!isBF16Buffer(global.getType()))
        continue;
      auto init =
          dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr());
      if (!global.getConstant() || !init) {
        global.emitOpError("cannot store bf16 as bits: expected a constant "
                           "with dense elements");
        failed = true;
        continue;
      }
      global.setType(cast<MemRefType>(toBits(global.getType())));
      global.setInitialValueAttr(init.bitcast(bits));
    }
    if (failed)
      return signalPassFailure();

    // Buffers (get_global and the views of it) change type in place: their
    // ops only relate shapes and strides, which stay. Loads are rewritten.
    SmallVector<memref::LoadOp> loads;
    WalkResult walk = module.walk([&](Operation *op) -> WalkResult {
      if (auto func = dyn_cast<FunctionOpInterface>(op)) {
        for (Type type : func.getArgumentTypes())
          if (mentionsBF16(type))
            return op->emitOpError("cannot store bf16 as bits: a bf16 "
                                   "argument, expected bf16 constants only");
        return WalkResult::advance();
      }
      if (auto load = dyn_cast<memref::LoadOp>(op);
          load && isBF16Buffer(load.getMemRefType())) {
        loads.push_back(load);
        return WalkResult::advance();
      }
      if (isa<memref::StoreOp>(op) &&
          isBF16Buffer(cast<memref::StoreOp>(op).getMemRefType()))
        return op->emitOpError("cannot store bf16 as bits: bf16 buffers "
                               "are constant params, not written");
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    OpBuilder builder(ctx);
    func::FuncOp widen;
    auto declareWiden = [&] {
      if (widen)
        return;
      widen = module.lookupSymbol<func::FuncOp>(kWiden);
      if (widen)
        return;
      builder.setInsertionPointToStart(module.getBody());
      widen = func::FuncOp::create(
          builder, module.getLoc(), kWiden,
          builder.getFunctionType({bits}, {builder.getF32Type()}));
      widen.setPrivate();
    };
    for (memref::LoadOp load : loads) {
      for (Operation *user : load->getUsers()) {
        auto ext = dyn_cast<arith::ExtFOp>(user);
        if (!ext || !ext.getType().isF32()) {
          load.emitOpError("cannot store bf16 as bits: expected only "
                           "arith.extf to f32 to read the loaded bf16, found ")
              << user->getName();
          return signalPassFailure();
        }
      }
      declareWiden();
      load.getResult().setType(bits);
      for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
        builder.setInsertionPoint(user);
        auto call = func::CallOp::create(builder, user->getLoc(), widen,
                                         ValueRange{load.getResult()});
        user->getResult(0).replaceAllUsesWith(call.getResult(0));
        user->erase();
      }
    }

    // bf16 compute's rounding points, `arith.extf(arith.truncf(x))`: one
    // call that rounds an f32 to the nearest bf16 and keeps it as f32.
    SmallVector<arith::TruncFOp> truncs;
    module.walk([&](arith::TruncFOp trunc) {
      if (trunc.getType().isBF16())
        truncs.push_back(trunc);
    });
    func::FuncOp roundFn;
    for (arith::TruncFOp trunc : truncs) {
      for (Operation *user : trunc->getUsers()) {
        auto ext = dyn_cast<arith::ExtFOp>(user);
        if (!ext || !ext.getType().isF32() || !trunc.getIn().getType().isF32()) {
          trunc.emitOpError("cannot store bf16 as bits: expected an f32 "
                            "rounded to bf16 to be read only by arith.extf "
                            "to f32, found ")
              << user->getName();
          return signalPassFailure();
        }
      }
      if (!roundFn && !(roundFn = module.lookupSymbol<func::FuncOp>(kRound))) {
        builder.setInsertionPointToStart(module.getBody());
        Type f32 = builder.getF32Type();
        roundFn = func::FuncOp::create(builder, module.getLoc(), kRound,
                                       builder.getFunctionType({f32}, {f32}));
        roundFn.setPrivate();
      }
      builder.setInsertionPoint(trunc);
      auto call = func::CallOp::create(builder, trunc.getLoc(), roundFn,
                                       ValueRange{trunc.getIn()});
      for (Operation *user : llvm::make_early_inc_range(trunc->getUsers())) {
        user->getResult(0).replaceAllUsesWith(call.getResult(0));
        user->erase();
      }
      trunc.erase();
    }

    // Every other bf16 buffer value: the bits' type.
    module.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (isBF16Buffer(result.getType()))
          result.setType(toBits(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isBF16Buffer(arg.getType()))
              arg.setType(toBits(arg.getType()));
    });

    // Nothing bf16 may be left for the C emitter.
    walk = module.walk([&](Operation *op) -> WalkResult {
      for (Type type : llvm::concat<const Type>(
               llvm::to_vector(op->getOperandTypes()),
               llvm::to_vector(op->getResultTypes())))
        if (mentionsBF16(type))
          return op->emitOpError("cannot store bf16 as bits: expected bf16 "
                                 "only in constant buffers read by loads, "
                                 "found ")
                 << type;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
  }
};

} // namespace
