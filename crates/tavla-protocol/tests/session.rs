//! Scripted UBGI sessions over in-memory buffers, Stockfish style: a script goes in, the exact
//! transcript comes out.

use std::io::{self, Cursor, Write};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use tavla_core::{Board, Cube, CubeOwner, Dice, GameState, PlayList, Position, Roll, Side};
use tavla_notation::testing::arb_game_state;
use tavla_notation::{format, Notation, PlayText};
use tavla_player::{Player, RandomPlayer};
use tavla_protocol::{run, Engine};

/// What a [`Probe`] saw.
#[derive(Debug, Default)]
struct Seen {
    plays: Vec<(GameState, Roll, usize)>,
    doubles: Vec<GameState>,
    takes: Vec<GameState>,
    new_games: usize,
}

/// A player that records what it is asked, picks the last legal play and answers the cube
/// as configured.
struct Probe {
    seen: Arc<Mutex<Seen>>,
    doubles: bool,
    takes: bool,
}

impl Probe {
    fn new(doubles: bool, takes: bool) -> (Probe, Arc<Mutex<Seen>>) {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let probe = Probe {
            seen: Arc::clone(&seen),
            doubles,
            takes,
        };
        (probe, seen)
    }
}

impl Player for Probe {
    fn name(&self) -> String {
        "probe".into()
    }
    fn new_game(&mut self) {
        self.seen.lock().unwrap().new_games += 1;
    }
    fn choose_play(&mut self, state: &GameState, roll: Roll, plays: &PlayList) -> usize {
        self.seen
            .lock()
            .unwrap()
            .plays
            .push((*state, roll, plays.len()));
        plays.len() - 1
    }
    fn wants_to_double(&mut self, state: &GameState) -> bool {
        self.seen.lock().unwrap().doubles.push(*state);
        self.doubles
    }
    fn accepts_double(&mut self, state: &GameState) -> bool {
        self.seen.lock().unwrap().takes.push(*state);
        self.takes
    }
}

/// Runs `script` (one command per line) and returns the transcript.
fn session_with(player: Box<dyn Player>, script: &str) -> String {
    let mut out = Vec::new();
    run(Cursor::new(script.as_bytes().to_vec()), &mut out, player)
        .expect("in-memory I/O does not fail");
    String::from_utf8(out).expect("the engine writes UTF-8")
}

fn session(script: &str) -> String {
    session_with(Box::new(RandomPlayer::new(1)), script)
}

/// Compares transcripts line by line, printing both on failure.
macro_rules! assert_transcript {
    ($got:expr, $want:expr) => {{
        let got: &str = &$got;
        let want: &str = $want;
        assert!(
            got == want,
            "transcript differs\n--- got\n{got}--- want\n{want}"
        );
    }};
}

/// The play `line` (`bestmove ...`) describes, resolved against `pos` and `roll`.
fn resolve(line: &str, pos: &Position, roll: Roll) -> tavla_core::Play {
    let payload = line.strip_prefix("bestmove ").expect("a bestmove line");
    payload
        .parse::<PlayText>()
        .expect("move syntax")
        .resolve(pos, roll)
        .expect("a legal play")
}

const START_ID: &str = "4HPwATDgc/ABMA";
const START_XGID: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10";

fn handshake() -> String {
    format!(
        "\
id name tavla random
id author the tavla authors
id version {}
option name Variant type combo default backgammon var backgammon
option name Jacoby type check default false
option name Beavers type check default false
option name Info type check default true
proto 0.2
key game.variant enum backgammon backgammon rules variant (standard backgammon only)
key game.jacoby bool false money play: gammons count single while the cube is centred (for positions that do not carry the rule)
key game.beavers bool false money play: a side doubled may beaver (for positions that do not carry the rule)
key engine.info bool true ! write an info line before each answer
ubgiok
",
        env!("CARGO_PKG_VERSION")
    )
}

#[test]
fn handshake_declares_both_dialects() {
    assert_transcript!(
        session("ubgi\nisready\nquit\n"),
        &(handshake() + "readyok\n")
    );
}

