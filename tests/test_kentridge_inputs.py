"""TCP KentRidge's agent inputs beyond the pipe type (docs/kentridge.md, "Agent"): the
application's expectations inferred from the destination port (`tcp.dport`,
`kentridge.port_expectations`) and the platform's constraints (`kentridge.platform`), as
a run's events table shows them; and their one-line refusals."""
from __future__ import annotations

import pytest

import tcplab
from test_kentridge_spec import refused
from tcplab.plots import _tcp_packets


def pipes(lfn_tcp=None, lfn_kentridge=None, lossy_tcp=None, lossy_kentridge=None, duration=6):
    """A long fat pipe with a one-BDP queue (a -> b: lfn_large_queue, Sync-TCP by the built-in
    knowledge base) and a short lossy one (a -> c: lossy), as in the golden corpus's
    kentridge_lfn_and_lossy_pipes; the long fat pipe's type is decided at 5 s."""
    s = (tcplab.Scenario(duration=duration, sample_interval=1)
         .node("a").node("r", kind="router").node("b").node("c")
         .link("a", "r", rate="1Gbps", delay="1ms", queue=100000)
         .link("r", "b", rate="50Mbps", delay="60ms", queue=760)
         .link("r", "c", rate="10Mbps", delay="10ms", queue=1000, loss_ab=0.02))
    base = {"timestamps": True, "rwnd": 100000}
    s.flow(src="a", dst="b", name="lfn", cc="newreno", tcp={**base, **(lfn_tcp or {})},
           kentridge={"interval": "1s", **(lfn_kentridge or {})})
    s.flow(src="a", dst="c", name="lossy", cc="reno", tcp={**base, **(lossy_tcp or {})},
           kentridge={"interval": "500ms", **(lossy_kentridge or {})})
    return s


def agent_events(result, flow):
    """The details of the agent's decisions for the flow named `flow`."""
    fid = int(result.flows.loc[result.flows["name"] == flow, "flow"].iloc[0])
    e = result.events
    rows = e[e["event"].isin(["kr_switch", "kr_keep", "kr_no_adaptation"]) & (e["flow"] == fid)]
    return list(rows["detail"])


def test_a_web_port_infers_low_delay_and_the_event_detail_says_so():
    r = tcplab.run(pipes(lfn_tcp={"dport": 80}, lossy_tcp={"dport": 443}), seed=1)
    lfn = agent_events(r, "lfn")
    assert "newreno -> sync_tcp: pipe lfn_large_queue (rule 4): kb row 1 sync_tcp, score 1 " \
           "(expectations low_delay inferred from port 80)" in lfn, lfn
    lossy = agent_events(r, "lossy")
    assert any(d.startswith("reno -> westwood_be: pipe lossy (rule 9): kb row 8 westwood_be, score 0 "
                            "(expectations low_delay inferred from port 443)") for d in lossy), lossy


def test_the_default_port_infers_nothing_and_explicit_expectations_win():
    plain = tcplab.run(pipes(), seed=1)
    details = agent_events(plain, "lfn") + agent_events(plain, "lossy")
    assert details and not any("inferred" in d or "score" in d for d in details), details
    # the same run with dport = 5001 said explicitly is the same run
    same = tcplab.run(pipes(lfn_tcp={"dport": 5001}), seed=1)
    assert list(same.events["detail"]) == list(plain.events["detail"])
    explicit = tcplab.run(pipes(lfn_tcp={"dport": 80}, lfn_kentridge={"expectations": ["friendliness"]}), seed=1)
    lfn = agent_events(explicit, "lfn")
    assert any(d.endswith("kb row 1 sync_tcp, score 1") for d in lfn) and not any("inferred" in d for d in lfn), lfn
    # a port map of the spec's own, and an empty one that turns inference off
    own = tcplab.run(pipes(lossy_tcp={"dport": 9000},
                           lossy_kentridge={"port_expectations": {"9000": ["loss_tolerance"]}}), seed=1)
    assert any("score 1 (expectations loss_tolerance inferred from port 9000)" in d
               for d in agent_events(own, "lossy"))
    off = tcplab.run(pipes(lossy_tcp={"dport": 80}, lossy_kentridge={"port_expectations": {}}), seed=1)
    assert not any("inferred" in d for d in agent_events(off, "lossy"))


