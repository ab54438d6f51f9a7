"""One module per command, each a function with explicit keyword arguments returning an exit code."""

# Transition shim (delete when merging with the stage-folder layout, where mpsgen/commands.py has
# moved into this package): this package shadows the flat module mpsgen/commands.py, so load it
# under another name and re-export its functions, keeping `from mpsgen.commands import ...` working.
import importlib.util as _util
from pathlib import Path as _Path

_spec = _util.spec_from_file_location("mpsgen._commands_flat", _Path(__file__).resolve().parent.parent / "commands.py")
if _spec is not None and _spec.loader is not None and _Path(str(_spec.origin)).is_file():
    import sys as _sys

    _flat = _util.module_from_spec(_spec)
    _sys.modules["mpsgen._commands_flat"] = _flat
    _spec.loader.exec_module(_flat)
    globals().update({k: v for k, v in vars(_flat).items() if not k.startswith("__")})