#[test]
fn the_gnubg_harness_cubeless_dialogue() {
    // Exactly what ../shared/tools/gnubg/match-vs-external --engine-protocol ubgi sends.
    let script = format!(
        "ubgi\nisready\nnewgame\nisready\nposition gnubgid {START_ID}\ndice 3 1\ngo chequer\nquit\n"
    );
    let out = session(&script);
    let lines: Vec<&str> = out.lines().collect();
    let n = handshake().lines().count();
    assert_eq!(&lines[n..n + 2], ["readyok", "readyok"]);
    assert!(
        lines[n + 2].starts_with("info plays 16 time_ms "),
        "{}",
        lines[n + 2]
    );
    resolve(lines[n + 3], &Position::START, Roll::from_values(3, 1));
    assert_eq!(lines.len(), n + 4);
}

/// One checker on the bar (or none), the rest on the side on roll's 13-point, and the opponent's
/// checkers on its 1-point and on the given home points.
fn bar_position(bar: u8, opponent_home: &[usize]) -> Position {
    let mut board = Board::default();
    board.on_roll[24] = bar;
    board.on_roll[12] = 15 - bar;
    board.opponent[0] = 2;
    for &p in opponent_home {
        board.opponent[p - 1] = 2;
    }
    Position::try_from(board).unwrap()
}

#[test]
fn moves_are_written_out_with_bar_and_off() {
    let (probe, _) = Probe::new(false, true);
    // Entering: 6-5 from the bar with the 5-point closed must be bar/19 then a 5.
    let entering = bar_position(1, &[5]);
    // Bearing off: two checkers on the 1-point, one on the 3-point.
    let mut board = Board::default();
    board.on_roll[0] = 2;
    board.on_roll[2] = 1;
    board.opponent[0] = 2;
    let home = Position::try_from(board).unwrap();
    let script = format!(
        "set engine.info false\nposition gnubgid {}\ndice 6 5\ngo chequer\nposition gnubgid {}\ndice 4 3\ngo chequer\n",
        entering.position_id(),
        home.position_id(),
    );
    let out = session_with(Box::new(probe), &script);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("bestmove bar/19 "), "{}", lines[0]);
    resolve(lines[0], &entering, Roll::from_values(6, 5));
    assert!(lines[1].contains("/off"), "{}", lines[1]);
    resolve(lines[1], &home, Roll::from_values(4, 3));
    assert!(!out.contains('*') && !out.contains('('), "{out}");
}

#[test]
fn a_closed_board_is_a_pass() {
    let pos = bar_position(2, &[1, 2, 3, 4, 5, 6]);
    let script = format!(
        "set engine.info false\nposition gnubgid {}\ndice 6 6\ngo chequer\ngo\n",
        pos.position_id()
    );
    assert_transcript!(session(&script), "bestmove pass\nbestmove pass\n");
}

#[test]
fn bad_lines_get_errors_and_the_engine_keeps_serving() {
    let script = format!(
        "\
hello world
go
dice 7 1
dice 3
position gnubgid 4HPwATDgc/AB!A
position sgf (;GM[6])
position xgid
set colour blue
get colour
setoption name Bogus value 1
set engine.info maybe
setscore 1 0
newsession type match
setcube value 3 owner p0
setturn p2
go role
Isready

position gnubgid {START_ID}
go chequer
go turn
isready
"
    );
    assert_transcript!(
        session(&script),
        "\
error bad_command unknown command \"hello\"
error bad_state missing position (send position gnubgid <id> or position xgid <xgid>)
error bad_value dice: \"7\" is not a die 1..6
error bad_command dice: expected `dice <d1> <d2>`, found end of line
error bad_value position gnubgid: invalid character '!' at offset 12 in position ID \"4HPwATDgc/AB!A\"
error unsupported position: unsupported format \"sgf\" (gnubgid, xgid, bpn, fibs)
error bad_command position: expected `position gnubgid|xgid|bpn|fibs <text>`, found end of line
error unsupported unknown key \"colour\"
error unsupported unknown key \"colour\"
error unsupported unknown option \"Bogus\"
error bad_value engine.info must be true|false, not \"maybe\"
error bad_state a money session has no score (newsession type match length <n> first)
error bad_command newsession: expected `newsession type money|match [length <n>] [jacoby on|off] [crawford on|off]`, found end of line
error bad_value setcube: \"3\" is not a cube value 1, 2, 4 ... 32768
error bad_value setturn: \"p2\" is not p0 or p1
error bad_command go: expected `go [role] [chequer|cube|turn|eval|rollout|resign|accept <level>] [movetime <ms>] [depth <n>] [nodes <n>] [trials <n>] [seed <n>] [truncate <n>]`, found end of line
error bad_command unknown command \"Isready\"
error bad_state missing dice (send dice <d1> <d2>)
error bad_state missing dice (send dice <d1> <d2>)
readyok
"
    );
}

