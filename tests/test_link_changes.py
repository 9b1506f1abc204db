"""Link changes over time (`[[link_changes]]`, issue 18's rerouting and issue 19's
foundation) end to end through the Python API and the CLI: a CBR flow's one-way delay
across a delay change, outages with the queue kept or dropped (exact datagram counts), the
§3.5.4 rerouting geometry with two NewReno flows, the events/links/drops tables,
determinism, and refused inputs."""
import struct
import subprocess
import sys

import numpy as np
import pytest

import tcplab
from tcplab import Scenario
from tcplab.scenario import to_toml

NO_ID = 2**64 - 1
# one 500-byte datagram every 4 ms on an idle 1 + 20 + 1 ms path: 22 ms plus three transmissions
INTERVAL = 0.004
BASE = 0.022 + 2 * 500 * 8 / 100e6 + 500 * 8 / 10e6


def dumbbell(duration, pairs=1, access_delay="1ms", queue=50):
    s = Scenario(duration=duration, sample_interval=0.1).dumbbell(
        pairs=pairs,
        bottleneck=dict(rate="10Mbps", delay="20ms", queue=queue),
        access=dict(rate="100Mbps", delay=access_delay),
    )
    s._d["sim"]["drop_trace"] = True
    return s


def cbr(s):
    return s.flow("s0", "d0", transport="udp", rate="1Mbps", packet=500, delay_trace=True)


def datagrams(r):
    """(arrival time, one-way delay, send time) per datagram received."""
    e = r.events[r.events.event == "datagram_delay"]
    t, d = e.time.to_numpy(), e.value.to_numpy()
    return t, d, t - d


def test_builder_and_normalised_spec():
    s = dumbbell(10).link_change("r2-d0", at=5, delay="7ms").link_change("r1-r2", at=6, state="down", direction="ab")
    assert s.to_dict()["link_changes"][0] == {"link": "r2-d0", "at": 5, "delay": "7ms"}
    n = s.normalised()["link_changes"]
    assert n[0] == {"a": "r2", "b": "d0", "direction": "both", "at": 5.0, "delay": 0.007}
    assert n[1] == {"a": "r1", "b": "r2", "direction": "ab", "at": 6.0, "state": "down", "queued": "keep"}
    assert "link_changes" not in dumbbell(10).normalised(), "absent when not given"


def test_direction_is_relative_to_the_order_the_ends_are_written():
    # "d0-r2" with direction "ab" is the direction from d0 to r2 (the dumbbell wrote r2-d0)
    s = cbr(dumbbell(4)).link_change("d0-r2", at=1, direction="ab", delay="3ms")
    s.link_change("r2-d0", at=2, direction="ab", delay="4ms")
    r = tcplab.run(s.to_dict(), seed=1)
    links = r.links.set_index(["src", "dst"]).link
    ev = r.events[r.events.event == "link_delay"]
    assert list(ev.link) == [links[("d0", "r2")], links[("r2", "d0")]]
    # the datagrams (s0 -> d0 cross r2 -> d0) see only the second change
    at, delay, sent = datagrams(r)
    assert set(np.round(delay, 9)) == {round(BASE, 9), round(BASE + 0.003, 9)}


def test_delay_change_moves_the_one_way_delay_by_the_change_and_is_an_event():
    r = tcplab.run(cbr(dumbbell(10)).link_change("r2-d0", at=5, delay="7ms").to_dict(), seed=1)
    at, delay, sent = datagrams(r)
    # the datagrams whose transmission on r2-d0 ends after 5 s take 6 ms more
    later = sent + BASE - 0.001 > 5.0
    np.testing.assert_allclose(delay[~later], BASE, atol=2e-9)
    np.testing.assert_allclose(delay[later], BASE + 0.006, atol=2e-9)
    assert later.sum() > 1000 and (~later).sum() > 1000
    links = r.links.set_index(["src", "dst"])
    ev = r.events[r.events.event.str.startswith("link_")]
    assert list(ev.event) == ["link_delay", "link_delay"]
    assert list(ev.value) == [0.007, 0.007]
    assert (ev.flow == NO_ID).all() and (ev.time == 5.0).all()
    assert sorted(ev.link) == sorted([links.loc[("r2", "d0"), "link"], links.loc[("d0", "r2"), "link"]])
    assert (r.events[r.events.event == "datagram_delay"].link == NO_ID).all()
    assert (r.links.drops_down == 0).all()


