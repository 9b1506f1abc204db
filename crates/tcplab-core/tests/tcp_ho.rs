//! The four handoff types of the thesis's Table 2.1 (L-HH, H-HH, U-VH, D-VH) on a scripted
//! path: a server, a wired part (50 ms each way, no queue), and the mobile host's wireless
//! last hop (its rate, one-way delay and a 20-packet base-station buffer), which goes down
//! at `down` and comes back at `up` with the new link's rate and delay. The TCP machines
//! are the simulator's own (`Sender`, `Receiver`); only the path is this file's, so every
//! handoff is exact in time. The mobile host learns of the handoff's completion at `up`
//! (with the new link's bandwidth, exact).
//!
//! Links: WCDMA 200 kb/s with 150 ms one way, WLAN 7 Mb/s with 5 ms (SEED-NOTES §2.1 B's
//! readings), so RTTs of about 400 ms and 110 ms plus queueing. min_rto 1 s (FreeBSD
//! 5.4's TCPTV_MIN, the thesis's testbed).
//!
//! What is asserted, for NewReno (Table 2.1's problems): segments lost in the outage;
//! silly waiting (the first retransmission after reconnection waits for the backed-off
//! RTO pending at reconnection, exactly); slow start from cwnd 1 with ssthresh 2; on D-VH
//! over-shooting (buffer overflow after reconnection). For TCP-HO: the notification is
//! accepted just after a timeout and the retransmission leaves as it arrives; ssthresh =
//! bw × sr_old; HO-ADJUST entered once and left (after its samples or at a loss); more data
//! delivered after reconnection (on the simulator, for L-HH and U-VH: see the H-HH note).
//!
//! The second half runs the same four types as scenarios on the simulator itself, with
//! `[[link_changes]]` for the outage and the flow's `handoffs` for the notification.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use tcplab_core::cc;
use tcplab_core::net::SegOption;
use tcplab_core::scenario::TcpSpec;
use tcplab_core::sim::{secs, to_secs, Rng, Time};
use tcplab_core::tcp::{Kind, Receiver, Sender, SenderConfig, Tx};

const WIRED: f64 = 0.05;
const BUFFER: usize = 20;
const DATA_BYTES: f64 = 1040.0;

#[derive(Clone, Copy, Debug)]
struct Link {
    rate: f64,
    delay: f64,
}

const WCDMA: Link = Link {
    rate: 200e3,
    delay: 0.15,
};
const WLAN: Link = Link {
    rate: 7e6,
    delay: 0.005,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A data segment reaches the base station.
    AtBase(usize),
    /// The wireless link finishes sending a segment (of link epoch .1).
    Sent(usize, u32),
    /// A segment crosses the air to the mobile host (sent in epoch .1).
    AtHost(usize, u32),
    /// An ACK leaves the mobile host / reaches the server.
    AckUp(usize),
    AtServer(usize),
    Rto,
    Down,
    Up,
    /// Freeze-TCP's mobile host looks at the time to the disconnection.
    Freeze,
}

struct Run {
    s: Sender,
    r: Receiver,
    q: BinaryHeap<Reverse<(Time, u64, Ev)>>,
    n: u64,
    segs: Vec<Tx>,
    link: Link,
    up: bool,
    epoch: u32,
    queue: VecDeque<usize>,
    busy: bool,
    down_at: f64,
    up_at: f64,
    after: Link,
    freeze_offset: f64,
    // measurements
    lost_in_outage: u64,
    overflow_after_up: u64,
    deadline_at_up: Option<Time>,
    first_data_after_up: Option<(Time, f64, f64)>,
    delivered_at: Vec<(Time, u64)>,
    /// srtt when the first Bandwidth option reached the server (sr_old).
    srtt_at_option: Option<f64>,
}

impl Run {
    fn new(cc_name: &str, before: Link, after: Link, down: f64, up: f64) -> Run {
        let tcp = TcpSpec {
            min_rto: 1.0,
            handshake: true,
            rwnd: 1000.0,
            ..TcpSpec::default()
        };
        let cc = cc::create(cc_name, &cc::Params::new()).unwrap();
        let mode = cc.handoff();
        let s = Sender::new(SenderConfig::from_spec(&tcp, None), &tcp, cc);
        let r = Receiver::new(false, 2, 0).with_mobile(mode, 1, tcp.rwnd, Rng::from_seed(1));
        Run {
            s,
            r,
            q: BinaryHeap::new(),
            n: 0,
            segs: Vec::new(),
            link: before,
            up: true,
            epoch: 0,
            queue: VecDeque::new(),
            busy: false,
            down_at: down,
            up_at: up,
            after,
            freeze_offset: 0.0,
            lost_in_outage: 0,
            overflow_after_up: 0,
            deadline_at_up: None,
            first_data_after_up: None,
            delivered_at: Vec::new(),
            srtt_at_option: None,
        }
    }

