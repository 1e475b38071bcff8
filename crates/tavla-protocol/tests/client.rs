//! `UbgiPlayer` against tavla's own engine loop (in process) and against small shell engines
//! that misbehave on purpose.

use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

use tavla_core::{Cube, CubeOwner, Dice, GameState, PlayList, Position, Roll, Side};
use tavla_player::{Player, RandomPlayer};
use tavla_protocol::{Engine, ErrorCode, SpawnError, UbgiError, UbgiPlayer};

/// One end of an in-memory pipe.
struct PipeWriter(Sender<Vec<u8>>);

impl Write for PipeWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The other end: reads until the writer is dropped.
struct PipeReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for PipeReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.at == self.buf.len() {
            match self.rx.recv() {
                Ok(chunk) => {
                    self.buf = chunk;
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn pipe() -> (PipeWriter, PipeReader) {
    let (tx, rx) = mpsc::channel();
    (
        PipeWriter(tx),
        PipeReader {
            rx,
            buf: Vec::new(),
            at: 0,
        },
    )
}

/// A UbgiPlayer talking to tavla's engine loop in a thread, serving `player`.
fn in_process(player: Box<dyn Player>) -> UbgiPlayer {
    let (to_engine, engine_in) = pipe();
    let (engine_out, from_engine) = pipe();
    thread::spawn(move || Engine::new(player).run(BufReader::new(engine_in), engine_out));
    UbgiPlayer::connect(from_engine, to_engine).expect("handshake with tavla's own loop")
}

/// A small deterministic dice source.
struct Dice6(u64);

impl Dice6 {
    fn roll(&mut self) -> Roll {
        let mut die = || {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % 6) as u8 + 1
        };
        Roll::from_values(die(), die())
    }
}

#[test]
fn remote_random_player_plays_exactly_like_the_local_one() {
    // The engine's RandomPlayer is asked exactly when the local one is (more than one legal
    // play), so with the same seed every choice must agree: the position, the dice and the
    // move travel through the protocol without loss.
    let mut remote = in_process(Box::new(RandomPlayer::new(42)));
    let mut local = RandomPlayer::new(42);
    assert_eq!(remote.name(), "ubgi:tavla random");
    let mut dice = Dice6(0x9e37_79b9_7f4a_7c15);
    let mut plays = PlayList::new();
    let mut asked = 0;
    for _game in 0..6 {
        remote.new_game();
        local.new_game();
        let mut state = GameState::money(Position::START);
        while !state.position.is_game_over() {
            let roll = dice.roll();
            state.dice = Dice::Rolled(roll);
            state.position.legal_plays(roll, &mut plays);
            let r = remote.choose_play(&state, roll, &plays);
            if plays.len() > 1 {
                asked += 1;
                assert_eq!(r, local.choose_play(&state, roll, &plays));
            } else {
                assert_eq!(r, 0);
            }
            state.position = plays.positions()[r].flip();
            state.turn = state.turn.other();
        }
    }
    assert!(asked > 100, "{asked}");
    assert!(remote.error().is_none());
    assert_eq!(remote.failures(), 0);
}

/// A unique scratch file for a fake engine's log.
fn scratch(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "tavla-ubgi-{name}-{}-{nanos}.log",
        std::process::id()
    ))
}

/// A shell engine: logs every line it reads to `log`, answers the handshake, and runs `cases`
/// (extra `case` arms) for everything else.
fn fake(log: &Path, cases: &str) -> String {
    format!(
        r#"n=0
while IFS= read -r line; do
  echo "$line" >> '{log}'
  case "$line" in
    ubgi) echo "id name fake"; echo "id author tests"; echo "proto 0.2"; echo "key engine.ply int 1..2 1"; echo ubgiok;;
    isready) echo readyok;;
    quit) exit 0;;
{cases}
  esac
done"#,
        log = log.display()
    )
}

fn lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn start_plays(roll: Roll) -> PlayList {
    let mut plays = PlayList::new();
    Position::START.legal_plays(roll, &mut plays);
    plays
}

