"""Congestion control written in Python (plug-ins) loaded into runs."""
import copy
import math
import subprocess
import sys
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

import tcplab
from tcplab.results import TABLES
from tcplab.scenario import load_scenario, to_toml

ROOT = Path(__file__).resolve().parent.parent
AIMD = f"python:{ROOT / 'examples' / 'plugins' / 'aimd.py'}:AIMD"
FAILING = f"python:{ROOT / 'examples' / 'plugins' / 'aimd.py'}:Failing"


def dumbbell(cc="newreno", duration=15):
    spec = load_scenario(ROOT / "examples" / "dumbbell.toml")
    spec["sim"]["duration"] = duration
    for f in spec["flows"]:
        f["cc"] = cc
    return spec


def same_but_the_algorithm_name(a, b, tables=TABLES):
    for name in tables:
        x, y = getattr(a, name), getattr(b, name)
        if name == "flows":
            x, y = x.drop(columns=["cc", "cc_final"]), y.drop(columns=["cc", "cc_final"])
        assert_frame_equal(x, y, check_exact=True, obj=name)


def test_the_python_aimd_gives_the_tables_of_the_rust_newreno_bit_for_bit():
    rust = tcplab.run(dumbbell("newreno"), seed=3)
    py = tcplab.run(dumbbell(AIMD), seed=3)
    assert set(py.flows["cc_final"]) == {AIMD}
    # the hooks were exercised: losses, timeouts and recoveries happened
    assert py.flows["fast_retransmits"].sum() > 20 and py.flows["timeouts"].sum() >= 1
    same_but_the_algorithm_name(rust, py)


def test_a_registered_class_a_scheduled_switch_and_a_manual_switch_to_a_plugin():
    sys.path.insert(0, str(ROOT / "examples" / "plugins"))
    try:
        import aimd
    finally:
        sys.path.pop(0)
    tcplab.register_algorithm("aimd_py", aimd.AIMD)
    try:
        assert "aimd_py" in tcplab.plugins.registered_algorithms()
        rust = tcplab.run(dumbbell("newreno"), seed=8)
        same_but_the_algorithm_name(rust, tcplab.run(dumbbell("aimd_py"), seed=8))
        # switching newreno -> the same arithmetic in Python changes nothing but the name
        spec = dumbbell("newreno")
        spec["flows"][1]["switch"] = [{"at": 5, "cc": "aimd_py"}]
        switched = tcplab.run(spec, seed=8)
        assert switched.flows["cc_final"].iloc[3] == "aimd_py"
        same_but_the_algorithm_name(rust, switched)
        sim = tcplab.Simulation(dumbbell("newreno"), seed=8)
        sim.run(5)
        assert sim.switch("lossy", "aimd_py") == "aimd_py"
        assert sim.connection("lossy")["algorithm"] == "aimd_py"
        manual = sim.finish()
        assert_frame_equal(manual.flows, switched.flows)
    finally:
        tcplab.unregister_algorithm("aimd_py")
    with pytest.raises(tcplab.ScenarioError, match=r"unknown congestion-control algorithm \"aimd_py\""):
        tcplab.run(dumbbell("aimd_py"), seed=8)


class Halver:
    """Logs its decisions and keeps a timer."""
    recovery = "reno"
    timer_interval = 0.5

    def __init__(self, beta=0.5):
        self.beta = beta
        self.ticks = 0

    def on_congestion(self, st, signal):
        st.ssthresh = max(math.floor(st.window() * self.beta), 2)
        st.cwnd = 1.0 if signal == "timeout" else st.ssthresh
        st.recovery_base = st.cwnd
        st.log(f"halver_{signal}", st.cwnd)

    def on_timer(self, st):
        self.ticks += 1
        st.log("tick", self.ticks)


def test_plugin_parameters_events_timer_and_defaults():
    tcplab.register_algorithm("halver", Halver)
    try:
        spec = dumbbell("halver", duration=6)
        spec["flows"][0]["cc_params"] = {"beta": 0.7}
        r = tcplab.run(spec, seed=1)
        ev = r.events
        assert (ev["event"] == "halver_dupacks").sum() > 5
        ticks = ev[(ev["event"] == "tick") & (ev["flow"] == 0)]
        assert list(ticks["value"][:3]) == [1.0, 2.0, 3.0]
        # every 0.5 s over 6 s (an algorithm's log is time-stamped when the sender next reads it)
        assert len(ticks) in (11, 12) and list(ticks["value"]) == list(range(1, len(ticks) + 1))
        spec["flows"][0]["cc_params"] = {"gamma": 1}
        with pytest.raises(tcplab.ScenarioError) as e:
            tcplab.run(spec, seed=1)
        assert str(e.value).startswith('flows[0].cc: plug-in "halver" could not be created with cc_params {"gamma": 1.0}: '
                                       "TypeError: "), str(e.value)
    finally:
        tcplab.unregister_algorithm("halver")


class NaNWindow:
    def on_ack(self, st, ack):
        st.cwnd = float("nan")