    fn at(&mut self, t: Time, e: Ev) {
        self.n += 1;
        self.q.push(Reverse((t, self.n, e)));
    }

    /// Segments from the server: onto the wired part; the RTO event follows the deadline.
    fn server_sent(&mut self, now: Time, out: Vec<Tx>) {
        for tx in out {
            if tx.kind == Kind::Data && now >= secs(self.up_at) && self.first_data_after_up.is_none() {
                self.first_data_after_up = Some((now, self.s.st.cwnd, self.s.st.ssthresh));
            }
            self.segs.push(tx);
            let i = self.segs.len() - 1;
            self.at(now + secs(WIRED), Ev::AtBase(i));
        }
        if let Some(d) = self.s.rto_deadline {
            self.at(d, Ev::Rto);
        }
    }

    fn host_sent(&mut self, now: Time, out: Vec<Tx>) {
        for tx in out {
            self.segs.push(tx);
            let i = self.segs.len() - 1;
            self.at(now, Ev::AckUp(i));
        }
    }

    fn serve(&mut self, now: Time) {
        if self.busy || !self.up {
            return;
        }
        if let Some(i) = self.queue.pop_front() {
            let bytes = if self.segs[i].kind == Kind::Data {
                DATA_BYTES
            } else {
                40.0
            };
            self.busy = true;
            self.at(now + secs(bytes * 8.0 / self.link.rate), Ev::Sent(i, self.epoch));
        }
    }

    fn run(&mut self, until: f64) {
        let mut out = Vec::new();
        self.s.start(0, &mut out);
        self.server_sent(0, std::mem::take(&mut out));
        self.at(secs(self.down_at), Ev::Down);
        self.at(secs(self.up_at), Ev::Up);
        if self.s.cc.handoff() == cc::Handoff::Freeze {
            self.at(secs(self.down_at - 5.0), Ev::Freeze);
        }
        while let Some(Reverse((now, _, ev))) = self.q.pop() {
            if now > secs(until) {
                break;
            }
            match ev {
                Ev::AtBase(i) => {
                    if !self.up {
                        self.lost_in_outage += 1;
                    } else if self.queue.len() >= BUFFER {
                        if now >= secs(self.up_at) {
                            self.overflow_after_up += 1;
                        }
                    } else {
                        self.queue.push_back(i);
                        self.serve(now);
                    }
                }
                Ev::Sent(i, e) => {
                    if e != self.epoch {
                        continue; // the link went down during the transmission
                    }
                    self.busy = false;
                    self.at(now + secs(self.link.delay), Ev::AtHost(i, e));
                    self.serve(now);
                }
                Ev::AtHost(i, e) => {
                    if e != self.epoch || !self.up {
                        self.lost_in_outage += 1;
                        continue;
                    }
                    let t = self.segs[i];
                    match t.kind {
                        Kind::Syn => self
                            .r
                            .on_syn_capability(now, t.ts, t.ecn.option().map(|_| t.sack), &mut out),
                        Kind::Data => self.r.on_data(now, t.seq, t.ts, &mut out),
                        _ => {}
                    }
                    self.delivered_at.push((now, self.r.delivered()));
                    self.host_sent(now, std::mem::take(&mut out));
                }
                Ev::AckUp(i) => {
                    if self.up {
                        let arrive = now + secs(self.link.delay + WIRED);
                        self.at(arrive, Ev::AtServer(i));
                    }
                }
                Ev::AtServer(i) => {
                    let t = self.segs[i];
                    let opt = (t.ecn.option(), t.sack);
                    if opt.0 == Some(SegOption::Bandwidth) && self.srtt_at_option.is_none() {
                        self.srtt_at_option = Some(self.s.st.srtt);
                    }
                    if opt.0.is_some() {
                        self.s
                            .on_option_ack(now, t.kind, t.seq, t.ts_echo, false, opt, &mut out);
                    } else {
                        self.s.on_ack(now, t.kind, t.seq, t.ts_echo, &mut out);
                    }
                    self.server_sent(now, std::mem::take(&mut out));
                }
                Ev::Rto => {
                    if self.s.rto_deadline == Some(now) {
                        self.s.on_timeout(now, &mut out);
                        self.server_sent(now, std::mem::take(&mut out));
                    }
                }
                Ev::Down => {
                    self.up = false;
                    self.epoch += 1;
                    self.busy = false;
                    self.lost_in_outage += self.queue.len() as u64;
                    self.queue.clear();
                }
                Ev::Up => {
                    self.up = true;
                    self.link = self.after;
                    self.deadline_at_up = self.s.rto_deadline;
                    let kbps = (self.after.rate / 1000.0) as u32;
                    self.r.handoff_complete(now, kbps, &mut out);
                    self.host_sent(now, std::mem::take(&mut out));
                    self.serve(now);
                }
                Ev::Freeze => {
                    let rtt = if self.s.st.srtt > 0.0 { self.s.st.srtt } else { 1.0 };
                    let t = secs(self.down_at + self.freeze_offset - rtt);
                    if t > now {
                        self.at(t, Ev::Freeze);
                    } else if self.r.freeze(now, &mut out) {
                        self.host_sent(now, std::mem::take(&mut out));
                    }
                }
            }
        }
    }

