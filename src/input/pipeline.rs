//! Scheduling of a batch run: one walker, a pool of workers, one writer.
//!
//! ```text
//! walker thread ──spawn(seq, input)──▶ rayon pool (N workers) ──(seq, outcome)──▶ writer (calling thread)
//!      ▲                                                                             │
//!      └──────────── permits: at most 4,096 + 256 × N inputs between the two ────────────┘
//! ```
//!
//! - The walker ([`super::discover::walk`]) lists directories in report order,
//!   resolves each input's settings (its own cache: no lock) and spawns one
//!   task per input on the pool's injector queue; idle workers take the next
//!   task, so a large file keeps one worker busy while the others go on.
//! - A worker reads, checks and drops the input's bytes, then sends the
//!   outcome over a channel: the workers share no lock (per-thread scratch,
//!   no results vector, no progress bar).
//! - The writer keeps outcomes that arrive early in a small reorder buffer and
//!   passes each one to the [`Sink`] as soon as all inputs before it are
//!   written: the report streams out in its final order while memory stays
//!   bounded by the inputs in flight (4,096 + 256 per thread), not by the
//!   number of inputs. It also keeps the
//!   tally, the statistics and the progress bar.

use super::batch::{Batch, Outcome, Resolver};
use super::discover::{self, Input};
use crate::report::stream::{self, Chunk, CollectSink, GithubSink, JsonSink, Output, Prerender, Sink, Tally};
use crate::report::{self, Format, Stats};
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What to check.
pub enum Source<'a> {
    /// Command-line paths, walked in report order.
    Paths(&'a [PathBuf]),
    /// Inputs already discovered (kept in their order; a [`CollectSink`] sorts).
    Inputs(&'a [Input]),
}

/// Inputs per task: a task per input would cost a wake-up of a sleeping
/// worker and of the writer (two futex calls or more) per file; 16 small files
/// make one task, and any task is still small next to a run, so the workers
/// stay balanced on mixed sizes.
const CHUNK: usize = 16;

/// A task's inputs, checked, sorted and (for streaming sinks) rendered by a
/// worker, which also does the per-input bookkeeping: the writer only adds
/// up a few figures and copies bytes.
#[derive(Default)]
struct Done {
    /// Inputs in the task.
    count: usize,
    tally: Tally,
    stats: Stats,
    /// Each input's sorted entries, for a sink that takes them ([`Prerender::No`]).
    entries: Vec<(Vec<crate::check::FileReport>, Vec<crate::report::Diagnostic>)>,
    /// The task's rendered output, for a streaming sink.
    chunk: Option<Chunk>,
    /// Diagnostics located elsewhere than their input, beside the chunk.
    foreign: Vec<crate::report::Diagnostic>,
}

impl Done {
    fn add(&mut self, display: String, mut o: Outcome, prerender: &Prerender) {
        o.files.sort_by(|a, b| (&a.path, a.blob_offset).cmp(&(&b.path, b.blob_offset)));
        o.diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        self.count += 1;
        self.tally.add(&o.files, &o.diagnostics);
        let s = &mut self.stats;
        s.files += 1;
        for f in &o.files {
            if f.blob_offset.is_none() {
                s.bytes += f.bytes;
            }
            s.modules += u64::from(f.modules);
        }
        s.read_seconds += o.read_seconds;
        s.analysis_seconds += o.seconds - o.read_seconds;
        if *prerender == Prerender::No {
            self.entries.push((o.files, o.diagnostics));
        } else {
            // A streaming sink writes an input's own findings in place and
            // merges the others (see `stream::Held`).
            let (own, foreign): (Vec<_>, Vec<_>) = o.diagnostics.into_iter().partition(|d| d.location.path == display);
            self.foreign.extend(foreign);
            let chunk = self.chunk.get_or_insert_with(Chunk::default);
            stream::prerender(prerender, &display, &o.files, &own, chunk);
        }
        s.add_slowest(vec![(display, o.seconds)]);
    }
}

enum Msg {
    /// The task whose first input is `seq` is done.
    Done(usize, Box<Done>),
    /// The walk is over: `count` inputs, `busy` seconds of walking.
    Walked { count: usize, busy: f64 },
}

/// The walker's side: batches inputs into tasks, waits for permits, spawns.
/// Dropping it sends [`Msg::Walked`], even on a panic (the writer waits for it).
struct Walker<'r, 's> {
    batch: &'s Batch,
    prerender: &'s Prerender,
    scope: &'r rayon::Scope<'s>,
    tx: &'s mpsc::Sender<Msg>,
    permits: mpsc::SyncSender<()>,
    resolver: Resolver,
    chunk: Vec<(Input, super::batch::ResolveResult, bool)>,
    count: usize,
    start: Instant,
    blocked: Duration,
}

impl Walker<'_, '_> {
    fn push(&mut self, input: Input) {
        let (resolved, first_error) = self.resolver.get(self.batch, &input);
        self.chunk.push((input, resolved, first_error));
        if self.chunk.len() == CHUNK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.chunk.is_empty() {
            return;
        }
        let t = Instant::now();
        if self.permits.send(()).is_err() {
            self.chunk.clear();
            return; // the writer is gone
        }
        self.blocked += t.elapsed();
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK));
        let seq = self.count;
        self.count += chunk.len();
        let (batch, tx, prerender) = (self.batch, self.tx, self.prerender);
        self.scope.spawn(move |_| {
            let n = chunk.len();
            // `process` catches panics per input; this guard is for the
            // bookkeeping: the writer must hear about every task.
            let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut done = Done::default();
                for (input, resolved, first_error) in chunk {
                    let o = batch.process(&input, &resolved, first_error);
                    done.add(input.display, o, prerender);
                }
                done
            }));
            let done = done.unwrap_or_else(|_| {
                let mut d = Done { count: n, ..Done::default() };
                d.tally.input_errors = true;
                d.stats.files = n as u64;
                d
            });
            let _ = tx.send(Msg::Done(seq, Box::new(done)));
        });
    }
}

