// RUN: pipeline-opt %s -p profile-loops | filecheck %s
// RUN: pipeline-opt %s -p profile-loops | filecheck %s --check-prefix=GONE

// profile-loops (compile(..., profile=True) only): every top-level loop nest of a
// function is timed with libgomp's omp_get_wtime() into %profile[k], a new last
// argument marked loops.profile; loops.profile_nests says what nest k is.

// Two loop nests: each is bracketed by omp_get_wtime() calls and adds its time to
// %profile[k]; the function gets the %profile argument (loops.profile) and
// loops.profile_nests, the extents and the stored buffers of each nest. Ops that
// are not loops (the constants) are not timed.
func.func @f(%N: index, %x: memref<?xf32>, %out0: memref<?xf32>, %status: memref<?xi32> {loops.status}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %N step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %out0[%i] : memref<?xf32>
    }
  }
  "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = memref.load %out0[%i] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %out0[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK:      builtin.module {
// CHECK-NEXT: func.func @f(%N: index, %x: memref<?xf32>, %out0: memref<?xf32>, %status: memref<?xi32> {loops.status}, %profile: memref<?xf64> {loops.profile}) attributes {loops.profile_nests = ["N x 3 -> out0", "N -> out0"]} {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: [[CALL:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: scf.for %i = %c0 to %N step %c1 {
// CHECK-NEXT:   scf.for %j = %c0 to %c3 step %c1 {
// CHECK-NEXT:     %v = memref.load %x[%i] : memref<?xf32>
// CHECK-NEXT:     memref.store %v, %out0[%i] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: [[CALL_2:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[SUBF:%[0-9]+]] = arith.subf [[CALL_2]], [[CALL]] : f64
// CHECK-NEXT: [[LOAD:%[0-9]+]] = memref.load %profile{{\[}}[[C0]]] : memref<?xf64>
// CHECK-NEXT: [[ADDF:%[0-9]+]] = arith.addf [[LOAD]], [[SUBF]] : f64
// CHECK-NEXT: memref.store [[ADDF]], %profile{{\[}}[[C0]]] : memref<?xf64>
// CHECK-NEXT: [[CALL_3:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT: ^bb0(%i_1: index):
// CHECK-NEXT:   %v_1 = memref.load %out0[%i_1] : memref<?xf32>
// CHECK-NEXT:   %w = arith.addf %v_1, %v_1 : f32
// CHECK-NEXT:   memref.store %w, %out0[%i_1] : memref<?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) : (index, index, index) -> ()
// CHECK-NEXT: [[CALL_4:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[SUBF_2:%[0-9]+]] = arith.subf [[CALL_4]], [[CALL_3]] : f64
// CHECK-NEXT: [[LOAD_2:%[0-9]+]] = memref.load %profile{{\[}}[[C1]]] : memref<?xf64>
// CHECK-NEXT: [[ADDF_2:%[0-9]+]] = arith.addf [[LOAD_2]], [[SUBF_2]] : f64
// CHECK-NEXT: memref.store [[ADDF_2]], %profile{{\[}}[[C1]]] : memref<?xf64>
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @omp_get_wtime() -> f64
// CHECK-NEXT: }
// GONE-LABEL: @f(
// GONE-COUNT-4: func.call @omp_get_wtime()