    fn events(&self, name: &str) -> Vec<(f64, f64)> {
        self.s
            .events
            .iter()
            .filter(|e| e.name == name)
            .map(|e| (to_secs(e.time), e.value))
            .collect()
    }

    /// Segments the mobile host had received in order by `t`.
    fn delivered_by(&self, t: f64) -> u64 {
        self.delivered_at
            .iter()
            .take_while(|(at, _)| *at <= secs(t))
            .last()
            .map_or(0, |x| x.1)
    }
}

/// NewReno's Table 2.1 problems common to every type: segments lost in the outage, and
/// silly waiting: the first segment after reconnection is the retransmission the backed-off
/// RTO pending at reconnection sends, at exactly that deadline, from cwnd 1.
fn newreno_problems(r: &Run) -> (f64, f64) {
    assert!(r.lost_in_outage > 0, "segment loss");
    let deadline = r.deadline_at_up.expect("an RTO pending at reconnection");
    let (first, cwnd, ssthresh) = r.first_data_after_up.expect("sent after reconnection");
    assert_eq!(first, deadline, "silly waiting: the remaining backed-off RTO");
    let wait = to_secs(first) - r.up_at;
    assert!(wait > 0.0);
    assert_eq!(cwnd, 1.0, "slow start from one segment");
    assert!(r.events("ho_option_accepted").is_empty());
    (wait, ssthresh)
}

/// TCP-HO's changes: the notification accepted just after a timeout, arriving one
/// wireless + wired delay after reconnection, the retransmission leaving at that instant,
/// ssthresh = bw × sr_old, HO-ADJUST left after at most 4 samples (or a loss).
fn tcp_ho_changes(r: &Run) {
    let sr_old = r.srtt_at_option.expect("the notification arrived");
    let arrive = r.up_at + r.after.delay + WIRED;
    let acc = r.events("ho_option_accepted");
    assert_eq!(acc.len(), 1, "one of the two duplicate ACKs is accepted: {acc:?}");
    assert!((acc[0].0 - arrive).abs() < 1e-9, "{acc:?} vs {arrive}");
    assert_eq!(acc[0].1, r.after.rate / 1000.0);
    let ign = r.events("ho_option_ignored");
    assert_eq!(ign, vec![(acc[0].0, 2.0)], "the second: already accepted");
    let (first, cwnd, _) = r.first_data_after_up.unwrap();
    assert!((to_secs(first) - arrive).abs() < 1e-9, "immediate transmission");
    assert_eq!(cwnd, 1.0);
    let enter = r.events("ho_adjust_enter");
    let want = (r.after.rate / 8.0 * sr_old / 1000.0).max(2.0);
    assert_eq!(enter.len(), 1);
    assert!(
        (enter[0].1 - want).abs() < 1e-9,
        "ssthresh {} = bw x sr_old {want}",
        enter[0].1
    );
    let exit = r.events("ho_adjust_exit");
    assert_eq!(exit.len(), 1, "HO-ADJUST is left: {exit:?}");
}

/// Run NewReno and TCP-HO over one handoff.
fn pair(before: Link, after: Link, down: f64, up: f64, until: f64) -> (Run, Run) {
    let mut nr = Run::new("newreno", before, after, down, up);
    nr.run(until);
    let mut ho = Run::new("tcp_ho", before, after, down, up);
    ho.run(until);
    (nr, ho)
}

