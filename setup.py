"""What pyproject.toml cannot say: ``templates/`` stays at the top of the checkout (the design card's
layout) and ships inside the wheel as ``symbolic/templates/``, where ``symbolic.codegen.locations``
finds it once installed. Everything else about the package is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["symbolic*", "generated*", "mlsysym*"]), "symbolic.templates"],
    package_dir={"symbolic.templates": "templates"},
)
