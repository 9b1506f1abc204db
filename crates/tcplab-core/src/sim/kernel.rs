//! The loop: pop the next event, hand it to the dispatcher, and now and then look at the
//! wall clock (limit, progress, interrupt). The kernel knows the event type but none of the
//! components: `engine/dispatch.rs` implements [`Dispatch`].
use super::{to_secs, Ev, Queue, Time};

/// Routes one event to the component that scheduled it.
pub trait Dispatch {
    fn dispatch(&mut self, k: &mut Kernel, now: Time, ev: Ev);
}

/// Time, the event queue and the run's end.
pub struct Kernel {
    pub q: Queue,
    pub end: Time,
    /// Events up to this time are processed: `end`, or 0 once the run failed.
    horizon: Time,
    /// Why the run stopped early (memory for its results ran out).
    failure: Option<String>,
}

impl Kernel {
    /// A kernel whose run ends at `end` (at most `NEVER - 1`, so that an event at `NEVER`
    /// stays beyond it).
    pub fn new(end: Time) -> Kernel {
        Kernel {
            q: Queue::new(),
            end,
            horizon: end,
            failure: None,
        }
    }

    /// Stop the run at the end of the current instant; `run` returns `why`.
    pub fn fail(&mut self, now: Time, why: &str) {
        if self.failure.is_none() {
            self.failure = Some(format!("{why} (at simulated time {:.3} s)", to_secs(now)));
        }
        self.horizon = 0;
    }

    /// Run to the end. `progress(simulated now, simulated end, events)` is called about once
    /// per wall-clock second; it returns false to stop the run (an interrupt). The run also
    /// stops once `wall_limit` seconds of wall-clock time have passed.
    pub fn run(
        &mut self,
        d: &mut impl Dispatch,
        wall_limit: Option<f64>,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<(), String> {
        self.run_until(d, self.end, wall_limit, progress)
    }

    /// Process the events up to `until` (inclusive; never beyond the run's end) and move
    /// the clock there: running in steps is running once, event for event. Progress, limit
    /// and interrupt as for [`Kernel::run`] (the wall clock counts from this call).
    pub fn run_until(
        &mut self,
        d: &mut impl Dispatch,
        until: Time,
        wall_limit: Option<f64>,
        progress: Option<&mut dyn FnMut(f64, f64, u64) -> bool>,
    ) -> Result<(), String> {
        let until = until.min(self.end);
        let mut reporter = Reporter::new(progress);
        let start = reporter.start;
        let mut n: u32 = 0;
        while let Some((now, ev)) = self.q.pop_until(self.horizon.min(until)) {
            d.dispatch(self, now, ev);
            n = n.wrapping_add(1);
            if !n.is_multiple_of(65_536) || (wall_limit.is_none() && reporter.progress.is_none()) {
                continue;
            }
            let elapsed = start.elapsed().as_secs_f64();
            if wall_limit.is_some_and(|limit| elapsed > limit) {
                return Err(format!(
                    "wall-clock limit of {} s exceeded at simulated time {:.3} s",
                    wall_limit.unwrap(),
                    to_secs(now)
                ));
            }
            if !reporter.tick(to_secs(now), to_secs(self.end), self.q.processed()) {
                return Err(format!("interrupted at simulated time {:.3} s", to_secs(now)));
            }
        }
        if let Some(why) = self.failure.take() {
            return Err(why);
        }
        self.q.advance_to(until);
        Ok(())
    }
}

/// Calls a progress callback (simulated now, simulated end, events) about once per
/// wall-clock second, during the set-up and the run.
pub struct Reporter<'p> {
    progress: Option<&'p mut dyn FnMut(f64, f64, u64) -> bool>,
    start: std::time::Instant,
    last: f64,
    /// Seconds between reports.
    pub interval: f64,
}

impl<'p> Reporter<'p> {
    pub fn new(progress: Option<&'p mut dyn FnMut(f64, f64, u64) -> bool>) -> Reporter<'p> {
        Reporter {
            progress,
            start: std::time::Instant::now(),
            last: 0.0,
            interval: 1.0,
        }
    }

    /// Report if a second has passed since the last report; false when the callback asks
    /// to stop.
    pub fn tick(&mut self, now: f64, end: f64, events: u64) -> bool {
        let Some(report) = self.progress.as_mut() else {
            return true;
        };
        let elapsed = self.start.elapsed().as_secs_f64();
        if elapsed - self.last < self.interval {
            return true;
        }
        self.last = elapsed;
        report(now, end, events)
    }
}
