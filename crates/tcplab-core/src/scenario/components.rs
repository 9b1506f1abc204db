//! Connected components of the topology (union-find), so that "is there a route from a to
//! b" costs almost nothing per flow. Every link carries both directions and every routing
//! cost is > 0, so a route exists exactly when both nodes are in one component. A LAN joins
//! all its members: each is united with the first one, never member × member.
pub struct Components {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl Components {
    pub fn new(nodes: usize) -> Components {
        Components {
            parent: (0..nodes as u32).collect(),
            size: vec![1; nodes],
        }
    }

    fn root(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand; // path halving
            x = grand;
        }
        x
    }

    pub fn join(&mut self, a: usize, b: usize) {
        let (mut ra, mut rb) = (self.root(a as u32), self.root(b as u32));
        if ra == rb {
            return;
        }
        if self.size[ra as usize] < self.size[rb as usize] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb as usize] = ra;
        self.size[ra as usize] += self.size[rb as usize];
    }

    pub fn connected(&mut self, a: usize, b: usize) -> bool {
        self.root(a as u32) == self.root(b as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_are_transitive_and_separate_components_stay_apart() {
        let mut c = Components::new(6);
        c.join(0, 1);
        c.join(2, 3);
        c.join(1, 3);
        c.join(4, 5);
        assert!(c.connected(0, 2) && c.connected(3, 0) && c.connected(4, 5));
        assert!(!c.connected(0, 4) && !c.connected(5, 1));
        assert!(c.connected(3, 3));
    }
}
