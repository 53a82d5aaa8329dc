// RUN: pipeline-opt %s -p outline-serial-nests | filecheck %s
// RUN: pipeline-opt %s -p outline-serial-nests | filecheck %s --check-prefix=GONE

// outline-serial-nests: each top-level scf.for of a function (not of an outlined
// parallel loop, marked codegen.noinline) with at least 8 ops and no call becomes
// @<fn>_ser<k>(values it uses from outside), called in its place, marked
// codegen.noinline and codegen.serial; constants are rematerialized inside. A nest
// under 8 ops, one that calls a launcher, the loops of an outlined parallel loop and
// the one nest of a kernel (@g) stay where they are.

func.func @f(%n: index, %x: memref<?xf64>, %y: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %r = arith.muli %i, %c3 : index
      %at = arith.addi %r, %j : index
      %v = memref.load %x[%at] : memref<?xf64>
      %w = arith.mulf %v, %two : f64
      memref.store %w, %y[%at] : memref<?xf64>
    }
  }
  scf.for %k = %c0 to %n step %c1 {
    memref.store %two, %y[%k] : memref<?xf64>
  }
  scf.for %p = %c1 to %n step %c1 {
    %v = memref.load %y[%p] : memref<?xf64>
    %w = arith.mulf %v, %two : f64
    %u = arith.mulf %w, %w : f64
    %z = arith.addf %u, %v : f64
    %q = arith.subf %z, %w : f64
    memref.store %q, %x[%p] : memref<?xf64>
  }
  scf.for %m = %c0 to %n step %c1 {
    func.call @f_par0_launch(%c0, %c0, %n, %x) : (index, index, index, memref<?xf64>) -> ()
    %v = memref.load %x[%m] : memref<?xf64>
    %w = arith.mulf %v, %two : f64
    %u = arith.mulf %w, %two : f64
    memref.store %u, %y[%m] : memref<?xf64>
  }
  func.return
}
func.func @g(%n: index, %x: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %w = arith.mulf %v, %two : f64
    %u = arith.mulf %w, %w : f64
    %z = arith.addf %u, %v : f64
    %q = arith.subf %z, %w : f64
    memref.store %q, %x[%i] : memref<?xf64>
  }
  func.return
}
func.func private @f_par0_launch(index, index, index, memref<?xf64>) attributes {codegen.launch = @f_par0, codegen.min_chunk = 1 : i64}
func.func private @f_par0(%lo: index, %hi: index, %x: memref<?xf64>) attributes {codegen.noinline} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %lo to %hi step %c1 {
    scf.for %j = %c0 to %hi step %c1 {
      %v = memref.load %x[%j] : memref<?xf64>
      %w = arith.mulf %v, %two : f64
      %u = arith.mulf %w, %two : f64
      memref.store %u, %x[%j] : memref<?xf64>
    }
  }
  func.return
}
// CHECK:      func.func @f(%n: index, %x: memref<?xf64>, %y: memref<?xf64>) {
// CHECK:        func.call @f_ser0(%n, %x, %y) : (index, memref<?xf64>, memref<?xf64>) -> ()
// CHECK-NEXT:   scf.for %k = %c0 to %n step %c1 {
// CHECK:        func.call @f_ser1(%n, %y, %x) : (index, memref<?xf64>, memref<?xf64>) -> ()
// CHECK-NEXT:   scf.for %m = %c0 to %n step %c1 {
// CHECK-NEXT:     func.call @f_par0_launch(
// CHECK:      func.func @g(%n: index, %x: memref<?xf64>) {
// CHECK:        scf.for %i = %c0 to %n step %c1 {
// CHECK:      func.func private @f_par0(%lo: index, %hi: index, %x: memref<?xf64>) attributes {codegen.noinline} {
// CHECK:        scf.for %i = %lo to %hi step %c1 {
// CHECK:      func.func private @f_ser0(%n: index, %x: memref<?xf64>, %y: memref<?xf64>) attributes {codegen.noinline, codegen.serial} {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   %c3 = arith.constant 3 : index
// CHECK-NEXT:   %two = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:   scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:     scf.for %j = %c0 to %c3 step %c1 {
// CHECK:              memref.store %w, %y[%at] : memref<?xf64>
// CHECK:      func.func private @f_ser1(%n: index, %y: memref<?xf64>, %x: memref<?xf64>) attributes {codegen.noinline, codegen.serial} {
// CHECK:        scf.for %p = %c1 to %n step %c1 {
// GONE-NOT:   @f_ser2
// GONE-NOT:   @g_ser
// GONE-NOT:   @f_par0_ser