def test_the_destination_port_is_the_connections_and_the_captures():
    s = pipes(lfn_tcp={"dport": 443}, duration=1).pcap("r", "b")
    sim = tcplab.Simulation(s, seed=1)
    c = sim.connections()
    assert list(c["dport"]) == [443, 5001]
    lfn = c[c["name"] == "lfn"].iloc[0]
    assert sim.connection(f"{lfn['src']}:{lfn['sport']}-{lfn['dst']}:443")["name"] == "lfn"
    packets = _tcp_packets(next(iter(sim.finish().pcaps.values())))
    assert set(packets["dport"]) | set(packets["sport"]) >= {443} and 5001 not in set(packets["dport"])


def test_a_low_cpu_platform_passes_over_sync_tcp_for_the_broader_types_row():
    r = tcplab.run(pipes(lfn_kentridge={"platform": {"cpu": "low"}}), seed=1)
    lfn = agent_events(r, "lfn")
    assert "newreno -> cubic: pipe lfn_large_queue (rule 4): kb row 2 cubic (targets lfn), platform cpu = low " \
           "passes over kb row 1 sync_tcp (cpu_cost)" in lfn, lfn
    assert r.flows.loc[r.flows["name"] == "lfn", "cc_final"].iloc[0] == "cubic"
    # an unconstrained platform changes nothing
    plain = tcplab.run(pipes(), seed=1)
    normal = tcplab.run(pipes(lfn_kentridge={"platform": {"cpu": "normal", "memory": "normal", "power": "mains"}}),
                        seed=1)
    assert list(normal.events["detail"]) == list(plain.events["detail"])
    # the normalised spec keeps the platform costs only under a platform table
    rows = {f["name"]: f["kentridge"]["kb"][0]["shortcomings"] for f in normal.summary["spec"]["flows"]}
    assert "cpu_cost" in rows["lfn"] and "cpu_cost" not in rows["lossy"]


# ------------------------------------------------------------------ refusals, as the CLI shows them

@pytest.mark.parametrize("where, value, message", [
    ("tcp", {"dport": 0}, "flows[0].tcp.dport: 0 is not allowed; must be an integer from 1 to 65535"),
    ("tcp", {"dport": "http"}, 'flows[0].tcp.dport: expected an integer from 1 to 65535, got "http"'),
    ("kentridge", {"port_expectations": ["low_delay"]},
     'flows[0].kentridge.port_expectations: expected a table of port = [expectations], e.g. { 80 = ["low_delay"] }, '
     'got ["low_delay"]'),
    ("kentridge", {"port_expectations": {"http": ["low_delay"]}},
     'flows[0].kentridge.port_expectations.http: "http" is not a port; allowed: a port number from 1 to 65535'),
    ("kentridge", {"port_expectations": {"70000": ["low_delay"]}},
     'flows[0].kentridge.port_expectations.70000: "70000" is not a port; allowed: a port number from 1 to 65535'),
    ("kentridge", {"port_expectations": {"80": ["speed"]}},
     'flows[0].kentridge.port_expectations.80[0]: "speed" is not a term of the knowledge base\'s advantages or '
     'shortcomings; allowed: '),
    ("kentridge", {"port_expectations": {"80": "low_delay"}},
     'flows[0].kentridge.port_expectations.80: expected a list of names, got "low_delay"'),
    ("kentridge", {"expectations": ["cpu_cost"]},
     'flows[0].kentridge.expectations[0]: "cpu_cost" is a platform cost, not an expectation; constrain the '
     'platform instead (kentridge.platform)'),
    ("kentridge", {"platform": "phone"},
     'flows[0].kentridge.platform: expected a table such as { cpu = "low", power = "battery" }, got "phone"'),
    ("kentridge", {"platform": {"gpu": "low"}},
     "flows[0].kentridge.platform.gpu: unknown platform input; allowed: cpu, memory, power"),
    ("kentridge", {"platform": {"cpu": "slow"}},
     'flows[0].kentridge.platform.cpu: "slow" is not allowed; allowed: normal, low'),
    ("kentridge", {"platform": {"power": "low"}},
     'flows[0].kentridge.platform.power: "low" is not allowed; allowed: mains, battery'),
    ("kentridge", {"kb": [{"adaptation": "reno", "pipe_types": ["lossy"], "advantages": ["energy_cost"]}],
                   "platform": {"power": "battery"}},
     'flows[0].kentridge.kb[0]: advantages: "energy_cost" is a platform cost; list it among the shortcomings'),
])
def test_a_bad_input_is_one_line_naming_the_field_the_value_and_what_is_allowed(capsys, tmp_path, where, value,
                                                                                  message):
    spec = {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "10ms"}],
            "flows": [{"src": "a", "dst": "b", "tcp": {"timestamps": True}, "kentridge": {}}]}
    spec["flows"][0][where].update(value)
    err = refused(capsys, tmp_path, spec)
    assert err.startswith(message), err