#[test]
fn invalid_utf8_is_an_unknown_command() {
    let mut script = b"\xff\xfe garbage\n".to_vec();
    script.extend_from_slice(b"isready\n");
    let mut out = Vec::new();
    run(
        Cursor::new(script),
        &mut out,
        Box::new(RandomPlayer::new(1)),
    )
    .unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_transcript!(
        out,
        "error bad_command unknown command \"\u{fffd}\u{fffd}\"\nreadyok\n"
    );
}

#[test]
fn v01_session_context_reaches_the_player() {
    let (probe, seen) = Probe::new(false, true);
    let script = format!(
        "\
ubgi
setoption name Info value false
isready
newsession type match length 7 jacoby on crawford on
newgame
setscore 2 4
setcube value 2 owner p1
setturn p1
position gnubgid {START_ID}
dice 5 2
go role chequer
quit
go role chequer
"
    );
    let out = session_with(Box::new(probe), &script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[lines.len() - 2], "readyok");
    let last = lines[lines.len() - 1];
    resolve(last, &Position::START, Roll::from_values(5, 2));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.new_games, 1);
    assert_eq!(seen.plays.len(), 1, "nothing is read after quit");
    let (state, roll, _) = seen.plays[0];
    assert_eq!(roll, Roll::from_values(5, 2));
    assert_eq!(state.match_length, 7);
    assert_eq!((state.score.o, state.score.x), (2, 4));
    assert_eq!(
        state.cube,
        Cube {
            log2: 1,
            owner: CubeOwner::Side(Side::X)
        }
    );
    assert_eq!(state.turn, Side::X);
    assert!(!state.jacoby, "no Jacoby rule in match play");
    assert!(!state.crawford, "nobody is at 1-away");
    assert_eq!(state.dice, Dice::Rolled(roll));
}

#[test]
fn crawford_game_from_the_session_rule() {
    let (probe, seen) = Probe::new(true, true);
    let script = format!(
        "set engine.info false\nnewsession type match length 5\nsetscore 4 1\nposition gnubgid {START_ID}\ngo cube\n\
         newsession type match length 5 crawford off\nsetscore 4 1\nposition gnubgid {START_ID}\ngo cube\n"
    );
    assert_transcript!(
        session_with(Box::new(probe), &script),
        "bestcube nodouble\nbestcube double\n"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.doubles.len(),
        1,
        "no cube question in the Crawford game"
    );
}

#[test]
fn the_games_after_the_crawford_game_are_not_crawford_games() {
    // 4-1 in a 5-point match: the first game at that score is the Crawford game; the next one,
    // at 4-2 or (sent without a score) again at 4-1, is after it, and the trailer may double.
    let (probe, seen) = Probe::new(true, true);
    let script = format!(
        "set engine.info false\nnewsession type match length 5\nsetscore 4 1\nnewgame\n\
         position gnubgid {START_ID}\ngo cube\n\
         newgame\nsetscore 4 2\nposition gnubgid {START_ID}\ngo cube\n\
         newsession type match length 5\nsetscore 4 1\nnewgame\nnewgame\n\
         position gnubgid {START_ID}\ngo cube\n\
         newsession type match length 5\nsetscore 4 1\nnewgame\nsetscore 4 4\n\
         position gnubgid {START_ID}\ngo cube\n"
    );
    assert_transcript!(
        session_with(Box::new(probe), &script),
        "bestcube nodouble\nbestcube double\nbestcube double\nbestcube nodouble\n"
    );
    let seen = seen.lock().unwrap();
    // At 4-4 both sides are 1-away: the cube is dead, and the player is not asked.
    assert_eq!(seen.doubles.len(), 2);
    assert!(seen
        .doubles
        .iter()
        .all(|s| !s.crawford && s.is_post_crawford()));
}