impl Drop for Walker<'_, '_> {
    fn drop(&mut self) {
        self.flush();
        let busy = self.start.elapsed().saturating_sub(self.blocked).as_secs_f64();
        let _ = self.tx.send(Msg::Walked { count: self.count, busy });
    }
}

/// What the writer accumulates besides the sink's output.
#[derive(Default)]
struct Totals {
    tally: Tally,
    stats: Stats,
    error: Option<io::Error>,
}

impl Totals {
    /// The end of a run started at `start`: the progress bar cleared, the
    /// figures completed and given to the sink.
    fn finish(
        self,
        sink: &mut dyn Sink,
        bar: Option<indicatif::ProgressBar>,
        (start, threads): (Instant, usize),
        walk_seconds: f64,
        report_busy: Duration,
    ) -> io::Result<(Tally, Stats)> {
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        let mut stats = self.stats;
        stats.seconds = start.elapsed().as_secs_f64();
        stats.threads = threads;
        stats.walk_seconds = walk_seconds;
        let t = Instant::now();
        if let Some(e) = self.error {
            return Err(e);
        }
        stats.report_seconds = report_busy.as_secs_f64();
        sink.finish(&stats)?;
        stats.report_seconds += t.elapsed().as_secs_f64();
        Ok((self.tally, stats))
    }

    fn add(&mut self, done: Done, sink: &mut dyn Sink) {
        self.tally.merge(&done.tally);
        self.stats.add_work(done.stats);
        if self.error.is_some() {
            return;
        }
        let result = match done.chunk {
            Some(chunk) => sink.input(Vec::new(), done.foreign, Some(chunk)),
            None => done.entries.into_iter().try_for_each(|(files, diags)| sink.input(files, diags, None)),
        };
        if let Err(e) = result {
            self.error = Some(e);
        }
    }
}

