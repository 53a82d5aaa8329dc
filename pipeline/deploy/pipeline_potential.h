/* pipeline_potential.h: the model-independent ABI of a potential library exported by
 * pipeline (`Potential.export`), for MD engines that load any model at run time
 * (dlopen + dlsym("pipeline_potential")), such as the LAMMPS pair style `pipeline`.
 *
 * A potential maps atoms (species, positions) and a directed edge list with Cartesian
 * periodic shifts to per-atom energies e_i. The edge (i, j) stands for the vector
 *     r_ij = positions[j] - positions[i] + shifts[edge]
 * and each directed pair within the cutoff is listed once per direction.
 * Of the n_atoms atoms, the first n_local are the ones whose energies count:
 *     energy = sum_{i < n_local} e_i,  forces = -d energy / d positions  (all n_atoms rows),
 *     virial = -d energy / d strain  (3x3, symmetric, row-major: W_ab = -sum_k r_ka dE/dr_kb),
 * where the strain acts on positions and shifts alike. An engine that keeps ghost atoms
 * (images of atoms owned elsewhere) puts its own atoms first, passes n_local = its count,
 * zero shifts, and sends the ghosts' forces home; a plain call has n_local = n_atoms.
 * Stress (ASE sign) is -virial / volume; LAMMPS' virial is this virial.
 */
#ifndef PIPELINE_POTENTIAL_H
#define PIPELINE_POTENTIAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PIPELINE_POTENTIAL_ABI_VERSION 1

/* Compute everything for one configuration. `real` below is float when real_size == 4,
 * double when 8. Shapes: species (n_atoms,) int64 in [0, num_species); positions
 * (n_atoms, 3) real; edge_index (2, n_edges) int64, row 0 the centers i, row 1 the
 * neighbors j; shifts (n_edges, 3) real. Written: energy (1,), energies (n_atoms,),
 * forces (n_atoms, 3), virial (3, 3), all real. `workspace` is NULL (the call allocates
 * its temporaries and frees them) or a 64-byte aligned block of at least the bytes
 * `workspace_bytes` gives for these sizes, which an MD engine keeps across steps so no
 * step touches fresh pages. Returns 0 (PIPELINE_OK) or a PIPELINE_ERROR_* status with an
 * explanation in `message` (NUL-terminated, at most message_size bytes; "" on success).
 * Reentrant: no global mutable state (one workspace serves one call at a time). */
typedef int (*pipeline_potential_compute_fn)(
    int64_t n_atoms, int64_t n_edges, int64_t n_local, const int64_t *species,
    const void *positions, const int64_t *edge_index, const void *shifts, void *energy,
    void *energies, void *forces, void *virial, void *workspace, int64_t workspace_bytes,
    char *message, size_t message_size);

/* The bytes of workspace a compute call at these sizes needs, into *bytes. */
typedef int (*pipeline_potential_workspace_fn)(int64_t n_atoms, int64_t n_edges, int64_t *bytes,
                                               char *message, size_t message_size);

struct pipeline_potential {
  int abi_version;            /* PIPELINE_POTENTIAL_ABI_VERSION */
  const char *name;           /* the library's name */
  int real_size;              /* 4: float, 8: double */
  double cutoff;              /* edges are the pairs closer than this (length units of the model) */
  int layers;                 /* message-passing layers: an atom's energy depends on atoms
                                 up to layers * cutoff away (1 for a strictly local model) */
  int num_species;
  const char *const *species; /* species names (e.g. chemical symbols), by species index */
  pipeline_potential_compute_fn compute;
  pipeline_potential_workspace_fn workspace_bytes;
};

/* Every potential library exports this one symbol. */
const struct pipeline_potential *pipeline_potential(void);

#ifdef __cplusplus
}
#endif

#endif /* PIPELINE_POTENTIAL_H */