#[test]
fn turn_decisions_in_both_dialects() {
    let (probe, seen) = Probe::new(true, true);
    let script = format!(
        "set engine.info false\nposition gnubgid {START_ID}\ndice 6 5\ngo turn\ngo role turn depth 2\n"
    );
    let out = session_with(Box::new(probe), &script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    let mv = lines[0]
        .strip_prefix("bestturn cube=double move=")
        .expect(lines[0]);
    let play = resolve(
        &format!("bestmove {mv}"),
        &Position::START,
        Roll::from_values(6, 5),
    );
    let after = Position::START.apply_moves(&play).unwrap();
    assert_eq!(
        lines[1],
        format!("bestturn cube=double moveid={}", after.flip().position_id())
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.doubles[0].dice,
        Dice::NotRolled,
        "the cube is decided before the roll"
    );
}

#[test]
fn cube_decisions_from_xgids() {
    let (probe, seen) = Probe::new(true, false);
    // X (bottom) on roll in a 7-point match at 2-4 with a centred cube; then O owns the cube;
    // then a cubeless XGID (max cube 0); then X has doubled to 2 and O must answer.
    let script = "\
set engine.info false
position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:0:7:10
go cube
position xgid XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:4:2:0:7:10
go cube
position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:0
go cube
position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:D:4:2:0:7:10
go cube
go
dice 3 1
go chequer
";
    assert_transcript!(
        session_with(Box::new(probe), script),
        "\
bestcube double
bestcube nodouble
bestcube nodouble
bestcube drop
bestcube drop
error bad_state a double is pending: answer it with go cube
"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.doubles.len(), 1);
    let asked = seen.doubles[0];
    assert_eq!((asked.turn, asked.match_length), (Side::X, 7));
    assert_eq!((asked.score.x, asked.score.o), (4, 2));
    // The answering side sees the position from its own side.
    let take = seen.takes[0];
    assert_eq!(take.turn, Side::O);
    assert_eq!(take.position, Position::START.flip());
    assert_eq!(take.dice, Dice::DoubleOffered);
    assert_eq!(take.cube.value(), 1, "the cube before the double");
}

#[test]
fn bare_go_picks_the_decision() {
    let script = format!("set engine.info false\nposition gnubgid {START_ID}\ngo\ndice 4 2\ngo\n");
    let out = session(&script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "bestcube nodouble");
    resolve(lines[1], &Position::START, Roll::from_values(4, 2));
}

#[test]
fn keys_get_and_set() {
    let script = "\
keys
get engine.info
set engine.info false
get engine.info
setoption name jacoby value true
get game.jacoby
set game.variant nackgammon
get game.variant
";
    assert_transcript!(
        session(script),
        "\
key game.variant enum backgammon backgammon rules variant (standard backgammon only)
key game.jacoby bool false money play: gammons count single while the cube is centred (for positions that do not carry the rule)
key game.beavers bool false money play: a side doubled may beaver (for positions that do not carry the rule)
key engine.info bool true ! write an info line before each answer
value engine.info true
value engine.info false
value game.jacoby true
error bad_value game.variant must be backgammon, not \"nackgammon\"
value game.variant backgammon
"
    );
}

/// Review (fifty-eighth round): a full position's rules replaced the `game.jacoby` and
/// `game.beavers` keys, and its cube limit held for the Position IDs after it, even after
/// `newgame`. A Position ID carries only the checkers: its rules are the keys'.
#[test]
fn a_position_id_takes_the_keys_rules_whatever_came_before() {
    let (probe, seen) = Probe::new(true, true);
    let script = format!(
        "\
set engine.info false
set game.jacoby true
set game.beavers true
position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:0
go cube
get game.jacoby
get game.beavers
newgame
position gnubgid {START_ID}
go cube
position gnubgid {START_ID}:cAkAAAAAAAAE
go cube
"
    );
    assert_transcript!(
        session_with(Box::new(probe), &script),
        "\
bestcube nodouble
value game.jacoby true
value game.beavers true
bestcube double
bestcube double
"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.doubles.len(),
        2,
        "the cubeless XGID's double is not asked"
    );
    assert!(seen.doubles[0].jacoby && seen.doubles[0].beavers);
    // A Match ID carries its own Jacoby rule (off here), not beavers: those are the key's.
    assert!(!seen.doubles[1].jacoby && seen.doubles[1].beavers);
}

#[test]
fn positions_in_every_notation() {
    let (probe, seen) = Probe::new(false, true);
    let state = tavla_notation::parse_position(START_XGID).unwrap();
    let fibs = format(&state, Notation::Fibs);
    let script = format!(
        "\
set engine.info false
position bpn b4E1C3eE3c1e4B-w0b0-b31-n1-0:0:7
go
position gnubgid 4HPwATDgc/ABMA:cIkKAAAAAAAA
dice 2 1
go
position fibs {fibs}
dice 6 6
go chequer
position xgid -b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10
go chequer
"
    );
    let out = session_with(Box::new(probe), &script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let seen = seen.lock().unwrap();
    let rolls: Vec<Roll> = seen.plays.iter().map(|p| p.1).collect();
    assert_eq!(
        rolls,
        [(3, 1), (2, 1), (6, 6), (5, 2)].map(|(a, b)| Roll::from_values(a, b))
    );
    assert_eq!(seen.plays[0].0.match_length, 7, "BPN carries the match");
    assert!(
        seen.plays[1].0.jacoby,
        "the Match ID carries the Jacoby rule"
    );
    for (line, (state, roll, _)) in lines.iter().zip(&seen.plays) {
        resolve(line, &state.position, *roll);
    }
}

#[test]
fn draft_001_bare_positions_get_the_best_action() {
    let closed = GameState {
        dice: Dice::Rolled(Roll::from_values(4, 3)),
        ..GameState::money(bar_position(2, &[1, 2, 3, 4, 5, 6]))
    };
    let script = format!(
        "\
ubgi
XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10
-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10
XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10
{}
{}
XGID=-b----E-C---eE---c-e----B-:0:0:1:37:0:0:0:0:10
isready
",
        format(&closed, Notation::Xgid),
        format(
            &GameState {
                dice: Dice::Rolled(Roll::from_values(6, 6)),
                ..GameState::money(Position::START)
            },
            Notation::Fibs
        )
    );
    let (probe, _) = Probe::new(true, false);
    let out = session_with(Box::new(probe), &script);
    let lines: Vec<&str> = out.lines().skip(handshake().lines().count()).collect();
    assert_eq!(lines.len(), 7, "{out}");
    // No `bestmove` keyword: the move alone, as draft 0.01 writes it.
    let first = format!("bestmove {}", lines[0]);
    resolve(&first, &Position::START, Roll::from_values(3, 1));
    assert_eq!(&lines[1..4], ["double", "drop", ""]);
    resolve(
        &format!("bestmove {}", lines[4]),
        &Position::START,
        Roll::from_values(6, 6),
    );
    assert!(
        lines[5].starts_with("error bad_value xgid: "),
        "{}",
        lines[5]
    );
    assert_eq!(lines[6], "readyok");
}

#[test]
fn stop_is_silent_and_eof_ends_the_session() {
    assert_transcript!(session("stop\nisready\n"), "readyok\n");
    assert_transcript!(session(""), "");
}

#[test]
fn newgame_forgets_the_position() {
    let (probe, seen) = Probe::new(false, true);
    let script = format!("position gnubgid {START_ID}\ndice 3 1\nnewgame\ngo chequer\n");
    assert_transcript!(
        session_with(Box::new(probe), &script),
        "error bad_state missing position (send position gnubgid <id> or position xgid <xgid>)\n"
    );
    assert_eq!(seen.lock().unwrap().new_games, 1);
}

#[test]
fn a_finished_game_is_refused() {
    let mut board = Board::default();
    board.opponent[0] = 1;
    let pos = Position::try_from(board).unwrap();
    let script = format!("position gnubgid {}\ndice 3 1\ngo\n", pos.position_id());
    assert_transcript!(session(&script), "error bad_state the game is over\n");
}

/// A writer that checks every line is flushed before the next one is written.
#[derive(Default)]
struct FlushCheck {
    data: Vec<u8>,
    flushed: usize,
    violations: usize,
}

impl Write for FlushCheck {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Data ending in a newline must have been flushed before more is written.
        if self.data.last() == Some(&b'\n') && self.flushed < self.data.len() {
            self.violations += 1;
        }
        self.data.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.flushed = self.data.len();
        Ok(())
    }
}

#[test]
fn every_line_is_flushed() {
    let mut out = FlushCheck::default();
    let script = format!("ubgi\nisready\nposition gnubgid {START_ID}\ndice 3 1\ngo\nbogus\n");
    run(
        Cursor::new(script.into_bytes()),
        &mut out,
        Box::new(RandomPlayer::new(3)),
    )
    .unwrap();
    assert_eq!(out.violations, 0);
    assert_eq!(out.flushed, out.data.len());
}

/// Lines built from the protocol's words, valid and not.
fn arb_line() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "ubgi",
        "isready",
        "newgame",
        "quit",
        "stop",
        "setoption",
        "name",
        "value",
        "set",
        "get",
        "keys",
        "newsession",
        "type",
        "money",
        "match",
        "length",
        "jacoby",
        "crawford",
        "on",
        "off",
        "setscore",
        "setcube",
        "owner",
        "center",
        "p0",
        "p1",
        "setturn",
        "position",
        "gnubgid",
        "xgid",
        "bpn",
        "fibs",
        "dice",
        "go",
        "role",
        "chequer",
        "cube",
        "turn",
        "movetime",
        "depth",
        "0",
        "1",
        "3",
        "6",
        "7",
        "99999999999",
        "-1",
        "engine.info",
        "game.jacoby",
        "game.variant",
        "true",
        START_ID,
        START_XGID,
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10",
        "4HPwATDgc/ABMA:cIkKAAAAAAAA",
        "b4E1C3eE3c1e4B-w0b0-b31-n1-0:0:7",
        "AAAAAAAAAAAAAA",
    ]);
    prop_oneof![
        any::<String>(),
        prop::collection::vec(
            prop_oneof![words.prop_map(String::from), "\\PC{0,12}"],
            0..6
        )
        .prop_map(|w| w.join(" ")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever comes in, the loop neither panics nor stops serving (unless told to quit).
    #[test]
    fn arbitrary_lines_never_break_the_loop(lines in prop::collection::vec(arb_line(), 0..24)) {
        let mut engine = Engine::new(Box::new(RandomPlayer::new(5)));
        for line in &lines {
            let reply = engine.handle_line(line);
            for r in &reply.responses {
                prop_assert!(!r.to_string().contains('\n'));
            }
            if reply.quit {
                return Ok(());
            }
        }
        let reply = engine.handle_line("isready");
        prop_assert_eq!(reply.responses.last().map(ToString::to_string), Some("readyok".to_string()));
    }

    /// A line that parses is written back as a line that parses to the same command.
    #[test]
    fn commands_round_trip(line in arb_line()) {
        if let Ok(command) = line.parse::<tavla_protocol::Command>() {
            let again: tavla_protocol::Command = command.to_string().parse().unwrap();
            prop_assert_eq!(again, command);
        }
    }

    /// Any legal game state sent as an XGID gets one final answer, and a bestmove is legal.
    #[test]
    fn every_state_gets_an_answer(state in arb_game_state()) {
        let xgid = format(&state, Notation::Xgid);
        let mut engine = Engine::new(Box::new(RandomPlayer::new(9)));
        let loaded = engine.handle_line(&format!("position xgid {xgid}"));
        prop_assert!(loaded.responses.is_empty());
        let reply = engine.handle_line("go");
        let last = reply.responses.last().unwrap().to_string();
        if let Some(payload) = last.strip_prefix("bestmove ") {
            let roll = state.roll().unwrap();
            let text: PlayText = payload.parse().unwrap();
            prop_assert!(text.resolve(&state.position, roll).is_ok(), "{} {}", xgid, last);
        } else {
            // The states no game reaches are refused: a centred cube above 1 in a match, a
            // double the doubler could not offer.
            let before = GameState { dice: Dice::NotRolled, ..state };
            let centred_in_match = !state.is_money()
                && state.cube.owner == CubeOwner::Centre
                && state.cube.log2 > 0;
            let bad_double = state.dice == Dice::DoubleOffered && !before.may_double();
            let expected_refusal = if state.position.is_game_over() {
                "error bad_state the game is over"
            } else if centred_in_match {
                "error bad_state a centred cube of"
            } else if bad_double {
                "error bad_state a double is pending that the doubler could not offer"
            } else {
                "bestcube "
            };
            prop_assert!(last.starts_with(expected_refusal), "{} {}", xgid, last);
        }
    }
}

#[test]
fn states_the_rules_do_not_allow_are_refused() {
    let script = "\
setcube value 1 owner p0
position xgid XGID=-EEE---------------eee----:0:0:1:D:0:0:0:0:0
position xgid XGID=-EEE---------------eee----:3:1:1:00:0:0:0:0:2
position xgid XGID=-EEE---------------eee----:0:0:1:65:0:0:0:0:10
go cube
newsession type match length 3
setscore 2 0
setcube value 2 owner p1
position gnubgid 4HPwATDgc/ABMA
go cube
";
    let (probe, _) = Probe::new(true, true);
    assert_transcript!(
        session_with(Box::new(probe), script),
        "error bad_value setcube: \"1\" is not a value of 2 or more (a cube with an owner has been turned)\n\
         error bad_value position xgid: the cube doubled to 2 is above the XGID's limit of 1 (field 10, 0: cubeless)\n\
         error bad_value position xgid: the cube at 8 is above the XGID's limit of 4 (field 10, 2)\n\
         error bad_state the dice are rolled: a double comes before the roll (send the position without dice for go cube, or go chequer for the play)\n\
         error bad_state the Crawford game has no doubling, yet the cube is at 2 (setcube value 1, or setscore for a game after it)\n"
    );
}

#[test]
fn a_line_too_long_is_skipped_with_an_error() {
    // A controller that sends bytes without a line end does not make the engine hold them:
    // the line is skipped, named as such, and the session goes on.
    let script = format!("{}\nisready\n", "x".repeat(200_000));
    assert_eq!(
        session(&script),
        "error bad_command a line longer than 65536 bytes, skipped\nreadyok\n"
    );
}

#[test]
fn states_no_game_reaches_are_refused_at_go() {
    let out = session(
        "position xgid XGID=---b-AEBCA--cA--ad-c-b--B-:0:0:-1:D:0:0:0:1:10\ngo\n\
         newsession type match length 5\nsetscore 4 4\nsetcube value 2 owner center\n\
         position gnubgid 4HPwATDgc/ABMA\ngo cube\n",
    );
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(
        errors,
        [
            // A double with a dead cube (a 1-point match) is refused by the XGID reader
            // itself, as by every reader, so there is no position for `go`.
            "error bad_value position xgid: invalid XGID: dice at offset 39: the cube is dead: \
             a single game at the cube's value already wins the doubler the match, so no \
             double is offered",
            "error bad_state missing position (send position gnubgid <id> or position xgid \
             <xgid>)",
            "error bad_state a centred cube of 2 in a match: a turned cube has an owner (match \
             play has no automatic doubles; setcube value 2 owner ...)",
        ],
        "{out}"
    );
}
