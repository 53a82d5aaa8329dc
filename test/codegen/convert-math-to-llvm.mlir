// RUN: pipeline-opt %s -p convert-math-to-llvm > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t

%x, %y, %z = "test.op"() : () -> (f32, f32, f32)
%d = "test.op"() : () -> f64
%v = "test.op"() : () -> vector<8xf32>
%k, %e = "test.op"() : () -> (i32, i64)
%exp = math.exp %x : f32
%expd = math.exp %d : f64
%expv = math.exp %v : vector<8xf32>
%log = math.log %x : f32
%sqrt = math.sqrt %d : f64
%abs = math.absf %x : f32
%tanh = math.tanh %x : f32
%atan2 = math.atan2 %x, %y : f32
%pow = math.powf %x, %y : f32
%copysign = math.copysign %x, %y : f32
%floor = math.floor %d : f64
%round = math.round %x : f32
%fma = math.fma %x, %y, %z : f32
%erf = math.erf %x : f32
%erfd = math.erf %d : f64
%log1p = math.log1p %x : f32
%expm1 = math.expm1 %d : f64
%rsqrt = math.rsqrt %x : f32
%rsqrtv = math.rsqrt %v : vector<8xf32>
%powi = math.fpowi %x, %k : f32, i32
%powi64 = math.fpowi %d, %e : f64, i64
%ipowi = math.ipowi %e, %e : i64
"test.op"(%exp, %expd, %expv, %log, %sqrt, %abs, %tanh, %atan2, %pow, %copysign, %floor, %round, %fma, %erf, %erfd, %log1p, %expm1, %rsqrt, %rsqrtv, %powi, %powi64, %ipowi) : (f32, f64, vector<8xf32>, f32, f64, f32, f32, f32, f32, f32, f64, f32, f32, f32, f64, f32, f64, f32, vector<8xf32>, f32, f64, i64) -> ()

