// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p lower-tensorexpr-to-loops | filecheck %s --check-prefix=GONE

// lower-tensorexpr-to-loops, te.scatter: a loop nest over the updates, each loading,
// combining and storing at the te.update's linear index ("assign" stores without
// loading). The base's buffer is updated in place when nothing else reads it; a
// constant fill read only as scatter bases is written into each scatter's own buffer,
// around the block a slice assignment writes, or not at all when slice assignments
// cover it. With te.partition, threads split the rows of the base into blocks.
//
// The GONE lines check, over each whole function, what must not be there.

// A constant fill that several scatters start from (CSE merged the zeros of two
// slice assignments): each scatter fills its own buffer with the constant instead
// of copying a shared buffer of zeros, and only around the block it assigns
// (column 1 for the block [0, 1), column 0 for [1, 2)); the fill has no loop of its own.
func.func @shared_fill(%N: index, %x: tensor<?xf32> {te.dims = ["N"]}) -> (tensor<?x2xf32>, tensor<?x2xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %z = te.compute [%N, %c2] : tensor<?x2xf32> {
  ^bb0(%i: index, %j: index):
    %zero = arith.constant 0.000000e+00 : f32
    te.yield %zero : f32
  }
  %a = te.scatter "assign" %z over [%N, %c1] : tensor<?x2xf32> -> tensor<?x2xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    te.update [%i, %j], %v : f32
  }
  %b = te.scatter "assign" %z over [%N, %c1] : tensor<?x2xf32> -> tensor<?x2xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i] : tensor<?xf32> -> f32
    %k = arith.addi %j, %c1 : index
    te.update [%i, %k], %v : f32
  }
  func.return %a, %b : tensor<?x2xf32>, tensor<?x2xf32>
}
// CHECK-LABEL: func.func @shared_fill(
// CHECK-NOT:     memref.alloc
// CHECK:         %zero = arith.constant 0.000000e+00 : f32
// CHECK:         scf.for [[I:%[0-9]+]] = {{%[0-9]+}} to %N step
// CHECK-NEXT:      [[ROW:%[0-9]+]] = arith.muli [[I]], %c2 : index
// CHECK-NEXT:      [[COL:%[0-9]+]] = arith.addi [[ROW]], %c1 : index
// CHECK-NEXT:      memref.store %zero, %out0{{\[}}[[COL]]] : memref<?xf32>
// CHECK:         memref.store {{%[0-9]+}}, %out0
// CHECK:         scf.for [[I1:%[0-9]+]] = {{%[0-9]+}} to %N step
// CHECK-NEXT:      [[ROW1:%[0-9]+]] = arith.muli [[I1]], %c2 : index
// CHECK-NEXT:      memref.store %zero, %out1{{\[}}[[ROW1]]] : memref<?xf32>
// CHECK:         memref.store {{%[0-9]+}}, %out1
// CHECK-NOT:     memref.load %out
// CHECK:         func.return

// -----
// A cover (as @concatenated below) when split-dims has split a block's columns (j = u * 3 + m over
// [N, 1, 3] assigns [2, 5)): the zeros are still never stored.
func.func @concatenated_split(%N: index, %x: tensor<?x5xf32> {te.dims = ["N", 5 : i64]}) -> tensor<?x5xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %z = te.compute [%N, %c5] : tensor<?x5xf32> {
  ^bb0(%i: index, %j: index):
    %zero = arith.constant 0.000000e+00 : f32
    te.yield %zero : f32
  }
  %a = te.scatter "assign" %z over [%N, %c2] : tensor<?x5xf32> -> tensor<?x5xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x5xf32> -> f32
    te.update [%i, %j], %v : f32
  }
  %b = te.scatter "assign" %a over [%N, %c1, %c3] : tensor<?x5xf32> -> tensor<?x5xf32> {
  ^bb0(%i: index, %u: index, %m: index):
    %u3 = arith.muli %u, %c3 : index
    %j = arith.addi %u3, %m : index
    %k = arith.addi %j, %c2 : index
    %v = te.load %x[%i, %m] : tensor<?x5xf32> -> f32
    te.update [%i, %k], %v : f32
  }
  func.return %b : tensor<?x5xf32>
}
// CHECK-LABEL: func.func @concatenated_split(
// CHECK-NOT:     arith.constant 0.000000e+00
// CHECK:         func.return

