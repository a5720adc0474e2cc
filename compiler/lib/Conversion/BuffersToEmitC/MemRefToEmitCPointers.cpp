//===- MemRefToEmitCPointers.cpp - Buffers as C pointers ------------------===//
//
// Upstream's MemRefToEmitC turns buffers into C arrays (`float v[4][5]`),
// which cannot express the workspace views, the strided subviews and the
// flat pointers librnnrt takes. Here a buffer is a pointer to its first
// element and an access `m[i, j]` is `p[i * s0 + j * s1]` with the static
// strides of m's type, so every view is pointer arithmetic.
//
//===----------------------------------------------------------------------===//

#include "EmitCPatterns.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace {

/// The static strides of `type`, if it has a strided layout with static
/// strides (the offset may be dynamic: a pointer includes it).
std::optional<SmallVector<int64_t>> staticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  return strides;
}

/// The static offset of `type`'s layout, if it has one.
std::optional<int64_t> staticOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  return offset;
}

Value sizeLiteral(OpBuilder &b, Location loc, int64_t value) {
  return emitc::LiteralOp::create(b, loc, emitc::SizeTType::get(b.getContext()),
                                  std::to_string(value));
}

/// `indices` with the ones known to be constants (in `original`, before
/// conversion) as attributes, the others as their converted values.
SmallVector<OpFoldResult> foldIndices(ValueRange original,
                                      ValueRange converted) {
  SmallVector<OpFoldResult> result;
  for (auto [before, after] : llvm::zip_equal(original, converted)) {
    if (std::optional<int64_t> value = getConstantIntValue(before))
      result.push_back(
          IntegerAttr::get(IndexType::get(before.getContext()), *value));
    else
      result.push_back(after);
  }
  return result;
}

/// `sum(indices[i] * strides[i])` as a size_t value, or null when it is 0.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> indices,
                  ArrayRef<int64_t> strides) {
  Type sizeType = emitc::SizeTType::get(b.getContext());
  int64_t constant = 0;
  Value sum;
  for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
    if (std::optional<int64_t> value = getConstantIntValue(index)) {
      constant += *value * stride;
      continue;
    }
    Value term = cast<Value>(index);
    if (stride == 0)
      continue;
    if (stride != 1)
      term = emitc::MulOp::create(b, loc, sizeType, term,
                                  sizeLiteral(b, loc, stride));
    sum = sum ? emitc::AddOp::create(b, loc, sizeType, sum, term).getResult()
              : term;
  }
  if (constant == 0)
    return sum;
  Value literal = sizeLiteral(b, loc, constant);
  return sum ? emitc::AddOp::create(b, loc, sizeType, sum, literal).getResult()
             : literal;
}

/// The element `index` of `pointer` as an lvalue; index null means 0.
Value element(OpBuilder &b, Location loc, Value pointer, Value index) {
  auto type = cast<emitc::PointerType>(pointer.getType());
  if (!index)
    index = sizeLiteral(b, loc, 0);
  return emitc::SubscriptOp::create(b, loc,
                                    emitc::LValueType::get(type.getPointee()),
                                    pointer, ValueRange{index});
}

/// `&pointer[index]`; `pointer` itself when index is null (0).
Value advance(OpBuilder &b, Location loc, Value pointer, Value index) {
  if (!index)
    return pointer;
  return emitc::AddressOfOp::create(b, loc, pointer.getType(),
                                    element(b, loc, pointer, index));
}

/// The element of `op`'s buffer at its indices, as an lvalue.
template <typename OpTy, typename Adaptor>
FailureOr<Value> accessedElement(OpTy op, Adaptor adaptor,
                                 ConversionPatternRewriter &rewriter) {
  std::optional<SmallVector<int64_t>> strides =
      staticStrides(op.getMemRefType());
  if (!strides)
    return rewriter.notifyMatchFailure(op, "expected static strides");
  Value index =
      linearIndex(rewriter, op.getLoc(),
                  foldIndices(op.getIndices(), adaptor.getIndices()), *strides);
  return element(rewriter, op.getLoc(), adaptor.getMemref(), index);
}

struct LoadLowering : OpConversionPattern<memref::LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> lvalue = accessedElement(op, adaptor, rewriter);
    if (failed(lvalue))
      return failure();
    Type type = cast<emitc::LValueType>(lvalue->getType()).getValueType();
    rewriter.replaceOpWithNewOp<emitc::LoadOp>(op, type, *lvalue);
    return success();
  }
};

