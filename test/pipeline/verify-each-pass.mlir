// RUN: pipeline-opt %s --split-input-file --verify-diagnostics -p approximate-math | filecheck %s

// pipeline-opt verifies the module before the first pass and after each one, SSA
// dominance included (xDSL's verifier leaves it out): a value used before its
// definition is reported, naming the pass that produced it or the input, where
// it would otherwise surface as a KeyError in LLVM translation.

func.func @use_before_def(%a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %x = arith.addf %y, %y : f32
  %y = memref.load %a[%c0] : memref<?xf32>
  memref.store %x, %a[%c0] : memref<?xf32>
  func.return
}
// CHECK: operand 0 of 'arith.addf' is used where its definition (%y, result of 'memref.load') does not dominate it

// -----
// A use inside a loop's body counts too.
func.func @nested_use(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = arith.mulf %m, %m : f32
    memref.store %v, %a[%i] : memref<?xf32>
  }
  %m = memref.load %a[%c0] : memref<?xf32>
  func.return
}
// CHECK: operand 0 of 'arith.mulf' is used where its definition (%m, result of 'memref.load') does not dominate it

// -----
// Well-formed: a value from the enclosing block, a loop's own argument.
func.func @fine(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.load %a[%c0] : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = arith.mulf %m, %m : f32
    memref.store %v, %a[%i] : memref<?xf32>
  }
  func.return
}
// CHECK:      func.func @fine(
// CHECK-NOT:  invalid IR
