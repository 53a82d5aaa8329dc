// RUN: pipeline-opt %s --split-input-file -p define-parallel-launchers | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p define-parallel-launchers | filecheck %s --check-prefix=GONE

// define-parallel-launchers: a declared llvm.func marked codegen.launch = @body and
// codegen.min_chunk = K gets its body (internal linkage): teams = min(num_threads,
// or omp_get_max_threads() when it is 0, and ceil(n / K)); with one team the body
// runs in place; otherwise the arguments go into 8-byte slots on the stack (a
// pointer as an integer, an f32 in the low half) and GOMP_parallel runs
// @body_task on every team member, which loads them back and calls the body on
// its share [lo, hi) of [lb, ub). libgomp's entry points are declared once.
// A team that did not pay (the region took longer than teams x the master's own
// share, timed with llvm.readcyclecounter: threads without a core on a busy machine)
// makes the next @f_par0_backoff regions run serially (@f_par0_serial_left), the
// backoff doubling up to 1024 and reset once a team pays again.

// The launcher of @f_par0 (lb, ub and three arguments: a pointer, a float, a bool) gets
// its body: its own share computation, the serial call when one thread suffices,
// else the context (8-byte slots: lb, ub, the pointer and the bool as i64, the float)
// and GOMP_parallel of @f_par0_task, which takes this thread's [lo, hi).
// libgomp's functions are declared once.
llvm.func internal @f_par0(%lo: i64, %hi: i64, %x: !llvm.ptr, %s: f32, %b: i1) {
  llvm.return
}
llvm.func @f_par0_launch(i64, i64, i64, !llvm.ptr, f32, i1) attributes {codegen.launch = @f_par0, codegen.min_chunk = 64 : i64}
llvm.func @f(%n: i64, %x: !llvm.ptr, %s: f32, %b: i1, %threads: i64) {
  %0 = llvm.mlir.constant(0 : i64) : i64
  llvm.call @f_par0_launch(%threads, %0, %n, %x, %s, %b) : (i64, i64, i64, !llvm.ptr, f32, i1) -> ()
  llvm.return
}
// CHECK:      builtin.module {
// CHECK-NEXT: llvm.func internal @f_par0(%lo: i64, %hi: i64, %x: !llvm.ptr, %s: f32, %b: i1) {
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func internal @f_par0_launch(%num_threads: i64, %lb: i64, %ub: i64, %0: !llvm.ptr, %1: f32, %2: i1) {
// CHECK-NEXT: %n = llvm.sub %ub, %lb : i64
// CHECK-NEXT: [[CALL:%[0-9]+]] = llvm.call @omp_get_max_threads() : () -> i32
// CHECK-NEXT: [[SEXT:%[0-9]+]] = llvm.sext [[CALL]] : i32 to i64
// CHECK-NEXT: [[MLIR:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[ICMP:%[0-9]+]] = llvm.icmp "sgt" %num_threads, [[MLIR]] : i64
// CHECK-NEXT: [[SELECT:%[0-9]+]] = llvm.select [[ICMP]], %num_threads, [[SEXT]] : i1, i64
// CHECK-NEXT: [[MLIR_2:%[0-9]+]] = llvm.mlir.constant(64) : i64
// CHECK-NEXT: [[MLIR_3:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[SUB:%[0-9]+]] = llvm.sub [[MLIR_2]], [[MLIR_3]] : i64
// CHECK-NEXT: [[ADD:%[0-9]+]] = llvm.add %n, [[SUB]] : i64
// CHECK-NEXT: [[SDIV:%[0-9]+]] = llvm.sdiv [[ADD]], [[MLIR_2]] : i64
// CHECK-NEXT: [[ICMP_2:%[0-9]+]] = llvm.icmp "slt" [[SELECT]], [[SDIV]] : i64
// CHECK-NEXT: %teams = llvm.select [[ICMP_2]], [[SELECT]], [[SDIV]] : i1, i64
// CHECK-NEXT: [[MLIR_4:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[ICMP_3:%[0-9]+]] = llvm.icmp "sle" %teams, [[MLIR_4]] : i64
// CHECK-NEXT: llvm.cond_br [[ICMP_3]], ^bb3, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: [[MLIR_5:%[0-9]+]] = llvm.mlir.addressof @f_par0_serial_left : !llvm.ptr
// CHECK-NEXT: %serial_left = llvm.load [[MLIR_5]] : !llvm.ptr -> i64
// CHECK-NEXT: [[MLIR_6:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[ICMP_4:%[0-9]+]] = llvm.icmp "sgt" %serial_left, [[MLIR_6]] : i64
// CHECK-NEXT: llvm.cond_br [[ICMP_4]], ^bb2, ^bb4
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: [[MLIR_7:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[SUB_2:%[0-9]+]] = llvm.sub %serial_left, [[MLIR_7]] : i64
// CHECK-NEXT: [[MLIR_8:%[0-9]+]] = llvm.mlir.addressof @f_par0_serial_left : !llvm.ptr
// CHECK-NEXT: llvm.store [[SUB_2]], [[MLIR_8]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.br ^bb3
// CHECK-NEXT: ^bb3:
// CHECK-NEXT: llvm.call @f_par0(%lb, %ub, %0, %1, %2) : (i64, i64, !llvm.ptr, f32, i1) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb4:
// CHECK-NEXT: %start = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: [[MLIR_9:%[0-9]+]] = llvm.mlir.constant(6) : i64
// CHECK-NEXT: %ctx = llvm.alloca [[MLIR_9]] x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: [[GETELEMENTPTR:%[0-9]+]] = llvm.getelementptr %ctx[0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store %lb, [[GETELEMENTPTR]] : i64, !llvm.ptr
// CHECK-NEXT: [[GETELEMENTPTR_2:%[0-9]+]] = llvm.getelementptr %ctx[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store %ub, [[GETELEMENTPTR_2]] : i64, !llvm.ptr
// CHECK-NEXT: [[PTRTOINT:%[0-9]+]] = llvm.ptrtoint %0 : !llvm.ptr to i64
// CHECK-NEXT: [[GETELEMENTPTR_3:%[0-9]+]] = llvm.getelementptr %ctx[2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store [[PTRTOINT]], [[GETELEMENTPTR_3]] : i64, !llvm.ptr
// CHECK-NEXT: [[GETELEMENTPTR_4:%[0-9]+]] = llvm.getelementptr %ctx[6] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: llvm.store %1, [[GETELEMENTPTR_4]] : f32, !llvm.ptr
// CHECK-NEXT: [[ZEXT:%[0-9]+]] = llvm.zext %2 : i1 to i64
// CHECK-NEXT: [[GETELEMENTPTR_5:%[0-9]+]] = llvm.getelementptr %ctx[4] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store [[ZEXT]], [[GETELEMENTPTR_5]] : i64, !llvm.ptr
// CHECK-NEXT: [[MLIR_10:%[0-9]+]] = llvm.mlir.addressof @f_par0_task : !llvm.ptr
// CHECK-NEXT: [[TRUNC:%[0-9]+]] = llvm.trunc %teams : i64 to i32
// CHECK-NEXT: [[MLIR_11:%[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @GOMP_parallel([[MLIR_10]], %ctx, [[TRUNC]], [[MLIR_11]]) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK-NEXT: [[INTRIN:%[0-9]+]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: %took = llvm.sub [[INTRIN]], %start : i64
// CHECK-NEXT: [[GETELEMENTPTR_6:%[0-9]+]] = llvm.getelementptr %ctx[5] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %master_share = llvm.load [[GETELEMENTPTR_6]] : !llvm.ptr -> i64
// CHECK-NEXT: [[MUL:%[0-9]+]] = llvm.mul %master_share, %teams : i64
// CHECK-NEXT: [[ICMP_5:%[0-9]+]] = llvm.icmp "sgt" %took, [[MUL]] : i64
// CHECK-NEXT: llvm.cond_br [[ICMP_5]], ^bb5, ^bb6
// CHECK-NEXT: ^bb5:
// CHECK-NEXT: [[MLIR_12:%[0-9]+]] = llvm.mlir.addressof @f_par0_backoff : !llvm.ptr
// CHECK-NEXT: [[LOAD:%[0-9]+]] = llvm.load [[MLIR_12]] : !llvm.ptr -> i64
// CHECK-NEXT: [[MLIR_13:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[SHL:%[0-9]+]] = llvm.shl [[LOAD]], [[MLIR_13]] : i64
// CHECK-NEXT: [[MLIR_14:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[ICMP_6:%[0-9]+]] = llvm.icmp "sgt" [[SHL]], [[MLIR_14]] : i64
// CHECK-NEXT: [[MLIR_15:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[SELECT_2:%[0-9]+]] = llvm.select [[ICMP_6]], [[SHL]], [[MLIR_15]] : i1, i64
// CHECK-NEXT: [[MLIR_16:%[0-9]+]] = llvm.mlir.constant(1024) : i64
// CHECK-NEXT: [[ICMP_7:%[0-9]+]] = llvm.icmp "slt" [[SELECT_2]], [[MLIR_16]] : i64
// CHECK-NEXT: [[SELECT_3:%[0-9]+]] = llvm.select [[ICMP_7]], [[SELECT_2]], [[MLIR_16]] : i1, i64
// CHECK-NEXT: [[MLIR_17:%[0-9]+]] = llvm.mlir.addressof @f_par0_backoff : !llvm.ptr
// CHECK-NEXT: llvm.store [[SELECT_3]], [[MLIR_17]] : i64, !llvm.ptr
// CHECK-NEXT: [[MLIR_18:%[0-9]+]] = llvm.mlir.addressof @f_par0_serial_left : !llvm.ptr
// CHECK-NEXT: llvm.store [[SELECT_3]], [[MLIR_18]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb6:
// CHECK-NEXT: [[MLIR_19:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[MLIR_20:%[0-9]+]] = llvm.mlir.addressof @f_par0_backoff : !llvm.ptr
// CHECK-NEXT: llvm.store [[MLIR_19]], [[MLIR_20]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func @f(%n_1: i64, %x_1: !llvm.ptr, %s_1: f32, %b_1: i1, %threads: i64) {
// CHECK-NEXT: [[MLIR_21:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: llvm.call @f_par0_launch(%threads, [[MLIR_21]], %n_1, %x_1, %s_1, %b_1) : (i64, i64, i64, !llvm.ptr, f32, i1) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)
// CHECK-NEXT: llvm.func @omp_get_thread_num() -> i32
// CHECK-NEXT: llvm.func @omp_get_num_threads() -> i32
// CHECK-NEXT: llvm.func @omp_get_max_threads() -> i32
// CHECK-NEXT: llvm.mlir.global internal @f_par0_serial_left(0 : i64) {addr_space = 0 : i32} : i64
// CHECK-NEXT: llvm.mlir.global internal @f_par0_backoff(0 : i64) {addr_space = 0 : i32} : i64
// CHECK-NEXT: llvm.func internal @f_par0_task(%ctx_1: !llvm.ptr) {
// CHECK-NEXT: [[GETELEMENTPTR_7:%[0-9]+]] = llvm.getelementptr %ctx_1[0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %lb_1 = llvm.load [[GETELEMENTPTR_7]] : !llvm.ptr -> i64
// CHECK-NEXT: [[GETELEMENTPTR_8:%[0-9]+]] = llvm.getelementptr %ctx_1[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %ub_1 = llvm.load [[GETELEMENTPTR_8]] : !llvm.ptr -> i64
// CHECK-NEXT: [[GETELEMENTPTR_9:%[0-9]+]] = llvm.getelementptr %ctx_1[2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: [[LOAD_2:%[0-9]+]] = llvm.load [[GETELEMENTPTR_9]] : !llvm.ptr -> i64
// CHECK-NEXT: [[INTTOPTR:%[0-9]+]] = llvm.inttoptr [[LOAD_2]] : i64 to !llvm.ptr
// CHECK-NEXT: [[GETELEMENTPTR_10:%[0-9]+]] = llvm.getelementptr %ctx_1[6] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: [[LOAD_3:%[0-9]+]] = llvm.load [[GETELEMENTPTR_10]] : !llvm.ptr -> f32
// CHECK-NEXT: [[GETELEMENTPTR_11:%[0-9]+]] = llvm.getelementptr %ctx_1[4] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: [[LOAD_4:%[0-9]+]] = llvm.load [[GETELEMENTPTR_11]] : !llvm.ptr -> i64
// CHECK-NEXT: [[TRUNC_2:%[0-9]+]] = llvm.trunc [[LOAD_4]] : i64 to i1
// CHECK-NEXT: [[CALL_2:%[0-9]+]] = llvm.call @omp_get_thread_num() : () -> i32
// CHECK-NEXT: [[SEXT_2:%[0-9]+]] = llvm.sext [[CALL_2]] : i32 to i64
// CHECK-NEXT: [[CALL_3:%[0-9]+]] = llvm.call @omp_get_num_threads() : () -> i32
// CHECK-NEXT: [[SEXT_3:%[0-9]+]] = llvm.sext [[CALL_3]] : i32 to i64
// CHECK-NEXT: [[SUB_3:%[0-9]+]] = llvm.sub %ub_1, %lb_1 : i64
// CHECK-NEXT: [[MLIR_22:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[SUB_4:%[0-9]+]] = llvm.sub [[SEXT_3]], [[MLIR_22]] : i64
// CHECK-NEXT: [[ADD_2:%[0-9]+]] = llvm.add [[SUB_3]], [[SUB_4]] : i64
// CHECK-NEXT: [[SDIV_2:%[0-9]+]] = llvm.sdiv [[ADD_2]], [[SEXT_3]] : i64
// CHECK-NEXT: [[MUL_2:%[0-9]+]] = llvm.mul [[SEXT_2]], [[SDIV_2]] : i64
// CHECK-NEXT: [[ADD_3:%[0-9]+]] = llvm.add %lb_1, [[MUL_2]] : i64
// CHECK-NEXT: [[ICMP_8:%[0-9]+]] = llvm.icmp "slt" [[ADD_3]], %ub_1 : i64
// CHECK-NEXT: %lo_1 = llvm.select [[ICMP_8]], [[ADD_3]], %ub_1 : i1, i64
// CHECK-NEXT: [[ADD_4:%[0-9]+]] = llvm.add %lo_1, [[SDIV_2]] : i64
// CHECK-NEXT: [[ICMP_9:%[0-9]+]] = llvm.icmp "slt" [[ADD_4]], %ub_1 : i64
// CHECK-NEXT: %hi_1 = llvm.select [[ICMP_9]], [[ADD_4]], %ub_1 : i1, i64
// CHECK-NEXT: [[ICMP_10:%[0-9]+]] = llvm.icmp "slt" %lo_1, %hi_1 : i64
// CHECK-NEXT: llvm.cond_br [[ICMP_10]], ^bb1, ^bb4
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: [[INTRIN_2:%[0-9]+]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: llvm.call @f_par0(%lo_1, %hi_1, [[INTTOPTR]], [[LOAD_3]], [[TRUNC_2]]) : (i64, i64, !llvm.ptr, f32, i1) -> ()
// CHECK-NEXT: [[INTRIN_3:%[0-9]+]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: [[SUB_5:%[0-9]+]] = llvm.sub [[INTRIN_3]], [[INTRIN_2]] : i64
// CHECK-NEXT: [[MLIR_23:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[ICMP_11:%[0-9]+]] = llvm.icmp "eq" [[SEXT_2]], [[MLIR_23]] : i64
// CHECK-NEXT: llvm.cond_br [[ICMP_11]], ^bb2, ^bb3
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: [[GETELEMENTPTR_12:%[0-9]+]] = llvm.getelementptr %ctx_1[5] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store [[SUB_5]], [[GETELEMENTPTR_12]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb3:
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb4:
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @f_par0(
// GONE-NOT: codegen.launch
// GONE-NOT: codegen.min_chunk
// GONE-COUNT-1: llvm.func @GOMP_parallel(
// GONE:       llvm.mlir.global internal @f_par0_serial_left(0 : i64)
// GONE-NEXT:  llvm.mlir.global internal @f_par0_backoff(0 : i64)
