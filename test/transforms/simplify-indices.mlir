// RUN: pipeline-opt %s --split-input-file -p simplify-indices,canonicalize,cse | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p simplify-indices,canonicalize,cse | filecheck %s --check-prefix=GONE

// simplify-indices: in te bodies, the div/rem chains of reshaped indices fold from
// the bounds of the body's arguments (their extents) and of te.index (its dim):
// x % c -> x and x / c -> 0 when x < c; (p * q + b) % c -> b % c and
// (p * q + b) / c -> p * (q / c) + b / c when c divides q; nested % and / merge.
// (canonicalize and cse remove what the rewrites leave unused or twice.)

// A weight of 32 x 32 x 32 read through two reshapes (as NequIP's species-wise
// self-interaction does): every remui/divui by 32768 and the round trip through
// (k * 32 + j) vanish; the load's index becomes ((k % 32) * 32 + k / 32) * 32 + j,
// unit stride in j.
func.func @reshapes(%E: index, %x: tensor<?x32xf64>, %w: tensor<32768xf64>) -> tensor<?x32xf64> {
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %c32768 = arith.constant 32768 : index
  %y = te.reduce "add" [%E, %c32] over [%c1024] : tensor<?x32xf64> {
  ^bb0(%n: index, %j: index, %k: index):
    %0 = arith.remui %k, %c32 : index
    %a = te.load %x[%n, %0] : tensor<?x32xf64> -> f64
    %1 = arith.muli %k, %c32 : index
    %2 = arith.addi %1, %j : index
    %3 = arith.remui %2, %c32 : index
    %4 = arith.divui %2, %c32 : index
    %5 = arith.remui %4, %c32 : index
    %6 = arith.divui %4, %c32 : index
    %7 = arith.muli %5, %c32 : index
    %8 = arith.addi %7, %6 : index
    %9 = arith.muli %8, %c32 : index
    %10 = arith.addi %9, %3 : index
    %11 = arith.remui %10, %c32768 : index
    %12 = arith.divui %10, %c32768 : index
    %13 = arith.muli %12, %c32768 : index
    %14 = arith.addi %13, %11 : index
    %b = te.load %w[%14] : tensor<32768xf64> -> f64
    %p = arith.mulf %a, %b : f64
    te.yield %p : f64
  }
  func.return %y : tensor<?x32xf64>
}
// CHECK-LABEL: func.func @reshapes(
// CHECK:      ^bb0(%n: index, %j: index, %k: index):
// CHECK-NEXT:   %0 = arith.remui %k, %c32 : index
// CHECK-NEXT:   %a = te.load %x[%n, %0] : tensor<?x32xf64> -> f64
// CHECK-NEXT:   %1 = arith.remui %k, %c32 : index
// CHECK-NEXT:   %2 = arith.divui %k, %c32 : index
// CHECK-NEXT:   %3 = arith.muli %1, %c32 : index
// CHECK-NEXT:   %4 = arith.addi %3, %2 : index
// CHECK-NEXT:   %5 = arith.muli %4, %c32 : index
// CHECK-NEXT:   %6 = arith.addi %5, %j : index
// CHECK-NEXT:   %b = te.load %w[%6] : tensor<32768xf64> -> f64
// CHECK-NEXT:   %p = arith.mulf %a, %b : f64
// CHECK-NEXT:   te.yield %p : f64
// GONE-LABEL: func.func @reshapes(
// GONE-NOT:   %c32768
// GONE-NOT:   arith.divui %{{.*}}, %c1024

