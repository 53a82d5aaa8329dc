// The whole loops -> llvm pipeline (codegen.LOOPS_TO_LLVM): nothing but llvm ops remain.
// RUN: pipeline-opt %s -p 'rename-c-library-clashes,convert-scf-to-cf,convert-memref-alloc-to-malloc,convert-memref-to-ptr{lower_func=true},convert-ptr-type-offsets,convert-index-to-i64,convert-ptr-to-llvm-gep,convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts' > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t

func.func @exp_f32(%n: index, %x: memref<?xf32>, %y: memref<?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i] : memref<?xf32>
  }
  func.return
}
func.func @gather_relu_sum(%n: index, %idx: memref<?xi64>, %x: memref<?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %tmp = memref.alloc(%n) : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %k = memref.load %idx[%i] : memref<?xi64>
    %ki = arith.index_cast %k : i64 to index
    %v = memref.load %x[%ki] : memref<?xf64>
    memref.store %v, %tmp[%i] : memref<?xf64>
  }
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %tmp[%i] : memref<?xf64>
    %pos = arith.cmpf ogt, %v, %zero : f64
    %r = scf.if %pos -> (f64) {
      %t = math.tanh %v : f64
      scf.yield %t : f64
    } else {
      scf.yield %zero : f64
    }
    %a = arith.addf %acc, %r : f64
    scf.yield %a : f64
  }
  memref.store %s, %out[%c0] : memref<?xf64>
  memref.dealloc %tmp : memref<?xf64>
  func.return
}

// CHECK: builtin.module {
// CHECK-NEXT:   llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-NEXT:   llvm.func @free(!llvm.ptr)
// CHECK-NEXT:   llvm.func @exp_f32(%n: i64, %x: !llvm.ptr {llvm.noalias}, %y: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:     %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:     %c1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:     llvm.br ^bb1(%c0 : i64)
// CHECK-NEXT:   ^bb1(%i: i64):
// CHECK-NEXT:     %0 = llvm.icmp "slt" %i, %n : i64
// CHECK-NEXT:     llvm.cond_br %0, ^bb2, ^bb3
// CHECK-NEXT:   ^bb2:
// CHECK-NEXT:     %offset_pointer = llvm.getelementptr inbounds %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:     %v = llvm.load %offset_pointer : !llvm.ptr -> f32
// CHECK-NEXT:     %e = llvm.call_intrinsic "llvm.exp.f32"(%v) : (f32) -> f32
// CHECK-NEXT:     %offset_pointer_1 = llvm.getelementptr inbounds %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:     llvm.store %e, %offset_pointer_1 : f32, !llvm.ptr
// CHECK-NEXT:     %1 = llvm.add %i, %c1 : i64
// CHECK-NEXT:     llvm.br ^bb1(%1 : i64)
// CHECK-NEXT:   ^bb3:
// CHECK-NEXT:     llvm.return
// CHECK-NEXT:   }
// CHECK-NEXT:   llvm.func @gather_relu_sum(%n_1: i64, %idx: !llvm.ptr {llvm.noalias}, %x_1: !llvm.ptr {llvm.noalias}, %out: !llvm.ptr {llvm.noalias}) {
// CHECK-NEXT:     %c0_1 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:     %c1_1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:     %zero = llvm.mlir.constant(0.000000e+00 : f64) : f64
// CHECK-NEXT:     %bytes_per_element = llvm.mlir.constant(8) : i64
// CHECK-NEXT:     %bytes = llvm.mul %n_1, %bytes_per_element : i64
// CHECK-NEXT:     %tmp = llvm.call @malloc(%bytes) : (i64) -> !llvm.ptr
// CHECK-NEXT:     llvm.br ^bb1(%c0_1 : i64)
// CHECK-NEXT:   ^bb1(%i_1: i64):
// CHECK-NEXT:     %2 = llvm.icmp "slt" %i_1, %n_1 : i64
// CHECK-NEXT:     llvm.cond_br %2, ^bb2, ^bb3
// CHECK-NEXT:   ^bb2:
// CHECK-NEXT:     %offset_pointer_2 = llvm.getelementptr inbounds %idx[%i_1] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK-NEXT:     %k = llvm.load %offset_pointer_2 : !llvm.ptr -> i64
// CHECK-NEXT:     %offset_pointer_3 = llvm.getelementptr inbounds %x_1[%k] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:     %v_1 = llvm.load %offset_pointer_3 : !llvm.ptr -> f64
// CHECK-NEXT:     %offset_pointer_4 = llvm.getelementptr inbounds %tmp[%i_1] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:     llvm.store %v_1, %offset_pointer_4 : f64, !llvm.ptr
// CHECK-NEXT:     %3 = llvm.add %i_1, %c1_1 : i64
// CHECK-NEXT:     llvm.br ^bb1(%3 : i64)
// CHECK-NEXT:   ^bb3:
// CHECK-NEXT:     llvm.br ^bb4(%c0_1, %zero : i64, f64)
// CHECK-NEXT:   ^bb4(%i_2: i64, %acc: f64):
// CHECK-NEXT:     %4 = llvm.icmp "slt" %i_2, %n_1 : i64
// CHECK-NEXT:     llvm.cond_br %4, ^bb5, ^bb10
// CHECK-NEXT:   ^bb5:
// CHECK-NEXT:     %offset_pointer_5 = llvm.getelementptr inbounds %tmp[%i_2] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:     %v_2 = llvm.load %offset_pointer_5 : !llvm.ptr -> f64
// CHECK-NEXT:     %pos = llvm.fcmp "ogt" %v_2, %zero : f64
// CHECK-NEXT:     llvm.cond_br %pos, ^bb6, ^bb7
// CHECK-NEXT:   ^bb6:
// CHECK-NEXT:     %t = llvm.call_intrinsic "llvm.tanh.f64"(%v_2) : (f64) -> f64
// CHECK-NEXT:     llvm.br ^bb8(%t : f64)
// CHECK-NEXT:   ^bb7:
// CHECK-NEXT:     llvm.br ^bb8(%zero : f64)
// CHECK-NEXT:   ^bb8(%r: f64):
// CHECK-NEXT:     llvm.br ^bb9
// CHECK-NEXT:   ^bb9:
// CHECK-NEXT:     %a = llvm.fadd %acc, %r : f64
// CHECK-NEXT:     %5 = llvm.add %i_2, %c1_1 : i64
// CHECK-NEXT:     llvm.br ^bb4(%5, %a : i64, f64)
// CHECK-NEXT:   ^bb10:
// CHECK-NEXT:     %offset_pointer_6 = llvm.getelementptr inbounds %out[0] : (!llvm.ptr) -> !llvm.ptr, f64
// CHECK-NEXT:     llvm.store %acc, %offset_pointer_6 : f64, !llvm.ptr
// CHECK-NEXT:     llvm.call @free(%tmp) : (!llvm.ptr) -> ()
// CHECK-NEXT:     llvm.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// Only llvm ops and types: no other dialect, no index, no cast, no integer-pointer round trip.
// GONE-NOT: arith.
// GONE-NOT: math.
// GONE-NOT: scf.
// GONE-NOT: cf.
// GONE-NOT: func.
// GONE-NOT: memref.
// GONE-NOT: ptr_xdsl
// GONE-NOT: builtin.unrealized_conversion_cast
// GONE-NOT: index
// GONE-NOT: ptrtoint
// GONE-NOT: inttoptr
// GONE-NOT: llvm.intr.
// GONE-NOT: emit_c_interface