@pytest.mark.parametrize("queued", ["keep", "drop"])
def test_outage_counts_with_kept_or_dropped_queue(queued):
    s = cbr(dumbbell(10))
    s.link_change("r1-r2", at=5, state="down", queued=queued).link_change("r1-r2", at=6, state="up")
    r = tcplab.run(s.to_dict(), seed=1)
    at, delay, sent = datagrams(r)
    # a datagram reaches the bottleneck 1.04 ms after it is sent; on the idle path the one
    # being transmitted at 5 s (if any) finishes, everything else waits or is dropped
    reach = np.arange(0, 10, INTERVAL) + 0.001 + 500 * 8 / 100e6
    during = int(((reach >= 5.0) & (reach < 6.0)).sum())
    assert during == 250
    assert not ((at > 5.0 + BASE) & (at < 6.0)).any(), "nothing delivered during the outage"
    links = r.links.set_index(["src", "dst"])
    down = links.loc[("r1", "r2"), "drops_down"]
    drops = r.drops
    assert (drops.reason == "down").sum() == down == r.links.drops_down.sum()
    if queued == "keep":
        assert down == 0
        # of the 250 arrivals while down the queue keeps its limit, 50; the rest are queue
        # drops; the 50 leave back to back at 6 s: 0.4 ms apart, the first waited 1 s
        assert links.loc[("r1", "r2"), "drops_queue"] == 200
        assert (drops.reason == "queue").sum() == 200
        held = (sent + 0.00104 >= 5.0) & (sent + 0.00104 < 6.0)
        assert held.sum() == 50
        np.testing.assert_allclose(np.diff(at[held]), 500 * 8 / 10e6, atol=2e-9)
        assert delay[held].max() == pytest.approx(6.0 - 5.0 + BASE, abs=0.005)
    else:
        assert down == 250
        assert set(drops[drops.reason == "down"].hop) == {links.loc[("r1", "r2"), "link"]}
        # every datagram not dropped that could arrive by 10 s arrived, on time
        sends = np.arange(0, 10, INTERVAL)
        outside = ((reach < 5.0) | (reach >= 6.0)) & (sends + BASE <= 10.0)
        assert len(at) == int(outside.sum())
        np.testing.assert_allclose(delay, BASE, atol=2e-9)
    # the time series see the queue kept (up to its limit) or emptied while down
    lts = r.link_ts[r.link_ts.link == links.loc[("r1", "r2"), "link"]].set_index("time").queue
    assert lts.loc[5.5] == (50 if queued == "keep" else 0) and lts.loc[6.5] == 0
    ev = r.events[r.events.event.str.startswith("link_")]
    assert list(ev.event) == ["link_down", "link_down", "link_up", "link_up"]
    assert list(ev.value[:2]) == [1.0 if queued == "keep" else 0.0] * 2


def test_tcp_flow_times_out_during_an_outage_and_recovers():
    s = dumbbell(20).flow("s0", "d0", cc="newreno")
    s.link_change("r1-r2", at=5, state="down", queued="drop").link_change("r1-r2", at=8, state="up")
    r = tcplab.run(s.to_dict(), seed=3)
    ts = r.flow_ts[r.flow_ts.flow == 0].set_index("time").delivered
    assert ts.loc[5.1] == ts.loc[8.0], "nothing delivered while down"
    assert ts.loc[20.0] > ts.loc[8.0] + 5000
    timeouts = r.events[(r.events.event == "timeout") & (r.events.time > 5) & (r.events.time < 8.5)]
    assert len(timeouts) >= 2, "backed-off retransmissions during the 3 s outage"
    assert r.flows.timeouts[0] >= len(timeouts)


def test_rerouting_geometry_raises_the_smoothed_rtt_by_twice_the_change():
    # Thesis §3.5.4: two NewReno flows sharing a saturated bottleneck; pair 0's access link
    # r2-d0 (both directions) goes from 2 ms to 7 ms at 20 s. The queueing delay is common
    # to both flows, so flow 0's srtt minus flow 1's rises by 2 x 5 ms (it was 4 x -2 ms: the
    # access delays apply to both sides of a pair).
    s = dumbbell(40, pairs=2, access_delay=["2ms", "4ms"]).flow("s{i}", "d{i}", count=2, cc="newreno")
    s.link_change("r2-d0", at=20, delay="7ms")
    r = tcplab.run(s.to_dict(), seed=1)
    ts = r.flow_ts.pivot(index="time", columns="flow", values="srtt")
    gap = ts[0] - ts[1]
    before = gap[(gap.index >= 10) & (gap.index < 20)].mean()
    after = gap[(gap.index >= 25) & (gap.index < 40)].mean()
    assert before == pytest.approx(4 * (0.002 - 0.004), abs=0.0015)  # both access links of a pair
    assert after - before == pytest.approx(0.010, abs=0.0015)
    assert (r.links.utilisation[0]) > 0.95


