"""Sphinx configuration of the allockit documentation.

Build (warnings are errors): ``python -m sphinx -W -b html docs docs/_build/html``
with the ``docs`` extra installed (``pip install -e '.[docs]'``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

from api_pages import write_api_index  # noqa: E402

import allockit  # noqa: E402

project = "allockit"
author = "the allockit developers"
copyright = "2026, the allockit developers"
release = version = allockit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinx_copybutton",
    "allockit_cli",
]

# Every public module gets a page (docs/api/index.rst is written here, from the package).
write_api_index(HERE / "api")
autodoc_default_options = {"member-order": "bysource"}
autosummary_generate = False  # the pages are written by api_pages.py; tables only
autodoc_typehints = "none"  # types are in the numpydoc sections, in words
autodoc_inherit_docstrings = False
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# Every cross-reference must resolve. Python's and the third-party libraries' own
# objects cannot be: their inventories would be downloaded (no intersphinx here).
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|pyomo|pyo|scipy|pandas|networkx|ortools|highspy|numba|dask|"
     r"distributed|hypothesis|pydantic|matplotlib|pooch|platformdirs)(\..*)?"),
    (r"py:.*", r"(argparse|pathlib|collections|typing|enum|dataclasses|sqlite3|os|io|"
     r"concurrent|threading|multiprocessing|logging|datetime|random|abc)(\..*)?"),
]


exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.json"]

smartquotes = False  # help lines name options: "--time-limit" must not become a dash
html_theme = "pydata_sphinx_theme"
html_title = f"allockit {release}"
html_static_path = ["_static"]
html_css_files = ["allockit.css"]
html_favicon = "_static/allockit.svg"
html_logo = "_static/allockit.svg"
html_context = {"default_mode": "light"}  # an unset mode logs a console error
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": []}

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"(^|/)(?!plot_)[^/]*\.py$",  # user algorithms (roundrobin.py, ...)
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "write_computation_times": False,  # its page loads scripts from CDNs: the site is offline
    "matplotlib_animations": False,
    "first_notebook_cell": None,
    "plot_gallery": "True",
    "abort_on_example_error": True,
    "reset_modules": ("matplotlib",),
}

os.environ.setdefault("MPLBACKEND", "Agg")
