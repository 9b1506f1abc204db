//! The transport component: the glue between the TCP machines of every flow and the rest
//! of the world. It starts and stops connections, turns the segments they emit (`Tx`) into
//! packets, keeps one pending event per timer (RTO, delayed ACK, the algorithm's own
//! timer), hands arriving segments to the right endpoint, and calls the hooks of sharing,
//! statistics and the owning application at the points of a connection's life.
use super::{FlowTable, Kind, Tx};
use crate::cc;
use crate::net::{Network, Packet};
use crate::share::Share;
use crate::sim::{secs, to_secs, Queue, Time};
use crate::traffic::{FlowDone, Generators};

/// The transport's own events.
#[derive(Debug, Clone, Copy)]
pub enum TcpEv {
    Start(u32),
    Stop(u32),
    Rto(u32),
    DelAck(u32),
    /// Switch flow `.0` to its `.1`-th scheduled algorithm.
    Switch(u32, u32),
    /// The algorithm's own timer of flow `.0` (generation `.1`).
    CcTimer(u32, u32),
    /// A data packet leaves its sender after the random processing time.
    Inject(u32),
    /// Flow `.0`'s pacer may let more segments out.
    Pace(u32),
    /// Flow `.0`'s mobile host learns that its `.1`-th handoff is complete.
    Handoff(u32, u32),
    /// Freeze-TCP: flow `.0`'s mobile host checks whether its `.1`-th disconnection is one
    /// RTT away (it advertises a zero window then, or looks again at the new estimate).
    Freeze(u32, u32),
    /// TCP KentRidge's periodic classification of flow `.0`'s pipe.
    Classify(u32),
}

/// What the transport reaches while it handles an event: the queue, the network, the
/// sharing hooks, and the applications its flows report completion to.
pub struct Env<'a> {
    pub q: &'a mut Queue,
    pub net: &'a mut Network,
    pub share: &'a mut Share,
    pub apps: &'a mut Generators,
}

pub struct Transport {
    pub flows: FlowTable,
    scratch: Vec<Tx>,
    /// Packets waiting out their sender's processing time.
    pub injecting: u64,
    /// Completed flows of summary generators waiting for their last packets to leave.
    retiring: Vec<u32>,
    seed: u64,
}

impl Transport {
    pub fn new(flows: usize, seed: u64) -> Transport {
        Transport {
            flows: FlowTable::with_capacity(flows),
            scratch: Vec::with_capacity(64),
            injecting: 0,
            retiring: Vec::new(),
            seed,
        }
    }

    /// Open a flow on `route` (not started yet): it gets the next flow id. `sampled`: whether
    /// the time series sample it.
    pub fn open(
        &mut self,
        spec: std::sync::Arc<crate::scenario::FlowSpec>,
        route: u32,
        generator: Option<u32>,
        sampled: bool,
        net: &mut Network,
        share: &mut Share,
    ) -> Result<u32, String> {
        let flow = super::Flow::new(spec, generator, self.seed)?;
        let f = self.flows.push(flow, sampled);
        net.attach(f, route);
        share.on_attach(f, &mut self.flows[f as usize], net);
        Ok(f)
    }

