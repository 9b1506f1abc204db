//! A running world seen from outside (the KentRidge console, `tcplab.Simulation`): run it
//! in steps, list its live connections with their 4-tuples, algorithms and statistics,
//! and switch one connection's algorithm by hand.
//!
//! Running in steps is running once: `run_until` processes the same events in the same
//! order as a whole run does. A manual switch at time t happens before every event at t,
//! which is where a scheduled `switch` at t happens too (it was scheduled at the set-up,
//! before anything the run schedules at t).
use super::World;
use crate::api::{Column, Table};
use crate::cc::Phase;
use crate::sim::{to_secs, Time};
use crate::tcp::{ConnState, Env};
use std::collections::HashSet;
use std::sync::Mutex;

/// The destination port of a connection whose spec gives no `tcp.dport`, as the packet
/// captures write it (`observe/capture.rs`): flow `f` is `src:1024 + f % 60000 ->
/// dst:tcp.dport`, 5001 by default.
pub const DPORT: u16 = crate::scenario::DEFAULT_DPORT;

/// The source port of flow `f` (as the packet captures write it).
pub fn sport(f: u32) -> u16 {
    1024 + (f % 60000) as u16
}

/// The label the connection table's `pipe` column shows while no classifier is attached.
pub const UNCLASSIFIED: &str = "unclassified";

/// A name for the events table that lives as long as the program (the table holds
/// `&'static str`); each distinct name is allocated once.
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = names.get_or_insert_with(HashSet::new);
    if let Some(s) = set.get(name) {
        return s;
    }
    let s: &'static str = Box::leak(name.to_string().into_boxed_str());
    set.insert(s);
    s
}

fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::SlowStart => "slow_start",
        Phase::CongestionAvoidance => "congestion_avoidance",
        Phase::FastRecovery => "fast_recovery",
        Phase::TimeoutRecovery => "timeout_recovery",
    }
}

fn state_name(s: ConnState) -> &'static str {
    match s {
        ConnState::Idle => "not_started",
        ConnState::SynSent => "syn_sent",
        ConnState::Established => "established",
        ConnState::FinSent => "fin_sent",
        ConnState::Closed => "closed",
    }
}

impl World {
    /// The simulated time the world has reached (nanoseconds).
    pub fn now(&self) -> Time {
        self.k.q.now()
    }

    /// The run's end (nanoseconds).
    pub fn end(&self) -> Time {
        self.k.end
    }

    /// Process every event before `t` (at most the run's end) and move the clock to `t`;
    /// the events at `t` itself are left for the next step, so that what is done between
    /// steps happens before them. `progress` and `wall_limit` as for
    /// [`World::run_observed`]. The clock never goes back: an earlier `t` does nothing.
    pub fn run_until(
        &mut self,
        t: Time,
        wall_limit: Option<f64>,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<(), String> {
        let t = t.min(self.k.end);
        if t <= self.now() || t == 0 {
            return Ok(());
        }
        self.k.run_until(&mut self.c, t - 1, wall_limit, progress)?;
        self.k.q.advance_to(t);
        Ok(())
    }

    /// The network-pipe type of connection `f` as KentRidge's classifier sees it now;
    /// [`UNCLASSIFIED`] for a connection without KentRidge.
    pub fn pipe_type(&self, f: u32) -> &str {
        match &self.c.tcp.flows[f as usize].kr {
            Some(kr) => kr.npc.current.name(),
            None => UNCLASSIFIED,
        }
    }

    /// The flow ids of the live TCP connections, in id order (UDP flows and the retired
    /// flows of summary generators are not connections one can look at).
    pub fn connection_ids(&self) -> Vec<u32> {
        self.c
            .tcp
            .flows
            .iter()
            .filter(|(_, f)| !f.udp)
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// The 4-tuple of flow `f`: (source address, source port, destination address,
    /// destination port), as the packet captures write them.
    pub fn four_tuple(&self, f: u32) -> (String, u16, String, u16) {
        let (a, b) = self.c.net.route_ends(f);
        let addr = |n: u32| self.spec.nodes[n as usize].address.clone();
        let dport = self.c.tcp.flows[f as usize].spec.tcp.dport;
        (addr(a), sport(f), addr(b), dport)
    }

    /// One row per live TCP connection, now: `flow, name, src, sport, dst, dport,
    /// algorithm, state, phase, cwnd, ssthresh, srtt, rttvar, min_rtt, flight, delivered,
    /// retransmits, timeouts, pipe` (RTTs in seconds: srtt and rttvar 0 and min_rtt
    /// infinite before the first sample; flight, delivered in segments).
    pub fn connections(&self) -> Table {
        let ids = self.connection_ids();
        let n = ids.len();
        let (mut flow, mut name, mut src, mut sp, mut dst, mut dp) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let (mut algo, mut state, mut phase, mut pipe) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut cwnd, mut ssthresh, mut srtt, mut rttvar, mut min_rtt) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut flight, mut delivered, mut retx, mut timeouts) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for &f in &ids {
            let fl = &self.c.tcp.flows[f as usize];
            let s = &fl.sender;
            let (a, p, b, q) = self.four_tuple(f);
            flow.push(u64::from(f));
            name.push(fl.spec.name.clone());
            src.push(a);
            sp.push(u64::from(p));
            dst.push(b);
            dp.push(u64::from(q));
            algo.push(s.cc.name().to_string());
            state.push(state_name(s.state).to_string());
            phase.push(phase_name(s.st.phase).to_string());
            cwnd.push(s.st.cwnd);
            ssthresh.push(s.st.ssthresh);
            srtt.push(s.st.srtt);
            rttvar.push(s.st.rttvar);
            min_rtt.push(s.st.min_rtt);
            flight.push(s.snd_max - s.snd_una);
            delivered.push(fl.receiver.delivered());
            retx.push(s.stats.retransmits);
            timeouts.push(s.stats.timeouts);
            pipe.push(self.pipe_type(f).to_string());
        }
        let col = |n: &str, c: Column| (n.to_string(), c);
        Table {
            columns: vec![
                col("flow", Column::U64(flow)),
                col("name", Column::Str(name)),
                col("src", Column::Str(src)),
                col("sport", Column::U64(sp)),
                col("dst", Column::Str(dst)),
                col("dport", Column::U64(dp)),
                col("algorithm", Column::Str(algo)),
                col("state", Column::Str(state)),
                col("phase", Column::Str(phase)),
                col("cwnd", Column::F64(cwnd)),
                col("ssthresh", Column::F64(ssthresh)),
                col("srtt", Column::F64(srtt)),
                col("rttvar", Column::F64(rttvar)),
                col("min_rtt", Column::F64(min_rtt)),
                col("flight", Column::U64(flight)),
                col("delivered", Column::U64(delivered)),
                col("retransmits", Column::U64(retx)),
                col("timeouts", Column::U64(timeouts)),
                col("pipe", Column::Str(pipe)),
            ],
        }
    }