@pytest.mark.parametrize("cc, start", [
    ("python:nosuchmodule_xyz:AIMD", 'flows[0].cc: plug-in "python:nosuchmodule_xyz:AIMD": cannot load '
                                     "'nosuchmodule_xyz': ModuleNotFoundError"),
    (AIMD.replace(":AIMD", ":Nope"), f'flows[0].cc: plug-in "{AIMD.replace(":AIMD", ":Nope")}": '),
    ("python:AIMD", 'flows[0].cc: plug-in "python:AIMD": \'python:AIMD\' is not a plug-in name; allowed:'),
    ("python:/no/such/file.py:AIMD", 'flows[0].cc: plug-in "python:/no/such/file.py:AIMD": no such file'),
])
def test_a_plugin_that_cannot_be_loaded_is_a_one_line_scenario_error(cc, start):
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(dumbbell(cc), seed=1)
    assert str(e.value).startswith(start), str(e.value)
    assert "\n" not in str(e.value)


def test_a_plugin_that_raises_ends_the_run_with_one_line():
    with pytest.raises(tcplab.PluginError) as e:
        tcplab.run(dumbbell(FAILING), seed=1)
    msg = str(e.value)
    assert msg.startswith(f'plug-in "{FAILING}" raised RuntimeError: no idea what to do after dupacks in on_congestion '
                          "(at simulated time "), msg
    assert "\n" not in msg and isinstance(e.value, tcplab.ScenarioError)
    tcplab.register_algorithm("nan_window", NaNWindow)
    try:
        with pytest.raises(tcplab.PluginError, match=r'^plug-in "nan_window" set st.cwnd to NaN; it must be a '
                                                      r"positive number in on_ack \(at simulated time"):
            tcplab.run(dumbbell("nan_window"), seed=1)
    finally:
        tcplab.unregister_algorithm("nan_window")
    # the next run on this thread is not affected
    assert tcplab.run(dumbbell("newreno", duration=2), seed=1).flows["segments_sent"].sum() > 0


def test_a_failing_plugin_closes_a_stepped_simulation():
    sim = tcplab.Simulation(dumbbell(FAILING), seed=1)
    with pytest.raises(tcplab.PluginError, match="no idea what to do"):
        sim.run(10)
    with pytest.raises(RuntimeError, match="the simulation is closed"):
        sim.connections()


def test_the_cli_reports_a_failing_plugin_in_one_line_exits_2_and_writes_nothing(tmp_path):
    scenario = tmp_path / "failing.toml"
    scenario.write_text(to_toml(dumbbell(FAILING)))
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(scenario), "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f'error: plug-in "{FAILING}" raised RuntimeError: no idea what to do after dupacks')
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr and "panic" not in p.stderr
    assert p.stdout == ""
    assert not out.exists() and sorted(x.name for x in tmp_path.iterdir()) == ["failing.toml"]


def test_the_cli_runs_a_plugin_named_by_a_relative_path(tmp_path):
    spec = dumbbell("python:examples/plugins/aimd.py:AIMD", duration=3)
    scenario = tmp_path / "aimd.toml"
    scenario.write_text(to_toml(spec))
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(scenario), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    r = tcplab.Results.load(tmp_path / "out")
    same_but_the_algorithm_name(tcplab.run(dumbbell("newreno", duration=3), seed=1), r, TABLES[:5])


class Watcher:
    """Counts the read-only hooks' calls; on_switch_in sets the window it takes over."""
    calls = {}

    def _count(self, hook):
        Watcher.calls[hook] = Watcher.calls.get(hook, 0) + 1

    def on_switch_in(self, st):
        self._count("on_switch_in")
        st.log("took_over", st.cwnd)
        st.cwnd = 2.0

    def on_ack_arrival(self, st, ack):
        self._count("on_ack_arrival")
        st.cwnd = 1e6  # read only: not written back

    def on_rtt_sample(self, st, rtt):
        assert rtt > 0 and st.srtt > 0
        self._count("on_rtt_sample")

    def on_packet_sent(self, st, seq, retransmission):
        self._count("on_packet_sent")


def test_switch_in_and_the_read_only_hooks():
    Watcher.calls = {}
    tcplab.register_algorithm("watcher", Watcher)
    try:
        sim = tcplab.Simulation(dumbbell("newreno", duration=4), seed=1)
        sim.run(2)
        sim.switch("clean0", "watcher")
        assert sim.connection("clean0")["cwnd"] == 2.0
        sim.run(3)
        assert sim.connection("clean0")["cwnd"] < 100
        r = sim.finish()
    finally:
        tcplab.unregister_algorithm("watcher")
    assert Watcher.calls["on_switch_in"] == 1
    assert min(Watcher.calls[h] for h in ("on_ack_arrival", "on_rtt_sample", "on_packet_sent")) > 10
    took = r.events[r.events["event"] == "took_over"]
    assert len(took) == 1 and took["value"].iloc[0] > 2
