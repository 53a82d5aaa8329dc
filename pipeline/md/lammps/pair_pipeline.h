/* pair_pipeline.h: LAMMPS pair style `pipeline`, which runs a potential library exported
 * by pipeline (`Potential.export`: MODEL.so with the C ABI of pipeline_potential.h).
 *
 *     plugin load    DIR/pipelineplugin.so      (built by `python -m pipeline lammps-plugin -o DIR`)
 *     newton         on                         (the default)
 *     pair_style     pipeline
 *     pair_coeff     * * MODEL.so Sp1 Sp2 ...   (the model's species name of each atom type)
 *
 * MODEL.json, the manifest pipeline writes beside MODEL.so, must be there too: before
 * dlopen, the library's size and SHA-256 are checked against its `library_bytes` and
 * `library_sha256`, so a truncated or damaged copy stops LAMMPS with an ERROR instead of
 * killing it inside dlopen.
 *
 * How it maps LAMMPS onto the ABI (as pair_nequip_allegro does for Allegro):
 * - the nodes are this rank's atoms followed by its ghost atoms, each ghost at its periodic
 *   image's coordinates, so every image is a node of its own and all edge shifts are zero;
 * - the edges are every directed pair closer than the model's cutoff, taken from a full
 *   neighbor list that also covers the ghosts (a ghost's energy does not count, but an
 *   edge centred on a ghost can carry a message to one of our atoms);
 * - n_local = atom->nlocal, so the energy is the sum over our atoms only, the forces on
 *   ghosts go home through LAMMPS' reverse communication (hence newton pair on), and the
 *   global virial is summed over ranks.
 *
 * Message passing: with L = layers > 1, an atom's energy depends on atoms up to L * cutoff
 * away, and every atom within (L - 1) * cutoff of ours needs all its own neighbors. The
 * ghost shell must therefore be L * cutoff deep (plus the neighbor skin, since ghosts are
 * only refreshed on reneighboring): init_style raises `comm_modify cutoff` to that when it
 * is smaller (and logs it), while the neighbor lists keep the one-layer cutoff. This needs
 * `comm_modify mode single` (the default).
 *
 * Units are the model's: LAMMPS passes its own lengths and takes energies and forces as
 * they come, so a model in eV and Angstrom needs `units metal`.
 *
 * Not supported: per-atom virial (compute stress/atom), pair_coeff other than `* *`, and
 * restart files keep no model (pair_coeff is needed again). pair_style hybrid is untested.
 */
#ifndef LMP_PAIR_PIPELINE_H
#define LMP_PAIR_PIPELINE_H

#include "pair.h"

#include "pipeline_potential.h"

#include <cstdint>
#include <string>
#include <vector>

namespace LAMMPS_NS {

class PairPipeline : public Pair {
 public:
  PairPipeline(class LAMMPS *);
  ~PairPipeline() override;

  void compute(int, int) override;
  void settings(int, char **) override;
  void coeff(int, char **) override;
  void init_style() override;
  double init_one(int, int) override;

 protected:
  /* Buffers in the model's real type, kept across steps so a step does not allocate. */
  template <typename Real> struct Buffers {
    std::vector<Real> positions, shifts, energies, forces;
    Real energy[1];
    Real virial[9];
  };

  void allocate();
  void close_library();
  std::string check_manifest();
  void stop_unless_all_agree(const std::string &problem);
  void build_graph();
  int reserve_workspace(int64_t n_atoms, int64_t n_edges);
  template <typename Real> void evaluate(Buffers<Real> &buffers);

  void *library = nullptr;                        // dlopen handle of MODEL.so
  const struct pipeline_potential *model = nullptr;
  std::string library_path;
  std::vector<int64_t> type_species;              // LAMMPS type (1-based) -> species index

  std::vector<int64_t> species, edge_index, neighbors;
  std::vector<double> origin;                     // subtracted from positions (float models)
  Buffers<double> buffers64;
  Buffers<float> buffers32;
  std::vector<char> message;
  void *workspace = nullptr;                      // the model's temporaries (64-byte aligned)
  int64_t workspace_size = 0;
};

}    // namespace LAMMPS_NS

#endif
