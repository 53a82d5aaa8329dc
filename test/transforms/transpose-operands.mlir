// RUN: pipeline-opt %s --split-input-file -p transpose-operands | filecheck %s

// x @ W.T: the reduce loads W[j, k] (j the last output dim, k the reduction).
// A transposed copy Wt[k, j] = W[j, k] is computed once before the reduce, which
// then loads Wt[k, j]: along the output row. x[i, k] is not static: untouched.
func.func @xwt(%N: index, %x: tensor<?x20xf32>) -> tensor<?x32xf32> {
  %c20 = arith.constant 20 : index
  %c32 = arith.constant 32 : index
  %w = te.weight "w" : tensor<32x20xf32>
  %y = te.reduce "add" [%N, %c32] over [%c20] : tensor<?x32xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %a = te.load %x[%i, %k] : tensor<?x20xf32> -> f32
    %b = te.load %w[%j, %k] : tensor<32x20xf32> -> f32
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @xwt(
// CHECK:         %w = te.weight "w" : tensor<32x20xf32>
// CHECK-NEXT:    [[R:%[0-9]+]] = arith.constant 20 : index
// CHECK-NEXT:    [[C:%[0-9]+]] = arith.constant 32 : index
// CHECK-NEXT:    [[WT:%[0-9]+]] = te.compute {{\[}}[[R]], [[C]]] : tensor<20x32xf32> {
// CHECK-NEXT:    ^bb0([[A:%[0-9]+]]: index, [[B:%[0-9]+]]: index):
// CHECK-NEXT:      [[V:%[0-9]+]] = te.load %w{{\[}}[[B]], [[A]]] : tensor<32x20xf32> -> f32
// CHECK-NEXT:      te.yield [[V]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = te.reduce "add" [%N, %c32] over [%c20] : tensor<?x32xf32> {
// CHECK-NEXT:    ^bb0(%i: index, %j: index, %k: index):
// CHECK-NEXT:      %a = te.load %x[%i, %k] : tensor<?x20xf32> -> f32
// CHECK-NEXT:      %b = te.load [[WT]]{{\[}}%k, %j] : tensor<20x32xf32> -> f32
// CHECK-NEXT:      %p = arith.mulf %a, %b : f32
// CHECK-NOT:       te.load %w
// CHECK:         func.return %y

// -----
// x @ W already reads W[k, j] along the row; a row of 3 (xyz) is too short to
// vectorize: both untouched, no copy made.
func.func @untouched(%N: index, %x: tensor<?x32xf32>, %v: tensor<?x3xf32>, %m: tensor<3x32xf32>) -> (tensor<?x32xf32>, tensor<?x3xf32>) {
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %w = te.weight "w" : tensor<32x32xf32>
  %y = te.reduce "add" [%N, %c32] over [%c32] : tensor<?x32xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %a = te.load %x[%i, %k] : tensor<?x32xf32> -> f32
    %b = te.load %w[%k, %j] : tensor<32x32xf32> -> f32
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  %z = te.reduce "add" [%N, %c3] over [%c32] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %a = te.load %x[%i, %k] : tensor<?x32xf32> -> f32
    %b = te.load %m[%j, %k] : tensor<3x32xf32> -> f32
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %y, %z : tensor<?x32xf32>, tensor<?x3xf32>
}
// CHECK-LABEL: func.func @untouched(
// CHECK-NOT:     te.compute
// CHECK:         te.load %w[%k, %j]
// CHECK-NOT:     te.compute
// CHECK:         te.load %m{{\[%j[_0-9]*, %k[_0-9]*\]}}
// CHECK-NOT:     te.compute
