//! Reads under a deadline: [`Readers`] gives each key (a device) one reader thread,
//! which the caller hands a job (the device's reads) and waits on until a deadline.
//! What does not answer in time is reported late ([`Late`]) and the caller goes on with
//! the other keys; the job keeps its thread until the kernel returns.
//!
//! Why a thread per key, and not per read: a read that never returns (a driver's `show`
//! function waiting on hung firmware, an ioctl stuck in a driver) cannot be cancelled
//! from user space, so whatever thread issues it is lost until it returns. Here that is
//! the key's own thread, and only one: while it is stuck, later jobs for the key are
//! not started (at most one outstanding read per key, never a thread per collection),
//! and are reported late at once, without waiting for their deadline; once the read
//! returns, the key is read normally again. Jobs of different keys run in parallel, on
//! their own threads, so one key's hang delays no other.
//!
//! - [`Readers::start`] queues a job on its key's thread (started on first use, and
//!   again after it ended) and returns at once; [`Pending::wait`] waits until the
//!   deadline for its result. A job queued behind another caller's job that is still
//!   within its own deadline (two collections at once) waits its turn; a job queued
//!   when the key's thread is still busy with a job past its deadline is late at once.
//! - A job whose caller gave up before it started is dropped unstarted: the queue
//!   holds at most the callers waiting at once.
//! - A job says what it reads ([`Progress::set`]), so that a late answer names the
//!   read ([`Step`]).
//! - Each thread keeps a state `S` between jobs (a reader with its netlink socket), made
//!   with `S::default()` when the thread starts and dropped when it ends. A thread ends
//!   after [`IDLE`] without a job, so a key gone (a device removed) keeps no thread; a
//!   key unused for that long is forgotten.
//! - When no thread can be started, the job runs on the caller's thread (as without a
//!   deadline).
//!
//! Jobs must not keep a device's file open beyond their run: what they hold is dropped
//! when they return. (The exporter's uverbs contexts are revoked when their device's
//! removal starts, so a job that holds one still holds no device file; see
//! `uverbs::verbs::monitor::guard`.)

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long a reader thread waits for a job before it ends, and how long a key without
/// a thread is remembered.
pub const IDLE: Duration = Duration::from_secs(300);

/// The default deadline of a device's reads: half Prometheus' default `scrape_timeout`
/// (10 s), so that a scrape with a hung device is still answered in time.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest deadline accepted (an hour).
const MAX_TIMEOUT_MS: u64 = 3_600_000;

/// Parses a deadline in seconds: `5`, `0.5`, `2.25` (at most millisecond precision),
/// from 1 ms to an hour.
pub fn parse_timeout(v: &str) -> Option<Duration> {
    let (int, frac) = match v.split_once('.') {
        Some((_, "")) => return None,
        Some(parts) => parts,
        None => (v, ""),
    };
    if int.is_empty()
        || frac.len() > 3
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || int.len() > 7
    {
        return None;
    }
    let mut ms: u64 = int.parse::<u64>().ok()?.checked_mul(1000)?;
    if !frac.is_empty() {
        let f: u64 = frac.parse().ok()?;
        ms += f * 10u64.pow(3 - frac.len() as u32);
    }
    (1..=MAX_TIMEOUT_MS)
        .contains(&ms)
        .then(|| Duration::from_millis(ms))
}

/// A duration as the options take it: `5 s`, `0.5 s`, `1.25 s`.
pub fn secs_text(d: Duration) -> String {
    let (s, ms) = (d.as_secs(), d.subsec_millis());
    if ms == 0 {
        format!("{s} s")
    } else {
        let f = format!("{ms:03}");
        format!("{s}.{} s", f.trim_end_matches('0'))
    }
}

/// What a job is reading: a name and, when it is about one port, the port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Step {
    pub what: &'static str,
    /// The port (0: none).
    pub port: u32,
}