/// Index of the play written `text` (plain notation) among the start position's plays.
fn index_of(plays: &PlayList, text: &str) -> usize {
    plays
        .plays()
        .position(|p| p.to_string() == text)
        .unwrap_or_else(|| panic!("{text} is not legal"))
}

#[test]
fn handshake_and_the_requests_sent() {
    let log = scratch("requests");
    let engine = fake(
        &log,
        r#"    "go chequer") echo "info depth 1"; echo "junk"; echo "bestmove 6/5 8/5";;"#,
    );
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    let info = p.engine_info();
    assert_eq!(info.name.as_deref(), Some("fake"));
    assert_eq!(info.author.as_deref(), Some("tests"));
    assert_eq!(info.proto.as_deref(), Some("0.2"));
    assert_eq!(info.keys, ["engine.ply int 1..2 1"]);
    assert_eq!(p.name(), "ubgi:fake");
    let roll = Roll::from_values(1, 3);
    let plays = start_plays(roll);
    p.new_game();
    let state = GameState::money(Position::START);
    assert_eq!(
        p.choose_play(&state, roll, &plays),
        index_of(&plays, "8/5 6/5")
    );
    // A cube that has been turned travels as an XGID.
    let doubled = GameState {
        cube: Cube {
            log2: 1,
            owner: CubeOwner::Side(Side::X),
        },
        ..state
    };
    assert_eq!(
        p.choose_play(&doubled, roll, &plays),
        index_of(&plays, "8/5 6/5")
    );
    // Only one legal play (here the pass: both checkers on the bar against a closed board):
    // not asked.
    let mut board = tavla_core::Board::default();
    board.on_roll[24] = 2;
    board.on_roll[12] = 13;
    for p in 0..6 {
        board.opponent[p] = 2;
    }
    let closed = Position::try_from(board).unwrap();
    let mut forced = PlayList::new();
    closed.legal_plays(roll, &mut forced);
    assert_eq!(forced.len(), 1);
    assert_eq!(p.choose_play(&GameState::money(closed), roll, &forced), 0);
    drop(p);
    assert_eq!(
        lines(&log),
        [
            "ubgi",
            "isready",
            "newgame",
            "isready",
            "position gnubgid 4HPwATDgc/ABMA",
            "dice 3 1",
            "go chequer",
            "position xgid XGID=-b----E-C---eE---c-e----B-:1:1:1:00:0:0:0:0:10",
            "dice 3 1",
            "go chequer",
            "quit",
        ]
    );
    let _ = std::fs::remove_file(&log);
}

#[test]
fn any_spelling_of_the_play_is_understood() {
    let log = scratch("spellings");
    let plays = start_plays(Roll::from_values(3, 1));
    let after = plays.positions()[index_of(&plays, "8/5 6/5")];
    let engine = fake(
        &log,
        &format!(
            r#"    "go chequer") n=$((n+1)); case $n in
      1) echo "bestmove 6-5 8-5";;
      2) echo "bestmove 8 5 6 5";;
      3) echo "bestmove 8/5* 6/5";;
      4) echo "bestmoveid {}";;
      5) echo "bestmoveid {}";;
    esac;;"#,
            after.flip().position_id(),
            after.position_id()
        ),
    );
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    let roll = Roll::from_values(3, 1);
    let plays = start_plays(roll);
    let state = GameState::money(Position::START);
    for _ in 0..5 {
        assert_eq!(
            p.choose_play(&state, roll, &plays),
            index_of(&plays, "8/5 6/5")
        );
    }
    assert!(p.error().is_none(), "{:?}", p.error());
    drop(p);
    let _ = std::fs::remove_file(&log);
}

