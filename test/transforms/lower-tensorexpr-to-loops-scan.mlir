// RUN: pipeline-opt %s -p lower-tensorexpr-to-loops | filecheck %s

// lower-tensorexpr-to-loops, te.scan: a loop over the other dims around one sequential
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
