import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=20, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.pop("NO_COLOR", None)


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """The cache of SymPy's derivatives in a directory of this test session's (of this
    pytest-xdist worker's): tests never read or write the user's cache, and subprocesses
    inherit the variable."""
    saved = os.environ.get("GRADCLI_CACHE_DIR")
    os.environ["GRADCLI_CACHE_DIR"] = str(tmp_path_factory.mktemp("gradcli-cache"))
    yield
    if saved is None:
        os.environ.pop("GRADCLI_CACHE_DIR", None)
    else:
        os.environ["GRADCLI_CACHE_DIR"] = saved


@pytest.fixture(autouse=True)
def _default_limits(monkeypatch):
    """Every test starts from the library's default limits.

    An in-process CLI run (helpers.invoke) replaces gradcli.runtime.limits.current with its
    flags and GRADCLI_* variables (`--max-elements 10000`, GRADCLI_SYMPY_TIMEOUT=0.05), and
    the library reads that global: without this, a test calling the library would see the
    limits of whichever CLI test ran before it on the same worker.
    """
    from gradcli.runtime import limits

    monkeypatch.setattr(limits, "current", limits.from_env({}))


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, slow tests first, so that the last tests a worker runs are short
    ones and no worker waits long for another (graph's two chain tests were the suite's last).
    A stable sort: the rest keeps its order; a run without -n keeps the file order."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)
