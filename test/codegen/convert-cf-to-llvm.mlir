// RUN: pipeline-opt %s -p convert-cf-to-llvm > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t

func.func @branches(%c: i1, %a: i64, %b: i64) -> i64 {
  cf.cond_br %c, ^bb1(%a : i64), ^bb2
^bb1(%x: i64):
  cf.br ^bb3(%x : i64)
^bb2:
  cf.switch %b : i64, [
    default: ^bb3(%b : i64),
    4: ^bb3(%a : i64),
    7: ^bb4
  ]
^bb4:
  %ok = "test.op"() : () -> i1
  cf.assert %ok, "must hold"
  cf.br ^bb3(%b : i64)
^bb3(%r: i64):
  func.return %r : i64
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func @branches(%c: i1, %a: i64, %b: i64) -> i64 {
// CHECK-NEXT:     llvm.cond_br %c, ^bb1(%a : i64), ^bb2
// CHECK-NEXT:   ^bb1(%x: i64):
// CHECK-NEXT:     llvm.br ^bb7(%x : i64)
// CHECK-NEXT:   ^bb2:
// CHECK-NEXT:     %0 = llvm.mlir.constant(4) : i64
// CHECK-NEXT:     %1 = llvm.icmp "eq" %b, %0 : i64
// CHECK-NEXT:     llvm.cond_br %1, ^bb7(%a : i64), ^bb3
// CHECK-NEXT:   ^bb3:
// CHECK-NEXT:     %2 = llvm.mlir.constant(7) : i64
// CHECK-NEXT:     %3 = llvm.icmp "eq" %b, %2 : i64
// CHECK-NEXT:     llvm.cond_br %3, ^bb4, ^bb7(%b : i64)
// CHECK-NEXT:   ^bb4:
// CHECK-NEXT:     %ok = "test.op"() : () -> i1
// CHECK-NEXT:     llvm.cond_br %ok, ^bb6, ^bb5
// CHECK-NEXT:   ^bb5:
// CHECK-NEXT:     llvm.call_intrinsic "llvm.trap"() : () -> ()
// CHECK-NEXT:     llvm.unreachable
// CHECK-NEXT:   ^bb6:
// CHECK-NEXT:     llvm.br ^bb7(%b : i64)
// CHECK-NEXT:   ^bb7(%r: i64):
// CHECK-NEXT:     func.return %r : i64
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GONE-NOT: cf.
