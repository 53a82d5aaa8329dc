/* deploy.c: energy and forces of an exported model, from plain C, linked against its library.
 *
 * Reads a system file (see README.md: "N E", then N lines "x y z species", then E lines
 * "i j" of the neighbor list), calls the model and prints
 *
 *     energy <E>
 *     forces <N>
 *     <fx> <fy> <fz>        (N lines)
 *
 * Build, for a library exported as build/lennard_jones.so with build/lennard_jones.h:
 *
 *     gcc -std=c11 -O2 -Wall -Ibuild -DMODEL=lennard_jones examples/deploy/deploy.c \
 *         build/lennard_jones.so -Wl,-rpath,"$PWD/build" -o deploy
 *     ./deploy system.txt
 *
 * MODEL is the library name given to the exporter: every symbol of the header starts with
 * it, so M(run) below is lennard_jones_run. A program for one model would write the names
 * out; the macros let this one file serve every model of examples/.
 * Exit status: 0, a PIPELINE_ERROR_* code from the library, or 10 for a bad input file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MODEL
#define MODEL lennard_jones
#endif
#define PASTE_(a, b) a##_##b
#define PASTE(a, b) PASTE_(a, b)
#define M(x) PASTE(MODEL, x)
#define STR_(x) #x
#define STR(x) STR_(x)
#include STR(MODEL.h)

/* The protocol of examples/: inputs pos (N, 3), edge_index (2, E) and, for some models,
 * species (N,); outputs energy () and forces (N, 3). */
_Static_assert(M(num_outputs) == 2 && M(num_output_dims) == 2, "outputs: energy (), forces (N, 3)");
typedef M(pos_t) real; /* float or double, as the model was compiled */

static void *alloc(int64_t count, size_t size) {
  void *p = calloc(count > 0 ? (size_t)count : 1, size);
  if (p == NULL) {
    perror("calloc");
    exit(10);
  }
  return p;
}

static int bad_input(const char *path, const char *what) {
  fprintf(stderr, "%s: cannot read %s\n", path, what);
  return 10;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SYSTEM.txt\n", argv[0]);
    return 10;
  }
  FILE *in = fopen(argv[1], "r");
  if (in == NULL) {
    perror(argv[1]);
    return 10;
  }
  int64_t n, e;
  if (fscanf(in, "%" SCNd64 " %" SCNd64, &n, &e) != 2 || n < 0 || e < 0)
    return bad_input(argv[1], "the first line, \"N E\"");
  real *pos = alloc(3 * n, sizeof *pos);
  int64_t *species = alloc(n, sizeof *species);
  int64_t *edge_index = alloc(2 * e, sizeof *edge_index); /* row 0: centers, row 1: neighbors */
  for (int64_t i = 0; i < n; i++) {
    double x, y, z;
    if (fscanf(in, "%lf %lf %lf %" SCNd64, &x, &y, &z, &species[i]) != 4)
      return bad_input(argv[1], "an atom line, \"x y z species\"");
    pos[3 * i] = (real)x;
    pos[3 * i + 1] = (real)y;
    pos[3 * i + 2] = (real)z;
  }
  for (int64_t k = 0; k < e; k++)
    if (fscanf(in, "%" SCNd64 " %" SCNd64, &edge_index[k], &edge_index[e + k]) != 2)
      return bad_input(argv[1], "an edge line, \"i j\"");
  fclose(in);

  int64_t sizes[M(num_sizes)];
  sizes[M(size_N)] = n;
  sizes[M(size_E)] = e;
  char message[512];
  int64_t shapes[M(num_output_dims)]; /* energy is 0-d: shapes = forces' (N, 3) */
  int status = M(output_shapes)(sizes, shapes, message, sizeof message);
  if (status != PIPELINE_OK) {
    fprintf(stderr, "error %d: %s\n", status, message);
    return status;
  }
  M(out0_t) energy;
  M(out1_t) *forces = alloc(shapes[0] * shapes[1], sizeof *forces);
  status = M(run)(sizes, pos, edge_index,
#if M(num_inputs) == 3
                  species,
#endif
                  &energy, forces, message, sizeof message);
  if (status != PIPELINE_OK) {
    fprintf(stderr, "error %d: %s\n", status, message);
  } else {
    printf("energy %.17g\nforces %" PRId64 "\n", (double)energy, shapes[0]);
    for (int64_t i = 0; i < shapes[0]; i++)
      printf("%.17g %.17g %.17g\n", (double)forces[3 * i], (double)forces[3 * i + 1], (double)forces[3 * i + 2]);
  }
  free(forces);
  free(edge_index);
  free(species);
  free(pos);
  return status;
}
