// RUN: pipeline-opt %s --split-input-file -p pack-operands | filecheck %s

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
// CHECK-NEXT:    [[WT:%[0-9]+]] = te.compute [%c20, %c32] : tensor<20x32xf32> {
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

// -----
// A batched contraction as MACE's symmetric contraction leaves it: for each channel
// c, out[c, n, j] = sum over r = (e, m) of x[n, e, c, m] * W[e * 8 + c, j * 9 + m]
// (a weight product reshaped: stride 9 along the row j). The load of W becomes a
// load of P[r, c, j] = W[...], packed once before the reduce; its index arithmetic
// moves into P's body and vanishes from the reduce's. x is not static: untouched.
func.func @batched(%N: index, %x: tensor<?x2x8x9xf64>) -> tensor<8x?x243xf64> {
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c18 = arith.constant 18 : index
  %c243 = arith.constant 243 : index
  %w = te.weight "w" : tensor<16x2187xf64>
  %y = te.reduce "add" [%c8, %N, %c243] over [%c18] : tensor<8x?x243xf64> {
  ^bb0(%c: index, %n: index, %j: index, %r: index):
    %m = arith.remui %r, %c9 : index
    %e = arith.divui %r, %c9 : index
    %a = te.load %x[%n, %e, %c, %m] : tensor<?x2x8x9xf64> -> f64
    %j9 = arith.muli %j, %c9 : index
    %col = arith.addi %j9, %m : index
    %e8 = arith.muli %e, %c8 : index
    %row = arith.addi %e8, %c : index
    %b = te.load %w[%row, %col] : tensor<16x2187xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  func.return %y : tensor<8x?x243xf64>
}
// CHECK-LABEL: func.func @batched(
// CHECK:         [[P:%[0-9]+]] = te.compute [%c18, %c8, %c243] : tensor<18x8x243xf64> {
// CHECK-NEXT:    ^bb0([[R:%[0-9]+]]: index, [[C:%[0-9]+]]: index, [[J:%[0-9]+]]: index):
// CHECK-DAG:       arith.remui [[R]], %c9
// CHECK-DAG:       arith.muli [[J]], %c9
// CHECK:           [[V:%[0-9]+]] = te.load %w[{{.*}}] : tensor<16x2187xf64> -> f64
// CHECK-NEXT:      te.yield [[V]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %y = te.reduce "add" [%c8, %N, %c243] over [%c18] : tensor<8x?x243xf64> {
// CHECK-NEXT:    ^bb0(%c: index, %n: index, %j: index, %r: index):
// CHECK-NEXT:      [[M:%m[_0-9]*]] = arith.remui %r, %c9 : index
// CHECK-NEXT:      [[E:%e[_0-9]*]] = arith.divui %r, %c9 : index
// CHECK-NEXT:      %a = te.load %x[%n, [[E]], %c, [[M]]] : tensor<?x2x8x9xf64> -> f64
// CHECK-NEXT:      %b = te.load [[P]][%r, %c, %j] : tensor<18x8x243xf64> -> f64
// CHECK-NEXT:      %p = arith.mulf %a, %b : f64
// CHECK-NEXT:      te.yield %p : f64
// CHECK-NOT:       te.load %w
// CHECK:         func.return %y

// -----
// Not packed: a gathered weight row (the index comes from data through te.index)
// and a load of W that does not vary along the row (a per-channel scale).
func.func @not_packed(%N: index, %x: tensor<?x16xf32>, %t: tensor<?xi64>) -> tensor<?x32xf32> {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %w = te.weight "w" : tensor<4x32x16xf32>
  %s = te.weight "s" : tensor<16xf32>
  %y = te.reduce "add" [%N, %c32] over [%c16] : tensor<?x32xf32> {
  ^bb0(%i: index, %j: index, %k: index):
    %ti = te.load %t[%i] : tensor<?xi64> -> i64
    %g = te.index %ti in %c4 {site = 1 : i64} : i64
    %a = te.load %x[%i, %k] : tensor<?x16xf32> -> f32
    %b = te.load %w[%g, %j, %k] : tensor<4x32x16xf32> -> f32
    %sk = te.load %s[%k] : tensor<16xf32> -> f32
    %ab = arith.mulf %a, %b : f32
    %p = arith.mulf %ab, %sk : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @not_packed(
// CHECK-NOT:     te.compute
// CHECK:         te.load %w[%g, %j, %k]
// CHECK:         te.load %s[%k]
