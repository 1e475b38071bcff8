//! Rollouts that run in the background for `tavla serve` (`/v1/rollouts`): one request starts
//! a rollout and answers at once, others watch its progress, stop it (its result is then that
//! of the games played, the first ones of the full rollout) or forget it.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{json, Value};

use crate::input::InputError;
use crate::nn_cmd::{rollout_watched, RolloutArgs, RolloutWatch, Stopped};

/// The most rollouts running at once (each uses every core; more would only share them).
pub(crate) const MAX_RUNNING: usize = 4;

/// The most rollouts kept, running or finished: a new one makes the server forget the oldest
/// finished one.
pub(crate) const MAX_KEPT: usize = 64;

/// The error of a request refused because the server runs as much of its kind as it takes at
/// once (answered 503): what is running, and what to do.
#[derive(Debug)]
pub(crate) struct Busy(pub String);

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Busy {}

/// How a rollout ended.
enum Outcome {
    /// Its result, as `tavla rollout --json` writes it (all the games asked for, or the first
    /// ones when stopped or out of time), and whether a stop ended it before all were played.
    Result { value: Value, stopped: bool },
    /// Stopped before any game was played.
    Stopped,
    /// It could not run: a bad request (found before a game was played), or another failure.
    Failed { error: String, bad_request: bool },
}

/// One rollout, running or finished.
pub(crate) struct Job {
    id: u64,
    /// The request's fields, as given.
    request: Value,
    started: Instant,
    watch: RolloutWatch,
    end: Mutex<Option<(Instant, Outcome)>>,
}

impl Job {
    fn end(&self) -> MutexGuard<'_, Option<(Instant, Outcome)>> {
        // A poisoned lock still holds a whole value: the job thread sets it in one assignment.
        self.end
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The job's id.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    fn running(&self) -> bool {
        self.end().is_none()
    }

    /// Asks the rollout to stop: no game is started after; the games being played are
    /// finished. A job that has ended stays as it ended.
    pub(crate) fn stop(&self) {
        let end = self.end();
        if end.is_none() {
            self.watch.control.stop();
        }
    }

    /// The job as the API answers it: `id`, `state` (`running`, `done`, `stopped` or
    /// `failed`), `games_done` and `games_total` (over all the plays or cube lines),
    /// `stop_requested`, `elapsed_ms`, `running` (each play's or cube line's running estimate)
    /// and `running_units` (what they are in), `request`, `result` (once ended with one) and
    /// `error` (once failed).
    pub(crate) fn to_json(&self) -> Value {
        // The counters after the end: once it is set they no longer change.
        let end = self.end();
        let done = self.watch.control.games_done();
        let total = self.watch.total.load(Ordering::Relaxed);
        let stop_requested = self.watch.control.should_stop();
        let (state, result, error, until) = match &*end {
            None => ("running", Value::Null, Value::Null, Instant::now()),
            Some((at, Outcome::Result { value, stopped })) => {
                let state = if *stopped { "stopped" } else { "done" };
                (state, value.clone(), Value::Null, *at)
            }
            Some((at, Outcome::Stopped)) => {
                let error = Value::String(Stopped.to_string());
                ("stopped", Value::Null, error, *at)
            }
            Some((at, Outcome::Failed { error, .. })) => {
                ("failed", Value::Null, Value::String(error.clone()), *at)
            }
        };
        let elapsed = until.saturating_duration_since(self.started);
        json!({
            "id": self.id,
            "state": state,
            "games_done": done,
            "games_total": total,
            "stop_requested": stop_requested,
            "elapsed_ms": u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            "running": self.estimates(),
            "running_units": self.watch.units.lock().map(|u| u.name()).unwrap_or_default(),
            "request": self.request,
            "result": result,
            "error": error,
        })
    }

    /// The running estimate of the position (cubeless), of each play of the roll (`play`), or
    /// of each line of a cubeful rollout of a position (`line`): its games, mean and 95%
    /// half-interval, over the games finished so far (in the order the threads finished them:
    /// at the end they are all of the result's).
    fn estimates(&self) -> Vec<Value> {
        // A poisoned lock (a rollout thread that panicked) only loses the labels.
        fn copy<T: Clone + Default>(m: &std::sync::Mutex<T>) -> T {
            m.lock().map(|v| v.clone()).unwrap_or_default()
        }
        let (plays, lines) = (copy(&self.watch.plays), copy(&self.watch.lines));
        self.watch
            .control
            .running()
            .iter()
            .enumerate()
            // A play that ends the game is told of its games only once the others are over.
            .filter(|(_, &(games, _, _))| games > 0)
            .map(|(i, &(games, equity, stderr))| {
                // One game has no interval: `ci95` is null until two are in.
                let ci95 = Some(
                    tavla_nn::rollout::ci95_factor(u32::try_from(games).unwrap_or(u32::MAX))
                        * stderr,
                )
                .filter(|c| c.is_finite());
                let mut v = json!({ "games": games, "equity": equity, "ci95": ci95 });
                if let Some(play) = plays.get(i) {
                    v["play"] = Value::String(play.clone());
                }
                if let Some(line) = lines.get(i) {
                    v["line"] = Value::from(*line);
                }
                v
            })
            .collect()
    }
}

