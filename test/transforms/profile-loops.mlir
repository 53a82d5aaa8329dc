// RUN: pipeline-opt %s -p profile-loops | filecheck %s
// RUN: pipeline-opt %s -p profile-loops | filecheck %s --check-prefix=GONE

// profile-loops (compile(..., profile=True) only): every top-level loop nest of a
// function is timed with libgomp's omp_get_wtime() into %profile[k], a new last
// argument marked loops.profile; loops.profile_nests says what nest k is, and
// loops.profile_dtypes the float type of its arithmetic. Before each nest, its
// floating-point operations are computed from its loops' trip counts and added to
// %profile[nests + k] after it.

// Two loop nests: each is bracketed by omp_get_wtime() calls and adds its time to
// %profile[k]; the function gets the %profile argument (loops.profile),
// loops.profile_nests (the extents and the stored buffers of each nest) and
// loops.profile_dtypes. The first nest does one f32 multiply per (i, j): N * 3
// flops, ceildiv(N - 0, 1) * ceildiv(3 - 0, 1); the second one f32 vector add of 8
// lanes per i: 8 * N, into %profile[2] and %profile[3]. Ops that are not loops
// (the constants) are not timed.
func.func @f(%N: index, %x: memref<?xf32>, %out0: memref<?xf32>, %status: memref<?xi32> {loops.status}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %N step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = memref.load %x[%i] : memref<?xf32>
      %s = arith.mulf %v, %v : f32
      memref.store %s, %out0[%i] : memref<?xf32>
    }
  }
  "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = vector.load %out0[%i] : memref<?xf32>, vector<8xf32>
    %w = arith.addf %v, %v : vector<8xf32>
    vector.store %w, %out0[%i] : memref<?xf32>, vector<8xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
// CHECK-LABEL: func.func @f(%N: index, %x: memref<?xf32>, %out0: memref<?xf32>, %status: memref<?xi32> {loops.status}, %profile: memref<?xf64> {loops.profile}) attributes {loops.profile_nests = ["N x 3 -> out0", "N -> out0"], loops.profile_dtypes = ["f32", "f32"]} {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[SUBI:%[0-9]+]] = arith.subi %c3, %c0 : index
// CHECK-NEXT: [[CEILDIVUI:%[0-9]+]] = arith.ceildivui [[SUBI]], %c1 : index
// CHECK-NEXT: [[MULI:%[0-9]+]] = arith.muli [[C1]], [[CEILDIVUI]] : index
// CHECK-NEXT: [[SUBI_2:%[0-9]+]] = arith.subi %N, %c0 : index
// CHECK-NEXT: [[CEILDIVUI_2:%[0-9]+]] = arith.ceildivui [[SUBI_2]], %c1 : index
// CHECK-NEXT: [[MULI_2:%[0-9]+]] = arith.muli [[MULI]], [[CEILDIVUI_2]] : index
// CHECK-NEXT: [[INDEX_CAST:%[0-9]+]] = arith.index_cast [[MULI_2]] : index to i64
// CHECK-NEXT: [[SITOFP:%[0-9]+]] = arith.sitofp [[INDEX_CAST]] : i64 to f64
// CHECK-NEXT: [[CALL:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: scf.for %i = %c0 to %N step %c1 {
// CHECK-NEXT:   scf.for %j = %c0 to %c3 step %c1 {
// CHECK-NEXT:     %v = memref.load %x[%i] : memref<?xf32>
// CHECK-NEXT:     %s = arith.mulf %v, %v : f32
// CHECK-NEXT:     memref.store %s, %out0[%i] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: [[CALL_2:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: [[SUBF:%[0-9]+]] = arith.subf [[CALL_2]], [[CALL]] : f64
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[LOAD:%[0-9]+]] = memref.load %profile{{\[}}[[C0]]] : memref<?xf64>
// CHECK-NEXT: [[ADDF:%[0-9]+]] = arith.addf [[LOAD]], [[SUBF]] : f64
// CHECK-NEXT: memref.store [[ADDF]], %profile{{\[}}[[C0]]] : memref<?xf64>
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[LOAD_2:%[0-9]+]] = memref.load %profile{{\[}}[[C2]]] : memref<?xf64>
// CHECK-NEXT: [[ADDF_2:%[0-9]+]] = arith.addf [[LOAD_2]], [[SITOFP]] : f64
// CHECK-NEXT: memref.store [[ADDF_2]], %profile{{\[}}[[C2]]] : memref<?xf64>
// CHECK-NEXT: [[C8:%[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT: [[SUBI_3:%[0-9]+]] = arith.subi %N, %c0 : index
// CHECK-NEXT: [[CEILDIVUI_3:%[0-9]+]] = arith.ceildivui [[SUBI_3]], %c1 : index
// CHECK-NEXT: [[MULI_3:%[0-9]+]] = arith.muli [[C8]], [[CEILDIVUI_3]] : index
// CHECK-NEXT: [[INDEX_CAST_2:%[0-9]+]] = arith.index_cast [[MULI_3]] : index to i64
// CHECK-NEXT: [[SITOFP_2:%[0-9]+]] = arith.sitofp [[INDEX_CAST_2]] : i64 to f64
// CHECK-NEXT: [[CALL_3:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: "scf.parallel"(%c0, %N, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT: ^bb0(%i_1: index):
// CHECK-NEXT:   %v_1 = vector.load %out0[%i_1] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:   %w = arith.addf %v_1, %v_1 : vector<8xf32>
// CHECK-NEXT:   vector.store %w, %out0[%i_1] : memref<?xf32>, vector<8xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) : (index, index, index) -> ()
// CHECK-NEXT: [[CALL_4:%[0-9]+]] = func.call @omp_get_wtime() : () -> f64
// CHECK-NEXT: [[SUBF_2:%[0-9]+]] = arith.subf [[CALL_4]], [[CALL_3]] : f64
// CHECK-NEXT: [[C1_2:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[LOAD_3:%[0-9]+]] = memref.load %profile{{\[}}[[C1_2]]] : memref<?xf64>
// CHECK-NEXT: [[ADDF_3:%[0-9]+]] = arith.addf [[LOAD_3]], [[SUBF_2]] : f64
// CHECK-NEXT: memref.store [[ADDF_3]], %profile{{\[}}[[C1_2]]] : memref<?xf64>
// CHECK-NEXT: [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT: [[LOAD_4:%[0-9]+]] = memref.load %profile{{\[}}[[C3]]] : memref<?xf64>
// CHECK-NEXT: [[ADDF_4:%[0-9]+]] = arith.addf [[LOAD_4]], [[SITOFP_2]] : f64
// CHECK-NEXT: memref.store [[ADDF_4]], %profile{{\[}}[[C3]]] : memref<?xf64>
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @omp_get_wtime() -> f64
// GONE-LABEL: @f(
// GONE-COUNT-4: func.call @omp_get_wtime()
// GONE-NOT:     func.call @omp_get_wtime()
