/* pair_pipeline.cpp: LAMMPS pair style `pipeline` (see pair_pipeline.h for the input
 * commands and for how local atoms, ghosts and message-passing layers are handled). */

#include "pair_pipeline.h"

#include "atom.h"
#include "comm.h"
#include "error.h"
#include "force.h"
#include "json.h"
#include "memory.h"
#include "neigh_list.h"
#include "neighbor.h"
#include "platform.h"
#include "utils.h"

#include "sha256.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>

using namespace LAMMPS_NS;

PairPipeline::PairPipeline(LAMMPS *lmp) : Pair(lmp)
{
  single_enable = 0;    // no pairwise decomposition of a many-body model
  restartinfo = 0;      // the model lives in MODEL.so: pair_coeff names it again
  one_coeff = 1;        // only `pair_coeff * * ...`
  manybody_flag = 1;
  ghostneigh = 1;       // neighbor lists for ghost atoms too (edges centred on ghosts)
  // The model returns the virial itself; sum(r f) over the nodes would also work, but
  // the model's is exact for models whose energy is not a sum of pair terms.
  no_virial_fdotr_compute = 1;
  message.resize(4096);
}

PairPipeline::~PairPipeline()
{
  if (copymode) return;
  if (allocated) {
    memory->destroy(setflag);
    memory->destroy(cutsq);
    memory->destroy(cutghost);
  }
  close_library();
}

void PairPipeline::allocate()
{
  allocated = 1;
  const int n = atom->ntypes + 1;
  memory->create(setflag, n, n, "pair:setflag");
  memory->create(cutsq, n, n, "pair:cutsq");
  memory->create(cutghost, n, n, "pair:cutghost");
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) setflag[i][j] = 0;
}

void PairPipeline::close_library()
{
  std::free(workspace);
  workspace = nullptr;
  workspace_size = 0;
  model = nullptr;
  if (library) dlclose(library);
  library = nullptr;
}

/* The manifest pipeline writes beside MODEL.so (MODEL.json) gives the library's size and
   SHA-256; "" when the file matches them, else what is wrong. */
std::string PairPipeline::check_manifest()
{
  const size_t slash = library_path.rfind('/');
  const size_t dot = library_path.rfind('.');
  const std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash)
      ? library_path.substr(0, dot)
      : library_path;
  const std::string manifest_path = stem + ".json";
  if (!platform::file_is_readable(manifest_path))
    return fmt::format("pair_style pipeline: the potential library {} has no manifest {} beside "
                       "it: the library is loaded only after its size and SHA-256 are checked "
                       "against the manifest pipeline writes with it; export the model with "
                       "pipeline (Potential.export writes NAME.so and NAME.json) and keep both "
                       "together",
                       library_path, manifest_path);

  int64_t expected_bytes = -1;
  std::string expected_sha256;
  try {
    std::ifstream in(manifest_path);
    const json manifest = json::parse(in);
    if (manifest.is_object() && manifest.contains("library_bytes") &&
        manifest["library_bytes"].is_number_unsigned())
      expected_bytes = manifest["library_bytes"].get<int64_t>();
    if (manifest.is_object() && manifest.contains("library_sha256") &&
        manifest["library_sha256"].is_string())
      expected_sha256 = utils::lowercase(manifest["library_sha256"].get<std::string>());
  } catch (const std::exception &e) {
    return fmt::format("pair_style pipeline: the manifest {} of the potential library {} is not "
                       "valid JSON ({}): it is damaged; copy it again with the library, or "
                       "re-export the model",
                       manifest_path, library_path, e.what());
  }
  if (expected_bytes < 0 || expected_sha256.size() != 64)
    return fmt::format("pair_style pipeline: the manifest {} of the potential library {} gives no "
                       "library_bytes and library_sha256 (a manifest from an older pipeline, or "
                       "not pipeline's): re-export the model with pipeline",
                       manifest_path, library_path);

  std::ifstream in(library_path, std::ios::binary);
  pipeline_lammps::Sha256 sha256;
  std::vector<char> chunk(1 << 16);
  int64_t bytes = 0;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    sha256.update(chunk.data(), static_cast<size_t>(in.gcount()));
    bytes += in.gcount();
  }
  if (in.bad())
    return fmt::format("pair_style pipeline: cannot read the potential library {}", library_path);
  if (bytes != expected_bytes)
    return fmt::format("pair_style pipeline: the potential library {} has {} bytes, its manifest "
                       "{} says {}: the library is truncated or was changed after export (or the "
                       "manifest is another library's); copy it again or re-export the model",
                       library_path, bytes, manifest_path, expected_bytes);
  if (sha256.hexdigest() != expected_sha256)
    return fmt::format("pair_style pipeline: the potential library {} does not match the SHA-256 "
                       "in its manifest {}: the library is damaged or was replaced (or the "
                       "manifest is another library's); copy it again or re-export the model",
                       library_path, manifest_path);
  return "";
}

