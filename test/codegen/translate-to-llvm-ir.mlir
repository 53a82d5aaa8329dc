// LOOPS_TO_LLVM, then xDSL's LLVM IR export (-t llvm) extended by codegen.llvm_ext:
// fptosi / uitofp translate, pointers are GEPs, arguments noalias, libm declared.
// RUN: pipeline-opt %s -p 'rename-c-library-clashes,convert-scf-to-cf,convert-memref-alloc-to-malloc,convert-memref-to-ptr{lower_func=true},convert-ptr-type-offsets,convert-index-to-i64,convert-ptr-to-llvm-gep,convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts' -t llvm | filecheck %s

func.func @quantize(%n: index, %x: memref<?xf32>, %q: memref<?xi32>, %mask: memref<?xi1>, %y: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %t = arith.fptosi %v : f32 to i32
    memref.store %t, %q[%i] : memref<?xi32>
    %m = memref.load %mask[%i] : memref<?xi1>
    %mf = arith.uitofp %m : i1 to f32
    %e = math.exp %mf : f32
    %ed = arith.extf %e : f32 to f64
    %l = math.log1p %ed : f64
    memref.store %l, %y[%i] : memref<?xf64>
  }
  func.return
}

// CHECK: ; ModuleID = ""
// CHECK-NEXT: target triple = "{{.*}}"
// CHECK-NEXT: target datalayout = "{{.*}}"
// CHECK-EMPTY:
// CHECK-NEXT: declare double @"log1p"(double %".1")
// CHECK-EMPTY:
// CHECK-NEXT: define void @"quantize"(i64 %".1", ptr noalias %".2", ptr noalias %".3", ptr noalias %".4", ptr noalias %".5")
// CHECK-NEXT: {
// CHECK-NEXT: .7:
// CHECK-NEXT:   br label %".8"
// CHECK-NEXT: .8:
// CHECK-NEXT:   %".11" = phi  i64 [0, %".7"], [%".29", %".9"]
// CHECK-NEXT:   %".13" = icmp slt i64 %".11", %".1"
// CHECK-NEXT:   br i1 %".13", label %".9", label %".10"
// CHECK-NEXT: .9:
// CHECK-NEXT:   %".15" = getelementptr inbounds float, ptr %".2", i64 %".11"
// CHECK-NEXT:   %".16" = load float, ptr %".15"
// CHECK-NEXT:   %".17" = fptosi float %".16" to i32
// CHECK-NEXT:   %".18" = getelementptr inbounds i32, ptr %".3", i64 %".11"
// CHECK-NEXT:   store i32 %".17", ptr %".18"
// An i1 takes a byte in memory: its offset stays in bytes.
// CHECK-NEXT:   %".20" = mul i64 %".11", 1
// CHECK-NEXT:   %".21" = getelementptr inbounds i8, ptr %".4", i64 %".20"
// CHECK-NEXT:   %".22" = load i1, ptr %".21"
// CHECK-NEXT:   %".23" = uitofp i1 %".22" to float
// CHECK-NEXT:   %".24" = call float @"llvm.exp.f32"(float %".23")
// CHECK-NEXT:   %".25" = fpext float %".24" to double
// CHECK-NEXT:   %".26" = call ccc double @"log1p"(double %".25")
// CHECK-NEXT:   %".27" = getelementptr inbounds double, ptr %".5", i64 %".11"
// CHECK-NEXT:   store double %".26", ptr %".27"
// CHECK-NEXT:   %".29" = add i64 %".11", 1
// CHECK-NEXT:   br label %".8"
// CHECK-NEXT: .10:
// CHECK-NEXT:   ret void
// CHECK-NEXT: }
// CHECK-EMPTY:
// CHECK-NEXT: declare float @"llvm.exp.f32"(float %".1")
// CHECK-NOT: ptrtoint
