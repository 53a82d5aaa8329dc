// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s --check-prefix=GONE

// lower-tensorexpr-to-loops, te.reduce, following the schedule's attributes (set by the
// `schedule` pass; here written by hand). Without te.order a te.reduce has its
// reduction loops innermost and carries the accumulator in scf.for iter_args (a
// dot product, its addf marked fastmath<reassoc,contract>). When te.order puts
// output dims inside reduction dims, the output accumulates in its buffer: at the
// level of the last loop outside the reduction, the inner output elements are set
// to the identity, then the loops in te.order load-combine-store into them, the
// innermost loop running along contiguous output elements (the i-k-j order of a
// matmul; it vectorizes). With te.parallel = K the outermost loop is an
// scf.parallel {loops.min_chunk = K}. Code that depends only on outer loops is
// emitted in them (the row loads of x @ B leave the j loop).
//
// The GONE lines check, over each whole function, what the other schedule would
// have produced.

// x @ B: x[e, k] * b[k, j], output E x 32, over a static 64, te.order (e, k, j):
// per row e the 32 outputs are set to 0, then loops k, j accumulate into them, j
// innermost; x[e, k] is loaded once per k, outside the j loop.
func.func @x_b(%E: index, %x: tensor<?x64xf32> {te.dims = ["E", 64 : i64]}, %b: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %y = te.reduce "add" [%E, %c32] over [%c64] {te.order = array<i64: 0, 2, 1>} : tensor<?x32xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x64xf32> -> f32
    %w = te.load %b[%k, %j] : tensor<64x32xf32> -> f32
    %p = arith.mulf %a, %w : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @x_b(%E: index, %x: memref<?xf32> {te.dims = ["E", 64 : i64]}, %b: memref<?xf32>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %c32 = arith.constant 32 : index
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.for [[IV:%[0-9]+]] = [[C0]] to %E step [[C1]] {
// CHECK-NEXT:   scf.for [[IV_2:%[0-9]+]] = [[C0]] to %c32 step [[C1]] {
// CHECK-NEXT:     [[MULI:%[0-9]+]] = arith.muli [[IV]], %c32 : index
// CHECK-NEXT:     [[ADDI:%[0-9]+]] = arith.addi [[MULI]], [[IV_2]] : index
// CHECK-NEXT:     memref.store [[CST]], %out0{{\[}}[[ADDI]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.for [[IV_3:%[0-9]+]] = [[C0]] to %c64 step [[C1]] {
// CHECK-NEXT:     [[MULI_2:%[0-9]+]] = arith.muli [[IV]], %c64 : index
// CHECK-NEXT:     [[ADDI_2:%[0-9]+]] = arith.addi [[MULI_2]], [[IV_3]] : index
// CHECK-NEXT:     [[LOAD:%[0-9]+]] = memref.load %x{{\[}}[[ADDI_2]]] : memref<?xf32>
// CHECK-NEXT:     scf.for [[IV_4:%[0-9]+]] = [[C0]] to %c32 step [[C1]] {
// CHECK-NEXT:       [[MULI_3:%[0-9]+]] = arith.muli [[IV_3]], %c32 : index
// CHECK-NEXT:       [[ADDI_3:%[0-9]+]] = arith.addi [[MULI_3]], [[IV_4]] : index
// CHECK-NEXT:       [[LOAD_2:%[0-9]+]] = memref.load %b{{\[}}[[ADDI_3]]] : memref<?xf32>
// CHECK-NEXT:       %p = arith.mulf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:       [[MULI_4:%[0-9]+]] = arith.muli [[IV]], %c32 : index
// CHECK-NEXT:       [[ADDI_4:%[0-9]+]] = arith.addi [[MULI_4]], [[IV_4]] : index
// CHECK-NEXT:       [[LOAD_3:%[0-9]+]] = memref.load %out0{{\[}}[[ADDI_4]]] : memref<?xf32>
// CHECK-NEXT:       [[ADDF:%[0-9]+]] = arith.addf [[LOAD_3]], %p : f32
// CHECK-NEXT:       memref.store [[ADDF]], %out0{{\[}}[[ADDI_4]]] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// GONE-LABEL: func.func @x_b(
// GONE-NOT:   iter_args
// GONE-NOT:   fastmath
// GONE-NOT:   scf.yield {{%[0-9]+}} : f32

// -----
// x @ W.T: x[e, k] * w[j, k]. Both loads run along k, none along j: it stays a dot
// product, loops (e, j, k) with k innermost and the sum in iter_args.
func.func @x_wt(%E: index, %x: tensor<?x64xf32> {te.dims = ["E", 64 : i64]}, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %y = te.reduce "add" [%E, %c32] over [%c64] : tensor<?x32xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x64xf32> -> f32
    %v = te.load %w[%j, %k] : tensor<32x64xf32> -> f32
    %p = arith.mulf %a, %v : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @x_wt(%E: index, %x: memref<?xf32> {te.dims = ["E", 64 : i64]}, %w: memref<?xf32>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %c32 = arith.constant 32 : index
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.for [[IV:%[0-9]+]] = [[C0]] to %E step [[C1]] {
// CHECK-NEXT:   scf.for [[IV_2:%[0-9]+]] = [[C0]] to %c32 step [[C1]] {
// CHECK-NEXT:     [[FOR:%[0-9]+]] = scf.for [[IV_3:%[0-9]+]] = [[C0]] to %c64 step [[C1]] iter_args([[ACC:%[0-9]+]] = [[CST]]) -> (f32) {
// CHECK-NEXT:       [[MULI:%[0-9]+]] = arith.muli [[IV]], %c64 : index
// CHECK-NEXT:       [[ADDI:%[0-9]+]] = arith.addi [[MULI]], [[IV_3]] : index
// CHECK-NEXT:       [[LOAD:%[0-9]+]] = memref.load %x{{\[}}[[ADDI]]] : memref<?xf32>
// CHECK-NEXT:       [[MULI_2:%[0-9]+]] = arith.muli [[IV_2]], %c64 : index
// CHECK-NEXT:       [[ADDI_2:%[0-9]+]] = arith.addi [[MULI_2]], [[IV_3]] : index
// CHECK-NEXT:       [[LOAD_2:%[0-9]+]] = memref.load %w{{\[}}[[ADDI_2]]] : memref<?xf32>
// CHECK-NEXT:       %p = arith.mulf [[LOAD]], [[LOAD_2]] : f32
// CHECK-NEXT:       [[ADDF:%[0-9]+]] = arith.addf [[ACC]], %p fastmath<reassoc,contract> : f32
// CHECK-NEXT:       scf.yield [[ADDF]] : f32
// CHECK-NEXT:     }
// CHECK-NEXT:     [[MULI_3:%[0-9]+]] = arith.muli [[IV]], %c32 : index
// CHECK-NEXT:     [[ADDI_3:%[0-9]+]] = arith.addi [[MULI_3]], [[IV_2]] : index
// CHECK-NEXT:     memref.store [[FOR]], %out0{{\[}}[[ADDI_3]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// GONE-LABEL: func.func @x_wt(
// GONE-NOT:   memref.load %out0

// -----
// A column sum with te.order = [e, j]: the 16 columns set to 0 first, then
// accumulated innermost, loops (e, j).
func.func @column_sum(%E: index, %x: tensor<?x16xf32> {te.dims = ["E", 16 : i64]}) -> tensor<16xf32> {
  %c16 = arith.constant 16 : index
  %s = te.reduce "add" [%c16] over [%E] {te.order = array<i64: 1, 0>} : tensor<16xf32> {
  ^bb0(%j: index, %e: index):
    %v = te.load %x[%e, %j] : tensor<?x16xf32> -> f32
    te.yield %v : f32
  }
  func.return %s : tensor<16xf32>
}
// CHECK-LABEL: func.func @column_sum(%E: index, %x: memref<?xf32> {te.dims = ["E", 16 : i64]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.for [[IV:%[0-9]+]] = [[C0]] to %c16 step [[C1]] {
// CHECK-NEXT:   memref.store [[CST]], %out0{{\[}}[[IV]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for [[IV_2:%[0-9]+]] = [[C0]] to %E step [[C1]] {
// CHECK-NEXT:   scf.for [[IV_3:%[0-9]+]] = [[C0]] to %c16 step [[C1]] {
// CHECK-NEXT:     [[MULI:%[0-9]+]] = arith.muli [[IV_2]], %c16 : index
// CHECK-NEXT:     [[ADDI:%[0-9]+]] = arith.addi [[MULI]], [[IV_3]] : index
// CHECK-NEXT:     [[LOAD:%[0-9]+]] = memref.load %x{{\[}}[[ADDI]]] : memref<?xf32>
// CHECK-NEXT:     [[LOAD_2:%[0-9]+]] = memref.load %out0{{\[}}[[IV_3]]] : memref<?xf32>
// CHECK-NEXT:     [[ADDF:%[0-9]+]] = arith.addf [[LOAD_2]], [[LOAD]] : f32
// CHECK-NEXT:     memref.store [[ADDF]], %out0{{\[}}[[IV_3]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// GONE-LABEL: func.func @column_sum(
// GONE-NOT:   iter_args
// GONE-NOT:   fastmath

// -----
// A norm over xyz (a static 3) with te.parallel: rows in an scf.parallel, the
// 3-long sum in iter_args, one store per row.
func.func @norm(%N: index, %x: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<?xf32> {
  %c3 = arith.constant 3 : index
  %s = te.reduce "add" [%N] over [%c3] {te.parallel = 64 : i64} : tensor<?xf32> {
  ^bb0(%n: index, %k: index):
    %v = te.load %x[%n, %k] : tensor<?x3xf32> -> f32
    %q = arith.mulf %v, %v : f32
    te.yield %q : f32
  }
  func.return %s : tensor<?xf32>
}
// CHECK-LABEL: func.func @norm(%N: index, %x: memref<?xf32> {te.dims = ["N", 3 : i64]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: "scf.parallel"([[C0]], %N, [[C1]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT: ^bb0([[ARG:%[0-9]+]]: index):
// CHECK-NEXT:   [[FOR:%[0-9]+]] = scf.for [[IV:%[0-9]+]] = [[C0]] to %c3 step [[C1]] iter_args([[ACC:%[0-9]+]] = [[CST]]) -> (f32) {
// CHECK-NEXT:     [[MULI:%[0-9]+]] = arith.muli [[ARG]], %c3 : index
// CHECK-NEXT:     [[ADDI:%[0-9]+]] = arith.addi [[MULI]], [[IV]] : index
// CHECK-NEXT:     [[LOAD:%[0-9]+]] = memref.load %x{{\[}}[[ADDI]]] : memref<?xf32>
// CHECK-NEXT:     %q = arith.mulf [[LOAD]], [[LOAD]] : f32
// CHECK-NEXT:     [[ADDF:%[0-9]+]] = arith.addf [[ACC]], %q fastmath<reassoc,contract> : f32
// CHECK-NEXT:     scf.yield [[ADDF]] : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.store [[FOR]], %out0{{\[}}[[ARG]]] : memref<?xf32>
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) {loops.min_chunk = 64 : i64} : (index, index, index) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// GONE-LABEL: func.func @norm(
// GONE-NOT:   memref.load %out0

// -----
// x @ B in register tiles (te.vector = 16, te.tile = [2 rows, 1 vector]), x fused
// through an exp: rows go in ceil(E / 2) pairs, the second row of the last pair
// clamped to row E - 1 (an odd E computes it twice: same values, same thread; no
// second loop for the rows left over), the 32 outputs in two column tiles of one
// 16-lane vector. Per pair and column tile, two vector<16xf32> accumulators ride
// the k loop's iter_args; each step computes exp(x[e, k]) once per row (a scalar,
// broadcast) and loads b's slice once for both rows (vector.load); mulf and addf
// may contract to an FMA. Each accumulator is stored once, after the loop.
func.func @x_b_tile(%E: index, %x: tensor<?x64xf32> {te.dims = ["E", 64 : i64]}, %b: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %y = te.reduce "add" [%E, %c32] over [%c64] {te.order = array<i64: 0, 2, 1>, te.vector = 16 : i64, te.tile = array<i64: 2, 1>} : tensor<?x32xf32> {
  ^bb0(%e: index, %j: index, %k: index):
    %a = te.load %x[%e, %k] : tensor<?x64xf32> -> f32
    %s = math.exp %a : f32
    %w = te.load %b[%k, %j] : tensor<64x32xf32> -> f32
    %p = arith.mulf %s, %w : f32
    te.yield %p : f32
  }
  func.return %y : tensor<?x32xf32>
}
// CHECK-LABEL: func.func @x_b_tile(%E: index, %x: memref<?xf32> {te.dims = ["E", 64 : i64]}, %b: memref<?xf32>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %c32 = arith.constant 32 : index
// CHECK-NEXT: [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: [[C16:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: [[CST:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: [[CEILDIVUI:%[0-9]+]] = arith.ceildivui %E, [[C2]] : index
// CHECK-NEXT: [[SUBI:%[0-9]+]] = arith.subi %E, [[C1]] : index
// CHECK-NEXT: scf.for [[IV:%[0-9]+]] = [[C0]] to [[CEILDIVUI]] step [[C1]] {
// CHECK-NEXT:   [[MULI:%[0-9]+]] = arith.muli [[IV]], [[C2]] : index
// CHECK-NEXT:   [[ADDI:%[0-9]+]] = arith.addi [[MULI]], [[C1]] : index
// CHECK-NEXT:   [[MINUI:%[0-9]+]] = arith.minui [[ADDI]], [[SUBI]] : index
// CHECK-NEXT:   scf.for [[IV_2:%[0-9]+]] = [[C0]] to [[C2]] step [[C1]] {
// CHECK-NEXT:     [[MULI_2:%[0-9]+]] = arith.muli [[IV_2]], [[C16]] : index
// CHECK-NEXT:     [[BROADCAST:%[0-9]+]] = vector.broadcast [[CST]] : f32 to vector<16xf32>
// CHECK-NEXT:     [[FOR:%[0-9]+]], [[FOR_2:%[0-9]+]] = scf.for [[IV_3:%[0-9]+]] = [[C0]] to %c64 step [[C1]] iter_args([[ACC:%[0-9]+]] = [[BROADCAST]], [[ACC_2:%[0-9]+]] = [[BROADCAST]]) -> (vector<16xf32>, vector<16xf32>) {
// CHECK-NEXT:       [[MULI_3:%[0-9]+]] = arith.muli [[MULI]], %c64 : index
// CHECK-NEXT:       [[ADDI_2:%[0-9]+]] = arith.addi [[MULI_3]], [[IV_3]] : index
// CHECK-NEXT:       [[LOAD:%[0-9]+]] = memref.load %x{{\[}}[[ADDI_2]]] : memref<?xf32>
// CHECK-NEXT:       %s = math.exp [[LOAD]] : f32
// CHECK-NEXT:       [[BROADCAST_2:%[0-9]+]] = vector.broadcast %s : f32 to vector<16xf32>
// CHECK-NEXT:       [[MULI_4:%[0-9]+]] = arith.muli [[IV_3]], %c32 : index
// CHECK-NEXT:       [[ADDI_3:%[0-9]+]] = arith.addi [[MULI_4]], [[MULI_2]] : index
// CHECK-NEXT:       [[LOAD_2:%[0-9]+]] = vector.load %b{{\[}}[[ADDI_3]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT:       [[MULF:%[0-9]+]] = arith.mulf [[BROADCAST_2]], [[LOAD_2]] fastmath<contract> : vector<16xf32>
// CHECK-NEXT:       [[MULI_5:%[0-9]+]] = arith.muli [[MINUI]], %c64 : index
// CHECK-NEXT:       [[ADDI_4:%[0-9]+]] = arith.addi [[MULI_5]], [[IV_3]] : index
// CHECK-NEXT:       [[LOAD_3:%[0-9]+]] = memref.load %x{{\[}}[[ADDI_4]]] : memref<?xf32>
// CHECK-NEXT:       %s_1 = math.exp [[LOAD_3]] : f32
// CHECK-NEXT:       [[BROADCAST_3:%[0-9]+]] = vector.broadcast %s_1 : f32 to vector<16xf32>
// CHECK-NEXT:       [[MULF_2:%[0-9]+]] = arith.mulf [[BROADCAST_3]], [[LOAD_2]] fastmath<contract> : vector<16xf32>
// CHECK-NEXT:       [[ADDF:%[0-9]+]] = arith.addf [[ACC]], [[MULF]] fastmath<contract> : vector<16xf32>
// CHECK-NEXT:       [[ADDF_2:%[0-9]+]] = arith.addf [[ACC_2]], [[MULF_2]] fastmath<contract> : vector<16xf32>
// CHECK-NEXT:       scf.yield [[ADDF]], [[ADDF_2]] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     [[MULI_6:%[0-9]+]] = arith.muli [[MULI]], %c32 : index
// CHECK-NEXT:     [[ADDI_5:%[0-9]+]] = arith.addi [[MULI_6]], [[MULI_2]] : index
// CHECK-NEXT:     vector.store [[FOR]], %out0{{\[}}[[ADDI_5]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT:     [[MULI_7:%[0-9]+]] = arith.muli [[MINUI]], %c32 : index
// CHECK-NEXT:     [[ADDI_6:%[0-9]+]] = arith.addi [[MULI_7]], [[MULI_2]] : index
// CHECK-NEXT:     vector.store [[FOR_2]], %out0{{\[}}[[ADDI_6]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// GONE-LABEL: func.func @x_b_tile(
// GONE-NOT:   memref.load %b
// GONE-NOT:   memref.load %out0