    pub fn handle(&mut self, now: Time, ev: TcpEv, env: &mut Env) {
        if let TcpEv::Start(f)
        | TcpEv::Stop(f)
        | TcpEv::Rto(f)
        | TcpEv::DelAck(f)
        | TcpEv::Switch(f, _)
        | TcpEv::CcTimer(f, _)
        | TcpEv::Pace(f)
        | TcpEv::Handoff(f, _)
        | TcpEv::Freeze(f, _)
        | TcpEv::Classify(f) = ev
        {
            if !self.flows.is_live(f) {
                return; // a lazy timer of a retired flow
            }
        }
        match ev {
            TcpEv::Start(f) => self.start(now, f, env),
            TcpEv::Stop(f) => {
                self.flows[f as usize].sender.stop();
                self.set_active(f, false, env);
                env.share.leave(now, f, &self.flows);
            }
            TcpEv::Rto(f) => self.on_rto(now, f, env),
            TcpEv::DelAck(f) => self.on_delack(now, f, env),
            TcpEv::Switch(f, k) => self.switch(now, f, k, env),
            TcpEv::CcTimer(f, gen) => {
                if self.flows[f as usize].cc_timer_gen != gen {
                    return;
                }
                let mut out = std::mem::take(&mut self.scratch);
                self.flows[f as usize].sender.on_cc_timer(now, &mut out);
                self.emit(now, f, &mut out, env);
                self.scratch = out;
                self.arm_cc_timer(now, f, env.q);
            }
            TcpEv::Pace(f) => {
                let mut out = std::mem::take(&mut self.scratch);
                if self.flows[f as usize].sender.on_pace_event(now, &mut out) {
                    self.emit(now, f, &mut out, env);
                } else if let Some(d) = self.flows[f as usize].sender.pace_event_due() {
                    env.q.at(d, TcpEv::Pace(f));
                }
                self.scratch = out;
            }
            TcpEv::Handoff(f, k) => self.handoff(now, f, k, env),
            TcpEv::Freeze(f, k) => self.freeze(now, f, k, env),
            TcpEv::Classify(f) => {
                self.classify(now, f, env);
                let fl = &self.flows[f as usize];
                if let (Some(k), true) = (&fl.spec.kentridge, fl.sender.state != super::ConnState::Closed) {
                    env.q
                        .at(crate::kentridge::npc::next_due(now, k.interval), TcpEv::Classify(f));
                }
            }
            TcpEv::Inject(p) => {
                self.injecting -= 1;
                env.net.depart(now, p, env.q);
            }
        }
    }

    /// Flow `f` starts (its sender opens the connection).
    pub fn start(&mut self, now: Time, f: u32, env: &mut Env) {
        self.set_active(f, true, env);
        let overwritten = env.share.join(now, f, &mut self.flows);
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[f as usize];
        fl.sender.start(now, &mut out);
        fl.stats.on_start(&fl.sender);
        self.emit(now, f, &mut out, env);
        // FS: the existing members' windows changed; let them send what they may.
        for m in overwritten {
            self.flows[m as usize].sender.try_send(now, &mut out);
            self.emit(now, m, &mut out, env);
        }
        self.scratch = out;
        self.arm_cc_timer(now, f, env.q);
        if let Some(k) = &self.flows[f as usize].spec.kentridge {
            env.q
                .at(crate::kentridge::npc::next_due(now, k.interval), TcpEv::Classify(f));
        }
    }

    fn on_rto(&mut self, now: Time, f: u32, env: &mut Env) {
        let fl = &mut self.flows[f as usize];
        if fl.rto_event != Some(now) {
            return; // superseded by an earlier-scheduled event
        }
        fl.rto_event = None;
        match fl.sender.rto_deadline {
            Some(d) if d > now => {
                fl.rto_event = Some(d);
                env.q.at(d, TcpEv::Rto(f));
            }
            Some(_) => {
                let mut out = std::mem::take(&mut self.scratch);
                self.flows[f as usize].sender.on_timeout(now, &mut out);
                self.emit(now, f, &mut out, env);
                self.scratch = out;
            }
            None => {}
        }
    }

    fn on_delack(&mut self, now: Time, f: u32, env: &mut Env) {
        let fl = &mut self.flows[f as usize];
        if fl.delack_event != Some(now) {
            return;
        }
        fl.delack_event = None;
        match fl.receiver.delack_deadline {
            Some(d) if d > now => {
                fl.delack_event = Some(d);
                env.q.at(d, TcpEv::DelAck(f));
            }
            Some(_) => {
                let mut out = std::mem::take(&mut self.scratch);
                self.flows[f as usize].receiver.on_delack_timer(now, &mut out);
                self.emit(now, f, &mut out, env);
                self.scratch = out;
            }
            None => {}
        }
    }

