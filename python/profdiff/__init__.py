"""profdiff for Python: diffs of PyTorch profiler traces as pandas DataFrames.

    import profdiff
    d = profdiff.diff("runs/fp32", "runs/bf16")          # offline, through the profdiff binary
    d = profdiff.diff("fp32", "bf16", server="host:50051")  # stored runs, by the Differ service
    d.findings, d.overview, d.modules, d.operators, d.kernels, d.memory, d.communication
    profdiff.show("runs/fp32").operators
    profdiff.runs("host:50051")

and `profdiff.torch.trace_handler(logdir)` as torch.profiler's on_trace_ready. See
docs/python.md.
"""
from ._diff import Diff, Evidence, Finding, diff
from ._errors import ProfdiffError
from ._profile import Profile, runs, show

try:
    from importlib.metadata import PackageNotFoundError, version as _version
    __version__ = _version("profdiff")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["diff", "show", "runs", "Diff", "Profile", "Finding", "Evidence", "ProfdiffError",
           "__version__"]
