// RUN: pipeline-opt %s -p lower-tensorexpr-to-loops | filecheck %s

// lower-tensorexpr-to-loops, what depends on data. te.compact: one sequential loop carries the count; each
// position is stored at the current count without a branch (count <= i < N keeps the
// store inside the buffer) and the count grows by flag != 0. Buffers with the count
// as an extent are allocated for its bound (N), so memory is sized before the data is
// known; loops over them run to the count.

func.func @compact(%N: index, %x: tensor<?xi1> {te.dims = ["N"]}) -> tensor<f64> {
  %p, %c = te.compact %x over %N : tensor<?xi1> -> tensor<?xi64>
  %0 = te.compute [%c] : tensor<?xf64> {
  ^bb0(%i: index):
    %v = te.load %p[%i] : tensor<?xi64> -> i64
    %f = arith.sitofp %v : i64 to f64
    te.yield %f : f64
  }
  %1 = te.reduce "add" [] over [%c] : tensor<f64> {
  ^bb0(%i: index):
    %v = te.load %0[%i] : tensor<?xf64> -> f64
    te.yield %v : f64
  }
  func.return %1 : tensor<f64>
}
// CHECK-LABEL: func.func @compact(%N: index, %x: memref<?xi1> {te.dims = ["N"]}, %out0: memref<?xf64> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT:    [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[FALSE:%[0-9]+]] = arith.constant false
// CHECK-NEXT:    [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[POS:%[0-9]+]] = memref.alloc(%N) : memref<?xi64>
// CHECK-NEXT:    [[COUNT:%[0-9]+]] = scf.for [[I:%[0-9]+]] = [[C0]] to %N step [[C1]] iter_args([[C:%[0-9]+]] = [[C0]]) -> (index) {
// CHECK-NEXT:      [[FLAG:%[0-9]+]] = memref.load %x{{\[}}[[I]]] : memref<?xi1>
// CHECK-NEXT:      [[I64:%[0-9]+]] = arith.index_cast [[I]] : index to i64
// CHECK-NEXT:      memref.store [[I64]], [[POS]]{{\[}}[[C]]] : memref<?xi64>
// CHECK-NEXT:      [[HIT:%[0-9]+]] = arith.cmpi ne, [[FLAG]], [[FALSE]] : i1
// CHECK-NEXT:      [[STEP:%[0-9]+]] = arith.select [[HIT]], [[C1]], [[C0]] : index
// CHECK-NEXT:      [[NEXT:%[0-9]+]] = arith.addi [[C]], [[STEP]] : index
// CHECK-NEXT:      scf.yield [[NEXT]] : index
// CHECK-NEXT:    }
// CHECK-NEXT:    [[VALUES:%[0-9]+]] = memref.alloc(%N) : memref<?xf64>
// CHECK-NEXT:    scf.for [[J:%[0-9]+]] = [[C0]] to [[COUNT]] step [[C1]] {
// CHECK:         scf.for {{%[0-9]+}} = [[C0]] to [[COUNT]] step [[C1]] iter_args({{%[0-9]+}} = [[ZERO]])
// CHECK-NOT:     te.

// te.check: the condition is loaded and, when false, its site becomes the status (the
// call then fails with the site's message); the check stays where the graph had it. The
// first failed check is reported: the second stores only if the first held, and either
// overrides an index check's status (no load of the status before the store); the `or`
// of the failed flags is built only for a check that follows (none after the last).
func.func @check(%N: index, %c: tensor<i1> {te.dims = []}, %d: tensor<i1> {te.dims = []}, %x: tensor<?xf64> {te.dims = ["N"]}) -> tensor<?xf64> {
  te.check %c {site = 1 : i64} : tensor<i1>
  te.check %d {site = 2 : i64} : tensor<i1>
  func.return %x : tensor<?xf64>
}
// CHECK-LABEL: func.func @check(%N: index, %c: memref<?xi1> {te.dims = []}, %d: memref<?xi1> {te.dims = []}, %x: memref<?xf64> {te.dims = ["N"]}, %out0: memref<?xf64> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %num_threads: index {loops.num_threads}) {
// CHECK-NEXT:    [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    {{%[0-9]+}} = arith.constant 1 : index
// CHECK-NEXT:    [[FALSE:%[0-9]+]] = arith.constant false
// CHECK-NEXT:    [[TRUE:%[0-9]+]] = arith.constant true
// CHECK-NEXT:    [[COND:%[0-9]+]] = memref.load %c{{\[}}[[C0]]] : memref<?xi1>
// CHECK-NEXT:    [[FAILED:%[0-9]+]] = arith.cmpi eq, [[COND]], [[FALSE]] : i1
// CHECK-NEXT:    scf.if [[FAILED]] {
// CHECK-NEXT:      [[SITE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:      memref.store [[SITE]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    [[COND2:%[0-9]+]] = memref.load %d{{\[}}[[C0]]] : memref<?xi1>
// CHECK-NEXT:    [[FAILED2:%[0-9]+]] = arith.cmpi eq, [[COND2]], [[FALSE]] : i1
// CHECK-NEXT:    [[CLEAN:%[0-9]+]] = arith.xori [[FAILED]], [[TRUE]] : i1
// CHECK-NEXT:    [[FIRST:%[0-9]+]] = arith.andi [[FAILED2]], [[CLEAN]] : i1
// CHECK-NEXT:    scf.if [[FIRST]] {
// CHECK-NEXT:      [[SITE2:%[0-9]+]] = arith.constant 2 : i32
// CHECK-NEXT:      memref.store [[SITE2]], %status{{\[}}[[C0]]] : memref<?xi32>
// CHECK-NEXT:    }
// CHECK-NOT:     arith.ori
// CHECK-NOT:     te.