    /// Flow `f`'s `k`-th scheduled switch (`switch` in its spec).
    fn switch(&mut self, now: Time, f: u32, k: u32, env: &mut Env) {
        let spec = std::sync::Arc::clone(&self.flows[f as usize].spec);
        // Validated when the spec was parsed.
        self.switch_named(now, f, &spec.switch[k as usize].cc, env)
            .expect("validated algorithm");
    }

    /// Switch flow `f` to the algorithm `name` (with the flow's `cc_params`) now: the entry
    /// point of scheduled switches and of the console's. Returns the algorithm's canonical
    /// name; an unknown name or parameters it rejects give the registry's error.
    pub fn switch_named(&mut self, now: Time, f: u32, name: &str, env: &mut Env) -> Result<&'static str, String> {
        let algo = cc::create(name, &self.flows[f as usize].spec.cc_params)?;
        let canon = algo.name();
        self.switch_cc(now, f, algo, env);
        Ok(canon)
    }

    /// Replace flow `f`'s congestion-control algorithm now (cwnd, ssthresh and the RTT
    /// estimates carry over; the algorithm's timer restarts).
    pub fn switch_cc(&mut self, now: Time, f: u32, algo: Box<dyn cc::CongestionControl>, env: &mut Env) {
        self.switch_cc_with(now, f, algo, false, env);
    }

    /// As [`Transport::switch_cc`]; with `init`, the new algorithm's `init` runs first
    /// ([`super::Sender::switch_cc_with`]).
    pub fn switch_cc_with(
        &mut self,
        now: Time,
        f: u32,
        algo: Box<dyn cc::CongestionControl>,
        init: bool,
        env: &mut Env,
    ) {
        let mut out = std::mem::take(&mut self.scratch);
        self.flows[f as usize].sender.switch_cc_with(now, algo, init, &mut out);
        self.emit(now, f, &mut out, env);
        self.scratch = out;
        self.flows[f as usize].cc_timer_gen += 1;
        self.arm_cc_timer(now, f, env.q);
    }

    fn set_active(&mut self, f: u32, active: bool, env: &mut Env) {
        let path = &env.net.route(f).fwd;
        env.share.set_active(&mut self.flows[f as usize], path, active);
    }

    fn arm_cc_timer(&mut self, now: Time, f: u32, q: &mut Queue) {
        let fl = &self.flows[f as usize];
        if let Some(iv) = fl.sender.cc.timer_interval() {
            let at = now.saturating_add(secs(iv).max(1));
            q.at(at, TcpEv::CcTimer(f, fl.cc_timer_gen));
        }
    }

    /// Flow `f`'s `k`-th handoff is complete: its mobile host is told, with the new link's
    /// bandwidth as the host estimates it (the true one times 1 + e, e uniform in
    /// ±`bandwidth_error`, from the flow's own stream).
    #[cold]
    fn handoff(&mut self, now: Time, f: u32, k: u32, env: &mut Env) {
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[f as usize];
        let Some(h) = fl.spec.handoff.as_ref() else {
            return;
        };
        let (bw, err) = (h.events[k as usize].bandwidth, h.bandwidth_error);
        let Some(m) = fl.receiver.mobile.as_deref_mut() else {
            return;
        };
        let est = if err > 0.0 {
            bw * (1.0 + err * (2.0 * m.rng.uniform() - 1.0))
        } else {
            bw
        };
        let kbps = (est / 1000.0).round().clamp(1.0, f64::from(u32::MAX)) as u32;
        fl.sender.note(now, "handoff_complete", f64::from(kbps));
        let n = fl.receiver.handoff_complete(now, kbps, &mut out);
        if n > 0 {
            fl.sender.note(now, "handoff_acks", n as f64);
        }
        self.emit(now, f, &mut out, env);
        self.scratch = out;
    }

    /// Freeze-TCP's prediction: the zero window leaves one RTT (the connection's smoothed
    /// RTT, the initial RTO before any sample) before the `k`-th disconnection, shifted by
    /// `freeze_offset`.
    #[cold]
    fn freeze(&mut self, now: Time, f: u32, k: u32, env: &mut Env) {
        let fl = &mut self.flows[f as usize];
        let Some(h) = fl.spec.handoff.as_ref() else {
            return;
        };
        let Some(disconnect) = h.events[k as usize].disconnect else {
            return;
        };
        let rtt = if fl.sender.st.srtt > 0.0 {
            fl.sender.st.srtt
        } else {
            fl.spec.tcp.initial_rto
        };
        let at = secs((disconnect + h.freeze_offset - rtt).max(0.0));
        if at > now {
            env.q.at(at, TcpEv::Freeze(f, k));
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        if fl.receiver.freeze(now, &mut out) {
            fl.sender.note(now, "zwa_sent", disconnect);
        }
        self.emit(now, f, &mut out, env);
        self.scratch = out;
    }

    /// A segment carrying one of the handoff protocols' options reaches its endpoint.
    #[cold]
    #[inline(never)]
    fn deliver_option(&mut self, now: Time, pkt: Packet, env: &mut Env) {
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[pkt.flow as usize];
        let s = &mut fl.sender;
        if pkt.kind == Kind::Syn {
            fl.receiver.on_syn_capability(now, pkt.ts, Some(pkt.sack), &mut out);
        } else {
            let opt = (pkt.ecn.option(), pkt.sack);
            s.on_option_ack(now, pkt.kind, pkt.seq, pkt.ts_echo, pkt.ecn.ece(), opt, &mut out);
        }
        self.emit(now, pkt.flow, &mut out, env);
        self.scratch = out;
        self.classify_if_notified(now, pkt.flow, env);
    }

    /// A segment reached its endpoint (the network already freed its packet).
    #[inline]
    pub fn deliver(&mut self, now: Time, pkt: Packet, env: &mut Env) {
        if pkt.ecn.option().is_some() {
            return self.deliver_option(now, pkt, env);
        }
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[pkt.flow as usize];
        match pkt.kind {
            Kind::Data => {
                let before = fl.receiver.delivered();
                fl.receiver.on_data_ecn(now, pkt.seq, pkt.ts, pkt.ecn, &mut out);
                if let (Some(g), Some(tag), Some(size)) = (fl.generator, fl.tag, fl.sender.size()) {
                    if before < size && fl.receiver.delivered() >= size {
                        env.apps.flow_received(now, g, tag, env.q);
                    }
                }
            }
            Kind::Syn => fl.receiver.on_syn(now, pkt.ts, &mut out),
            Kind::Fin => fl.receiver.on_fin(now, pkt.ts, &mut out),
            Kind::Ack | Kind::SynAck | Kind::FinAck => {
                let before = (fl.sender.st.srtt, fl.sender.st.rttvar);
                let sack = fl.receiver.take_sack(pkt.sack);
                if fl.sender.timestamps() && pkt.kind == Kind::Ack {
                    fl.sender.cc.on_ack_timestamps(pkt.ts, pkt.ts_echo);
                }
                fl.sender.on_ack_sack(
                    now,
                    pkt.kind,
                    pkt.seq,
                    pkt.ts_echo,
                    sack.as_ref(),
                    pkt.ecn.ece(),
                    &mut out,
                );
                let after = (fl.sender.st.srtt, fl.sender.st.rttvar);
                env.share.on_rtt(pkt.flow, &fl.share, before, after);
            }
            Kind::Datagram => unreachable!("datagrams are delivered to their application"),
        }
        self.emit(now, pkt.flow, &mut out, env);
        self.scratch = out;
    }

    /// Put the segments an endpoint of flow `f` produced onto the network, then make sure
    /// the flow's timers have events.
    fn emit(&mut self, now: Time, f: u32, out: &mut Vec<Tx>, env: &mut Env) {
        loop {
            self.inject(now, f, out, env);
            let sender = &mut self.flows[f as usize].sender;
            if !std::mem::take(&mut sender.burst_pending) {
                break;
            }
            sender.send_more(now, out);
        }
        let fl = &mut self.flows[f as usize];
        if !fl.completion_seen && fl.sender.stats.completion.is_some() {
            fl.completion_seen = true;
            self.completed(now, f, env);
        }
        let fl = &mut self.flows[f as usize];
        if let Some(d) = fl.sender.rto_deadline {
            if fl.rto_event.is_none_or(|e| e > d) {
                fl.rto_event = Some(d);
                env.q.at(d, TcpEv::Rto(f));
            }
        }
        if let Some(d) = fl.receiver.delack_deadline {
            if fl.delack_event.is_none_or(|e| e > d) {
                fl.delack_event = Some(d);
                env.q.at(d, TcpEv::DelAck(f));
            }
        }
        if fl.sender.pacer_waiting() {
            if let Some(d) = fl.sender.pace_event_due() {
                env.q.at(d, TcpEv::Pace(f));
            }
        }
    }

    /// Flow `f`'s transfer completed: it leaves its path's counters and its TCBI set, and
    /// its generator (if any) is told.
    fn completed(&mut self, now: Time, f: u32, env: &mut Env) {
        self.set_active(f, false, env);
        env.share.leave(now, f, &self.flows);
        let fl = &self.flows[f as usize];
        let Some(g) = fl.generator else {
            return;
        };
        let s = &fl.sender;
        let duration = s.stats.completion.map_or(0.0, |c| to_secs(c) - fl.spec.start);
        let done = FlowDone {
            tag: fl.tag,
            segments: fl.spec.size.unwrap_or(0),
            duration,
            delivered_bytes: fl.receiver.delivered() * fl.spec.tcp.mss as u64,
            segments_sent: s.stats.segments_sent,
            retransmits: s.stats.retransmits,
            timeouts: s.stats.timeouts,
        };
        if env.apps.flow_done(now, g, &done, env.q) {
            self.retiring.push(f);
        }
    }

    /// Turn the segments in `out` into packets on their first hop.
    #[inline]
    fn inject(&mut self, now: Time, f: u32, out: &mut Vec<Tx>, env: &mut Env) {
        for tx in out.drain(..) {
            let fl = &mut self.flows[f as usize];
            let size = match tx.kind {
                Kind::Data => fl.data_bytes,
                Kind::Syn | Kind::Fin => fl.ctrl_bytes,
                _ => fl.ack_bytes,
            };
            let p = env.net.alloc(Packet {
                flow: f,
                kind: tx.kind,
                at: 0,
                size,
                seq: tx.seq,
                ts: tx.ts,
                ts_echo: tx.ts_echo,
                sack: tx.sack,
                ecn: tx.ecn,
            });
            if fl.processing.is_some() && tx.kind == Kind::Data {
                self.delay_injection(now, f, p, env.q);
                continue;
            }
            env.net.depart(now, p, env.q);
        }
    }

    /// Data packet `p` of flow `f` leaves after the sender's random processing time.
    #[cold]
    #[inline(never)]
    fn delay_injection(&mut self, now: Time, f: u32, p: u32, q: &mut Queue) {
        let Some((max, rng, last)) = self.flows[f as usize].processing.as_deref_mut() else {
            return;
        };
        let leave = now.saturating_add((rng.uniform() * *max as f64) as Time).max(*last);
        *last = leave;
        self.injecting += 1;
        q.at(leave, TcpEv::Inject(p));
    }

    /// Whether completed flows wait to be retired.
    #[inline]
    pub fn retiring(&self) -> bool {
        !self.retiring.is_empty()
    }

    /// Retire the queued flows that have no packet left in the network.
    pub fn retire_quiet_flows(&mut self, net: &Network, apps: &mut Generators) {
        let mut i = 0;
        while i < self.retiring.len() {
            let f = self.retiring[i];
            if net.in_flight(f) == 0 {
                if let Some(g) = self.flows[f as usize].generator {
                    apps.flow_retired(g);
                }
                self.flows.retire(f);
                self.retiring.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }
}