/* Every rank checks its own view of the files; if any rank found a problem, all ranks stop
   with the message of the lowest such rank: one ERROR line and exit code 1 (error->all on
   every rank), where error->all on some ranks only would hang and error->one would
   MPI_Abort. */
void PairPipeline::stop_unless_all_agree(const std::string &problem)
{
  const int mine = problem.empty() ? comm->nprocs : comm->me;
  int first = comm->nprocs;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world);
  if (first == comm->nprocs) return;
  int length = static_cast<int>(problem.size());
  MPI_Bcast(&length, 1, MPI_INT, first, world);
  std::string text = problem;
  text.resize(length);
  MPI_Bcast(text.data(), length, MPI_CHAR, first, world);
  close_library();
  error->all(FLERR, text);
}

void PairPipeline::settings(int narg, char ** /*arg*/)
{
  if (narg != 0)
    error->all(FLERR, "pair_style pipeline takes no arguments: the model is named by "
                      "`pair_coeff * * MODEL.so Sp1 Sp2 ...`");
}

/* pair_coeff * * MODEL.so Sp1 ... SpN: load the library, check it, map types to species. */
void PairPipeline::coeff(int narg, char **arg)
{
  if (!allocated) allocate();
  const int ntypes = atom->ntypes;
  if (narg < 3 || strcmp(arg[0], "*") != 0 || strcmp(arg[1], "*") != 0)
    error->all(FLERR,
               "pair_style pipeline: pair_coeff must be `pair_coeff * * MODEL.so Sp1 ... Sp{}` "
               "(one species name per atom type)",
               ntypes);
  if (narg != 3 + ntypes)
    error->all(FLERR,
               "pair_style pipeline: pair_coeff * * {} needs one species name per atom type: "
               "{} atom types, {} names given",
               arg[2], ntypes, narg - 3);

  close_library();
  for (int i = 0; i <= ntypes; i++)
    for (int j = 0; j <= ntypes; j++) setflag[i][j] = 0;
  library_path = arg[2];

  // Say "missing" plainly rather than through dlopen's wording. dlopen maps the file and
  // runs its relocations: a truncated or damaged library would kill LAMMPS (SIGBUS,
  // SIGSEGV) there, so its size and SHA-256 are checked against its manifest first. Each
  // rank checks (and loads) its own view of the file, which on node-local copies may
  // differ; stop_unless_all_agree turns a problem on any rank into one ERROR on all.
  std::string problem;
  if (!platform::file_is_readable(library_path))
    problem = fmt::format("pair_style pipeline: cannot read the potential library {}: no such file",
                          library_path);
  if (problem.empty()) problem = check_manifest();
  if (problem.empty()) {
    // A path with a slash, or dlopen would search the library path, not the working directory.
    const std::string path =
        library_path.find('/') == std::string::npos ? "./" + library_path : library_path;
    dlerror();
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      problem = fmt::format("pair_style pipeline: cannot load the potential library {}: {}",
                            library_path, why ? why : "dlopen failed");
    }
  }
  stop_unless_all_agree(problem);
  using entry_fn = const struct pipeline_potential *(*)(void);
  auto entry = reinterpret_cast<entry_fn>(dlsym(library, "pipeline_potential"));
  if (!entry) {
    close_library();
    error->all(FLERR,
               "pair_style pipeline: {} is not a pipeline potential library (it has no symbol "
               "`pipeline_potential`; write one with pipeline's Potential.export)",
               library_path);
  }
  const struct pipeline_potential *candidate = entry();
  if (!candidate) {
    close_library();
    error->all(FLERR, "pair_style pipeline: pipeline_potential() of {} returned NULL",
               library_path);
  }
  if (candidate->abi_version != PIPELINE_POTENTIAL_ABI_VERSION) {
    const int version = candidate->abi_version;
    close_library();
    error->all(FLERR,
               "pair_style pipeline: {} has ABI version {}, this plugin reads version {}: "
               "rebuild the plugin (python -m pipeline lammps-plugin) or re-export the model",
               library_path, version, PIPELINE_POTENTIAL_ABI_VERSION);
  }
  if ((candidate->real_size != 4 && candidate->real_size != 8) || !candidate->compute ||
      !(candidate->cutoff > 0.0) || candidate->layers < 1 || candidate->num_species < 1 ||
      !candidate->species) {
    close_library();
    error->all(FLERR,
               "pair_style pipeline: {} describes itself inconsistently (real_size, cutoff, "
               "layers, species or compute missing or out of range)",
               library_path);
  }

  std::string known;
  for (int s = 0; s < candidate->num_species; s++)
    known += std::string(s ? " " : "") + candidate->species[s];
  type_species.assign(ntypes + 1, -1);
  for (int t = 1; t <= ntypes; t++) {
    const char *name = arg[2 + t];
    for (int s = 0; s < candidate->num_species; s++)
      if (strcmp(name, candidate->species[s]) == 0) type_species[t] = s;
    if (type_species[t] < 0) {
      close_library();
      error->all(FLERR,
                 "pair_style pipeline: species {} (atom type {}) is not a species of {}; "
                 "its species are: {}",
                 name, t, library_path, known);
    }
  }
  model = candidate;
  for (int i = 1; i <= ntypes; i++)
    for (int j = i; j <= ntypes; j++) setflag[i][j] = 1;

  if (comm->me == 0) {
    std::string mapping;
    for (int t = 1; t <= ntypes; t++)
      mapping += fmt::format(" {}->{}", t, model->species[type_species[t]]);
    utils::logmesg(lmp,
                   "pair_style pipeline: {} (model {}, float{}, cutoff {}, {} layer(s), species "
                   "{}); atom types:{}\n",
                   library_path, model->name ? model->name : "?", 8 * model->real_size,
                   model->cutoff, model->layers, known, mapping);
  }
}