def test_same_seed_same_tables():
    def spec():
        s = dumbbell(8, pairs=2).flow("s{i}", "d{i}", count=2, cc="newreno")
        s.link_change("r1-r2", at=2, rate="5Mbps", loss=0.01)
        s.link_change("r1-r2", at=4, state="down", queued="keep", direction="ab")
        s.link_change("r1-r2", at=4.5, state="up", direction="ab", queue=20)
        return s.to_dict()

    a, b = tcplab.run(spec(), seed=9), tcplab.run(spec(), seed=9)
    for name in ("flows", "links", "events", "drops", "flow_ts", "link_ts"):
        assert getattr(a, name).equals(getattr(b, name)), name
    c = tcplab.run(spec(), seed=10)
    assert not a.drops.equals(c.drops), "another seed, another loss realisation"


BAD = [
    ({"link": "r2-d5", "at": 1, "delay": "1ms"}, "link_changes[0].link: \"r2-d5\" names no link"),
    ({"link": "r2-d0", "at": 10, "delay": "1ms"}, "link_changes[0].at: 10 s is not within the run"),
    ({"link": "r2-d0", "at": 1, "rate": "0Mbps"}, "link_changes[0].rate: rate \"0Mbps\" is not allowed"),
    ({"link": "r2-d0", "at": 1, "rate": -1}, "link_changes[0].rate: rate -1 is not allowed"),
    ({"link": "r2-d0", "at": 1, "queue": 0}, "link_changes[0].queue: 0 is not allowed"),
    ({"link": "r2-d0", "at": 1, "state": "broken"}, "link_changes[0].state: \"broken\" is not allowed"),
    ({"link": "r2-d0", "at": 1, "direction": "up"}, "link_changes[0].direction: \"up\" is not allowed"),
    ({"link": "r2-d0", "at": 1}, "link_changes[0]: changes nothing"),
    ({"link": "r2-d0", "at": 1, "delay": "1ms", "speed": 2}, "link_changes[0].speed: unknown field"),
]


@pytest.mark.parametrize("change,message", BAD)
def test_bad_changes_are_one_line_errors_naming_the_field(change, message):
    d = cbr(dumbbell(10)).to_dict()
    d["link_changes"] = [change]
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.scenario.normalise(d)
    assert str(e.value).startswith(message), str(e.value)
    assert "\n" not in str(e.value)


def test_cli_exits_2_with_one_line_and_writes_nothing(tmp_path):
    d = cbr(dumbbell(10)).to_dict()
    d["link_changes"] = [BAD[0][0]]
    f = tmp_path / "bad.toml"
    f.write_text(to_toml(d))
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(f), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0, p.stderr
    assert p.stderr.startswith("error: " + BAD[0][1]), p.stderr
    assert not (tmp_path / "out").exists()


def test_cli_summary_shows_down_drops(tmp_path):
    s = cbr(dumbbell(10)).link_change("r1-r2", at=5, state="down", queued="drop").link_change("r1-r2", at=6, state="up")
    f = tmp_path / "outage.toml"
    f.write_text(to_toml(s.to_dict()))
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(f), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    header = next(line for line in p.stdout.splitlines() if line.startswith("link "))
    assert header.split()[-2:] == ["down", "drops"]
    row = next(line for line in p.stdout.splitlines() if line.startswith("r1->r2"))
    assert row.split()[-1] == "250"


def test_a_change_at_a_flows_start_time_applies_before_it_sends():
    # s0-r1 slowed to 10 Mb/s at 0: the first segment (1040 bytes; no handshake by default)
    # of a TCP flow starting at 0 is sent at the new rate (a packet already in transmission
    # would finish at the old one): it reaches r1 1 ms + 832 us after 0 (the capture at r1),
    # not 1 ms + 83.2 us.
    s = dumbbell(1).flow("s0", "d0", cc="newreno").link_change("s0-r1", at=0, rate="10Mbps").pcap("s0", "r1")
    r = tcplab.run(s.to_dict(), seed=1)
    pcap = r.pcaps["s0-r1"]
    sec, nsec = struct.unpack_from("<II", pcap, 24)  # the first record's time stamp
    assert sec * 10**9 + nsec == 1_000_000 + 1040 * 8 * 100
