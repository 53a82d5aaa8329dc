// RUN: pipeline-opt %s -p convert-arith-to-llvm > %t
// RUN: filecheck %s < %t
// RUN: filecheck %s --check-prefix=GONE < %t

%a, %b = "test.op"() : () -> (i64, i64)
%x, %y = "test.op"() : () -> (f32, f32)
%c = arith.constant 42 : i64
%t = arith.constant true
%f = arith.constant 1.5 : f32
%add = arith.addi %a, %b overflow<nsw> : i64
%sub = arith.subi %a, %b : i64
%mul = arith.muli %a, %b overflow<nsw, nuw> : i64
%divs = arith.divsi %a, %b : i64
%divu = arith.divui %a, %b : i64
%rems = arith.remsi %a, %b : i64
%remu = arith.remui %a, %b : i64
%and = arith.andi %a, %b : i64
%or = arith.ori %a, %b : i64
%xor = arith.xori %a, %b : i64
%shl = arith.shli %a, %b : i64
%shrs = arith.shrsi %a, %b : i64
%shru = arith.shrui %a, %b : i64
%maxs = arith.maxsi %a, %b : i64
%mins = arith.minsi %a, %b : i64
%floor = arith.floordivsi %a, %b : i64
%ceil = arith.ceildivsi %a, %b : i64
%cmpi = arith.cmpi ult, %a, %b : i64
%addf = arith.addf %x, %y fastmath<contract> : f32
%subf = arith.subf %x, %y : f32
%mulf = arith.mulf %x, %y : f32
%divf = arith.divf %x, %y : f32
%negf = arith.negf %x : f32
%maximum = arith.maximumf %x, %y : f32
%minnum = arith.minnumf %x, %y : f32
%cmpf = arith.cmpf ole, %x, %y : f32
%never = arith.cmpf false, %x, %y : f32
%sel = arith.select %cmpf, %x, %y : f32
%sitofp = arith.sitofp %a : i64 to f32
%uitofp = arith.uitofp %a : i64 to f32
%fptosi = arith.fptosi %x : f32 to i32
%fptoui = arith.fptoui %x : f32 to i64
%extf = arith.extf %x : f32 to f64
%truncf = arith.truncf %extf : f64 to f32
%extsi = arith.extsi %fptosi : i32 to i64
%extui = arith.extui %cmpi : i1 to i64
%trunci = arith.trunci %a : i64 to i8
%bitcast = arith.bitcast %x : f32 to i32
"test.op"(%c, %t, %f, %add, %sub, %mul, %divs, %divu, %rems, %remu, %and, %or, %xor, %shl, %shrs, %shru, %maxs, %mins, %floor, %ceil, %addf, %subf, %mulf, %divf, %negf, %maximum, %minnum, %never, %sel, %sitofp, %uitofp, %fptoui, %truncf, %extsi, %extui, %trunci, %bitcast) : (i64, i1, f32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, f32, f32, f32, f32, f32, i1, f32, f32, f32, i64, f32, i64, i64, i8, i32) -> ()

