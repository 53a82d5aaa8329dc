// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s

// lower-aten-to-tensorexpr, data-dependent sizes: nonzero flattens `self != 0` into
// flags, te.compact lists their positions and counts them, and row j of the result
// unravels position j over self's dims (a select picks the column). The count is
// the result's first extent, an index like N: no aten op and no nonzero remain.

// CHECK: builtin.module {
// CHECK-NOT: aten.

func.func @nonzero(%N: index, %x: tensor<?x3xf64> {aten.dims = ["N", 3 : i64]}) -> tensor<?x2xi64> {
  %0 = aten.nonzero %x : tensor<?x3xf64> -> tensor<?x2xi64>
  func.return %0 : tensor<?x2xi64>
}
// CHECK-LABEL: func.func @nonzero(%N: index, %x: tensor<?x3xf64> {te.dims = ["N", 3 : i64]}) -> tensor<?x2xi64> {
// CHECK-NEXT:    [[C2:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT:    [[C0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    {{%[0-9]+}} = arith.constant 1 : index
// CHECK-NEXT:    [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[NUMEL:%[0-9]+]] = arith.muli %N, [[C3]] : index
// CHECK-NEXT:    [[FLAGS:%[0-9]+]] = te.compute {{\[}}[[NUMEL]]] : tensor<?xi1> {
// CHECK-NEXT:    ^bb0([[F:%[0-9]+]]: index):
// CHECK-NEXT:      [[COL:%[0-9]+]] = arith.remui [[F]], [[C3]] : index
// CHECK-NEXT:      [[ROW:%[0-9]+]] = arith.divui [[F]], [[C3]] : index
// CHECK-NEXT:      [[X:%[0-9]+]] = te.load %x{{\[}}[[ROW]], [[COL]]] : tensor<?x3xf64> -> f64
// CHECK-NEXT:      [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      [[NZ:%[0-9]+]] = arith.cmpf une, [[X]], [[ZERO]] : f64
// CHECK-NEXT:      te.yield [[NZ]] : i1
// CHECK-NEXT:    }
// CHECK-NEXT:    [[POS:%[0-9]+]], [[COUNT:%[0-9]+]] = te.compact [[FLAGS]] over [[NUMEL]] : tensor<?xi1> -> tensor<?xi64>
// CHECK-NEXT:    [[OUT:%[0-9]+]] = te.compute {{\[}}[[COUNT]], [[C2]]] : tensor<?x2xi64> {
// CHECK-NEXT:    ^bb0([[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:      [[P:%[0-9]+]] = te.load [[POS]]{{\[}}[[J]]] : tensor<?xi64> -> i64
// CHECK-NEXT:      [[PI:%[0-9]+]] = arith.index_cast [[P]] : i64 to index
// CHECK-NEXT:      [[PC:%[0-9]+]] = arith.remui [[PI]], [[C3]] : index
// CHECK-NEXT:      [[PR:%[0-9]+]] = arith.divui [[PI]], [[C3]] : index
// CHECK-NEXT:      [[IS0:%[0-9]+]] = arith.cmpi eq, [[K]], [[C0]] : index
// CHECK-NEXT:      [[SEL:%[0-9]+]] = arith.select [[IS0]], [[PR]], [[PC]] : index
// CHECK-NEXT:      [[R:%[0-9]+]] = arith.index_cast [[SEL]] : index to i64
// CHECK-NEXT:      te.yield [[R]] : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[OUT]] : tensor<?x2xi64>
// CHECK-NEXT:  }
// CHECK-NOT: aten.

// _assert_async.msg: a te.check of the condition; its message is the function's
// check site (te.index_sites), numbered from 1 like the index checks.
func.func @assert(%N: index, %x: tensor<?xi64> {aten.dims = ["N"]}) -> tensor<?xi64> {
  %c0 = arith.constant 0 : i64
  %ge = aten.ge.Scalar %x, %c0 : tensor<?xi64>, i64 -> tensor<?xi1>
  %all = aten.amin %ge : tensor<?xi1> -> tensor<i1>
  aten._assert_async.msg %all {assert_msg = "x must be >= 0"} : tensor<i1>
  func.return %x : tensor<?xi64>
}
// CHECK-LABEL: func.func @assert(%N: index, %x: tensor<?xi64> {te.dims = ["N"]}) -> tensor<?xi64> attributes {te.index_sites = ["assertion failed: x must be >= 0"]} {
// CHECK:         %all = te.reduce "min" [] over [%N] : tensor<i1> {
// CHECK:         }
// CHECK-NEXT:    te.check %all {site = 1 : i64} : tensor<i1>
// CHECK-NEXT:    func.return %x : tensor<?xi64>
// CHECK-NEXT:  }
// CHECK-NOT: aten.