impl Batch {
    /// Worker threads for this run (`-j N`, else one per core), at most
    /// [`max_jobs`](super::batch::max_jobs) (the command line refuses more;
    /// library callers are held to it).
    fn threads(&self) -> usize {
        match self.opts.jobs.filter(|&n| n > 0) {
            // (The cores are counted only where they matter: reading the
            // cgroup limits costs a few system calls.)
            Some(n) if n <= crate::read::limits::MAX_JOBS_FLOOR => n,
            Some(n) => n.min(super::batch::max_jobs()),
            None => std::thread::available_parallelism().map_or(1, |n| n.get()).min(super::batch::max_jobs()),
        }
    }

    /// Checks every input of `source` and feeds the sink in report order;
    /// returns the tally and the statistics (also given to [`Sink::finish`]).
    pub fn stream(&self, source: Source<'_>, sink: &mut dyn Sink) -> io::Result<(Tally, Stats)> {
        let start = Instant::now();
        let threads = self.threads();
        if threads == 1 {
            return self.stream_here(source, sink, start);
        }
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(io::Error::other)?;
        // Tasks between the walker and the writer: bounds the reorder buffer
        // (a few hundred bytes of rendered output per input) and how far the
        // workers run ahead of a slow input at the head (8,192 inputs at 16
        // threads: ~25 ms of work on the corpus).
        let in_flight = (4096 + 256 * threads) / CHUNK;
        let (tx, rx) = mpsc::channel::<Msg>();
        let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(in_flight);
        let prerender = &sink.prerender();
        let bar = self.opts.progress.then(|| progress_bar("{bar:40} {pos}/{len} {elapsed} {wide_msg}"));
        let mut totals = Totals::default();
        let mut walk_seconds = 0.0;
        let mut report_busy = Duration::ZERO;
        let tx = &tx;
        pool.in_place_scope(|scope| {
            std::thread::scope(|threads_scope| {
                threads_scope.spawn(move || {
                    let mut w = Walker {
                        batch: self,
                        prerender,
                        scope,
                        tx,
                        permits: permit_tx,
                        resolver: Resolver::default(),
                        chunk: Vec::with_capacity(CHUNK),
                        count: 0,
                        start: Instant::now(),
                        blocked: Duration::ZERO,
                    };
                    match source {
                        Source::Paths(paths) => discover::walk(paths, &mut |i| w.push(i)),
                        Source::Inputs(list) => list.iter().cloned().for_each(|i| w.push(i)),
                    }
                });
                // The writer: in report order, buffering only early arrivals.
                let mut pending: HashMap<usize, Box<Done>> = HashMap::new();
                let mut next = 0;
                let mut total = None;
                while total != Some(next) {
                    match rx.recv() {
                        Ok(Msg::Done(seq, o)) => {
                            pending.insert(seq, o);
                        }
                        Ok(Msg::Walked { count, busy }) => {
                            total = Some(count);
                            walk_seconds = busy;
                            if let Some(b) = &bar {
                                b.set_length(count as u64);
                            }
                        }
                        Err(_) => break,
                    }
                    let t = Instant::now();
                    while let Some(done) = pending.remove(&next) {
                        next += done.count;
                        let _ = permit_rx.try_recv();
                        if let Some(b) = &bar {
                            b.inc(done.count as u64);
                        }
                        totals.add(*done, sink);
                    }
                    report_busy += t.elapsed();
                }
                drop(permit_rx);
            });
        });
        totals.finish(sink, bar, (start, threads), walk_seconds, report_busy)
    }

