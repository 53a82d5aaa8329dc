// RUN: pipeline-opt %s --split-input-file -p split-dims | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p split-dims | filecheck %s --check-prefix=GONE

// split-dims: a loop of static extent n read through j / C and j % C (one constant C
// dividing n, 1 < C < n) becomes two loops of n / C and C, u outer: j / C is u, j % C
// is m, other uses of j read u * C + m. Only update spaces of te.scatter and
// reduction dims of te.reduce (a te.compute's dims are its result's shape).

// The outer product of 32 features with 5 harmonic components, flattened to a row
// of 160 and assigned into columns [32, 192) of a wider row (e3nn's concatenation):
// the space [E, 160] becomes [E, 32, 5]; the division and the remainder are gone
// (their names go to the new arguments), x is read at u, sh at m + 4, the update
// at u * 5 + m + 32.
func.func @outer_product(%E: index, %base: tensor<?x288xf64>, %x: tensor<?x32xf64>, %sh: tensor<?x9xf64>) -> tensor<?x288xf64> {
  %c160 = arith.constant 160 : index
  %c5 = arith.constant 5 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %r = te.scatter "assign" %base over [%E, %c160] {te.origin = array<i64: 7>} : tensor<?x288xf64> -> tensor<?x288xf64> {
  ^bb0(%e: index, %j: index):
    %u = arith.divui %j, %c5 : index
    %m = arith.remui %j, %c5 : index
    %a = te.load %x[%e, %u] : tensor<?x32xf64> -> f64
    %k = arith.addi %m, %c4 : index
    %b = te.load %sh[%e, %k] : tensor<?x9xf64> -> f64
    %p = arith.mulf %a, %b : f64
    %col = arith.addi %j, %c32 : index
    te.update [%e, %col], %p : f64
  }
  func.return %r : tensor<?x288xf64>
}
// CHECK-LABEL: func.func @outer_product(
// CHECK:         [[N32:%[0-9]+]] = arith.constant 32 : index
// CHECK-NEXT:    [[N5:%[0-9]+]] = arith.constant 5 : index
// CHECK-NEXT:    %r = te.scatter "assign" %base over [%E, [[N32]], [[N5]]] {te.origin = array<i64: 7>} : tensor<?x288xf64> -> tensor<?x288xf64> {
// CHECK-NEXT:    ^bb0(%e: index, %u: index, %m: index):
// CHECK-NEXT:      [[U5:%[0-9]+]] = arith.muli %u, [[N5]] : index
// CHECK-NEXT:      %j = arith.addi [[U5]], %m : index
// CHECK-NEXT:      %a = te.load %x[%e, %u] : tensor<?x32xf64> -> f64
// CHECK-NEXT:      %k = arith.addi %m, %c4 : index
// CHECK-NEXT:      %b = te.load %sh[%e, %k] : tensor<?x9xf64> -> f64
// CHECK-NEXT:      %p = arith.mulf %a, %b : f64
// CHECK-NEXT:      %col = arith.addi %j, %c32 : index
// CHECK-NEXT:      te.update [%e, %col], %p : f64
// CHECK-NEXT:    }
// GONE-LABEL:  func.func @outer_product(
// GONE-NOT:    arith.divui
// GONE-NOT:    arith.remui
// GONE-LABEL:  func.func @reduction(

// -----
// A reduction over a flattened pair (k = (c, m), 8 x 3 = 24): split, summed in the
// same order; the output dim j, read through j / 4, stays (it is the result's shape).
func.func @reduction(%E: index, %x: tensor<?x24xf64>, %w: tensor<8x16xf64>) -> tensor<?x16xf64> {
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %r = te.reduce "add" [%E, %c16] over [%c24] : tensor<?x16xf64> {
  ^bb0(%e: index, %j: index, %k: index):
    %c = arith.divui %k, %c3 : index
    %jq = arith.divui %j, %c4 : index
    %a = te.load %x[%e, %k] : tensor<?x24xf64> -> f64
    %b = te.load %w[%c, %jq] : tensor<8x16xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  func.return %r : tensor<?x16xf64>
}
// CHECK-LABEL: func.func @reduction(
// CHECK:         [[N8:%[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT:    [[N3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    %r = te.reduce "add" [%E, %c16] over [[[N8]], [[N3]]] : tensor<?x16xf64> {
// CHECK-NEXT:    ^bb0(%e: index, %j: index, [[C:%[a-z0-9]+]]: index, [[M:%[0-9]+]]: index):
// CHECK-NEXT:      [[C3:%[0-9]+]] = arith.muli [[C]], [[N3]] : index
// CHECK-NEXT:      %k = arith.addi [[C3]], [[M]] : index
// CHECK-NEXT:      %jq = arith.divui %j, %c4 : index
// CHECK-NEXT:      %a = te.load %x[%e, %k] : tensor<?x24xf64> -> f64
// CHECK-NEXT:      %b = te.load %w[[[C]], %jq] : tensor<8x16xf64> -> f64

// -----
// Not split: two different divisors (j / 3 and j % 5), a divisor that does not
// divide the extent (10 / 4), a symbol-sized dim, a te.compute.
func.func @kept(%E: index, %base: tensor<?x15xf64>, %x: tensor<?x15xf64>) -> (tensor<?x15xf64>, tensor<?x15xf64>, tensor<?x15xf64>, tensor<?x15xf64>) {
  %c15 = arith.constant 15 : index
  %c10 = arith.constant 10 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %a = te.scatter "assign" %base over [%E, %c15] : tensor<?x15xf64> -> tensor<?x15xf64> {
  ^bb0(%e: index, %j: index):
    %q = arith.divui %j, %c3 : index
    %r = arith.remui %j, %c5 : index
    %v = te.load %x[%e, %q] : tensor<?x15xf64> -> f64
    te.update [%e, %r], %v : f64
  }
  %b = te.scatter "assign" %base over [%E, %c10] : tensor<?x15xf64> -> tensor<?x15xf64> {
  ^bb0(%e: index, %j: index):
    %q = arith.divui %j, %c4 : index
    %v = te.load %x[%e, %q] : tensor<?x15xf64> -> f64
    te.update [%e, %j], %v : f64
  }
  %c = te.scatter "assign" %base over [%E, %c5] : tensor<?x15xf64> -> tensor<?x15xf64> {
  ^bb0(%e: index, %j: index):
    %q = arith.divui %e, %c3 : index
    %v = te.load %x[%q, %j] : tensor<?x15xf64> -> f64
    te.update [%e, %j], %v : f64
  }
  %d = te.compute [%E, %c15] : tensor<?x15xf64> {
  ^bb0(%e: index, %j: index):
    %q = arith.divui %j, %c5 : index
    %v = te.load %x[%e, %q] : tensor<?x15xf64> -> f64
    te.yield %v : f64
  }
  func.return %a, %b, %c, %d : tensor<?x15xf64>, tensor<?x15xf64>, tensor<?x15xf64>, tensor<?x15xf64>
}
// CHECK-LABEL: func.func @kept(
// CHECK:         %a = te.scatter "assign" %base over [%E, %c15]
// CHECK:           arith.divui %j, %c3
// CHECK:         %b = te.scatter "assign" %base over [%E, %c10]
// CHECK:           arith.divui %j{{.*}}, %c4
// CHECK:         %c = te.scatter "assign" %base over [%E, %c5]
// CHECK:           arith.divui %e{{.*}}, %c3
// CHECK:         %d = te.compute [%E, %c15]
// CHECK:           arith.divui %j{{.*}}, %c5