// -----
// A concatenation as e3nn builds it: zeros, then slice assignments of columns
// [0, 2) and [2, 5) that cover every element. Nothing reads the zeros, so the
// fill is not stored at all: no zeros before the first output's stores. With a
// gap ([0, 2) and [3, 5)), the fill stays, around the first block.
func.func @concatenated(%N: index, %x: tensor<?x5xf32> {te.dims = ["N", 5 : i64]}) -> (tensor<?x5xf32>, tensor<?x5xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %z = te.compute [%N, %c5] : tensor<?x5xf32> {
  ^bb0(%i: index, %j: index):
    %zero = arith.constant 0.000000e+00 : f32
    te.yield %zero : f32
  }
  %a = te.scatter "assign" %z over [%N, %c2] : tensor<?x5xf32> -> tensor<?x5xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x5xf32> -> f32
    te.update [%i, %j], %v : f32
  }
  %b = te.scatter "assign" %a over [%N, %c3] : tensor<?x5xf32> -> tensor<?x5xf32> {
  ^bb0(%i: index, %j: index):
    %k = arith.addi %j, %c2 : index
    %v = te.load %x[%i, %j] : tensor<?x5xf32> -> f32
    te.update [%i, %k], %v : f32
  }
  %g1 = te.scatter "assign" %z over [%N, %c2] : tensor<?x5xf32> -> tensor<?x5xf32> {
  ^bb0(%i: index, %j: index):
    %v = te.load %x[%i, %j] : tensor<?x5xf32> -> f32
    te.update [%i, %j], %v : f32
  }
  %g2 = te.scatter "assign" %g1 over [%N, %c2] : tensor<?x5xf32> -> tensor<?x5xf32> {
  ^bb0(%i: index, %j: index):
    %k = arith.addi %j, %c3 : index
    %v = te.load %x[%i, %j] : tensor<?x5xf32> -> f32
    te.update [%i, %k], %v : f32
  }
  func.return %b, %g2 : tensor<?x5xf32>, tensor<?x5xf32>
}
// CHECK-LABEL: func.func @concatenated(
// CHECK:         %zero = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     memref.store %zero
// CHECK:         memref.store {{%[0-9]+}}, %out0
// CHECK:         memref.store %zero
// CHECK:         memref.store {{%[0-9]+}}, %out1
// CHECK:         func.return
// CHECK: {{^}}}