#[test]
fn an_illegal_play_falls_back_and_is_reported() {
    let log = scratch("illegal");
    let engine = fake(
        &log,
        r#"    "go chequer") n=$((n+1)); case $n in
      1) echo "bestmove 24/1";;
      2) echo "bestmove pass";;
      3) echo "bestmove 8/x";;
      *) echo "bestmove 13/10 24/23";;
    esac;;"#,
    );
    let mut p: Box<dyn Player> = Box::new(UbgiPlayer::spawn(&engine).unwrap());
    let roll = Roll::from_values(3, 1);
    let plays = start_plays(roll);
    let state = GameState::money(Position::START);
    for _ in 0..3 {
        assert_eq!(p.choose_play(&state, roll, &plays), 0, "the fallback");
        let failure = p.take_failure().expect("reported");
        let failure = failure.downcast::<UbgiError>().unwrap();
        assert!(
            matches!(
                *failure,
                UbgiError::IllegalPlay { .. } | UbgiError::BadReply { .. }
            ),
            "{failure}"
        );
        assert!(p.take_failure().is_none(), "taken");
    }
    // Still connected, and right again.
    assert_eq!(
        p.choose_play(&state, roll, &plays),
        index_of(&plays, "24/23 13/10")
    );
    assert!(p.take_failure().is_none());
    drop(p);
    let _ = std::fs::remove_file(&log);
}

#[test]
fn an_error_answer_is_reported_with_its_code() {
    let log = scratch("error");
    let engine = fake(
        &log,
        r#"    "go chequer") echo "error bad_state engine confused"; echo "bestmove late";;"#,
    );
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    let roll = Roll::from_values(3, 1);
    let plays = start_plays(roll);
    assert_eq!(
        p.choose_play(&GameState::money(Position::START), roll, &plays),
        0
    );
    match p.take_error() {
        Some(UbgiError::Engine { code, message, .. }) => {
            assert_eq!(code, Some(ErrorCode::BadState));
            assert_eq!(message, "engine confused");
        }
        other => panic!("{other:?}"),
    }
    assert!(p.is_alive());
    assert_eq!(p.failures(), 1);
    drop(p);
    // The stale `bestmove late` was drained by a resynchronisation.
    assert!(lines(&log).ends_with(&["go chequer".into(), "isready".into(), "quit".into()]));
    let _ = std::fs::remove_file(&log);
}

