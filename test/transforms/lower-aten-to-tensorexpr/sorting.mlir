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

// searchsorted: a te.reduce "add" over the sequence counts the elements before each
// value, with torch's binary-search predicate: !(x >= v) (cmpf ult) on the left,
// !(x > v) (ule) with right; both sides in the wider type (f32 values against an
// f64 sequence: extf). The result is i32 with out_int32. No searchsorted remains.
func.func @searchsorted(%M: index, %N: index, %s: tensor<?xf64> {aten.dims = ["M"]}, %x: tensor<?x3xf32> {aten.dims = ["N", 3 : i64]}) -> tensor<?x3xi32> {
  %0 = aten.searchsorted.Tensor %s, %x {right = true, out_int32 = true} : tensor<?xf64>, tensor<?x3xf32> -> tensor<?x3xi32>
  func.return %0 : tensor<?x3xi32>
}
// CHECK-LABEL: func.func @searchsorted(
// CHECK:         [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:    [[OUT:%[0-9]+]] = te.reduce "add" [%N, [[C3]]] over [%M] : tensor<?x3xi32> {
// CHECK-NEXT:    ^bb0([[I:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:      [[S:%[0-9]+]] = te.load %s{{\[}}[[K]]] : tensor<?xf64> -> f64
// CHECK-NEXT:      [[V:%[0-9]+]] = te.load %x{{\[}}[[I]], [[J]]] : tensor<?x3xf32> -> f32
// CHECK-NEXT:      [[VW:%[0-9]+]] = arith.extf [[V]] : f32 to f64
// CHECK-NEXT:      [[BEFORE:%[0-9]+]] = arith.cmpf ule, [[S]], [[VW]] : f64
// CHECK-NEXT:      [[ONE:%[0-9]+]] = arith.extui [[BEFORE]] : i1 to i32
// CHECK-NEXT:      te.yield [[ONE]] : i32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return [[OUT]] : tensor<?x3xi32>
// CHECK-NOT:   searchsorted

// One sequence per leading index (row r of s for row r of v), read through a sorter:
// its entries are data, so each is a checked te.index into the sequence's length.
func.func @searchsorted_rows(%M: index, %s: tensor<4x?xi64> {aten.dims = [4 : i64, "M"]}, %k: tensor<4x?xi64> {aten.dims = [4 : i64, "M"]}, %v: tensor<4x2xi64> {aten.dims = [4 : i64, 2 : i64]}) -> tensor<4x2xi64> {
  %0 = aten.searchsorted.Tensor %s, %v sorter %k : tensor<4x?xi64> : tensor<4x?xi64>, tensor<4x2xi64> -> tensor<4x2xi64>
  func.return %0 : tensor<4x2xi64>
}
// CHECK-LABEL: func.func @searchsorted_rows(
// CHECK-SAME:    attributes {te.index_sites = ["searchsorted: sorter (index data from argument 'k')"]}
// CHECK:         te.reduce "add" [{{%[0-9]+}}, {{%[0-9]+}}] over [%M] : tensor<4x2xi64> {
// CHECK-NEXT:    ^bb0([[R:%[0-9]+]]: index, [[J:%[0-9]+]]: index, [[K:%[0-9]+]]: index):
// CHECK-NEXT:      [[P:%[0-9]+]] = te.load %k{{\[}}[[R]], [[K]]] : tensor<4x?xi64> -> i64
// CHECK-NEXT:      [[PI:%[0-9]+]] = te.index [[P]] in %M {site = 1 : i64} : i64
// CHECK-NEXT:      [[S:%[0-9]+]] = te.load %s{{\[}}[[R]], [[PI]]] : tensor<4x?xi64> -> i64
// CHECK-NEXT:      [[V:%[0-9]+]] = te.load %v{{\[}}[[R]], [[J]]] : tensor<4x2xi64> -> i64
// CHECK-NEXT:      arith.cmpi slt, [[S]], [[V]] : i64
// CHECK-NOT:   searchsorted

// A scalar value: a 0-d count. An integer sequence against a float scalar compares in f64.
func.func @searchsorted_scalar(%M: index, %s: tensor<?xi64> {aten.dims = ["M"]}) -> tensor<i64> {
  %f = arith.constant 5.000000e-01 : f64
  %0 = aten.searchsorted.Scalar %s, %f : tensor<?xi64>, f64 -> tensor<i64>
  func.return %0 : tensor<i64>
}
// CHECK-LABEL: func.func @searchsorted_scalar(
// CHECK:         te.reduce "add" [] over [%M] : tensor<i64> {
// CHECK-NEXT:    ^bb0([[K:%[0-9]+]]: index):
// CHECK-NEXT:      [[S:%[0-9]+]] = te.load %s{{\[}}[[K]]] : tensor<?xi64> -> i64
// CHECK-NEXT:      [[SF:%[0-9]+]] = arith.sitofp [[S]] : i64 to f64
// CHECK-NEXT:      arith.cmpf ult, [[SF]], %f : f64
// CHECK-NOT:   aten.
