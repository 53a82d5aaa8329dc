// RUN: pipeline-opt %s -p convert-memref-alloc-to-malloc > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t

func.func @buffers(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc() : memref<8xi64>
  %c = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf64>
  %d = memref.alloc(%n) : memref<?xi1>
  "test.op"(%a, %b, %c, %d) : (memref<?xf32>, memref<8xi64>, memref<?xf64>, memref<?xi1>) -> ()
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %c : memref<?xf64>
  func.return
}

// CHECK: builtin.module {
// CHECK-NEXT:   func.func private @malloc(i64) -> !ptr_xdsl.ptr
// CHECK-NEXT:   func.func private @aligned_alloc(i64, i64) -> !ptr_xdsl.ptr
// CHECK-NEXT:   func.func private @free(!ptr_xdsl.ptr) -> ()
// CHECK-NEXT:   func.func @buffers(%n: index) {
// CHECK-NEXT:     %bytes_per_element = ptr_xdsl.type_offset f32 : index
// CHECK-NEXT:     %0 = arith.muli %n, %bytes_per_element : index
// CHECK-NEXT:     %bytes = arith.index_cast %0 : index to i64
// CHECK-NEXT:     %a = func.call @malloc(%bytes) : (i64) -> !ptr_xdsl.ptr
// CHECK-NEXT:     %a_1 = ptr_xdsl.from_ptr %a : !ptr_xdsl.ptr -> memref<?xf32>
// CHECK-NEXT:     %bytes_per_element_1 = ptr_xdsl.type_offset i64 : index
// CHECK-NEXT:     %1 = arith.constant 8 : index
// CHECK-NEXT:     %2 = arith.muli %bytes_per_element_1, %1 : index
// CHECK-NEXT:     %bytes_1 = arith.index_cast %2 : index to i64
// CHECK-NEXT:     %b = func.call @malloc(%bytes_1) : (i64) -> !ptr_xdsl.ptr
// CHECK-NEXT:     %b_1 = ptr_xdsl.from_ptr %b : !ptr_xdsl.ptr -> memref<8xi64>
// CHECK-NEXT:     %bytes_per_element_2 = ptr_xdsl.type_offset f64 : index
// CHECK-NEXT:     %3 = arith.muli %n, %bytes_per_element_2 : index
// CHECK-NEXT:     %4 = arith.constant 63 : index
// CHECK-NEXT:     %5 = arith.addi %3, %4 : index
// CHECK-NEXT:     %6 = arith.constant -64 : index
// CHECK-NEXT:     %7 = arith.andi %5, %6 : index
// CHECK-NEXT:     %bytes_2 = arith.index_cast %7 : index to i64
// CHECK-NEXT:     %8 = arith.constant 64 : i64
// CHECK-NEXT:     %c = func.call @aligned_alloc(%8, %bytes_2) : (i64, i64) -> !ptr_xdsl.ptr
// CHECK-NEXT:     %c_1 = ptr_xdsl.from_ptr %c : !ptr_xdsl.ptr -> memref<?xf64>
// CHECK-NEXT:     %bytes_per_element_3 = ptr_xdsl.type_offset i1 : index
// CHECK-NEXT:     %9 = arith.muli %n, %bytes_per_element_3 : index
// CHECK-NEXT:     %bytes_3 = arith.index_cast %9 : index to i64
// CHECK-NEXT:     %d = func.call @malloc(%bytes_3) : (i64) -> !ptr_xdsl.ptr
// CHECK-NEXT:     %d_1 = ptr_xdsl.from_ptr %d : !ptr_xdsl.ptr -> memref<?xi1>
// CHECK-NEXT:     "test.op"(%a_1, %b_1, %c_1, %d_1) : (memref<?xf32>, memref<8xi64>, memref<?xf64>, memref<?xi1>) -> ()
// CHECK-NEXT:     %10 = ptr_xdsl.to_ptr %a_1 : memref<?xf32> -> !ptr_xdsl.ptr
// CHECK-NEXT:     func.call @free(%10) : (!ptr_xdsl.ptr) -> ()
// CHECK-NEXT:     %11 = ptr_xdsl.to_ptr %c_1 : memref<?xf64> -> !ptr_xdsl.ptr
// CHECK-NEXT:     func.call @free(%11) : (!ptr_xdsl.ptr) -> ()
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GONE-NOT: memref.alloc
// GONE-NOT: memref.dealloc
