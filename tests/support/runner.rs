//! The hostile-input tests' way of running irlint: under a 4 GiB address-space
//! cap, polling `waitpid` for the exit and `/proc` for the peak RSS, killed past
//! a time limit; a run must exit 0, 1 or 2 (never by a signal), must not panic
//! and must stay under [`MAX_RSS_KB`].

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Peak resident set allowed to one run.
pub const MAX_RSS_KB: i64 = 512 * 1024;

pub fn limit(secs: u64) -> Duration {
    Duration::from_secs(if cfg!(debug_assertions) { secs * 4 } else { secs })
}

pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub secs: f64,
    pub rss_kb: i64,
}

impl Run {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", self.text()))
    }
}

/// How to start irlint.
#[derive(Default)]
pub struct Opts<'a> {
    pub cwd: Option<&'a Path>,
    pub env: Vec<(&'a str, &'a Path)>,
    /// Bytes for stdin, written after `before_stdin` ran with the child's pid.
    pub stdin: Option<&'a [u8]>,
}

/// Runs irlint, polling `waitpid` for its exit status and `/proc` for its
/// peak RSS; kills it past `within`. A run must exit 0, 1 or 2 (never by a
/// signal), must not panic and must stay under [`MAX_RSS_KB`].
#[allow(clippy::zombie_processes)]
pub fn run_with(args: &[&str], within: Duration, o: Opts<'_>, before_stdin: impl FnOnce(u32)) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_irlint"));
    // SAFETY: only async-signal-safe calls between fork and exec. A hard cap on
    // the address space turns a runaway allocation into a failed run at once.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            let lim = libc::rlimit { rlim_cur: 4 << 30, rlim_max: 4 << 30 };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    if let Some(d) = o.cwd {
        cmd.current_dir(d);
    }
    for (k, v) in &o.env {
        cmd.env(k, v);
    }
    cmd.env_remove("GITHUB_ACTIONS");
    let mut child = cmd
        .args(args)
        .stdin(if o.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn irlint");
    let pid = child.id() as libc::pid_t;
    before_stdin(child.id());
    if let (Some(bytes), Some(mut sin)) = (o.stdin, child.stdin.take()) {
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let _ = sin.write_all(&bytes);
        });
    }
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let ereader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let mut rss_kb = 0i64;
    let status = loop {
        rss_kb = rss_kb.max(vm_hwm_kb(pid));
        let mut status = 0;
        // SAFETY: plain syscall on our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            break status;
        }
        assert!(r == 0, "waitpid failed");
        if start.elapsed() > within {
            let _ = child.kill();
            let _ = child.wait();
            panic!("irlint {args:?} still running after {within:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let secs = start.elapsed().as_secs_f64();
    let stdout = reader.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&ereader.join().unwrap_or_default()).into_owned();
    assert!(
        libc::WIFEXITED(status),
        "irlint {args:?} died by signal {} after {secs:.2} s\n{stderr}",
        libc::WTERMSIG(status)
    );
    let code = libc::WEXITSTATUS(status);
    assert!(matches!(code, 0..=2), "irlint {args:?} exited {code}\n{stderr}");
    assert!(!stderr.contains("panicked"), "irlint {args:?} panicked:\n{stderr}");
    assert!(rss_kb < MAX_RSS_KB, "irlint {args:?} peaked at {} MB RSS", rss_kb / 1024);
    Run { code, stdout, stderr, secs, rss_kb }
}

pub fn irlint(args: &[&str], within: Duration) -> Run {
    run_with(args, within, Opts::default(), |_| {})
}

/// `VmHWM` of a running process, in KiB (0 once it has exited).
pub fn vm_hwm_kb(pid: libc::pid_t) -> i64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The run's stdout as JSON (a panic naming the text otherwise).
pub fn json(r: &Run) -> serde_json::Value {
    r.json()
}
