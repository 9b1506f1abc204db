use std::collections::VecDeque;

/// Fewest-hop path from `src` to `dst` as a list of link-direction indices.
/// `adj[node]` lists `(neighbour, link_dir)` in link order; ties go to the neighbour
/// reached through the earliest-declared link, so routes are deterministic.
pub fn shortest_path(adj: &[Vec<(u32, u32)>], src: u32, dst: u32) -> Option<Vec<u32>> {
    let n = adj.len();
    let mut prev: Vec<Option<(u32, u32)>> = vec![None; n];
    let mut seen = vec![false; n];
    let mut q = VecDeque::from([src]);
    seen[src as usize] = true;
    while let Some(u) = q.pop_front() {
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
            if !seen[v as usize] {
                seen[v as usize] = true;
                prev[v as usize] = Some((u, l));
                q.push_back(v);
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
        assert_eq!(shortest_path(&adj, 0, 3), Some(vec![0, 4]));
        assert_eq!(shortest_path(&adj, 3, 0), Some(vec![5, 1]));
        let adj2 = vec![vec![], vec![]];
        assert_eq!(shortest_path(&adj2, 0, 1), None);
    }
}
