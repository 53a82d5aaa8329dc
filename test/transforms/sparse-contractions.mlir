// RUN: pipeline-opt %s --split-input-file -p sparse-contractions | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p sparse-contractions | filecheck %s --check-prefix=GONE

// sparse-contractions: a te.reduce "add" whose yielded product has a factor loaded from
// a static tensor with structural zeros (a te.weight listing its `nonzeros`, or a static
// op computed from weights alone) gets the nonzero terms over its static dims:
// te.sparse_dims (the output dims the zeros vary along, then the reduction dims) and
// te.sparse (the points, flattened); its schedule attributes are dropped.

// x @ U, U a 4 x 3 constant with 3 nonzeros (flat 1, 5, 9: U[0,1], U[1,2], U[3,0]):
// output j and reduction k are unrolled over the 3 terms (j, k) = (0, 3), (1, 0), (2, 1).
func.func @x_u(%N: index, %x: tensor<?x4xf64>) -> tensor<?x3xf64> {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 5, 9>, values = array<f64: 0.5, -2.0, 3.0>} : tensor<4x3xf64>
  %y = te.reduce "add" [%N, %c3] over [%c4] {te.order = array<i64: 0, 2, 1>} : tensor<?x3xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %w = te.load %u[%k, %j] : tensor<4x3xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @x_u(
// CHECK:       te.reduce "add" [%N, %c3] over [%c4] {te.sparse_dims = array<i64: 1, 2>, te.sparse = array<i64: 0, 3, 1, 0, 2, 1>} : tensor<?x3xf64>
// GONE-LABEL:  func.func @x_u(
// GONE-NOT:    te.order

// -----
// Through weights alone: v = U * w (w a parameter, dense) keeps U's zeros for every w,
// which random draws of w show; the contraction with x skips them. A parameter alone
// (no `nonzeros`) is dense: its contraction is left as it is.
func.func @through_weights(%N: index, %x: tensor<?x4xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 5, 9>} : tensor<4x3xf64>
  %w = te.weight "w" : tensor<4x3xf64>
  %v = te.compute [%c4, %c3] : tensor<4x3xf64> {
  ^bb0(%k: index, %j: index):
    %a = te.load %u[%k, %j] : tensor<4x3xf64> -> f64
    %b = te.load %w[%k, %j] : tensor<4x3xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  %y = te.reduce "add" [%N, %c3] over [%c4] : tensor<?x3xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %b = te.load %v[%k, %j] : tensor<4x3xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  %z = te.reduce "add" [%N, %c3] over [%c4] : tensor<?x3xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %b = te.load %w[%k, %j] : tensor<4x3xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  func.return %y, %z : tensor<?x3xf64>, tensor<?x3xf64>
}
// CHECK-LABEL: func.func @through_weights(
// CHECK:       %y = te.reduce "add" [%N, %c3] over [%c4] {te.sparse_dims = array<i64: 1, 2>, te.sparse = array<i64: 0, 3, 1, 0, 2, 1>}
// CHECK:       %z = te.reduce "add" [%N, %c3] over [%c4] : tensor<?x3xf64>
// GONE-LABEL:  func.func @through_weights(
// GONE:        %z = te.reduce
// GONE-NOT:    te.sparse
// GONE:        func.return

// -----
// A constant more than half nonzero is multiplied densely: 7 of 12 terms.
func.func @dense_enough(%N: index, %x: tensor<?x4xf64>) -> tensor<?x3xf64> {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 0, 1, 2, 3, 5, 7, 9>} : tensor<4x3xf64>
  %y = te.reduce "add" [%N, %c3] over [%c4] : tensor<?x3xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %w = te.load %u[%k, %j] : tensor<4x3xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x3xf64>
}
// GONE-LABEL:  func.func @dense_enough(
// GONE-NOT:    te.sparse

// -----
// Zeros that depend on a dynamic index (x's row picks the column of u) are not
// skipped: the load's indices must come from static dims only.
func.func @dynamic_index(%N: index, %x: tensor<?x4xf64>) -> tensor<?x3xf64> {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 5, 9>} : tensor<4x3xf64>
  %y = te.reduce "add" [%N, %c3] over [%c4] : tensor<?x3xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %r = arith.remui %n, %c3 : index
    %w = te.load %u[%k, %r] : tensor<4x3xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x3xf64>
}
// GONE-LABEL:  func.func @dynamic_index(
// GONE-NOT:    te.sparse
