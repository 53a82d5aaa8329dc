// RUN: pipeline-opt %s --split-input-file -p outline-parallel-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p outline-parallel-loops | filecheck %s --check-prefix=GONE

// outline-parallel-loops: each outermost scf.parallel becomes @<fn>_par<k>(%lo, %hi,
// captured values...) running an scf.for over [%lo, %hi) (marked codegen.noinline),
// and a call of the declared launcher @<fn>_par<k>_launch(threads, lb, ub, captured
// values...) that define-parallel-launchers will define. Constants are cloned into
// the outlined function rather than passed. No scf.parallel is left.

// A row loop over N: the buffers and the symbol it reads become arguments of
// @f_par0 (a scf.for from %lo to %hi), the constants 3 and 1 are rematerialized
// inside it, and the loop is replaced by a call of the launcher with the
// function's thread count (the argument marked loops.num_threads), the bounds and
// those arguments. The launcher is only declared, marked codegen.launch (the body
// it runs) and codegen.min_chunk (from loops.min_chunk).
func.func @f(%N: index, %x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    scf.for %j = %c0 to %c3 step %c1 {
      %r = arith.muli %i, %c3 : index
      %at = arith.addi %r, %j : index
      %v = memref.load %x[%at] : memref<?xf32>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %y[%at] : memref<?xf32>
    }
    scf.reduce
  }) {loops.min_chunk = 64 : i64} : (index, index, index) -> ()
  func.return
}
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @f(%N: index, %x: memref<?xf32>, %y: memref<?xf32>, %s: f32, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     func.call @f_par0_launch(%num_threads, %c0, %N, %x, %s, %y) : (index, index, index, memref<?xf32>, f32, memref<?xf32>) -> ()
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @f_par0(%lo: index, %hi: index, %x: memref<?xf32>, %s: f32, %y: memref<?xf32>) attributes {codegen.noinline} {
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     scf.for %i = %lo to %hi step %c1 {
// CHECK-NEXT:       scf.for %j = %c0 to %c3 step %c1 {
// CHECK-NEXT:         %r = arith.muli %i, %c3 : index
// CHECK-NEXT:         %at = arith.addi %r, %j : index
// CHECK-NEXT:         %v = memref.load %x[%at] : memref<?xf32>
// CHECK-NEXT:         %w = arith.mulf %v, %s : f32
// CHECK-NEXT:         memref.store %w, %y[%at] : memref<?xf32>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @f_par0_launch(index, index, index, memref<?xf32>, f32, memref<?xf32>) -> () attributes {codegen.launch = @f_par0, codegen.min_chunk = 64 : i64}
// CHECK-NEXT: }
// GONE-LABEL: func.func @f(
// GONE-NOT: scf.parallel
// GONE-NOT: scf.reduce
// GONE-NOT: func.call @f_par0(%

// -----
// Two parallel loops in one function give @g_par0 and @g_par1; without a
// loops.num_threads argument the thread count is 0 (the OpenMP default).
func.func @g(%N: index, %x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.000000e+00 : f32
  "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    memref.store %z, %x[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<?xf32>
    scf.reduce
  }) {loops.min_chunk = 1024 : i64} : (index, index, index) -> ()
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @g(%N: index, %x: memref<?xf32>) {
// CHECK-NEXT:     %0 = arith.constant 0 : index
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:     func.call @g_par0_launch(%0, %c0, %N, %x) : (index, index, index, memref<?xf32>) -> ()
// CHECK-NEXT:     func.call @g_par1_launch(%0, %c0, %N, %x) : (index, index, index, memref<?xf32>) -> ()
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @g_par0(%lo: index, %hi: index, %x: memref<?xf32>) attributes {codegen.noinline} {
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:     scf.for %i = %lo to %hi step %c1 {
// CHECK-NEXT:       memref.store %z, %x[%i] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @g_par0_launch(index, index, index, memref<?xf32>) -> () attributes {codegen.launch = @g_par0, codegen.min_chunk = 1 : i64}
// CHECK-NEXT:   func.func private @g_par1(%lo: index, %hi: index, %x: memref<?xf32>) attributes {codegen.noinline} {
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     scf.for %i = %lo to %hi step %c1 {
// CHECK-NEXT:       %v = memref.load %x[%i] : memref<?xf32>
// CHECK-NEXT:       %w = arith.addf %v, %v : f32
// CHECK-NEXT:       memref.store %w, %x[%i] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @g_par1_launch(index, index, index, memref<?xf32>) -> () attributes {codegen.launch = @g_par1, codegen.min_chunk = 1024 : i64}
// CHECK-NEXT: }
// GONE-LABEL: func.func @g(
// GONE-NOT: scf.parallel
