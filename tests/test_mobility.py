"""Mobility generators (tcplab.mobility) and time–sequence plots (tcplab.plots.time_sequence):
the schedules' statistics against the thesis's means and Table 2.2 within sampling bounds,
determinism, the handoff classes worked out by hand, and generated scenarios that run."""
import math

import numpy as np
import pytest

import tcplab
from tcplab import mobility as mo
from tcplab import plots


def within(observed, expected, sd, k=4.0):
    return abs(observed - expected) <= k * sd


@pytest.mark.parametrize("name,tech,mean", [("wcdma", mo.WCDMA, 50.0), ("wlan", mo.WLAN, 12.0),
                                            ("wcdma_wlan", mo.WCDMA, 20.0), ("wcdma_wlan", mo.WLAN, 8.0)])
def test_mean_dwell_time_matches_the_thesis_within_four_standard_errors(name, tech, mean):
    # one long draw: the last (cut) cell is left out; exponential, so sd of the mean = mean/sqrt(n)
    m = mo.generate(name, seed=11, duration=300_000)
    dwell = np.array([c.end - c.start for c in m.cells[:-1] if c.tech == tech])
    assert len(dwell) > 1000
    assert within(dwell.mean(), mean, mean / math.sqrt(len(dwell))), (dwell.mean(), mean)
    # exponential: the standard deviation equals the mean (within 10 %)
    assert dwell.std() == pytest.approx(mean, rel=0.1)


def test_table_2_2_transition_frequencies_and_outages():
    m = mo.generate("wcdma_wlan", seed=5, duration=300_000)
    counts = mo.transition_counts(m)
    for src, row in mo.TABLE_2_2.items():
        n = sum(counts.get((src, dst), 0) for dst in row)
        assert n > 1000
        for dst, (p, _) in row.items():
            k = counts.get((src, dst), 0)
            assert within(k / n, p, math.sqrt(p * (1 - p) / n)), (src, dst, k / n, p)
    for h in m.handoffs:
        assert h.at - h.disconnect == pytest.approx(mo.TABLE_2_2[h.old.tech][h.new.tech][1])
    # WLAN cells: large (9-10 users) or small (1-2) with probability 0.5 each, rate 7 Mb/s / users
    wlan = [c for c in m.cells if c.tech == mo.WLAN]
    large = sum(c.users >= 9 for c in wlan)
    assert within(large / len(wlan), 0.5, math.sqrt(0.25 / len(wlan)))
    assert {c.users for c in wlan} == {1, 2, 9, 10}
    assert all(c.rate == pytest.approx(7e6 / c.users) for c in wlan)
    assert all(c.rate == 200e3 and c.delay == 0.150 for c in m.cells if c.tech == mo.WCDMA)


@pytest.mark.parametrize("name,duration,outage", [("wcdma", 1800, 3.0), ("wlan", 900, 10.0)])
def test_default_durations_and_a_schedule_that_covers_the_run(name, duration, outage):
    for seed in range(5):
        m = mo.generate(name, seed=seed)
        assert m.duration == duration
        assert m.cells[0].start == 0 and (m.cells[-1].end == duration or m.final_outage is not None)
        for h, (a, b) in zip(m.handoffs, zip(m.cells, m.cells[1:])):
            assert (h.old, h.new) == (a, b)
            assert h.disconnect == a.end and h.at == b.start and h.at - h.disconnect == pytest.approx(outage)
        assert all(h.at < duration for h in m.handoffs)
    assert mo.generate("wcdma_wlan", seed=1).duration == 1200


def test_same_seed_same_schedule_other_seed_another():
    a, b, c = (mo.generate("wcdma_wlan", seed=s) for s in (7, 7, 8))
    assert a.cells == b.cells and a.handoffs == b.handoffs
    assert a.cells != c.cells
    with pytest.raises(mo.MobilityError, match="'umts' is not a scenario"):
        mo.generate("umts", seed=1)


def test_handoff_classes_worked_by_hand():
    # WAN 50 ms one way, 1500-byte segments.
    # WCDMA: 200 kb/s x 2(0.05 + 0.15) s / 8 / 1500 = 6.67 segments
    # WLAN, 1 user: 7 Mb/s x 2(0.05 + 0.005) / 8 / 1500 = 64.2; 2 users 32.1; 10 users 6.4
    wcdma = mo.Cell(mo.WCDMA, 0, 1, 200e3, 0.150, 10)
    w1, w2, w10 = (mo.Cell(mo.WLAN, 0, 1, 7e6 / u, 0.005, u) for u in (1, 2, 10))
    assert mo.classify(wcdma, w1, 0.05) == "U-VH"
    assert mo.classify(w1, wcdma, 0.05) == "D-VH"
    assert mo.classify(w2, w1, 0.05) == "H-HH"  # 32.1 -> 64.2: ratio 2 < 3, both >= 20
    assert mo.classify(wcdma, w10, 0.05) == "L-HH"  # 6.67 -> 6.4
    assert mo.classify(wcdma, wcdma, 0.05) == "L-HH"
    # the same WLAN pair is L-HH on a 10 ms WAN: 7e6/2 x 0.03 / 12000 = 8.75 < 20
    assert mo.classify(w2, mo.Cell(mo.WLAN, 0, 1, 7e6 / 1.5, 0.005, 2), 0.01) == "L-HH"


