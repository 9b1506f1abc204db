//! Parallel-connection intervals: every maximal interval with constant membership and at
//! least two members, with the bytes each member got acknowledged inside it.

#[derive(Debug, Clone, PartialEq)]
pub struct IntervalRow {
    pub set: u32,
    pub interval: u64,
    pub t0: f64,
    pub t1: f64,
    pub n: u32,
    pub flow: u32,
    pub acked_bytes: u64,
}

#[derive(Debug, Clone)]
struct Open {
    t0: f64,
    /// (flow, acknowledged bytes at t0)
    members: Vec<(u32, u64)>,
}

/// Records intervals for every set of a run; ids are unique within the run.
#[derive(Debug, Default, Clone)]
pub struct Intervals {
    open: Vec<Option<Open>>,
    next_id: u64,
    pub rows: Vec<IntervalRow>,
}

impl Intervals {
    /// The membership of `set` changed at `now` to `members`; `acked(flow)` gives the
    /// bytes acknowledged so far for any flow (old or new member).
    pub fn change(&mut self, now: f64, set: u32, members: &[u32], acked: impl Fn(u32) -> u64) {
        self.close(now, set, &acked);
        if members.len() >= 2 {
            self.open[set as usize] = Some(Open {
                t0: now,
                members: members.iter().map(|&f| (f, acked(f))).collect(),
            });
        }
    }

    /// Close the open interval of `set` at `now` (zero-length intervals are dropped).
    pub fn close(&mut self, now: f64, set: u32, acked: &impl Fn(u32) -> u64) {
        if self.open.len() <= set as usize {
            self.open.resize(set as usize + 1, None);
        }
        let Some(o) = self.open[set as usize].take() else {
            return;
        };
        if now <= o.t0 {
            return;
        }
        let id = self.next_id;
        self.next_id += 1;
        for &(f, base) in &o.members {
            self.rows.push(IntervalRow {
                set,
                interval: id,
                t0: o.t0,
                t1: now,
                n: o.members.len() as u32,
                flow: f,
                acked_bytes: acked(f).saturating_sub(base),
            });
        }
    }

    /// Close every open interval at the end of the run.
    pub fn close_all(&mut self, now: f64, acked: impl Fn(u32) -> u64) {
        for s in 0..self.open.len() {
            self.close(now, s as u32, &acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_follow_membership() {
        let mut iv = Intervals::default();
        let acked = |f: u32| -> u64 { [1000, 5000, 0][f as usize] };
        iv.change(1.0, 0, &[0], acked);
        assert!(iv.rows.is_empty());
        iv.change(2.0, 0, &[0, 1], |f| [1000, 0, 0][f as usize]);
        iv.change(2.0, 0, &[0, 1, 2], |f| [1000, 0, 0][f as usize]); // zero-length: dropped
        iv.change(5.0, 0, &[1, 2], acked);
        iv.close_all(6.0, |f| [1000, 8000, 500][f as usize]);
        let r: Vec<_> = iv
            .rows
            .iter()
            .map(|r| (r.interval, r.t0, r.t1, r.n, r.flow, r.acked_bytes))
            .collect();
        assert_eq!(
            r,
            vec![
                (0, 2.0, 5.0, 3, 0, 0),
                (0, 2.0, 5.0, 3, 1, 5000),
                (0, 2.0, 5.0, 3, 2, 0),
                (1, 5.0, 6.0, 2, 1, 3000),
                (1, 5.0, 6.0, 2, 2, 500),
            ]
        );
    }
}
