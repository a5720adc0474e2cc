//===- Model.cpp - Names of the Model's enums
//------------------------------===//

#include "rnn/Spec/Model.h"

#include "llvm/ADT/SmallVector.h"

using namespace rnnc::spec;

const char *rnnc::spec::stringify(Activation fn) {
  switch (fn) {
  case Activation::Sigmoid:
    return "sigmoid";
  case Activation::HardSigmoid:
    return "hard_sigmoid";
  case Activation::Tanh:
    return "tanh";
  case Activation::HardTanh:
    return "hard_tanh";
  case Activation::Relu:
    return "relu";
  case Activation::Elu:
    return "elu";
  case Activation::Silu:
    return "silu";
  case Activation::Identity:
    return "identity";
  case Activation::Gelu:
    return "gelu";
  case Activation::GeluExact:
    return "gelu_exact";
  case Activation::Softmax:
    return "softmax";
  case Activation::LogSoftmax:
    return "log_softmax";
  case Activation::Softplus:
    return "softplus";
  case Activation::LeakyRelu:
    return "leaky_relu";
  }
  return "<invalid activation>";
}

bool rnnc::spec::isElementwise(Activation fn) {
  return fn != Activation::Softmax && fn != Activation::LogSoftmax;
}

const char *rnnc::spec::stringify(Merge merge) {
  switch (merge) {
  case Merge::Concat:
    return "concat";
  case Merge::Add:
    return "add";
  case Merge::Mul:
    return "mul";
  case Merge::Mean:
    return "mean";
  }
  return "<invalid merge>";
}

const char *rnnc::spec::stringify(ParamsLayout layout) {
  return layout == ParamsLayout::NNX ? "nnx" : "linen";
}

const char *rnnc::spec::stringify(InitialCarry carry) {
  return carry == InitialCarry::Input ? "input" : "zeros";
}

const char *rnnc::spec::stringify(PaddedOutputs padded) {
  return padded == PaddedOutputs::Zeros ? "zeros" : "compute";
}

const char *rnnc::spec::stringify(Layer::Kind kind) {
  switch (kind) {
  case Layer::Kind::RNN:
    return "RNN";
  case Layer::Kind::Bidirectional:
    return "Bidirectional";
  case Layer::Kind::Dense:
    return "Dense";
  case Layer::Kind::Pool:
    return "Pool";
  case Layer::Kind::Embed:
    return "Embed";
  case Layer::Kind::LayerNorm:
    return "LayerNorm";
  case Layer::Kind::Activation:
    return "Activation";
  case Layer::Kind::Dropout:
    return "Dropout";
  }
  return "<invalid layer kind>";
}

const char *rnnc::spec::stringify(PoolFn fn) {
  switch (fn) {
  case PoolFn::Last:
    return "last";
  case PoolFn::First:
    return "first";
  case PoolFn::Mean:
    return "mean";
  case PoolFn::Max:
    return "max";
  case PoolFn::Sum:
    return "sum";
  case PoolFn::LastValid:
    return "last_valid";
  case PoolFn::FinalCarry:
    return "final_carry";
  }
  return "<invalid pool fn>";
}

const char *rnnc::spec::stringify(ElementType type) {
  switch (type) {
  case ElementType::Float32:
    return "float32";
  case ElementType::BFloat16:
    return "bfloat16";
  }
  return "<invalid element type>";
}

int rnnc::spec::byteWidth(ElementType type) {
  switch (type) {
  case ElementType::Float32:
    return 4;
  case ElementType::BFloat16:
    return 2;
  }
  return 0;
}

std::optional<std::string> rnnc::spec::applyInt8Weights(Model &model) {
  model.int8Weights = true;
  for (Layer &layer : model.layers) {
    llvm::SmallVector<RNN *, 2> dirs;
    if (layer.isBidirectional())
      dirs = {&layer.forward, &layer.backward};
    else if (layer.kind == Layer::Kind::RNN)
      dirs = {&layer.rnn};
    for (RNN *rnn : dirs) {
      Cell &cell = rnn->cell;
      if (!describe(cell.kind).lowPrecision)
        continue; // its kernels stay float32
      if (cell.storesBF16Params())
        return layer.name;
      cell.int8Weights = true;
    }
  }
  return std::nullopt;
}

void rnnc::spec::applyInt8Activations(Model &model) {
  model.int8Activations = true;
  for (Layer &layer : model.layers)
    for (RNN *rnn : {&layer.rnn, &layer.forward, &layer.backward})
      rnn->cell.int8Activations = rnn->cell.int8Weights;
}
