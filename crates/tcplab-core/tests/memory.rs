//! Memory per flow, the scale target's measure (10^5 bulk flows on 10^5 host pairs in less
//! than 4 KB each, `make bench`): the heap a run holds at its peak, counted by a global
//! allocator, for two dumbbells of different sizes without time series; the difference per
//! added flow (its host pair, its four link directions, its routes, its spec and flow
//! record, its rows in the results) must stay below a bound. The figure counts the bytes
//! asked for, not the allocator's own overhead or the pages the process touches (the
//! benchmark's peak RSS was 3.0 KB per flow when this bound was set, this figure 2.7 KB).
//! One test only in this file: the counters are global to the process.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tcplab_core::api;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(live, Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, l, new_size);
        if !q.is_null() {
            if new_size >= l.size() {
                grew(new_size - l.size());
            } else {
                LIVE.fetch_sub(l.size() - new_size, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes of heap the run of a dumbbell of `pairs` pairs, a bulk flow each, holds at its
/// peak (set-up, run or output), beyond what was held before it.
fn peak_heap(pairs: usize) -> usize {
    let spec = serde_json::json!({
        "sim": {"duration": 0.001, "sample_interval": 0},
        "dumbbell": {"pairs": pairs,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": 100},
            "access": {"rate": "100Mbps", "delay": "1ms", "queue": 1000}},
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": pairs, "tcp": {"mss": 1000}}]
    })
    .to_string();
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let out = api::run(&spec, 1).unwrap();
    let peak = PEAK.load(Relaxed) - before;
    assert_eq!(out.flows.rows(), pairs);
    assert!(
        out.summary_json.contains("spec_omitted"),
        "a spec this large is not embedded"
    );
    peak
}

#[test]
fn a_bulk_flow_on_its_own_host_pair_costs_less_than_3_5_kb_of_heap_at_the_peak() {
    // Both large enough that the summary does not embed the normalised spec (its JSON
    // tree costs more than the world of a small run).
    let (small, big) = (peak_heap(4000), peak_heap(8000));
    let per_flow = (big - small) as f64 / 4000.0;
    eprintln!("heap at the peak: {small} B for 4000 pairs, {big} B for 8000: {per_flow:.0} B per flow");
    assert!(per_flow < 3500.0, "{per_flow:.0} bytes per flow (the bound is 3500)");
}
