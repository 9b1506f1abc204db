//! Static least-cost routing over link directions and LAN hops.
//!
//! `shortest_path` defines a route: Dijkstra from the source, ties to the path discovered
//! first. `Router` finds the same routes for many pairs at once in near-linear time: one
//! full Dijkstra per distinct tree instead of one per pair, and a stub host (a node with a
//! single outgoing hop, e.g. every host of a dumbbell) shares the tree of the node it hangs
//! from.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Least-cost path from `src` to `dst` as a list of link-direction indices.
/// `adj[node]` lists `(neighbour, link_dir)` in link order and `cost[link_dir]` is the
/// routing cost of each direction (1 everywhere gives fewest hops). Ties go to the path
/// discovered first, neighbours in link order, so routes are deterministic.
pub fn shortest_path(adj: &[Vec<(u32, u32)>], cost: &[f64], src: u32, dst: u32) -> Option<Vec<u32>> {
    let n = adj.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut prev: Vec<Option<(u32, u32)>> = vec![None; n];
    let mut done = vec![false; n];
    // (cost as ordered bits, insertion order, node): equal costs leave in insertion order.
    let mut heap = BinaryHeap::new();
    let mut order: u64 = 0;
    dist[src as usize] = 0.0;
    heap.push(Reverse((0u64, order, src)));
    while let Some(Reverse((_, _, u))) = heap.pop() {
        if done[u as usize] {
            continue;
        }
        done[u as usize] = true;
        if u == dst {
            let mut path = Vec::new();
            let mut v = dst;
            while let Some((p, l)) = prev[v as usize] {
                path.push(l);
                v = p;
            }
            path.reverse();
            return Some(path);
        }
        for &(v, l) in &adj[u as usize] {
            let d = dist[u as usize] + cost[l as usize];
            if !done[v as usize] && d < dist[v as usize] {
                dist[v as usize] = d;
                prev[v as usize] = Some((u, l));
                order += 1;
                heap.push(Reverse((d.to_bits(), order, v)));
            }
        }
    }
    None
}

/// The search tree a route is read from: Dijkstra from `root`, whose distance starts at
/// `offset` (the cost of a stub's only hop; 0 for a route read from its own source).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct TreeKey {
    root: u32,
    offset_bits: u64,
}

/// Why `Router::routes` stopped before finishing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted;

/// Routes for many (src, dst) pairs, each exactly the path `shortest_path` gives.
///
/// Why a shared tree gives the same paths: Dijkstra's state when it pops `dst` does not
/// depend on whether it stops there, so one full run from `src` answers every destination.
/// For a source `h` whose only outgoing hop is `l` to `c`, the run from `h` pops `h`, then
/// `c` at distance cost(l), and from there it is step for step the run from `c` started at
/// distance cost(l) (same additions in the same order, same heap order): `h` can only be
/// re-entered through `c`, and its only way out leads back to `c`. So every stub hanging
/// from `c` by a hop of the same cost reads its routes from the one tree (c, cost(l)).
pub struct Router<'a> {
    adj: &'a [Vec<(u32, u32)>],
    cost: &'a [f64],
    dist: Vec<f64>,
    prev: Vec<Option<(u32, u32)>>,
    done: Vec<bool>,
}