// -----
// A scatter partitioned along dim 0 (te.partition), onto zeros written straight
// into the output (a constant base is filled, not copied): min(threads, ceil(E / 64))
// row blocks of N, one per iteration of an scf.parallel; each block scans every
// edge, computes its destination row, and only when the row is in its block
// [N * p / parts, N * (p + 1) / parts) computes the message (the exp) and adds it.
// The team count is never 0: of the loops around the index into N only the one over
// E runs to %E_run (0 when N = 0 and E > 0, tested at the entry).
func.func @partitioned(%N: index, %E: index, %x: tensor<?x3xf32> {te.dims = ["E", 3 : i64]}, %dst: tensor<?xi64> {te.dims = ["E"]}, %base: tensor<?x3xf32> {te.dims = ["N", 3 : i64]}) -> tensor<?x3xf32> {
  %c3 = arith.constant 3 : index
  %zero = te.compute [%N, %c3] : tensor<?x3xf32> {
  ^bb0(%i: index, %j: index):
    %z = arith.constant 0.000000e+00 : f32
    te.yield %z : f32
  }
  %s = te.scatter "add" %zero over [%E, %c3] {te.parallel = 64 : i64, te.partition = 0 : i64} : tensor<?x3xf32> -> tensor<?x3xf32> {
  ^bb0(%e: index, %j: index):
    %r = te.load %dst[%e] : tensor<?xi64> -> i64
    %n = te.index %r in %N {site = 1 : i64} : i64
    %v = te.load %x[%e, %j] : tensor<?x3xf32> -> f32
    %m = math.exp %v : f32
    te.update [%n, %j], %m : f32
  }
  func.return %s : tensor<?x3xf32>
}
// CHECK-LABEL: func.func @partitioned(%N: index, %E: index, %x: memref<?xf32> {te.dims = ["E", 3 : i64]}, %dst: memref<?xi64> {te.dims = ["E"]}, %base: memref<?xf32> {te.dims = ["N", 3 : i64]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT: [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: [[C64:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: %N_empty = arith.cmpi eq, %N, [[C0]] : index
// CHECK-NEXT: %E_nonzero = arith.cmpi ne, %E, [[C0]] : index
// CHECK-NEXT: %empty_index = arith.andi %N_empty, %E_nonzero : i1
// CHECK-NEXT: %E_run = arith.select %empty_index, [[C0]], %E : index
// CHECK-NEXT: scf.for [[IV:%[0-9]+]] = [[C0]] to %N step [[C1]] {
// CHECK-NEXT:   scf.for [[IV_2:%[0-9]+]] = [[C0]] to %c3 step [[C1]] {
// CHECK-NEXT:     [[MULI:%[0-9]+]] = arith.muli [[IV]], %c3 : index
// CHECK-NEXT:     [[ADDI:%[0-9]+]] = arith.addi [[MULI]], [[IV_2]] : index
// CHECK-NEXT:     memref.store %z, %out0{{\[}}[[ADDI]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: [[CEILDIVUI:%[0-9]+]] = arith.ceildivui %E, [[C64]] : index
// CHECK-NEXT: [[MINSI:%[0-9]+]] = arith.minsi %num_threads, [[CEILDIVUI]] : index
// CHECK-NEXT: [[MAXSI:%[0-9]+]] = arith.maxsi [[MINSI]], [[C1]] : index
// CHECK-NEXT: "scf.parallel"([[C0]], [[MAXSI]], [[C1]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT: ^bb0(%part: index):
// CHECK-NEXT:   [[MULI_2:%[0-9]+]] = arith.muli %N, %part : index
// CHECK-NEXT:   [[DIVUI:%[0-9]+]] = arith.divui [[MULI_2]], [[MAXSI]] : index
// CHECK-NEXT:   [[ADDI_2:%[0-9]+]] = arith.addi %part, [[C1]] : index
// CHECK-NEXT:   [[MULI_3:%[0-9]+]] = arith.muli %N, [[ADDI_2]] : index
// CHECK-NEXT:   [[DIVUI_2:%[0-9]+]] = arith.divui [[MULI_3]], [[MAXSI]] : index
// CHECK-NEXT:   scf.for [[IV_3:%[0-9]+]] = [[C0]] to %E_run step [[C1]] {
// CHECK-NEXT:     [[LOAD:%[0-9]+]] = memref.load %dst{{\[}}[[IV_3]]] : memref<?xi64>
// CHECK-NEXT:     [[INDEX_CAST:%[0-9]+]] = arith.index_cast [[LOAD]] : i64 to index
// CHECK-NEXT:     [[CMPI:%[0-9]+]] = arith.cmpi uge, [[INDEX_CAST]], %N : index
// CHECK-NEXT:     scf.if [[CMPI]] {
// CHECK-NEXT:       [[CST:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:       [[OLD11:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:       [[ZERO11:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:       [[CLEAN11:%.*]] = arith.cmpi eq, [[OLD11]], [[ZERO11]] : i32
// CHECK-NEXT:       [[NEW11:%.*]] = arith.select [[CLEAN11]], [[CST]], [[OLD11]] : i32
// CHECK-NEXT:       memref.store [[NEW11]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:     }
// CHECK-NEXT:     [[SELECT:%[0-9]+]] = arith.select [[CMPI]], [[C0]], [[INDEX_CAST]] : index
// CHECK-NEXT:     [[CMPI_2:%[0-9]+]] = arith.cmpi uge, [[SELECT]], [[DIVUI]] : index
// CHECK-NEXT:     [[CMPI_3:%[0-9]+]] = arith.cmpi ult, [[SELECT]], [[DIVUI_2]] : index
// CHECK-NEXT:     [[ANDI:%[0-9]+]] = arith.andi [[CMPI_2]], [[CMPI_3]] : i1
// CHECK-NEXT:     scf.if [[ANDI]] {
// CHECK-NEXT:       scf.for [[IV_4:%[0-9]+]] = [[C0]] to %c3 step [[C1]] {
// CHECK-NEXT:         [[MULI_4:%[0-9]+]] = arith.muli [[IV_3]], %c3 : index
// CHECK-NEXT:         [[ADDI_3:%[0-9]+]] = arith.addi [[MULI_4]], [[IV_4]] : index
// CHECK-NEXT:         [[LOAD_2:%[0-9]+]] = memref.load %x{{\[}}[[ADDI_3]]] : memref<?xf32>
// CHECK-NEXT:         %m = math.exp [[LOAD_2]] : f32
// CHECK-NEXT:         [[MULI_5:%[0-9]+]] = arith.muli [[SELECT]], %c3 : index
// CHECK-NEXT:         [[ADDI_4:%[0-9]+]] = arith.addi [[MULI_5]], [[IV_4]] : index
// CHECK-NEXT:         [[LOAD_3:%[0-9]+]] = memref.load %out0{{\[}}[[ADDI_4]]] : memref<?xf32>
// CHECK-NEXT:         [[ADDF:%[0-9]+]] = arith.addf [[LOAD_3]], %m : f32
// CHECK-NEXT:         memref.store [[ADDF]], %out0{{\[}}[[ADDI_4]]] : memref<?xf32>
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.reduce
// CHECK-NEXT: }) {loops.min_chunk = 1 : i64} : (index, index, index) -> ()
// CHECK-NEXT: scf.if %empty_index {
// CHECK-NEXT:   [[SITE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:   [[OLD12:%.*]] = memref.load %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:   [[ZERO12:%.*]] = arith.constant 0 : i32
// CHECK-NEXT:   [[CLEAN12:%.*]] = arith.cmpi eq, [[OLD12]], [[ZERO12]] : i32
// CHECK-NEXT:   [[NEW12:%.*]] = arith.select [[CLEAN12]], [[SITE]], [[OLD12]] : i32
// CHECK-NEXT:   memref.store [[NEW12]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// GONE-LABEL: func.func @partitioned(
// GONE-NOT:   scf.parallel{{.*}}%E

