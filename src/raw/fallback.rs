//! One ioctl → `write()` fallback for every method, driven by what the kernel has
//! answered so far.
//!
//! Most verbs reach the kernel by more than one interface: the ioctl method where the
//! kernel has it, else the legacy `write()` command (or sysfs, for the GID table). A
//! kernel without an interface says so with a known errno (`ENOTTY`: no
//! `RDMA_VERBS_IOCTL` at all; `EPROTONOSUPPORT`: no such object or method; `EOPNOTSUPP`
//! for an extended command it lacks). [`Caps`] remembers those answers per file, so a
//! later call goes straight to the interface that works, and `first_supported` (crate-private) tries a
//! method's attempts in order under the caller's [`CallPath`]. This is the role of
//! rdma-core's `execute_ioctl_fallback()`.

use core::sync::atomic::{AtomicU32, Ordering};

use rustix::io::Errno;

/// Which kernel interface a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CallPath {
    /// The ioctl method where the kernel has it, else the legacy `write()` command
    /// (what rdma-core does).
    #[default]
    Auto,
    /// Only the ioctl method (`RDMA_VERBS_IOCTL`).
    Ioctl,
    /// Only the legacy `write()` command (kernels before 5.0/5.6, or for ABI testing).
    Write,
}

/// A kernel interface that a kernel may lack; each is one bit of [`Caps`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u32)]
pub enum Interface {
    /// The GET_CONTEXT ioctl method (Linux 5.6).
    GetContextIoctl = 1 << 0,
    /// The QUERY_PORT ioctl method (Linux 5.0).
    QueryPortIoctl = 1 << 1,
    /// The INVOKE_WRITE ioctl method (Linux 5.0): `write()` commands by ioctl.
    InvokeWrite = 1 << 2,
    /// The extended QUERY_DEVICE command (Linux 4.5; some drivers lack it).
    QueryDeviceEx = 1 << 3,
    /// The QUERY_GID_TABLE ioctl method (Linux 5.10).
    GidTableIoctl = 1 << 4,
    /// The QUERY_GID_ENTRY ioctl method (Linux 5.10).
    GidEntryIoctl = 1 << 5,
    /// The ASYNC_EVENT_ALLOC ioctl method (Linux 5.6).
    AsyncEventAlloc = 1 << 6,
    /// The QUERY_CONTEXT ioctl method (Linux 5.9).
    QueryContext = 1 << 7,
    /// The CQ_CREATE and CQ_DESTROY ioctl methods (Linux 4.17).
    CqIoctl = 1 << 8,
    /// The QP_CREATE and QP_DESTROY ioctl methods (Linux 5.8).
    QpIoctl = 1 << 9,
    /// The SRQ_CREATE and SRQ_DESTROY ioctl methods (Linux 5.8).
    SrqIoctl = 1 << 10,
    /// The PD, MR and AH DESTROY ioctl methods (Linux 5.0).
    DestroyIoctl = 1 << 11,
    /// The QUERY_PORT_SPEED ioctl method (Linux 7.0), or the driver's op behind it.
    QueryPortSpeed = 1 << 12,
}

impl Interface {
    /// Every interface, in bit order.
    pub const ALL: [Interface; 13] = [
        Interface::GetContextIoctl,
        Interface::QueryPortIoctl,
        Interface::InvokeWrite,
        Interface::QueryDeviceEx,
        Interface::GidTableIoctl,
        Interface::GidEntryIoctl,
        Interface::AsyncEventAlloc,
        Interface::QueryContext,
        Interface::CqIoctl,
        Interface::QpIoctl,
        Interface::SrqIoctl,
        Interface::DestroyIoctl,
        Interface::QueryPortSpeed,
    ];
}

/// The interfaces a kernel has answered "unknown" to, on one file: probed as calls are
/// made, never guessed. One relaxed atomic load per call.
#[derive(Debug, Default)]
pub struct Caps(AtomicU32);

impl Caps {
    /// True when the kernel said it lacks `i`.
    pub fn is_missing(&self, i: Interface) -> bool {
        self.0.load(Ordering::Relaxed) & i as u32 != 0
    }

    /// Records that the kernel lacks `i`.
    pub(crate) fn set_missing(&self, i: Interface) {
        self.0.fetch_or(i as u32, Ordering::Relaxed);
    }

    /// The interfaces found missing so far.
    pub fn missing(&self) -> impl Iterator<Item = Interface> + '_ {
        Interface::ALL.into_iter().filter(|i| self.is_missing(*i))
    }
}