    /// The live TCP connection `conn` names: a flow name, or a 4-tuple
    /// `src:sport-dst:dport` (e.g. `10.0.0.1:1024-10.0.0.4:5001`). The error is one line
    /// naming the value and what is allowed.
    pub fn find_connection(&self, conn: &str) -> Result<u32, String> {
        let conn = conn.trim();
        let ids = self.connection_ids();
        let by_name: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|&f| self.c.tcp.flows[f as usize].spec.name == conn)
            .collect();
        let found = if !by_name.is_empty() {
            by_name
        } else if let Some(t) = parse_four_tuple(conn) {
            ids.iter().copied().filter(|&f| self.four_tuple(f) == t).collect()
        } else {
            Vec::new()
        };
        match found.as_slice() {
            [f] => Ok(*f),
            [] => {
                let example = ids.first().map_or(String::new(), |&f| {
                    let (a, p, b, q) = self.four_tuple(f);
                    format!(
                        " (e.g. {:?} or \"{a}:{p}-{b}:{q}\")",
                        self.c.tcp.flows[f as usize].spec.name
                    )
                });
                let what = if ids.is_empty() {
                    "there is no live TCP connection now".to_string()
                } else {
                    format!("allowed: the name or the 4-tuple src:sport-dst:dport of one of the {} live TCP connections{example}", ids.len())
                };
                Err(format!("connection: {conn:?} matches no live TCP connection; {what}"))
            }
            _ => Err(format!(
                "connection: {conn:?} matches {} live connections (flows {}); give a 4-tuple src:sport-dst:dport",
                found.len(),
                found.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// Switch connection `f` to algorithm `name` now, with the flow's `cc_params`, as a
    /// scheduled `switch` does, and record it in the events table as
    /// `manual_switch:<algorithm>` (value: cwnd at the switch). Returns the algorithm's
    /// canonical name; the error names the field, the value and what is allowed.
    pub fn switch_connection(&mut self, f: u32, name: &str) -> Result<&'static str, String> {
        if !self.c.tcp.flows.is_live(f) || self.c.tcp.flows[f as usize].udp {
            return Err(format!("connection: flow {f} is not a live TCP connection"));
        }
        let now = self.now();
        let c = &mut self.c;
        let cwnd = c.tcp.flows[f as usize].sender.st.cwnd;
        let mut env = Env {
            q: &mut self.k.q,
            net: &mut c.net,
            share: &mut c.share,
            apps: &mut c.traffic.generators,
        };
        let canon = c
            .tcp
            .switch_named(now, f, name, &mut env)
            .map_err(|e| format!("algorithm: {e}"))?;
        let event = intern(&format!("manual_switch:{canon}"));
        c.tcp.flows[f as usize].sender.note(now, event, cwnd);
        c.after_event(&mut self.k);
        Ok(canon)
    }

    /// Simulated seconds now.
    pub fn now_secs(&self) -> f64 {
        to_secs(self.now())
    }
}

/// `a.b.c.d:p-e.f.g.h:q` (spaces around the parts allowed, `->` as well as `-`).
fn parse_four_tuple(s: &str) -> Option<(String, u16, String, u16)> {
    let (l, r) = s.split_once("->").or_else(|| s.split_once('-'))?;
    let end = |x: &str| -> Option<(String, u16)> {
        let (a, p) = x.trim().rsplit_once(':')?;
        let a = a.trim();
        crate::scenario::parse_ipv4(a)?;
        Some((a.to_string(), p.trim().parse().ok()?))
    };
    let ((a, p), (b, q)) = (end(l)?, end(r)?);
    Some((a, p, b, q))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"{"sim": {"duration": 6, "sample_interval": "500ms"},
        "dumbbell": {"pairs": 2, "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": 30},
                     "access": {"rate": "100Mbps", "delay": "1ms"}},
        "flows": [{"name": "a", "src": "s0", "dst": "d0", "cc": "newreno"},
                  {"name": "b", "src": "s1", "dst": "d1", "cc": "cubic", "start": 1}]}"#;

