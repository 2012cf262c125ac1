//! KTAP version 1, the kernel's test output format (`Documentation/dev-tools/ktap.rst`):
//! the lines `uverbs selftest` writes, and (in tests only: `tests/selftest.rs` includes
//! this file) a strict reader that every output is checked with.
//!
//! The format: a version line `KTAP version 1`, a plan `1..N`, then per test its
//! diagnostic lines (`# ...`) and its result line `ok|not ok NUMBER NAME [# DIRECTIVE
//! [DATA]]`; the numbers count from 1 at each level, the name holds no `#`, the
//! directives are `SKIP`, `TODO`, `XFAIL`, `TIMEOUT` and `ERROR` (the last two only on
//! `not ok`). A test with subtests has their whole block (version, plan, results)
//! before its own result line, indented two spaces more.

/// A name fit for a result line: no `#` (it starts the directive), no line breaks,
/// not empty.
pub fn name(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| if c == '#' || c.is_control() { '_' } else { c })
        .collect();
    if t.trim().is_empty() {
        "unnamed".into()
    } else {
        t.trim().to_owned()
    }
}

/// A diagnostic line's text: one line, control characters as spaces.
pub fn diag(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A result line (without its indentation and newline).
pub fn result(ok: bool, number: usize, test: &str, directive: Option<(&str, &str)>) -> String {
    let mut s = format!(
        "{} {number} {}",
        if ok { "ok" } else { "not ok" },
        name(test)
    );
    if let Some((d, data)) = directive {
        s.push_str(" # ");
        s.push_str(d);
        if !data.is_empty() {
            s.push(' ');
            s.push_str(&diag(data));
        }
    }
    s
}

#[cfg(test)]
/// What a strict reading of a KTAP document found: the leaf results by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// `ok` without a directive.
    pub pass: usize,
    /// `not ok` without a directive, and `TIMEOUT` and `ERROR`.
    pub fail: usize,
    /// `SKIP`.
    pub skip: usize,
    /// `XFAIL` (an expected failure: counted apart, not as a pass or a failure).
    pub xfail: usize,
    /// Every leaf's `(name, line)`: `device.query`, and the result line as written.
    pub leaves: Vec<(String, String)>,
}

#[cfg(test)]
#[derive(Debug)]
struct Parsed {
    ok: bool,
    number: usize,
    name: String,
    directive: Option<String>,
}

#[cfg(test)]
fn parse_result(t: &str) -> Result<Parsed, String> {
    let (ok, rest) = if let Some(r) = t.strip_prefix("not ok ") {
        (false, r)
    } else if let Some(r) = t.strip_prefix("ok ") {
        (true, r)
    } else {
        return Err("not a result line".into());
    };
    let (head, directive) = match rest.split_once(" # ") {
        Some((h, d)) => (h, Some(d.to_owned())),
        None => (rest, None),
    };
    let (num, name) = head.split_once(' ').unwrap_or((head, ""));
    let number: usize = num
        .parse()
        .map_err(|_| format!("result number {num:?} is not a number"))?;
    if name.contains('#') {
        return Err(format!("name {name:?} holds a '#'"));
    }
    if let Some(d) = &directive {
        let word = d.split(' ').next().unwrap_or("");
        match word {
            "SKIP" | "TODO" | "XFAIL" => {}
            "TIMEOUT" | "ERROR" if !ok => {}
            "TIMEOUT" | "ERROR" => return Err(format!("{word} on an ok line")),
            w => return Err(format!("unknown directive {w:?}")),
        }
    }
    Ok(Parsed {
        ok,
        number,
        name: name.to_owned(),
        directive,
    })
}

#[cfg(test)]
/// Reads a KTAP document strictly: every line must be a version, plan, result or
/// diagnostic line at the right indentation (unknown lines are refused, which the format
/// allows but this program never writes), the numbers must count from 1, the results
/// must match their plan, and a parent's result must agree with its subtests (not ok
/// when one failed). Returns the leaf results.
pub fn parse_strict(text: &str) -> Result<Counts, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut counts = Counts::default();
    let failed = block(&lines, &mut i, 0, "", &mut counts)?;
    let _ = failed;
    if i != lines.len() {
        return Err(format!(
            "line {}: after the document: {:?}",
            i + 1,
            lines[i]
        ));
    }
    Ok(counts)
}

