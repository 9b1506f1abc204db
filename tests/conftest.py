import os
import shutil

import pytest

IN_CI = bool(os.environ.get("CI"))


def require_tool(name: str) -> str:
    """Path of an external tool; skip the test without it, except in CI where it must exist."""
    path = shutil.which(name)
    if path is None:
        if IN_CI:
            pytest.fail(f"{name} is required in CI but not installed")
        pytest.skip(f"{name} not installed")
    return path