#[test]
fn a_silent_engine_times_out_and_is_dropped() {
    let log = scratch("timeout");
    let engine = fake(&log, r#"    "go chequer") ;;"#);
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    p.set_timeout(Duration::from_millis(300));
    let roll = Roll::from_values(3, 1);
    let plays = start_plays(roll);
    let state = GameState::money(Position::START);
    let t = Instant::now();
    assert_eq!(p.choose_play(&state, roll, &plays), 0);
    assert!(t.elapsed() < Duration::from_secs(5));
    assert!(
        matches!(p.error(), Some(UbgiError::Timeout { .. })),
        "{:?}",
        p.error()
    );
    assert!(!p.is_alive());
    // Not asked again.
    let t = Instant::now();
    assert_eq!(p.choose_play(&state, roll, &plays), 0);
    assert!(t.elapsed() < Duration::from_millis(100));
    assert_eq!(p.failures(), 2);
    assert!(!p.wants_to_double(&state));
    assert!(p.accepts_double(&state));
    let _ = std::fs::remove_file(&log);
}

#[test]
fn a_crash_is_reported_with_the_exit_status() {
    let log = scratch("crash");
    let engine = fake(&log, r#"    "go chequer") exit 3;;"#);
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    let roll = Roll::from_values(3, 1);
    let plays = start_plays(roll);
    assert_eq!(
        p.choose_play(&GameState::money(Position::START), roll, &plays),
        0
    );
    match p.error() {
        Some(UbgiError::Closed { status, .. }) => {
            assert_eq!(status.and_then(|s| s.code()), Some(3));
        }
        other => panic!("{other:?}"),
    }
    assert!(!p.is_alive());
    let _ = std::fs::remove_file(&log);
}

#[test]
fn engines_that_fail_the_handshake() {
    match UbgiPlayer::spawn("exit 7") {
        Err(SpawnError::Handshake {
            source: UbgiError::Closed { status, .. },
            ..
        }) => assert_eq!(status.and_then(|s| s.code()), Some(7)),
        other => panic!("{other:?}"),
    }
    match UbgiPlayer::spawn("read l; echo 'error unsupported ubgi'; exec sleep 5") {
        Err(SpawnError::Handshake {
            source: UbgiError::Engine { code, .. },
            ..
        }) => assert_eq!(code, Some(ErrorCode::Unsupported)),
        other => panic!("{other:?}"),
    }
    let e = UbgiPlayer::spawn("/nonexistent/engine 2>/dev/null").unwrap_err();
    assert!(e.to_string().contains("/nonexistent/engine"), "{e}");
}

#[test]
fn xgid_refusal_falls_back_to_position_ids() {
    let log = scratch("noxgid");
    let engine = fake(
        &log,
        r#"    position\ xgid*) echo "error unsupported_feature position_xgid";;
    "go chequer") echo "bestmove 8/5 6/5";;"#,
    );
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    let roll = Roll::from_values(3, 1);
    let plays = start_plays(roll);
    let match_state = GameState {
        match_length: 5,
        ..GameState::money(Position::START)
    };
    for _ in 0..2 {
        assert_eq!(
            p.choose_play(&match_state, roll, &plays),
            index_of(&plays, "8/5 6/5")
        );
    }
    assert!(p.error().is_none(), "{:?}", p.error());
    // Cube questions need XGIDs: reported once, then the fallback.
    assert!(!p.wants_to_double(&match_state));
    assert!(matches!(
        p.take_error(),
        Some(UbgiError::Unsupported { .. })
    ));
    assert!(!p.wants_to_double(&match_state));
    assert!(p.take_error().is_none());
    drop(p);
    let sent = lines(&log);
    let xgids = sent
        .iter()
        .filter(|l| l.starts_with("position xgid"))
        .count();
    assert_eq!(xgids, 1, "{sent:?}");
    let _ = std::fs::remove_file(&log);
}

#[test]
fn cube_questions() {
    let log = scratch("cube");
    let engine = fake(
        &log,
        r#"    position*) pos="$line";;
    "go cube") case "$pos" in *:D:*) echo "bestcube drop";; *) echo "bestcube double";; esac;;"#,
    );
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    let mut state = GameState::money(Position::START);
    state.match_length = 7;
    assert!(p.wants_to_double(&state));
    // O must answer X's double: the state is seen from O.
    let answering = GameState {
        position: Position::START.flip(),
        turn: Side::O,
        dice: Dice::DoubleOffered,
        ..state
    };
    assert!(!p.accepts_double(&answering));
    assert!(p.error().is_none(), "{:?}", p.error());
    drop(p);
    let sent = lines(&log);
    assert!(
        sent.contains(
            &"position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10".to_string()
        ),
        "{sent:?}"
    );
    // The XGID of a pending double names the doubler (X, turn 1).
    assert!(
        sent.contains(
            &"position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:7:10".to_string()
        ),
        "{sent:?}"
    );
    let _ = std::fs::remove_file(&log);
}

