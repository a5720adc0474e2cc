// RUN: rnn-opt %s --rnn-convert-buffers-to-emitc --split-input-file --verify-diagnostics

// What C cannot hold is reported before converting, with the reason.

func.func @heap() {
  // expected-error @+1 {{'memref.alloc' op cannot be emitted as C: generated code takes every buffer from the caller's workspace (see --rnn-assign-workspace)}}
  %0 = memref.alloc() : memref<4xf32>
  return
}

// -----

func.func @stack() {
  // expected-error @+1 {{'memref.alloca' op cannot be emitted as C}}
  %0 = memref.alloca() : memref<4xf32>
  return
}

// -----

// expected-error @+1 {{'memref.global' op cannot be emitted as C: expected a constant with dense elements (generated code keeps no mutable state)}}
memref.global "private" @state : memref<4xf32> = dense<0.0>

// -----

// expected-error @+1 {{'func.func' op cannot be called from C: only librnnrt's functions (rnnrt_*) are declared, found 'memcpy'}}
func.func private @memcpy(memref<1xf32>, memref<1xf32>, i64)

// -----

// expected-error @+1 {{'func.func' op cannot be emitted as C: expected at most one result, found 2}}
func.func @pair(%a: f32) -> (f32, f32) {
  return %a, %a : f32, f32
}

// -----

// expected-error @+1 {{'func.func' op cannot be emitted as C: expected buffers with a static shape, static strides and an integer or float element type, found 'memref<?xf32>'}}
func.func @dynamic(%m: memref<?xf32>) {
  return
}

// -----

func.func @strided(%m: memref<4x6xf32>, %n: memref<4x3xf32>) {
  %s = memref.subview %m[0, 0] [4, 3] [1, 1] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 1]>>
  // expected-error @+1 {{'memref.copy' op cannot be emitted as C: expected contiguous buffers (--rnn-bufferize makes other copies loops)}}
  memref.copy %s, %n : memref<4x3xf32, strided<[6, 1]>> to memref<4x3xf32>
  return
}
