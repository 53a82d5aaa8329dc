// RUN: pipeline-opt %s --split-input-file -p rows-first | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p rows-first | filecheck %s --check-prefix=GONE

// rows-first: a te.compute or te.reduce whose result has a symbol-sized dim after a
// static one, read only by te.load, gets its symbol-sized dims first: the extents and
// the body's output arguments are permuted, the reduction arguments stay last, and
// every load's indices follow. Kept: a result used otherwise (returned), a layout
// already rows first.

// MACE's per-element weights: w[a, n] = sum_k u[a, k] * attrs[n, k], 6 x N, read by
// a per-atom loop at w[j, n]. Now N x 6, written by rows and read at [n, j].
func.func @weights_per_atom(%N: index, %u: tensor<6x2xf64>, %attrs: tensor<?x2xf64>) -> tensor<?x6xf64> {
  %c6 = arith.constant 6 : index
  %c2 = arith.constant 2 : index
  %w = te.reduce "add" [%c6, %N] over [%c2] {te.origin = array<i64: 3>} : tensor<6x?xf64> {
  ^bb0(%a: index, %n: index, %k: index):
    %x = te.load %u[%a, %k] : tensor<6x2xf64> -> f64
    %y = te.load %attrs[%n, %k] : tensor<?x2xf64> -> f64
    %p = arith.mulf %x, %y : f64
    te.yield %p : f64
  }
  %r = te.compute [%N, %c6] : tensor<?x6xf64> {
  ^bb0(%i: index, %j: index):
    %v = te.load %w[%j, %i] : tensor<6x?xf64> -> f64
    %s = arith.mulf %v, %v : f64
    te.yield %s : f64
  }
  func.return %r : tensor<?x6xf64>
}
// CHECK-LABEL: func.func @weights_per_atom(
// CHECK:         %w = te.reduce "add" [%N, %c6] over [%c2] {te.origin = array<i64: 3>} : tensor<?x6xf64> {
// CHECK-NEXT:    ^bb0(%n: index, %a: index, %k: index):
// CHECK-NEXT:      %x = te.load %u[%a, %k] : tensor<6x2xf64> -> f64
// CHECK-NEXT:      %y = te.load %attrs[%n, %k] : tensor<?x2xf64> -> f64
// CHECK:         %r = te.compute [%N, %c6] : tensor<?x6xf64> {
// CHECK-NEXT:    ^bb0(%i: index, %j: index):
// CHECK-NEXT:      %v = te.load %w[%i, %j] : tensor<?x6xf64> -> f64
// GONE-LABEL:  func.func @weights_per_atom(
// GONE-NOT:    tensor<6x?xf64>

// -----
// A batch dim before the atoms (8 x N x 3, a batched contraction's output): N x 8 x 3,
// the static dims in their order.
func.func @batched(%N: index, %x: tensor<?x8x3xf64>) -> tensor<?x3xf64> {
  %c8 = arith.constant 8 : index
  %c3 = arith.constant 3 : index
  %t = te.compute [%c8, %N, %c3] : tensor<8x?x3xf64> {
  ^bb0(%c: index, %n: index, %m: index):
    %v = te.load %x[%n, %c, %m] : tensor<?x8x3xf64> -> f64
    te.yield %v : f64
  }
  %r = te.reduce "add" [%N, %c3] over [%c8] : tensor<?x3xf64> {
  ^bb0(%n: index, %m: index, %c: index):
    %v = te.load %t[%c, %n, %m] : tensor<8x?x3xf64> -> f64
    te.yield %v : f64
  }
  func.return %r : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @batched(
// CHECK:         %t = te.compute [%N, %c8, %c3] : tensor<?x8x3xf64> {
// CHECK-NEXT:    ^bb0(%n: index, %c: index, %m: index):
// CHECK-NEXT:      %v = te.load %x[%n, %c, %m] : tensor<?x8x3xf64> -> f64
// CHECK:           %v_1 = te.load %t[%n_1, %c_1, %m_1] : tensor<?x8x3xf64> -> f64
// GONE-LABEL:  func.func @batched(
// GONE-NOT:    tensor<8x?x3xf64>

// -----
// Kept: a result the function returns (its layout is the caller's), and one already
// rows first.
func.func @kept(%N: index, %x: tensor<?x4xf64>) -> (tensor<4x?xf64>, tensor<?x4xf64>) {
  %c4 = arith.constant 4 : index
  %t = te.compute [%c4, %N] : tensor<4x?xf64> {
  ^bb0(%c: index, %n: index):
    %v = te.load %x[%n, %c] : tensor<?x4xf64> -> f64
    te.yield %v : f64
  }
  %s = te.compute [%N, %c4] : tensor<?x4xf64> {
  ^bb0(%n: index, %c: index):
    %v = te.load %t[%c, %n] : tensor<4x?xf64> -> f64
    te.yield %v : f64
  }
  %r = te.compute [%N, %c4] : tensor<?x4xf64> {
  ^bb0(%n: index, %c: index):
    %v = te.load %s[%n, %c] : tensor<?x4xf64> -> f64
    te.yield %v : f64
  }
  func.return %t, %r : tensor<4x?xf64>, tensor<?x4xf64>
}
// CHECK-LABEL: func.func @kept(
// CHECK:         %t = te.compute [%c4, %N] : tensor<4x?xf64> {
// CHECK-NEXT:    ^bb0(%c: index, %n: index):
// CHECK:         %s = te.compute [%N, %c4] : tensor<?x4xf64> {
// CHECK-NEXT:    ^bb0(%n_1: index, %c_1: index):
// CHECK-NEXT:      %v_1 = te.load %t[%c_1, %n_1] : tensor<4x?xf64> -> f64
// CHECK:         %r = te.compute [%N, %c4] : tensor<?x4xf64> {
// CHECK-NEXT:    ^bb0(%n_2: index, %c_2: index):
// CHECK-NEXT:      %v_2 = te.load %s[%n_2, %c_2] : tensor<?x4xf64> -> f64
