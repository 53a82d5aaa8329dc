// RUN: pipeline-opt %s -p convert-ptr-to-llvm-gep > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t

func.func private @malloc(i64) -> !ptr_xdsl.ptr
func.func @copy_scaled(%n: i64, %x: !ptr_xdsl.ptr, %y: !ptr_xdsl.ptr) {
  %xm = ptr_xdsl.from_ptr %x : !ptr_xdsl.ptr -> memref<?xf32>
  %ym = ptr_xdsl.from_ptr %y : !ptr_xdsl.ptr -> memref<?xf32>
  %c4 = arith.constant 4 : i64
  %bytes = arith.muli %n, %c4 : i64
  %tmp = func.call @malloc(%bytes) : (i64) -> !ptr_xdsl.ptr
  %tm = ptr_xdsl.from_ptr %tmp : !ptr_xdsl.ptr -> memref<?xf32>
  %i = "test.op"() : () -> i64
  %off = arith.muli %i, %c4 : i64
  %xp = ptr_xdsl.to_ptr %xm : memref<?xf32> -> !ptr_xdsl.ptr
  %xa = ptr_xdsl.ptradd %xp, %off : (!ptr_xdsl.ptr, i64) -> !ptr_xdsl.ptr
  %v = ptr_xdsl.load %xa : !ptr_xdsl.ptr -> f32
  %tp = ptr_xdsl.to_ptr %tm : memref<?xf32> -> !ptr_xdsl.ptr
  ptr_xdsl.store %v, %tp : f32, !ptr_xdsl.ptr
  %yp = ptr_xdsl.to_ptr %ym : memref<?xf32> -> !ptr_xdsl.ptr
  %ya = ptr_xdsl.ptradd %yp, %off : (!ptr_xdsl.ptr, i64) -> !ptr_xdsl.ptr
  ptr_xdsl.store %v, %ya : f32, !ptr_xdsl.ptr
  %w = ptr_xdsl.load %xa : !ptr_xdsl.ptr -> vector<16xf32>
  ptr_xdsl.store %w, %ya : vector<16xf32>, !ptr_xdsl.ptr
  func.return
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func private @malloc(i64) -> !llvm.ptr
// CHECK-NEXT:   func.func @copy_scaled(%n: i64, %x: !llvm.ptr, %y: !llvm.ptr) {
// CHECK-NEXT:     %c4 = arith.constant 4 : i64
// CHECK-NEXT:     %bytes = arith.muli %n, %c4 : i64
// CHECK-NEXT:     %tmp = func.call @malloc(%bytes) : (i64) -> !llvm.ptr
// CHECK-NEXT:     %i = "test.op"() : () -> i64
// CHECK-NEXT:     %off = arith.muli %i, %c4 : i64
// CHECK-NEXT:     %xa = llvm.getelementptr inbounds %x[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:     %v = llvm.load %xa : !llvm.ptr -> f32
// CHECK-NEXT:     llvm.store %v, %tmp : f32, !llvm.ptr
// CHECK-NEXT:     %ya = llvm.getelementptr inbounds %y[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:     llvm.store %v, %ya : f32, !llvm.ptr
// A vector (a slice of a row) is only as aligned as its elements.
// CHECK-NEXT:     %w = llvm.load %xa {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:     llvm.store %w, %ya {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GONE-NOT: ptr_xdsl
// GONE-NOT: ptrtoint
// GONE-NOT: inttoptr
// GONE-NOT: memref