// -----
// Bounds from te.index (a species id indexes a dim of 4: (t * 4 + s) / 4 is t when
// s = te.index < 4) and from extents; no fold when the bound does not prove it (j
// ranges over 33, so j % 32 stays), nor outside a te body.
func.func @bounds(%N: index, %types: tensor<?xi64>, %w: tensor<?x4xf32>, %i: index) -> (tensor<?x33xf32>, index) {
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c33 = arith.constant 33 : index
  %y = te.compute [%N, %c33] : tensor<?x33xf32> {
  ^bb0(%n: index, %j: index):
    %t = te.load %types[%n] : tensor<?xi64> -> i64
    %s = te.index %t in %c4 {site = 1 : i64} : i64
    %0 = arith.muli %n, %c4 : index
    %1 = arith.addi %0, %s : index
    %row = arith.divui %1, %c4 : index
    %col = arith.remui %1, %c4 : index
    %v = te.load %w[%row, %col] : tensor<?x4xf32> -> f32
    %2 = arith.remui %j, %c32 : index
    %3 = arith.index_cast %2 : index to i64
    %4 = arith.sitofp %3 : i64 to f32
    %5 = arith.addf %v, %4 : f32
    te.yield %5 : f32
  }
  %outside = arith.remui %i, %c32 : index
  func.return %y, %outside : tensor<?x33xf32>, index
}
// CHECK-LABEL: func.func @bounds(
// CHECK:        %s = te.index %t in %c4 {site = 1 : i64} : i64
// CHECK-NEXT:   %v = te.load %w[%n, %s] : tensor<?x4xf32> -> f32
// CHECK-NEXT:   %0 = arith.remui %j, %c32 : index
// CHECK:      %outside = arith.remui %i, %c32 : index
// GONE-LABEL: func.func @bounds(
// GONE-NOT:   arith.divui

// -----
// A size symbol as the divisor: [8, N] flattened and read back, (c * N + n) / N is
// c and (c * N + n) % N is n, since n ranges over N.
func.func @symbolic(%N: index, %x: tensor<8x?xf32>) -> tensor<8x?xf32> {
  %c8 = arith.constant 8 : index
  %y = te.compute [%c8, %N] : tensor<8x?xf32> {
  ^bb0(%c: index, %n: index):
    %0 = arith.muli %c, %N : index
    %1 = arith.addi %0, %n : index
    %2 = arith.divui %1, %N : index
    %3 = arith.remui %1, %N : index
    %v = te.load %x[%2, %3] : tensor<8x?xf32> -> f32
    te.yield %v : f32
  }
  func.return %y : tensor<8x?xf32>
}
// CHECK-LABEL: func.func @symbolic(
// CHECK:      ^bb0(%c: index, %n: index):
// CHECK-NEXT:   %v = te.load %x[%c, %n] : tensor<8x?xf32> -> f32
// CHECK-NEXT:   te.yield %v : f32
// GONE-LABEL: func.func @symbolic(
// GONE-NOT:   arith.divui
// GONE-NOT:   arith.remui

// -----
// Radices that do not line up (a [8, N, 9, 3, 9] view read as [8N, 9, 27]): the
// linear index 1944 n + 243 c + 27 (k % 9) + 9 (k / 81) + (k / 9) % 9 splits at each
// divisor into the multiples of it (which divide exactly) and a rest below it, and
// (k / 81) * 9 + (k / 9) % 9 recombines to k / 9: the load becomes
// x[n * 8 + c, k % 9, k / 9], no div or rem by 27, 81 or 243 left.
func.func @mixed(%N: index, %x: tensor<?x9x27xf64>) -> tensor<8x?x18xf64> {
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c18 = arith.constant 18 : index
  %c27 = arith.constant 27 : index
  %c81 = arith.constant 81 : index
  %c243 = arith.constant 243 : index
  %y = te.reduce "add" [%c8, %N, %c18] over [%c243] : tensor<8x?x18xf64> {
  ^bb0(%c: index, %n: index, %j: index, %k: index):
    %0 = arith.remui %k, %c9 : index
    %1 = arith.divui %k, %c9 : index
    %2 = arith.remui %1, %c9 : index
    %3 = arith.divui %k, %c81 : index
    %4 = arith.muli %n, %c8 : index
    %5 = arith.addi %4, %c : index
    %6 = arith.muli %5, %c9 : index
    %7 = arith.addi %6, %0 : index
    %8 = arith.muli %7, %c3 : index
    %9 = arith.addi %8, %3 : index
    %10 = arith.muli %9, %c9 : index
    %11 = arith.addi %10, %2 : index
    %12 = arith.remui %11, %c27 : index
    %13 = arith.divui %11, %c27 : index
    %14 = arith.remui %13, %c9 : index
    %15 = arith.divui %11, %c243 : index
    %v = te.load %x[%15, %14, %12] : tensor<?x9x27xf64> -> f64
    te.yield %v : f64
  }
  func.return %y : tensor<8x?x18xf64>
}
// CHECK-LABEL: func.func @mixed(
// CHECK:      ^bb0(%c: index, %n: index, %j: index, %k: index):
// CHECK-NEXT:   %0 = arith.remui %k, %c9 : index
// CHECK-NEXT:   %1 = arith.divui %k, %c9 : index
// CHECK-NEXT:   %2 = arith.muli %n, %c8 : index
// CHECK-NEXT:   %3 = arith.addi %2, %c : index
// CHECK-NEXT:   %v = te.load %x[%3, %0, %1] : tensor<?x9x27xf64> -> f64
// GONE-LABEL: func.func @mixed(
// GONE-NOT:   %c27
// GONE-NOT:   arith.divui %{{.*}}, %c81
// GONE-NOT:   arith.divui %{{.*}}, %c243

