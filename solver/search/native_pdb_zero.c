/* The instances of pdb_walk for zero-aware twins and the bounded-suboptimal searches (native_walk.h lists them). */

#include "native_walk.h"

PDB_ZERO(PDB_DEFINE)