#[test]
fn l_hh_wcdma_to_wcdma_silly_waiting_and_a_little_slow_start() {
    let (nr, ho) = pair(WCDMA, WCDMA, 20.0, 23.0, 40.0);
    let (wait, ssthresh) = newreno_problems(&nr);
    assert_eq!(ssthresh, 2.0);
    tcp_ho_changes(&ho);
    // TCP-HO gains the waiting time; over the 17 s after reconnection it delivers more.
    assert!(ho.delivered_by(40.0) > nr.delivered_by(40.0), "{wait}");
    println!(
        "L-HH: NewReno waits {wait:.3} s; delivered by 40 s: NewReno {} TCP-HO {}",
        nr.delivered_by(40.0),
        ho.delivered_by(40.0)
    );
}

#[test]
fn h_hh_wlan_to_wlan_severe_slow_start() {
    let (nr, ho) = pair(WLAN, WLAN, 20.0, 22.5, 26.0);
    let (wait, ssthresh) = newreno_problems(&nr);
    assert_eq!(
        ssthresh, 2.0,
        "congestion avoidance from 2 segments toward a BDP of ~90"
    );
    tcp_ho_changes(&ho);
    let (n, h) = (nr.delivered_by(26.0), ho.delivered_by(26.0));
    assert!(h > n, "NewReno {n} TCP-HO {h}");
    println!("H-HH: NewReno waits {wait:.3} s; delivered by 26 s: NewReno {n} TCP-HO {h}");
}

#[test]
fn u_vh_wcdma_to_wlan_very_severe_slow_start() {
    let (nr, ho) = pair(WCDMA, WLAN, 20.0, 23.0, 26.0);
    let (wait, ssthresh) = newreno_problems(&nr);
    assert_eq!(ssthresh, 2.0);
    tcp_ho_changes(&ho);
    let (n, h) = (nr.delivered_by(26.0), ho.delivered_by(26.0));
    assert!(h > n, "NewReno {n} TCP-HO {h}");
    println!("U-VH: NewReno waits {wait:.3} s; delivered by 26 s: NewReno {n} TCP-HO {h}");
}

#[test]
fn d_vh_wlan_to_wcdma_over_shooting() {
    // A disconnection shorter than the RTO: NewReno's first timeout comes after
    // reconnection and halves the old path's large window, and slow start up to that
    // ssthresh over-shoots the slow new link's 20-packet buffer.
    let mut nr = Run::new("newreno", WLAN, WCDMA, 20.0, 20.3);
    nr.run(40.0);
    assert!(nr.lost_in_outage > 0);
    let (first, cwnd, ssthresh) = nr.first_data_after_up.unwrap();
    assert_eq!(Some(first), nr.deadline_at_up, "silly waiting");
    assert_eq!(cwnd, 1.0);
    assert!(ssthresh > 40.0, "the old path's window: {ssthresh}");
    assert!(nr.overflow_after_up > 0, "over-shooting");
    let short = (nr.overflow_after_up, ssthresh);
    // TCP-HO cannot act here: no timeout had happened when the notification came (the
    // anti-cheating rule), so it behaves as NewReno.
    let mut ho = Run::new("tcp_ho", WLAN, WCDMA, 20.0, 20.3);
    ho.run(40.0);
    assert_eq!(
        ho.events("ho_option_ignored").iter().map(|e| e.1).collect::<Vec<_>>(),
        vec![1.0, 1.0]
    );
    assert!(ho.overflow_after_up > 0);
    // With the thesis's WLAN -> WCDMA disconnection (5 s, Table 2.2) timeouts happen in
    // the outage: NewReno's ssthresh falls to 2 (no over-shooting, but slow growth), and
    // TCP-HO's is bw × sr_old of the new link: neither over-shoots the buffer.
    let (nr, ho) = pair(WLAN, WCDMA, 20.0, 25.0, 40.0);
    let (_, ssthresh) = newreno_problems(&nr);
    assert_eq!(ssthresh, 2.0);
    tcp_ho_changes(&ho);
    assert_eq!(ho.overflow_after_up, 0, "ssthresh = 25 kB/s x sr_old: no over-shooting");
    println!(
        "D-VH: 0.3 s outage: NewReno ssthresh {:.0}, {} drops after reconnection; 5 s outage: TCP-HO {} NewReno {}",
        short.1, short.0, ho.overflow_after_up, nr.overflow_after_up
    );
}