// te.scan: a loop over the other dims around one sequential
// loop along the scanned dim, which carries the running sum and stores it at every step.

func.func @scan(%N: index, %x: tensor<?x3xf64> {te.dims = ["N", 3 : i64]}) -> tensor<?x3xf64> {
  %0 = te.scan "add" %x {dim = 0 : i64} : tensor<?x3xf64> -> tensor<?x3xf64>
  func.return %0 : tensor<?x3xf64>
}
// CHECK-LABEL: func.func @scan(
// CHECK:         [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    [[C1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    [[SIZE:%[0-9]+]] = arith.muli %N, [[C3]] : index
// CHECK-NEXT:    [[OUT:%[0-9]+]] = memref.alloc([[SIZE]]) : memref<?xf64>
// CHECK-NEXT:    scf.for [[J:%[0-9]+]] = [[C0]] to [[C3]] step [[C1]] {
// CHECK-NEXT:      {{%[0-9]+}} = scf.for [[I:%[0-9]+]] = [[C0]] to %N step [[C1]] iter_args([[ACC:%[0-9]+]] = [[ZERO]]) -> (f64) {
// CHECK-NEXT:        [[ROW:%[0-9]+]] = arith.muli [[I]], [[C3]] : index
// CHECK-NEXT:        [[AT:%[0-9]+]] = arith.addi [[ROW]], [[J]] : index
// CHECK-NEXT:        [[X:%[0-9]+]] = memref.load %x{{\[}}[[AT]]] : memref<?xf64>
// CHECK-NEXT:        [[SUM:%[0-9]+]] = arith.addf [[ACC]], [[X]] : f64
// CHECK-NEXT:        memref.store [[SUM]], [[OUT]]{{\[}}[[AT]]] : memref<?xf64>
// CHECK-NEXT:        scf.yield [[SUM]] : f64
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     te.

// An extent that selects between two counts from data (a size of either of two
// compactions): its buffer is allocated for the larger of their bounds (N and M).
func.func @select_extent(%N: index, %M: index, %x: tensor<?xi1> {te.dims = ["N"]}, %y: tensor<?xi1> {te.dims = ["M"]}, %b: tensor<i1> {te.dims = []}) -> tensor<f64> {
  %p, %c = te.compact %x over %N : tensor<?xi1> -> tensor<?xi64>
  %q, %d = te.compact %y over %M : tensor<?xi1> -> tensor<?xi64>
  %c0 = arith.constant 0 : index
  %flag = te.load %b[] : tensor<i1> -> i1
  %e = arith.select %flag, %c, %d : index
  %0 = te.compute [%e] : tensor<?xf64> {
  ^bb0(%i: index):
    %v = te.load %p[%i] : tensor<?xi64> -> i64
    %f = arith.sitofp %v : i64 to f64
    te.yield %f : f64
  }
  %1 = te.reduce "add" [] over [%e] : tensor<f64> {
  ^bb0(%i: index):
    %v = te.load %0[%i] : tensor<?xf64> -> f64
    te.yield %v : f64
  }
  func.return %1 : tensor<f64>
}
// CHECK-LABEL: func.func @select_extent(
// CHECK:         [[E:%[a-z0-9]+]] = arith.select {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} : index
// CHECK-NEXT:    [[BOUND:%[0-9]+]] = arith.maxsi %N, %M : index
// CHECK-NEXT:    {{%[0-9]+}} = memref.alloc([[BOUND]]) : memref<?xf64>
// CHECK-NOT:     memref.alloc([[E]])
// CHECK:         scf.for {{%[0-9]+}} = %c0 to [[E]] step