impl<'a> Router<'a> {
    /// `adj` and `cost` as for `shortest_path`.
    pub fn new(adj: &'a [Vec<(u32, u32)>], cost: &'a [f64]) -> Router<'a> {
        Router {
            adj,
            cost,
            dist: Vec::new(),
            prev: Vec::new(),
            done: Vec::new(),
        }
    }

    /// The tree `pair`'s route is read from, and the hop to put in front of it.
    fn tree_for(&self, (src, _): (u32, u32)) -> (TreeKey, Option<u32>) {
        match self.adj[src as usize].as_slice() {
            &[(c, l)] if c != src => (
                TreeKey {
                    root: c,
                    offset_bits: self.cost[l as usize].to_bits(),
                },
                Some(l),
            ),
            _ => (
                TreeKey {
                    root: src,
                    offset_bits: 0f64.to_bits(),
                },
                None,
            ),
        }
    }

    /// Full Dijkstra from `key.root`, leaving `prev` filled for every reachable node.
    fn grow(&mut self, key: TreeKey) {
        let n = self.adj.len();
        self.dist.clear();
        self.dist.resize(n, f64::INFINITY);
        self.prev.clear();
        self.prev.resize(n, None);
        self.done.clear();
        self.done.resize(n, false);
        let mut heap = BinaryHeap::new();
        let mut order: u64 = 0;
        let start = f64::from_bits(key.offset_bits);
        self.dist[key.root as usize] = start;
        heap.push(Reverse((start.to_bits(), order, key.root)));
        while let Some(Reverse((_, _, u))) = heap.pop() {
            if self.done[u as usize] {
                continue;
            }
            self.done[u as usize] = true;
            for &(v, l) in &self.adj[u as usize] {
                let d = self.dist[u as usize] + self.cost[l as usize];
                if !self.done[v as usize] && d < self.dist[v as usize] {
                    self.dist[v as usize] = d;
                    self.prev[v as usize] = Some((u, l));
                    order += 1;
                    heap.push(Reverse((d.to_bits(), order, v)));
                }
            }
        }
    }

    /// The path from the current tree's root to `dst` (None if unreachable).
    fn read(&self, root: u32, dst: u32) -> Option<Vec<u32>> {
        if !self.done[dst as usize] {
            return None;
        }
        let mut path = Vec::new();
        let mut v = dst;
        while v != root {
            let (p, l) = self.prev[v as usize]?;
            path.push(l);
            v = p;
        }
        path.reverse();
        Some(path)
    }

    /// The route of every `(src, dst)` pair, in order. `tick` is called now and then (after
    /// every tree and every 4096 routes read); when it returns false the search stops.
    pub fn routes(
        &mut self,
        pairs: &[(u32, u32)],
        tick: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<Option<Vec<u32>>>, Interrupted> {
        let mut out: Vec<Option<Vec<u32>>> = vec![None; pairs.len()];
        let mut by_tree: Vec<(TreeKey, u32)> = Vec::with_capacity(pairs.len());
        for (i, &(src, dst)) in pairs.iter().enumerate() {
            if src == dst {
                out[i] = Some(Vec::new());
            } else {
                by_tree.push((self.tree_for((src, dst)).0, i as u32));
            }
        }
        by_tree.sort_unstable();
        let mut read = 0u32;
        let mut k = 0;
        while k < by_tree.len() {
            let key = by_tree[k].0;
            self.grow(key);
            if !tick() {
                return Err(Interrupted);
            }
            while k < by_tree.len() && by_tree[k].0 == key {
                let i = by_tree[k].1 as usize;
                let (src, dst) = pairs[i];
                out[i] = match self.tree_for((src, dst)).1 {
                    // the stub's own hop, then the tree's path (none needed to reach the root)
                    Some(first) => self.read(key.root, dst).map(|rest| {
                        let mut p = Vec::with_capacity(rest.len() + 1);
                        p.push(first);
                        p.extend(rest);
                        p
                    }),
                    None => self.read(key.root, dst),
                };
                k += 1;
                read += 1;
                if read % 4096 == 0 && !tick() {
                    return Err(Interrupted);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    /// A graph built link by link as the engine builds it: both directions of a link, in
    /// order, and LANs as full meshes of hops of cost 1.
    #[derive(Default)]
    struct Graph {
        adj: Vec<Vec<(u32, u32)>>,
        cost: Vec<f64>,
    }

    impl Graph {
        fn new(n: usize) -> Graph {
            Graph {
                adj: vec![Vec::new(); n],
                cost: Vec::new(),
            }
        }
        fn link(&mut self, a: u32, b: u32, ab: f64, ba: f64) {
            for (from, to, c) in [(a, b, ab), (b, a, ba)] {
                self.adj[from as usize].push((to, self.cost.len() as u32));
                self.cost.push(c);
            }
        }
        fn lan(&mut self, members: &[u32]) {
            for &a in members {
                for &b in members {
                    if a != b {
                        self.adj[a as usize].push((b, self.cost.len() as u32));
                        self.cost.push(1.0);
                    }
                }
            }
        }
        /// Every ordered pair's route, one by one and by the router.
        fn check_all_pairs(&self, what: &str) {
            let n = self.adj.len() as u32;
            let pairs: Vec<(u32, u32)> = (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).collect();
            self.check(&pairs, what);
        }
        fn check(&self, pairs: &[(u32, u32)], what: &str) {
            let got = Router::new(&self.adj, &self.cost).routes(pairs, &mut || true).unwrap();
            for (&(a, b), r) in pairs.iter().zip(&got) {
                assert_eq!(*r, shortest_path(&self.adj, &self.cost, a, b), "{what}: {a} -> {b}");
            }
        }
    }

    fn random_cost(rng: &mut Rng) -> f64 {
        // few distinct values, fractional ones whose float sums are not associative, so
        // that ties (exact and rounded) are frequent
        [1.0, 1.0, 2.0, 0.1, 0.2, 0.3, 0.7, 3.0][(rng.uniform() * 8.0) as usize]
    }

    #[test]
    fn router_finds_the_same_routes_as_one_dijkstra_per_pair_on_random_graphs() {
        let mut rng = Rng::from_seed(17);
        for case in 0..300 {
            let n = 2 + (rng.uniform() * 30.0) as usize;
            let mut g = Graph::new(n);
            let links = (rng.uniform() * 2.5 * n as f64) as usize;
            for _ in 0..links {
                let a = (rng.uniform() * n as f64) as u32;
                let b = (rng.uniform() * n as f64) as u32;
                if a != b {
                    let (ab, ba) = (random_cost(&mut rng), random_cost(&mut rng));
                    g.link(a, b, ab, ba);
                }
            }
            if case % 3 == 0 {
                // a few stubs hanging from random nodes, by hops of differing costs
                for _ in 0..(rng.uniform() * 6.0) as usize {
                    let s = g.adj.len() as u32;
                    g.adj.push(Vec::new());
                    let c = (rng.uniform() * n as f64) as u32;
                    let (ab, ba) = (random_cost(&mut rng), random_cost(&mut rng));
                    g.link(s, c, ab, ba);
                }
            }
            if case % 5 == 0 && n >= 4 {
                let k = 2 + (rng.uniform() * (n as f64 - 2.0)) as usize;
                let members: Vec<u32> = (0..k as u32).collect();
                g.lan(&members);
            }
            g.check_all_pairs(&format!("random graph {case}"));
        }
    }

    #[test]
    fn router_matches_on_dumbbells_chains_and_lans() {
        // dumbbell: sources 0..p on router 2p, sinks p..2p on router 2p+1
        let p = 40u32;
        let mut g = Graph::new(2 * p as usize + 2);
        g.link(2 * p, 2 * p + 1, 1.0, 1.0);
        for i in 0..p {
            g.link(i, 2 * p, 1.0, 1.0);
            g.link(p + i, 2 * p + 1, 1.0, 1.0);
        }
        g.link(0, 2 * p + 1, 1.0, 1.0); // one source multi-homed: not a stub
        g.check_all_pairs("dumbbell");
        // a chain whose ends are stubs, and a pair of nodes joined by two parallel links
        let mut g = Graph::new(6);
        for i in 0..4 {
            g.link(i, i + 1, 0.1, 0.2);
        }
        g.link(4, 5, 1.0, 1.0);
        g.link(4, 5, 0.5, 1.0);
        g.check_all_pairs("chain");
        // two nodes joined by one link: each is the other's stub
        let mut g = Graph::new(2);
        g.link(0, 1, 1.0, 1.0);
        g.check_all_pairs("pair");
        // LAN-only, and a LAN bridged to a router with stub hosts
        let mut g = Graph::new(5);
        g.lan(&[0, 1, 2, 3]);
        g.check_all_pairs("lan with an isolated node");
        g.link(3, 4, 1.0, 1.0);
        g.check_all_pairs("lan with a stub");
    }

    #[test]
    fn router_stops_when_told() {
        let mut g = Graph::new(3);
        g.link(0, 1, 1.0, 1.0);
        g.link(1, 2, 1.0, 1.0);
        let mut calls = 0;
        let r = Router::new(&g.adj, &g.cost).routes(&[(0, 2), (2, 0)], &mut || {
            calls += 1;
            false
        });
        assert_eq!((r, calls), (Err(Interrupted), 1));
    }

    #[test]
    fn fewest_hops_with_deterministic_ties() {
        // 0-1-3 and 0-2-3 (both 2 hops), plus a direct 0..4..3 detour of 2 hops too.
        let adj = vec![
            vec![(1, 0), (2, 2)],
            vec![(0, 1), (3, 4)],
            vec![(0, 3), (3, 6)],
            vec![(1, 5), (2, 7)],
        ];
        let ones = vec![1.0; 8];
        assert_eq!(shortest_path(&adj, &ones, 0, 3), Some(vec![0, 4]));
        assert_eq!(shortest_path(&adj, &ones, 3, 0), Some(vec![5, 1]));
        let adj2 = vec![vec![], vec![]];
        assert_eq!(shortest_path(&adj2, &ones, 0, 1), None);
    }

    #[test]
    fn costs_per_direction_make_asymmetric_routes() {
        // triangle 0-1 (dirs 0: 0→1, 1: 1→0), 1-2 (2: 1→2, 3: 2→1), 0-2 (4: 0→2, 5: 2→0)
        let adj = vec![vec![(1, 0), (2, 4)], vec![(0, 1), (2, 2)], vec![(1, 3), (0, 5)]];
        let mut cost = vec![1.0; 6];
        assert_eq!(shortest_path(&adj, &cost, 0, 1), Some(vec![0]));
        assert_eq!(shortest_path(&adj, &cost, 1, 0), Some(vec![1]));
        cost[1] = 10.0; // 1→0 directly is expensive: back via 2
        assert_eq!(shortest_path(&adj, &cost, 0, 1), Some(vec![0]));
        assert_eq!(shortest_path(&adj, &cost, 1, 0), Some(vec![2, 5]));
    }
}
