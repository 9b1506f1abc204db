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

#[cfg(test)]
mod tests {
    use super::*;

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