#[test]
fn an_engine_without_cube_support_is_asked_once() {
    let log = scratch("nocube");
    let engine = fake(&log, r#"    "go cube") echo "error unsupported go cube";;"#);
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    let state = GameState::money(Position::START);
    assert!(!p.wants_to_double(&state));
    assert!(matches!(
        p.take_error(),
        Some(UbgiError::Engine {
            code: Some(ErrorCode::Unsupported),
            ..
        })
    ));
    assert!(!p.wants_to_double(&state));
    assert!(p.accepts_double(&state));
    assert!(p.take_error().is_none());
    assert_eq!(p.failures(), 3);
    drop(p);
    assert_eq!(lines(&log).iter().filter(|l| *l == "go cube").count(), 1);
    let _ = std::fs::remove_file(&log);
}

#[test]
fn a_stubborn_engine_is_killed_on_drop() {
    let engine = "while IFS= read -r l; do case \"$l\" in ubgi) echo ubgiok;; isready) echo readyok;; esac; done; exec sleep 30";
    let p = UbgiPlayer::spawn(engine).unwrap();
    let t = Instant::now();
    drop(p);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn relayed_questions_that_go_wrong() {
    // An engine that lists plays and rolls out, but rolls out a play it was not asked for,
    // answers `go eval` malformed once and then as an engine without it.
    let log = scratch("relayed");
    let engine = fake(
        &log,
        r#"    "go chequer") echo "info multipv 1 score +0.2 ply 1 win 0.55 wg 0.15 wbg 0.01 lg 0.1 lbg 0.005 pv 8/5 6/5"; echo "info multipv 2 score +0.1 ply 1 win 0.5 wg 0.1 wbg 0 lg 0.1 lbg 0 pv 24/23 13/10"; echo "bestmove 8/5 6/5";;
    "go rollout"*) echo "info multipv 1 score +0.1 ci 0.01 diff +0 diffci 0 games 5 win 0.5 wg 0.1 wbg 0 lg 0.1 lbg 0 pv 13/10 6/5";;
    stop) echo "bestmove 13/10 6/5";;
    "go eval") n=$((n+1)); if [ $n = 1 ]; then echo "besteval equity +0.1 win 0.5"; else echo "error unsupported go eval"; fi;;"#,
    );
    let engine = engine.replace(
        r#"echo "key engine.ply int 1..2 1";"#,
        r#"echo "key engine.ply int 1..2 1"; echo "key engine.multipv int 1..64 1";"#,
    );
    let mut p = UbgiPlayer::spawn(&engine).unwrap();
    assert_eq!(p.ply(), Some(0));
    let roll = Roll::from_values(3, 1);
    let plays = start_plays(roll);
    let state = GameState {
        dice: Dice::Rolled(roll),
        ..GameState::money(Position::START)
    };
    // The plays as listed, the mover's values.
    let ranked = p.rank_plays(&state, roll, &plays, 2);
    let ranked = ranked.unwrap_or_else(|| panic!("{:?}", p.take_error()));
    assert_eq!(ranked.len(), 2);
    assert_eq!(ranked[0].index, index_of(&plays, "8/5 6/5"));
    assert_eq!(ranked[1].index, index_of(&plays, "24/23 13/10"));
    assert!((ranked[0].value - 0.2).abs() < 1e-6 && ranked[0].ply == 0);
    assert_eq!(p.failures(), 0);
    // A rollout of 8/5 6/5 answered for 13/10 6/5: refused, the rollout stopped and its
    // answer skipped, so the engine still answers in step.
    let after = plays.positions()[index_of(&plays, "8/5 6/5")];
    let request = tavla_player::RolloutRequest {
        games: 5,
        seed: 1,
        truncate: 0,
        ply: 0,
        threads: 1,
    };
    let control = tavla_player::RolloutControl::new(None);
    assert!(p.rollout(&state, &[after], &request, &control).is_none());
    assert!(matches!(
        p.take_error(),
        Some(UbgiError::Unsupported { .. })
    ));
    assert!(p.is_alive());
    // A malformed evaluation is a failure; an engine that then says it has none is not asked
    // again.
    let before = GameState::money(Position::START);
    assert!(p.evaluate(&before).is_none());
    assert!(matches!(p.take_error(), Some(UbgiError::BadReply { .. })));
    assert!(p
        .evaluate(&GameState::money(plays.positions()[0].flip()))
        .is_none());
    assert!(p.evaluate(&before).is_none());
    assert!(p.take_error().is_none());
    // Still in step: a play is asked and answered.
    assert_eq!(
        p.choose_play(&state, roll, &plays),
        index_of(&plays, "8/5 6/5")
    );
    drop(p);
    let log = lines(&log);
    assert_eq!(log.iter().filter(|l| *l == "go eval").count(), 2, "{log:?}");
    assert!(log.contains(&"stop".to_string()), "{log:?}");
}
