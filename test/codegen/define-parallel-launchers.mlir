// RUN: pipeline-opt %s --split-input-file -p define-parallel-launchers | filecheck %s
// RUN: pipeline-opt %s --split-input-file -p define-parallel-launchers | filecheck %s --check-prefix=GONE
// RUN: pipeline-opt %s --split-input-file -p define-parallel-launchers | filecheck %s --check-prefix=TWO
// RUN: pipeline-opt %s --split-input-file -p define-parallel-launchers | filecheck %s --check-prefix=EXPORTED
// RUN: pipeline-opt %s --split-input-file -p define-parallel-launchers | filecheck %s --check-prefix=SHARED

// define-parallel-launchers: a declared llvm.func marked codegen.launch = @body and
// codegen.min_chunk = K gets its body (internal linkage): teams =
// @pipeline_team_size(num_threads, n, K, @body_serial_left) = min(num_threads, or
// omp_get_max_threads() when it is 0, and ceil(n / K)); with one team the body runs
// in place; otherwise the arguments go into 8-byte slots on the stack after the
// master's time (a pointer as an integer, an f32 in the low half) and
// @pipeline_run_team runs GOMP_parallel of @body_task on every team member, which
// loads them back, takes its share [lo, hi) of [lb, ub) from @pipeline_share, calls
// the body and @pipeline_master_time. A team that did not pay (the region took longer
// than teams x the master's own share, timed with llvm.readcyclecounter: threads
// without a core on a busy machine) makes the next @f_par0_backoff regions run
// serially (@f_par0_serial_left), the backoff doubling up to 1024 and reset once a
// team pays again. libgomp's entry points and the four @pipeline_* functions (never
// inlined) exist once per module.

