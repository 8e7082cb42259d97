"""gradcli: a command-line gradient calculator and computation-graph inspector.

The core (graph, ops, build, autodiff, executor) needs only numpy and is usable as a
library; see gradcli.api.
"""

__version__ = "0.1.0"
