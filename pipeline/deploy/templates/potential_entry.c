/* The potential's entry point (pipeline_potential.h). */
static const char *const species_names[${num_species}] = {${species}};

static int compute(int64_t n_atoms, int64_t n_edges, int64_t n_local, const int64_t *species,
                   const void *positions, const int64_t *edge_index, const void *shifts,
                   void *energy, void *energies, void *forces, void *virial, void *workspace,
                   int64_t workspace_bytes, char *message, size_t message_size) {
  if (n_local < 0 || n_local > n_atoms)
    return report(message, message_size, PIPELINE_ERROR_SIZE,
                  "${lib}: n_local = %" PRId64 " is outside [0, n_atoms = %" PRId64 "]",
                  n_local, n_atoms);
  int64_t sizes[${lib}_num_sizes];
  sizes[${size_atoms}] = n_atoms;
  sizes[${size_edges}] = n_edges;
  return ${lib}_run_with_workspace(
      sizes, ${arguments},
      (${real} *)energy, (${real} *)energies, (${real} *)forces, (${real} *)virial, workspace,
      workspace_bytes, message, message_size);
}

static int workspace_bytes(int64_t n_atoms, int64_t n_edges, int64_t *bytes, char *message,
                           size_t message_size) {
  int64_t sizes[${lib}_num_sizes];
  sizes[${size_atoms}] = n_atoms;
  sizes[${size_edges}] = n_edges;
  return ${lib}_workspace_bytes(sizes, bytes, message, message_size);
}

static const struct pipeline_potential description = {
  PIPELINE_POTENTIAL_ABI_VERSION,
  "${lib}",
  sizeof(${real}),
  ${cutoff},  /* the cutoff */
  ${layers},  /* message-passing layers */
  ${num_species},
  species_names,
  compute,
  workspace_bytes,
};

API const struct pipeline_potential *pipeline_potential(void) { return &description; }
