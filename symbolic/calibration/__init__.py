"""Calibration: measure this machine, turn it into a node, and check the scenarios against it.

How it works
------------
``timing`` holds the arithmetic every measurement shares: a call timed in a loop long enough
for the clock (``per_call``), blocks summarised by their median and spread (``summarize``),
and a fixed-plus-per-unit cost fitted by least squares (``fit_line``). Every function takes
its clock as an argument, so the tests drive it with a fake one and never time anything.
``machine`` reads what the machine is from the OS (CPU model, cores, caches, BLAS, load);
``probes`` are the small workloads (matmul, STREAM, cache-sized adds, one tiny op, autograd,
allocation), numpy always and PyTorch only when it is installed; ``calibrate`` runs them in
interleaved blocks, refuses a verdict when the machine is too loaded to measure, and builds
the node file (``symbolic.runtime.node_file``). ``workloads`` are the real workloads the
scenarios describe (the MLP step in numpy with its backward written out, Adam, ...);
``here`` runs them between calibration blocks and sets each against its prediction from the
generated scenarios, as rows of ``mlsysym validate``. This layer sits under the CLI and
imports the generated runtime, never the generator.
"""
