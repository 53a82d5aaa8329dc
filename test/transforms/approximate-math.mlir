// RUN: pipeline-opt %s --split-input-file -p approximate-math | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p approximate-math | filecheck %s --check-prefix=GONE

// approximate-math: math.exp, math.log, math.log1p, math.expm1 and math.tanh on f32
// become branch-free arith (so that a loop around them vectorizes): exp by
// clamping to [ln(FLT_MIN), 88.72] (compare and select: plain max / min
// instructions), n = floor(x log2(e) + 1/2), a two-constant (Cody-Waite) reduction
// r = x - n ln2, a degree-7 polynomial in r by Horner's rule (reduction and Horner
// steps as mulf + addf marked fastmath<contract>: one FMA instruction each where
// the CPU has FMA) and 2^n built from exponent bits in two halves (shrsi, + 127,
// shli 23, bitcast);
// log by splitting the bits of x into exponent (shrsi 23 - 127) and mantissa
// (andi 0x7FFFFF, ori 0x3F800000 = 1.0), an atanh series in s = (m - 1) / (m + 1),
// and selects for 0, negative, +inf and NaN; log1p, expm1 and tanh on top of them.
// math.floor, math.absf and math.copysign stay (LLVM intrinsics that vectorize).
// f64 the same way with f64 constants and i64 bits (shli 52, + 1023), a degree-13
// exp polynomial and an atanh series to s^21. Constants are made once per function,
// at its top (canonicalize then has none to hoist out of loops or merge).
//
// The CHECK lines pin the output (whole for exp and log, the structure around the
// inlined exp / log for the others); the GONE lines check, over everything from
// @exp to the end, that no transcendental is left (f32 or f64).

// GONE:      func.func @exp(
// GONE-NOT:  math.exp
// GONE-NOT:  math.log
// GONE-NOT:  math.log1p
// GONE-NOT:  math.expm1
// GONE-NOT:  math.tanh
// GONE-NOT:  math.exp
// GONE-NOT:  math.log
// GONE-NOT:  math.log1p
// GONE-NOT:  math.expm1
// GONE-NOT:  math.tanh

