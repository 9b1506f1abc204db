//! Fingerprints the simulator's sources so that a result store can tell results of one build
//! from another's: the crate version alone stays the same while the core changes.
use std::fs;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml") {
            out.push(path);
        }
    }
}

// FNV-1a, 64 bits: no dependency, and stable across Rust releases (std's hasher is not).
fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *hash ^= u64::from(*b);
        *hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let crates = here.parent().unwrap().to_path_buf();
    let workspace = crates.parent().unwrap().to_path_buf();
    let roots = [
        crates.join("tcplab-core/src"),
        crates.join("tcplab-core/Cargo.toml"),
        here.join("src"),
        here.join("Cargo.toml"),
        workspace.join("Cargo.lock"),
    ];
    let mut files = Vec::new();
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
        if root.is_dir() {
            collect(root, &mut files);
        } else if root.exists() {
            files.push(root.clone());
        }
    }
    files.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for f in &files {
        // Paths relative to the workspace, so that every checkout of one commit has one fingerprint.
        let rel = f.strip_prefix(&workspace).unwrap_or(f);
        fnv1a(&mut hash, rel.to_string_lossy().as_bytes());
        fnv1a(&mut hash, &[0]);
        fnv1a(&mut hash, &fs::read(f).unwrap_or_default());
        fnv1a(&mut hash, &[0]);
    }
    println!("cargo:rustc-env=TCPLAB_SOURCE_HASH={hash:016x}");
}
