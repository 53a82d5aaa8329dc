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

// Offsets that are not an index times the accessed element's size stay in bytes.
func.func @bytes(%p: !ptr_xdsl.ptr, %i: i64) {
  %pm = ptr_xdsl.from_ptr %p : !ptr_xdsl.ptr -> memref<?xf32>
  %pp = ptr_xdsl.to_ptr %pm : memref<?xf32> -> !ptr_xdsl.ptr
  %c8 = arith.constant 8 : i64
  %wide = arith.muli %i, %c8 : i64
  %a = ptr_xdsl.ptradd %pp, %wide : (!ptr_xdsl.ptr, i64) -> !ptr_xdsl.ptr
  %f = ptr_xdsl.load %a : !ptr_xdsl.ptr -> f32
  %b = ptr_xdsl.ptradd %pp, %wide : (!ptr_xdsl.ptr, i64) -> !ptr_xdsl.ptr
  %d = ptr_xdsl.load %b : !ptr_xdsl.ptr -> f64
  %l = ptr_xdsl.load %b : !ptr_xdsl.ptr -> i64
  %c3 = arith.constant 3 : i64
  %third = arith.muli %c3, %c8 : i64
  %t = ptr_xdsl.ptradd %pp, %third : (!ptr_xdsl.ptr, i64) -> !ptr_xdsl.ptr
  %e = ptr_xdsl.load %t : !ptr_xdsl.ptr -> f64
  func.return
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func private @malloc(i64) -> !llvm.ptr
// CHECK-NEXT:   func.func @copy_scaled(%n: i64, %x: !llvm.ptr, %y: !llvm.ptr) {
// CHECK-NEXT:     %c4 = arith.constant 4 : i64
// CHECK-NEXT:     %bytes = arith.muli %n, %c4 : i64
// CHECK-NEXT:     %tmp = func.call @malloc(%bytes) : (i64) -> !llvm.ptr
// An index times the element's size: a GEP over the element, the product gone.
// CHECK-NEXT:     %i = "test.op"() : () -> i64
// CHECK-NEXT:     %xa = llvm.getelementptr inbounds %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:     %v = llvm.load %xa : !llvm.ptr -> f32
// CHECK-NEXT:     llvm.store %v, %tmp : f32, !llvm.ptr
// CHECK-NEXT:     %ya = llvm.getelementptr inbounds %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:     llvm.store %v, %ya : f32, !llvm.ptr
// A vector (a slice of a row) is only as aligned as its elements.
// CHECK-NEXT:     %w = llvm.load %xa {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// CHECK-NEXT:     llvm.store %w, %ya {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @bytes(%p: !llvm.ptr, %i: i64) {
// CHECK-NEXT:     %c8 = arith.constant 8 : i64
// CHECK-NEXT:     %wide = arith.muli %i, %c8 : i64
// CHECK-NEXT:     %a = llvm.getelementptr inbounds %p[%wide] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:     %f = llvm.load %a : !llvm.ptr -> f32
// Users of two element types (of the same size): bytes too.
// CHECK-NEXT:     %b = llvm.getelementptr inbounds %p[%wide] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:     %d = llvm.load %b : !llvm.ptr -> f64
// CHECK-NEXT:     %l = llvm.load %b : !llvm.ptr -> i64
// A constant index: a constant GEP.
// CHECK-NEXT:     %t = llvm.getelementptr inbounds %p[3] : (!llvm.ptr) -> !llvm.ptr, f64
// CHECK-NEXT:     %e = llvm.load %t : !llvm.ptr -> f64
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GONE-NOT: arith.muli %i, %c4
// GONE-NOT: %third
// GONE-NOT: %c3
// GONE-NOT: ptr_xdsl
// GONE-NOT: ptrtoint
// GONE-NOT: inttoptr
// GONE-NOT: memref
