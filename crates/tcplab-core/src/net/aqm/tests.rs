//! The disciplines inside a network: one link direction (8 Mb/s, a 1000-byte packet takes
//! 1 ms) fed with packets created here, ECN-capable or not; conservation, marks on the
//! packets that arrive, and the scheduled path's order of departures.
use super::super::{Ecn, LinkDir, Network, Packet, Route};
use super::Aqm;
use crate::scenario::{CodelSpec, Discipline, FqCodelSpec, RedSpec};
use crate::sim::{Ev, Queue, Rng, Time};
use crate::tcp::Kind;

const MS: Time = 1_000_000;

fn network(d: Option<Discipline>, flows: u32) -> Network {
    let mut fwd = LinkDir::new(0, 0, 1, 8e6, 10 * MS, 100, 0.0, Rng::from_seed(1));
    if let Some(d) = d {
        fwd.manage(Aqm::new(&d, 8e6, Rng::from_seed(2)));
    }
    let back = LinkDir::new(0, 1, 0, 8e6, 10 * MS, 100, 0.0, Rng::from_seed(3));
    let mut net = Network::new(vec![fwd, back], vec![], vec![]);
    let r = net.add_route(Route {
        fwd: vec![0],
        rev: vec![1],
    });
    for f in 0..flows {
        net.attach(f, r);
    }
    net
}

/// Send `(time, flow, size, ecn)` packets in time order; the packets that reach the far
/// end, with their arrival times.
fn run(net: &mut Network, sends: &[(Time, u32, u32, Ecn)]) -> Vec<(Time, Packet)> {
    let mut q = Queue::new();
    let mut out = vec![];
    let pump = |q: &mut Queue, net: &mut Network, limit: Time, out: &mut Vec<(Time, Packet)>| {
        while let Some((t, ev)) = q.pop_until(limit) {
            let Ev::Net(e) = ev else { unreachable!() };
            if let Some(c) = net.handle(t, e, q) {
                assert!(c.delivered);
                out.push((t, net.take_delivered(c.p)));
            }
        }
    };
    for (seq, &(t, flow, size, ecn)) in sends.iter().enumerate() {
        pump(&mut q, net, t, &mut out);
        q.advance_to(t);
        let p = Packet {
            flow,
            kind: Kind::Data,
            at: 0,
            size,
            seq: seq as u64,
            ts: t,
            ts_echo: 0,
            sack: 0,
            ecn: ecn.into(),
        };
        net.send(t, p, &mut q);
    }
    pump(&mut q, net, Time::MAX, &mut out);
    let l = &net.links[0];
    assert_eq!(l.arrivals, l.delivered + l.drops_queue + l.drops_loss + l.in_system);
    assert_eq!((l.in_system, net.pool.live()), (0, 0), "everything delivered or freed");
    out
}

/// `n` packets of flow 0, one every `gap`.
fn stream(n: u64, gap: Time, ecn: Ecn) -> Vec<(Time, u32, u32, Ecn)> {
    (0..n).map(|k| (k * gap, 0, 1000, ecn)).collect()
}

fn red(ecn: bool) -> Discipline {
    Discipline::Red(RedSpec {
        limit: 100,
        min_th: 2.0,
        max_th: 6.0,
        q_weight: 0.2,
        max_p: 0.2,
        gentle: true,
        wait: true,
        mean_pktsize: 1000,
        ecn,
    })
}

#[test]
fn managed_droptail_is_the_plain_queue_with_its_delay_measured() {
    // 1.25 packets per transmission time: the queue fills, then drops
    let sends = stream(2000, 800_000, Ecn::NotEct);
    let mut plain = network(None, 1);
    let mut managed = network(Some(Discipline::Droptail { limit: 100 }), 1);
    let a = run(&mut plain, &sends);
    let b = run(&mut managed, &sends);
    let seqs = |v: &[(Time, Packet)]| v.iter().map(|(t, p)| (*t, p.seq)).collect::<Vec<_>>();
    assert_eq!(seqs(&a), seqs(&b));
    let (lp, lm) = (&plain.links[0], &managed.links[0]);
    assert!(lp.drops_queue > 100);
    assert_eq!((lp.drops_queue, lp.busy_ns), (lm.drops_queue, lm.busy_ns));
    let s = &lm.aqm().unwrap().stats;
    assert_eq!(s.count(), lm.delivered);
    // a full queue of 100: the last packets waited 99 transmissions
    assert!((s.max() - 0.099).abs() < 0.0011, "{}", s.max());
}

