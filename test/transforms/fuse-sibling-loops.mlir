// RUN: pipeline-opt %s --split-input-file -p fuse-sibling-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p fuse-sibling-loops | filecheck %s --check-prefix=GONE

// fuse-sibling-loops: a loop and one of the next 4 loops with the same bounds and
// step (scf.for with scf.for, scf.parallel with scf.parallel) that read a common
// buffer and neither writes what the other reads or writes become one loop running
// both bodies; so do a producer and its consumer when the consumer reads each
// element the producer stores in the same iteration, at the same row-major index
// of corresponding loop variables (see @producer_consumer); the
// ops between them move out of the way (those using the first loop's results after
// the second loop, the others before the first). Merged bodies are fused the same
// way, so two inner reductions share one scf.for with two accumulators.

// Two reductions over the 16 Gaussians of each edge (the backward's dE/dr terms),
// both reading g: the edge loops merge, then their inner sums, carried as two
// accumulators of one scf.for; each store of a sum moves after the merged sums,
// the second nest's load of %r moves up. (cse then shares their common work.)
func.func @sums(%E: index, %g: memref<?xf32>, %r: memref<?xf32>, %a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.000000e+00 : f32
  "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%e: index):
    %row = arith.muli %e, %c16 : index
    %sa = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
      %at = arith.addi %row, %k : index
      %v = memref.load %g[%at] : memref<?xf32>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    }
    memref.store %sa, %a[%e] : memref<?xf32>
    %x = memref.load %r[%e] : memref<?xf32>
    %sb = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
      %at = arith.addi %row, %k : index
      %v = memref.load %g[%at] : memref<?xf32>
      %p = arith.mulf %v, %x : f32
      %s = arith.addf %acc, %p : f32
      scf.yield %s : f32
    }
    memref.store %sb, %b[%e] : memref<?xf32>
    scf.reduce
  }) {loops.min_chunk = 64 : i64} : (index, index, index) -> ()
  func.return
}
// CHECK:      builtin.module {
// CHECK-NEXT: func.func @sums(%E: index, %g: memref<?xf32>, %r: memref<?xf32>, %a: memref<?xf32>, %b: memref<?xf32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT: ^bb0(%e: index):
// CHECK-NEXT:   %row = arith.muli %e, %c16 : index
// CHECK-NEXT:   %x = memref.load %r[%e] : memref<?xf32>
// CHECK-NEXT:   %sa, %sb = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero, %acc_1 = %zero) -> (f32, f32) {
// CHECK-NEXT:     %at = arith.addi %row, %k : index
// CHECK-NEXT:     %v = memref.load %g[%at] : memref<?xf32>
// CHECK-NEXT:     %s = arith.addf %acc, %v : f32
// CHECK-NEXT:     %at_1 = arith.addi %row, %k : index
// CHECK-NEXT:     %v_1 = memref.load %g[%at_1] : memref<?xf32>
// CHECK-NEXT:     %p = arith.mulf %v_1, %x : f32
// CHECK-NEXT:     %s_1 = arith.addf %acc_1, %p : f32
// CHECK-NEXT:     scf.yield %s, %s_1 : f32, f32
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.store %sa, %a[%e] : memref<?xf32>
// CHECK-NEXT:   memref.store %sb, %b[%e] : memref<?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) {loops.min_chunk = 64 : i64} : (index, index, index) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @sums(
// GONE:       scf.for
// GONE-NOT:   scf.for