impl core::fmt::Display for Step {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let what = if self.what.is_empty() {
            "the device"
        } else {
            self.what
        };
        if self.port == 0 {
            f.write_str(what)
        } else {
            write!(f, "{what} of port {}", self.port)
        }
    }
}

/// Where a job says what it reads.
pub struct Progress<'a>(&'a Mutex<Step>);

impl Progress<'_> {
    /// The job now reads `what` (of port `port`, 0: none).
    pub fn set(&self, what: &'static str, port: u32) {
        *lock(self.0) = Step { what, port };
    }
}

/// Why a job gave no answer in time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Late {
    /// The job started and had not returned at the deadline: it was reading `step`.
    TimedOut { within: Duration, step: Step },
    /// The job never started: an earlier job of the key, past its own deadline, still
    /// has not returned; it was reading `step`, and has been running for `running`.
    Stuck { step: Step, running: Duration },
    /// The job never started: it waited until the deadline behind another caller's job
    /// of the key, which was reading `step`.
    Queued { within: Duration, step: Step },
}

impl core::fmt::Display for Late {
    /// The text names the read, and is the same from one collection to the next while
    /// the same read hangs (callers log each new text once).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Late::TimedOut { within, step } => write!(
                f,
                "no answer within {} (reading {step})",
                secs_text(*within)
            ),
            Late::Stuck { step, .. } => write!(
                f,
                "an earlier read ({step}) has not returned: not read again until it does"
            ),
            Late::Queued { within, step } => write!(
                f,
                "no answer within {} (waiting behind another collection's read: {step})",
                secs_text(*within)
            ),
        }
    }
}