#[test]
fn red_ages_its_average_over_the_links_idle_time() {
    // 8 Mb/s with 1000-byte mean packets: ptc = 1000 packets per second
    let spec = RedSpec {
        q_weight: 0.5,
        mean_pktsize: 1000,
        ..match red(false) {
            Discipline::Red(r) => r,
            _ => unreachable!(),
        }
    };
    let mut l = LinkDir::new(0, 0, 1, 8e6, 0, 100, 0.0, Rng::from_seed(1));
    l.manage(Aqm::new(&Discipline::Red(spec), 8e6, Rng::from_seed(2)));
    let avg = |l: &LinkDir| l.aqm().unwrap().red_avg().unwrap();
    // four packets at 0: they find 0, 0 (one in service), 1 and 2 waiting
    for _ in 0..4 {
        assert_eq!(
            l.managed_verdict(0, false),
            super::super::Verdict::Accept { mark: false }
        );
        l.admit(0, 1000);
    }
    assert_eq!(avg(&l), 1.25);
    // the link is busy until 4 ms; an arrival at 14.5 ms finds it idle for 10.5 ms: the
    // average ages as floor(1000 · 0.0105) = 10 arrivals to an empty queue, then this one
    l.managed_verdict(14_500_000, false);
    assert_eq!(avg(&l), 1.25 * 0.5f64.powi(11));
    // an arrival while the link is busy is not an idle period
    l.admit(14_500_000, 1000);
    let before = avg(&l);
    l.managed_verdict(15_000_000, false);
    assert_eq!(avg(&l), before * 0.5);
}

#[test]
fn red_marks_ect_packets_and_drops_the_others() {
    // 2 packets per transmission time for 0.4 s, then idle
    let ect = stream(800, 500_000, Ecn::Ect0);
    let not = stream(800, 500_000, Ecn::NotEct);
    let mut net = network(Some(red(true)), 1);
    let out = run(&mut net, &ect);
    let aqm = net.links[0].aqm().unwrap();
    let ce = out.iter().filter(|(_, p)| p.ecn.codepoint() == Ecn::Ce).count() as u64;
    assert!(aqm.marks > 10, "{}", aqm.marks);
    assert_eq!(ce, aqm.marks, "every mark reaches the far end");
    assert_eq!(aqm.drops_aqm, 0, "no early drop of an ECN-capable packet");
    let mut net = network(Some(red(true)), 1);
    run(&mut net, &not);
    let aqm = net.links[0].aqm().unwrap();
    assert_eq!(aqm.marks, 0);
    assert!(aqm.drops_aqm > 10);
    // ECN off: ECT packets are dropped too
    let mut net = network(Some(red(false)), 1);
    let out = run(&mut net, &ect);
    assert!(out.iter().all(|(_, p)| p.ecn.codepoint() == Ecn::Ect0));
    assert!(net.links[0].aqm().unwrap().drops_aqm > 10);
}

fn codel(ecn: bool) -> Discipline {
    Discipline::Codel(CodelSpec {
        limit: 1000,
        target: 0.005,
        interval: 0.1,
        ecn,
    })
}

#[test]
fn codel_keeps_the_delay_near_target_under_overload() {
    // 1.1 packets per transmission time for 10 s: without AQM the queue would grow to
    // 900 packets; CoDel drops a few to keep the sojourn near its target
    let sends = stream(11_000, 909_091, Ecn::NotEct);
    let mut net = network(Some(codel(false)), 1);
    let out = run(&mut net, &sends);
    let l = &net.links[0];
    let aqm = l.aqm().unwrap();
    assert!(
        aqm.drops_aqm > 100 && aqm.drops_aqm == l.drops_queue,
        "{}",
        aqm.drops_aqm
    );
    assert!(aqm.stats.mean() < 0.1, "mean sojourn {}", aqm.stats.mean());
    // departures are in order and one transmission time apart while busy
    for w in out.windows(2) {
        assert!(w[1].1.seq > w[0].1.seq);
        assert!(w[1].0 - w[0].0 >= MS);
    }
    // with ECN every signal is a mark
    let ect = stream(11_000, 909_091, Ecn::Ect0);
    let mut net = network(Some(codel(true)), 1);
    let out = run(&mut net, &ect);
    let aqm = net.links[0].aqm().unwrap();
    assert_eq!(aqm.drops_aqm, 0);
    assert!(aqm.marks > 100);
    assert_eq!(
        out.iter().filter(|(_, p)| p.ecn.codepoint() == Ecn::Ce).count() as u64,
        aqm.marks
    );
}

#[test]
fn fq_codel_serves_a_sparse_flow_before_a_backlogged_one() {
    let spec = Discipline::FqCodel(FqCodelSpec {
        limit: 10240,
        target: 0.005,
        interval: 0.1,
        ecn: false,
        flows: 1024,
        quantum: 1514,
    });
    // flow 0 sends 300 packets at once; flow 1 one small packet every 50 ms
    let mut sends: Vec<(Time, u32, u32, Ecn)> = (0..300).map(|_| (0, 0, 1000, Ecn::NotEct)).collect();
    sends.extend((1..6).map(|k| (k * 50 * MS, 1, 100, Ecn::NotEct)));
    sends.sort_by_key(|s| s.0);
    let mut net = network(Some(spec), 2);
    let out = run(&mut net, &sends);
    for (t, p) in out.iter().filter(|(_, p)| p.flow == 1) {
        // sent at k·50 ms, it waits at most for the packet being transmitted (1 ms), is
        // sent in 0.1 ms and propagates 10 ms
        let sent = p.ts;
        assert!(*t - sent <= 11_200_000, "flow 1 waited {} ns", *t - sent - 10 * MS);
    }
    let l = &net.links[0];
    assert_eq!(l.delivered + l.drops_queue, 305);
}
