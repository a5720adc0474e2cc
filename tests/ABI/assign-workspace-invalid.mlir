// RUN: rnn-opt %s --rnn-assign-workspace --verify-diagnostics

func.func @dynamic_run(%n: index, %ws: memref<?xi8> {rnn.workspace}) {
  // expected-error @+1 {{'memref.alloc' op cannot be placed in the workspace: expected a static shape, an identity layout and a scalar element type, got 'memref<?xf32>'}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
