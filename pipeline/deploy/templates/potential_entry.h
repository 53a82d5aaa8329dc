/* A potential (pipeline_potential.h): the function above is
 * ${function}(species, positions, edge_index, shifts, n_local) -> (energy,
 * energies, forces, virial); `pipeline_potential()` returns its description
 * (cutoff ${cutoff}, ${layers} layer(s), species ${species})
 * and an entry point taking n_atoms, n_edges and n_local instead of `sizes`. */
#include "pipeline_potential.h"