#[cfg(test)]
/// Reads one block (version, plan, tests) at `level`; returns whether a test failed.
fn block(
    lines: &[&str],
    i: &mut usize,
    level: usize,
    path: &str,
    counts: &mut Counts,
) -> Result<bool, String> {
    let pad = "  ".repeat(level);
    let at = |i: usize| format!("line {}", i + 1);
    let line = |i: usize| lines.get(i).copied();
    if line(*i) != Some(&format!("{pad}KTAP version 1")) {
        return Err(format!(
            "{}: expected {pad:?}KTAP version 1, got {:?}",
            at(*i),
            line(*i)
        ));
    }
    *i += 1;
    // diagnostics may come before the plan
    while line(*i).is_some_and(|l| l.starts_with(&format!("{pad}# "))) {
        *i += 1;
    }
    let plan = line(*i)
        .and_then(|l| l.strip_prefix(&pad))
        .and_then(|l| l.strip_prefix("1.."))
        .ok_or_else(|| format!("{}: expected a plan 1..N", at(*i)))?;
    let (n, plan_directive) = match plan.split_once(" # ") {
        Some((n, d)) => (n, Some(d)),
        None => (plan, None),
    };
    let n: usize = n
        .parse()
        .map_err(|_| format!("{}: bad plan {plan:?}", at(*i)))?;
    if plan_directive.is_some_and(|d| !d.starts_with("SKIP")) {
        return Err(format!("{}: a plan's directive must be SKIP", at(*i)));
    }
    *i += 1;
    let mut any_failed = false;
    for want in 1..=n {
        let mut sub_failed = None;
        loop {
            let Some(l) = line(*i) else {
                return Err(format!(
                    "end of input: test {want} of {n} missing at level {level}"
                ));
            };
            if l == format!("{pad}  KTAP version 1") {
                sub_failed = Some(block(lines, i, level + 1, "", counts)?);
                continue;
            }
            if let Some(d) = l.strip_prefix(&pad) {
                if d.starts_with("# ") || d == "#" {
                    *i += 1;
                    continue;
                }
            }
            break;
        }
        let l = line(*i).unwrap_or_default();
        let t = l
            .strip_prefix(&pad)
            .filter(|t| !t.starts_with(' '))
            .ok_or_else(|| format!("{}: expected a result at level {level}: {l:?}", at(*i)))?;
        let r = parse_result(t).map_err(|e| format!("{}: {e}: {l:?}", at(*i)))?;
        if r.number != want {
            return Err(format!(
                "{}: test number {} where {want} was due",
                at(*i),
                r.number
            ));
        }
        let word = r
            .directive
            .as_deref()
            .map(|d| d.split(' ').next().unwrap_or(""));
        let this_failed = match word {
            Some("SKIP") => false,
            Some("TIMEOUT" | "ERROR") => true,
            _ => !r.ok,
        };
        match sub_failed {
            Some(f) => {
                if f && r.ok {
                    return Err(format!("{}: ok although a subtest failed", at(*i)));
                }
            }
            None => {
                let p = if path.is_empty() {
                    r.name.clone()
                } else {
                    format!("{path}/{}", r.name)
                };
                counts.leaves.push((p, t.to_owned()));
                match word {
                    Some("SKIP") => counts.skip += 1,
                    Some("XFAIL") => counts.xfail += 1,
                    _ if this_failed => counts.fail += 1,
                    _ => counts.pass += 1,
                }
            }
        }
        any_failed |= this_failed;
        *i += 1;
    }
    // trailing diagnostics of this level (the totals line at the top)
    while line(*i).is_some_and(|l| l.starts_with(&format!("{pad}# "))) {
        *i += 1;
    }
    Ok(any_failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_documents_example_is_read() {
        // ktap.rst's nested example (two-space indentation).
        let t = "KTAP version 1\n1..1\n  KTAP version 1\n  1..2\n  ok 1 test_1\n  not ok 2 test_2\n# example failed\nnot ok 1 example\n";
        let c = parse_strict(t).unwrap();
        assert_eq!((c.pass, c.fail, c.skip), (1, 1, 0));
    }

    #[test]
    fn what_this_program_writes_is_read() {
        let t = [
            "KTAP version 1".to_string(),
            "1..1".into(),
            "  KTAP version 1".into(),
            "  # Subtest: rxe0".into(),
            "  1..3".into(),
            format!("  {}", result(true, 1, "device.query", None)),
            "  # port.1.query: state 7".into(),
            format!("  {}", result(false, 2, "port.1.query", None)),
            format!(
                "  {}",
                result(true, 3, "probe.error_paths", Some(("SKIP", "no udata")))
            ),
            result(false, 1, "rxe0", None),
            "# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0".into(),
        ]
        .join("\n");
        let c = parse_strict(&t).unwrap();
        assert_eq!((c.pass, c.fail, c.skip), (1, 1, 1));
        assert_eq!(c.leaves[1].0, "port.1.query");
    }

    #[test]
    fn malformed_documents_are_refused() {
        for bad in [
            "",
            "TAP version 13\n1..0\n",
            "KTAP version 1\n1..2\nok 1 a\n",
            "KTAP version 1\n1..1\nok 2 a\n",
            "KTAP version 1\n1..1\nok 1 a#b\n",
            "KTAP version 1\n1..1\nok 1 a # TIMEOUT 3\n",
            "KTAP version 1\n1..1\nok 1 a # MAYBE\n",
            "KTAP version 1\n1..1\nstray line\nok 1 a\n",
            "KTAP version 1\n1..1\n  KTAP version 1\n  1..1\n  not ok 1 x\nok 1 parent\n",
            "KTAP version 1\n1..1\n    KTAP version 1\n    1..1\n    ok 1 x\nok 1 parent\n",
            "KTAP version 1\n1..1\nok 1 a\nmore\n",
        ] {
            assert!(parse_strict(bad).is_err(), "accepted: {bad:?}");
        }
    }

    #[test]
    fn names_and_diagnostics_stay_on_one_line() {
        assert_eq!(name("a#b\nc"), "a_b_c");
        assert_eq!(name("  "), "unnamed");
        assert_eq!(diag("x\ny"), "x y");
        assert_eq!(
            result(false, 3, "t", Some(("TIMEOUT", "30 seconds"))),
            "not ok 3 t # TIMEOUT 30 seconds"
        );
    }
}
