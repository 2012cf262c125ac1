//! Counters and port status as sysfs shows them (`drivers/infiniband/core/sysfs.c`):
//!
//! - `ports/N/counters/`: the InfiniBand PMA counters (`PortCounters`, and the
//!   `PortCountersExtended` ones under the same names when the device has them), one
//!   decimal number per file, or `N/A (no PMA)` when the driver has no performance
//!   management agent; `port_xmit_data` and `port_rcv_data` count 4-octet words;
//! - `ports/N/counters_ext/` (mlx4): 64-bit counters of the same kind;
//! - `ports/N/hw_counters/` and the device's `hw_counters/`: the driver's own counters,
//!   beside `lifespan` (how long, in milliseconds, the kernel keeps a reading; a
//!   setting, not a counter);
//! - `ports/N/{state,phys_state}` (`4: ACTIVE`, `5: LinkUp`), `rate`
//!   (`40 Gb/sec (4X QDR)`), `link_layer`, `lid`.
//!
//! The parsers are pure functions over `&str`; the readers go through [`SysDir`].

use rustix::io::Errno;

use super::dir::{is_absent, SysDir};

/// What one counter file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterText {
    /// A value.
    Value(u64),
    /// The driver has no such counter (`N/A (no PMA)`).
    NotAvailable,
}

/// Parses a counter file: a decimal number, or `N/A ...`; `None` when it is neither.
pub fn parse_counter(text: &str) -> Option<CounterText> {
    let t = text.trim();
    if t.starts_with("N/A") {
        return Some(CounterText::NotAvailable);
    }
    t.parse().ok().map(CounterText::Value)
}

/// Parses `state` or `phys_state` (`4: ACTIVE`, `5: LinkUp`): the number.
pub fn parse_state(text: &str) -> Option<u8> {
    text.trim().split_once(':')?.0.trim().parse().ok()
}

/// A port's rate as sysfs prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SysRate {
    /// The rate in tenths of Gb/s (`2.5 Gb/sec` → 25).
    pub decigbps: u32,
    /// The width in lanes (`4X` → 4).
    pub lanes: Option<u32>,
    /// The lane speed's name (`QDR`), absent when the kernel printed none.
    pub speed: Option<String>,
}

/// Parses `rate`: `40 Gb/sec (4X QDR)`, `2.5 Gb/sec (1X SDR)`, `10 Gb/sec (4X)`.
pub fn parse_rate(text: &str) -> Option<SysRate> {
    let t = text.trim();
    let (num, rest) = t.split_once(' ')?;
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int.is_empty() || frac.len() > 1 {
        return None;
    }
    let mut decigbps: u32 = int.parse::<u32>().ok()?.checked_mul(10)?;
    if !frac.is_empty() {
        decigbps = decigbps.checked_add(frac.parse::<u32>().ok()?)?;
    }
    let rest = rest.strip_prefix("Gb/sec")?.trim();
    let (mut lanes, mut speed) = (None, None);
    if let Some(inner) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let mut words = inner.split_whitespace();
        lanes = words
            .next()
            .and_then(|w| w.strip_suffix('X'))
            .and_then(|n| n.parse().ok());
        speed = words.next().map(str::to_owned);
    }
    Some(SysRate {
        decigbps,
        lanes,
        speed,
    })
}

/// The counters of one directory, read file by file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CounterFiles {
    /// The counters with a value, by file name, sorted.
    pub values: Vec<(String, u64)>,
    /// Files whose text is neither a number nor `N/A` (name, text).
    pub malformed: Vec<(String, String)>,
    /// Files that could not be read (name, errno); absent ones are not listed.
    pub unreadable: Vec<(String, Errno)>,
}

/// Reads every counter file of `dir`, except `lifespan` and sub-directories; counters
/// the driver does not have (`N/A`) are left out.
///
/// # Errors
///
/// The errno of listing the directory.
pub fn read_counter_files(dir: &SysDir) -> Result<CounterFiles, Errno> {
    let mut names = dir.names()?;
    names.retain(|n| n != "lifespan");
    let mut out = CounterFiles::default();
    for name in names {
        match dir.with_attr(&name, |t| parse_counter(t).ok_or_else(|| t.to_owned())) {
            Ok(Some(Ok(CounterText::Value(v)))) => out.values.push((name, v)),
            Ok(Some(Ok(CounterText::NotAvailable))) | Ok(None) => {}
            Ok(Some(Err(text))) => out.malformed.push((name, text)),
            // A directory among the counters (none today): not a counter.
            Err(Errno::ISDIR) => {}
            Err(e) => out.unreadable.push((name, e)),
        }
    }
    Ok(out)
}

/// Opens `sub` under `dir`: `Ok(None)` when it is absent.
///
/// # Errors
///
/// Any other errno of `openat(2)`.
pub fn open_optional(dir: &SysDir, sub: &str) -> Result<Option<SysDir>, Errno> {
    match dir.dir(sub) {
        Ok(d) => Ok(Some(d)),
        Err(e) if is_absent(e) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters() {
        assert_eq!(
            parse_counter("4631917\n"),
            Some(CounterText::Value(4631917))
        );
        assert_eq!(
            parse_counter("18446744073709551615"),
            Some(CounterText::Value(u64::MAX))
        );
        assert_eq!(
            parse_counter("N/A (no PMA)\n"),
            Some(CounterText::NotAvailable)
        );
        assert_eq!(parse_counter("-1"), None);
        assert_eq!(parse_counter("12 packets"), None);
        assert_eq!(parse_counter(""), None);
    }

    #[test]
    fn states() {
        assert_eq!(parse_state("4: ACTIVE\n"), Some(4));
        assert_eq!(parse_state("5: LinkUp"), Some(5));
        assert_eq!(parse_state("ACTIVE"), None);
        assert_eq!(parse_state("x: ACTIVE"), None);
    }

    #[test]
    fn rates() {
        // As the kernel's rate_show prints them (6.1 and 6.12).
        assert_eq!(
            parse_rate("40 Gb/sec (4X QDR)\n"),
            Some(SysRate {
                decigbps: 400,
                lanes: Some(4),
                speed: Some("QDR".into())
            })
        );
        assert_eq!(parse_rate("2.5 Gb/sec (1X SDR)").unwrap().decigbps, 25);
        // The i40iw line of node_exporter's test data: no speed name.
        assert_eq!(
            parse_rate("10 Gb/sec (4X)"),
            Some(SysRate {
                decigbps: 100,
                lanes: Some(4),
                speed: None
            })
        );
        for bad in [
            "",
            "40",
            "40 Mb/sec (4X)",
            "4.55 Gb/sec",
            ".5 Gb/sec",
            "x Gb/sec",
        ] {
            assert_eq!(parse_rate(bad), None, "{bad}");
        }
    }
}
