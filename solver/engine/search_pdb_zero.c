/* The instances of pdb_walk for zero-aware twins and the bounded-suboptimal searches (search_walk.h lists them). */

#include "search_walk.h"

PDB_ZERO(PDB_DEFINE)
