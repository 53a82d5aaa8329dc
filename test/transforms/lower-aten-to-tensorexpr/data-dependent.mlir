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

// repeat_interleave: te.checks that no repeat is negative; the length is the sum of the
// repeats, loaded by the function (an index like nonzero's count, clamped at 0 so a
// bad call allocates nothing negative); ends = te.scan of the repeats; every end marks
// its slot of total + 1 (a te.scatter "add" through a checked te.index); the scan of
// the marks, cut to the length, is the result: out[i] = #{k: ends[k] <= i}, at most
// n - 1 (a no-op for valid repeats: a reader's index check never hides the checks').
func.func @repeat_interleave(%N: index, %r: tensor<?xi32> {aten.dims = ["N"]}) -> tensor<i32> {
  %0 = aten.repeat_interleave.Tensor %r : tensor<?xi32> -> tensor<?xi32>
  %1 = aten.sum %0 : tensor<?xi32> -> tensor<i32>
  func.return %1 : tensor<i32>
}
// CHECK-LABEL: func.func @repeat_interleave(
// CHECK-SAME:    te.index_sites = ["assertion failed: repeats can not be negative", "repeat_interleave: a negative repeat (or a sum past output_size) (index data from argument 'r')"]
// CHECK:         [[ONE:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    [[COUNTS:%[0-9]+]] = te.compute [%N] : tensor<?xi64> {
// CHECK:           arith.extsi {{%[0-9]+}} : i32 to i64
// CHECK:         [[LOWEST:%[0-9]+]] = te.reduce "min" [] over [%N] : tensor<i64> {
// CHECK:         [[OK:%[0-9]+]] = te.compute [] : tensor<i1> {
// CHECK:           arith.cmpi sge
// CHECK:         te.check [[OK]] {site = 1 : i64} : tensor<i1>
// CHECK-NEXT:    [[SUM:%[0-9]+]] = te.reduce "add" [] over [%N] : tensor<i64> {
// CHECK:         [[LOADED:%[0-9]+]] = te.load [[SUM]][] : tensor<i64> -> i64
// CHECK-NEXT:    [[Z:%[0-9]+]] = arith.constant 0 : i64
// CHECK-NEXT:    [[CLAMPED:%[0-9]+]] = arith.maxsi [[LOADED]], [[Z]] : i64
// CHECK-NEXT:    [[TOTAL:%[0-9]+]] = arith.index_cast [[CLAMPED]] : i64 to index
// CHECK-NEXT:    [[ENDS:%[0-9]+]] = te.scan "add" [[COUNTS]] {dim = 0 : i64} : tensor<?xi64> -> tensor<?xi64>
// CHECK-NEXT:    [[SLOTS:%[0-9]+]] = arith.addi [[TOTAL]], [[ONE]] : index
// CHECK-NEXT:    [[ZEROS:%[0-9]+]] = te.compute {{\[}}[[SLOTS]]] : tensor<?xi64> {
// CHECK:         [[MARKS:%[0-9]+]] = te.scatter "add" [[ZEROS]] over [%N] : tensor<?xi64> -> tensor<?xi64> {
// CHECK-NEXT:    ^bb0([[K:%[0-9]+]]: index):
// CHECK-NEXT:      [[END:%[0-9]+]] = te.load [[ENDS]]{{\[}}[[K]]] : tensor<?xi64> -> i64
// CHECK-NEXT:      [[AT:%[0-9]+]] = te.index [[END]] in [[SLOTS]] {site = 2 : i64} : i64
// CHECK-NEXT:      [[INC:%[0-9]+]] = arith.constant 1 : i64
// CHECK-NEXT:      te.update {{\[}}[[AT]]], [[INC]] : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    [[SCAN:%[0-9]+]] = te.scan "add" [[MARKS]] {dim = 0 : i64} : tensor<?xi64> -> tensor<?xi64>
// CHECK-NEXT:    [[NM1:%[0-9]+]] = arith.subi %N, [[ONE]] : index
// CHECK-NEXT:    [[LAST:%[0-9]+]] = arith.index_cast [[NM1]] : index to i64
// CHECK-NEXT:    [[OUT:%[0-9]+]] = te.compute {{\[}}[[TOTAL]]] : tensor<?xi32> {
// CHECK-NEXT:    ^bb0([[I:%[0-9]+]]: index):
// CHECK-NEXT:      [[C:%[0-9]+]] = te.load [[SCAN]]{{\[}}[[I]]] : tensor<?xi64> -> i64
// CHECK-NEXT:      [[CL:%[0-9]+]] = arith.minsi [[C]], [[LAST]] : i64
// CHECK-NEXT:      arith.trunci [[CL]] : i64 to i32
// CHECK:         te.reduce "add" [] over {{\[}}[[TOTAL]]] : tensor<i32> {
// CHECK-NOT:     aten.

// With output_size the length is that size (here N: no load, no clamp), and a second
// te.check compares it with the sum (torch's message).
func.func @repeat_interleave_output_size(%N: index, %r: tensor<3xi64> {aten.dims = [3 : i64]}) -> tensor<?xi64> {
  %0 = aten.repeat_interleave.Tensor %r output_size %N : tensor<3xi64> -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}
// CHECK-LABEL: func.func @repeat_interleave_output_size(
// CHECK-SAME:    "assertion failed: allocated size does not match required size"
// CHECK:         [[SUM:%[0-9]+]] = te.reduce "add" [] over [{{%[0-9]+}}] : tensor<i64> {
// CHECK:         [[SAME:%[0-9]+]] = te.compute [] : tensor<i1> {
// CHECK-NEXT:      [[S:%[0-9]+]] = te.load [[SUM]][] : tensor<i64> -> i64
// CHECK-NEXT:      [[NI:%[0-9]+]] = arith.index_cast %N : index to i64
// CHECK-NEXT:      arith.cmpi eq, [[S]], [[NI]] : i64
// CHECK:         te.check [[SAME]] {site = 2 : i64} : tensor<i1>
// CHECK-NOT:     arith.maxsi
// CHECK:         arith.addi %N, {{%[0-9]+}} : index
// CHECK:         [[OUT:%[0-9]+]] = te.compute [%N] : tensor<?xi64> {
// CHECK:         func.return [[OUT]] : tensor<?xi64>
// CHECK-NOT:     aten.