struct StoreLowering : OpConversionPattern<memref::StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> lvalue = accessedElement(op, adaptor, rewriter);
    if (failed(lvalue))
      return failure();
    rewriter.replaceOpWithNewOp<emitc::AssignOp>(op, *lvalue,
                                                 adaptor.getValue());
    return success();
  }
};

/// `memref.view %bytes[%shift]`: `(T *)&bytes[shift]`.
struct ViewLowering : OpConversionPattern<memref::ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type || !op.getSizes().empty())
      return rewriter.notifyMatchFailure(op, "expected a static view");
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> shift =
        foldIndices(op.getByteShift(), adaptor.getByteShift());
    Value bytes = advance(rewriter, loc, adaptor.getSource(),
                          linearIndex(rewriter, loc, shift, {1}));
    if (bytes.getType() != type)
      bytes = rnn::castPointer(rewriter, loc, type, bytes,
                               /*dropsConst=*/false);
    rewriter.replaceOp(op, bytes);
    return success();
  }
};

/// `memref.subview`: the pointer moves by the offsets times the source's
/// strides; the result's type holds its own strides.
struct SubViewLowering : OpConversionPattern<memref::SubViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::SubViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> strides =
        staticStrides(op.getSourceType());
    if (!strides || !getTypeConverter()->convertType(op.getType()))
      return rewriter.notifyMatchFailure(op, "expected static strides");
    SmallVector<OpFoldResult> offsets;
    unsigned dynamic = 0;
    for (int64_t offset : op.getStaticOffsets()) {
      if (!ShapedType::isDynamic(offset)) {
        offsets.push_back(rewriter.getIndexAttr(offset));
        continue;
      }
      offsets.push_back(foldIndices(op.getOffsets()[dynamic],
                                    adaptor.getOffsets()[dynamic])[0]);
      ++dynamic;
    }
    Location loc = op.getLoc();
    rewriter.replaceOp(op,
                       advance(rewriter, loc, adaptor.getSource(),
                               linearIndex(rewriter, loc, offsets, *strides)));
    return success();
  }
};

/// `memref.reinterpret_cast` to an offset from the source's base: librnnrt
/// calls take a `memref<1xT>` at the buffer's address.
struct ReinterpretCastLowering
    : OpConversionPattern<memref::ReinterpretCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ReinterpretCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    std::optional<int64_t> base =
        staticOffset(cast<MemRefType>(op.getSource().getType()));
    if (!type || type != adaptor.getSource().getType() || !base)
      return rewriter.notifyMatchFailure(
          op, "expected static strides, a source with a static offset and "
              "the same element type");
    Location loc = op.getLoc();
    Value index;
    int64_t offset = op.getStaticOffsets()[0];
    if (ShapedType::isDynamic(offset)) {
      if (*base != 0)
        return rewriter.notifyMatchFailure(op, "dynamic offset of a view");
      index =
          linearIndex(rewriter, loc,
                      foldIndices(op.getOffsets(), adaptor.getOffsets()), {1});
    } else if (offset < *base) {
      return rewriter.notifyMatchFailure(op, "offset before the source");
    } else if (offset > *base) {
      index = sizeLiteral(rewriter, loc, offset - *base);
    }
    rewriter.replaceOp(op, advance(rewriter, loc, adaptor.getSource(), index));
    return success();
  }
};

/// Reshapes and casts keep the pointer; the result type has the strides.
template <typename OpTy>
struct SamePointerLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value source = adaptor.getOperands()[0];
    Type type = this->getTypeConverter()->convertType(op.getType());
    if (type != source.getType())
      return rewriter.notifyMatchFailure(op, "expected static strides");
    rewriter.replaceOp(op, source);
    return success();
  }
};

/// A buffer's address as an integer (the entry point's argument checks):
/// `(size_t)p`.
struct ExtractAlignedPointerLowering
    : OpConversionPattern<memref::ExtractAlignedPointerAsIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::ExtractAlignedPointerAsIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<emitc::PointerType>(adaptor.getSource().getType()))
      return rewriter.notifyMatchFailure(op, "expected a pointer buffer");
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "cannot convert index");
    rewriter.replaceOpWithNewOp<emitc::CastOp>(op, type, adaptor.getSource());
    return success();
  }
};