/// What [`Pending::wait`] gives.
#[derive(Debug)]
pub enum Outcome<T> {
    /// The job's result, and how long the job ran.
    Done(T, Duration),
    /// No result by the deadline.
    Late(Late),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is a single assignment or queue operation: a panic
    // cannot leave one half done.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

type Job<S> = Box<dyn FnOnce(&mut S, &Progress<'_>) + Send>;

struct Queued<S> {
    id: u64,
    deadline: Instant,
    job: Job<S>,
}

/// The job a thread runs: its id, its deadline, when it started.
#[derive(Clone, Copy)]
struct Running {
    id: u64,
    deadline: Instant,
    since: Instant,
}

struct Inner<S> {
    /// The jobs waiting, in order (as many as callers waiting at once: a few).
    queue: Vec<Queued<S>>,
    running: Option<Running>,
    /// Whether a thread serves the key.
    thread: bool,
    next_id: u64,
    last_used: Instant,
}

/// One key: its queue and its thread's state.
struct Worker<S> {
    inner: Mutex<Inner<S>>,
    /// Signalled when a job is queued.
    cv: Condvar,
    step: Mutex<Step>,
}

impl<S> Worker<S> {
    /// Why job `id`, queued with `deadline`, has no result at its deadline; it is taken
    /// out of the queue if it never started. `Late::Queued` too when it is neither
    /// queued nor running (it was dropped unstarted, or has just returned: the caller
    /// looks at its slot once more).
    #[inline(never)]
    fn give_up(&self, id: u64, deadline: Instant, within: Duration) -> Late {
        let mut g = lock(&self.inner);
        let step = *lock(&self.step);
        if let Some(i) = g.queue.iter().position(|q| q.id == id) {
            // Never started: taken out of the queue, so that nothing piles up.
            drop(g.queue.remove(i));
            return match g.running {
                Some(r) if r.deadline < deadline => Late::Stuck {
                    step,
                    running: r.since.elapsed(),
                },
                _ => Late::Queued { within, step },
            };
        }
        match g.running {
            Some(r) if r.id == id => Late::TimedOut { within, step },
            _ => Late::Queued { within, step },
        }
    }
}

/// One result, handed from the key's thread to the caller.
struct Slot<T> {
    value: Mutex<Option<(T, Duration)>>,
    cv: Condvar,
}

impl<T> Slot<T> {
    fn put(&self, v: T, took: Duration) {
        *lock(&self.value) = Some((v, took));
        self.cv.notify_all();
    }

    /// The result, waiting for it until `deadline`.
    fn take_by(&self, deadline: Instant) -> Option<(T, Duration)> {
        let mut g = lock(&self.value);
        loop {
            if let Some(v) = g.take() {
                return Some(v);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            g = self
                .cv
                .wait_timeout(g, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

/// A job handed to [`Readers::start`].
pub struct Pending<T, S> {
    state: PendingState<T, S>,
}

enum PendingState<T, S> {
    /// Answered already (late at once, or run on the caller's thread).
    Ready(Outcome<T>),
    Queued {
        slot: Arc<Slot<T>>,
        worker: Arc<Worker<S>>,
        id: u64,
        deadline: Instant,
        within: Duration,
    },
}

impl<T, S> Pending<T, S> {
    /// The job's result, waiting for it until its deadline at most.
    pub fn wait(self) -> Outcome<T> {
        match self.state {
            PendingState::Ready(o) => o,
            PendingState::Queued {
                slot,
                worker,
                id,
                deadline,
                within,
            } => match slot.take_by(deadline) {
                Some((v, took)) => Outcome::Done(v, took),
                None => {
                    let late = worker.give_up(id, deadline, within);
                    // Returned between the deadline and the look: taken all the same.
                    match lock(&slot.value).take() {
                        Some((v, took)) => Outcome::Done(v, took),
                        None => Outcome::Late(late),
                    }
                }
            },
        }
    }
}

/// What [`Readers::submit`] did with a job.
enum Submitted<S> {
    /// Queued on its key's thread, under this id.
    Queued(Arc<Worker<S>>, u64),
    /// Not queued: an earlier job past its deadline still runs.
    Late(Late),
    /// Not queued: no thread could be started; the caller runs it.
    NoThread(Arc<Worker<S>>, Job<S>),
}

/// One reader thread per key; see the module's documentation.
pub struct Readers<S> {
    /// The keys (devices: a few, looked up by a linear search).
    workers: Mutex<Vec<(String, Arc<Worker<S>>)>>,
    /// The threads' name, before the key.
    name: &'static str,
    idle: Duration,
}

impl<S: Default + 'static> Readers<S> {
    /// No key yet; the threads are named `name` and their key (cut to the kernel's 15
    /// bytes).
    pub fn new(name: &'static str) -> Self {
        Self::with_idle(name, IDLE)
    }

    fn with_idle(name: &'static str, idle: Duration) -> Self {
        Readers {
            workers: Mutex::new(Vec::new()),
            name,
            idle,
        }
    }

    /// The number of reader threads running (busy, or waiting for a job).
    #[cfg(test)]
    fn threads(&self) -> usize {
        lock(&self.workers)
            .iter()
            .filter(|(_, w)| lock(&w.inner).thread)
            .count()
    }

    /// Key `key`'s worker, made when it has none; forgets the keys without a thread
    /// unused for [`IDLE`] when it makes one.
    fn worker(&self, key: &str) -> Arc<Worker<S>> {
        let mut map = lock(&self.workers);
        let now = Instant::now();
        if let Some((_, w)) = map.iter().find(|(k, _)| k == key) {
            lock(&w.inner).last_used = now;
            return w.clone();
        }
        let idle = self.idle;
        map.retain(|(_, w)| {
            let g = lock(&w.inner);
            g.thread || g.running.is_some() || now.duration_since(g.last_used) < idle
        });
        let w = Arc::new(Worker {
            inner: Mutex::new(Inner {
                queue: Vec::new(),
                running: None,
                thread: false,
                next_id: 0,
                last_used: now,
            }),
            cv: Condvar::new(),
            step: Mutex::new(Step::default()),
        });
        map.push((key.to_owned(), w.clone()));
        w
    }

    /// Hands `job` to `key`'s thread, to be answered by `deadline` (`within` is the
    /// deadline's length, for the messages), and returns at once: the jobs of several
    /// keys started before any is waited for run in parallel.
    pub fn start<T, F>(
        &self,
        key: &str,
        deadline: Instant,
        within: Duration,
        job: F,
    ) -> Pending<T, S>
    where
        T: Send + 'static,
        F: FnOnce(&mut S, &Progress<'_>) -> T + Send + 'static,
    {
        let slot = Arc::new(Slot {
            value: Mutex::new(None),
            cv: Condvar::new(),
        });
        let to = slot.clone();
        let job: Job<S> = Box::new(move |s: &mut S, p: &Progress<'_>| {
            let t0 = Instant::now();
            let v = job(s, p);
            to.put(v, t0.elapsed());
        });
        let state = match self.submit(key, deadline, job) {
            Submitted::Queued(worker, id) => PendingState::Queued {
                slot,
                worker,
                id,
                deadline,
                within,
            },
            Submitted::Late(late) => PendingState::Ready(Outcome::Late(late)),
            Submitted::NoThread(worker, job) => {
                // No thread: read here, as without a deadline.
                job(&mut S::default(), &Progress(&worker.step));
                PendingState::Ready(match lock(&slot.value).take() {
                    Some((v, took)) => Outcome::Done(v, took),
                    // Unreachable: the job put its result.
                    None => Outcome::Late(Late::TimedOut {
                        within,
                        step: Step::default(),
                    }),
                })
            }
        };
        Pending { state }
    }

    /// Queues `job` on `key`'s thread (started when it has none).
    #[inline(never)]
    fn submit(&self, key: &str, deadline: Instant, job: Job<S>) -> Submitted<S> {
        let w = self.worker(key);
        let mut g = lock(&w.inner);
        let now = Instant::now();
        if let Some(r) = g.running {
            if r.deadline <= now {
                // A read past its deadline is still outstanding: not another.
                let step = *lock(&w.step);
                return Submitted::Late(Late::Stuck {
                    step,
                    running: now.duration_since(r.since),
                });
            }
        }
        if !g.thread {
            let me = w.clone();
            let idle = self.idle;
            let mut name = format!("{}{key}", self.name);
            let cut = (0..=name.len().min(15))
                .rev()
                .find(|&i| name.is_char_boundary(i))
                .unwrap_or(0);
            name.truncate(cut);
            let started = std::thread::Builder::new()
                .name(name)
                .spawn(move || work::<S>(&me, idle));
            if started.is_err() {
                drop(g);
                return Submitted::NoThread(w, job);
            }
            g.thread = true;
        }
        g.next_id += 1;
        let id = g.next_id;
        g.queue.push(Queued { id, deadline, job });
        drop(g);
        w.cv.notify_all();
        Submitted::Queued(w, id)
    }
}

/// Marks the key's thread gone if a job panics (so that the next job starts another).
struct Exit<'a, S>(&'a Worker<S>);

impl<S> Drop for Exit<'_, S> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut g = lock(&self.0.inner);
            g.running = None;
            g.thread = false;
        }
    }
}

/// A key's thread: runs its jobs in order, drops those past their deadline unstarted,
/// ends after `idle` without a job.
#[inline(never)]
fn work<S: Default>(w: &Worker<S>, idle: Duration) {
    let _exit = Exit(w);
    let mut state = S::default();
    let mut g = lock(&w.inner);
    let mut waited_since = Instant::now();
    loop {
        let now = Instant::now();
        if g.queue.is_empty() {
            let waited = now.duration_since(waited_since);
            if waited >= idle {
                g.thread = false;
                return;
            }
            g =
                w.cv.wait_timeout(g, idle - waited)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            continue;
        }
        let q = g.queue.remove(0);
        if q.deadline <= now {
            // Its caller has given up: dropped unstarted.
            continue;
        }
        g.running = Some(Running {
            id: q.id,
            deadline: q.deadline,
            since: now,
        });
        drop(g);
        *lock(&w.step) = Step::default();
        (q.job)(&mut state, &Progress(&w.step));
        g = lock(&w.inner);
        g.running = None;
        waited_since = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    const MS: Duration = Duration::from_millis(1);

    fn after(d: Duration) -> Instant {
        Instant::now() + d
    }

    #[test]
    fn timeouts_parse_in_seconds_to_the_millisecond() {
        assert_eq!(parse_timeout("5"), Some(Duration::from_secs(5)));
        assert_eq!(parse_timeout("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_timeout("2.25"), Some(Duration::from_millis(2250)));
        assert_eq!(parse_timeout("0.001"), Some(MS));
        assert_eq!(parse_timeout("3600"), Some(Duration::from_secs(3600)));
        for bad in [
            "", "0", "0.0", "0.0001", "-1", "1e3", ".5", "5.", "3601", "1 ", "x", "99999999",
        ] {
            assert_eq!(parse_timeout(bad), None, "{bad:?}");
        }
        assert_eq!(secs_text(Duration::from_secs(5)), "5 s");
        assert_eq!(secs_text(Duration::from_millis(500)), "0.5 s");
        assert_eq!(secs_text(Duration::from_millis(1250)), "1.25 s");
    }

    /// Keys run in parallel, each on its own thread, which keeps its state from one job
    /// to the next; a job's progress is named when it is late.
    #[test]
    fn keys_run_in_parallel_and_keep_their_state() {
        let r: Readers<u32> = Readers::new("t-");
        let (tx, rx) = mpsc::channel::<()>();
        // "a" waits for "b" to have run: both must be running at once.
        let a = r.start("a", after(Duration::from_secs(10)), MS, move |n, _| {
            rx.recv_timeout(Duration::from_secs(10)).is_ok() && *n == 0
        });
        let b = r.start("b", after(Duration::from_secs(10)), MS, move |_, _| {
            tx.send(()).is_ok()
        });
        assert!(matches!(b.wait(), Outcome::Done(true, _)));
        assert!(matches!(a.wait(), Outcome::Done(true, _)));
        for want in 1..=3u32 {
            let p = r.start("a", after(Duration::from_secs(10)), MS, |n, _| {
                *n += 1;
                *n
            });
            assert!(matches!(p.wait(), Outcome::Done(got, _) if got == want));
        }
        assert_eq!(r.threads(), 2);
    }

    /// A job that does not return by its deadline is late, naming its read; while it
    /// hangs the key gets no other job and no other thread (later jobs are late at once),
    /// the other keys are answered; once it returns, the key is read again.
    #[test]
    fn a_hung_job_is_late_once_and_not_piled_up() {
        let r: Readers<()> = Readers::new("t-");
        let (release, hung) = mpsc::channel::<()>();
        let t0 = Instant::now();
        let within = Duration::from_millis(100);
        let p = r.start("dev", t0 + within, within, move |_, p| {
            p.set("counters", 2);
            let _ = hung.recv_timeout(Duration::from_secs(30));
        });
        let other = r.start("ok", t0 + within, within, |_, _| 7);
        let late = p.wait();
        let waited = t0.elapsed();
        assert!(waited >= within, "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
        let step = Step {
            what: "counters",
            port: 2,
        };
        match &late {
            Outcome::Late(l) => {
                assert_eq!(*l, Late::TimedOut { within, step });
                assert_eq!(
                    l.to_string(),
                    "no answer within 0.1 s (reading counters of port 2)"
                );
            }
            Outcome::Done(..) => panic!("a hung job answered"),
        }
        assert!(matches!(other.wait(), Outcome::Done(7, _)));
        // Ten more collections while it hangs: each late at once, no job queued, no
        // thread added.
        let threads = r.threads();
        for _ in 0..10 {
            let t = Instant::now();
            let p = r.start("dev", after(Duration::from_secs(10)), within, |_, _| ());
            match p.wait() {
                Outcome::Late(Late::Stuck { step: s, .. }) => assert_eq!(s, step),
                o => panic!("{o:?}"),
            }
            assert!(t.elapsed() < Duration::from_secs(1), "late at once");
        }
        assert_eq!(r.threads(), threads);
        {
            let map = lock(&r.workers);
            let (_, dev) = map.iter().find(|(k, _)| k == "dev").unwrap();
            assert!(lock(&dev.inner).queue.is_empty());
        }
        // Released: the key is read again (the thread is free once its job returned).
        release.send(()).unwrap();
        let t = Instant::now();
        loop {
            let p = r.start("dev", after(Duration::from_secs(10)), within, |_, _| 1);
            match p.wait() {
                Outcome::Done(1, _) => break,
                Outcome::Late(Late::Stuck { .. }) if t.elapsed() < Duration::from_secs(10) => {
                    std::thread::yield_now()
                }
                o => panic!("{o:?}"),
            }
        }
        assert_eq!(r.threads(), threads);
    }

    /// Two callers at once: the second waits its turn behind a job still within its
    /// deadline and is answered; a job whose caller gave up is never run.
    #[test]
    fn queued_jobs_wait_their_turn_and_abandoned_ones_never_run() {
        let r: Readers<Vec<u32>> = Readers::new("t-");
        let (go, wait) = mpsc::channel::<()>();
        let first = r.start("d", after(Duration::from_secs(10)), MS, move |v, _| {
            let _ = wait.recv_timeout(Duration::from_secs(10));
            v.push(1);
        });
        let second = r.start("d", after(Duration::from_secs(10)), MS, |v, _| {
            v.push(2);
            v.clone()
        });
        go.send(()).unwrap();
        assert!(matches!(first.wait(), Outcome::Done((), _)));
        assert!(matches!(second.wait(), Outcome::Done(ref v, _) if v == &[1, 2]));
        // Behind a job that outlives this caller's deadline: late, and taken out of the
        // queue (it never runs).
        let (go, wait) = mpsc::channel::<()>();
        let slow = r.start("d", after(Duration::from_secs(10)), MS, move |_, p| {
            p.set("slow", 0);
            let _ = wait.recv_timeout(Duration::from_secs(10));
        });
        let within = Duration::from_millis(50);
        let dropped = r.start("d", after(within), within, |v, _| v.push(99));
        match dropped.wait() {
            Outcome::Late(Late::Queued { step, .. }) => assert_eq!(step.what, "slow"),
            o => panic!("{o:?}"),
        }
        go.send(()).unwrap();
        assert!(matches!(slow.wait(), Outcome::Done((), _)));
        let last = r.start("d", after(Duration::from_secs(10)), MS, |v, _| v.clone());
        assert!(
            matches!(last.wait(), Outcome::Done(ref v, _) if v == &[1, 2]),
            "the abandoned job ran"
        );
    }

    /// A thread without jobs ends (its state dropped) and the key is forgotten; the
    /// next job starts a new one.
    #[test]
    fn idle_threads_end_and_come_back() {
        let r: Readers<u8> = Readers::with_idle("t-", Duration::from_millis(20));
        let p = r.start("x", after(Duration::from_secs(10)), MS, |n, _| {
            *n += 1;
            *n
        });
        assert!(matches!(p.wait(), Outcome::Done(1, _)));
        let t = Instant::now();
        while r.threads() > 0 {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "the thread never ended"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // Another key made: the threadless one, idle long enough, is forgotten.
        std::thread::sleep(Duration::from_millis(25));
        let q = r.start("y", after(Duration::from_secs(10)), MS, |n, _| *n);
        assert!(matches!(q.wait(), Outcome::Done(0, _)));
        assert!(!lock(&r.workers).iter().any(|(k, _)| k == "x"));
        let p = r.start("x", after(Duration::from_secs(10)), MS, |n, _| {
            *n += 1;
            *n
        });
        assert!(
            matches!(p.wait(), Outcome::Done(1, _)),
            "a new thread, a new state"
        );
    }
}
