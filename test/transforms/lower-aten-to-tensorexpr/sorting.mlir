// RUN: pipeline-opt %s -p lower-aten-to-tensorexpr | filecheck %s

// lower-aten-to-tensorexpr, sorting: topk (as sort) ranks every element along the dim
// by a te.reduce "add" counting the elements ordered before it (greater, or NaN, for
// largest; equal ones earlier in the row break ties: stable), then each of the k places
// picks, by a te.reduce "max" over the row, the one element (and its position) whose
// rank it is; everything else contributes the lowest value. No aten op remains.

// CHECK: builtin.module {
// CHECK-NOT: aten.

func.func @topk(%N: index, %x: tensor<?x5xf64> {aten.dims = ["N", 5 : i64]}) -> (tensor<?x2xf64>, tensor<?x2xi64>) {
  %c2 = arith.constant 2 : index
  %v, %i = aten.topk %x, %c2 {dim = 1 : i64} : tensor<?x5xf64> -> tensor<?x2xf64>, tensor<?x2xi64>
  func.return %v, %i : tensor<?x2xf64>, tensor<?x2xi64>
}
// CHECK-LABEL: func.func @topk(
// CHECK:         [[C5:%[0-9]+]] = arith.constant 5 : index
// CHECK:         [[RANK:%[0-9]+]] = te.reduce "add" [%N, [[C5]]] over {{\[}}[[C5]]] : tensor<?x5xi64> {
// CHECK-NEXT:    ^bb0([[R:%[0-9]+]]: index, [[A:%[0-9]+]]: index, [[B:%[0-9]+]]: index):
// CHECK-NEXT:      [[X:%[0-9]+]] = te.load %x{{\[}}[[R]], [[A]]] : tensor<?x5xf64> -> f64
// CHECK-NEXT:      [[Y:%[0-9]+]] = te.load %x{{\[}}[[R]], [[B]]] : tensor<?x5xf64> -> f64
// CHECK:           arith.cmpi ult, [[B]], [[A]] : index
// CHECK:           arith.cmpf ogt, [[Y]], [[X]] : f64
// CHECK:           te.yield {{%[0-9]+}} : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %v = te.reduce "max" [%N, {{%[0-9]+}}] over {{\[}}[[C5]]] : tensor<?x2xf64> {
// CHECK-NEXT:    ^bb0([[R2:%[0-9]+]]: index, [[P:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:      [[RK:%[0-9]+]] = te.load [[RANK]]{{\[}}[[R2]], [[K]]] : tensor<?x5xi64> -> i64
// CHECK-NEXT:      [[PI:%[0-9]+]] = arith.index_cast [[P]] : index to i64
// CHECK-NEXT:      [[HIT:%[0-9]+]] = arith.cmpi eq, [[RK]], [[PI]] : i64
// CHECK-NEXT:      [[LOW:%[0-9]+]] = arith.constant 0xfff0000000000000 : f64
// CHECK-NEXT:      [[XK:%[0-9]+]] = te.load %x{{\[}}[[R2]], [[K]]] : tensor<?x5xf64> -> f64
// CHECK-NEXT:      [[SEL:%[0-9]+]] = arith.select [[HIT]], [[XK]], [[LOW]] : f64
// CHECK-NEXT:      te.yield [[SEL]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    %i = te.reduce "max" [%N, {{%[0-9]+}}] over {{\[}}[[C5]]] : tensor<?x2xi64> {
// CHECK:           arith.index_cast {{%[0-9]+}} : index to i64
// CHECK:         func.return %v, %i : tensor<?x2xf64>, tensor<?x2xi64>
// CHECK-NOT: aten.