#[test]
fn tcp_ho_immediate_and_aggressive_and_freeze_over_u_vh() {
    let mut im = Run::new("tcp_ho_immediate", WCDMA, WLAN, 20.0, 23.0);
    im.run(26.0);
    assert_eq!(im.events("ho_option_accepted").len(), 1);
    let (_, cwnd, ssthresh) = im.first_data_after_up.unwrap();
    let at_timeout = im.events("ssthresh").last().unwrap().1;
    assert_eq!((cwnd, ssthresh), (1.0, at_timeout), "the bandwidth is ignored");
    assert!(im.events("ho_adjust_enter").is_empty());
    let mut ag = Run::new("tcp_ho_aggressive", WCDMA, WLAN, 20.0, 23.0);
    ag.run(26.0);
    let (_, cwnd, ssthresh) = ag.first_data_after_up.unwrap();
    let want = 7e6 / 8.0 * ag.srtt_at_option.unwrap() / 1000.0;
    assert!(
        (cwnd - want).abs() < 1e-9 && cwnd == ssthresh,
        "cwnd = ssthresh = {want}: {cwnd}"
    );
    // Freeze-TCP: the zero window one RTT before the disconnection, no segment lost, the
    // window reopened at reconnection with the frozen cwnd and ssthresh.
    let mut fr = Run::new("freeze_tcp", WCDMA, WLAN, 20.0, 23.0);
    fr.run(26.0);
    let enter = fr.events("persist_enter");
    let exit = fr.events("persist_exit");
    assert_eq!((enter.len(), exit.len()), (1, 1));
    assert!(enter[0].0 < 20.0 && exit[0].0 > 23.0);
    assert_eq!(enter[0].1, exit[0].1, "cwnd frozen");
    let t = fr.events("timeout");
    assert!(
        t.iter().all(|e| e.0 < enter[0].0),
        "the retransmission timer is frozen: {t:?}"
    );
    assert_eq!(fr.events("window_probe").len(), 1, "one probe in the 3 s outage");
    let (first, cwnd, _) = fr.first_data_after_up.unwrap();
    let reopen = 23.0 + WLAN.delay + WIRED;
    assert!((to_secs(first) - reopen).abs() < 1e-9, "resumes as the window reopens");
    assert_eq!(cwnd, enter[0].1);
    println!(
        "Freeze-TCP: {} segments lost in the outage (one RTT warning)",
        fr.lost_in_outage
    );
    // A late prediction (the zero window sent 1.5 s - srtt after the disconnection, lost
    // in the outage) loses segments and times out as NewReno.
    let mut late = Run::new("freeze_tcp", WCDMA, WLAN, 20.0, 23.0);
    late.freeze_offset = 1.5;
    late.run(26.0);
    assert!(late.lost_in_outage > 0);
    assert!(late.events("timeout").iter().any(|e| e.0 > 20.0));
    assert!(late.events("persist_enter").is_empty(), "the zero window was lost");
}

/// A captured TCP segment: its flags, its options (kind, value bytes), its window field.
type Segment = (u8, Vec<(u8, Vec<u8>)>, u16);

/// Every TCP segment of a pcap.
fn pcap_tcp_options(pcap: &[u8]) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut at = 24;
    while at + 16 <= pcap.len() {
        let caplen = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        let ip = &pcap[at + 16..at + 16 + caplen];
        at += 16 + caplen;
        if ip[9] != 6 {
            continue;
        }
        let tcp = &ip[20..];
        let doff = usize::from(tcp[12] >> 4) * 4;
        let window = u16::from_be_bytes([tcp[14], tcp[15]]);
        let mut opts = Vec::new();
        let mut i = 20;
        while i < doff {
            match tcp[i] {
                0 => break,
                1 => i += 1,
                kind => {
                    let len = usize::from(tcp[i + 1]);
                    opts.push((kind, tcp[i + 2..i + len].to_vec()));
                    i += len;
                }
            }
        }
        out.push((tcp[13], opts, window));
    }
    out
}

