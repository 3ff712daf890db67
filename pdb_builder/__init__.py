"""npuzzle's offline producer: breadth-first searches that write the databases the solver reads.

May import the solver's shared core (board, ranking, store); the solver never imports this
package.
"""

from solver.core import interrupts

# First, before click, numpy or h5py load: Ctrl-C from the ``build-pdb`` command's first line on
# is one line too.  (A library user's import installs nothing: see install_if_program.)
interrupts.install_if_program("build-pdb")