/// The server's rollouts: the last id given (ids count up from 1 and are never reused), the
/// jobs kept by id, and those forgotten while their last games were still being played (they
/// count against [`MAX_RUNNING`] until those end).
#[derive(Default)]
struct Kept {
    last: u64,
    jobs: BTreeMap<u64, Arc<Job>>,
    forgotten: Vec<Arc<Job>>,
}

impl Kept {
    fn running(&mut self) -> usize {
        self.forgotten.retain(|j| j.running());
        self.jobs
            .values()
            .chain(&self.forgotten)
            .filter(|j| j.running())
            .count()
    }
}

/// The server's rollouts.
#[derive(Default)]
pub(crate) struct Jobs {
    inner: Mutex<Kept>,
}

impl Jobs {
    fn lock(&self) -> MutexGuard<'_, Kept> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts `args` on a thread of its own and returns its job once it has started playing
    /// (or has already ended, the games being few). Blocks until then: call it from a thread
    /// that may block.
    ///
    /// # Errors
    /// [`Busy`] when [`MAX_RUNNING`] rollouts are running; an [`InputError`] for a request
    /// that cannot be rolled out (the position, the dice, a play, the score), and then no job
    /// is kept.
    pub(crate) fn start(&self, args: RolloutArgs, request: Value) -> Result<Arc<Job>> {
        let job = {
            let mut kept = self.lock();
            if kept.running() >= MAX_RUNNING {
                return Err(Busy(format!(
                    "{MAX_RUNNING} rollouts are running, the most at once: stop one or wait \
                     for one to end"
                ))
                .into());
            }
            kept.last += 1;
            let job = Arc::new(Job {
                id: kept.last,
                request,
                started: Instant::now(),
                watch: RolloutWatch::default(),
                end: Mutex::new(None),
            });
            kept.jobs.insert(job.id, Arc::clone(&job));
            job
        };
        let worker = Arc::clone(&job);
        std::thread::spawn(move || {
            let mut out = Vec::new();
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                rollout_watched(&args, &mut out, &worker.watch)
            }));
            let outcome = match ran {
                Ok(Ok(())) => match serde_json::from_slice(&out) {
                    Ok(value) => {
                        // The counters are final: the rollout's threads have ended.
                        let total = worker.watch.total.load(Ordering::Relaxed);
                        let stopped = worker.watch.control.should_stop()
                            && worker.watch.control.games_done() < total;
                        Outcome::Result { value, stopped }
                    }
                    Err(e) => Outcome::Failed {
                        error: format!("the rollout's answer is not JSON: {e}"),
                        bad_request: false,
                    },
                },
                Ok(Err(e)) if e.is::<Stopped>() => Outcome::Stopped,
                Ok(Err(e)) => Outcome::Failed {
                    error: format!("{e:#}"),
                    bad_request: e.chain().any(|c| c.is::<InputError>()),
                },
                Err(_) => Outcome::Failed {
                    error: "the rollout failed: a bug in tavla (it panicked)".into(),
                    bad_request: false,
                },
            };
            *worker.end() = Some((Instant::now(), outcome));
        });
        // The rollout knows how many games it will play once it has read the request.
        while job.running() && job.watch.total.load(Ordering::Relaxed) == 0 {
            std::thread::sleep(Duration::from_millis(2));
        }
        let refused = match &*job.end() {
            Some((
                _,
                Outcome::Failed {
                    error,
                    bad_request: true,
                },
            )) => Some(error.clone()),
            _ => None,
        };
        let mut kept = self.lock();
        if let Some(error) = refused {
            kept.jobs.remove(&job.id);
            return Err(InputError(error).into());
        }
        // Room for it: the oldest finished jobs are forgotten.
        while kept.jobs.len() > MAX_KEPT {
            let Some(oldest) = kept.jobs.values().find(|j| !j.running()).map(|j| j.id) else {
                break;
            };
            kept.jobs.remove(&oldest);
        }
        drop(kept);
        Ok(job)
    }

    /// The rollout `id`, if the server still has it.
    pub(crate) fn get(&self, id: u64) -> Option<Arc<Job>> {
        self.lock().jobs.get(&id).cloned()
    }

    /// Every rollout the server has, oldest first.
    pub(crate) fn list(&self) -> Vec<Arc<Job>> {
        self.lock().jobs.values().cloned().collect()
    }

    /// Forgets the rollout `id` (stopping it if it runs) and returns it. Until its games in
    /// play end, it still counts against [`MAX_RUNNING`].
    pub(crate) fn remove(&self, id: u64) -> Option<Arc<Job>> {
        let mut kept = self.lock();
        let job = kept.jobs.remove(&id)?;
        job.stop();
        if job.running() {
            kept.forgotten.push(Arc::clone(&job));
        }
        Some(job)
    }
}
