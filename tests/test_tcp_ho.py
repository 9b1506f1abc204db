"""The handoff protocols (TCP-HO, TCP-HO-Immediate, TCP-HO-Aggressive, Freeze-TCP; thesis
chapter 2) through the public API: spec validation of the handoff records, their error
model and the option formats, and end-to-end runs whose events and pcaps show the protocol.
The window rules are tested step by step in the Rust crate (cc/tcp_ho.rs,
tcp/sender/handoff.rs, tests/tcp_ho.rs)."""
import struct

import pytest

import tcplab
from cli_support import main, one_line_error


def scenario(cc="tcp_ho", duration=8, loss=0.0, **flow):
    return (tcplab.Scenario(duration=duration, sample_interval=0)
            .dumbbell(pairs=1, bottleneck=dict(rate="2Mbps", delay="40ms", queue=20, loss=loss),
                      access=dict(rate="10Mbps", delay="5ms"))
            .flow(src="s0", dst="d0", cc=cc, **flow))


H = [{"at": 3.0, "bandwidth": "7Mbps", "disconnect": 2.0}]

BAD = [
    ({"handoffs": [{"at": 3.0, "bandwidth": "7Mbps", "disconnect": 3.0}]},
     "flows[0].handoffs[0].disconnect: 3 s is not allowed; must be before at = 3 s"),
    ({"handoffs": [{"at": 3.0}]}, "flows[0].handoffs[0].bandwidth: is required"),
    ({"handoffs": [{"bandwidth": "1Mbps"}]}, "flows[0].handoffs[0].at: is required"),
    ({"handoffs": [{"at": 3.0, "bandwidth": "1Mbps", "speed": 2}]},
     "flows[0].handoffs[0].speed: unknown field; allowed: at, bandwidth, disconnect"),
    ({"handoffs": [{"at": 3.0, "bandwidth": "-1Mbps"}]}, "flows[0].handoffs[0].bandwidth:"),
    ({"handoffs": [{"at": 3.0, "bandwidth": "1Mbps"}, {"at": 2.0, "bandwidth": "1Mbps"}]},
     "flows[0].handoffs[1].at: 2 s is not allowed; must be after the previous handoff's at = 3 s"),
    ({"handoffs": [{"at": 3.0, "bandwidth": "1Mbps"}, {"at": 5.0, "bandwidth": "1Mbps", "disconnect": 2.5}]},
     "flows[0].handoffs[1].disconnect: 2.5 s is not allowed; must be after the previous handoff's at = 3 s"),
    ({"handoffs": {"at": 3.0}}, "flows[0].handoffs: expected a list"),
    ({"handoffs": H, "bandwidth_error": 1.0}, "flows[0].bandwidth_error: 1 is not allowed; must be in [0, 1)"),
    ({"handoffs": H, "bandwidth_error": -0.1}, "flows[0].bandwidth_error: -0.1 is not allowed"),
    ({"bandwidth_error": 0.15}, "flows[0].bandwidth_error: is only allowed with handoffs"),
    ({"freeze_offset": 0.5}, "flows[0].freeze_offset: is only allowed with handoffs"),
    ({"handoffs": H, "freeze_offset": 4000}, "flows[0].freeze_offset: 4000 is not allowed"),
    ({"handoffs": H, "tcp": {"handshake": False}},
     "flows[0].tcp.handshake: false is not allowed with tcp_ho: TCP-HO is negotiated in the handshake"),
    ({"tcp": {"ho_capability_bit": 16}}, "flows[0].tcp.ho_capability_bit: 16 is not allowed; must be an integer from 0 to 15"),
    ({"tcp": {"ho_capability_len": 3, "ho_capability_bit": 9}},
     "flows[0].tcp.ho_capability_bit: 9 is not allowed with ho_capability_len = 3"),
    ({"tcp": {"ho_bandwidth_len": 5}}, "flows[0].tcp.ho_bandwidth_len: 5 is not allowed; must be 4"),
    ({"tcp": {"ho_bandwidth_kind": 1}}, "flows[0].tcp.ho_bandwidth_kind: 1 is not allowed"),
    ({"tcp": {"ho_bandwidth_kind": 253}}, "flows[0].tcp.ho_bandwidth_kind: 253 is the Capability option's kind too"),
    ({"cc_params": {"adjust_samples": 0}},
     "flows[0].cc: tcp_ho: adjust_samples = 0 is not allowed; must be an integer in [1, 64]"),
]