void PairPipeline::init_style()
{
  if (!model)
    error->all(FLERR, "pair_style pipeline: no model loaded: `pair_coeff * * MODEL.so Sp1 ...` "
                      "must come before the run");
  if (force->newton_pair == 0)
    error->all(FLERR, "pair_style pipeline requires newton pair on: forces on ghost atoms are "
                      "sent to their owners");
  neighbor->add_request(this, NeighConst::REQ_FULL | NeighConst::REQ_GHOST);

  // A message-passing model sees layers * cutoff deep into the ghosts; the skin covers the
  // motion between reneighborings, when the ghosts are chosen anew.
  if (model->layers > 1) {
    const double shell = model->layers * model->cutoff + neighbor->skin;
    if (comm->mode != Comm::SINGLE)
      error->all(FLERR,
                 "pair_style pipeline: a model with {} message-passing layers needs a ghost "
                 "shell of {} (layers * cutoff + skin); use comm_modify mode single",
                 model->layers, shell);
    if (comm->cutghostuser < shell) {
      comm->cutghostuser = shell;
      if (comm->me == 0)
        utils::logmesg(lmp,
                       "pair_style pipeline: {} message-passing layers: ghost cutoff set to "
                       "{} * {} + skin {} = {}\n",
                       model->layers, model->layers, model->cutoff, neighbor->skin, shell);
    }
  }
}

double PairPipeline::init_one(int i, int j)
{
  if (!model || setflag[i][j] == 0)
    error->all(FLERR, "pair_style pipeline: pair_coeff * * MODEL.so Sp1 ... has not been given");
  // Neighbors (of ghosts too) within one cutoff: deeper layers come from the ghost shell.
  cutghost[i][j] = cutghost[j][i] = model->cutoff;
  return model->cutoff;
}

/* Nodes: every local and ghost atom. Edges: every directed pair closer than the cutoff
 * (strictly), the centres i in edge_index[0:E] and the neighbors j in edge_index[E:2E]. */
