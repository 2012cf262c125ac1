//! Command-line parsing with the behaviour of glibc's `getopt_long(3)`, which rdma-core's
//! tools use: short option clusters (`-vl`, `-drxe0`), long options with unique
//! abbreviations (`--verb`), `--opt=value` and `--opt value`, argument permutation
//! (options after operands are still options, unless `POSIXLY_CORRECT` is set), `--`, and
//! glibc's exact diagnostics. Also `strtol(3)` for numeric option values.
//!
//! Arguments are bytes: names of devices need not be UTF-8, and are printed back as given.

/// A long option: its name, whether it takes an argument, and the short option it maps to.
#[derive(Debug, Clone, Copy)]
pub struct LongOpt {
    pub name: &'static str,
    pub has_arg: bool,
    pub val: u8,
}

/// A long option, for the option tables.
pub const fn opt(name: &'static str, has_arg: bool, val: u8) -> LongOpt {
    LongOpt { name, has_arg, val }
}

/// A parse error, carrying what glibc's message needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetoptError {
    /// `-x` where `x` is not in the option string.
    InvalidOption(u8),
    /// `-d` at the end of the arguments.
    MissingArgument(u8),
    /// `--foo` or `--foo=bar`; the text after `--`.
    Unrecognized(Vec<u8>),
    /// `--ib`: the text after `--`, and the names it could mean, in table order.
    Ambiguous(Vec<u8>, Vec<&'static str>),
    /// `--list=3`: the option's full name.
    NoArgumentAllowed(&'static str),
    /// `--ib-dev` at the end: the option's full name.
    RequiresArgument(&'static str),
}

impl GetoptError {
    /// The message glibc prints to stderr, `argv0` first, with its newline.
    pub fn glibc_message(&self, argv0: &[u8]) -> Vec<u8> {
        let mut m = argv0.to_vec();
        match self {
            GetoptError::InvalidOption(c) => {
                m.extend_from_slice(b": invalid option -- '");
                m.push(*c);
                m.extend_from_slice(b"'");
            }
            GetoptError::MissingArgument(c) => {
                m.extend_from_slice(b": option requires an argument -- '");
                m.push(*c);
                m.extend_from_slice(b"'");
            }
            GetoptError::Unrecognized(text) => {
                m.extend_from_slice(b": unrecognized option '--");
                m.extend_from_slice(text);
                m.extend_from_slice(b"'");
            }
            GetoptError::Ambiguous(text, names) => {
                m.extend_from_slice(b": option '--");
                m.extend_from_slice(text);
                m.extend_from_slice(b"' is ambiguous; possibilities:");
                for n in names {
                    m.extend_from_slice(b" '--");
                    m.extend_from_slice(n.as_bytes());
                    m.extend_from_slice(b"'");
                }
            }
            GetoptError::NoArgumentAllowed(name) => {
                m.extend_from_slice(b": option '--");
                m.extend_from_slice(name.as_bytes());
                m.extend_from_slice(b"' doesn't allow an argument");
            }
            GetoptError::RequiresArgument(name) => {
                m.extend_from_slice(b": option '--");
                m.extend_from_slice(name.as_bytes());
                m.extend_from_slice(b"' requires an argument");
            }
        }
        m.push(b'\n');
        m
    }

    /// The same message without the program name, for one-line errors.
    pub fn short_message(&self) -> String {
        let full = self.glibc_message(b"");
        let full = full.strip_suffix(b"\n").unwrap_or(&full);
        let s = printable(full);
        s.trim_start_matches(": ").trim_end().to_string()
    }
}

/// One parsed option: its short letter (or the long option's `val`) and its argument.
pub type Parsed = (u8, Option<Vec<u8>>);

/// A `getopt_long` session over `args` (without `argv[0]`).
pub struct Getopt<'a> {
    args: &'a [Vec<u8>],
    shorts: &'static str,
    longs: &'static [LongOpt],
    optind: usize,
    /// Position inside a short option cluster: (argument index, byte offset).
    cluster: Option<(usize, usize)>,
    require_order: bool,
    done: bool,
    /// Non-option arguments met so far (and, once parsing ends, the rest).
    pub operands: Vec<Vec<u8>>,
}

impl<'a> Getopt<'a> {
    /// `shorts` is the option string without a leading `+`/`-`/`:` (`"d:i:lv"`).
    pub fn new(args: &'a [Vec<u8>], shorts: &'static str, longs: &'static [LongOpt]) -> Self {
        Getopt {
            args,
            shorts,
            longs,
            optind: 0,
            cluster: None,
            require_order: std::env::var_os("POSIXLY_CORRECT").is_some(),
            done: false,
            operands: Vec::new(),
        }
    }

    fn finish(&mut self) {
        if !self.done {
            self.done = true;
            self.operands.extend(
                self.args[self.optind.min(self.args.len())..]
                    .iter()
                    .cloned(),
            );
            self.optind = self.args.len();
        }
    }

    fn short_spec(&self, c: u8) -> Option<bool> {
        if c == b':' || c == b';' {
            return None;
        }
        let s = self.shorts.as_bytes();
        let i = s.iter().position(|&x| x == c)?;
        Some(s.get(i + 1) == Some(&b':'))
    }

    /// The next option, `None` at the end (then [`Getopt::operands`] is complete).
    pub fn next_opt(&mut self) -> Option<Result<Parsed, GetoptError>> {
        if let Some((ai, off)) = self.cluster {
            return Some(self.short_at(ai, off));
        }
        loop {
            if self.done {
                return None;
            }
            let Some(arg) = self.args.get(self.optind) else {
                self.finish();
                return None;
            };
            if arg.as_slice() == b"--" {
                self.optind += 1;
                self.finish();
                return None;
            }
            if arg.len() < 2 || arg[0] != b'-' {
                if self.require_order {
                    self.finish();
                    return None;
                }
                self.operands.push(arg.clone());
                self.optind += 1;
                continue;
            }
            if arg[1] == b'-' {
                return Some(self.long(self.optind));
            }
            return Some(self.short_at(self.optind, 1));
        }
    }

    fn short_at(&mut self, ai: usize, off: usize) -> Result<Parsed, GetoptError> {
        let arg = &self.args[ai];
        let c = arg[off];
        let last = off + 1 >= arg.len();
        self.cluster = if last { None } else { Some((ai, off + 1)) };
        if last {
            self.optind = ai + 1;
        }
        let Some(has_arg) = self.short_spec(c) else {
            return Err(GetoptError::InvalidOption(c));
        };
        if !has_arg {
            return Ok((c, None));
        }
        if !last {
            // The rest of the cluster is the argument.
            self.cluster = None;
            self.optind = ai + 1;
            return Ok((c, Some(arg[off + 1..].to_vec())));
        }
        match self.args.get(self.optind) {
            Some(v) => {
                self.optind += 1;
                Ok((c, Some(v.clone())))
            }
            None => Err(GetoptError::MissingArgument(c)),
        }
    }

    fn long(&mut self, ai: usize) -> Result<Parsed, GetoptError> {
        let text = &self.args[ai][2..];
        let (name, value) = match text.iter().position(|&b| b == b'=') {
            Some(i) => (&text[..i], Some(&text[i + 1..])),
            None => (text, None),
        };
        self.optind = ai + 1;
        let found = match self.longs.iter().find(|o| o.name.as_bytes() == name) {
            Some(o) => *o,
            None => {
                let matches: Vec<&LongOpt> = self
                    .longs
                    .iter()
                    .filter(|o| o.name.as_bytes().starts_with(name))
                    .collect();
                match matches.as_slice() {
                    [] => return Err(GetoptError::Unrecognized(text.to_vec())),
                    [one] => **one,
                    [first, rest @ ..] => {
                        // glibc: later prefix matches that differ from the first make it
                        // ambiguous (every option here differs in `val`).
                        let differs = rest
                            .iter()
                            .any(|o| o.has_arg != first.has_arg || o.val != first.val);
                        if !differs {
                            **first
                        } else {
                            return Err(GetoptError::Ambiguous(
                                text.to_vec(),
                                matches.iter().map(|o| o.name).collect(),
                            ));
                        }
                    }
                }
            }
        };
        match (value, found.has_arg) {
            (Some(v), true) => Ok((found.val, Some(v.to_vec()))),
            (Some(_), false) => Err(GetoptError::NoArgumentAllowed(found.name)),
            (None, false) => Ok((found.val, None)),
            (None, true) => match self.args.get(self.optind) {
                Some(v) => {
                    self.optind += 1;
                    Ok((found.val, Some(v.clone())))
                }
                None => Err(GetoptError::RequiresArgument(found.name)),
            },
        }
    }
}

/// `strtol(s, NULL, 0)` as glibc computes it: leading white space, a sign, `0x` for
/// hexadecimal, `0` for octal, digits up to the first that does not fit; saturating at
/// the `long` range; 0 when nothing parses.
pub fn c_strtol(s: &[u8]) -> i64 {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let base: u32;
    if s.len() > i + 2
        && s[i] == b'0'
        && (s[i + 1] | 0x20) == b'x'
        && (s[i + 2] as char).is_ascii_hexdigit()
    {
        base = 16;
        i += 2;
    } else if i < s.len() && s[i] == b'0' {
        base = 8;
    } else {
        base = 10;
    }
    let mut acc: u128 = 0;
    let mut overflow = false;
    while i < s.len() {
        let Some(d) = (s[i] as char).to_digit(base) else {
            break;
        };
        acc = acc * u128::from(base) + u128::from(d);
        if acc > 1u128 << 64 {
            overflow = true;
            acc = 1u128 << 64;
        }
        i += 1;
    }
    if neg {
        if overflow || acc > 1u128 << 63 {
            i64::MIN
        } else {
            (-(acc as i128)) as i64
        }
    } else if overflow || acc > i64::MAX as u128 {
        i64::MAX
    } else {
        acc as i64
    }
}

/// `bytes` for an error line of the `uverbs` flavour: control characters (a newline or
/// an escape sequence in an argument) are shown as `\xNN` so that the message stays one
/// line and cannot drive the terminal. The rdma-core personalities echo arguments raw,
/// as rdma-core does.
pub fn printable(bytes: &[u8]) -> String {
    Printable(bytes).to_string()
}

/// [`printable`] written straight into a formatter (`write!`), without a `String` of its
/// own: a table of counters writes two names a line.
pub struct Printable<'a>(pub &'a [u8]);

