//===- BuffersToEmitC.cpp - The entry point on buffers, in EmitC ----------===//
//
// One dialect conversion from func/memref/scf/arith/math on static buffers
// to EmitC, with buffers as C pointers (see EmitCPatterns.h). Upstream's
// arith and scf patterns do their part; functions, calls and math are here,
// buffers in MemRefToEmitCPointers.cpp.
//
//===----------------------------------------------------------------------===//

#include "EmitCPatterns.h"
#include "rnn/ABI/Runtime.h"
#include "rnn/Conversion/Passes.h"
#include "rnn/IR/RNNDialect.h"

#include "mlir/Conversion/ArithToEmitC/ArithToEmitC.h"
#include "mlir/Conversion/SCFToEmitC/SCFToEmitC.h"
#include "mlir/Dialect/EmitC/Transforms/TypeConversions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopedHashTable.h"

#include <type_traits>

namespace mlir::rnn {
#define GEN_PASS_DEF_RNNCONVERTBUFFERSTOEMITCPASS
#include "rnn/Conversion/Passes.h.inc"
} // namespace mlir::rnn

using namespace mlir;
using namespace mlir::rnn;

namespace {

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

/// A function with a body becomes an emitc.func (`static` when private)
/// with one pointer per buffer; a declaration is dropped (its callers call
/// it by name, and C declares it in a header).
struct FuncLowering : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.isExternal()) {
      rewriter.eraseOp(op);
      return success();
    }
    FunctionType type = op.getFunctionType();
    TypeConverter::SignatureConversion signature(type.getNumInputs());
    SmallVector<Type> results;
    if (type.getNumResults() > 1 ||
        failed(getTypeConverter()->convertSignatureArgs(type.getInputs(),
                                                        signature)) ||
        failed(getTypeConverter()->convertTypes(type.getResults(), results)))
      return rewriter.notifyMatchFailure(op, "unsupported signature");
    auto func = emitc::FuncOp::create(
        rewriter, op.getLoc(), op.getSymName(),
        FunctionType::get(getContext(), signature.getConvertedTypes(),
                          results));
    if (ArrayAttr argAttrs = op.getArgAttrsAttr())
      func.setArgAttrsAttr(argAttrs);
    if (op.isPrivate())
      func.setSpecifiersAttr(rewriter.getStrArrayAttr({"static"}));
    rewriter.inlineRegionBefore(op.getBody(), func.getBody(), func.end());
    rewriter.applySignatureConversion(&func.getBody().front(), signature,
                                      getTypeConverter());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReturnLowering : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value operand =
        adaptor.getOperands().empty() ? Value() : adaptor.getOperands()[0];
    rewriter.replaceOpWithNewOp<emitc::ReturnOp>(op, operand);
    return success();
  }
};

/// Calls to declarations become opaque calls by name; calls to functions
/// of the module, emitc.call.
struct CallLowering : OpConversionPattern<func::CallOp> {
  CallLowering(const TypeConverter &converter, MLIRContext *ctx,
               const llvm::StringSet<> &externalCallees)
      : OpConversionPattern(converter, ctx), externalCallees(externalCallees) {}

  LogicalResult
  matchAndRewrite(func::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(), results)))
      return rewriter.notifyMatchFailure(op, "unsupported result types");
    if (!externalCallees.contains(op.getCallee())) {
      rewriter.replaceOpWithNewOp<emitc::CallOp>(op, op.getCallee(), results,
                                                 adaptor.getOperands());
      return success();
    }
    // An unused status would be an unused C variable.
    if (op.use_empty())
      results.clear();
    auto call = emitc::CallOpaqueOp::create(
        rewriter, op.getLoc(), results, op.getCallee(), adaptor.getOperands());
    if (results.empty())
      rewriter.eraseOp(op);
    else
      rewriter.replaceOp(op, call);
    return success();
  }

  const llvm::StringSet<> &externalCallees;
};

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

