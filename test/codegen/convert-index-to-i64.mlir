// RUN: pipeline-opt %s -p convert-index-to-i64 > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t

func.func @offsets(%n: index, %k: i32, %p: !ptr_xdsl.ptr) -> index {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant dense<[1, 2]> : vector<2xindex>
  cf.br ^bb1(%c0 : index)
^bb1(%i: index):
  %m = arith.muli %i, %c4 : index
  %narrow = arith.index_cast %m : index to i32
  %wide = arith.index_cast %k : i32 to index
  %same = arith.index_cast %m : index to i64
  %s = arith.addi %wide, %m : index
  %q = ptr_xdsl.ptradd %p, %m : (!ptr_xdsl.ptr, index) -> !ptr_xdsl.ptr
  %c = builtin.unrealized_conversion_cast %s : index to i64
  "test.op"(%narrow, %same, %v, %q, %c) : (i32, i64, vector<2xindex>, !ptr_xdsl.ptr, i64) -> ()
  %more = arith.cmpi slt, %s, %n : index
  cf.cond_br %more, ^bb1(%s : index), ^bb2
^bb2:
  func.return %s : index
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func @offsets(%n: i64, %k: i32, %p: !ptr_xdsl.ptr) -> i64 {
// CHECK-NEXT:     %c0 = arith.constant 0 : i64
// CHECK-NEXT:     %c4 = arith.constant 4 : i64
// CHECK-NEXT:     %v = arith.constant dense<[1, 2]> : vector<2xi64>
// CHECK-NEXT:     cf.br ^bb1(%c0 : i64)
// CHECK-NEXT:   ^bb1(%i: i64):
// CHECK-NEXT:     %m = arith.muli %i, %c4 : i64
// CHECK-NEXT:     %narrow = arith.trunci %m : i64 to i32
// CHECK-NEXT:     %wide = arith.extsi %k : i32 to i64
// CHECK-NEXT:     %s = arith.addi %wide, %m : i64
// CHECK-NEXT:     %q = ptr_xdsl.ptradd %p, %m : (!ptr_xdsl.ptr, i64) -> !ptr_xdsl.ptr
// CHECK-NEXT:     "test.op"(%narrow, %m, %v, %q, %s) : (i32, i64, vector<2xi64>, !ptr_xdsl.ptr, i64) -> ()
// CHECK-NEXT:     %more = arith.cmpi slt, %s, %n : i64
// CHECK-NEXT:     cf.cond_br %more, ^bb1(%s : i64), ^bb2
// CHECK-NEXT:   ^bb2:
// CHECK-NEXT:     func.return %s : i64
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GONE-NOT: index
// GONE-NOT: unrealized_conversion_cast
