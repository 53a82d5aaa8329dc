// Clear errors, naming the op, for what codegen cannot lower.
// RUN: pipeline-opt %s -p 'rename-c-library-clashes,convert-scf-to-cf,convert-memref-alloc-to-malloc,convert-memref-to-ptr{lower_func=true},convert-ptr-type-offsets,convert-index-to-i64,convert-ptr-to-llvm-gep,convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts' --split-input-file --verify-diagnostics | filecheck %s

func.func @vector_erf(%v: vector<4xf32>) -> vector<4xf32> {
  %r = math.erf %v : vector<4xf32>
  func.return %r : vector<4xf32>
}

// -----

func.func @stack_buffer(%n: index) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca(%n) : memref<?xf32>
  %v = memref.load %a[%c0] : memref<?xf32>
  "test.op"(%v) : (f32) -> ()
  func.return
}

// -----

func.func @two_results(%a: f32) -> (f32, f32) {
  func.return %a, %a : f32, f32
}

// -----

func.func @leftover_memref(%n: index, %a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  "test.op"(%d) : (index) -> ()
  func.return
}

// CHECK: codegen: math.erf on vector<4xf32>: libm functions take scalars; scalarize before codegen
// CHECK: codegen: memref.alloca is not supported (stack buffers of symbolic size); use memref.alloc + memref.dealloc
// CHECK: codegen: @two_results returns 2 values; llvm.func returns at most one
// CHECK: codegen: memref.dim reached convert-index-to-i64; lower it first (convert-memref-to-ptr, which lowers load/store/subview/cast only; pass sizes as index arguments instead of memref.dim)