/// `op(x, ...)` on f32 or f64 as a call of libm's `<name>f` or `<name>`.
template <typename OpTy>
struct MathToLibm : OpConversionPattern<OpTy> {
  MathToLibm(const TypeConverter &converter, MLIRContext *ctx, StringRef name)
      : OpConversionPattern<OpTy>(converter, ctx), name(name) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!type.isF32() && !type.isF64())
      return rewriter.notifyMatchFailure(op, "expected f32 or f64");
    std::string callee = name + (type.isF32() ? "f" : "");
    rewriter.replaceOpWithNewOp<emitc::CallOpaqueOp>(op, type, callee,
                                                     adaptor.getOperands());
    return success();
  }

  std::string name;
};

/// f32 `op(x, ...)` as a call of librnnrt's header-only `name`
/// (rnnrt/rnnrt_math.h): errno-free and inlined, so C needs no libm for
/// it. A benefit above MathToLibm's wins over it; f64 stays with libm.
template <typename OpTy>
struct MathToRuntime : OpConversionPattern<OpTy> {
  MathToRuntime(const TypeConverter &converter, MLIRContext *ctx,
                StringRef name)
      : OpConversionPattern<OpTy>(converter, ctx, /*benefit=*/2),
        name(name) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "expected f32");
    if constexpr (std::is_same_v<OpTy, math::FmaOp>)
      if (op->hasAttr(rnn::kExactFMAAttrName))
        return rewriter.notifyMatchFailure(op, "must stay fmaf");
    rewriter.replaceOpWithNewOp<emitc::CallOpaqueOp>(op, op.getType(), name,
                                                     adaptor.getOperands());
    return success();
  }

  std::string name;
};

/// An ordered float compare (oeq, ogt, oge, olt, ole) as C's own operator,
/// which is already false when an operand is NaN. Upstream's lowering adds
/// `x == x` tests for NaN, which a C compiler must keep (a compare and a
/// branch each: 5 % of kws's instructions on the Cortex-M4, in the gates'
/// range tests). A benefit above upstream's wins over it.
struct OrderedCompareToC : OpConversionPattern<arith::CmpFOp> {
  /// C's operator for an ordered relation, none for the others.
  static std::optional<emitc::CmpPredicate>
  cOperator(arith::CmpFPredicate predicate) {
    switch (predicate) {
    case arith::CmpFPredicate::OEQ:
      return emitc::CmpPredicate::eq;
    case arith::CmpFPredicate::OGT:
      return emitc::CmpPredicate::gt;
    case arith::CmpFPredicate::OGE:
      return emitc::CmpPredicate::ge;
    case arith::CmpFPredicate::OLT:
      return emitc::CmpPredicate::lt;
    case arith::CmpFPredicate::OLE:
      return emitc::CmpPredicate::le;
    default:
      return std::nullopt;
    }
  }

  OrderedCompareToC(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(arith::CmpFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getLhs().getType()))
      return rewriter.notifyMatchFailure(op, "expected scalar floats");
    std::optional<emitc::CmpPredicate> predicate =
        cOperator(op.getPredicate());
    if (!predicate)
      return rewriter.notifyMatchFailure(op, "not an ordered relation");
    rewriter.replaceOpWithNewOp<emitc::CmpOp>(op, op.getType(), *predicate,
                                              adaptor.getLhs(),
                                              adaptor.getRhs());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Reports what C cannot hold, with the reason, before converting (the
/// patterns then only fail on what this lets through by mistake).
LogicalResult checkConvertible(ModuleOp module,
                               const TypeConverter &converter) {
  auto unsupported = [&](Value value) {
    return isa<MemRefType>(value.getType()) &&
           !converter.convertType(value.getType());
  };
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op))
      return op->emitOpError("cannot be emitted as C: generated code takes "
                             "every buffer from the caller's workspace (see "
                             "--rnn-assign-workspace)");
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      if (func.isExternal() &&
          !func.getSymName().starts_with(abi::kRuntimePrefix))
        return op->emitOpError("cannot be called from C: only librnnrt's "
                               "functions (rnnrt_*) are declared, found '")
               << func.getSymName() << "'";
      if (func.getNumResults() > 1)
        return op->emitOpError("cannot be emitted as C: expected at most one "
                               "result, found ")
               << func.getNumResults();
    }
    if (auto global = dyn_cast<memref::GlobalOp>(op)) {
      if (!global.getConstant() ||
          !isa_and_nonnull<DenseElementsAttr>(global.getInitialValueAttr()))
        return op->emitOpError("cannot be emitted as C: expected a constant "
                               "with dense elements (generated code keeps no "
                               "mutable state)");
      if (global.getType().getNumElements() == 0 ||
          !converter.convertType(global.getType()))
        return op->emitOpError("cannot be emitted as C: expected a non-empty "
                               "static shape and an integer or float element "
                               "type, found ")
               << global.getType();
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op);
        copy && !(memref::isStaticShapeAndContiguousRowMajor(
                      cast<MemRefType>(copy.getSource().getType())) &&
                  memref::isStaticShapeAndContiguousRowMajor(
                      cast<MemRefType>(copy.getTarget().getType()))))
      return op->emitOpError("cannot be emitted as C: expected contiguous "
                             "buffers (--rnn-bufferize makes "
                             "other copies loops)");
    SmallVector<Value> values(op->getResults());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::append_range(values, block.getArguments());
    if (auto bad = llvm::find_if(values, unsupported); bad != values.end())
      return op->emitOpError("cannot be emitted as C: expected buffers with "
                             "a static shape, static strides and an integer "
                             "or float element type, found ")
             << bad->getType();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// C reserves identifiers starting with an underscore: `__constant_4xf32`
