// RUN: pipeline-opt %s -p convert-vector-to-llvm | filecheck %s
// RUN: pipeline-opt %s -p convert-vector-to-llvm | filecheck %s --check-prefix=GONE

// convert-vector-to-llvm: vector.broadcast of a scalar becomes LLVM's splat idiom.

// A scalar broadcast to 16 lanes: insertelement into lane 0 of an undef vector,
// then a shufflevector of lane 0 everywhere. Vector arithmetic is left to
// convert-arith-to-llvm, loads and stores to convert-vector-to-ptr.
func.func @splat(%x: f32, %v: vector<16xf32>) -> vector<16xf32> {
  %b = vector.broadcast %x : f32 to vector<16xf32>
  %s = arith.mulf %b, %v : vector<16xf32>
  func.return %s : vector<16xf32>
}
// CHECK:      builtin.module {
// CHECK-NEXT: func.func @splat(%x: f32, %v: vector<16xf32>) -> vector<16xf32> {
// CHECK-NEXT: [[MLIR:%[0-9]+]] = llvm.mlir.undef : vector<16xf32>
// CHECK-NEXT: [[MLIR_2:%[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: [[INSERTELEMENT:%[0-9]+]] = llvm.insertelement %x, [[MLIR]]{{\[}}[[MLIR_2]] : i32] : vector<16xf32>
// CHECK-NEXT: %b = llvm.shufflevector [[INSERTELEMENT]], [[INSERTELEMENT]] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32>
// CHECK-NEXT: %s = arith.mulf %b, %v : vector<16xf32>
// CHECK-NEXT: func.return %s : vector<16xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @splat(
// GONE-NOT:   vector.broadcast
