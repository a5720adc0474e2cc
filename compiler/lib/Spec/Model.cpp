//===- Model.cpp - Names of the Model's enums
//------------------------------===//

#include "rnn/Spec/Model.h"

using namespace rnnc::spec;

const char *rnnc::spec::stringify(CellKind kind) {
  switch (kind) {
  case CellKind::LSTM:
    return "LSTMCell";
  case CellKind::OptimizedLSTM:
    return "OptimizedLSTMCell";
  case CellKind::GRU:
    return "GRUCell";
  case CellKind::MGU:
    return "MGUCell";
  case CellKind::Simple:
    return "SimpleCell";
  case CellKind::ConvLSTM:
    return "ConvLSTMCell";
  }
  return "<invalid cell kind>";
}

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
  }
  return "<invalid activation>";
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
  return kind == Layer::Kind::Bidirectional ? "Bidirectional" : "RNN";
}