void PairPipeline::build_graph()
{
  const int nall = atom->nlocal + atom->nghost;
  const int *type = atom->type;
  species.resize(nall);
  for (int i = 0; i < nall; i++) species[i] = type_species[type[i]];

  double **x = atom->x;
  const double cutoff_squared = model->cutoff * model->cutoff;
  const int ncentres = list->inum + list->gnum;
  edge_index.clear();
  neighbors.clear();
  for (int ii = 0; ii < ncentres; ii++) {
    const int i = list->ilist[ii];
    const int *jlist = list->firstneigh[i];
    const int jnum = list->numneigh[i];
    for (int jj = 0; jj < jnum; jj++) {
      const int j = jlist[jj] & NEIGHMASK;
      const double dx = x[j][0] - x[i][0];
      const double dy = x[j][1] - x[i][1];
      const double dz = x[j][2] - x[i][2];
      if (dx * dx + dy * dy + dz * dz < cutoff_squared) {
        edge_index.push_back(i);
        neighbors.push_back(j);
      }
    }
  }
  edge_index.insert(edge_index.end(), neighbors.begin(), neighbors.end());

  // A float model computes r_ij = pos[j] - pos[i] in float: positions far from 0 would
  // lose digits. The model is translation invariant (and its virial too, the forces
  // summing to zero), so a float model gets positions relative to the middle of our atoms.
  origin.assign(3, 0.0);
  if (model->real_size == 4 && atom->nlocal > 0) {
    for (int k = 0; k < 3; k++) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (int i = 0; i < atom->nlocal; i++) {
        lo = std::min(lo, x[i][k]);
        hi = std::max(hi, x[i][k]);
      }
      origin[k] = 0.5 * (lo + hi);
    }
  }
}

/* The model's temporaries live in one block kept across steps, grown with a quarter of
   headroom: a block allocated per call would touch fresh pages every step (for a
   message-passing model with its deep ghost shell, hundreds of MB). */
int PairPipeline::reserve_workspace(int64_t n_atoms, int64_t n_edges)
{
  int64_t need = 0;
  const int status = model->workspace_bytes(n_atoms, n_edges, &need, message.data(), message.size());
  if (status != 0 || need <= workspace_size) return status;
  std::free(workspace);
  const int64_t size = (need + need / 4 + 63) / 64 * 64;
  workspace = std::aligned_alloc(64, static_cast<size_t>(size));
  workspace_size = workspace ? size : 0;
  if (!workspace)
    error->one(FLERR, "pair_style pipeline: cannot allocate {} bytes of workspace for {} atoms and {} edges",
               size, n_atoms, n_edges);
  return 0;
}

template <typename Real> void PairPipeline::evaluate(Buffers<Real> &b)
{
  const int nlocal = atom->nlocal;
  const int nall = nlocal + atom->nghost;
  const int64_t n_edges = static_cast<int64_t>(edge_index.size() / 2);
  double **x = atom->x;

  b.positions.resize(3 * static_cast<size_t>(nall));
  for (int i = 0; i < nall; i++)
    for (int k = 0; k < 3; k++) b.positions[3 * i + k] = static_cast<Real>(x[i][k] - origin[k]);
  b.shifts.resize(3 * static_cast<size_t>(n_edges), Real(0));    // never written: stays zero
  b.energies.resize(nall);
  b.forces.resize(3 * static_cast<size_t>(nall));

  message[0] = '\0';
  int status = reserve_workspace(nall, n_edges);
  if (status == 0)
    status = model->compute(nall, n_edges, nlocal, species.data(), b.positions.data(),
                            edge_index.data(), b.shifts.data(), b.energy, b.energies.data(),
                            b.forces.data(), b.virial, workspace, workspace_size, message.data(),
                            message.size());
  if (status != 0) {
    message.back() = '\0';
    error->one(FLERR,
               "pair_style pipeline: {} failed with status {} on {} atoms ({} local) and {} "
               "edges: {}",
               library_path, status, nall, nlocal, n_edges, message.data());
  }

  double **f = atom->f;
  for (int i = 0; i < nall; i++)
    for (int k = 0; k < 3; k++) f[i][k] += b.forces[3 * i + k];
  if (eflag_global) eng_vdwl += b.energy[0];
  if (eflag_atom)
    for (int i = 0; i < nlocal; i++) eatom[i] += b.energies[i];
  if (vflag_global) {    // LAMMPS' order: xx yy zz xy xz yz
    virial[0] += b.virial[0];
    virial[1] += b.virial[4];
    virial[2] += b.virial[8];
    virial[3] += b.virial[1];
    virial[4] += b.virial[2];
    virial[5] += b.virial[5];
  }
}

void PairPipeline::compute(int eflag, int vflag)
{
  ev_init(eflag, vflag);
  if (vflag_atom || cvflag_atom)
    error->all(FLERR, "pair_style pipeline: per-atom virial not supported (it is asked for by "
                      "compute stress/atom or centroid/stress/atom)");
  // A rank without atoms of its own has no energy, so no force on its ghosts either.
  if (atom->nlocal == 0) return;

  build_graph();
  if (model->real_size == 8)
    evaluate(buffers64);
  else
    evaluate(buffers32);
}
