"""npuzzle's offline producer: breadth-first searches that write the databases the solver reads.

May import the solver's shared core (board, ranking, store); the solver never imports this
package.
"""