#[test]
fn pcap_shows_the_capability_and_bandwidth_options_and_the_zero_window() {
    let spec = serde_json::json!({
        "sim": {"duration": 6.0, "sample_interval": 0},
        "dumbbell": {"pairs": 2,
            "bottleneck": {"rate": "2Mbps", "delay": "20ms", "queue": 20},
            "access": {"rate": "100Mbps", "delay": "2ms"}},
        "flows": [
            {"src": "s0", "dst": "d0", "cc": "tcp_ho", "tcp": {"ho_capability_bit": 2},
             "handoffs": [{"at": 2.0, "bandwidth": "7Mbps"}]},
            {"src": "s1", "dst": "d1", "cc": "freeze_tcp",
             "handoffs": [{"at": 4.0, "bandwidth": "2Mbps", "disconnect": 3.0}]}],
        "pcap": [{"a": "d0", "b": "r2"}, {"a": "r2", "b": "d0"}, {"a": "d1", "b": "r2"}]
    })
    .to_string();
    let out = tcplab_core::api::run(&spec, 1).unwrap();
    let pcap = |name: &str| &out.pcaps.iter().find(|(n, _)| n == name).unwrap().1;
    // r2 -> d0: the SYN with the Capability option (kind 253, 16-bit mask, bit 2 = 4)
    let down = pcap_tcp_options(pcap("r2-d0"));
    let syn = down.iter().find(|s| s.0 == 0x02).expect("a SYN");
    assert_eq!(syn.1, vec![(253, vec![0, 4])]);
    // d0 -> r2: the SYN-ACK echoes it; two ACKs carry the Bandwidth option, 7000 Kbps as
    // 32 bits (kind 254, length 6)
    let up = pcap_tcp_options(pcap("d0-r2"));
    let synack = up.iter().find(|s| s.0 == 0x12).expect("a SYN-ACK");
    assert_eq!(synack.1, vec![(253, vec![0, 4])]);
    let bw: Vec<_> = up.iter().filter(|s| s.1.iter().any(|o| o.0 == 254)).collect();
    assert_eq!(bw.len(), 2);
    assert!(bw.iter().all(|s| s.1 == vec![(254, 7000u32.to_be_bytes().to_vec())]));
    // Freeze-TCP's host: one zero window, then three ACKs with the window open (65535:
    // no window scaling); no TCP options.
    let fr = pcap_tcp_options(pcap("d1-r2"));
    let zeros: Vec<usize> = (0..fr.len()).filter(|&i| fr[i].2 == 0).collect();
    assert!(fr.iter().all(|s| s.1.is_empty()));
    let last_zero = *zeros.last().expect("a zero-window advertisement");
    assert!(
        fr[last_zero + 1..].iter().all(|s| s.2 == 0xffff),
        "open after the reconnection"
    );
    assert!(fr[..zeros[0]].iter().all(|s| s.2 == 0xffff));
    let names = match out.events.column("event") {
        Some(tcplab_core::api::Column::Str(v)) => v.clone(),
        _ => panic!("no event column"),
    };
    let ev = |name: &str| names.iter().filter(|n| *n == name).count();
    assert_eq!(ev("persist_enter"), 1);
    assert_eq!(ev("persist_exit"), 1);
    assert_eq!(ev("zwa_sent"), 1);
    // the zero window, then one answer with the zero window per window probe
    assert_eq!(zeros.len(), 1 + ev("window_probe"));
    assert_eq!(ev("ho_negotiated"), 1);
}

// ---------------------------------------------------------------- the same on the simulator
//
// The four handoff types again, now as scenarios: a server, a base station and the mobile
// host (`server-bs`: 100 Mb/s, 50 ms, no queue limit to speak of; `bs-mh`: the wireless
// link, 20 packets), the wireless link going down (its queue dropped) with
// `[[link_changes]]` and up again with the new rate and delay, and the flow's `handoffs`
// record telling the mobile host at that instant.

struct Sim {
    out: tcplab_core::api::RunOutput,
    down: f64,
    up: f64,
}

fn scenario_run(cc: &str, before: Link, after: Link, down: f64, up: f64, until: f64) -> Sim {
    let spec = serde_json::json!({
        "sim": {"duration": until, "sample_interval": 0.05, "drop_trace": true},
        "nodes": [{"name": "server"}, {"name": "bs"}, {"name": "mh"}],
        "links": [
            {"a": "server", "b": "bs", "rate": "100Mbps", "delay": WIRED, "queue": 1000},
            {"a": "bs", "b": "mh", "rate": before.rate, "delay": before.delay, "queue": BUFFER}],
        "link_changes": [
            {"link": "bs-mh", "at": down, "state": "down", "queued": "drop"},
            {"link": "bs-mh", "at": up, "rate": after.rate, "delay": after.delay, "state": "up"}],
        "flows": [{"src": "server", "dst": "mh", "cc": cc, "tcp": {"min_rto": 1.0},
                   "handoffs": [{"at": up, "bandwidth": after.rate, "disconnect": down}]}]
    })
    .to_string();
    Sim {
        out: tcplab_core::api::run(&spec, 1).unwrap(),
        down,
        up,
    }
}

impl Sim {
    fn strs(t: &tcplab_core::api::Table, c: &str) -> Vec<String> {
        match t.column(c) {
            Some(tcplab_core::api::Column::Str(v)) => v.clone(),
            _ => panic!("no column {c}"),
        }
    }