// -----
// A slice assignment with te.parallel and no te.partition (rows disjoint across
// the loop over e, see schedule): its loop nest, as a sequential one would be, with
// the outermost loop an scf.parallel (chunks of 53 rows); the base is written in
// place (its only reader), no copy.
func.func @slice_assign(%E: index, %x: tensor<?x96xf64> {te.dims = ["E", 96 : i64]}, %y: tensor<?xf64> {te.dims = ["E"]}) -> tensor<?x128xf64> {
  %c128 = arith.constant 128 : index
  %c96 = arith.constant 96 : index
  %c32 = arith.constant 32 : index
  %base = te.compute [%E, %c128] : tensor<?x128xf64> {
  ^bb0(%i: index, %j: index):
    %v = te.load %y[%i] : tensor<?xf64> -> f64
    te.yield %v : f64
  }
  %a = te.scatter "assign" %base over [%E, %c96] {te.parallel = 53 : i64} : tensor<?x128xf64> -> tensor<?x128xf64> {
  ^bb0(%e: index, %j: index):
    %v = te.load %x[%e, %j] : tensor<?x96xf64> -> f64
    %w = te.load %y[%e] : tensor<?xf64> -> f64
    %p = arith.mulf %v, %w : f64
    %col = arith.addi %j, %c32 : index
    te.update [%e, %col], %p : f64
  }
  func.return %a : tensor<?x128xf64>
}
// CHECK-LABEL: func.func @slice_assign(
// CHECK:       "scf.parallel"([[C0:%[0-9]+]], %E, [[C1:%[0-9]+]]) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
// CHECK-NEXT:  ^bb0([[E:%[0-9]+]]: index):
// CHECK-NEXT:    [[W:%[0-9]+]] = memref.load %y{{\[}}[[E]]] : memref<?xf64>
// CHECK-NEXT:    scf.for [[J:%[0-9]+]] = [[C0]] to %c96 step [[C1]] {
// CHECK:           %p = arith.mulf {{%[0-9]+}}, [[W]] : f64
// CHECK-NEXT:      %col = arith.addi [[J]], %c32 : index
// CHECK-NEXT:      [[ROW:%[0-9]+]] = arith.muli [[E]], %c128 : index
// CHECK-NEXT:      [[AT:%[0-9]+]] = arith.addi [[ROW]], %col : index
// CHECK-NEXT:      memref.store %p, %out0{{\[}}[[AT]]] : memref<?xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.reduce
// CHECK-NEXT:  }) {loops.min_chunk = 53 : i64} : (index, index, index) -> ()
// GONE-LABEL:  func.func @slice_assign(
// GONE-NOT:    %part
// GONE-NOT:    scf.if
