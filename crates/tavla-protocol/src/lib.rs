//! UBGI, the Universal Backgammon Interface: the line protocol through which GUIs, bots and
//! test harnesses drive a backgammon engine over stdin/stdout, both ways.
//!
//! * [`Command`] (controller to engine) and [`Response`] (engine to controller): one line each,
//!   read with [`FromStr`](std::str::FromStr) (syntax only; errors name the word at fault and
//!   carry a UBGI [`ErrorCode`]) and written with `Display`.
//! * [`Engine`] and [`run`]: the engine loop that serves any [`tavla_player::Player`]. It
//!   speaks both bgci drafts (v0.1 and v0.2) and answers draft 0.01's bare XGID or FIBS board
//!   lines; a bad line gets `error <code> <message>` and the loop keeps serving.
//! * [`External`]: gnubg's external-player protocol (FIBS boards over a TCP socket, one
//!   request a line), for FIBS bots and programs written for gnubg's external mode.
//! * [`UbgiPlayer`]: the other side, a [`tavla_player::Player`] whose decisions an external
//!   UBGI engine makes (started with [`UbgiPlayer::spawn`]).
//!
//! The dialect, the error codes and an example session are in `docs/ubgi.md`.
//!
//! ```
//! use tavla_player::RandomPlayer;
//!
//! let session = "\
//! ubgi
//! isready
//! newgame
//! position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10
//! dice 3 1
//! go chequer
//! frobnicate
//! quit
//! ";
//! let mut out = Vec::new();
//! tavla_protocol::run(session.as_bytes(), &mut out, Box::new(RandomPlayer::new(7)))?;
//! let out = String::from_utf8(out).unwrap();
//! let lines: Vec<&str> = out.lines().collect();
//! assert!(lines.contains(&"proto 0.2"));
//! assert!(lines.iter().any(|l| l.starts_with("bestmove ")));
//! assert_eq!(lines.last(), Some(&"error bad_command unknown command \"frobnicate\""));
//! # Ok::<(), std::io::Error>(())
//! ```
#![warn(missing_docs)]

mod client;
mod command;
mod engine;
pub mod external;
mod lines;
mod response;

pub use client::{EngineInfo, SpawnError, UbgiError, UbgiPlayer, DEFAULT_TIMEOUT};
pub use command::{
    BarePosition, Command, Go, GoMode, Limits, ParseCommandError, PositionSpec, Seat, SessionSpec,
};
pub use engine::{run, Engine, Reply, KEYS, SEARCH_KEYS};
pub use external::{Evaluate, External};
pub use response::{CubeAction, DraftAnswer, ErrorCode, IdField, KeySpec, KeyType, Response};