def test_link_changes_and_handoff_records_follow_the_schedule():
    m = mo.generate("wlan", seed=3, duration=120, wan_delay=0.05)
    lc = m.link_changes("r2-mh")
    downs = [c for c in lc if c.get("state") == "down"]
    ups = [c for c in lc if c.get("state") == "up"]
    assert [c["at"] for c in downs][:len(m.handoffs)] == [h.disconnect for h in m.handoffs]
    assert all(c["queued"] == "drop" for c in downs)
    assert [(c["at"], c["rate"], c["delay"]) for c in ups] == [(h.at, h.new.rate, h.new.delay) for h in m.handoffs]
    assert m.handoff_records() == [{"at": h.at, "bandwidth": h.new.rate, "disconnect": h.disconnect}
                                   for h in m.handoffs]


def test_a_generated_testbed_scenario_runs_and_the_host_is_told_of_every_handoff():
    m = mo.generate("wlan", seed=3, duration=60, wan_delay=0.05)
    assert len(m.handoffs) >= 2
    r = tcplab.run(mo.testbed(m, "tcp_ho", sample_interval=0.1), seed=1)
    ev = r.events
    downs = len(m.handoffs) + (m.final_outage is not None)
    assert (ev.event == "link_down").sum() == 2 * downs  # both directions
    assert (ev.event == "handoff_complete").sum() == len(m.handoffs)
    # the wireless hop starts at the first cell's rate (the links table shows the initial
    # values) and its rate changes are the handoffs' new rates, in both directions
    wl = r.links[(r.links.src == "r2") & (r.links.dst == "mh")].iloc[0]
    assert wl.rate_bps == pytest.approx(m.cells[0].rate)
    assert sorted(ev[ev.event == "link_rate"].value) == pytest.approx(sorted(2 * [h.new.rate for h in m.handoffs]))
    assert r.flows.goodput_bps.iloc[0] > 0 and r.flows.goodput_bps.iloc[1] > 1e6
    # web background: 10 closed-loop users (one generator row each), every one fetching
    assert len(r.generators) == 10 and (r.generators.completed > 1).all()


def test_time_sequence_from_captures_counts_what_the_flows_table_counts(tmp_path):
    m = mo.generate("wlan", seed=3, duration=40, wan_delay=0.05)
    spec = plots.with_time_sequence(mo.testbed(m, "newreno", sample_interval=0.1), "server")
    r = tcplab.run(spec, seed=1)
    d = plots.time_sequence_data(r, 0)
    row = r.flows.iloc[0]
    assert len(d["sent"]) == row.segments_sent
    assert d["sent"].retransmit.sum() == row.retransmits > 0
    assert d["acks"].ack.max() == row.acked_segments
    assert d["acks"].ack.is_monotonic_increasing
    fig = plots.time_sequence(r, 0, title="NewReno across WLAN handoffs")
    assert [p.name for p in plots.save(fig, tmp_path, "ts")] == ["ts.png", "ts.svg"]
    bare = tcplab.run(mo.testbed(m, "newreno"), seed=1)
    with pytest.raises(ValueError, match="with_time_sequence"):
        plots.time_sequence_data(bare, 0)


def test_time_sequence_sequence_numbers_unwrap_past_four_gigabytes():
    v = np.array([2**32 - 3000, 2**32 - 1500, 100, 1600], dtype=np.int64)
    assert list(plots._unwrap(v)) == [2**32 - 3000, 2**32 - 1500, 2**32 + 100, 2**32 + 1600]


def test_cli_run_writes_a_time_sequence_plot_and_refuses_a_flow_that_does_not_exist(tmp_path, capsys):
    from cli_support import main, one_line_error

    s = tmp_path / "s.toml"
    m = mo.generate("wlan", seed=3, duration=30, wan_delay=0.05)
    s.write_text(tcplab.scenario.to_toml(mo.testbed(m, "tcp_ho", web_users=0, sample_interval=0.1)))
    status, out, err = main(capsys, "run", s, "--time-sequence", "0", "--time-sequence", "1", "--out", tmp_path / "o")
    assert status == 0, err
    for f in (0, 1):
        assert (tmp_path / "o" / f"time_sequence_flow{f}.png").stat().st_size > 10_000
    status, _, err = main(capsys, "run", s, "--time-sequence", "5", "--out", tmp_path / "o2")
    assert status == 2 and one_line_error(err) and "--time-sequence 5: the scenario has flows 0 to 1" in err
    assert not (tmp_path / "o2").exists()