    fn world() -> World {
        World::new(crate::scenario::parse(SPEC).unwrap(), 7).unwrap()
    }

    #[test]
    fn steps_give_the_tables_of_one_run() {
        let mut whole = world();
        whole.run();
        let mut steps = world();
        for t in [0.3, 0.3, 1.0, 2.5, 2.5000001, 5.9] {
            steps.run_until(crate::sim::secs(t), None, None).unwrap();
            assert_eq!(steps.now(), crate::sim::secs(t).max(steps.now()));
        }
        steps.run();
        assert_eq!(whole.events(), steps.events());
        let (a, b) = (whole.into_output(), steps.into_output());
        assert_eq!(
            (a.flows, a.links, a.flow_ts, a.link_ts, a.events),
            (b.flows, b.links, b.flow_ts, b.link_ts, b.events)
        );
    }

    #[test]
    fn a_manual_switch_equals_a_scheduled_one_but_for_its_event() {
        let mut v: serde_json::Value = serde_json::from_str(SPEC).unwrap();
        v["flows"][0]["switch"] = serde_json::json!([{"at": 2.5, "cc": "cubic"}]);
        let mut scheduled = World::new(crate::scenario::parse(&v.to_string()).unwrap(), 7).unwrap();
        scheduled.run();
        let mut manual = world();
        manual.run_until(crate::sim::secs(2.5), None, None).unwrap();
        let f = manual.find_connection("a").unwrap();
        assert_eq!(manual.switch_connection(f, "cubic"), Ok("cubic"));
        manual.run();
        let (a, b) = (scheduled.into_output(), manual.into_output());
        assert_eq!(
            (a.flows, a.links, a.flow_ts, a.link_ts),
            (b.flows, b.links, b.flow_ts, b.link_ts)
        );
        let names = |t: &Table| match t.column("event") {
            Some(Column::Str(v)) => v.clone(),
            _ => panic!("no event column"),
        };
        let mut ev = names(&b.events);
        let at = ev
            .iter()
            .position(|e| e == "manual_switch:cubic")
            .expect("the switch is recorded");
        assert_eq!(b.events.f64s("time")[at], 2.5);
        ev.remove(at);
        assert_eq!(names(&a.events), ev);
    }

    #[test]
    fn connections_by_name_and_four_tuple_and_clear_errors() {
        let mut w = world();
        w.run_until(crate::sim::secs(2.0), None, None).unwrap();
        let t = w.connections();
        assert_eq!(t.rows(), 2);
        let (a, p, b, q) = w.four_tuple(1);
        assert_eq!((p, q), (1025, 5001));
        let s1 = w.spec.nodes.iter().find(|n| n.name == "s1").unwrap().address.clone();
        assert_eq!(a, s1);
        assert_eq!(w.find_connection(&format!("{a}:{p}-{b}:{q}")), Ok(1));
        assert_eq!(w.find_connection(&format!(" {a}:{p} -> {b}:{q} ")), Ok(1));
        assert_eq!(w.find_connection("b"), Ok(1));
        let e = w.find_connection("zz").unwrap_err();
        assert!(
            e.starts_with("connection: \"zz\" matches no live TCP connection; allowed:"),
            "{e}"
        );
        let e = w.switch_connection(0, "vegas2").unwrap_err();
        assert!(
            e.starts_with("algorithm: unknown congestion-control algorithm \"vegas2\"; allowed: tahoe"),
            "{e}"
        );
        assert!(matches!(t.column("pipe"), Some(Column::Str(v)) if v.iter().all(|p| p == UNCLASSIFIED)));
        assert!(matches!(t.column("algorithm"), Some(Column::Str(v)) if v[..] == ["newreno", "cubic"]));
    }
}
