/* The instances of pdb_walk for plain tables (search_walk.h lists them). */

#include "search_walk.h"

PDB_PLAIN(PDB_DEFINE)
