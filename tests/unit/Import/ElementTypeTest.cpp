//===- ElementTypeTest.cpp - Element types from the spec to MLIRGen -------===//
//
// A spec's param_dtype reaches the IR through the bound params alone:
// binding gives each Tensor its element type, and MLIRGen builds each
// constant in its tensor's type and every other float value in the model's
// activation type.
//
//===----------------------------------------------------------------------===//

#include "rnn/IR/RNNOps.h"
#include "rnn/Import/MLIRGen.h"
#include "rnn/Spec/Parser.h"
#include "rnn/Weights/Binding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace rnnc;

namespace {

/// A bfloat16 cell between a float32 cell and a Dense layer.
constexpr const char *kSpec = R"(rnnc: 1
name: m
input: {batch: [2], time: 3, features: 3}
layers:
  - {name: s, type: RNN, cell: {type: SimpleCell, features: 2, param_dtype: bfloat16}}
  - {name: t, type: RNN, cell: {type: SimpleCell, features: 2}}
  - {name: d, type: Dense, features: 4}
)";

/// Values that bfloat16 cannot hold (1/3 and its multiples), so rounding
/// shows.
Tensor thirds(std::vector<int64_t> shape) {
  Tensor tensor{std::move(shape), {}};
  for (int64_t i = 0; i < tensor.numElements(); ++i)
    tensor.data.push_back(float(i + 1) / 3.0f);
  return tensor;
}

class ElementTypeTest : public ::testing::Test {
protected:
  ElementTypeTest() : handler(sourceMgr, &ctx, diagnostics) {
    ctx.loadDialect<rnn::RNNDialect, arith::ArithDialect, func::FuncDialect>();
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(kSpec, "spec.yaml"),
        llvm::SMLoc());
  }

  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  llvm::SourceMgr sourceMgr;
  std::string text;
  llvm::raw_string_ostream diagnostics{text};
  SourceMgrDiagnosticHandler handler;
};

TEST_F(ElementTypeTest, ConstantsTakeTheirTensorsType) {
  std::optional<spec::Model> model = spec::parseModel(sourceMgr, 1, ctx);
  ASSERT_TRUE(model) << text;
  ParamTree tree{{"s/cell/i/kernel", thirds({3, 2})},
                 {"s/cell/i/bias", thirds({2})},
                 {"s/cell/h/kernel", thirds({2, 2})},
                 {"t/cell/i/kernel", thirds({2, 2})},
                 {"t/cell/i/bias", thirds({2})},
                 {"t/cell/h/kernel", thirds({2, 2})},
                 {"d/kernel", thirds({2, 4})},
                 {"d/bias", thirds({4})}};
  std::optional<std::vector<LayerParams>> params =
      bindParams(*model, tree, "w.npz", sourceMgr, ctx);
  ASSERT_TRUE(params) << text;
  // Binding: the bfloat16 cell's params are bfloat16, the rest float32.
  const CellParams &s = (*params)[0].forward;
  EXPECT_EQ(s.wi.elementType, spec::ElementType::BFloat16);
  EXPECT_EQ(s.wh.elementType, spec::ElementType::BFloat16);
  EXPECT_EQ((*params)[1].forward.wi.elementType, spec::ElementType::Float32);
  EXPECT_EQ((*params)[2].kernel->elementType, spec::ElementType::Float32);

  OwningOpRef<ModuleOp> module =
      buildModelModule(ctx, *model, *params, sourceMgr);
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(verify(*module))) << text;

  // Each param constant has its tensor's type and values.
  auto expectConstant = [](Value value, const Tensor &tensor, Type type) {
    auto constant = value.getDefiningOp<arith::ConstantOp>();
    ASSERT_TRUE(constant);
    auto elements = cast<DenseElementsAttr>(constant.getValue());
    EXPECT_EQ(elements.getType().getElementType(), type);
    EXPECT_EQ(elements.getType().getShape(), ArrayRef<int64_t>(tensor.shape));
    std::vector<float> values;
    for (const APFloat &v : elements.getValues<APFloat>())
      values.push_back(APFloat(v).convertToFloat());
    EXPECT_EQ(values, tensor.data);
  };
  Type bf16 = BFloat16Type::get(&ctx), f32 = Float32Type::get(&ctx);
  SmallVector<rnn::SimpleCellOp> cells;
  module->walk([&](rnn::SimpleCellOp cell) { cells.push_back(cell); });
  ASSERT_EQ(cells.size(), 2u);
  const CellParams &t = (*params)[1].forward;
  expectConstant(cells[0].getWi(), s.wi, bf16);
  expectConstant(cells[0].getWh(), s.wh, bf16);
  expectConstant(cells[0].getBi(), *s.bi, bf16);
  expectConstant(cells[1].getWi(), t.wi, f32);
  expectConstant(cells[1].getWh(), t.wh, f32);
  SmallVector<rnn::DenseOp> denses;
  module->walk([&](rnn::DenseOp dense) { denses.push_back(dense); });
  ASSERT_EQ(denses.size(), 1u);
  expectConstant(denses[0].getKernel(), *(*params)[2].kernel, f32);

  // Activations are float32 whatever the params: the carries and x, y.
  for (rnn::SimpleCellOp cell : cells)
    for (Type type : cell->getResultTypes())
      EXPECT_EQ(cast<RankedTensorType>(type).getElementType(), f32);
  auto func = cast<func::FuncOp>(module->getBody()->front());
  for (Type type : func.getFunctionType().getInputs())
    EXPECT_EQ(cast<RankedTensorType>(type).getElementType(), f32);
  for (Type type : func.getFunctionType().getResults())
    EXPECT_EQ(cast<RankedTensorType>(type).getElementType(), f32);
}

} // namespace
