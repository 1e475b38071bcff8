//! Helpers the integration tests share: running the `tavla` binary and reading its output.
// Each test file uses some of them.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Runs `tavla` with `args`, stdin closed.
pub fn tavla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tavla"))
        .args(args)
        .output()
        .expect("tavla runs")
}

/// Runs `tavla` with `args`, `input` on its stdin.
pub fn tavla_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tavla"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tavla runs");
    // A run that refuses its arguments may exit before reading its input: the pipe is then
    // closed, which is no failure of the test's (its output says what happened).
    match child.stdin.take().unwrap().write_all(input.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    child.wait_with_output().unwrap()
}

/// A file of `tests/data`.
pub fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The standard output of a run that succeeded.
pub fn stdout(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The standard error of a run.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// The one JSON object a run that succeeded printed.
pub fn json(o: &Output) -> Value {
    serde_json::from_str(stdout(o).trim()).expect("one JSON object")
}

/// A JSON number.
pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A fresh directory for one test's files.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tavla-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
