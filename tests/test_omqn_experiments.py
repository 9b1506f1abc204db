"""The OMQN paper's experiments (Figs. 4-8) on their quick sizes: model and simulation side by side."""
import json

import pandas as pd
import pytest

from tcplab.experiments.omqn import arrival_rate, poisson_flows_spec
from tcplab.sweep import run_experiment
from tcplab.verdicts import FAILS, HOLDS, outcome_of


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("omqn")


def table(d, name):
    return pd.read_csv(d / "tables" / f"{name}.csv")


def findings(d):
    return json.loads((d / "experiment.json").read_text())["findings"]


def finding(d, text):
    hits = [f for f in findings(d) if text in f]
    assert len(hits) == 1, (text, findings(d))
    return outcome_of(hits[0])


def test_arrival_rate_gives_the_nominal_load():
    # ρ = λ·L·S/C with 1040-byte wire packets: 0.9 of 10 Mb/s in 100-packet flows
    lam = arrival_rate("PEERING", 0.9, 100)
    assert lam * 100 * 1040 * 8 == pytest.approx(0.9 * 10e6)
    spec = poisson_flows_spec("PEERING", "rfs+esse", 0.9, 32, 100, 200.0, error="tbe")
    g = spec["generators"][0]
    assert g["cc_params"] == {"error": "tbe"} and g["tcp"]["rwnd"] == 32 and g["stop"] == 140.0
    assert sum(l["delay"] for l in spec["links"]) * 2 == pytest.approx(0.100)


def test_modifications_model_and_simulation_agree_on_the_ordering(out):
    d, rep = run_experiment("omqn_modifications", size="quick", jobs=2, out=out)
    assert not rep.failed
    t = table(d, "modifications")
    assert t["sim unfinished"].eq(0).all() and t["sim flows"].min() > 500
    for src in ("model", "sim"):
        x = t.set_index(["mws", "load", "cc"])[f"{src} drop_rate"].unstack("cc")
        assert (x["esse"] < 0.7 * x["newreno"]).all(), f"{src}: ESSE cuts the drop rate"
        assert (x["rfs+wpp+esse"] < x["newreno"]).all()
    assert finding(d, "model: ESSE's drop rate is below NewReno's") == HOLDS
    assert finding(d, "model: without ESSE the drop rate is NewReno's") == HOLDS
    assert finding(d, "sim: ESSE's drop rate is below NewReno's") != FAILS
    assert {p.name for p in (d / "figures").glob("*.png")} >= {"drop_rate_mws16.png", "completion_mws32.png"}


def test_flow_lengths_cover_every_error_model(out):
    d, rep = run_experiment("omqn_flow_lengths", size="quick", jobs=2, out=out)
    assert not rep.failed
    t = table(d, "flow_lengths")
    assert set(t["variant"]) == {"NewReno", "all three, BBE", "all three, TBE", "all three, NBE"}
    assert set(t["flow_packets"]) == {60, 100, 200} and set(t["scenario"]) == {"ACCESS", "PEERING"}
    hi = t[t["sim completion_time"].notna()].set_index(["scenario", "flow_packets", "variant"])["sim completion_time"]
    hi = hi.unstack("variant")
    assert (hi["all three, BBE"] < hi["NewReno"]).all(), "the exact share beats NewReno at load 0.9"
    # longer flows take longer, in the model and in the simulator
    for src in ("model", "sim"):
        nr = t[(t["variant"] == "NewReno") & (t["load"] == 0.9)].set_index(["scenario", "flow_packets"])
        c = nr[f"{src} completion_time"].unstack("flow_packets")
        assert (c[60] < c[100]).all() and (c[100] < c[200]).all()


def test_validation_puts_model_and_simulation_on_the_same_axes(out):
    d, rep = run_experiment("omqn_validation", size="quick", jobs=2, out=out)
    assert not rep.failed
    t = table(d, "validation")
    assert len(t) == 8 and t["runs"].eq(2).all()
    assert t["model iterations"].gt(0).all()
    # the two readings of the model's bottleneck bracket the simulated drop rate (docs/omqn.md)
    lo = t[["model drop_rate", "model_ss drop_rate"]].min(axis=1)
    hi = t[["model drop_rate", "model_ss drop_rate"]].max(axis=1)
    assert ((t["sim drop_rate"] >= lo) & (t["sim drop_rate"] <= hi)).all()
    assert any(x.startswith("agreement:") for x in findings(d))
    assert finding(d, "model: RFS+ESSE greatly reduces the drop rate") == HOLDS
    assert finding(d, "model: completion time improves at high load") == HOLDS
    # 2 seeds: the simulated claims may be inconclusive, never contradicted
    assert finding(d, "sim: RFS+ESSE greatly reduces the drop rate") != FAILS
