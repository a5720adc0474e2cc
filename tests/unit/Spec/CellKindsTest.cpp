//===- CellKindsTest.cpp - The description of each cell kind --------------===//
//
// The rows of CellKinds.cpp are data that binding, shapes and MLIRGen turn
// into layouts and ops; these tests hold every row to the rules those
// readers assume, so a new row that breaks one fails here first.
//
//===----------------------------------------------------------------------===//

#include "rnn/Spec/CellKinds.h"
#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

using namespace rnnc::spec;

namespace {

TEST(CellKinds, OneRowPerKindInEnumOrder) {
  ASSERT_EQ(cellKinds().size(), size_t(CellKind::ConvLSTM) + 1);
  for (auto [i, info] : llvm::enumerate(cellKinds())) {
    EXPECT_EQ(size_t(info.kind), i);
    EXPECT_EQ(&describe(info.kind), &info);
    EXPECT_EQ(stringify(info.kind), info.name);
    EXPECT_GE(info.numGates(), 1);
    // Carries end in h, the step's output (the scan yields it).
    ASSERT_FALSE(info.carries.empty());
    EXPECT_EQ(info.carries.back(), "h");
    EXPECT_TRUE(info.opName.starts_with("rnn.")) << info.opName.str();
    EXPECT_FALSE(info.linen.empty()) << info.name.str();
  }
}

/// Every fused array is one param holding all gates, or params of distinct
/// named gates (binding fills the others with zero blocks); kernels always
/// exist.
TEST(CellKinds, FlaxParamsFillTheFusedLayout) {
  for (const CellKindInfo &info : cellKinds()) {
    for (ParamsLayout layout : {ParamsLayout::Linen, ParamsLayout::NNX}) {
      std::optional<llvm::ArrayRef<FlaxParam>> params = info.params(layout);
      if (!params)
        continue;
      for (FusedArray array :
           {FusedArray::Wi, FusedArray::Wh, FusedArray::Bi, FusedArray::Bh}) {
        std::vector<llvm::StringRef> gates;
        for (const FlaxParam &param : *params)
          if (param.array == array)
            gates.push_back(param.gate);
        SCOPED_TRACE(info.name.str() + " " + std::to_string(int(array)));
        if (array == FusedArray::Wi || array == FusedArray::Wh)
          EXPECT_FALSE(gates.empty());
        if (llvm::is_contained(gates, "")) {
          EXPECT_EQ(gates.size(), 1u);
          continue;
        }
        for (llvm::StringRef gate : gates) {
          EXPECT_TRUE(llvm::is_contained(info.gates, gate)) << gate.str();
          EXPECT_EQ(llvm::count(gates, gate), 1);
        }
      }
    }
  }
}

TEST(CellKinds, StoredParamsFollowTheOptions) {
  Cell cell;
  cell.kind = CellKind::MGU;
  cell.features = 3;
  auto names = [&](ParamsLayout layout) {
    std::vector<std::string> out;
    std::optional<std::vector<StoredParam>> stored =
        storedParams(cell, layout, 2);
    for (const StoredParam &param : *stored)
      out.push_back(param.param->name.str());
    return out;
  };
  EXPECT_EQ(names(ParamsLayout::Linen),
            (std::vector<std::string>{"if/kernel", "if/bias", "hf/kernel",
                                      "hn/kernel", "hn/bias", "in/kernel",
                                      "in/bias"}));
  cell.resetGate = false;
  EXPECT_EQ(names(ParamsLayout::Linen).size(), 6u);
  EXPECT_FALSE(storedParams(cell, ParamsLayout::NNX, 2));

  cell.kind = CellKind::ConvLSTM;
  cell.kernelSize = {3, 5};
  std::vector<StoredParam> conv = *storedParams(cell, ParamsLayout::Linen, 2);
  ASSERT_EQ(conv.size(), 4u);
  EXPECT_EQ(conv[0].shape, (Shape{3, 5, 2, 12}));
  EXPECT_EQ(conv[1].shape, (Shape{12}));
  EXPECT_EQ(conv[2].shape, (Shape{3, 5, 3, 12}));
  cell.useBias = false;
  EXPECT_EQ(storedParams(cell, ParamsLayout::Linen, 2)->size(), 2u);
}

TEST(CellKinds, Names) {
  EXPECT_EQ(cellKindsIn(ParamsLayout::NNX),
            "LSTMCell, OptimizedLSTMCell, GRUCell and SimpleCell");
  EXPECT_EQ(cellKindsIn(ParamsLayout::Linen),
            "LSTMCell, OptimizedLSTMCell, GRUCell, MGUCell, SimpleCell and "
            "ConvLSTMCell");
  EXPECT_TRUE(describe(CellKind::MGU).takes("reset_gate"));
  EXPECT_TRUE(describe(CellKind::MGU).takes("params"));
  EXPECT_FALSE(describe(CellKind::Simple).takes("gate_fn"));
}

} // namespace