// CHECK: builtin.module {
// CHECK-NEXT:   func.func private @erff(f32) -> f32
// CHECK-NEXT:   func.func private @erf(f64) -> f64
// CHECK-NEXT:   func.func private @log1pf(f32) -> f32
// CHECK-NEXT:   func.func private @expm1(f64) -> f64
// CHECK-NEXT:   %x, %y, %z = "test.op"() : () -> (f32, f32, f32)
// CHECK-NEXT:   %d = "test.op"() : () -> f64
// CHECK-NEXT:   %v = "test.op"() : () -> vector<8xf32>
// CHECK-NEXT:   %k, %e = "test.op"() : () -> (i32, i64)
// CHECK-NEXT:   %exp = llvm.call_intrinsic "llvm.exp.f32"(%x) : (f32) -> f32
// CHECK-NEXT:   %expd = llvm.call_intrinsic "llvm.exp.f64"(%d) : (f64) -> f64
// CHECK-NEXT:   %expv = llvm.call_intrinsic "llvm.exp.v8f32"(%v) : (vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:   %log = llvm.call_intrinsic "llvm.log.f32"(%x) : (f32) -> f32
// CHECK-NEXT:   %sqrt = llvm.call_intrinsic "llvm.sqrt.f64"(%d) : (f64) -> f64
// CHECK-NEXT:   %abs = llvm.call_intrinsic "llvm.fabs.f32"(%x) : (f32) -> f32
// CHECK-NEXT:   %tanh = llvm.call_intrinsic "llvm.tanh.f32"(%x) : (f32) -> f32
// CHECK-NEXT:   %atan2 = llvm.call_intrinsic "llvm.atan2.f32"(%x, %y) : (f32, f32) -> f32
// CHECK-NEXT:   %pow = llvm.call_intrinsic "llvm.pow.f32"(%x, %y) : (f32, f32) -> f32
// CHECK-NEXT:   %copysign = llvm.call_intrinsic "llvm.copysign.f32"(%x, %y) : (f32, f32) -> f32
// CHECK-NEXT:   %floor = llvm.call_intrinsic "llvm.floor.f64"(%d) : (f64) -> f64
// CHECK-NEXT:   %round = llvm.call_intrinsic "llvm.round.f32"(%x) : (f32) -> f32
// CHECK-NEXT:   %fma = llvm.call_intrinsic "llvm.fma.f32"(%x, %y, %z) : (f32, f32, f32) -> f32
// CHECK-NEXT:   %erf = func.call @erff(%x) : (f32) -> f32
// CHECK-NEXT:   %erfd = func.call @erf(%d) : (f64) -> f64
// CHECK-NEXT:   %log1p = func.call @log1pf(%x) : (f32) -> f32
// CHECK-NEXT:   %expm1 = func.call @expm1(%d) : (f64) -> f64
// CHECK-NEXT:   %0 = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:   %1 = llvm.call_intrinsic "llvm.sqrt.f32"(%x) : (f32) -> f32
// CHECK-NEXT:   %rsqrt = llvm.fdiv %0, %1 : f32
// CHECK-NEXT:   %2 = llvm.mlir.constant(dense<1.000000e+00> : vector<8xf32>) : vector<8xf32>
// CHECK-NEXT:   %3 = llvm.call_intrinsic "llvm.sqrt.v8f32"(%v) : (vector<8xf32>) -> vector<8xf32>
// CHECK-NEXT:   %rsqrtv = llvm.fdiv %2, %3 : vector<8xf32>
// CHECK-NEXT:   %powi = llvm.call_intrinsic "llvm.powi.f32.i32"(%x, %k) : (f32, i32) -> f32
// CHECK-NEXT:   %4 = llvm.trunc %e : i64 to i32
// CHECK-NEXT:   %powi64 = llvm.call_intrinsic "llvm.powi.f64.i32"(%d, %4) : (f64, i32) -> f64
// CHECK-NEXT:   %ipowi = func.call @__codegen_ipowi_i64(%e, %e) : (i64, i64) -> i64
// CHECK-NEXT:   "test.op"(%exp, %expd, %expv, %log, %sqrt, %abs, %tanh, %atan2, %pow, %copysign, %floor, %round, %fma, %erf, %erfd, %log1p, %expm1, %rsqrt, %rsqrtv, %powi, %powi64, %ipowi) : (f32, f64, vector<8xf32>, f32, f64, f32, f32, f32, f32, f32, f64, f32, f32, f32, f64, f32, f64, f32, vector<8xf32>, f32, f64, i64) -> ()
// CHECK-NEXT:   func.func private @__codegen_ipowi_i64(%b: i64, %e_1: i64) -> i64 {
// CHECK-NEXT:     %c0 = arith.constant 0 : i64
// CHECK-NEXT:     %c1 = arith.constant 1 : i64
// CHECK-NEXT:     %cm1 = arith.constant -1 : i64
// CHECK-NEXT:     %neg = arith.cmpi slt, %e_1, %c0 : i64
// CHECK-NEXT:     cf.cond_br %neg, ^negative, ^loop(%c1, %b, %e_1 : i64, i64, i64)
// CHECK-NEXT:   ^negative:
// CHECK-NEXT:     %is1 = arith.cmpi eq, %b, %c1 : i64
// CHECK-NEXT:     %ism1 = arith.cmpi eq, %b, %cm1 : i64
// CHECK-NEXT:     %lowbit = arith.andi %e_1, %c1 : i64
// CHECK-NEXT:     %odd = arith.cmpi ne, %lowbit, %c0 : i64
// CHECK-NEXT:     %sign = arith.select %odd, %cm1, %c1 : i64
// CHECK-NEXT:     %r0 = arith.select %ism1, %sign, %c0 : i64
// CHECK-NEXT:     %r1 = arith.select %is1, %c1, %r0 : i64
// CHECK-NEXT:     func.return %r1 : i64
// CHECK-NEXT:   ^loop(%acc: i64, %base: i64, %exp_1: i64):
// CHECK-NEXT:     %done = arith.cmpi eq, %exp_1, %c0 : i64
// CHECK-NEXT:     cf.cond_br %done, ^exit, ^body
// CHECK-NEXT:   ^body:
// CHECK-NEXT:     %bit = arith.andi %exp_1, %c1 : i64
// CHECK-NEXT:     %take = arith.cmpi ne, %bit, %c0 : i64
// CHECK-NEXT:     %prod = arith.muli %acc, %base : i64
// CHECK-NEXT:     %acc2 = arith.select %take, %prod, %acc : i64
// CHECK-NEXT:     %base2 = arith.muli %base, %base : i64
// CHECK-NEXT:     %exp2 = arith.shrui %exp_1, %c1 : i64
// CHECK-NEXT:     cf.br ^loop(%acc2, %base2, %exp2 : i64, i64, i64)
// CHECK-NEXT:   ^exit:
// CHECK-NEXT:     func.return %acc : i64
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GONE-NOT: math.
// GONE-NOT: llvm.intr.
