// RUN: pipeline-opt %s --split-input-file -p plan-memory | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p plan-memory | filecheck %s --check-prefix=GONE

// plan-memory: every top-level temporary `memref.alloc(%n) : memref<?xT>` whose size
// is index arithmetic over the size symbols gets a place in one arena argument per
// element type, and its memref.dealloc vanishes. Liveness over the function's
// top-level ops; sizes in units (c * E is c units of E; a constant, c units of one
// element): per element type and unit, largest first, each buffer at the lowest
// offset clear of the buffers alive with it. Buffers whose places overlap form a
// slot. The function becomes the private @<name>_body with one argument per slot
// (so LLVM sees non-overlapping noalias pointers), a buffer at an offset inside its
// slot a memref.subview made where it was allocated; @<name> keeps the signature,
// plus the arenas (after the status buffer,
// attribute loops.arena), cuts them into slots (memref.subview at running sums of
// the slot sizes) and calls the body. A companion function
// @<name>_arena_sizes(symbols..., %sizes: memref<?xi64>) stores the element count
// of arena k at %sizes[k].
//
// The CHECK lines pin the output whole; the GONE lines check over the whole
// module that no alloc or dealloc is left.

// The form lower-tensorexpr-to-loops produces: x -> %a -> %b -> %c (f32, N * 3 each),
// an i64 temporary %k (E), and %d (f32, E) gathered from %c at %k into out0. %a and
// %b overlap (the loop writing %b reads %a): two slots. %c is allocated after %a's
// last use: it shares %a's slot (the same offset, 0). %d is in units of E: a third
// slot at 2 * N * 3. %k is in the i64 arena, at 0. Sizes: f32 N*3 + N*3 + E, i64 E.
func.func @f(%N: index, %E: index, %x: memref<?xf32> {te.dims = ["N", 3 : i64]}, %ei: memref<?xi64> {te.dims = [2 : i64, "E"]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n3 = arith.muli %N, %c3 : index
  %a = memref.alloc(%n3) : memref<?xf32>
  scf.for %i = %c0 to %n3 step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
  }
  %b = memref.alloc(%n3) : memref<?xf32>
  scf.for %i = %c0 to %n3 step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %b[%i] : memref<?xf32>
  }
  %c = memref.alloc(%n3) : memref<?xf32>
  scf.for %i = %c0 to %n3 step %c1 {
    %v = memref.load %b[%i] : memref<?xf32>
    memref.store %v, %c[%i] : memref<?xf32>
  }
  %k = memref.alloc(%E) : memref<?xi64>
  scf.for %e = %c0 to %E step %c1 {
    %v = memref.load %ei[%e] : memref<?xi64>
    memref.store %v, %k[%e] : memref<?xi64>
  }
  %d = memref.alloc(%E) : memref<?xf32>
  scf.for %e = %c0 to %E step %c1 {
    %j = memref.load %k[%e] : memref<?xi64>
    %ji = arith.index_cast %j : i64 to index
    %v = memref.load %c[%ji] : memref<?xf32>
    memref.store %v, %d[%e] : memref<?xf32>
  }
  scf.for %e = %c0 to %E step %c1 {
    %v = memref.load %d[%e] : memref<?xf32>
    memref.store %v, %out0[%e] : memref<?xf32>
  }
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  memref.dealloc %c : memref<?xf32>
  memref.dealloc %k : memref<?xi64>
  memref.dealloc %d : memref<?xf32>
  func.return
}
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @f(%N: index, %E: index, %x: memref<?xf32> {te.dims = ["N", 3 : i64]}, %ei: memref<?xi64> {te.dims = [2 : i64, "E"]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %arena_f32: memref<?xf32> {loops.arena}, %arena_i64: memref<?xi64> {loops.arena}) {
// The slots: f32 at 0, N*3, 2*N*3; i64 at 0.
// CHECK-NEXT:     [[OFF0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[C3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:     [[N3:%[0-9]+]] = arith.muli %N, [[C3]] : index
// CHECK-NEXT:     [[S0:%[0-9]+]] = memref.subview %arena_f32{{\[}}[[OFF0]]] {{\[}}[[N3]]] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:     [[S1:%[0-9]+]] = memref.subview %arena_f32{{\[}}[[N3]]] {{\[}}[[N3]]] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:     [[OFF2:%[0-9]+]] = arith.addi [[N3]], [[N3]] : index
// CHECK-NEXT:     [[S2:%[0-9]+]] = memref.subview %arena_f32{{\[}}[[OFF2]]] [%E] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:     [[S3:%[0-9]+]] = memref.subview %arena_i64{{\[}}[[OFF0]]] [%E] [1] : memref<?xi64> to memref<?xi64, strided<[1], offset: ?>>
// CHECK-NEXT:     func.call @f_body(%N, %E, %x, %ei, %out0, %status, [[S0]], [[S1]], [[S2]], [[S3]]) : (index, index, memref<?xf32>, memref<?xi64>, memref<?xf32>, memref<?xi32>, memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, memref<?xi64, strided<[1], offset: ?>>) -> ()
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// %a, then %c, in slot 0; %b in slot 1; %d in slot 2; %k in the i64 slot 0.
// CHECK-NEXT:   func.func private @f_body(%N: index, %E: index, %x: memref<?xf32> {te.dims = ["N", 3 : i64]}, %ei: memref<?xi64> {te.dims = [2 : i64, "E"]}, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %slot0_f32: memref<?xf32, strided<[1], offset: ?>>, %slot1_f32: memref<?xf32, strided<[1], offset: ?>>, %slot2_f32: memref<?xf32, strided<[1], offset: ?>>, %slot0_i64: memref<?xi64, strided<[1], offset: ?>>) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     %n3 = arith.muli %N, %c3 : index
// CHECK-NEXT:     scf.for [[I:%i[_0-9]*]] = %c0 to %n3 step %c1 {
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %x{{\[}}[[I]]] : memref<?xf32>
// CHECK-NEXT:       memref.store [[V]], %slot0_f32{{\[}}[[I]]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for [[I:%i[_0-9]*]] = %c0 to %n3 step %c1 {
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %slot0_f32{{\[}}[[I]]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:       memref.store [[V]], %slot1_f32{{\[}}[[I]]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for [[I:%i[_0-9]*]] = %c0 to %n3 step %c1 {
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %slot1_f32{{\[}}[[I]]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:       memref.store [[V]], %slot0_f32{{\[}}[[I]]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for [[EV:%e[_0-9]*]] = %c0 to %E step %c1 {
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %ei{{\[}}[[EV]]] : memref<?xi64>
// CHECK-NEXT:       memref.store [[V]], %slot0_i64{{\[}}[[EV]]] : memref<?xi64, strided<[1], offset: ?>>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for [[EV:%e[_0-9]*]] = %c0 to %E step %c1 {
// CHECK-NEXT:       %j = memref.load %slot0_i64{{\[}}[[EV]]] : memref<?xi64, strided<[1], offset: ?>>
// CHECK-NEXT:       %ji = arith.index_cast %j : i64 to index
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %slot0_f32[%ji] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:       memref.store [[V]], %slot2_f32{{\[}}[[EV]]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for [[EV:%e[_0-9]*]] = %c0 to %E step %c1 {
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %slot2_f32{{\[}}[[EV]]] : memref<?xf32, strided<[1], offset: ?>>
// CHECK-NEXT:       memref.store [[V]], %out0{{\[}}[[EV]]] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// The companion: f32 arena N*3 + N*3 + E elements at sizes[0], i64 arena E at sizes[1].
// CHECK-NEXT:   func.func @f_arena_sizes(%N: index, %E: index, %sizes: memref<?xi64>) attributes {loops.arena_sizes_of = "f"} {
// CHECK-NEXT:     [[SC3:%[a-z0-9_]+]] = arith.constant 3 : index
// CHECK-NEXT:     [[SN3:%[a-z0-9_]+]] = arith.muli %N, [[SC3]] : index
// CHECK-NEXT:     [[T1:%[0-9]+]] = arith.addi [[SN3]], [[SN3]] : index
// CHECK-NEXT:     [[T2:%[0-9]+]] = arith.addi [[T1]], %E : index
// CHECK-NEXT:     [[K0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[F32N:%[0-9]+]] = arith.index_cast [[T2]] : index to i64
// CHECK-NEXT:     memref.store [[F32N]], %sizes{{\[}}[[K0]]] : memref<?xi64>
// CHECK-NEXT:     [[K1:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:     [[I64N:%[0-9]+]] = arith.index_cast %E : index to i64
// CHECK-NEXT:     memref.store [[I64N]], %sizes{{\[}}[[K1]]] : memref<?xi64>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @f(
// GONE-NOT:   memref.alloc
// GONE-NOT:   memref.dealloc
// GONE-NOT:   {{%a\b}}
// GONE-LABEL: func.func @f_arena_sizes(
// GONE-NOT:   memref.alloc

// -----
// Sizes that differ, in units of one symbol, share memory: %big (8 * E) dies before
// %p and %q (2 * E and 3 * E, alive together) are allocated, so they take its place,
// %q at offset 0 and %p after it (at 3 * E, a view made where %p was allocated):
// one slot of 8 * E, where equal sizes alone would plan 13 * E. Largest first: %q
// before %p. A product of products is counted in units of its symbol ((E * 4) * 2 is
// 8 units of E).
func.func @pack(%E: index, %x: memref<?xf64>, %out0: memref<?xf64> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %n4 = arith.muli %E, %c4 : index
  %n8 = arith.muli %n4, %c2 : index
  %big = memref.alloc(%n8) : memref<?xf64>
  scf.for %i = %c0 to %n8 step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    memref.store %v, %big[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %E step %c1 {
    %v = memref.load %big[%i] : memref<?xf64>
    memref.store %v, %out0[%i] : memref<?xf64>
  }
  %n2 = arith.muli %E, %c2 : index
  %p = memref.alloc(%n2) : memref<?xf64>
  %n3 = arith.muli %c3, %E : index
  %q = memref.alloc(%n3) : memref<?xf64>
  scf.for %i = %c0 to %n2 step %c1 {
    %v = memref.load %out0[%i] : memref<?xf64>
    memref.store %v, %p[%i] : memref<?xf64>
    memref.store %v, %q[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %E step %c1 {
    %a = memref.load %p[%i] : memref<?xf64>
    %b = memref.load %q[%i] : memref<?xf64>
    %s = arith.addf %a, %b : f64
    memref.store %s, %out0[%i] : memref<?xf64>
  }
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @pack(%E: index, %x: memref<?xf64>, %out0: memref<?xf64> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %arena_f64: memref<?xf64> {loops.arena}) {
// CHECK-NEXT:     [[OFF0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[C8:%[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT:     [[E8:%[0-9]+]] = arith.muli %E, [[C8]] : index
// CHECK-NEXT:     [[S0:%[0-9]+]] = memref.subview %arena_f64{{\[}}[[OFF0]]] {{\[}}[[E8]]] [1] : memref<?xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK-NEXT:     func.call @pack_body(%E, %x, %out0, %status, [[S0]])
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func private @pack_body(%E: index, %x: memref<?xf64>, %out0: memref<?xf64> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}, %slot0_f64: memref<?xf64, strided<[1], offset: ?>>) {
// CHECK:          %n2 = arith.muli %E, %c2 : index
// CHECK-NEXT:     [[U3:%[0-9]+]] = arith.constant 3 : index
// CHECK-NEXT:     [[AT:%[0-9]+]] = arith.muli %E, [[U3]] : index
// CHECK-NEXT:     %p = memref.subview %slot0_f64{{\[}}[[AT]]] [%n2] [1] : memref<?xf64, strided<[1], offset: ?>> to memref<?xf64, strided<[1], offset: ?>>
// CHECK-NEXT:     scf.for
// CHECK-NEXT:       memref.load %out0
// CHECK-NEXT:       memref.store {{%.*}}, %p[
// CHECK-NEXT:       memref.store {{%.*}}, %slot0_f64
// CHECK:        func.func @pack_arena_sizes(%E: index, %sizes: memref<?xi64>) attributes {loops.arena_sizes_of = "pack"} {
// CHECK-NEXT:     [[SC8:%[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT:     [[SE8:%[0-9]+]] = arith.muli %E, [[SC8]] : index
// CHECK-NEXT:     [[K0:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:     [[N:%[0-9]+]] = arith.index_cast [[SE8]] : index to i64
// CHECK-NEXT:     memref.store [[N]], %sizes{{\[}}[[K0]]] : memref<?xi64>
// GONE-LABEL: func.func private @pack_body(
// GONE-NOT:   memref.alloc
// GONE-NOT:   %slot1_f64
// GONE-NOT:   %n3

// -----
// No temporary: nothing changes, no arena argument, no companion function.
func.func @none(%N: index, %x: memref<?xf32>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %N step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %out0[%i] : memref<?xf32>
  }
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @none(%N: index, %x: memref<?xf32>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     scf.for %i = %c0 to %N step %c1 {
// CHECK-NEXT:       %v = memref.load %x[%i] : memref<?xf32>
// CHECK-NEXT:       memref.store %v, %out0[%i] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// GONE-LABEL: func.func @none(
// GONE-NOT:   arena

// -----
// A size read from memory (not index arithmetic over the symbols) cannot be planned
// ahead of the call: that buffer stays a memref.alloc with its dealloc.
func.func @data_size(%N: index, %x: memref<?xf32>, %cnt: memref<?xi64>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m64 = memref.load %cnt[%c0] : memref<?xi64>
  %m = arith.index_cast %m64 : i64 to index
  %t = memref.alloc(%m) : memref<?xf32>
  scf.for %i = %c0 to %m step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %t[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %m step %c1 {
    %v = memref.load %t[%i] : memref<?xf32>
    memref.store %v, %out0[%i] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  func.return
}
// CHECK:      {{^// -{5}$}}
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @data_size(%N: index, %x: memref<?xf32>, %cnt: memref<?xi64>, %out0: memref<?xf32> {loops.output = 0 : i64}, %status: memref<?xi32> {loops.status}) {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %m64 = memref.load %cnt[%c0] : memref<?xi64>
// CHECK-NEXT:     %m = arith.index_cast %m64 : i64 to index
// CHECK-NEXT:     %t = memref.alloc(%m) : memref<?xf32>
// CHECK-NEXT:     scf.for [[I:%i[_0-9]*]] = %c0 to %m step %c1 {
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %x{{\[}}[[I]]] : memref<?xf32>
// CHECK-NEXT:       memref.store [[V]], %t{{\[}}[[I]]] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for [[I:%i[_0-9]*]] = %c0 to %m step %c1 {
// CHECK-NEXT:       [[V:%v[_0-9]*]] = memref.load %t{{\[}}[[I]]] : memref<?xf32>
// CHECK-NEXT:       memref.store [[V]], %out0{{\[}}[[I]]] : memref<?xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     memref.dealloc %t : memref<?xf32>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NOT:  {{.}}
// GONE-LABEL: func.func @data_size(
// GONE-NOT:   arena