/// becomes `rnnc_constant_4xf32`.
LogicalResult renameReservedGlobals(ModuleOp module) {
  SymbolTable symbols(module);
  for (auto global :
       llvm::make_early_inc_range(module.getOps<memref::GlobalOp>())) {
    StringRef name = global.getSymName();
    if (!name.starts_with("_"))
      continue;
    std::string base = "rnnc_" + name.ltrim('_').str();
    std::string fresh = base;
    for (unsigned i = 1; symbols.lookup(fresh); ++i)
      fresh = base + "_" + std::to_string(i);
    if (failed(symbols.rename(global,
                              StringAttr::get(module.getContext(), fresh))))
      return global.emitOpError("cannot be renamed to '") << fresh << "'";
  }
  return success();
}

/// Whether `op` computes a value from its operands alone, so that an unused
/// or repeated one can go. EmitC declares no memory effects, so upstream's
/// DCE and CSE keep every such op, and C compilers warn about unused ones.
bool isPureExpression(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      isa<emitc::LoadOp, emitc::SubscriptOp>(op))
    return false;
  if (isPure(op))
    return true;
  auto expression = dyn_cast<emitc::CExpressionInterface>(op);
  return expression && !expression.hasSideEffects();
}

struct ExpressionInfo : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() ||
        rhs == getEmptyKey() || rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::IgnoreLocations);
  }
};

using ExpressionTable =
    llvm::ScopedHashTable<Operation *, Operation *, ExpressionInfo>;

/// Replaces each pure expression in `block` (and nested blocks) with an
/// equal one that dominates it.
void reuseExpressions(Block &block, ExpressionTable &table) {
  ExpressionTable::ScopeTy scope(table);
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isPureExpression(&op)) {
      if (Operation *existing = table.lookup(&op)) {
        op.replaceAllUsesWith(existing);
        op.erase();
        continue;
      }
      table.insert(&op, &op);
    }
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        reuseExpressions(nested, table);
  }
}

/// The patterns compute indices per access and leave constants they folded
/// unused: shares repeated expressions and drops unused ones (and unused
/// subscripts), so that the C has no unused variables.
void tidyExpressions(ModuleOp module) {
  ExpressionTable table;
  for (auto func : module.getOps<emitc::FuncOp>())
    for (Block &block : func.getBody())
      reuseExpressions(block, table);
  // Users come after their operands: a reverse walk drops chains at once.
  bool changed = true;
  while (changed) {
    changed = false;
    module.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (op->use_empty() &&
          (isPureExpression(op) || isa<emitc::SubscriptOp>(op))) {
        op->erase();
        changed = true;
      }
    });
  }
}

