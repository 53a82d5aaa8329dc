// RUN: pipeline-opt %s -p convert-func-to-llvm > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t
// RUN: pipeline-opt %s -p 'convert-func-to-llvm{noalias=false}' | filecheck %s --check-prefix=ALIAS

func.func private @expf(f32) -> f32
func.func private @helper(%x: f32) -> f32 {
  %y = func.call @expf(%x) : (f32) -> f32
  func.return %y : f32
}
func.func @kernel(%n: i64, %x: !llvm.ptr, %y: !llvm.ptr {llvm.align = 64 : i64}, %s: f32) attributes {llvm.emit_c_interface} {
  %v = func.call @helper(%s) : (f32) -> f32
  llvm.store %v, %y : f32, !llvm.ptr
  func.return
}

// CHECK: builtin.module {
// CHECK-NEXT:   llvm.func @expf(f32) -> f32
// CHECK-NEXT:   llvm.func internal @helper(%x: f32) -> f32 {
// CHECK-NEXT:     %y = llvm.call @expf(%x) : (f32) -> f32
// CHECK-NEXT:     llvm.return %y : f32
// CHECK-NEXT:   }
// CHECK-NEXT:   llvm.func @kernel(%n: i64, %x_1: !llvm.ptr {llvm.noalias}, %y_1: !llvm.ptr {llvm.align = 64 : i64, llvm.noalias}, %s: f32) {
// CHECK-NEXT:     %v = llvm.call @helper(%s) : (f32) -> f32
// CHECK-NEXT:     llvm.store %v, %y_1 : f32, !llvm.ptr
// CHECK-NEXT:     llvm.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// Without noalias, only the argument attributes that were there stay.
// ALIAS:   llvm.func @kernel(%n: i64, %x_1: !llvm.ptr, %y_1: !llvm.ptr {llvm.align = 64 : i64}, %s: f32) {

// GONE-NOT: func.
// GONE-NOT: emit_c_interface
