// RUN: pipeline-opt %s -p rename-c-library-clashes > %t
// RUN: filecheck %s < %t

func.func @exp(%n: index, %x: memref<?xf64>) {
  func.return
}
func.func @energy(%n: index, %x: memref<?xf64>) {
  func.call @exp(%n, %x) : (index, memref<?xf64>) -> ()
  func.return
}
func.func private @log(f64) -> f64
func.func private @free(%p: memref<?xf64>) {
  func.return
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func @__codegen_renamed_exp(%n: index, %x: memref<?xf64>) {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @energy(%n: index, %x: memref<?xf64>) {
// CHECK-NEXT:     func.call @__codegen_renamed_exp(%n, %x) : (index, memref<?xf64>) -> ()
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @log(f64) -> f64
// CHECK-NEXT:   func.func private @__codegen_renamed_free(%p: memref<?xf64>) {
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
