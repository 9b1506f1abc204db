"""The Westwood paper's headline claims, checked on the quick experiment sizes."""
import pandas as pd
import tcplab
import pytest

from tcplab.sweep import run_experiment


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("westwood")


def table(d, name):
    return pd.read_csv(d / "tables" / f"{name}.csv")


def test_lossy_path_gains_and_ordering(out):
    d, rep = run_experiment("westwood_lossy_path", size="quick", jobs=2, out=out)
    assert not rep.failed
    f16 = table(d, "fig16").set_index("wireless loss rate")
    assert f16.loc[0.01, "BE gain %"] > 150, "BE gains a lot over NewReno at 1 % loss (paper: up to 320 %)"
    assert f16.loc[0.01, "BE Mb/s"] >= f16.loc[0.01, "CRB Mb/s"] > f16.loc[0.01, "RE Mb/s"] > f16.loc[0.01, "NewReno Mb/s"]
    f17 = table(d, "fig17").set_index("wired one-way delay (ms)")
    assert abs(f17.loc[5.0, "BE gain %"]) < 10, "all protocols equal on short paths"
    f18 = table(d, "fig18").set_index("wireless capacity (Mb/s)")
    assert f18.loc[20.0, "BE gain %"] > f18.loc[2.0, "BE gain %"], "gains grow with capacity"


def test_loss_cause_discrimination(out):
    d, rep = run_experiment("westwood_loss_cause", size="quick", jobs=2, out=out)
    t = table(d, "loss_cause").set_index("case")
    assert t.loc["congestion (Fig. 12)", "CRB picks RE"] > 0.7
    assert t.loc["errors (Fig. 13)", "CRB picks RE"] < 0.3
    assert t.loc["congestion (Fig. 12)", "median cwnd/(RE·RTTmin)"] > 1.4 > t.loc["errors (Fig. 13)", "median cwnd/(RE·RTTmin)"]


def test_estimators_be_overestimates_re_tracks_share(out):
    d, rep = run_experiment("westwood_estimators", size="quick", jobs=2, out=out)
    f3 = table(d, "fig3").set_index("TCPW flow")
    assert f3.loc["BE", "BE estimate Mb/s"] > 3.0 > f3.loc["RE", "RE estimate Mb/s"]
    t1 = table(d, "table1").set_index("combination")
    assert t1.loc["BE & NewReno", "TCPW Mb/s"] > t1.loc["RE & NewReno", "TCPW Mb/s"]


def test_fairness_and_tradeoff_tables(out):
    d, rep = run_experiment("westwood_fairness", size="quick", jobs=2, out=out)
    assert not rep.failed
    f19 = table(d, "fig19")
    assert (f19["Jain index"] > 0.95).all()
    f22 = table(d, "fig22").set_index("buffer")
    smallest = f22.index.min()
    assert f22.loc[smallest, "BE"] > f22.loc[smallest, "RE"], "BE is less friendly than RE at a small buffer"
    d, rep = run_experiment("westwood_tradeoff", size="quick", jobs=2, out=out)
    f24 = table(d, "fig24")
    assert set(f24["TCPW"]) == {"BE", "CRB"} and f24["G"].notna().all() and f24["L"].notna().all()


def test_topology_b_routes_acks_apart_and_lone_flows_are_unchanged(out):
    from tcplab.experiments.westwood import bottleneck_spec

    r = tcplab.run(bottleneck_spec(["westwood_crb"], 5e6, 0.07, 32, 0.01, 20, 1, ack_path="separate"), seed=1)
    links = r.links.set_index(["src", "dst"])
    assert links.loc[("r2", "r1"), "arrivals"] == 0 and links.loc[("r3", "r1"), "arrivals"] > 500
    d, rep = run_experiment("westwood_ack_path", size="quick", jobs=2, out=out)
    assert not rep.failed
    t = table(d, "ack_path")
    alone = t[~t["who"].str.contains(":")]
    assert len(alone) == 8 and alone["verdict"].str.startswith("holds").all()
