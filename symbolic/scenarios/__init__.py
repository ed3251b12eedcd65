"""One module per scenario: inputs, named steps, outputs, references and registry entries.

Adding a scenario means adding one module here; the generator finds it by a sorted scan.
"""
