//! `count = n` expands one `[[flows]]` or `[[generators]]` entry into n instances; `{i}` in
//! its `src`, `dst` and `name` becomes the instance number.
use super::limits::{err, int_in};
use super::SpecError;
use serde_json::Value;
use std::collections::HashMap;

/// The entries of `list` expand into at most `max` items together (checked before anything
/// is expanded).
pub(super) fn check_total_count<'a>(
    list: &str,
    counts: impl Iterator<Item = Option<&'a Value>>,
    max: u64,
) -> Result<(), SpecError> {
    let mut total = 0;
    for (i, count) in counts.enumerate() {
        let path = format!("{list}[{i}].count");
        let n = match count {
            Some(v) => int_in(&path, v, 1, max)?,
            None => 1,
        };
        total += n;
        if total > max {
            return err(
                &path,
                format!("{n} more {list} would make {total}; at most {max} {list} in one scenario"),
            );
        }
    }
    Ok(())
}

/// The `count` of the entry at `p` (1 when absent).
pub(super) fn entry_count(p: &str, count: Option<&Value>, max: u64) -> Result<usize, SpecError> {
    Ok(match count {
        Some(v) => int_in(&format!("{p}.count"), v, 1, max)? as usize,
        None => 1,
    })
}

/// `s` with every `{i}` replaced by the instance number `k`.
pub(super) fn substitute(s: &str, k: usize) -> String {
    s.replace("{i}", &k.to_string())
}

/// The node positions of an instance's (substituted) `src` and `dst`.
pub(super) fn endpoints(
    p: &str,
    src: &str,
    dst: &str,
    index: &HashMap<String, usize>,
) -> Result<(usize, usize), SpecError> {
    let (Some(&a), Some(&b)) = (index.get(src), index.get(dst)) else {
        let (field, name) = if index.contains_key(src) {
            ("dst", dst)
        } else {
            ("src", src)
        };
        return err(&format!("{p}.{field}"), format!("unknown node {name:?}"));
    };
    Ok((a, b))
}

/// The name of instance `k` of `count`: the given name with `{i}` substituted, or with `k`
/// appended when it has no `{i}`; without a name, `unnamed_prefix` and `position` (the
/// instance's position among all flows, or all generators).
pub(super) fn instance_name(
    given: Option<&String>,
    count: usize,
    k: usize,
    unnamed_prefix: &str,
    position: usize,
) -> String {
    match given {
        Some(n) if count > 1 && n.contains("{i}") => substitute(n, k),
        Some(n) if count > 1 => format!("{n}{k}"),
        Some(n) => n.clone(),
        None => format!("{unnamed_prefix}{position}"),
    }
}