/// How an attempt reaches the kernel, for [`CallPath`] to allow or forbid it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Via {
    /// An ioctl method (INVOKE_WRITE included).
    Ioctl,
    /// A legacy `write()` command.
    Write,
    /// Not the kernel's verbs interface at all (sysfs): allowed only under
    /// [`CallPath::Auto`].
    Other,
}

impl Via {
    fn allowed(self, path: CallPath) -> bool {
        matches!(
            (self, path),
            (_, CallPath::Auto) | (Via::Ioctl, CallPath::Ioctl) | (Via::Write, CallPath::Write)
        )
    }
}

/// An answer that may carry the kernel's errno.
pub(crate) trait KernelAnswer {
    fn errno(&self) -> Option<Errno>;
}

impl KernelAnswer for Errno {
    fn errno(&self) -> Option<Errno> {
        Some(*self)
    }
}

impl KernelAnswer for crate::error::Error {
    fn errno(&self) -> Option<Errno> {
        crate::error::Error::errno(self)
    }
}

/// `ENOTTY` (no verbs ioctl) or `EPROTONOSUPPORT` (no such object or method): the answer
/// of a kernel without an ioctl method.
pub(crate) fn no_ioctl_method(e: Errno) -> bool {
    e == Errno::NOTTY || e == Errno::PROTONOSUPPORT
}

/// One way to issue a call.
pub(crate) struct Attempt<'f, T, E> {
    /// How it reaches the kernel.
    pub via: Via,
    /// The interface it needs: skipped when the kernel is known to lack it (and a later
    /// attempt is allowed), marked missing when the kernel answers [`Self::unknown`].
    pub needs: Option<Interface>,
    /// Which errnos mean "the kernel has no such interface".
    pub unknown: fn(Errno) -> bool,
    /// The call.
    pub run: &'f mut dyn FnMut() -> Result<T, E>,
}

/// One way to issue a call, without the call itself (see [`first_supported_by`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route {
    /// How it reaches the kernel.
    pub via: Via,
    /// The interface it needs (see [`Attempt::needs`]).
    pub needs: Option<Interface>,
    /// Which errnos mean "the kernel has no such interface".
    pub unknown: fn(Errno) -> bool,
}