// The launcher of @f_par0 (lb, ub and three arguments: a pointer, a float, a bool) gets
// its body: the serial call when one thread suffices, else the context (8-byte slots:
// the master's time, lb, ub, the pointer and the bool as i64, the float) and
// @pipeline_run_team of @f_par0_task, which takes this thread's [lo, hi).
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
// CHECK-NEXT: llvm.func internal @f_par0_launch(%num_threads: i64, %lb: i64, %ub: i64, [[V0:%[0-9]+]]: !llvm.ptr, [[V1:%[0-9]+]]: f32, [[V2:%[0-9]+]]: i1) {
// CHECK-NEXT: %n = llvm.sub %ub, %lb : i64
// CHECK-NEXT: [[V3:%[0-9]+]] = llvm.mlir.addressof @f_par0_serial_left : !llvm.ptr
// CHECK-NEXT: [[V4:%[0-9]+]] = llvm.mlir.addressof @f_par0_backoff : !llvm.ptr
// CHECK-NEXT: [[V5:%[0-9]+]] = llvm.mlir.constant(64) : i64
// CHECK-NEXT: %teams = llvm.call @pipeline_team_size(%num_threads, %n, [[V5]], [[V3]]) : (i64, i64, i64, !llvm.ptr) -> i64
// CHECK-NEXT: [[V6:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[V7:%[0-9]+]] = llvm.icmp "sle" %teams, [[V6]] : i64
// CHECK-NEXT: llvm.cond_br [[V7]], ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: llvm.call @f_par0(%lb, %ub, [[V0]], [[V1]], [[V2]]) : (i64, i64, !llvm.ptr, f32, i1) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: [[V8:%[0-9]+]] = llvm.mlir.constant(6) : i64
// CHECK-NEXT: %ctx = llvm.alloca [[V8]] x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: [[V9:%[0-9]+]] = llvm.getelementptr %ctx[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store %lb, [[V9]] : i64, !llvm.ptr
// CHECK-NEXT: [[V10:%[0-9]+]] = llvm.getelementptr %ctx[2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store %ub, [[V10]] : i64, !llvm.ptr
// CHECK-NEXT: [[V11:%[0-9]+]] = llvm.ptrtoint [[V0]] : !llvm.ptr to i64
// CHECK-NEXT: [[V12:%[0-9]+]] = llvm.getelementptr %ctx[3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store [[V11]], [[V12]] : i64, !llvm.ptr
// CHECK-NEXT: [[V13:%[0-9]+]] = llvm.getelementptr %ctx[8] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: llvm.store [[V1]], [[V13]] : f32, !llvm.ptr
// CHECK-NEXT: [[V14:%[0-9]+]] = llvm.zext [[V2]] : i1 to i64
// CHECK-NEXT: [[V15:%[0-9]+]] = llvm.getelementptr %ctx[5] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store [[V14]], [[V15]] : i64, !llvm.ptr
// CHECK-NEXT: [[V16:%[0-9]+]] = llvm.mlir.addressof @f_par0_task : !llvm.ptr
// CHECK-NEXT: llvm.call @pipeline_run_team([[V16]], %ctx, %teams, [[V3]], [[V4]]) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func @f(%n_1: i64, %x_1: !llvm.ptr, %s_1: f32, %b_1: i1, %threads: i64) {
// CHECK-NEXT: [[V17:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: llvm.call @f_par0_launch(%threads, [[V17]], %n_1, %x_1, %s_1, %b_1) : (i64, i64, i64, !llvm.ptr, f32, i1) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)
// CHECK-NEXT: llvm.func @omp_get_thread_num() -> i32
// CHECK-NEXT: llvm.func @omp_get_num_threads() -> i32
// CHECK-NEXT: llvm.func @omp_get_max_threads() -> i32
// CHECK-NEXT: llvm.func internal @pipeline_team_size(%num_threads_1: i64, %n_2: i64, %min_chunk: i64, %serial_left: !llvm.ptr) -> i64 attributes {codegen.noinline} {
// CHECK-NEXT: [[V18:%[0-9]+]] = llvm.call @omp_get_max_threads() : () -> i32
// CHECK-NEXT: [[V19:%[0-9]+]] = llvm.sext [[V18]] : i32 to i64
// CHECK-NEXT: [[V20:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[V21:%[0-9]+]] = llvm.icmp "sgt" %num_threads_1, [[V20]] : i64
// CHECK-NEXT: [[V22:%[0-9]+]] = llvm.select [[V21]], %num_threads_1, [[V19]] : i1, i64
// CHECK-NEXT: [[V23:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[V24:%[0-9]+]] = llvm.sub %min_chunk, [[V23]] : i64
// CHECK-NEXT: [[V25:%[0-9]+]] = llvm.add %n_2, [[V24]] : i64
// CHECK-NEXT: [[V26:%[0-9]+]] = llvm.sdiv [[V25]], %min_chunk : i64
// CHECK-NEXT: [[V27:%[0-9]+]] = llvm.icmp "slt" [[V22]], [[V26]] : i64
// CHECK-NEXT: %teams_1 = llvm.select [[V27]], [[V22]], [[V26]] : i1, i64
// CHECK-NEXT: [[V28:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[V29:%[0-9]+]] = llvm.icmp "sle" %teams_1, [[V28]] : i64
// CHECK-NEXT: llvm.cond_br [[V29]], ^bb3, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: %left = llvm.load %serial_left : !llvm.ptr -> i64
// CHECK-NEXT: [[V30:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[V31:%[0-9]+]] = llvm.icmp "sgt" %left, [[V30]] : i64
// CHECK-NEXT: llvm.cond_br [[V31]], ^bb2, ^bb4
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: [[V32:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[V33:%[0-9]+]] = llvm.sub %left, [[V32]] : i64
// CHECK-NEXT: llvm.store [[V33]], %serial_left : i64, !llvm.ptr
// CHECK-NEXT: llvm.br ^bb3
// CHECK-NEXT: ^bb3:
// CHECK-NEXT: [[V34:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: llvm.return [[V34]] : i64
// CHECK-NEXT: ^bb4:
// CHECK-NEXT: llvm.return %teams_1 : i64
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func internal @pipeline_run_team(%task: !llvm.ptr, %ctx_1: !llvm.ptr, %teams_2: i64, %serial_left_1: !llvm.ptr, %backoff: !llvm.ptr) attributes {codegen.noinline} {
// CHECK-NEXT: %start = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: [[V35:%[0-9]+]] = llvm.trunc %teams_2 : i64 to i32
// CHECK-NEXT: [[V36:%[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @GOMP_parallel(%task, %ctx_1, [[V35]], [[V36]]) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK-NEXT: [[V37:%[0-9]+]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: %took = llvm.sub [[V37]], %start : i64
// CHECK-NEXT: %master_share = llvm.load %ctx_1 : !llvm.ptr -> i64
// CHECK-NEXT: [[V38:%[0-9]+]] = llvm.mul %master_share, %teams_2 : i64
// CHECK-NEXT: [[V39:%[0-9]+]] = llvm.icmp "sgt" %took, [[V38]] : i64
// CHECK-NEXT: llvm.cond_br [[V39]], ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: [[V40:%[0-9]+]] = llvm.load %backoff : !llvm.ptr -> i64
// CHECK-NEXT: [[V41:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[V42:%[0-9]+]] = llvm.shl [[V40]], [[V41]] : i64
// CHECK-NEXT: [[V43:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: [[V44:%[0-9]+]] = llvm.icmp "sgt" [[V42]], [[V43]] : i64
// CHECK-NEXT: [[V45:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[V46:%[0-9]+]] = llvm.select [[V44]], [[V42]], [[V45]] : i1, i64
// CHECK-NEXT: [[V47:%[0-9]+]] = llvm.mlir.constant(1024) : i64
// CHECK-NEXT: [[V48:%[0-9]+]] = llvm.icmp "slt" [[V46]], [[V47]] : i64
// CHECK-NEXT: [[V49:%[0-9]+]] = llvm.select [[V48]], [[V46]], [[V47]] : i1, i64
// CHECK-NEXT: llvm.store [[V49]], %backoff : i64, !llvm.ptr
// CHECK-NEXT: llvm.store [[V49]], %serial_left_1 : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: [[V50:%[0-9]+]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: llvm.store [[V50]], %backoff : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func internal @pipeline_share(%lb_1: i64, %ub_1: i64, %range: !llvm.ptr) attributes {codegen.noinline} {
// CHECK-NEXT: [[V51:%[0-9]+]] = llvm.call @omp_get_thread_num() : () -> i32
// CHECK-NEXT: [[V52:%[0-9]+]] = llvm.sext [[V51]] : i32 to i64
// CHECK-NEXT: [[V53:%[0-9]+]] = llvm.call @omp_get_num_threads() : () -> i32
// CHECK-NEXT: [[V54:%[0-9]+]] = llvm.sext [[V53]] : i32 to i64
// CHECK-NEXT: [[V55:%[0-9]+]] = llvm.sub %ub_1, %lb_1 : i64
// CHECK-NEXT: [[V56:%[0-9]+]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: [[V57:%[0-9]+]] = llvm.sub [[V54]], [[V56]] : i64
// CHECK-NEXT: [[V58:%[0-9]+]] = llvm.add [[V55]], [[V57]] : i64
// CHECK-NEXT: [[V59:%[0-9]+]] = llvm.sdiv [[V58]], [[V54]] : i64
// CHECK-NEXT: [[V60:%[0-9]+]] = llvm.mul [[V52]], [[V59]] : i64
// CHECK-NEXT: [[V61:%[0-9]+]] = llvm.add %lb_1, [[V60]] : i64
// CHECK-NEXT: [[V62:%[0-9]+]] = llvm.icmp "slt" [[V61]], %ub_1 : i64
// CHECK-NEXT: %lo_1 = llvm.select [[V62]], [[V61]], %ub_1 : i1, i64
// CHECK-NEXT: [[V63:%[0-9]+]] = llvm.add %lo_1, [[V59]] : i64
// CHECK-NEXT: [[V64:%[0-9]+]] = llvm.icmp "slt" [[V63]], %ub_1 : i64
// CHECK-NEXT: %hi_1 = llvm.select [[V64]], [[V63]], %ub_1 : i1, i64
// CHECK-NEXT: llvm.store %lo_1, %range : i64, !llvm.ptr
// CHECK-NEXT: [[V65:%[0-9]+]] = llvm.getelementptr %range[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: llvm.store %hi_1, [[V65]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func internal @pipeline_master_time(%began: i64, %ctx_2: !llvm.ptr) attributes {codegen.noinline} {
// CHECK-NEXT: [[V66:%[0-9]+]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: %elapsed = llvm.sub [[V66]], %began : i64
// CHECK-NEXT: [[V67:%[0-9]+]] = llvm.call @omp_get_thread_num() : () -> i32
// CHECK-NEXT: [[V68:%[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: [[V69:%[0-9]+]] = llvm.icmp "eq" [[V67]], [[V68]] : i32
// CHECK-NEXT: llvm.cond_br [[V69]], ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: llvm.store %elapsed, %ctx_2 : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.mlir.global internal @f_par0_serial_left(0 : i64) {addr_space = 0 : i32} : i64
// CHECK-NEXT: llvm.mlir.global internal @f_par0_backoff(0 : i64) {addr_space = 0 : i32} : i64
// CHECK-NEXT: llvm.func internal @f_par0_task(%ctx_3: !llvm.ptr) {
// CHECK-NEXT: [[V70:%[0-9]+]] = llvm.getelementptr %ctx_3[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %lb_2 = llvm.load [[V70]] : !llvm.ptr -> i64
// CHECK-NEXT: [[V71:%[0-9]+]] = llvm.getelementptr %ctx_3[2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %ub_2 = llvm.load [[V71]] : !llvm.ptr -> i64
// CHECK-NEXT: [[V72:%[0-9]+]] = llvm.getelementptr %ctx_3[3] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: [[V73:%[0-9]+]] = llvm.load [[V72]] : !llvm.ptr -> i64
// CHECK-NEXT: [[V74:%[0-9]+]] = llvm.inttoptr [[V73]] : i64 to !llvm.ptr
// CHECK-NEXT: [[V75:%[0-9]+]] = llvm.getelementptr %ctx_3[8] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: [[V76:%[0-9]+]] = llvm.load [[V75]] : !llvm.ptr -> f32
// CHECK-NEXT: [[V77:%[0-9]+]] = llvm.getelementptr %ctx_3[5] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: [[V78:%[0-9]+]] = llvm.load [[V77]] : !llvm.ptr -> i64
// CHECK-NEXT: [[V79:%[0-9]+]] = llvm.trunc [[V78]] : i64 to i1
// CHECK-NEXT: [[V80:%[0-9]+]] = llvm.mlir.constant(2) : i64
// CHECK-NEXT: %range_1 = llvm.alloca [[V80]] x i64 {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: llvm.call @pipeline_share(%lb_2, %ub_2, %range_1) : (i64, i64, !llvm.ptr) -> ()
// CHECK-NEXT: %lo_2 = llvm.load %range_1 : !llvm.ptr -> i64
// CHECK-NEXT: [[V81:%[0-9]+]] = llvm.getelementptr %range_1[1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT: %hi_2 = llvm.load [[V81]] : !llvm.ptr -> i64
// CHECK-NEXT: [[V82:%[0-9]+]] = llvm.icmp "slt" %lo_2, %hi_2 : i64
// CHECK-NEXT: llvm.cond_br [[V82]], ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: [[V83:%[0-9]+]] = llvm.call_intrinsic "llvm.readcyclecounter"() : () -> i64
// CHECK-NEXT: llvm.call @f_par0(%lo_2, %hi_2, [[V74]], [[V76]], [[V79]]) : (i64, i64, !llvm.ptr, f32, i1) -> ()
// CHECK-NEXT: llvm.call @pipeline_master_time([[V83]], %ctx_3) : (i64, !llvm.ptr) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GONE-LABEL: @f_par0(
// GONE-NOT: codegen.launch
// GONE-NOT: codegen.min_chunk
// GONE-COUNT-1: llvm.func @GOMP_parallel(
// GONE-COUNT-1: llvm.func internal @pipeline_share(
// GONE:       llvm.mlir.global internal @f_par0_serial_left(0 : i64)
// GONE-NEXT:  llvm.mlir.global internal @f_par0_backoff(0 : i64)

// -----

// Two parallel loops: each has its launcher and task, the shared functions exist once.
llvm.func internal @g_par0(%lo: i64, %hi: i64, %x: !llvm.ptr) {
  llvm.return
}
llvm.func internal @g_par1(%lo: i64, %hi: i64, %x: !llvm.ptr) {
  llvm.return
}
llvm.func @g_par0_launch(i64, i64, i64, !llvm.ptr) attributes {codegen.launch = @g_par0, codegen.min_chunk = 1 : i64}
llvm.func @g_par1_launch(i64, i64, i64, !llvm.ptr) attributes {codegen.launch = @g_par1, codegen.min_chunk = 8 : i64}
llvm.func @g(%n: i64, %x: !llvm.ptr, %threads: i64) {
  %0 = llvm.mlir.constant(0) : i64
  llvm.call @g_par0_launch(%threads, %0, %n, %x) : (i64, i64, i64, !llvm.ptr) -> ()
  llvm.call @g_par1_launch(%threads, %0, %n, %x) : (i64, i64, i64, !llvm.ptr) -> ()
  llvm.return
}
// TWO-LABEL: llvm.func internal @g_par0_launch(
// TWO:       llvm.call @pipeline_team_size(
// TWO:       llvm.call @pipeline_run_team(
// TWO-LABEL: llvm.func internal @g_par1_launch(
// TWO:       llvm.call @pipeline_team_size(
// TWO:       llvm.call @pipeline_run_team(
// TWO:       llvm.func internal @pipeline_team_size(
// TWO-NOT:   llvm.func internal @pipeline_team_size(
// TWO:       llvm.func internal @g_par0_task(
// TWO:       llvm.call @pipeline_share(
// TWO:       llvm.call @g_par0(
// TWO:       llvm.call @pipeline_master_time(
// TWO-NOT:   llvm.func internal @pipeline_share(
// TWO:       llvm.func internal @g_par1_task(
// TWO:       llvm.call @pipeline_share(
// TWO:       llvm.call @g_par1(
// TWO-NOT:   llvm.func internal @pipeline_
// TWO:       {{^//}} -----

// -----

// A launcher marked codegen.exported (its caller is in another part of a split
// module, codegen.split_module) is defined with external linkage, the mark gone; its
// task, counters and the shared functions stay internal.
llvm.func internal @h_par0(%lo: i64, %hi: i64, %x: !llvm.ptr) {
  llvm.return
}
llvm.func @h_par0_launch(i64, i64, i64, !llvm.ptr) attributes {codegen.exported, codegen.launch = @h_par0, codegen.min_chunk = 1 : i64}
// EXPORTED:     llvm.func internal @h_par0(
// EXPORTED:     llvm.func @h_par0_launch(%num_threads: i64, %lb: i64, %ub: i64, {{%[0-9]+}}: !llvm.ptr) {
// EXPORTED-NOT: codegen.exported
// EXPORTED:     llvm.func internal @pipeline_team_size(
// EXPORTED:     llvm.mlir.global internal @h_par0_serial_left(
// EXPORTED:     llvm.func internal @h_par0_task(

// -----

// One loop, two launchers (merge-identical-functions keeps both where their chunk sizes
// differ): task and counters are named after the launcher, so each has its own, and
// both tasks run the one loop.
llvm.func internal @k_par0(%lo: i64, %hi: i64, %x: !llvm.ptr) {
  llvm.return
}
llvm.func @k_par0_launch(i64, i64, i64, !llvm.ptr) attributes {codegen.launch = @k_par0, codegen.min_chunk = 1 : i64}
llvm.func @k_par1_launch(i64, i64, i64, !llvm.ptr) attributes {codegen.launch = @k_par0, codegen.min_chunk = 8 : i64}
// SHARED-LABEL: llvm.func internal @k_par0_launch(
// SHARED:       llvm.mlir.addressof @k_par0_serial_left
// SHARED:       llvm.call @k_par0(
// SHARED:       llvm.mlir.addressof @k_par0_task
// SHARED-LABEL: llvm.func internal @k_par1_launch(
// SHARED:       llvm.mlir.addressof @k_par1_serial_left
// SHARED:       llvm.call @k_par0(
// SHARED:       llvm.mlir.addressof @k_par1_task
// SHARED:       llvm.mlir.global internal @k_par0_serial_left(
// SHARED:       llvm.func internal @k_par0_task(
// SHARED:       llvm.call @k_par0(
// SHARED:       llvm.mlir.global internal @k_par1_serial_left(
// SHARED:       llvm.func internal @k_par1_task(
// SHARED:       llvm.call @k_par0(