/// A copy between contiguous buffers: `for (i < n) dst[i] = src[i];` (a
/// loop rather than memcpy keeps the code free of libc).
struct CopyLowering : OpConversionPattern<memref::CopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto source = cast<MemRefType>(op.getSource().getType());
    auto target = cast<MemRefType>(op.getTarget().getType());
    if (!memref::isStaticShapeAndContiguousRowMajor(source) ||
        !memref::isStaticShapeAndContiguousRowMajor(target))
      return rewriter.notifyMatchFailure(op, "expected contiguous buffers");
    Location loc = op.getLoc();
    Value from = adaptor.getSource(), to = adaptor.getTarget();
    if (source.getNumElements() > 0) {
      auto loop = emitc::ForOp::create(
          rewriter, loc, sizeLiteral(rewriter, loc, 0),
          sizeLiteral(rewriter, loc, source.getNumElements()),
          sizeLiteral(rewriter, loc, 1));
      OpBuilder::InsertionGuard guard(rewriter);
      Block &body = loop.getRegion().front();
      rewriter.setInsertionPoint(body.getTerminator());
      Value i = body.getArgument(0);
      Value value = element(rewriter, loc, from, i);
      Type type = cast<emitc::LValueType>(value.getType()).getValueType();
      emitc::AssignOp::create(
          rewriter, loc, element(rewriter, loc, to, i),
          emitc::LoadOp::create(rewriter, loc, type, value));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The C array holding the elements of a global of type `type`, flat.
emitc::ArrayType flatArrayType(MemRefType type) {
  return emitc::ArrayType::get({std::max<int64_t>(type.getNumElements(), 1)},
                               type.getElementType());
}

/// A constant global: `static const T name[n] = {...};`, flat.
struct GlobalLowering : OpConversionPattern<memref::GlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::GlobalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getType();
    auto value = dyn_cast_or_null<DenseElementsAttr>(op.getInitialValueAttr());
    if (!op.getConstant() || !value || type.getNumElements() == 0 ||
        !getTypeConverter()->convertType(type))
      return rewriter.notifyMatchFailure(op, "expected a non-empty constant");
    emitc::ArrayType array = flatArrayType(type);
    auto flat = value.reshape(
        RankedTensorType::get(array.getShape(), array.getElementType()));
    rewriter.replaceOpWithNewOp<emitc::GlobalOp>(
        op, op.getSymName(), array, flat, /*extern_specifier=*/false,
        /*static_specifier=*/true, /*const_specifier=*/true);
    return success();
  }
};

/// `(T *) (uintptr_t) global`: the address of the C array (const is cast
/// away through an integer, which -Wcast-qual accepts; the code never
/// writes to it).
struct GetGlobalLowering : OpConversionPattern<memref::GetGlobalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(memref::GetGlobalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "unsupported buffer type");
    // EmitC casts an array only to a pointer to its element type, which
    // would drop const in one step; the array's name as a uintptr_t
    // literal goes through an integer instead.
    Value address = emitc::LiteralOp::create(
        rewriter, op.getLoc(),
        emitc::OpaqueType::get(rewriter.getContext(), "uintptr_t"),
        ("(uintptr_t) " + op.getName()).str());
    rewriter.replaceOpWithNewOp<emitc::CastOp>(op, type, address);
    return success();
  }
};

} // namespace

void mlir::rnn::populateBufferToPointerTypeConversion(
    TypeConverter &converter) {
  converter.addConversion([](MemRefType type) -> std::optional<Type> {
    Type element = type.getElementType();
    if (!type.hasStaticShape() || !staticStrides(type) ||
        !isa<IntegerType, FloatType>(element) ||
        !emitc::isSupportedEmitCType(element))
      return Type();
    return emitc::PointerType::get(element);
  });
}

void mlir::rnn::populateMemRefToEmitCPointerPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LoadLowering, StoreLowering, ViewLowering, SubViewLowering,
               ReinterpretCastLowering, SamePointerLowering<memref::CastOp>,
               SamePointerLowering<memref::ExpandShapeOp>,
               SamePointerLowering<memref::CollapseShapeOp>,
               ExtractAlignedPointerLowering, CopyLowering,
               GlobalLowering, GetGlobalLowering>(converter,
                                                  patterns.getContext());
}

Value mlir::rnn::castPointer(OpBuilder &b, Location loc, Type type,
                             Value value, bool dropsConst) {
  Type via = dropsConst ? Type(emitc::OpaqueType::get(b.getContext(),
                                                      "uintptr_t"))
                        : Type(emitc::PointerType::get(emitc::OpaqueType::get(
                              b.getContext(), "void")));
  Value step = emitc::CastOp::create(b, loc, via, value);
  return emitc::CastOp::create(b, loc, type, step);
}
