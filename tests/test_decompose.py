import pandas as pd

import tcplab
from tcplab.decompose import components, run_decomposed
from tcplab.topologies import abstract_internet


def model():
    # Three independent domains; in each, connections T1→ISDN and T3→T1 share no access link.
    return abstract_internet(0.05, 60, 60, {(2, 1): 3, (3, 2): 4}, domains=3, duration=40,
                             tcp={"send_jitter": 0.002})


def test_components_are_the_independent_groups():
    subs = components(model())
    assert len(subs) == 6
    assert sorted(len(s["flows"]) for s in subs) == [3, 3, 3, 4, 4, 4]


def test_decomposed_run_gives_exactly_the_undivided_results():
    spec = model()
    whole = tcplab.run(spec, seed=9)
    parts = run_decomposed(spec, seed=9, jobs=2)
    assert parts.summary["components"] == 6
    cols = [c for c in whole.flows.columns]
    a = whole.flows[cols].sort_values("name").reset_index(drop=True)
    b = parts.flows[cols].sort_values("name").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    used = whole.links[whole.links["arrivals"] > 0].sort_values("link").reset_index(drop=True)
    mine = parts.links.sort_values("link").reset_index(drop=True)
    pd.testing.assert_frame_equal(used, mine[used.columns], check_exact=True)
    assert (a["goodput_bps"] > 0).all()
