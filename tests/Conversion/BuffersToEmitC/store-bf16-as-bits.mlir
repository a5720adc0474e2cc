// RUN: rnn-opt %s --rnn-store-bf16-as-bits --split-input-file --verify-diagnostics | FileCheck %s

/// bf16 constants become ui16 constants of the same bits; their views keep
/// shapes and strides; each load reads the bits and rnnrt_bf16_to_f32
/// widens them (1.0 is 0x3F80 = 16256, -2.0 is 0xC000 = 49152).

// CHECK: func.func private @rnnrt_bf16_to_f32(ui16) -> f32
// CHECK: memref.global "private" constant @w : memref<2x2xui16> = dense<{{\[\[}}16256, 49152], [0, 16256]]>
// CHECK-LABEL: func.func @read
// CHECK: %[[W:.*]] = memref.get_global @w : memref<2x2xui16>
// CHECK: %[[ROW:.*]] = memref.subview %[[W]][1, 0] [1, 2] [1, 1] : memref<2x2xui16> to memref<2xui16, strided<[1], offset: 2>>
// CHECK: %[[BITS:.*]] = memref.load %[[ROW]][%{{.*}}] : memref<2xui16, strided<[1], offset: 2>>
// CHECK: %[[WIDE:.*]] = call @rnnrt_bf16_to_f32(%[[BITS]]) : (ui16) -> f32
// CHECK: arith.addf %{{.*}}, %[[WIDE]] : f32
// CHECK-NOT: bf16
memref.global "private" constant @w : memref<2x2xbf16> = dense<[[1.0, -2.0], [0.0, 1.0]]>
func.func @read(%i: index, %x: f32) -> f32 {
  %w = memref.get_global @w : memref<2x2xbf16>
  %row = memref.subview %w[1, 0] [1, 2] [1, 1] : memref<2x2xbf16> to memref<2xbf16, strided<[1], offset: 2>>
  %v = memref.load %row[%i] : memref<2xbf16, strided<[1], offset: 2>>
  %wide = arith.extf %v : bf16 to f32
  %sum = arith.addf %x, %wide : f32
  return %sum : f32
}

// -----

/// f32 code is left alone.

// CHECK-LABEL: func.func @f32_only
// CHECK-NOT: rnnrt_bf16_to_f32
// CHECK: memref.load %{{.*}} : memref<2xf32>
memref.global "private" constant @v : memref<2xf32> = dense<[1.0, 2.0]>
func.func @f32_only(%i: index) -> f32 {
  %v = memref.get_global @v : memref<2xf32>
  %x = memref.load %v[%i] : memref<2xf32>
  return %x : f32
}

// -----

memref.global "private" constant @w : memref<2xbf16> = dense<[1.0, 2.0]>
func.func @negative_other_reader(%i: index) -> bf16 {
  %w = memref.get_global @w : memref<2xbf16>
  // expected-error @+1 {{'memref.load' op cannot store bf16 as bits: expected only arith.extf to f32 to read the loaded bf16, found func.return}}
  %v = memref.load %w[%i] : memref<2xbf16>
  return %v : bf16
}

// -----

// expected-error @+1 {{'func.func' op cannot store bf16 as bits: a bf16 argument, expected bf16 constants only}}
func.func @negative_argument(%w: memref<2xbf16>, %i: index) -> f32 {
  %v = memref.load %w[%i] : memref<2xbf16>
  %wide = arith.extf %v : bf16 to f32
  return %wide : f32
}

// -----

func.func @negative_store(%i: index, %x: bf16) {
  %w = memref.get_global @w : memref<2xbf16>
  // expected-error @+1 {{'memref.store' op cannot store bf16 as bits: bf16 buffers are constant params, not written}}
  memref.store %x, %w[%i] : memref<2xbf16>
  return
}
memref.global "private" constant @w : memref<2xbf16> = dense<[1.0, 2.0]>

// -----

// expected-error @+1 {{'memref.global' op cannot store bf16 as bits: expected a constant with dense elements}}
memref.global "private" @w : memref<2xbf16> = uninitialized

// -----

// bf16 compute's rounding point, an f32 rounded to bf16 and widened back:
// one call of librnnrt's static inline rnnrt_round_to_bf16 (declared once).
// CHECK-LABEL: func.func private @rnnrt_round_to_bf16(f32) -> f32
// CHECK-LABEL: func.func @round_points(
// CHECK-NEXT: %[[R:.*]] = call @rnnrt_round_to_bf16(%arg0) : (f32) -> f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[R]], %[[R]] : f32
// CHECK-NEXT: %[[R2:.*]] = call @rnnrt_round_to_bf16(%[[S]]) : (f32) -> f32
// CHECK-NEXT: return %[[R2]] : f32
func.func @round_points(%x: f32) -> f32 {
  %n = arith.truncf %x : f32 to bf16
  %w = arith.extf %n : bf16 to f32
  %v = arith.extf %n : bf16 to f32
  %s = arith.addf %w, %v : f32
  %n2 = arith.truncf %s : f32 to bf16
  %w2 = arith.extf %n2 : bf16 to f32
  return %w2 : f32
}

// -----

func.func @negative_arith(%x: f32) -> bf16 {
  // expected-error @+1 {{'arith.truncf' op cannot store bf16 as bits: expected an f32 rounded to bf16 to be read only by arith.extf to f32, found func.return}}
  %n = arith.truncf %x : f32 to bf16
  return %n : bf16
}
