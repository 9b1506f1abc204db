"""A panic the extension's guard catches reaches Python as a SimulationError carrying the
panic's message, and nothing of it is printed on the terminal."""
import os
import subprocess
import sys

CHILD = """
from tcplab import _core
try:
    _core._panic_in_core("boom: flow 7 retired")
except _core.SimulationError as e:
    print("caught:", e)
# a second one: the hook stays installed and quiet
try:
    _core._panic_in_core("again")
except _core.SimulationError as e:
    print("caught:", e)
print("algorithms:", len(_core.algorithms()))
"""


def test_a_caught_panic_becomes_the_error_message_and_prints_nothing():
    env = {**os.environ, "RUST_BACKTRACE": "1"}
    p = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    lines = p.stdout.splitlines()
    assert lines[0].startswith("caught: panic in the simulator core: boom: flow 7 retired (at ")
    assert lines[0].endswith(")") and ".rs:" in lines[0], "the panic's location is in the message"
    assert lines[1].startswith("caught: panic in the simulator core: again")
    assert lines[2].startswith("algorithms: ")
