// RUN: pipeline-opt %s --split-input-file -p unroll-small-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p unroll-small-loops | filecheck %s --check-prefix=GONE

// unroll-small-loops: an innermost scf.for with constant bounds, at most 8 iterations
// and 128 ops unrolled, directly inside another scf.for, becomes its iterations in
// order (the index a constant each, the reduction threaded through). No such loop is
// left; loops that are larger, have a dynamic bound, hold a loop, or sit directly in
// an scf.parallel stay.

// A 3-term dot product per (e, j): the loop over k is unrolled, the loop over j is
// innermost now.
func.func @f(%E: index, %a: memref<?xf64>, %b: memref<?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %e = %c0 to %E step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %sum = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
        %x = memref.load %a[%k] : memref<?xf64>
        %y = memref.load %b[%k] : memref<?xf64>
        %p = arith.mulf %x, %y : f64
        %s = arith.addf %acc, %p : f64
        scf.yield %s : f64
      }
      memref.store %sum, %out[%j] : memref<?xf64>
    }
  }
  func.return
}
// CHECK-LABEL: func.func @f(
// CHECK:       scf.for %e = %c0 to %E step %c1 {
// CHECK-NEXT:    scf.for %j = %c0 to %c8 step %c1 {
// CHECK-NEXT:      %k = arith.constant 0 : index
// CHECK-NEXT:      %x = memref.load %a[%k] : memref<?xf64>
// CHECK-NEXT:      %y = memref.load %b[%k] : memref<?xf64>
// CHECK-NEXT:      %p = arith.mulf %x, %y : f64
// CHECK-NEXT:      %s = arith.addf %zero, %p : f64
// CHECK-NEXT:      %k_1 = arith.constant 1 : index
// CHECK:           %s_1 = arith.addf %s, %p_1 : f64
// CHECK-NEXT:      %k_2 = arith.constant 2 : index
// CHECK:           %s_2 = arith.addf %s_1, %p_2 : f64
// CHECK-NEXT:      memref.store %s_2, %out[%j] : memref<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// GONE-NOT:    scf.for %k

// -----

// Left alone: 9 iterations; 8 iterations of 17 ops (136 > 128); a dynamic bound; a
// loop holding a loop; a small loop directly in a parallel loop (the row's innermost:
// LLVM vectorizes it as it is); a small loop at the top of the function.
func.func @g(%n: index, %a: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %x = arith.constant 1.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %big = %c0 to %c9 step %c1 {
      memref.store %x, %a[%big] : memref<?xf64>
    }
    scf.for %long = %c0 to %c8 step %c1 {
      %v0 = memref.load %a[%long] : memref<?xf64>
      %v1 = arith.addf %v0, %v0 : f64
      %v2 = arith.addf %v1, %v1 : f64
      %v3 = arith.addf %v2, %v2 : f64
      %v4 = arith.addf %v3, %v3 : f64
      %v5 = arith.addf %v4, %v4 : f64
      %v6 = arith.addf %v5, %v5 : f64
      %v7 = arith.addf %v6, %v6 : f64
      %v8 = arith.addf %v7, %v7 : f64
      %v9 = arith.addf %v8, %v8 : f64
      %v10 = arith.addf %v9, %v9 : f64
      %v11 = arith.addf %v10, %v10 : f64
      %v12 = arith.addf %v11, %v11 : f64
      %v13 = arith.addf %v12, %v12 : f64
      %v14 = arith.addf %v13, %v13 : f64
      %v15 = arith.addf %v14, %v14 : f64
      memref.store %v15, %a[%long] : memref<?xf64>
    }
    scf.for %dyn = %c0 to %n step %c1 {
      memref.store %x, %a[%dyn] : memref<?xf64>
    }
    scf.for %outer = %c0 to %c2 step %c1 {
      scf.for %inner = %c0 to %n step %c1 {
        memref.store %x, %a[%inner] : memref<?xf64>
      }
    }
  }
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%r: index):
    scf.for %row = %c0 to %c2 step %c1 {
      memref.store %x, %a[%row] : memref<?xf64>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  scf.for %top = %c0 to %c2 step %c1 {
    memref.store %x, %a[%top] : memref<?xf64>
  }
  func.return
}
// CHECK-LABEL: func.func @g(
// CHECK:       scf.for %big = %c0 to %c9 step %c1 {
// CHECK:       scf.for %long = %c0 to %c8 step %c1 {
// CHECK:       scf.for %dyn = %c0 to %n step %c1 {
// CHECK:       scf.for %outer = %c0 to %c2 step %c1 {
// CHECK-NEXT:    scf.for %inner = %c0 to %n step %c1 {
// CHECK:       scf.for %row = %c0 to %c2 step %c1 {
// CHECK:       scf.for %top = %c0 to %c2 step %c1 {
