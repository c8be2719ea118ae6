"""The one compiled part: bnb's dual simplex engine (solver/backends/_dualsimplex.c).

Optional: without a C compiler the package still installs, and bnb solves its LPs with HiGHS
(equally optimal answers, more slowly; see solver/backends/lp_engine.py). Everything else is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "solver.backends._dualsimplex",
            sources=["solver/backends/_dualsimplex.c"],
            extra_compile_args=["-O3"],
            optional=True,
        )
    ]
)