/// Runs `attempts` in order, as [`first_supported_by`] does: the first that `path`
/// allows and the kernel supports answers.
pub(crate) fn first_supported<T, E: KernelAnswer, const N: usize>(
    caps: &Caps,
    path: CallPath,
    attempts: &mut [Attempt<'_, T, E>; N],
) -> Result<T, E> {
    let routes: [Route; N] = core::array::from_fn(|i| Route {
        via: attempts[i].via,
        needs: attempts[i].needs,
        unknown: attempts[i].unknown,
    });
    first_supported_by(caps, path, &routes, |i| (attempts[i].run)())
}

/// Runs `run(i)` for the first of `routes` that `path` allows and the kernel supports,
/// and returns its answer. One closure serves every route, so the routes can share
/// mutable buffers.
///
/// - A route that `path` forbids is skipped.
/// - Under [`CallPath::Auto`], a route whose interface [`Caps`] knows to be missing is
///   skipped when a later route is allowed.
/// - An answer the route calls "unknown" moves on to the next allowed route (and, under
///   `Auto`, marks the interface missing); the last one's answer is returned as it is.
///   Any other answer, success or error, is returned at once.
///
/// If `path` allows no route at all, the last one runs anyway, so that the caller gets
/// the kernel's own answer rather than an invented one.
pub(crate) fn first_supported_by<T, E: KernelAnswer, const N: usize>(
    caps: &Caps,
    path: CallPath,
    routes: &[Route; N],
    mut run: impl FnMut(usize) -> Result<T, E>,
) -> Result<T, E> {
    const { assert!(N > 0, "first_supported needs at least one route") };
    // The common case here, where it can be inlined into the caller, and the walk in a
    // cold function, given the closure by move (`&mut { run }`) so that the common path
    // need not keep the closure in memory for it. Under `Auto` every route is allowed
    // and the last is the last allowed one, so the first route runs unless the kernel
    // is known to lack its interface (the walk's rules, unrolled for route 0).
    if path != CallPath::Auto {
        return walk_routes(caps, path, routes, 0, None, &mut { run });
    }
    let first = &routes[0];
    if N == 1 {
        return run(0);
    }
    if first.needs.is_some_and(|n| caps.is_missing(n)) {
        return walk_routes(caps, path, routes, 1, None, &mut { run });
    }
    match run(0) {
        Err(e) if e.errno().is_some_and(first.unknown) => {
            if let Some(n) = first.needs {
                caps.set_missing(n);
            }
            walk_routes(caps, path, routes, 1, Some(e), &mut { run })
        }
        answer => answer,
    }
}

/// The rules of [`first_supported_by`] from route `start` on, with `last_err` the
/// "unknown" answer of the route before it, if any.
#[cold]
#[inline(never)]
fn walk_routes<T, E: KernelAnswer, const N: usize>(
    caps: &Caps,
    path: CallPath,
    routes: &[Route; N],
    start: usize,
    mut last_err: Option<E>,
    run: &mut dyn FnMut(usize) -> Result<T, E>,
) -> Result<T, E> {
    let allowed = |r: &Route| r.via.allowed(path);
    let last_allowed = routes.iter().rposition(allowed).unwrap_or(N - 1);
    for (i, r) in routes.iter().enumerate().skip(start) {
        if i != last_allowed && !allowed(r) {
            continue;
        }
        if i < last_allowed && path == CallPath::Auto && r.needs.is_some_and(|n| caps.is_missing(n))
        {
            continue;
        }
        match run(i) {
            Ok(v) => return Ok(v),
            Err(e) if i < last_allowed && e.errno().is_some_and(r.unknown) => {
                if let (CallPath::Auto, Some(n)) = (path, r.needs) {
                    caps.set_missing(n);
                }
                last_err = Some(e);
            }
            Err(e) => return Err(e),
        }
    }
    // The route at `last_allowed` is never skipped and always returns; N > 0 makes sure
    // there is one, and under `Auto` the walk starts at or before it.
    match last_err {
        Some(e) => Err(e),
        None => unreachable!("the last allowed route returns"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;

    #[test]
    fn falls_back_once_then_remembers() {
        let caps = Caps::default();
        let ioctl_calls = Cell::new(0);
        let write_calls = Cell::new(0);
        for round in 0..3 {
            let mut ioctl = || {
                ioctl_calls.set(ioctl_calls.get() + 1);
                Err::<u32, Errno>(Errno::PROTONOSUPPORT)
            };
            let mut write = || {
                write_calls.set(write_calls.get() + 1);
                Ok::<u32, Errno>(7)
            };
            let r = first_supported(
                &caps,
                CallPath::Auto,
                &mut [
                    Attempt {
                        via: Via::Ioctl,
                        needs: Some(Interface::QueryPortIoctl),
                        unknown: no_ioctl_method,
                        run: &mut ioctl,
                    },
                    Attempt {
                        via: Via::Write,
                        needs: None,
                        unknown: |_| false,
                        run: &mut write,
                    },
                ],
            );
            assert_eq!(r, Ok(7), "round {round}");
        }
        // The ioctl was asked once; the write() every time.
        assert_eq!((ioctl_calls.get(), write_calls.get()), (1, 3));
        assert!(caps.is_missing(Interface::QueryPortIoctl));
        assert_eq!(
            caps.missing().collect::<Vec<_>>(),
            [Interface::QueryPortIoctl]
        );
    }

    #[test]
    fn forced_paths_and_real_errors() {
        let caps = Caps::default();
        let mut ioctl = || Err::<u32, Errno>(Errno::PROTONOSUPPORT);
        let mut write = || Ok::<u32, Errno>(1);
        // Forced ioctl: the unknown answer is returned as is, nothing is marked.
        let r = first_supported(
            &caps,
            CallPath::Ioctl,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::QueryPortIoctl),
                    unknown: no_ioctl_method,
                    run: &mut ioctl,
                },
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: |_| false,
                    run: &mut write,
                },
            ],
        );
        assert_eq!(r, Err(Errno::PROTONOSUPPORT));
        assert!(!caps.is_missing(Interface::QueryPortIoctl));
        // A real error (EINVAL) is not a reason to fall back.
        let mut bad = || Err::<u32, Errno>(Errno::INVAL);
        let mut never = || -> Result<u32, Errno> { panic!("must not run") };
        let r = first_supported(
            &caps,
            CallPath::Auto,
            &mut [
                Attempt {
                    via: Via::Ioctl,
                    needs: Some(Interface::QueryPortIoctl),
                    unknown: no_ioctl_method,
                    run: &mut bad,
                },
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: |_| false,
                    run: &mut never,
                },
            ],
        );
        assert_eq!(r, Err(Errno::INVAL));
        // Forced write() skips the ioctl; sysfs (Other) only runs under Auto.
        let mut sysfs = || -> Result<u32, Errno> { panic!("must not run") };
        let mut write = || Ok::<u32, Errno>(2);
        let r = first_supported(
            &caps,
            CallPath::Write,
            &mut [
                Attempt {
                    via: Via::Write,
                    needs: None,
                    unknown: |_| false,
                    run: &mut write,
                },
                Attempt {
                    via: Via::Other,
                    needs: None,
                    unknown: |_| false,
                    run: &mut sysfs,
                },
            ],
        );
        assert_eq!(r, Ok(2));
    }

    #[test]
    fn the_last_attempt_runs_even_when_known_missing() {
        let caps = Caps::default();
        caps.set_missing(Interface::GidEntryIoctl);
        let mut ioctl = || Err::<u32, Errno>(Errno::NOTTY);
        let r = first_supported(
            &caps,
            CallPath::Auto,
            &mut [Attempt {
                via: Via::Ioctl,
                needs: Some(Interface::GidEntryIoctl),
                unknown: no_ioctl_method,
                run: &mut ioctl,
            }],
        );
        assert_eq!(r, Err(Errno::NOTTY));
    }

    /// The walk without the `Auto` shortcut: the rules as documented, one route at a
    /// time. The shortcut must answer exactly as this does.
    fn reference<const N: usize>(
        caps: &Caps,
        path: CallPath,
        routes: &[Route; N],
        mut run: impl FnMut(usize) -> Result<u32, Errno>,
    ) -> Result<u32, Errno> {
        let allowed = |r: &Route| r.via.allowed(path);
        let last_allowed = routes.iter().rposition(allowed).unwrap_or(N - 1);
        let mut last_err = None;
        for (i, r) in routes.iter().enumerate() {
            if i != last_allowed && !allowed(r) {
                continue;
            }
            if i < last_allowed
                && path == CallPath::Auto
                && r.needs.is_some_and(|n| caps.is_missing(n))
            {
                continue;
            }
            match run(i) {
                Ok(v) => return Ok(v),
                Err(e) if i < last_allowed && (r.unknown)(e) => {
                    if let (CallPath::Auto, Some(n)) = (path, r.needs) {
                        caps.set_missing(n);
                    }
                    last_err = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
        Err(last_err.expect("the last allowed route returns"))
    }

    /// Every combination of 1 to 3 routes (by ioctl, write() or sysfs; needing nothing,
    /// a missing or a present interface), of answers (success, "unknown", a real error)
    /// and of paths: the same answer, the same routes run in the same order, the same
    /// interfaces marked missing.
    fn equal_for<const N: usize>() {
        let vias = [Via::Ioctl, Via::Write, Via::Other];
        let needs = [None, Some(Interface::QpIoctl), Some(Interface::CqIoctl)];
        let answers = [Ok(5), Err(Errno::PROTONOSUPPORT), Err(Errno::INVAL)];
        let mut cases = 0;
        for code in 0..(27usize.pow(N as u32)) {
            let mut c = code;
            let mut pick = || {
                let v = c % 3;
                c /= 3;
                v
            };
            let spec: [(usize, usize, usize); N] =
                core::array::from_fn(|_| (pick(), pick(), pick()));
            let routes: [Route; N] = core::array::from_fn(|i| Route {
                via: vias[spec[i].0],
                needs: needs[spec[i].1],
                unknown: no_ioctl_method,
            });
            for path in [CallPath::Auto, CallPath::Ioctl, CallPath::Write] {
                let (a, b) = (Caps::default(), Caps::default());
                a.set_missing(Interface::QpIoctl);
                b.set_missing(Interface::QpIoctl);
                let (mut ran_a, mut ran_b) = (Vec::new(), Vec::new());
                let ra = first_supported_by(&a, path, &routes, |i| {
                    ran_a.push(i);
                    answers[spec[i].2]
                });
                let rb = reference(&b, path, &routes, |i| {
                    ran_b.push(i);
                    answers[spec[i].2]
                });
                assert_eq!((ra, &ran_a), (rb, &ran_b), "{spec:?} {path:?}");
                assert_eq!(
                    a.missing().collect::<Vec<_>>(),
                    b.missing().collect::<Vec<_>>(),
                    "{spec:?} {path:?}"
                );
                cases += 1;
            }
        }
        assert_eq!(cases, 3 * 27usize.pow(N as u32));
    }

    #[test]
    fn the_auto_shortcut_answers_as_the_walk_does() {
        equal_for::<1>();
        equal_for::<2>();
        // 59,049 cases: the host tests run them; under Miri (which looks for undefined
        // behaviour, not logic errors) they would take many minutes.
        #[cfg(not(miri))]
        equal_for::<3>();
    }
}