// exp, pinned whole: clamp, n, Cody-Waite reduction, Horner, 2^n, then the
// overflow (+inf), underflow (0) and NaN selects.
func.func @exp(%x: f32) -> f32 {
  %y = math.exp %x : f32
  func.return %y : f32
}
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @exp(%x: f32) -> f32 {
// CHECK-NEXT:     [[LO:%[0-9]+]] = arith.constant -87.3365402 : f32
// CHECK-NEXT:     [[HI:%[0-9]+]] = arith.constant 88.7228394 : f32
// CHECK-NEXT:     [[LOG2E:%[0-9]+]] = arith.constant 1.44269502 : f32
// CHECK-NEXT:     [[HALF:%[0-9]+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:     [[LN2LO:%[0-9]+]] = arith.constant -1.42860677e-06 : f32
// CHECK-NEXT:     [[LN2HI:%[0-9]+]] = arith.constant -0.693145752 : f32
// CHECK-NEXT:     [[K7:%[0-9]+]] = arith.constant 0.000198412701 : f32
// CHECK-NEXT:     [[K6:%[0-9]+]] = arith.constant 0.00138888892 : f32
// CHECK-NEXT:     [[K5:%[0-9]+]] = arith.constant 0.00833333377 : f32
// CHECK-NEXT:     [[K4:%[0-9]+]] = arith.constant 0.0416666679 : f32
// CHECK-NEXT:     [[K3:%[0-9]+]] = arith.constant 0.166666672 : f32
// CHECK-NEXT:     [[K1:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     [[ONE:%[0-9]+]] = arith.constant 1 : i32
// CHECK-NEXT:     [[BIAS:%[0-9]+]] = arith.constant 127 : i32
// CHECK-NEXT:     [[C23:%[0-9]+]] = arith.constant 23 : i32
// CHECK-NEXT:     [[INF:%[0-9]+]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:     [[ZERO:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:     [[BELOW:%[0-9]+]] = arith.cmpf olt, %x, [[LO]] : f32
// CHECK-NEXT:     [[MAX:%[0-9]+]] = arith.select [[BELOW]], [[LO]], %x : f32
// CHECK-NEXT:     [[ABOVE:%[0-9]+]] = arith.cmpf ogt, [[MAX]], [[HI]] : f32
// CHECK-NEXT:     [[XC:%[0-9]+]] = arith.select [[ABOVE]], [[HI]], [[MAX]] : f32
// CHECK-NEXT:     [[MXH:%[0-9]+]] = arith.mulf [[XC]], [[LOG2E]] fastmath<contract> : f32
// CHECK-NEXT:     [[XH:%[0-9]+]] = arith.addf [[MXH]], [[HALF]] fastmath<contract> : f32
// CHECK-NEXT:     [[N:%[0-9]+]] = math.floor [[XH]] : f32
// CHECK-NEXT:     [[MR1:%[0-9]+]] = arith.mulf [[N]], [[LN2HI]] fastmath<contract> : f32
// CHECK-NEXT:     [[R1:%[0-9]+]] = arith.addf [[MR1]], [[XC]] fastmath<contract> : f32
// CHECK-NEXT:     [[MR:%[0-9]+]] = arith.mulf [[N]], [[LN2LO]] fastmath<contract> : f32
// CHECK-NEXT:     [[R:%[0-9]+]] = arith.addf [[MR]], [[R1]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH6:%[0-9]+]] = arith.mulf [[K7]], [[R]] fastmath<contract> : f32
// CHECK-NEXT:     [[H6:%[0-9]+]] = arith.addf [[MH6]], [[K6]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH5:%[0-9]+]] = arith.mulf [[H6]], [[R]] fastmath<contract> : f32
// CHECK-NEXT:     [[H5:%[0-9]+]] = arith.addf [[MH5]], [[K5]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH4:%[0-9]+]] = arith.mulf [[H5]], [[R]] fastmath<contract> : f32
// CHECK-NEXT:     [[H4:%[0-9]+]] = arith.addf [[MH4]], [[K4]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH3:%[0-9]+]] = arith.mulf [[H4]], [[R]] fastmath<contract> : f32
// CHECK-NEXT:     [[H3:%[0-9]+]] = arith.addf [[MH3]], [[K3]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH2:%[0-9]+]] = arith.mulf [[H3]], [[R]] fastmath<contract> : f32
// CHECK-NEXT:     [[H2:%[0-9]+]] = arith.addf [[MH2]], [[HALF]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH1:%[0-9]+]] = arith.mulf [[H2]], [[R]] fastmath<contract> : f32
// CHECK-NEXT:     [[H1:%[0-9]+]] = arith.addf [[MH1]], [[K1]] fastmath<contract> : f32
// CHECK-NEXT:     [[MP:%[0-9]+]] = arith.mulf [[H1]], [[R]] fastmath<contract> : f32
// CHECK-NEXT:     [[P:%[0-9]+]] = arith.addf [[MP]], [[K1]] fastmath<contract> : f32
// CHECK-NEXT:     [[NI:%[0-9]+]] = arith.fptosi [[N]] : f32 to i32
// CHECK-NEXT:     [[NH:%[0-9]+]] = arith.shrsi [[NI]], [[ONE]] : i32
// CHECK-NEXT:     [[NR:%[0-9]+]] = arith.subi [[NI]], [[NH]] : i32
// CHECK-NEXT:     [[EH:%[0-9]+]] = arith.addi [[NH]], [[BIAS]] : i32
// CHECK-NEXT:     [[BH:%[0-9]+]] = arith.shli [[EH]], [[C23]] : i32
// CHECK-NEXT:     [[S1:%[0-9]+]] = arith.bitcast [[BH]] : i32 to f32
// CHECK-NEXT:     [[ER:%[0-9]+]] = arith.addi [[NR]], [[BIAS]] : i32
// CHECK-NEXT:     [[BR:%[0-9]+]] = arith.shli [[ER]], [[C23]] : i32
// CHECK-NEXT:     [[S2:%[0-9]+]] = arith.bitcast [[BR]] : i32 to f32
// CHECK-NEXT:     [[Y1:%[0-9]+]] = arith.mulf [[P]], [[S1]] : f32
// CHECK-NEXT:     [[Y2:%[0-9]+]] = arith.mulf [[Y1]], [[S2]] : f32
// CHECK-NEXT:     [[OVER:%[0-9]+]] = arith.cmpf ogt, %x, [[HI]] : f32
// CHECK-NEXT:     [[Y3:%[0-9]+]] = arith.select [[OVER]], [[INF]], [[Y2]] : f32
// CHECK-NEXT:     [[UNDER:%[0-9]+]] = arith.cmpf olt, %x, [[LO]] : f32
// CHECK-NEXT:     [[Y4:%[0-9]+]] = arith.select [[UNDER]], [[ZERO]], [[Y3]] : f32
// CHECK-NEXT:     [[ISNAN:%[0-9]+]] = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:     %y = arith.select [[ISNAN]], %x, [[Y4]] : f32
// CHECK-NEXT:     func.return %y : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----
// log, pinned whole: subnormals scaled by 2^23 (0x4B000000), exponent and mantissa
// from the bits, m > sqrt(2) halved, the atanh series, then -inf at 0, NaN below
// 0, +inf kept, NaN through.
func.func @log(%x: f32) -> f32 {
  %y = math.log %x : f32
  func.return %y : f32
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @log(%x: f32) -> f32 {
// CHECK-NEXT:     [[MIN:%[0-9]+]] = arith.constant 1.17549435e-38 : f32
// CHECK-NEXT:     [[P23:%[0-9]+]] = arith.constant 0x4B000000 : f32
// CHECK-NEXT:     [[C23:%[0-9]+]] = arith.constant 23 : i32
// CHECK-NEXT:     [[BIAS:%[0-9]+]] = arith.constant 127 : i32
// CHECK-NEXT:     [[MASK:%[0-9]+]] = arith.constant 8388607 : i32
// CHECK-NEXT:     [[ONEB:%[0-9]+]] = arith.constant 1065353216 : i32
// CHECK-NEXT:     [[SQRT2:%[0-9]+]] = arith.constant 1.41421354 : f32
// CHECK-NEXT:     [[HALF:%[0-9]+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:     [[F1:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     [[F0:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:     [[F23:%[0-9]+]] = arith.constant 2.300000e+01 : f32
// CHECK-NEXT:     [[K5:%[0-9]+]] = arith.constant 0.181818187 : f32
// CHECK-NEXT:     [[K4:%[0-9]+]] = arith.constant 0.222222224 : f32
// CHECK-NEXT:     [[K3:%[0-9]+]] = arith.constant 0.285714298 : f32
// CHECK-NEXT:     [[K2:%[0-9]+]] = arith.constant 4.000000e-01 : f32
// CHECK-NEXT:     [[K1:%[0-9]+]] = arith.constant 0.666666687 : f32
// CHECK-NEXT:     [[K0:%[0-9]+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:     [[LN2:%[0-9]+]] = arith.constant 0.693147182 : f32
// CHECK-NEXT:     [[NINF:%[0-9]+]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:     [[QNAN:%[0-9]+]] = arith.constant 0x7fc00000 : f32
// CHECK-NEXT:     [[PINF:%[0-9]+]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:     [[TINY:%[0-9]+]] = arith.cmpf olt, %x, [[MIN]] : f32
// CHECK-NEXT:     [[XS1:%[0-9]+]] = arith.mulf %x, [[P23]] : f32
// CHECK-NEXT:     [[XS:%[0-9]+]] = arith.select [[TINY]], [[XS1]], %x : f32
// CHECK-NEXT:     [[BITS:%[0-9]+]] = arith.bitcast [[XS]] : f32 to i32
// CHECK-NEXT:     [[EB:%[0-9]+]] = arith.shrsi [[BITS]], [[C23]] : i32
// CHECK-NEXT:     [[E:%[0-9]+]] = arith.subi [[EB]], [[BIAS]] : i32
// CHECK-NEXT:     [[MB:%[0-9]+]] = arith.andi [[BITS]], [[MASK]] : i32
// CHECK-NEXT:     [[M1B:%[0-9]+]] = arith.ori [[MB]], [[ONEB]] : i32
// CHECK-NEXT:     [[M1:%[0-9]+]] = arith.bitcast [[M1B]] : i32 to f32
// CHECK-NEXT:     [[BIG:%[0-9]+]] = arith.cmpf ogt, [[M1]], [[SQRT2]] : f32
// CHECK-NEXT:     [[MH:%[0-9]+]] = arith.mulf [[M1]], [[HALF]] : f32
// CHECK-NEXT:     [[M:%[0-9]+]] = arith.select [[BIG]], [[MH]], [[M1]] : f32
// CHECK-NEXT:     [[EF0:%[0-9]+]] = arith.sitofp [[E]] : i32 to f32
// CHECK-NEXT:     [[INC:%[0-9]+]] = arith.select [[BIG]], [[F1]], [[F0]] : f32
// CHECK-NEXT:     [[EF1:%[0-9]+]] = arith.addf [[EF0]], [[INC]] : f32
// CHECK-NEXT:     [[DEC:%[0-9]+]] = arith.select [[TINY]], [[F23]], [[F0]] : f32
// CHECK-NEXT:     [[EF:%[0-9]+]] = arith.subf [[EF1]], [[DEC]] : f32
// CHECK-NEXT:     [[NUM:%[0-9]+]] = arith.subf [[M]], [[F1]] : f32
// CHECK-NEXT:     [[DEN:%[0-9]+]] = arith.addf [[M]], [[F1]] : f32
// CHECK-NEXT:     [[S:%[0-9]+]] = arith.divf [[NUM]], [[DEN]] : f32
// CHECK-NEXT:     [[SS:%[0-9]+]] = arith.mulf [[S]], [[S]] : f32
// CHECK-NEXT:     [[MH4:%[0-9]+]] = arith.mulf [[K5]], [[SS]] fastmath<contract> : f32
// CHECK-NEXT:     [[H4:%[0-9]+]] = arith.addf [[MH4]], [[K4]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH3:%[0-9]+]] = arith.mulf [[H4]], [[SS]] fastmath<contract> : f32
// CHECK-NEXT:     [[H3:%[0-9]+]] = arith.addf [[MH3]], [[K3]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH2:%[0-9]+]] = arith.mulf [[H3]], [[SS]] fastmath<contract> : f32
// CHECK-NEXT:     [[H2:%[0-9]+]] = arith.addf [[MH2]], [[K2]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH1:%[0-9]+]] = arith.mulf [[H2]], [[SS]] fastmath<contract> : f32
// CHECK-NEXT:     [[H1:%[0-9]+]] = arith.addf [[MH1]], [[K1]] fastmath<contract> : f32
// CHECK-NEXT:     [[MH0:%[0-9]+]] = arith.mulf [[H1]], [[SS]] fastmath<contract> : f32
// CHECK-NEXT:     [[H0:%[0-9]+]] = arith.addf [[MH0]], [[K0]] fastmath<contract> : f32
// CHECK-NEXT:     [[SERIES:%[0-9]+]] = arith.mulf [[S]], [[H0]] : f32
// CHECK-NEXT:     [[ELN2:%[0-9]+]] = arith.mulf [[EF]], [[LN2]] : f32
// CHECK-NEXT:     [[Y1:%[0-9]+]] = arith.addf [[ELN2]], [[SERIES]] : f32
// CHECK-NEXT:     [[ISZERO:%[0-9]+]] = arith.cmpf oeq, %x, [[F0]] : f32
// CHECK-NEXT:     [[Y2:%[0-9]+]] = arith.select [[ISZERO]], [[NINF]], [[Y1]] : f32
// CHECK-NEXT:     [[ISNEG:%[0-9]+]] = arith.cmpf olt, %x, [[F0]] : f32
// CHECK-NEXT:     [[Y3:%[0-9]+]] = arith.select [[ISNEG]], [[QNAN]], [[Y2]] : f32
// CHECK-NEXT:     [[ISINF:%[0-9]+]] = arith.cmpf oeq, %x, [[PINF]] : f32
// CHECK-NEXT:     [[Y4:%[0-9]+]] = arith.select [[ISINF]], %x, [[Y3]] : f32
// CHECK-NEXT:     [[ISNAN:%[0-9]+]] = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:     %y = arith.select [[ISNAN]], %x, [[Y4]] : f32
// CHECK-NEXT:     func.return %y : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----
// log1p(x) = log(u) * x / (u - 1) with u = 1 + x: the log above, of u, then x
// itself where u - 1 rounds to 0 (tiny x), +inf kept, NaN through.
func.func @log1p(%x: f32) -> f32 {
  %y = math.log1p %x : f32
  func.return %y : f32
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @log1p(%x: f32) -> f32 {
// CHECK-NEXT:     [[ONE:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     [[MIN:%[0-9]+]] = arith.constant 1.17549435e-38 : f32
// CHECK-NEXT:     {{%[0-9]+}} = arith.constant 0x4B000000 : f32
// CHECK-NEXT:     [[C23:%[0-9]+]] = arith.constant 23 : i32
// CHECK:          [[Z:%[0-9]+]] = arith.constant 0.000000e+00 : f32
// CHECK:          [[PINF:%[0-9]+]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:     [[U:%[0-9]+]] = arith.addf %x, [[ONE]] : f32
// CHECK-NEXT:     [[D:%[0-9]+]] = arith.subf [[U]], [[ONE]] : f32
// CHECK-NEXT:     {{%[0-9]+}} = arith.cmpf olt, [[U]], [[MIN]] : f32
// CHECK:          [[BITS:%[0-9]+]] = arith.bitcast {{%[0-9]+}} : f32 to i32
// CHECK-NEXT:     {{%[0-9]+}} = arith.shrsi [[BITS]], [[C23]] : i32
// CHECK:          {{%[0-9]+}} = arith.andi [[BITS]], {{%[0-9]+}} : i32
// CHECK:          {{%[0-9]+}} = arith.ori {{%[0-9]+}}, {{%[0-9]+}} : i32
// CHECK:          [[ISNANU:%[0-9]+]] = arith.cmpf uno, [[U]], [[U]] : f32
// CHECK-NEXT:     [[LOGU:%[0-9]+]] = arith.select [[ISNANU]], [[U]], {{%[0-9]+}} : f32
// CHECK-NEXT:     [[RATIO:%[0-9]+]] = arith.divf %x, [[D]] : f32
// CHECK-NEXT:     [[Y1:%[0-9]+]] = arith.mulf [[LOGU]], [[RATIO]] : f32
// CHECK-NEXT:     [[EXACT:%[0-9]+]] = arith.cmpf oeq, [[D]], [[Z]] : f32
// CHECK-NEXT:     [[Y2:%[0-9]+]] = arith.select [[EXACT]], %x, [[Y1]] : f32
// CHECK-NEXT:     [[ISINF:%[0-9]+]] = arith.cmpf oeq, %x, [[PINF]] : f32
// CHECK-NEXT:     [[Y3:%[0-9]+]] = arith.select [[ISINF]], %x, [[Y2]] : f32
// CHECK-NEXT:     [[ISNAN:%[0-9]+]] = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:     %y = arith.select [[ISNAN]], %x, [[Y3]] : f32
// CHECK-NEXT:     func.return %y : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----
// expm1: a degree-8 series for |x| < 1/2 (where exp(x) - 1 cancels), the exp above
// minus 1 elsewhere, one select between them, NaN through.
func.func @expm1(%x: f32) -> f32 {
  %y = math.expm1 %x : f32
  func.return %y : f32
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @expm1(%x: f32) -> f32 {
// CHECK-NEXT:     [[K8:%[0-9]+]] = arith.constant 2.48015876e-05 : f32
// CHECK-NEXT:     [[K7:%[0-9]+]] = arith.constant 0.000198412701 : f32
// CHECK:          [[HALF:%[0-9]+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:     [[ONE:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     [[K0:%[0-9]+]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:     [[LO:%[0-9]+]] = arith.constant -87.3365402 : f32
// CHECK-NEXT:     {{%[0-9]+}} = arith.constant 88.7228394 : f32
// CHECK:          [[MUL:%[0-9]+]] = arith.mulf [[K8]], %x fastmath<contract> : f32
// CHECK-NEXT:     {{%[0-9]+}} = arith.addf [[MUL]], [[K7]] fastmath<contract> : f32
// CHECK:          [[SMALL:%[0-9]+]] = arith.addf {{%[0-9]+}}, [[K0]] fastmath<contract> : f32
// CHECK-NEXT:     [[A:%[0-9]+]] = math.absf %x : f32
// CHECK-NEXT:     [[NEAR0:%[0-9]+]] = arith.cmpf olt, [[A]], [[HALF]] : f32
// CHECK-NEXT:     {{%[0-9]+}} = arith.cmpf olt, %x, [[LO]] : f32
// CHECK:          {{%[0-9]+}} = math.floor {{%[0-9]+}} : f32
// CHECK:          {{%[0-9]+}} = arith.shli {{%[0-9]+}}, {{%[0-9]+}} : i32
// CHECK:          [[ISNAN1:%[0-9]+]] = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:     [[E:%[0-9]+]] = arith.select [[ISNAN1]], %x, {{%[0-9]+}} : f32
// CHECK-NEXT:     [[EM1:%[0-9]+]] = arith.subf [[E]], [[ONE]] : f32
// CHECK-NEXT:     [[Y1:%[0-9]+]] = arith.select [[NEAR0]], [[SMALL]], [[EM1]] : f32
// CHECK-NEXT:     [[ISNAN:%[0-9]+]] = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:     %y = arith.select [[ISNAN]], %x, [[Y1]] : f32
// CHECK-NEXT:     func.return %y : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----
// tanh |x| = t / (t + 2) with t = expm1(2 |x|), exactly 1 past |x| > 9, the sign
// of x copied back, NaN through.
func.func @tanh(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  func.return %y : f32
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @tanh(%x: f32) -> f32 {
// CHECK-NEXT:     [[K8:%[0-9]+]] = arith.constant 2.48015876e-05 : f32
// CHECK-NEXT:     [[K7:%[0-9]+]] = arith.constant 0.000198412701 : f32
// CHECK:          [[ONE:%[0-9]+]] = arith.constant 1.000000e+00 : f32
// CHECK:          [[TWO:%[0-9]+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:     [[NINE:%[0-9]+]] = arith.constant 9.000000e+00 : f32
// CHECK-NEXT:     [[A:%[0-9]+]] = math.absf %x : f32
// CHECK-NEXT:     [[A2:%[0-9]+]] = arith.addf [[A]], [[A]] : f32
// CHECK-NEXT:     [[MUL:%[0-9]+]] = arith.mulf [[K8]], [[A2]] fastmath<contract> : f32
// CHECK-NEXT:     {{%[0-9]+}} = arith.addf [[MUL]], [[K7]] fastmath<contract> : f32
// CHECK:          {{%[0-9]+}} = math.floor {{%[0-9]+}} : f32
// CHECK:          {{%[0-9]+}} = arith.shli {{%[0-9]+}}, {{%[0-9]+}} : i32
// CHECK:          [[ISNANE:%[0-9]+]] = arith.cmpf uno, [[A2]], [[A2]] : f32
// CHECK-NEXT:     [[E:%[0-9]+]] = arith.select [[ISNANE]], [[A2]], {{%[0-9]+}} : f32
// CHECK-NEXT:     [[EM1:%[0-9]+]] = arith.subf [[E]], [[ONE]] : f32
// CHECK-NEXT:     [[T1:%[0-9]+]] = arith.select {{%[0-9]+}}, {{%[0-9]+}}, [[EM1]] : f32
// CHECK-NEXT:     [[ISNANT:%[0-9]+]] = arith.cmpf uno, [[A2]], [[A2]] : f32
// CHECK-NEXT:     [[T:%[0-9]+]] = arith.select [[ISNANT]], [[A2]], [[T1]] : f32
// CHECK-NEXT:     [[T2:%[0-9]+]] = arith.addf [[T]], [[TWO]] : f32
// CHECK-NEXT:     [[Q:%[0-9]+]] = arith.divf [[T]], [[T2]] : f32
// CHECK-NEXT:     [[FAR:%[0-9]+]] = arith.cmpf ogt, [[A]], [[NINE]] : f32
// CHECK-NEXT:     [[Y1:%[0-9]+]] = arith.select [[FAR]], [[ONE]], [[Q]] : f32
// CHECK-NEXT:     [[Y2:%[0-9]+]] = math.copysign [[Y1]], %x : f32
// CHECK-NEXT:     [[ISNAN:%[0-9]+]] = arith.cmpf uno, %x, %x : f32
// CHECK-NEXT:     %y = arith.select [[ISNAN]], %x, [[Y2]] : f32
// CHECK-NEXT:     func.return %y : f32
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----
// Inside loop bodies too (the form this pass sees after lower-tensorexpr-to-loops):
// every f32 exp of the nest is rewritten, not only top-level ones.
func.func @nested(%n: index, %buf: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %buf[%i] : memref<?xf32>
    %e = math.exp %v : f32
    memref.store %e, %buf[%i] : memref<?xf32>
  }
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @nested(%n: index, %buf: memref<?xf32>) {
// CHECK-NEXT:     [[LO:%[0-9]+]] = arith.constant -87.3365402 : f32
// CHECK-NEXT:     [[HI:%[0-9]+]] = arith.constant 88.7228394 : f32
// CHECK:          %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:       %v = memref.load %buf[%i] : memref<?xf32>
// CHECK-NEXT:       {{%[0-9]+}} = arith.cmpf olt, %v, [[LO]] : f32
// CHECK-NOT:        arith.constant
// CHECK-NOT:        math.exp
// CHECK:            [[ISNAN:%[0-9]+]] = arith.cmpf uno, %v, %v : f32
// CHECK-NEXT:       %e = arith.select [[ISNAN]], %v, {{%[0-9]+}} : f32
// CHECK-NEXT:       memref.store %e, %buf[%i] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----
// f64: exp pinned where it differs from f32 (range, ln2 in two parts, the degree-13
// Taylor polynomial's top coefficient 1/13!, 2^n from i64 exponent bits); the others
// only must be gone (GONE above).
func.func @f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  %z = math.log %y : f64
  %l = math.log1p %z : f64
  %m = math.expm1 %l : f64
  %t = math.tanh %m : f64
  func.return %t : f64
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @f64(%x: f64) -> f64 {
// CHECK-NEXT:     [[LO:%[0-9]+]] = arith.constant -708.39641853226408 : f64
// CHECK-NEXT:     [[HI:%[0-9]+]] = arith.constant 709.78271289338397 : f64
// CHECK:          arith.constant -1.9082149292705877e-10 : f64
// CHECK-NEXT:     arith.constant -0.69314718036912382 : f64
// CHECK-NEXT:     arith.constant 1.6059043836821613e-10 : f64
// CHECK:          [[BIAS:%[0-9]+]] = arith.constant 1023 : i64
// CHECK-NEXT:     [[S:%[0-9]+]] = arith.constant 52 : i64
// CHECK:          {{%[0-9]+}} = arith.cmpf olt, %x, [[LO]] : f64
// CHECK:          [[N:%[0-9]+]] = arith.fptosi {{%[0-9]+}} : f64 to i64
// CHECK:          [[E:%[0-9]+]] = arith.addi {{%[0-9]+}}, [[BIAS]] : i64
// CHECK-NEXT:     [[B:%[0-9]+]] = arith.shli [[E]], [[S]] : i64
// CHECK-NEXT:     {{%[0-9]+}} = arith.bitcast [[B]] : i64 to f64
// CHECK:          func.return %t : f64
