# SPDX-License-Identifier: MIT
"""key_paths(o): every key path of a JSON value ("a/", "a/b/", ...; a list's paths are its
items' together), to compare two documents key for key at every level. A module for the
checks that set the two programs' JSON side by side (tests/e2e/inspector_dumps.sh,
tests/e2e/aggregate_user_traces.sh): `sys.path.insert(0, TOOLS); from key_paths import
key_paths`."""


def key_paths(o):
    if isinstance(o, dict):
        return {k + "/" + p for k, v in o.items() for p in key_paths(v) | {""}}
    if isinstance(o, list):
        return set().union(*map(key_paths, o)) if o else set()
    return set()