// CHECK: builtin.module {
// CHECK-NEXT:   %a, %b = "test.op"() : () -> (i64, i64)
// CHECK-NEXT:   %x, %y = "test.op"() : () -> (f32, f32)
// CHECK-NEXT:   %c = llvm.mlir.constant(42) : i64
// CHECK-NEXT:   %t = llvm.mlir.constant(true) : i1
// CHECK-NEXT:   %f = llvm.mlir.constant(1.500000e+00 : f32) : f32
// CHECK-NEXT:   %add = llvm.add %a, %b overflow<nsw> : i64
// CHECK-NEXT:   %sub = llvm.sub %a, %b : i64
// CHECK-NEXT:   %mul = llvm.mul %a, %b overflow<nsw,nuw> : i64
// CHECK-NEXT:   %divs = llvm.sdiv %a, %b : i64
// CHECK-NEXT:   %divu = llvm.udiv %a, %b : i64
// CHECK-NEXT:   %rems = llvm.srem %a, %b : i64
// CHECK-NEXT:   %remu = llvm.urem %a, %b : i64
// CHECK-NEXT:   %and = llvm.and %a, %b : i64
// CHECK-NEXT:   %or = llvm.or %a, %b : i64
// CHECK-NEXT:   %xor = llvm.xor %a, %b : i64
// CHECK-NEXT:   %shl = llvm.shl %a, %b : i64
// CHECK-NEXT:   %shrs = llvm.ashr %a, %b : i64
// CHECK-NEXT:   %shru = llvm.lshr %a, %b : i64
// CHECK-NEXT:   %maxs = llvm.call_intrinsic "llvm.smax.i64"(%a, %b) : (i64, i64) -> i64
// CHECK-NEXT:   %mins = llvm.call_intrinsic "llvm.smin.i64"(%a, %b) : (i64, i64) -> i64
// CHECK-NEXT:   %0 = llvm.sdiv %a, %b : i64
// CHECK-NEXT:   %1 = llvm.srem %a, %b : i64
// CHECK-NEXT:   %2 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %3 = llvm.icmp "ne" %1, %2 : i64
// CHECK-NEXT:   %4 = llvm.xor %1, %b : i64
// CHECK-NEXT:   %5 = llvm.icmp "slt" %4, %2 : i64
// CHECK-NEXT:   %6 = llvm.and %3, %5 : i1
// CHECK-NEXT:   %7 = llvm.sext %6 : i1 to i64
// CHECK-NEXT:   %floor = llvm.add %0, %7 : i64
// CHECK-NEXT:   %8 = llvm.sdiv %a, %b : i64
// CHECK-NEXT:   %9 = llvm.srem %a, %b : i64
// CHECK-NEXT:   %10 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %11 = llvm.icmp "ne" %9, %10 : i64
// CHECK-NEXT:   %12 = llvm.xor %9, %b : i64
// CHECK-NEXT:   %13 = llvm.icmp "sge" %12, %10 : i64
// CHECK-NEXT:   %14 = llvm.and %11, %13 : i1
// CHECK-NEXT:   %15 = llvm.zext %14 : i1 to i64
// CHECK-NEXT:   %ceil = llvm.add %8, %15 : i64
// CHECK-NEXT:   %cmpi = llvm.icmp "ult" %a, %b : i64
// CHECK-NEXT:   %addf = llvm.fadd %x, %y {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:   %subf = llvm.fsub %x, %y : f32
// CHECK-NEXT:   %mulf = llvm.fmul %x, %y : f32
// CHECK-NEXT:   %divf = llvm.fdiv %x, %y : f32
// CHECK-NEXT:   %negf = llvm.fneg %x : f32
// CHECK-NEXT:   %maximum = llvm.call_intrinsic "llvm.maximum.f32"(%x, %y) : (f32, f32) -> f32
// CHECK-NEXT:   %minnum = llvm.call_intrinsic "llvm.minnum.f32"(%x, %y) : (f32, f32) -> f32
// CHECK-NEXT:   %cmpf = llvm.fcmp "ole" %x, %y : f32
// CHECK-NEXT:   %never = llvm.mlir.constant(false) : i1
// CHECK-NEXT:   %sel = llvm.select %cmpf, %x, %y : i1, f32
// CHECK-NEXT:   %sitofp = llvm.sitofp %a : i64 to f32
// CHECK-NEXT:   %uitofp = llvm.uitofp %a : i64 to f32
// CHECK-NEXT:   %fptosi = llvm.fptosi %x : f32 to i32
// CHECK-NEXT:   %fptoui = llvm.fptoui %x : f32 to i64
// CHECK-NEXT:   %extf = llvm.fpext %x : f32 to f64
// CHECK-NEXT:   %truncf = llvm.fptrunc %extf : f64 to f32
// CHECK-NEXT:   %extsi = llvm.sext %fptosi : i32 to i64
// CHECK-NEXT:   %extui = llvm.zext %cmpi : i1 to i64
// CHECK-NEXT:   %trunci = llvm.trunc %a : i64 to i8
// CHECK-NEXT:   %bitcast = llvm.bitcast %x : f32 to i32
// CHECK-NEXT:   "test.op"(%c, %t, %f, %add, %sub, %mul, %divs, %divu, %rems, %remu, %and, %or, %xor, %shl, %shrs, %shru, %maxs, %mins, %floor, %ceil, %addf, %subf, %mulf, %divf, %negf, %maximum, %minnum, %never, %sel, %sitofp, %uitofp, %fptoui, %truncf, %extsi, %extui, %trunci, %bitcast) : (i64, i1, f32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, f32, f32, f32, f32, f32, i1, f32, f32, f32, i64, f32, i64, i64, i8, i32) -> ()
// CHECK-NEXT: }

// GONE-NOT: arith.