// -----
// Two edge loops reading a common %x merge across the allocation between them
// (it moves above); the merged scf.parallel keeps the smaller min_chunk.
func.func @alloc_between(%E: index, %x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%e: index):
    %v = memref.load %x[%e] : memref<?xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y[%e] : memref<?xf32>
    scf.reduce
  }) {loops.min_chunk = 64 : i64} : (index, index, index) -> ()
  %t = memref.alloc(%E) : memref<?xf32>
  "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%e: index):
    %v = memref.load %x[%e] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %t[%e] : memref<?xf32>
    scf.reduce
  }) {loops.min_chunk = 16 : i64} : (index, index, index) -> ()
  memref.dealloc %t : memref<?xf32>
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @alloc_between(%E: index, %x: memref<?xf32>, %y: memref<?xf32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %t = memref.alloc(%E) : memref<?xf32>
// CHECK-NEXT: "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT: ^bb0(%e: index):
// CHECK-NEXT:   %v = memref.load %x[%e] : memref<?xf32>
// CHECK-NEXT:   %w = arith.mulf %v, %v : f32
// CHECK-NEXT:   memref.store %w, %y[%e] : memref<?xf32>
// CHECK-NEXT:   %v_1 = memref.load %x[%e] : memref<?xf32>
// CHECK-NEXT:   %w_1 = arith.addf %v_1, %v_1 : f32
// CHECK-NEXT:   memref.store %w_1, %t[%e] : memref<?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) {loops.min_chunk = 16 : i64} : (index, index, index) -> ()
// CHECK-NEXT: memref.dealloc %t : memref<?xf32>
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @alloc_between(
// GONE:       scf.parallel
// GONE-NOT:   scf.parallel

// -----
// Not fused: the second loop reads what the first writes (%y) at another element
// (the next one); loops over different ranges (%E, %N); loops sharing no buffer;
// scf.for with scf.parallel.
func.func @kept(%N: index, %E: index, %x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>, %u: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %e = %c0 to %E step %c1 {
    %v = memref.load %x[%e] : memref<?xf32>
    memref.store %v, %y[%e] : memref<?xf32>
  }
  scf.for %e = %c0 to %E step %c1 {
    %f = arith.addi %e, %c1 : index
    %v = memref.load %y[%f] : memref<?xf32>
    %w = memref.load %x[%e] : memref<?xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %z[%e] : memref<?xf32>
  }
  scf.for %n = %c0 to %N step %c1 {
    %v = memref.load %x[%n] : memref<?xf32>
    memref.store %v, %u[%n] : memref<?xf32>
  }
  "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%n: index):
    %v = memref.load %x[%n] : memref<?xf32>
    memref.store %v, %z[%n] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @kept(%N: index, %E: index, %x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>, %u: memref<?xf32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: scf.for %e = %c0 to %E step %c1 {
// CHECK-NEXT:   %v = memref.load %x[%e] : memref<?xf32>
// CHECK-NEXT:   memref.store %v, %y[%e] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %e_1 = %c0 to %E step %c1 {
// CHECK-NEXT:   %f = arith.addi %e_1, %c1 : index
// CHECK-NEXT:   %v_1 = memref.load %y[%f] : memref<?xf32>
// CHECK-NEXT:   %w = memref.load %x[%e_1] : memref<?xf32>
// CHECK-NEXT:   %s = arith.addf %v_1, %w : f32
// CHECK-NEXT:   memref.store %s, %z[%e_1] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %n = %c0 to %N step %c1 {
// CHECK-NEXT:   %v_2 = memref.load %x[%n] : memref<?xf32>
// CHECK-NEXT:   memref.store %v_2, %u[%n] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT: ^bb0(%n_1: index):
// CHECK-NEXT:   %v_3 = memref.load %x[%n_1] : memref<?xf32>
// CHECK-NEXT:   memref.store %v_3, %z[%n_1] : memref<?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) : (index, index, index) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @kept(
// GONE-COUNT-3: scf.for

// -----
// A sum stored after the first loop and read back by the next op: both ops stay
// after the merged loop, in their order (the load never moves above the store).
func.func @stored_then_read(%N: index, %x: memref<?xf32>, %y: memref<?xf32>, %t: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %s = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  memref.store %s, %t[%c0] : memref<?xf32>
  %r = memref.load %t[%c0] : memref<?xf32>
  memref.store %r, %out[%c0] : memref<?xf32>
  scf.for %i = %c0 to %N step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %y[%i] : memref<?xf32>
  }
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @stored_then_read(%N: index, %x: memref<?xf32>, %y: memref<?xf32>, %t: memref<?xf32>, %out: memref<?xf32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %s = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (f32) {
// CHECK-NEXT:   %v = memref.load %x[%i] : memref<?xf32>
// CHECK-NEXT:   %a = arith.addf %acc, %v : f32
// CHECK-NEXT:   %v_1 = memref.load %x[%i] : memref<?xf32>
// CHECK-NEXT:   memref.store %v_1, %y[%i] : memref<?xf32>
// CHECK-NEXT:   scf.yield %a : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %s, %t[%c0] : memref<?xf32>
// CHECK-NEXT: %r = memref.load %t[%c0] : memref<?xf32>
// CHECK-NEXT: memref.store %r, %out[%c0] : memref<?xf32>
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @stored_then_read(
// GONE:       scf.for
// GONE-NOT:   scf.for

// -----
// Two scatters into copies of one base, with the second copy between them (as
// index_add twice into zeros): the copy loop, independent of the first scatter,
// moves above it, and the two edge loops, which read the same edges, merge.
func.func @across_a_loop(%N: index, %E: index, %base: memref<?xf32>, %dst: memref<?xi64>, %v: memref<?xf32>, %a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %e = %c0 to %E step %c1 {
    %r = memref.load %dst[%e] : memref<?xi64>
    %n = arith.index_cast %r : i64 to index
    %x = memref.load %v[%e] : memref<?xf32>
    %old = memref.load %a[%n] : memref<?xf32>
    %new = arith.addf %old, %x : f32
    memref.store %new, %a[%n] : memref<?xf32>
  }
  scf.for %i = %c0 to %N step %c1 {
    %z = memref.load %base[%i] : memref<?xf32>
    memref.store %z, %b[%i] : memref<?xf32>
  }
  scf.for %e = %c0 to %E step %c1 {
    %r = memref.load %dst[%e] : memref<?xi64>
    %n = arith.index_cast %r : i64 to index
    %x = memref.load %v[%e] : memref<?xf32>
    %y = arith.negf %x : f32
    %old = memref.load %b[%n] : memref<?xf32>
    %new = arith.addf %old, %y : f32
    memref.store %new, %b[%n] : memref<?xf32>
  }
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @across_a_loop(%N: index, %E: index, %base: memref<?xf32>, %dst: memref<?xi64>, %v: memref<?xf32>, %a: memref<?xf32>, %b: memref<?xf32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: scf.for %i = %c0 to %N step %c1 {
// CHECK-NEXT:   %z = memref.load %base[%i] : memref<?xf32>
// CHECK-NEXT:   memref.store %z, %b[%i] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %e = %c0 to %E step %c1 {
// CHECK-NEXT:   %r = memref.load %dst[%e] : memref<?xi64>
// CHECK-NEXT:   %n = arith.index_cast %r : i64 to index
// CHECK-NEXT:   %x = memref.load %v[%e] : memref<?xf32>
// CHECK-NEXT:   %old = memref.load %a[%n] : memref<?xf32>
// CHECK-NEXT:   %new = arith.addf %old, %x : f32
// CHECK-NEXT:   memref.store %new, %a[%n] : memref<?xf32>
// CHECK-NEXT:   %r_1 = memref.load %dst[%e] : memref<?xi64>
// CHECK-NEXT:   %n_1 = arith.index_cast %r_1 : i64 to index
// CHECK-NEXT:   %x_1 = memref.load %v[%e] : memref<?xf32>
// CHECK-NEXT:   %y = arith.negf %x_1 : f32
// CHECK-NEXT:   %old_1 = memref.load %b[%n_1] : memref<?xf32>
// CHECK-NEXT:   %new_1 = arith.addf %old_1, %y : f32
// CHECK-NEXT:   memref.store %new_1, %b[%n_1] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @across_a_loop(
// GONE-COUNT-2: scf.for

// -----
// A dependent pair stays apart: the third loop uses, inside its body, the sum of the
// first (stored, loaded back as %m); the second loop depends on nothing and merges
// with the first instead, taking that sum's neighbours along (issue: compiling
// (r * r.sum()).sum() put the dependent loop above the load of %m it reads).
func.func @dependent(%E: index, %x: memref<?xf32>, %t: memref<?xf32>, %a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.000000e+00 : f32
  %s = scf.for %e = %c0 to %E step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%e] : memref<?xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  memref.store %s, %t[%c0] : memref<?xf32>
  %m = memref.load %t[%c0] : memref<?xf32>
  scf.for %e = %c0 to %E step %c1 {
    %v = memref.load %x[%e] : memref<?xf32>
    %w = arith.mulf %v, %m : f32
    memref.store %w, %a[%e] : memref<?xf32>
  }
  scf.for %e = %c0 to %E step %c1 {
    %v = memref.load %x[%e] : memref<?xf32>
    %w = arith.negf %v : f32
    memref.store %w, %b[%e] : memref<?xf32>
  }
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @dependent(%E: index, %x: memref<?xf32>, %t: memref<?xf32>, %a: memref<?xf32>, %b: memref<?xf32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %zero = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %s = scf.for %e = %c0 to %E step %c1 iter_args(%acc = %zero) -> (f32) {
// CHECK-NEXT:   %v = memref.load %x[%e] : memref<?xf32>
// CHECK-NEXT:   %n = arith.addf %acc, %v : f32
// CHECK-NEXT:   %v_1 = memref.load %x[%e] : memref<?xf32>
// CHECK-NEXT:   %w = arith.negf %v_1 : f32
// CHECK-NEXT:   memref.store %w, %b[%e] : memref<?xf32>
// CHECK-NEXT:   scf.yield %n : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %s, %t[%c0] : memref<?xf32>
// CHECK-NEXT: %m = memref.load %t[%c0] : memref<?xf32>
// CHECK-NEXT: scf.for %e_1 = %c0 to %E step %c1 {
// CHECK-NEXT:   %v_2 = memref.load %x[%e_1] : memref<?xf32>
// CHECK-NEXT:   %w_1 = arith.mulf %v_2, %m : f32
// CHECK-NEXT:   memref.store %w_1, %a[%e_1] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @dependent(
// GONE-COUNT-2: scf.for
// GONE-NOT:   scf.for

// -----
// Vector loads and stores are accesses too: the first loop writes rows of %y with
// vector.store (a register-blocked x @ W), the second reads %y at another row;
// merged, it would read rows not yet written (issue: a three-body model's forces
// varied from run to run). The two loops stay apart.
func.func @vector_write(%E: index, %x: memref<?xf32>, %y: memref<?xf32>, %other: memref<?xi64>, %z: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %e = %c0 to %E step %c1 {
    %row = arith.muli %e, %c8 : index
    %v = vector.load %x[%row] : memref<?xf32>, vector<8xf32>
    %w = arith.mulf %v, %v : vector<8xf32>
    vector.store %w, %y[%row] : memref<?xf32>, vector<8xf32>
  }
  scf.for %e = %c0 to %E step %c1 {
    %k = memref.load %other[%e] : memref<?xi64>
    %ki = arith.index_cast %k : i64 to index
    %at = arith.muli %ki, %c8 : index
    %g = memref.load %y[%at] : memref<?xf32>
    %row = arith.muli %e, %c8 : index
    %u = memref.load %x[%row] : memref<?xf32>
    %s = arith.addf %g, %u : f32
    memref.store %s, %z[%e] : memref<?xf32>
  }
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT: func.func @vector_write(
// CHECK:      scf.for %e = %c0 to %E step %c1 {
// CHECK:        vector.store %w, %y[%row] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %e_1 = %c0 to %E step %c1 {
// CHECK:        memref.store %s, %z[%e_1] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// GONE-LABEL: @vector_write(
// GONE-COUNT-2: scf.for

// -----
// A producer and its consumer (the lowering of s = sigmoid(h) and a = h * s over
// [E, 64], columns 32..95 of a 128-wide s): the consumer reads s[e * 128 + j + 32]
// where the producer stored it in the same iteration, so the loops merge, then
// their inner loops, and s is read right after it is stored. Kept apart: a consumer
// reading another row (s[(e + 1) * 128 + ...]), and a producer storing every
// iteration into the same element (t[0]: the last iteration's value is the one read).
func.func @producer_consumer(%E: index, %h: memref<?xf32>, %s: memref<?xf32>, %a: memref<?xf32>, %t: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%e: index):
    scf.for %j = %c0 to %c64 step %c1 {
      %row = arith.muli %e, %c64 : index
      %at = arith.addi %row, %j : index
      %x = memref.load %h[%at] : memref<?xf32>
      %y = math.exp %x : f32
      %srow = arith.muli %e, %c128 : index
      %col = arith.addi %j, %c32 : index
      %sat = arith.addi %srow, %col : index
      memref.store %y, %s[%sat] : memref<?xf32>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%e: index):
    scf.for %j = %c0 to %c64 step %c1 {
      %row = arith.muli %e, %c64 : index
      %at = arith.addi %row, %j : index
      %x = memref.load %h[%at] : memref<?xf32>
      %srow = arith.muli %e, %c128 : index
      %col = arith.addi %j, %c32 : index
      %sat = arith.addi %srow, %col : index
      %y = memref.load %s[%sat] : memref<?xf32>
      %p = arith.mulf %x, %y : f32
      memref.store %p, %a[%at] : memref<?xf32>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%e: index):
    scf.for %j = %c0 to %c64 step %c1 {
      %next = arith.addi %e, %c1 : index
      %srow = arith.muli %next, %c128 : index
      %sat = arith.addi %srow, %j : index
      %y = memref.load %s[%sat] : memref<?xf32>
      %row = arith.muli %e, %c64 : index
      %at = arith.addi %row, %j : index
      %x = memref.load %h[%at] : memref<?xf32>
      %p = arith.mulf %x, %y : f32
      memref.store %p, %b[%at] : memref<?xf32>
    }
    scf.reduce
  }) : (index, index, index) -> ()
  scf.for %e = %c0 to %E step %c1 {
    %x = memref.load %h[%e] : memref<?xf32>
    memref.store %x, %t[%c0] : memref<?xf32>
  }
  scf.for %e = %c0 to %E step %c1 {
    %x = memref.load %h[%e] : memref<?xf32>
    %y = memref.load %t[%c0] : memref<?xf32>
    %p = arith.mulf %x, %y : f32
    memref.store %p, %b[%e] : memref<?xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @producer_consumer(
// CHECK:        "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT:   ^bb0(%e: index):
// CHECK-NEXT:     scf.for %j = %c0 to %c64 step %c1 {
// CHECK-NEXT:       %row = arith.muli %e, %c64 : index
// CHECK-NEXT:       %at = arith.addi %row, %j : index
// CHECK-NEXT:       %x = memref.load %h[%at] : memref<?xf32>
// CHECK-NEXT:       %y = math.exp %x : f32
// CHECK-NEXT:       %srow = arith.muli %e, %c128 : index
// CHECK-NEXT:       %col = arith.addi %j, %c32 : index
// CHECK-NEXT:       %sat = arith.addi %srow, %col : index
// CHECK-NEXT:       memref.store %y, %s[%sat] : memref<?xf32>
// CHECK-NEXT:       %row_1 = arith.muli %e, %c64 : index
// CHECK-NEXT:       %at_1 = arith.addi %row_1, %j : index
// CHECK-NEXT:       %x_1 = memref.load %h[%at_1] : memref<?xf32>
// CHECK-NEXT:       %srow_1 = arith.muli %e, %c128 : index
// CHECK-NEXT:       %col_1 = arith.addi %j, %c32 : index
// CHECK-NEXT:       %sat_1 = arith.addi %srow_1, %col_1 : index
// CHECK-NEXT:       %y_1 = memref.load %s[%sat_1] : memref<?xf32>
// CHECK-NEXT:       %p = arith.mulf %x_1, %y_1 : f32
// CHECK-NEXT:       memref.store %p, %a[%at_1] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.reduce
// CHECK-NEXT:   }) : (index, index, index) -> ()
// CHECK-NEXT:   "scf.parallel"(%c0, %E, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT:   ^bb0(%e_1: index):
// CHECK-NEXT:     scf.for %j_1 = %c0 to %c64 step %c1 {
// CHECK-NEXT:       %next = arith.addi %e_1, %c1 : index
// CHECK:        scf.for %e_2 = %c0 to %E step %c1 {
// CHECK-NEXT:     %x_3 = memref.load %h[%e_2] : memref<?xf32>
// CHECK-NEXT:     memref.store %x_3, %t[%c0] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.for %e_3 = %c0 to %E step %c1 {