impl std::fmt::Display for Printable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write as _;
        // What the kernel names is plain text: one write when nothing needs escaping.
        if let Ok(s) = std::str::from_utf8(self.0) {
            if !s.chars().any(char::is_control) {
                return f.write_str(s);
            }
        }
        for c in String::from_utf8_lossy(self.0).chars() {
            if c.is_control() {
                write!(f, "\\x{:02x}", c as u32)?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LONGS: &[LongOpt] = &[
        opt("ib-dev", true, b'd'),
        opt("ib-port", true, b'i'),
        opt("list", false, b'l'),
        opt("verbose", false, b'v'),
    ];

    #[test]
    fn printable_escapes_control_characters_and_keeps_the_rest() {
        assert_eq!(printable(b"rcvd_pkts"), "rcvd_pkts");
        assert_eq!(printable(b"a\nb\x1b[2Jc"), "a\\x0ab\\x1b[2Jc");
        // invalid UTF-8 becomes U+FFFD, which is not a control character
        assert_eq!(printable(b"x\xffy"), "x\u{fffd}y");
        // C1 controls too
        assert_eq!(printable("p\u{85}q".as_bytes()), "p\\x85q");
        assert_eq!(format!("[{}]", Printable(b"tab\there")), "[tab\\x09here]");
    }

    fn args(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn all(v: &[&str]) -> (Vec<Result<Parsed, GetoptError>>, Vec<Vec<u8>>) {
        let a = args(v);
        let mut g = Getopt::new(&a, "d:i:lv", LONGS);
        g.require_order = false;
        let mut out = Vec::new();
        while let Some(r) = g.next_opt() {
            let stop = r.is_err();
            out.push(r);
            if stop {
                break;
            }
        }
        (out, g.operands.clone())
    }

    #[test]
    fn clusters_and_arguments() {
        let (o, rest) = all(&[
            "-vl",
            "-drxe0",
            "x",
            "-i",
            "1",
            "--ib-dev=siw0",
            "--ib-port",
            "2",
        ]);
        assert_eq!(
            o,
            vec![
                Ok((b'v', None)),
                Ok((b'l', None)),
                Ok((b'd', Some(b"rxe0".to_vec()))),
                Ok((b'i', Some(b"1".to_vec()))),
                Ok((b'd', Some(b"siw0".to_vec()))),
                Ok((b'i', Some(b"2".to_vec()))),
            ]
        );
        assert_eq!(rest, args(&["x"]));
    }

    #[test]
    fn glibc_messages() {
        let m = |v: &[&str]| {
            let (o, _) = all(v);
            String::from_utf8(
                o.last()
                    .unwrap()
                    .clone()
                    .unwrap_err()
                    .glibc_message(b"ibv_devinfo"),
            )
            .unwrap()
        };
        assert_eq!(m(&["-x"]), "ibv_devinfo: invalid option -- 'x'\n");
        assert_eq!(
            m(&["-d"]),
            "ibv_devinfo: option requires an argument -- 'd'\n"
        );
        assert_eq!(
            m(&["--foo=bar"]),
            "ibv_devinfo: unrecognized option '--foo=bar'\n"
        );
        assert_eq!(
            m(&["--ib"]),
            "ibv_devinfo: option '--ib' is ambiguous; possibilities: '--ib-dev' '--ib-port'\n"
        );
        assert_eq!(
            m(&["--list=3"]),
            "ibv_devinfo: option '--list' doesn't allow an argument\n"
        );
        assert_eq!(
            m(&["--ib-d"]),
            "ibv_devinfo: option '--ib-dev' requires an argument\n"
        );
        assert_eq!(m(&["-v:"]), "ibv_devinfo: invalid option -- ':'\n");
    }

    #[test]
    fn abbreviations_and_double_dash() {
        let (o, rest) = all(&["--verb", "--li", "--", "-v"]);
        assert_eq!(o, vec![Ok((b'v', None)), Ok((b'l', None))]);
        assert_eq!(rest, args(&["-v"]));
        let (o, rest) = all(&["-", "-v"]);
        assert_eq!(o, vec![Ok((b'v', None))]);
        assert_eq!(rest, args(&["-"]));
    }

    #[test]
    fn strtol() {
        assert_eq!(c_strtol(b"1"), 1);
        assert_eq!(c_strtol(b"  +12abc"), 12);
        assert_eq!(c_strtol(b"0x1f"), 31);
        assert_eq!(c_strtol(b"0x"), 0);
        assert_eq!(c_strtol(b"010"), 8);
        assert_eq!(c_strtol(b"09"), 0);
        assert_eq!(c_strtol(b"-3"), -3);
        assert_eq!(c_strtol(b"abc"), 0);
        assert_eq!(c_strtol(b"99999999999999999999"), i64::MAX);
        assert_eq!(c_strtol(b"-99999999999999999999"), i64::MIN);
        assert_eq!(c_strtol(b"4294967297") as i32, 1);
    }
}
