/* The instances of pdb_walk for plain tables (native_walk.h lists them). */

#include "native_walk.h"

PDB_PLAIN(PDB_DEFINE)
