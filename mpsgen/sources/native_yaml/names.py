"""native_functions.yaml: the names other stages use, gathered from `sources/native_yaml/`.

facts.py holds the located facts (entries, dispatch lines, families), index.py the line scanner
and overload selection, edits.py the pure text -> text dispatch edits.
"""

from mpsgen.sources.native_yaml.edits import (
    Change, DispatchEdit, MovedEntry, add_mps_to_family, entry_calling, migrate_family,
)
from mpsgen.sources.native_yaml.facts import (
    DEFAULT_PATH, MPS, SHARED_BACKENDS, DispatchLine, Entry, EntryHead, Family, KernelOverride, Route,
    SharedKernelSite, family_key,
)
from mpsgen.sources.native_yaml.index import NativeIndex, index_text, select_overloads

__all__ = [
    "Change", "DispatchEdit", "MovedEntry", "add_mps_to_family", "entry_calling", "migrate_family",
    "DEFAULT_PATH", "MPS", "SHARED_BACKENDS", "DispatchLine", "Entry", "EntryHead", "Family", "KernelOverride",
    "Route", "SharedKernelSite", "family_key", "NativeIndex", "index_text", "select_overloads",
]
