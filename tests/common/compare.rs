//! A run of a command and its byte-for-byte comparison with a peer's run, with a small
//! line diff for the report: shared by the compatibility tests of `ibv_devinfo`
//! (`cli_compat.rs`, against rdma-core) and of `ibstat`/`ibstatus` (`ibstat/mod.rs`,
//! against infiniband-diags). Included by `#[path]`, as `ibstat_scale.rs` has no
//! `common` module.

/// What a command printed, and its exit status (`None`: killed, or not run).
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: Option<i32>,
}

/// A small line diff (longest common subsequence), `-` the peer, `+` uverbs, at most
/// `max_lines` lines of it; tabs shown as `\t`.
pub fn diff(a: &[u8], b: &[u8], max_lines: usize) -> String {
    let a: Vec<String> = String::from_utf8_lossy(a)
        .lines()
        .map(|l| l.replace('\t', "\\t"))
        .collect();
    let b: Vec<String> = String::from_utf8_lossy(b)
        .lines()
        .map(|l| l.replace('\t', "\\t"))
        .collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = String::new();
    let mut shown = 0;
    while (i < n || j < m) && shown < max_lines {
        if i < n && j < m && a[i] == b[j] {
            i += 1;
            j += 1;
            continue;
        }
        if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("    - {:4} {}\n", i + 1, a[i]));
            i += 1;
        } else {
            out.push_str(&format!("    + {:4} {}\n", j + 1, b[j]));
            j += 1;
        }
        shown += 1;
    }
    if out.is_empty() {
        out.push_str("    (the same lines; they differ in the final newline)\n");
    }
    out
}

/// Compares the peer's run (`reference`, by the tools named `peer`) with ours: a report
/// of what differs (exit status, then stdout and stderr as diffs of at most `max_lines`
/// lines each), `None` when equal.
pub fn compare(
    peer: &str,
    max_lines: usize,
    what: &str,
    reference: &Run,
    ours: &Run,
) -> Option<String> {
    if reference == ours {
        return None;
    }
    let mut r = format!("DIFFERENT: {what}\n");
    if reference.status != ours.status {
        r.push_str(&format!(
            "  exit status: {peer} {:?}, uverbs {:?}\n",
            reference.status, ours.status
        ));
    }
    if reference.stdout != ours.stdout {
        r.push_str(&format!("  stdout (- {peer}, + uverbs):\n"));
        r.push_str(&diff(&reference.stdout, &ours.stdout, max_lines));
    }
    if reference.stderr != ours.stderr {
        r.push_str(&format!("  stderr (- {peer}, + uverbs):\n"));
        r.push_str(&diff(&reference.stderr, &ours.stderr, max_lines));
    }
    Some(r)
}
