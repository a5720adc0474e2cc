//===- MLIRGen.h - A checked model as rnn dialect IR ------------*- C++ -*-===//
//
// Builds one function, `@<model name>`, on tensors: its arguments are the
// model's inputs and its results the model's outputs, each named (attribute
// `rnn.name`) with the key `rnnc run` uses for it in its npz files:
//
//   arguments  x, seq_lengths (if declared), initial_carry/<layer>/<c|h>
//              (Bidirectional: initial_carry/<layer>/<forward|backward>/<c|h>)
//   results    y, carry/<layer>/<c|h> (likewise) for layers with return_carry
//
// The function also carries its sequence length (`rnn.num_steps`).
// Weights are constants in rnnc's fused layout (Weights/Params.h), each of
// its Tensor's element type; x, y, the carries and the values between
// layers are of the model's activation type (Model::activationType). Every
// op is located at its layer's line in the spec.
//
//===----------------------------------------------------------------------===//

#ifndef RNN_IMPORT_MLIRGEN_H
#define RNN_IMPORT_MLIRGEN_H

#include "rnn/Spec/Model.h"
#include "rnn/Weights/Params.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SourceMgr.h"

namespace rnnc {

/// Builds `model` with weights `params` (one entry per layer, as bindParams
/// returns them) as a new module; locations point into `sourceMgr`.
mlir::OwningOpRef<mlir::ModuleOp>
buildModelModule(mlir::MLIRContext &ctx, const spec::Model &model,
                 llvm::ArrayRef<LayerParams> params,
                 const llvm::SourceMgr &sourceMgr);

} // namespace rnnc

#endif // RNN_IMPORT_MLIRGEN_H
