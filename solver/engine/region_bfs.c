/* placeholder: the breadth-first search of large patterns over (placement, blank region) */
#include "engine.h"

PyMethodDef npz_region_methods[] = {{NULL, NULL, 0, NULL}};
