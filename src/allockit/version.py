"""The package version, in a module of its own so that any layer can read it.

Examples
--------
>>> isinstance(__version__, str)
True
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
