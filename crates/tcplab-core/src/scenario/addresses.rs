//! IPv4 addresses of nodes: parsing, formatting, and the defaults given to nodes without one.
use super::limits::err;
use super::{NodeSpec, SpecError};
use std::collections::HashMap;

/// Parse a dotted-quad IPv4 address.
pub fn parse_ipv4(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut a: u32 = 0;
    for p in parts {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let x: u32 = p.parse().ok()?;
        if x > 255 {
            return None;
        }
        a = (a << 8) | x;
    }
    Some(a)
}

pub fn format_ipv4(a: u32) -> String {
    format!("{}.{}.{}.{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)
}

/// Check that given addresses are unique and give every other node a default: node `i`
/// (in node order, dumbbell nodes after the declared ones) gets 10.0.0.0 + i + 1, or the
/// next higher address not yet taken.
pub(super) fn assign_addresses(nodes: &mut [NodeSpec]) -> Result<(), SpecError> {
    let mut taken: HashMap<u32, usize> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.address.is_empty() {
            continue;
        }
        let a = parse_ipv4(&n.address).expect("checked");
        if let Some(j) = taken.insert(a, i) {
            return err(
                &format!("nodes[{i}].address"),
                format!(
                    "{:?} is already the address of nodes[{j}] ({:?})",
                    n.address, nodes[j].name
                ),
            );
        }
    }
    // Every address between a node's base and the previous default one is taken, so the
    // search resumes after the previous default instead of starting again at the base.
    let mut next: u64 = 0;
    for (i, n) in nodes.iter_mut().enumerate() {
        if !n.address.is_empty() {
            continue;
        }
        let mut a = next.max(0x0A00_0000 + i as u64 + 1);
        while a <= u32::MAX as u64 && taken.contains_key(&(a as u32)) {
            a += 1;
        }
        if a > u32::MAX as u64 {
            return err(&format!("nodes[{i}].address"), "no IPv4 address is left for a default");
        }
        taken.insert(a as u32, i);
        n.address = format_ipv4(a as u32);
        next = a + 1;
    }
    Ok(())
}
