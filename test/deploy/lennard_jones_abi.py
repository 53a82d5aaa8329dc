# The exported C ABI of the Lennard-Jones example, pinned in the kernel's LLVM IR (the
# IR the JIT runs and the library is built from), the header, the manifest and the
# library's dynamic symbols. One compile: --dump-dir keeps the LLVM IR beside the library.
# REQUIRES: cc, nm
# RUN: rm -rf %t && %pipeline compile %examples/lennard_jones.py --emit so -o %t --dump-dir %t/dump
# RUN: cat %t/dump/*-module.ll | filecheck %s --check-prefix=LL
# RUN: cat %t/*.h | filecheck %s --check-prefix=H
# RUN: cat %t/*.json | filecheck %s --check-prefix=JSON
# RUN: nm -D --defined-only %t/*.so | filecheck %s --check-prefix=SYM

# The kernel: sizes, inputs, weights, outputs, status, thread count, workspace arenas,
# in that order; and the function that sizes the arenas.
# LL: define void @"[[FN:[a-z_]+]]"(i64 %"N", i64 %"E", ptr noalias %"pos", ptr noalias %"edge_index",
# LL-SAME: ptr noalias %"w_{{[^"]+}}", ptr noalias %"w_{{[^"]+}}",
# LL-SAME: ptr noalias %"out0", ptr noalias %"out1", ptr noalias %"status", i64 %"num_threads"{{(, ptr noalias %"arena_[a-z0-9]+")*}})
# LL: define void @"[[FN]]_arena_sizes"(i64 %"N", i64 %"E", ptr noalias %"sizes")

# H: #ifndef [[GUARD:[A-Z_]+]]_H
# H: #ifdef __cplusplus
# H-NEXT: extern "C" {
# H: enum pipeline_status {
# H-NEXT:   PIPELINE_OK = 0,
# H-NEXT:   PIPELINE_ERROR_NULL = 1,
# H-NEXT:   PIPELINE_ERROR_SIZE = 2,
# H-NEXT:   PIPELINE_ERROR_INDEX = 3,
# H-NEXT:   PIPELINE_ERROR_MEMORY = 4,
# H-NEXT:   PIPELINE_ERROR_ASSERT = 5
# H-NEXT: };
# H: #define [[LIB:[a-z_]+]]_num_sizes 2
# H-NEXT: #define [[LIB]]_size_N 0  /* N in [1, inf]: pos dim 0 */
# H-NEXT: #define [[LIB]]_size_E 1  /* E in [0, inf]: edge_index dim 1 */
# H-NEXT: #define [[LIB]]_num_inputs 2
# H-NEXT: #define [[LIB]]_num_outputs 2
# H-NEXT: #define [[LIB]]_num_output_dims 2
# H: typedef float [[LIB]]_pos_t;
# H-NEXT: typedef int64_t [[LIB]]_edge_index_t;
# H-NEXT: typedef float [[LIB]]_out0_t;
# H-NEXT: typedef float [[LIB]]_out1_t;
# H: shapes[0] = out1 dim 0 (N); shapes[1] = out1 dim 1 (3).
# H: int [[LIB]]_output_shapes(const int64_t *sizes, int64_t *shapes, char *message, size_t message_size);
# H: int [[LIB]]_run(const int64_t *sizes,
# H-NEXT: {{ +}}const float *pos,
# H-NEXT: {{ +}}const int64_t *edge_index,
# H-NEXT: {{ +}}float *out0,
# H-NEXT: {{ +}}float *out1,
# H-NEXT: {{ +}}char *message,
# H-NEXT: {{ +}}size_t message_size);
# The same with the caller's workspace, and the bytes it needs:
# H: int [[LIB]]_workspace_bytes(const int64_t *sizes, int64_t *bytes, char *message, size_t message_size);
# H-NEXT: int [[LIB]]_run_with_workspace(const int64_t *sizes,
# H-NEXT: {{ +}}const float *pos,
# H-NEXT: {{ +}}const int64_t *edge_index,
# H-NEXT: {{ +}}float *out0,
# H-NEXT: {{ +}}float *out1,
# H-NEXT: {{ +}}void *workspace,
# H-NEXT: {{ +}}int64_t workspace_bytes,
# H-NEXT: {{ +}}char *message,
# H-NEXT: {{ +}}size_t message_size);
# H-NOT: pipeline_potential
# H: #endif /* [[GUARD]]_H */

# JSON: "run": "int {{[a-z_]+}}_run(const int64_t *sizes, const float *pos, const int64_t *edge_index, float *out0, float *out1, char *message, size_t message_size)"
# JSON: "inputs": [
# JSON: "dims": [
# JSON-NEXT: "N",
# JSON-NEXT: 3
# JSON: "compiler": {
# JSON-NEXT: "name": "pipeline",
# JSON-NEXT: "version": "{{[0-9.]+}}",
# JSON: "passes": [

# Only the four functions are exported: the kernel and the weights stay inside.
# SYM-NOT: kernel
# SYM: T {{[a-z_]+}}_output_shapes
# SYM-NEXT: T {{[a-z_]+}}_run
# SYM-NEXT: T {{[a-z_]+}}_run_with_workspace
# SYM-NEXT: T {{[a-z_]+}}_workspace_bytes
# SYM-NOT: {{.}}
