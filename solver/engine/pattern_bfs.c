/* placeholder: the pattern BFS's part of the engine */
#include "engine.h"

PyMethodDef npz_pattern_methods[] = {{NULL, NULL, 0, NULL}};