@pytest.mark.parametrize("flow,message", BAD, ids=[m.split(":")[0] + str(i) for i, (_, m) in enumerate(BAD)])
def test_invalid_handoff_specs_name_field_value_and_what_is_allowed(flow, message):
    with pytest.raises(tcplab.ScenarioError) as e:
        scenario(**flow).normalised()
    assert str(e.value).startswith(message), str(e.value)


def test_freeze_tcp_needs_the_disconnection_times_and_udp_flows_take_no_handoffs():
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.handoffs\[0\]\.disconnect: is required for freeze_tcp"):
        scenario(cc="freeze_tcp", handoffs=[{"at": 3.0, "bandwidth": "1Mbps"}]).normalised()
    spec = (tcplab.Scenario(duration=1).dumbbell(pairs=1, bottleneck=dict(rate="2Mbps", delay="1ms"),
                                                 access=dict(rate="10Mbps", delay="1ms"))
            .flow(src="s0", dst="d0", transport="udp", rate="1Mbps", handoffs=H))
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.handoffs: are for TCP flows only"):
        spec.normalised()


def test_cli_exits_2_with_one_line(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text(scenario(handoffs=H, bandwidth_error=2).to_toml())
    status, _, err = main(capsys, "run", f, "--out", tmp_path / "out")
    assert status == 2 and one_line_error(err), err
    assert "flows[0].bandwidth_error: 2 is not allowed" in err


def test_normalised_spec_forces_the_handshake_and_keeps_the_records():
    n = scenario(handoffs=H, bandwidth_error=0.15, freeze_offset=-0.1).normalised()
    f = n["flows"][0]
    assert f["tcp"]["handshake"] is True
    assert f["handoffs"] == [{"at": 3.0, "bandwidth": 7e6, "disconnect": 2.0}]
    assert (f["bandwidth_error"], f["freeze_offset"]) == (0.15, -0.1)
    # a flow without handoffs has none of these keys (and its spec is as before)
    plain = scenario(cc="newreno").normalised()["flows"][0]
    assert not {"handoffs", "bandwidth_error", "freeze_offset"} & set(plain)
    assert not any(k.startswith("ho_") for k in plain["tcp"])
    assert plain["tcp"]["handshake"] is False


def tcp_options(pcap: bytes):
    """(flags, [(kind, value bytes)], window) of every TCP segment of a pcap."""
    out, at = [], 24
    while at + 16 <= len(pcap):
        caplen = struct.unpack_from("<I", pcap, at + 8)[0]
        ip = pcap[at + 16: at + 16 + caplen]
        at += 16 + caplen
        if ip[9] != 6:
            continue
        tcp = ip[20:]
        doff = (tcp[12] >> 4) * 4
        opts, i = [], 20
        while i < doff:
            if tcp[i] == 0:
                break
            if tcp[i] == 1:
                i += 1
                continue
            n = tcp[i + 1]
            opts.append((tcp[i], bytes(tcp[i + 2: i + n])))
            i += n
        out.append((tcp[13], opts, struct.unpack_from(">H", tcp, 14)[0]))
    return out


def test_tcp_ho_end_to_end_negotiates_notifies_with_the_estimate_and_shows_options():
    # Three handoffs on a clean path: no timeout, so every notification is ignored by the
    # anti-cheating rule (reason 1) and the flow runs as NewReno would.
    handoffs = [{"at": t, "bandwidth": "2Mbps"} for t in (2.0, 4.0, 6.0)]
    spec = scenario(handoffs=handoffs, bandwidth_error=0.15, tcp={"ho_bandwidth_len": 4}).pcap("d0", "r2")
    r = tcplab.run(spec, seed=1)
    ev = r.events
    assert list(ev[ev.event == "ho_negotiated"].value) == [1.0]
    done = ev[ev.event == "handoff_complete"]
    assert list(done.time) == [2.0, 4.0, 6.0]
    kbps = list(done.value)
    assert all(1700 <= k <= 2300 for k in kbps) and len(set(kbps)) == 3, kbps  # 2000 ± 15 %
    ignored = ev[ev.event == "ho_option_ignored"]
    assert len(ignored) == 6 and set(ignored.value) == {1.0}
    assert (ev.event == "ho_option_accepted").sum() == 0
    segs = tcp_options(r.pcaps["d0-r2"])
    assert segs[0][0] == 0x12 and segs[0][1] == [(253, b"\x00\x01")], segs[0]
    bw = [o for s in segs for o in s[1] if o[0] == 254]
    assert [struct.unpack(">H", v)[0] for _, v in bw] == [k for k in kbps for _ in (0, 1)]
    # the estimates come from the flow's own stream: the same per seed, other with another
    same_seed = tcplab.run(scenario(handoffs=handoffs, bandwidth_error=0.15), seed=1)
    assert list(same_seed.events[same_seed.events.event == "handoff_complete"].value) == kbps
    other = tcplab.run(scenario(handoffs=handoffs, bandwidth_error=0.15), seed=2)
    assert list(other.events[other.events.event == "handoff_complete"].value) != kbps


def test_freeze_tcp_end_to_end_freezes_before_the_disconnection_and_resumes():
    handoffs = [{"at": 5.0, "bandwidth": "2Mbps", "disconnect": 4.0}]
    r = tcplab.run(scenario(cc="freeze_tcp", handoffs=handoffs), seed=1)
    ev = r.events
    zwa = ev[ev.event == "zwa_sent"]
    enter, leave = ev[ev.event == "persist_enter"], ev[ev.event == "persist_exit"]
    assert len(zwa) == len(enter) == len(leave) == 1
    # one RTT before the disconnection; the sender hears it half an RTT later
    assert 3.5 < zwa.time.iloc[0] < 4.0
    assert zwa.time.iloc[0] < enter.time.iloc[0] < 4.0
    assert 5.0 < leave.time.iloc[0] < 5.2
    assert enter.value.iloc[0] == leave.value.iloc[0], "cwnd frozen"
    assert not ((ev.event == "timeout") & (ev.time > enter.time.iloc[0]) & (ev.time < leave.time.iloc[0])).any()
    # a late prediction: the zero window leaves later by freeze_offset
    late = tcplab.run(scenario(cc="freeze_tcp", handoffs=handoffs, freeze_offset=0.5), seed=1)
    z2 = late.events[late.events.event == "zwa_sent"].time.iloc[0]
    assert z2 > zwa.time.iloc[0] + 0.4


def test_the_ns2_translator_refuses_handoffs():
    from tcplab import ns2

    with pytest.raises(ns2.Ns2Error, match=r"flows\[0\]\.handoffs: ns-2's agents get no handoff notifications"):
        ns2.tcl_script(scenario(cc="newreno", handoffs=H).normalised(), 1)


def wireless(cc, down=20.0, up=22.5, duration=30):
    """Server - base station (100 Mb/s, 50 ms) - mobile host over WCDMA (200 kb/s, 150 ms,
    20 packets), down from `down` to `up`, then WLAN (7 Mb/s, 5 ms): a U-VH handoff."""
    return (tcplab.Scenario(duration=duration, sample_interval=0.05)
            .node("server").node("bs").node("mh")
            .link("server", "bs", "100Mbps", "50ms", queue=1000)
            .link("bs", "mh", "200kbps", "150ms", queue=20)
            .link_change("bs-mh", at=down, state="down", queued="drop")
            .link_change("bs-mh", at=up, rate="7Mbps", delay="5ms", state="up")
            .flow(src="server", dst="mh", cc=cc, tcp={"min_rto": 1.0},
                  handoffs=[{"at": up, "bandwidth": "7Mbps", "disconnect": down}]))


def test_u_vh_handoff_end_to_end_tcp_ho_against_newreno():
    nr = tcplab.run(wireless("newreno"), seed=1)
    ho = tcplab.run(wireless("tcp_ho"), seed=1)
    ev_nr, ev_ho = nr.events, ho.events
    # NewReno: no notification is used; its first retransmission after the reconnection is a
    # timeout later than the reconnection (silly waiting), ssthresh 2 (slow start problem)
    after = ev_nr[(ev_nr.event == "timeout") & (ev_nr.time > 22.5)]
    assert len(after) >= 1 and after.time.iloc[0] > 22.5 + 0.5
    assert (ev_nr.event == "ho_option_accepted").sum() == 0
    # TCP-HO: accepted one wireless + wired crossing after the reconnection, ssthresh from
    # the old path's srtt (the srtt sampled inside the outage) and 7 Mb/s
    acc = ev_ho[ev_ho.event == "ho_option_accepted"]
    assert len(acc) == 1 and 22.5 + 0.055 < acc.time.iloc[0] < 22.5 + 0.065
    ts = ho.flow_ts
    sr_old = ts[(ts.time > 21.0) & (ts.time < 22.5)].srtt.iloc[0]
    enter = ev_ho[ev_ho.event == "ho_adjust_enter"].value.iloc[0]
    assert enter == pytest.approx(7e6 / 8 * sr_old / 1000, rel=1e-9)
    assert ho.flows.goodput_bps.iloc[0] > 1.5 * nr.flows.goodput_bps.iloc[0]