    /// (time, value) of the flow's events `name`.
    fn events(&self, name: &str) -> Vec<(f64, f64)> {
        let names = Self::strs(&self.out.events, "event");
        let (t, v) = (self.out.events.f64s("time"), self.out.events.f64s("value"));
        (0..names.len())
            .filter(|&i| names[i] == name)
            .map(|i| (t[i], v[i]))
            .collect()
    }

    /// Data segments dropped: (by the outage, by the queue after reconnection).
    fn data_drops(&self) -> (usize, usize) {
        let d = &self.out.drops;
        let (reason, kind, t) = (Self::strs(d, "reason"), Self::strs(d, "kind"), d.f64s("time"));
        let data = |i: usize| kind[i] == "data";
        let down = (0..t.len()).filter(|&i| data(i) && reason[i] == "down").count();
        let after = (0..t.len())
            .filter(|&i| data(i) && reason[i] != "down" && t[i] >= self.up)
            .count();
        (down, after)
    }

    /// The srtt time series at a sample inside the outage (no RTT sample can change it).
    fn srtt_in_outage(&self) -> f64 {
        let (t, s) = (self.out.flow_ts.f64s("time"), self.out.flow_ts.f64s("srtt"));
        let i = t.iter().position(|&x| x > self.down + 1.0 && x < self.up).unwrap();
        s[i]
    }
}

/// NewReno: segments lost in the outage; the first timeout after reconnection comes at the
/// deadline the back-off set (twice the previous timeout interval), later than the
/// reconnection; its ssthresh is 2 after the timeouts in the outage (cwnd 1).
fn scenario_newreno(s: &Sim) -> f64 {
    assert!(s.data_drops().0 > 0, "segment loss");
    let t: Vec<f64> = s.events("timeout").iter().map(|e| e.0).collect();
    let k = t.iter().position(|&x| x > s.up).expect("a timeout after reconnection");
    assert!(k >= 1 && t[k - 1] > s.down, "a timeout in the outage: {t:?}");
    let (b, c) = (t[k - 1], t[k]);
    // the backed-off timer value a sample between that timeout and the reconnection shows
    let (ts, rto) = (s.out.flow_ts.f64s("time"), s.out.flow_ts.f64s("rto"));
    let i = ts.iter().position(|&x| x > b && x < s.up).unwrap();
    assert!(
        (c - (b + rto[i])).abs() < 1e-6,
        "the backed-off RTO: {t:?} rto {}",
        rto[i]
    );
    let ss = s.events("ssthresh");
    assert!(ss.iter().any(|e| e.0 == c && e.1 == 2.0));
    assert!(s.events("ho_option_accepted").is_empty());
    c - s.up
}

/// TCP-HO: the notification accepted at once (one wireless + wired crossing after the
/// reconnection, no timeout after the reconnection before it), ssthresh = bw × sr_old.
fn scenario_tcp_ho(s: &Sim, after: Link) {
    let acc = s.events("ho_option_accepted");
    assert_eq!(acc.len(), 1, "{acc:?}");
    let lag = acc[0].0 - s.up;
    assert!(lag > after.delay + WIRED && lag < after.delay + WIRED + 0.01, "{lag}");
    assert!(!s.events("timeout").iter().any(|e| e.0 > s.up && e.0 < acc[0].0));
    let enter = s.events("ho_adjust_enter");
    let want = (after.rate / 8.0 * s.srtt_in_outage() / 1000.0).max(2.0);
    assert_eq!(enter.len(), 1);
    assert!((enter[0].1 - want).abs() < 1e-6, "{} vs {want}", enter[0].1);
    assert_eq!(s.events("ho_adjust_exit").len(), 1);
}

fn delivered(s: &Sim) -> f64 {
    s.out.flows.f64s("goodput_bps")[0]
}

