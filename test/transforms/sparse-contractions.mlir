// RUN: pipeline-opt %s --split-input-file -p sparse-contractions | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p sparse-contractions | filecheck %s --check-prefix=GONE

// sparse-contractions: a te.reduce "add" whose yielded product has a factor loaded from
// a static tensor with structural zeros (a te.weight listing its `nonzeros`, or a static
// op computed from weights alone) gets the nonzero terms over its static dims:
// te.sparse_dims (the output dims the zeros vary along, then the reduction dims) and
// te.sparse (the points, flattened); its schedule attributes are dropped.

// x @ U, U a 4 x 8 constant with 3 nonzeros (flat 1, 10, 24: U[0,1], U[1,2], U[3,0]):
// output j and reduction k are unrolled over the 3 terms (j, k) = (0, 3), (1, 0), (2, 1)
// of the 32 (the zeros must be at least 7 in 8: the dense sum is vectorized).
func.func @x_u(%N: index, %x: tensor<?x4xf64>) -> tensor<?x8xf64> {
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 10, 24>, values = array<f64: 0.5, -2.0, 3.0>} : tensor<4x8xf64>
  %y = te.reduce "add" [%N, %c8] over [%c4] {te.order = array<i64: 0, 2, 1>} : tensor<?x8xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %w = te.load %u[%k, %j] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x8xf64>
}
// CHECK-LABEL: func.func @x_u(
// CHECK:       te.reduce "add" [%N, %c8] over [%c4] {te.sparse_dims = array<i64: 1, 2>, te.sparse = array<i64: 0, 3, 1, 0, 2, 1>} : tensor<?x8xf64>
// GONE-LABEL:  func.func @x_u(
// GONE-NOT:    te.order

// -----
// Through weights alone: v = U * w (w a parameter, dense) keeps U's zeros for every w,
// which random draws of w show; the contraction with x skips them. A parameter alone
// (no `nonzeros`) is dense: its contraction is left as it is.
func.func @through_weights(%N: index, %x: tensor<?x4xf64>) -> (tensor<?x8xf64>, tensor<?x8xf64>) {
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 10, 24>} : tensor<4x8xf64>
  %w = te.weight "w" : tensor<4x8xf64>
  %v = te.compute [%c4, %c8] : tensor<4x8xf64> {
  ^bb0(%k: index, %j: index):
    %a = te.load %u[%k, %j] : tensor<4x8xf64> -> f64
    %b = te.load %w[%k, %j] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  %y = te.reduce "add" [%N, %c8] over [%c4] : tensor<?x8xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %b = te.load %v[%k, %j] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  %z = te.reduce "add" [%N, %c8] over [%c4] : tensor<?x8xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %b = te.load %w[%k, %j] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  func.return %y, %z : tensor<?x8xf64>, tensor<?x8xf64>
}
// CHECK-LABEL: func.func @through_weights(
// CHECK:       %y = te.reduce "add" [%N, %c8] over [%c4] {te.sparse_dims = array<i64: 1, 2>, te.sparse = array<i64: 0, 3, 1, 0, 2, 1>}
// CHECK:       %z = te.reduce "add" [%N, %c8] over [%c4] : tensor<?x8xf64>
// GONE-LABEL:  func.func @through_weights(
// GONE:        %z = te.reduce
// GONE-NOT:    te.sparse
// GONE:        func.return

// -----
// A constant more than 1 in 8 nonzero is multiplied densely (5 of 32 terms): its
// dense sum vectorizes, 8 f64 lanes at a time.
func.func @dense_enough(%N: index, %x: tensor<?x4xf64>) -> tensor<?x8xf64> {
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 0, 1, 2, 3, 5>} : tensor<4x8xf64>
  %y = te.reduce "add" [%N, %c8] over [%c4] : tensor<?x8xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %w = te.load %u[%k, %j] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x8xf64>
}
// GONE-LABEL:  func.func @dense_enough(
// GONE-NOT:    te.sparse

// -----
// Zeros that depend on a dynamic index (x's row picks the column of u) are not
// skipped: the load's indices must come from static dims only.
func.func @dynamic_index(%N: index, %x: tensor<?x4xf64>) -> tensor<?x8xf64> {
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %u = te.weight "u" {nonzeros = array<i64: 1, 10, 24>} : tensor<4x8xf64>
  %y = te.reduce "add" [%N, %c8] over [%c4] : tensor<?x8xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %r = arith.remui %n, %c8 : index
    %w = te.load %u[%k, %r] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %w : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x8xf64>
}
// GONE-LABEL:  func.func @dynamic_index(
// GONE-NOT:    te.sparse

// -----
// Zeros a parameter's values decide are not structural: relu(u * w) is zero where u is,
// and also wherever u * w < 0, which random draws of w would take for structure. max,
// min, select and comparisons are not evaluated, so nothing is skipped.
func.func @through_relu(%N: index, %x: tensor<?x4xf64>) -> tensor<?x8xf64> {
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %u = te.weight "u" {nonzeros = array<i64: 1, 10, 24>} : tensor<4x8xf64>
  %w = te.weight "w" : tensor<4x8xf64>
  %v = te.compute [%c4, %c8] : tensor<4x8xf64> {
  ^bb0(%k: index, %j: index):
    %a = te.load %u[%k, %j] : tensor<4x8xf64> -> f64
    %b = te.load %w[%k, %j] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %b : f64
    %r = arith.maximumf %p, %zero : f64
    te.yield %r : f64
  }
  %y = te.reduce "add" [%N, %c8] over [%c4] : tensor<?x8xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %a = te.load %x[%n, %k] : tensor<?x4xf64> -> f64
    %b = te.load %v[%k, %j] : tensor<4x8xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x8xf64>
}
// GONE-LABEL:  func.func @through_relu(
// GONE-NOT:    te.sparse
