//! The aggregated srtt / rttvar of a connection set (paper section 3.1).

/// `agg ← ((n−1)/n)·agg + (1/n)·new` whenever a member's value changes, where n is the
/// number of connections in the set counting the one that changed. The first value (or
/// any value with n = 1) is taken as it is. `reset` forgets the value (the set emptied).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Aggregate {
    pub value: Option<f64>,
}

impl Aggregate {
    pub fn update(&mut self, n: usize, new: f64) {
        self.value = match self.value {
            Some(v) if n > 1 => {
                let n = n as f64;
                Some((n - 1.0) / n * v + new / n)
            }
            _ => Some(new),
        };
    }

    pub fn reset(&mut self) {
        self.value = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_rule_step_by_step() {
        let mut a = Aggregate::default();
        a.update(3, 0.3);
        assert_eq!(a.value, Some(0.3), "first value ever is taken");
        a.update(3, 0.6);
        // 2/3 * 0.3 + 1/3 * 0.6 = 0.4
        assert!((a.value.unwrap() - 0.4).abs() < 1e-15);
        a.update(2, 0.2);
        // 1/2 * 0.4 + 1/2 * 0.2 = 0.3
        assert!((a.value.unwrap() - 0.3).abs() < 1e-15);
        a.update(4, 0.7);
        // 3/4 * 0.3 + 1/4 * 0.7 = 0.4
        assert!((a.value.unwrap() - 0.4).abs() < 1e-15);
        a.update(1, 0.9);
        assert_eq!(a.value, Some(0.9), "n = 1 takes the sample");
        a.reset();
        assert_eq!(a.value, None);
        a.update(5, 0.1);
        assert_eq!(a.value, Some(0.1), "after a reset the next value is taken");
    }
}
