//! The transport's side of TCP KentRidge (`kentridge/`): the per-connection classification
//! timer and the immediate classification after an explicit notification; on a change of
//! pipe type the agent's choice is switched in through the backplane's `switch_cc`.
use super::transport::{Env, Transport};
use crate::cc;
use crate::kentridge::{agent, expectations, peer_capabilities, Decision, KrEvent, Reading};
use crate::sim::Time;

impl Transport {
    /// Classify flow `f`'s pipe now; on a change, let the agent act.
    pub(super) fn classify(&mut self, now: Time, f: u32, env: &mut Env) {
        let fl = &mut self.flows[f as usize];
        let (Some(kr), Some(stats), Some(spec)) = (
            fl.kr.as_deref_mut(),
            fl.sender.kr.as_deref_mut(),
            fl.spec.kentridge.as_ref(),
        ) else {
            return;
        };
        let sent = fl.sender.stats.segments_sent;
        let mut st = fl.sender.st.clone();
        st.now = now;
        let reading = Reading::take(stats, &st, sent, &kr.npc.th);
        stats.new_period(sent, &st);
        kr.classifications += 1;
        let pipe = kr.npc.classify(&reading);
        let old = kr.npc.current;
        if pipe == old {
            return;
        }
        kr.npc.current = pipe;
        kr.events.push(KrEvent {
            time: now,
            name: "pipe_type",
            value: f64::from(pipe.rule()),
            detail: format!("{} (rule {}; was {})", pipe.name(), pipe.rule(), old.name()),
        });
        let caps = peer_capabilities(&fl.spec.tcp, fl.spec.handoff.is_some());
        let current = (fl.sender.cc.name(), &kr.running_params, &kr.running_options[..]);
        let expectations = expectations::for_connection(spec, fl.spec.tcp.dport);
        let inputs = agent::Inputs {
            peer: &caps,
            expectations: &expectations,
            platform: spec.platform.as_ref(),
        };
        let decision = agent::decide(&spec.kb, pipe, &inputs, current);
        let (name, reason, row) = match decision {
            Decision::Switch { row, reason } => ("kr_switch", reason, Some(row)),
            Decision::Keep { reason, .. } => ("kr_keep", reason, None),
            Decision::NoAdaptation { reason } => ("kr_no_adaptation", reason, None),
        };
        let from = std::iter::once(fl.sender.cc.name())
            .chain(kr.running_options.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("+");
        let algo = row.map(|r| {
            let r = &spec.kb[r];
            kr.running_params = r.cc_params.clone();
            kr.running_options = r.options.clone();
            // A row's `undo` adds to the flow's own `tcp.undo`; leaving the row leaves that.
            fl.sender.set_undo(fl.spec.tcp.undo || r.undo());
            (
                r.label(),
                cc::create(&r.adaptation, &r.cc_params).expect("validated knowledge base"),
            )
        });
        let detail = match &algo {
            Some((to, _)) => format!("{from} -> {to}: {reason}"),
            None => format!("{from} stays: {reason}"),
        };
        kr.events.push(KrEvent {
            time: now,
            name,
            value: f64::from(pipe.rule()),
            detail,
        });
        if let Some((_, algo)) = algo {
            self.switch_cc_with(now, f, algo, true, env);
        }
    }

    /// After a segment reached flow `f`'s sender: an explicit notification among what it
    /// carried is classified at once (the periodic timer goes on as it was).
    #[inline]
    pub(super) fn classify_if_notified(&mut self, now: Time, f: u32, env: &mut Env) {
        if self.flows[f as usize].sender.kr.as_deref().is_some_and(|k| k.notified) {
            self.classify(now, f, env);
        }
    }
}