#[test]
fn scenarios_l_hh_h_hh_u_vh_with_link_changes() {
    // H-HH: TCP-HO's slow start toward bw × sr_old (about 96 segments) over-shoots the
    // 20-packet buffer (43 data drops, a fast retransmit ending HO-ADJUST, then two
    // timeouts: NewReno recovery without SACK), while NewReno's silly waiting is short here
    // (0.55 s) and it grows from ssthresh 2 without a loss: over 30 s NewReno delivers more
    // (2.95 against 2.76 Mb/s, seed 1). The gain is asserted for L-HH and U-VH only.
    for (name, before, after, gain) in [
        ("L-HH", WCDMA, WCDMA, true),
        ("H-HH", WLAN, WLAN, false),
        ("U-VH", WCDMA, WLAN, true),
    ] {
        let (down, up) = (20.0, 22.5);
        let nr = scenario_run("newreno", before, after, down, up, 30.0);
        let ho = scenario_run("tcp_ho", before, after, down, up, 30.0);
        let wait = scenario_newreno(&nr);
        scenario_tcp_ho(&ho, after);
        let (g_nr, g_ho) = (delivered(&nr), delivered(&ho));
        assert!(!gain || g_ho > g_nr, "{name}: goodput NewReno {g_nr} TCP-HO {g_ho}");
        println!(
            "{name}: NewReno silly waiting {wait:.3} s; goodput over 30 s NewReno {g_nr:.0} TCP-HO {g_ho:.0} b/s; \
             data drops (outage, after reconnection) NewReno {:?} TCP-HO {:?}",
            nr.data_drops(),
            ho.data_drops()
        );
    }
}

#[test]
fn scenario_d_vh_with_link_changes() {
    // Short disconnection (below the RTO): NewReno's timeout after reconnection halves the
    // WLAN window and slow start over-shoots the WCDMA link's buffer.
    let nr = scenario_run("newreno", WLAN, WCDMA, 20.0, 20.3, 35.0);
    let (lost, over) = nr.data_drops();
    assert!(lost > 0 && over > 0, "lost {lost} over-shooting {over}");
    // 5 s: timeouts in the outage; TCP-HO's ssthresh is the WCDMA link's bw × sr_old.
    let nr5 = scenario_run("newreno", WLAN, WCDMA, 20.0, 25.0, 35.0);
    let ho5 = scenario_run("tcp_ho", WLAN, WCDMA, 20.0, 25.0, 35.0);
    scenario_newreno(&nr5);
    scenario_tcp_ho(&ho5, WCDMA);
    println!(
        "D-VH: 0.3 s outage NewReno {over} data drops after reconnection; 5 s outage drops after reconnection NewReno {} TCP-HO {}",
        nr5.data_drops().1,
        ho5.data_drops().1
    );
}

#[test]
fn scenario_freeze_tcp_and_the_variants_with_link_changes() {
    // U-VH, 20 -> 22.5 s. Freeze-TCP: the zero window one srtt before the disconnection,
    // persist mode across the outage without a timeout, the frozen cwnd on reopening.
    let fr = scenario_run("freeze_tcp", WCDMA, WLAN, 20.0, 22.5, 30.0);
    let (zwa, enter, exit) = (
        fr.events("zwa_sent"),
        fr.events("persist_enter"),
        fr.events("persist_exit"),
    );
    assert_eq!((zwa.len(), enter.len(), exit.len()), (1, 1, 1));
    assert!(
        zwa[0].0 < 20.0 && enter[0].0 < 20.0 && exit[0].0 > 22.5,
        "{zwa:?} {enter:?} {exit:?}"
    );
    assert_eq!(enter[0].1, exit[0].1, "cwnd frozen");
    assert!(!fr.events("timeout").iter().any(|e| e.0 > enter[0].0 && e.0 < exit[0].0));
    let nr = scenario_run("newreno", WCDMA, WLAN, 20.0, 22.5, 30.0);
    assert!(delivered(&fr) > delivered(&nr));
    // TCP-HO-Immediate: accepted, ssthresh left as the timeout set it; TCP-HO-Aggressive:
    // cwnd = ssthresh = bw × srtt_old.
    let im = scenario_run("tcp_ho_immediate", WCDMA, WLAN, 20.0, 22.5, 30.0);
    assert_eq!(im.events("ho_option_accepted").len(), 1);
    assert!(im.events("ho_adjust_enter").is_empty());
    let ag = scenario_run("tcp_ho_aggressive", WCDMA, WLAN, 20.0, 22.5, 30.0);
    let acc = ag.events("ho_option_accepted");
    assert_eq!(acc.len(), 1);
    let ss = ag.events("ssthresh");
    let at = ss
        .iter()
        .find(|e| e.0 == acc[0].0)
        .expect("ssthresh logged at acceptance");
    assert!((at.1 - 7e6 / 8.0 * ag.srtt_in_outage() / 1000.0).abs() < 1e-6);
    println!(
        "U-VH goodput over 30 s: NewReno {:.0}, Freeze-TCP {:.0}, TCP-HO-Immediate {:.0}, TCP-HO-Aggressive {:.0} b/s",
        delivered(&nr),
        delivered(&fr),
        delivered(&im),
        delivered(&ag)
    );
}