    /// [`Batch::stream`] with one worker: walking, checking and reporting on
    /// this thread, input after input (no pool, no walker thread: their
    /// start-up is a tenth of a small batch's time).
    fn stream_here(&self, source: Source<'_>, sink: &mut dyn Sink, start: Instant) -> io::Result<(Tally, Stats)> {
        let prerender = &sink.prerender();
        // (The count of inputs is not known before the walk ends.)
        let bar = self.opts.progress.then(|| progress_bar("{bar:40} {pos} {elapsed} {wide_msg}"));
        let mut totals = Totals::default();
        let mut resolver = Resolver::default();
        let mut busy = Duration::ZERO;
        let mut report_busy = Duration::ZERO;
        let mut each = |input: Input| {
            let t = Instant::now();
            let (resolved, first_error) = resolver.get(self, &input);
            let o = self.process(&input, &resolved, first_error);
            let mut done = Done::default();
            done.add(input.display, o, prerender);
            let r = Instant::now();
            totals.add(done, sink);
            if let Some(b) = &bar {
                b.inc(1);
            }
            report_busy += r.elapsed();
            busy += t.elapsed();
        };
        match source {
            Source::Paths(paths) => discover::walk(paths, &mut each),
            Source::Inputs(list) => list.iter().cloned().for_each(&mut each),
        }
        let walk_seconds = start.elapsed().saturating_sub(busy).as_secs_f64();
        totals.finish(sink, bar, (start, 1), walk_seconds, report_busy)
    }

    /// The warnings after a run: nothing found to check, `--spec-constant`
    /// overrides that no module used.
    fn warn_after(&self, paths: &[PathBuf], files: u64, declared: impl Fn(u32) -> bool, modules: usize) {
        if files == 0 {
            eprintln!("warning: {}", super::discover::no_input_warning(paths));
        }
        let overrides = &self.opts.analysis.spec_constants;
        for line in report::run::unused_spec_constants_of(declared, modules, overrides) {
            eprintln!("warning: {line}");
        }
    }

    /// `irlint check` after its arguments are parsed: walks `paths` (or takes
    /// the inputs `source` names, already discovered and filtered), checks,
    /// writes the report in `format` to stdout or `output` (atomically) as the
    /// inputs finish, and prints `--stats` to stderr for machine formats.
    /// Returns the exit code, or the error writing the report.
    pub fn check_to(
        &self,
        source: Source<'_>,
        paths: &[PathBuf],
        format: Format,
        output: Option<&Path>,
        color: bool,
        show_stats: bool,
    ) -> Result<i32, String> {
        let cannot = |e: io::Error| match output {
            Some(p) => format!("cannot write {}: {e}", p.display()),
            None => format!("cannot write the report: {e}"),
        };
        if matches!(format, Format::Json | Format::Github) {
            let mut out = Output::open(output).map_err(cannot)?;
            let result = match format {
                Format::Json => JsonSink::new(&mut out).and_then(|mut sink| self.stream(source, &mut sink)),
                _ => self.stream(source, &mut GithubSink::new(&mut out)),
            };
            let (tally, stats) = match result {
                Ok(r) => r,
                Err(e) => {
                    out.abandon();
                    return Err(cannot(e));
                }
            };
            self.warn_after(paths, stats.files, |id| tally.spec_ids.binary_search(&id).is_ok(), tally.modules);
            out.commit().map_err(cannot)?;
            if show_stats {
                eprint!("{}", stats.render_text());
            }
            return Ok(tally.exit_code());
        }
        let mut sink = CollectSink::default();
        self.stream(source, &mut sink).map_err(cannot)?;
        let run = sink.report;
        let modules = run.files.iter().filter(|f| f.modules > 0).count();
        let declared = |id: u32| run.files.iter().any(|f| f.spec_ids.contains(&id));
        self.warn_after(paths, run.stats.files, declared, modules);
        let t = Instant::now();
        let text = report::render(&run, format, color, show_stats);
        let mut out = Output::open(output).map_err(cannot)?;
        out.write_all(text.as_bytes()).map_err(cannot)?;
        out.commit().map_err(cannot)?;
        if show_stats && format != Format::Human {
            let mut stats = run.stats.clone();
            stats.report_seconds += t.elapsed().as_secs_f64();
            eprint!("{}", stats.render_text());
        }
        Ok(run.exit_code())
    }
}

/// A progress bar on stderr drawn with `template`.
fn progress_bar(template: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}
