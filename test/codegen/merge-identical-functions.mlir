// RUN: pipeline-opt %s --split-input-file -p merge-identical-functions | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p merge-identical-functions | filecheck %s --check-prefix=GONE

// merge-identical-functions: a private function identical to an earlier one (type,
// attributes but the name, body up to SSA names) is erased and its uses name the
// first; launchers whose bodies merged merge in turn, unless their min_chunk differs.

// @f_par1 is @f_par0 over other buffers: it goes, and so does its launcher, whose
// call now launches @f_par0. @f_par2 multiplies by 3, not 2: it stays. @f_par3 is
// @f_par0 again but launched with another min_chunk: its body goes, its launcher
// stays and launches @f_par0.
func.func @f(%N: index, %x: memref<?xf32>, %y: memref<?xf32>, %z: memref<?xf32>, %num_threads: index {loops.num_threads}) {
  %c0 = arith.constant 0 : index
  func.call @f_par0_launch(%num_threads, %c0, %N, %x, %y) : (index, index, index, memref<?xf32>, memref<?xf32>) -> ()
  func.call @f_par1_launch(%num_threads, %c0, %N, %y, %z) : (index, index, index, memref<?xf32>, memref<?xf32>) -> ()
  func.call @f_par2_launch(%num_threads, %c0, %N, %z, %x) : (index, index, index, memref<?xf32>, memref<?xf32>) -> ()
  func.call @f_par3_launch(%num_threads, %c0, %N, %x, %z) : (index, index, index, memref<?xf32>, memref<?xf32>) -> ()
  func.return
}
func.func private @f_par0(%lo: index, %hi: index, %a: memref<?xf32>, %b: memref<?xf32>) attributes {codegen.noinline} {
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %lo to %hi step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %b[%i] : memref<?xf32>
  }
  func.return
}
func.func private @f_par0_launch(index, index, index, memref<?xf32>, memref<?xf32>) attributes {codegen.launch = @f_par0, codegen.min_chunk = 64 : i64}
func.func private @f_par1(%lo_1: index, %hi_1: index, %p: memref<?xf32>, %q: memref<?xf32>) attributes {codegen.noinline} {
  %c1_1 = arith.constant 1 : index
  %two_1 = arith.constant 2.0 : f32
  scf.for %j = %lo_1 to %hi_1 step %c1_1 {
    %v_1 = memref.load %p[%j] : memref<?xf32>
    %w_1 = arith.mulf %v_1, %two_1 : f32
    memref.store %w_1, %q[%j] : memref<?xf32>
  }
  func.return
}
func.func private @f_par1_launch(index, index, index, memref<?xf32>, memref<?xf32>) attributes {codegen.launch = @f_par1, codegen.min_chunk = 64 : i64}
func.func private @f_par2(%lo_2: index, %hi_2: index, %p_2: memref<?xf32>, %q_2: memref<?xf32>) attributes {codegen.noinline} {
  %c1_2 = arith.constant 1 : index
  %three = arith.constant 3.0 : f32
  scf.for %k = %lo_2 to %hi_2 step %c1_2 {
    %v_2 = memref.load %p_2[%k] : memref<?xf32>
    %w_2 = arith.mulf %v_2, %three : f32
    memref.store %w_2, %q_2[%k] : memref<?xf32>
  }
  func.return
}
func.func private @f_par2_launch(index, index, index, memref<?xf32>, memref<?xf32>) attributes {codegen.launch = @f_par2, codegen.min_chunk = 64 : i64}
func.func private @f_par3(%lo_3: index, %hi_3: index, %p_3: memref<?xf32>, %q_3: memref<?xf32>) attributes {codegen.noinline} {
  %c1_3 = arith.constant 1 : index
  %two_3 = arith.constant 2.0 : f32
  scf.for %m = %lo_3 to %hi_3 step %c1_3 {
    %v_3 = memref.load %p_3[%m] : memref<?xf32>
    %w_3 = arith.mulf %v_3, %two_3 : f32
    memref.store %w_3, %q_3[%m] : memref<?xf32>
  }
  func.return
}
func.func private @f_par3_launch(index, index, index, memref<?xf32>, memref<?xf32>) attributes {codegen.launch = @f_par3, codegen.min_chunk = 8 : i64}
// CHECK:      func.func @f(
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   func.call @f_par0_launch(%num_threads, %c0, %N, %x, %y)
// CHECK-NEXT:   func.call @f_par0_launch(%num_threads, %c0, %N, %y, %z)
// CHECK-NEXT:   func.call @f_par2_launch(%num_threads, %c0, %N, %z, %x)
// CHECK-NEXT:   func.call @f_par3_launch(%num_threads, %c0, %N, %x, %z)
// CHECK-NEXT:   func.return
// CHECK:      func.func private @f_par0(%lo: index, %hi: index, %a: memref<?xf32>, %b: memref<?xf32>) attributes {codegen.noinline} {
// CHECK:        arith.mulf %v, %two : f32
// CHECK:      func.func private @f_par0_launch({{.*}}) -> () attributes {codegen.launch = @f_par0, codegen.min_chunk = 64 : i64}
// CHECK-NEXT: func.func private @f_par2(
// CHECK:        arith.mulf %v, %three : f32
// CHECK:      func.func private @f_par2_launch({{.*}}) -> () attributes {codegen.launch = @f_par2, codegen.min_chunk = 64 : i64}
// CHECK-NEXT: func.func private @f_par3_launch({{.*}}) -> () attributes {codegen.launch = @f_par0, codegen.min_chunk = 8 : i64}
// CHECK-NEXT: }
// GONE-NOT: @f_par1
// GONE-NOT: func.func private @f_par3(

// -----

// Declarations other than launchers never merge: @sin and @cos have the same type.
// A public function keeps its name though it is a copy of a private one (callers
// outside the module use it), and functions that differ in an attribute stay apart.
func.func @g(%x: f64) -> f64 {
  %s = func.call @sin(%x) : (f64) -> f64
  %c = func.call @cos(%s) : (f64) -> f64
  %h = func.call @h(%c) : (f64) -> f64
  %k = func.call @k(%h) : (f64) -> f64
  func.return %k : f64
}
func.func private @sin(f64) -> f64
func.func private @cos(f64) -> f64
func.func private @h(%a: f64) -> f64 {
  %b = arith.addf %a, %a : f64
  func.return %b : f64
}
func.func @h_public(%a: f64) -> f64 {
  %b = arith.addf %a, %a : f64
  func.return %b : f64
}
func.func private @k(%a: f64) -> f64 attributes {codegen.noinline} {
  %b = arith.addf %a, %a : f64
  func.return %b : f64
}
// CHECK:      func.func @g(%x: f64) -> f64 {
// CHECK-NEXT:   %s = func.call @sin(%x) : (f64) -> f64
// CHECK-NEXT:   %c = func.call @cos(%s) : (f64) -> f64
// CHECK-NEXT:   %h = func.call @h(%c) : (f64) -> f64
// CHECK-NEXT:   %k = func.call @k(%h) : (f64) -> f64
// CHECK:      func.func private @sin(f64) -> f64
// CHECK-NEXT: func.func private @cos(f64) -> f64
// CHECK-NEXT: func.func private @h(
// CHECK:      func.func @h_public(
// CHECK:      func.func private @k(