// -----
// A delinearized index linearized again with a stride: 729 (m / 81) + 81 ((m / 9) % 9)
// + 9 (m % 9) recombines, pair by pair (k (y % b) + k b (y / b) is k y), into 9 m.
func.func @recombine(%N: index, %w: tensor<16x2187xf64>) -> tensor<?x243xf64> {
  %c9 = arith.constant 9 : index
  %c81 = arith.constant 81 : index
  %c243 = arith.constant 243 : index
  %c729 = arith.constant 729 : index
  %y = te.compute [%N, %c243] : tensor<?x243xf64> {
  ^bb0(%n: index, %m: index):
    %0 = arith.remui %m, %c9 : index
    %1 = arith.divui %m, %c9 : index
    %2 = arith.remui %1, %c9 : index
    %3 = arith.divui %m, %c81 : index
    %4 = arith.muli %3, %c729 : index
    %5 = arith.muli %2, %c81 : index
    %6 = arith.addi %4, %5 : index
    %7 = arith.muli %0, %c9 : index
    %8 = arith.addi %6, %7 : index
    %v = te.load %w[%n, %8] : tensor<16x2187xf64> -> f64
    te.yield %v : f64
  }
  func.return %y : tensor<?x243xf64>
}
// CHECK-LABEL: func.func @recombine(
// CHECK:      ^bb0(%n: index, %m: index):
// CHECK-NEXT:   %0 = arith.constant 9 : index
// CHECK-NEXT:   %1 = arith.muli %m, %0 : index
// CHECK-NEXT:   %v = te.load %w[%n, %1] : tensor<16x2187xf64> -> f64
// GONE-LABEL: func.func @recombine(
// GONE-NOT:   arith.remui
// GONE-NOT:   arith.divui

// -----
// A block of columns [128, 288) of a [E, 288] tensor, its start clamped as the
// slice lowering emits it (min(max(128, 0), 288): constants once min and max fold);
// then (j + 128) % 288 is j + 128 and (j + 128) / 288 is 0 for j < 160: no division
// is left, and the load runs along j.
func.func @clamped_slice(%E: index, %x: tensor<?x288xf64>) -> tensor<?x160xf64> {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c160 = arith.constant 160 : index
  %c288 = arith.constant 288 : index
  %lo = arith.maxsi %c128, %c0 : index
  %start = arith.minsi %lo, %c288 : index
  %y = te.compute [%E, %c160] : tensor<?x160xf64> {
  ^bb0(%e: index, %j: index):
    %col = arith.addi %j, %start : index
    %r = arith.remui %col, %c288 : index
    %q = arith.divui %col, %c288 : index
    %row = arith.addi %e, %q : index
    %v = te.load %x[%row, %r] : tensor<?x288xf64> -> f64
    te.yield %v : f64
  }
  func.return %y : tensor<?x160xf64>
}
// CHECK-LABEL: func.func @clamped_slice(
// CHECK:         %start = arith.constant 128 : index
// CHECK-NEXT:    %y = te.compute [%E, %c160] : tensor<?x160xf64> {
// CHECK-NEXT:    ^bb0(%e: index, %j: index):
// CHECK-NEXT:      %col = arith.addi %j, %start : index
// CHECK-NEXT:      %v = te.load %x[%e, %col] : tensor<?x288xf64> -> f64
// GONE-LABEL:  func.func @clamped_slice(
// GONE-NOT:      arith.maxsi
// GONE-NOT:      arith.minsi
// GONE-NOT:      arith.remui
// GONE-NOT:      arith.divui