struct RNNConvertBuffersToEmitCPass
    : rnn::impl::RNNConvertBuffersToEmitCPassBase<
          RNNConvertBuffersToEmitCPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Conversions are tried last-added first: the identity is the fallback.
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    populateEmitCSizeTTypeConversions(converter);
    populateBufferToPointerTypeConversion(converter);

    if (failed(checkConvertible(module, converter)) ||
        failed(renameReservedGlobals(module)))
      return signalPassFailure();
    llvm::StringSet<> externalCallees;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isExternal())
        externalCallees.insert(func.getSymName());

    ConversionTarget target(*ctx);
    target.addLegalDialect<emitc::EmitCDialect>();
    target.addLegalOp<ModuleOp>();
    RewritePatternSet patterns(ctx);
    populateArithToEmitCPatterns(converter, patterns);
    patterns.add<OrderedCompareToC>(converter, ctx);
    populateSCFToEmitCConversionPatterns(patterns, converter);
    populateMemRefToEmitCPointerPatterns(converter, patterns);
    populateFuncToEmitCPointerPatterns(converter, externalCallees, patterns);
    populateMathToLibmEmitCPatterns(converter, patterns);
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    tidyExpressions(module);
  }
};

} // namespace

void mlir::rnn::populateFuncToEmitCPointerPatterns(
    const TypeConverter &converter, const llvm::StringSet<> &externalCallees,
    RewritePatternSet &patterns) {
  patterns.add<FuncLowering, ReturnLowering>(converter, patterns.getContext());
  patterns.add<CallLowering>(converter, patterns.getContext(), externalCallees);
}

void mlir::rnn::populateMathToLibmEmitCPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<MathToRuntime<math::ExpOp>>(converter, ctx, abi::kExpF);
  patterns.add<MathToRuntime<math::TanhOp>>(converter, ctx, abi::kTanhF);
  patterns.add<MathToRuntime<math::FmaOp>>(converter, ctx, abi::kMulAddF);
  patterns.add<MathToLibm<math::AbsFOp>>(converter, ctx, "fabs");
  patterns.add<MathToLibm<math::AtanOp>>(converter, ctx, "atan");
  patterns.add<MathToLibm<math::Atan2Op>>(converter, ctx, "atan2");
  patterns.add<MathToLibm<math::CeilOp>>(converter, ctx, "ceil");
  patterns.add<MathToLibm<math::CopySignOp>>(converter, ctx, "copysign");
  patterns.add<MathToLibm<math::CosOp>>(converter, ctx, "cos");
  patterns.add<MathToLibm<math::ErfOp>>(converter, ctx, "erf");
  patterns.add<MathToLibm<math::ExpOp>>(converter, ctx, "exp");
  patterns.add<MathToLibm<math::Exp2Op>>(converter, ctx, "exp2");
  patterns.add<MathToLibm<math::ExpM1Op>>(converter, ctx, "expm1");
  patterns.add<MathToLibm<math::FloorOp>>(converter, ctx, "floor");
  patterns.add<MathToLibm<math::FmaOp>>(converter, ctx, "fma");
  patterns.add<MathToLibm<math::LogOp>>(converter, ctx, "log");
  patterns.add<MathToLibm<math::Log1pOp>>(converter, ctx, "log1p");
  patterns.add<MathToLibm<math::Log2Op>>(converter, ctx, "log2");
  patterns.add<MathToLibm<math::PowFOp>>(converter, ctx, "pow");
  patterns.add<MathToLibm<math::RoundOp>>(converter, ctx, "round");
  // C99 has no roundeven; nearbyint rounds in the current mode, which the
  // generated code assumes is C's default, to nearest with ties to even.
  patterns.add<MathToLibm<math::RoundEvenOp>>(converter, ctx, "nearbyint");
  patterns.add<MathToLibm<math::SinOp>>(converter, ctx, "sin");
  patterns.add<MathToLibm<math::SqrtOp>>(converter, ctx, "sqrt");
  patterns.add<MathToLibm<math::TanOp>>(converter, ctx, "tan");
  patterns.add<MathToLibm<math::TanhOp>>(converter, ctx, "tanh");
  patterns.add<MathToLibm<math::TruncOp>>(converter, ctx, "trunc");
}
