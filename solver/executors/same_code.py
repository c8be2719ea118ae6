"""Which code a process runs, and a chunk of work that runs only where that code is the client's.

A Dask worker gets ``run_if_same_code`` by value (cloudpickle), not by name, and the chunk as bytes
it unpickles only after the check: a worker with other code, older code without this module
among it, still runs the check and says so, instead of failing on a name it lacks. So this module
imports nothing of the project.
"""

from __future__ import annotations

import hashlib
import importlib.util
import pickle
from pathlib import Path
from typing import Any

NOT_INSTALLED = "rummikub not installed"


def code_fingerprint() -> str:
    """A hash of the solver's and the puzzles' source files where this process finds them: an
    editable install keeps its version number while its code changes, and a worker started
    before the change would answer with the old code (other arrangements, other errors)."""
    spec = importlib.util.find_spec("solver")
    if spec is None or spec.origin is None:
        return NOT_INSTALLED
    top = Path(spec.origin).resolve().parents[1]  # beside solver/: puzzles/, installed alike
    digest = hashlib.sha256()
    for package in ("solver", "puzzles"):
        for path in sorted((top / package).rglob("*.py")):
            digest.update(str(path.relative_to(top)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def run_if_same_code(fingerprint: str, chunk: bytes) -> tuple[str, Any]:
    """Run on a Dask worker: ``("ran", fn(arg))`` for the pickled ``(fn, arg)``, or ``("other
    code", the worker's address)`` if its code's fingerprint is not ``fingerprint``."""
    from distributed import get_worker

    worker: Any = get_worker()
    ours = getattr(worker, "rummikub_code", None)
    if ours is None:  # once a worker process: hashing the files takes some 8 ms
        ours = worker.rummikub_code = code_fingerprint()
    if ours != fingerprint:
        return "other code", str(worker.address)
    fn, arg = pickle.loads(chunk)
    return "ran", fn(arg)
