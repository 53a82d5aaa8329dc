// RUN: pipeline-opt %s | pipeline-opt | filecheck %s

// The casts codegen.llvm_ext adds to xDSL's llvm dialect print and parse again, so the
// llvm stage's text (`--emit llvm`, a dump) is valid input to pipeline-opt.

func.func @casts(%x: f32, %i: i64) -> (i32, i32, f64) {
  %a = llvm.fptosi %x : f32 to i32
  %b = llvm.fptoui %x : f32 to i32
  %c = llvm.uitofp %i : i64 to f64
  func.return %a, %b, %c : i32, i32, f64
}
// CHECK-LABEL: func.func @casts(
// CHECK-NEXT:    %a = llvm.fptosi %x : f32 to i32
// CHECK-NEXT:    %b = llvm.fptoui %x : f32 to i32
// CHECK-NEXT:    %c = llvm.uitofp %i : i64 to f64
// CHECK-NEXT:    func.return %a, %b, %c : i32, i32, f64
