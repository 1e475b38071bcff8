//! The weights of the three networks and their file format.
//!
//! A weights file (`.tnn`) is little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `TAVLA-NN` |
//! | 4 | format version ([`FORMAT_VERSION`]) |
//! | 8 | input-layout hash ([`crate::inputs::input_layout_hash`]) |
//! | 4 | number of inputs |
//! | 8 | self-play training games behind these weights (information only) |
//! | 4 | hidden units of the contact network |
//! | 4 | hidden units of the crashed network |
//! | 4 | hidden units of the race network |
//! | 12 | version 3 only: second-layer units of the contact, crashed and race networks (0: none) |
//! | ... | per network, contact, crashed, race: `w1` (inputs × hidden, input-major), `b1` (hidden), in version 3 with a second layer `wm` (hidden × second, hidden-major) and `bm` (second), then `w2` (last hidden layer × 5, hidden-major), `b2` (5), all `f32` |
//! | 8 | FNV-1a 64 of every byte before |
//!
//! Weights are written in version 2 when no network has a second hidden layer, so one-layer
//! files stay readable by earlier builds. Version 1 files (before the crashed network) have no
//! crashed hidden count and no crashed network; they load with the crashed network a copy of
//! the contact network, which computes the same function as before.
//!
//! A file whose magic, version, layout hash, input count, layer sizes, length or checksum does
//! not match is refused with a [`WeightsError`] that names what differs.

use std::fmt;
use std::path::{Path, PathBuf};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::inputs::{fnv1a, input_layout_hash, Phase, NUM_INPUTS, PREDECESSOR_LAYOUTS};
use crate::net::{Mid16, Network, Rows16, MAX_HIDDEN, MAX_SECOND, NUM_OUTPUTS, OUT_PAD};

/// The magic bytes at the start of a weights file.
pub const MAGIC: [u8; 8] = *b"TAVLA-NN";
/// The newest version of the file format, which this code reads (with versions 1 and 2) and
/// writes for weights with a second hidden layer (version 2 otherwise).
pub const FORMAT_VERSION: u32 = 3;
/// The bytes before the hidden-unit counts (one per network).
const PREFIX_LEN: usize = 8 + 4 + 8 + 4 + 8;

/// The default weights, trained by tavla's own self-play and embedded in the binary.
pub static DEFAULT_WEIGHTS: &[u8] = include_bytes!("../weights/default.tnn");

/// The default pruning networks (small ones that pick the candidates of the search's inner
/// move choices, see [`crate::search::Prune`]), fitted to the default weights' own 0-ply values
/// and embedded in the binary.
pub static DEFAULT_PRUNE: &[u8] = include_bytes!("../weights/prune.tnn");

/// Why weights could not be read.
#[derive(Debug)]
pub enum WeightsError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The data is shorter than its header says.
    Truncated {
        /// Bytes expected.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// The data does not start with [`MAGIC`].
    Magic {
        /// The first bytes found.
        found: [u8; 8],
    },
    /// Another format version.
    Version {
        /// Version in the file.
        found: u32,
    },
    /// The networks were trained for another input layout.
    InputLayout {
        /// Layout hash in the file.
        found: u64,
        /// Layout hash of this code.
        expected: u64,
    },
    /// Another number of inputs.
    Inputs {
        /// Inputs in the file.
        found: u32,
    },
    /// A hidden layer size out of range.
    Hidden {
        /// Hidden units in the file.
        found: u32,
    },
    /// A second hidden layer size out of range.
    Second {
        /// Second-layer units in the file.
        found: u32,
    },
    /// The checksum does not match the contents.
    Checksum {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum of the contents.
        computed: u64,
    },
    /// Bytes after the checksum.
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// A weight that is not a finite number (NaN or an infinity: a fit that diverged).
    NotFinite,
    /// A file larger than any weights file ([`MAX_FILE_BYTES`]).
    TooLarge {
        /// The bytes read before giving up.
        read: usize,
    },
    /// A file that could be read but does not hold usable weights: what is wrong with it.
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong (never [`WeightsError::Io`] or another `File`).
        problem: Box<WeightsError>,
    },
}

/// The largest weights file read: far above any network this build can hold (three networks
/// of [`MAX_HIDDEN`] units and a second layer), so that a wrong path (a device, a huge file)
/// is refused rather than read into memory whole.
pub const MAX_FILE_BYTES: usize = 256 << 20;

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Io { path, .. } => write!(f, "cannot access weights file {}", path.display()),
            WeightsError::Truncated { expected, found } => {
                write!(f, "weights data truncated: expected {expected} bytes, found {found}")
            }
            WeightsError::Magic { found } => write!(
                f,
                "not a tavla weights file: magic {:?} instead of {:?}",
                String::from_utf8_lossy(found),
                String::from_utf8_lossy(&MAGIC)
            ),
            WeightsError::Version { found } => write!(
                f,
                "weights file format version {found}, this build reads versions 1..={FORMAT_VERSION}"
            ),
            WeightsError::InputLayout { found, expected } => write!(
                f,
                "weights were trained for input layout {found:#018x}, this build encodes layout {expected:#018x}"
            ),
            WeightsError::Inputs { found } => {
                write!(f, "weights have {found} inputs, this build encodes {NUM_INPUTS}")
            }
            WeightsError::Hidden { found } => {
                write!(f, "weights have {found} hidden units, supported are 1..={MAX_HIDDEN}")
            }
            WeightsError::Second { found } => write!(
                f,
                "weights have {found} second-layer units, supported are 0..={MAX_SECOND}"
            ),
            WeightsError::Checksum { stored, computed } => write!(
                f,
                "weights checksum mismatch: stored {stored:#018x}, contents hash to {computed:#018x}"
            ),
            WeightsError::TrailingBytes { count } => {
                write!(f, "{count} unexpected bytes after the weights checksum")
            }
            WeightsError::NotFinite => f.write_str(
                "weights that are not all finite numbers (NaN or infinity: the fit that made \
                 them diverged; fit again with a lower --alpha)",
            ),
            WeightsError::TooLarge { read } => write!(
                f,
                "more than {read} bytes, larger than any weights file: not a tavla weights file"
            ),
            WeightsError::File { path, problem } => {
                write!(f, "weights file {}: {problem}", path.display())
            }
        }
    }
}

impl std::error::Error for WeightsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WeightsError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The networks of the engine, one per [`Phase`]: contact, crashed and race.
///
/// Weights read from a file or embedded ([`Weights::from_bytes`]) are for play: their
/// evaluations read the input layers and the second hidden layers in 16 bits (faster; outputs
/// within 5 * 10^-4 of the `f32` networks'). Any change to a network ([`Weights::network_mut`],
/// [`Weights::blend_towards`]) drops the 16-bit copies, so that training and the weights it
/// produces evaluate with the `f32` networks themselves, exactly as before; [`Weights::exact`]
/// drops them on request and [`Weights::for_play`] builds them.
#[derive(Debug, Clone)]
pub struct Weights {
    /// The networks in the order of [`Phase::ALL`]; see [`Weights::network`].
    networks: [Network; 3],
    /// Self-play games these weights were trained on (information only).
    pub games: u64,
    /// The 16-bit copies of `networks`' layers, when the weights are for play.
    play: Option<Box<ForPlay>>,
}

/// The 16-bit layers of the networks of [`Weights`] for play, in the order of [`Phase::ALL`].
#[derive(Debug, Clone)]
struct ForPlay {
    /// The input layers.
    rows: [Rows16; 3],
    /// The second hidden layers (`None`: the network has one hidden layer).
    mid: [Option<Mid16>; 3],
}

/// Equal networks and games: the 16-bit rows follow from the networks.
impl PartialEq for Weights {
    fn eq(&self, other: &Weights) -> bool {
        self.networks == other.networks && self.games == other.games
    }
}

impl Weights {
    /// Randomly initialised networks from `seed` (the start of TD training); the crashed
    /// network has as many hidden units as the contact network.
    ///
    /// # Panics
    /// When a network's hidden units are 0 or above [`crate::MAX_HIDDEN`], or a second layer's
    /// above [`crate::MAX_SECOND`].
    #[must_use]
    pub fn random(contact_hidden: usize, race_hidden: usize, seed: u64) -> Weights {
        Weights::random_sized([contact_hidden, contact_hidden, race_hidden], seed)
    }

    /// Randomly initialised networks of `hidden` units each, in the order of [`Phase::ALL`]
    /// (contact, crashed, race). The contact and race networks are drawn first, so they are
    /// those of the two-network weights of earlier versions from the same seed.
    ///
    /// # Panics
    /// When a network's hidden units are 0 or above [`crate::MAX_HIDDEN`], or a second layer's
    /// above [`crate::MAX_SECOND`].
    #[must_use]
    pub fn random_sized(hidden: [usize; 3], seed: u64) -> Weights {
        Weights::random_deep(hidden.map(|h| (h, 0)), seed)
    }

    /// Randomly initialised networks of `(hidden, second)` units each (second 0: one hidden
    /// layer), in the order of [`Phase::ALL`], drawn as by [`Weights::random_sized`].
    ///
    /// # Panics
    /// When a network's hidden units are 0 or above [`crate::MAX_HIDDEN`], or a second layer's
    /// above [`crate::MAX_SECOND`].
    #[must_use]
    pub fn random_deep(layers: [(usize, usize); 3], seed: u64) -> Weights {
        let [contact, crashed, race] = layers;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let contact = Network::random_deep(NUM_INPUTS, contact.0, contact.1, &mut rng);
        let race = Network::random_deep(NUM_INPUTS, race.0, race.1, &mut rng);
        let crashed = Network::random_deep(NUM_INPUTS, crashed.0, crashed.1, &mut rng);
        Weights {
            networks: [contact, crashed, race],
            games: 0,
            play: None,
        }
    }

    /// The embedded default weights.
    ///
    /// # Panics
    /// Never in a released build: the embedded file is checked by the crate's tests.
    #[must_use]
    pub fn default_weights() -> Weights {
        Weights::from_bytes(DEFAULT_WEIGHTS).expect("the embedded default weights are valid")
    }

    /// The embedded default weights, parsed once per process and shared.
    #[must_use]
    pub fn shared_default() -> std::sync::Arc<Weights> {
        static DEFAULT: std::sync::OnceLock<std::sync::Arc<Weights>> = std::sync::OnceLock::new();
        DEFAULT
            .get_or_init(|| std::sync::Arc::new(Weights::default_weights()))
            .clone()
    }

    /// The embedded default pruning networks (`DEFAULT_PRUNE`), parsed once per process and
    /// shared.
    #[must_use]
    pub fn shared_default_prune() -> std::sync::Arc<Weights> {
        static PRUNE: std::sync::OnceLock<std::sync::Arc<Weights>> = std::sync::OnceLock::new();
        PRUNE
            .get_or_init(|| {
                std::sync::Arc::new(
                    Weights::from_bytes(DEFAULT_PRUNE)
                        .expect("the embedded pruning networks are valid"),
                )
            })
            .clone()
    }

    /// The network for `phase`.
    #[must_use]
    pub fn network(&self, phase: Phase) -> &Network {
        &self.networks[phase as usize]
    }

    /// The networks in the order of [`Phase::ALL`] (contact, crashed, race).
    #[must_use]
    pub fn networks(&self) -> &[Network; 3] {
        &self.networks
    }

    /// The network for `phase`, mutably. The weights are no longer for play (see [`Weights`]).
    pub fn network_mut(&mut self, phase: Phase) -> &mut Network {
        self.play = None;
        &mut self.networks[phase as usize]
    }

    /// These weights for play: their evaluations read the input layers in 16 bits (see
    /// [`Weights`]).
    #[must_use]
    pub fn for_play(mut self) -> Weights {
        self.play = Some(Box::new(ForPlay {
            rows: self.networks.each_ref().map(Rows16::new),
            mid: self.networks.each_ref().map(Mid16::new),
        }));
        self
    }

    /// These weights evaluating with the `f32` networks themselves, as training does (see
    /// [`Weights`]).
    #[must_use]
    pub fn exact(mut self) -> Weights {
        self.play = None;
        self
    }

    /// Whether evaluations read the 16-bit input layers ([`Weights::for_play`]).
    #[must_use]
    pub fn is_for_play(&self) -> bool {
        self.play.is_some()
    }

    /// The 16-bit input layer of the network for `phase`, when the weights are for play.
    pub(crate) fn rows16(&self, phase: Phase) -> Option<&Rows16> {
        self.play.as_ref().map(|p| &p.rows[phase as usize])
    }

    /// The 16-bit second hidden layer of the network for `phase`, when the weights are for play
    /// and the network has two hidden layers.
    pub(crate) fn mid16(&self, phase: Phase) -> Option<&Mid16> {
        self.play
            .as_ref()
            .and_then(|p| p.mid[phase as usize].as_ref())
    }

    /// Moves every network a fraction `beta` of the way towards `other`'s
    /// ([`Network::blend_towards`]).
    ///
    /// # Panics
    /// When the networks differ in shape (a programming error).
    #[track_caller]
    pub fn blend_towards(&mut self, other: &Weights, beta: f32) {
        self.play = None;
        for (a, b) in self.networks.iter_mut().zip(&other.networks) {
            a.blend_towards(b, beta);
        }
    }

    /// Reads weights from a file.
    ///
    /// # Errors
    /// [`WeightsError::Io`] when the file cannot be read; [`WeightsError::File`] naming the
    /// file, with [`Weights::from_bytes`]'s error or [`WeightsError::TooLarge`], when it does
    /// not hold usable weights.
    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        use std::io::Read;
        let io = |source| WeightsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        let problem = if bytes.len() > MAX_FILE_BYTES {
            WeightsError::TooLarge {
                read: MAX_FILE_BYTES,
            }
        } else {
            match Weights::from_bytes(&bytes) {
                Ok(w) => return Ok(w),
                Err(e) => e,
            }
        };
        Err(WeightsError::File {
            path: path.to_path_buf(),
            problem: Box::new(problem),
        })
    }

    /// The weights in `path`, or the embedded default when no file is given.
    ///
    /// # Errors
    /// As [`Weights::load`].
    pub fn load_or_default(path: Option<&Path>) -> Result<Weights, WeightsError> {
        match path {
            Some(path) => Weights::load(path),
            None => Ok(Weights::default_weights()),
        }
    }

    /// Writes weights to a file (through a temporary file and a rename, so a crash never leaves
    /// a half-written file).
    ///
    /// # Errors
    /// [`WeightsError::Io`] when the file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        if !self.networks.iter().all(Network::is_finite) {
            return Err(WeightsError::File {
                path: path.to_path_buf(),
                problem: Box::new(WeightsError::NotFinite),
            });
        }
        let io = |source| WeightsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let tmp = path.with_extension("tnn.tmp");
        std::fs::write(&tmp, self.to_bytes()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// The file contents.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let deep = self.networks.iter().any(|net| net.second() > 0);
        let version: u32 = if deep { FORMAT_VERSION } else { 2 };
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&input_layout_hash().to_le_bytes());
        out.extend_from_slice(&(NUM_INPUTS as u32).to_le_bytes());
        out.extend_from_slice(&self.games.to_le_bytes());
        for net in &self.networks {
            out.extend_from_slice(&(net.hidden() as u32).to_le_bytes());
        }
        if deep {
            for net in &self.networks {
                out.extend_from_slice(&(net.second() as u32).to_le_bytes());
            }
        }
        for net in &self.networks {
            let push = |out: &mut Vec<u8>, v: f32| out.extend_from_slice(&v.to_le_bytes());
            for &w in net.w1.iter().chain(&net.b1).chain(&net.wm).chain(&net.bm) {
                push(&mut out, w);
            }
            let last = if net.second() == 0 {
                net.hidden()
            } else {
                net.second()
            };
            for j in 0..last {
                for k in 0..NUM_OUTPUTS {
                    push(&mut out, net.w2[j * OUT_PAD + k]);
                }
            }
            for &w in &net.b2[..NUM_OUTPUTS] {
                push(&mut out, w);
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Parses the file contents.
    ///
    /// # Errors
    /// A [`WeightsError`] naming the first thing that does not match this build.
    pub fn from_bytes(bytes: &[u8]) -> Result<Weights, WeightsError> {
        let need = |expected: usize| {
            if bytes.len() < expected {
                Err(WeightsError::Truncated {
                    expected,
                    found: bytes.len(),
                })
            } else {
                Ok(())
            }
        };
        need(8)?;
        let magic: [u8; 8] = bytes[..8].try_into().expect("8 bytes");
        if magic != MAGIC {
            return Err(WeightsError::Magic { found: magic });
        }
        need(PREFIX_LEN)?;
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        // Version 1: contact and race only; version 3: second-layer sizes.
        let stored_nets = match version {
            1 => 2,
            2 | 3 => 3,
            _ => return Err(WeightsError::Version { found: version }),
        };
        let deep = version == 3;
        let header_len = PREFIX_LEN + 4 * stored_nets * if deep { 2 } else { 1 };
        need(header_len)?;
        // Step 1. The layout: this build's, or an earlier one that is a prefix of it (its
        // networks get zero weights for the inputs added since).
        let layout = u64_at(12);
        let file_inputs = if layout == input_layout_hash() {
            NUM_INPUTS
        } else {
            PREDECESSOR_LAYOUTS
                .iter()
                .find(|&&(hash, _)| hash == layout)
                .map(|&(_, n)| n)
                .ok_or(WeightsError::InputLayout {
                    found: layout,
                    expected: input_layout_hash(),
                })?
        };
        let inputs = u32_at(20);
        if inputs as usize != file_inputs {
            return Err(WeightsError::Inputs { found: inputs });
        }
        let file_inputs = inputs as usize;
        let games = u64_at(24);
        let hidden: Vec<u32> = (0..stored_nets)
            .map(|i| u32_at(PREFIX_LEN + 4 * i))
            .collect();
        for &h in &hidden {
            if h == 0 || h as usize > MAX_HIDDEN {
                return Err(WeightsError::Hidden { found: h });
            }
        }
        let second: Vec<u32> = (0..stored_nets)
            .map(|i| {
                if deep {
                    u32_at(PREFIX_LEN + 4 * (stored_nets + i))
                } else {
                    0
                }
            })
            .collect();
        for &m in &second {
            if m as usize > MAX_SECOND {
                return Err(WeightsError::Second { found: m });
            }
        }
        let floats: usize = hidden
            .iter()
            .zip(&second)
            .map(|(&h, &m)| {
                let (h, m) = (h as usize, m as usize);
                let last = if m == 0 { h } else { m };
                file_inputs * h + h + h * m + m + last * NUM_OUTPUTS + NUM_OUTPUTS
            })
            .sum();
        let body_end = header_len + 4 * floats;
        need(body_end + 8)?;
        let stored = u64_at(body_end);
        let computed = fnv1a(&bytes[..body_end]);
        if stored != computed {
            return Err(WeightsError::Checksum { stored, computed });
        }
        if bytes.len() > body_end + 8 {
            return Err(WeightsError::TrailingBytes {
                count: bytes.len() - body_end - 8,
            });
        }
        let mut at = header_len;
        let mut next = || {
            let v = f32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
            at += 4;
            v
        };
        let mut nets = hidden.iter().zip(&second).map(|(&h, &m)| {
            let (h, m) = (h as usize, m as usize);
            let mut net = Network::zeros_deep(NUM_INPUTS, h, m);
            // Input-major: the rows of the file's inputs come first.
            for w in &mut net.w1[..file_inputs * h] {
                *w = next();
            }
            for w in net.b1.iter_mut().chain(&mut net.wm).chain(&mut net.bm) {
                *w = next();
            }
            for j in 0..if m == 0 { h } else { m } {
                for k in 0..NUM_OUTPUTS {
                    net.w2[j * OUT_PAD + k] = next();
                }
            }
            for w in &mut net.b2[..NUM_OUTPUTS] {
                *w = next();
            }
            net
        });
        let contact = nets.next().expect("a contact network");
        let (crashed, race) = if stored_nets == 2 {
            (contact.clone(), nets.next().expect("a race network"))
        } else {
            let crashed = nets.next().expect("a crashed network");
            (crashed, nets.next().expect("a race network"))
        };
        if ![&contact, &crashed, &race].iter().all(|n| n.is_finite()) {
            return Err(WeightsError::NotFinite);
        }
        Ok(Weights {
            networks: [contact, crashed, race],
            games,
            play: None,
        }
        .for_play())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Review (fifty-eighth round): a fit that diverged wrote NaN weights, which loaded and
    /// then made every command that used them panic.
    #[test]
    fn weights_that_are_not_finite_are_neither_written_nor_read() {
        let mut w = Weights::random(16, 8, 3);
        let good = w.to_bytes();
        w.network_mut(Phase::Race).b2[0] = f32::NAN;
        let dir = std::env::temp_dir().join(format!("tavla-nan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("nan.tnn");
        let e = w.save(&path).unwrap_err();
        assert!(e.to_string().contains("not all finite numbers"), "{e}");
        assert!(!path.exists());
        // The same bytes with the NaN and a checksum that fits them.
        let mut bytes = w.to_bytes();
        assert_ne!(bytes, good);
        let body = bytes.len() - 8;
        let sum = fnv1a(&bytes[..body]).to_le_bytes();
        bytes[body..].copy_from_slice(&sum);
        assert!(matches!(
            Weights::from_bytes(&bytes),
            Err(WeightsError::NotFinite)
        ));
        // A NaN output is made consistent without a panic.
        let p = crate::Probabilities::from_array([f32::NAN; 5]).consistent();
        assert_eq!(p.to_array(), [0.0; 5]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn weights_read_are_for_play_until_changed() {
        let w = Weights::random(16, 8, 3);
        assert!(!w.is_for_play(), "weights made in memory evaluate in f32");
        let read = Weights::from_bytes(&w.to_bytes()).unwrap();
        assert!(read.is_for_play());
        assert_eq!(read, w, "the 16-bit rows are not part of the weights");
        assert!(!read.clone().exact().is_for_play());
        assert!(read.clone().exact().for_play().is_for_play());
        let mut changed = read.clone();
        let _ = changed.network_mut(Phase::Race);
        assert!(!changed.is_for_play());
        let mut blended = read.clone();
        blended.blend_towards(&w, 0.5);
        assert!(!blended.is_for_play());
        // The rows are those of the networks read.
        for phase in Phase::ALL {
            let rows = read.rows16(phase).unwrap();
            assert_eq!(rows, &Rows16::new(read.network(phase)));
            assert_eq!(read.mid16(phase), Mid16::new(read.network(phase)).as_ref());
        }
    }

    #[test]
    fn round_trip() {
        let mut w = Weights::random(16, 8, 3);
        w.games = 12345;
        let bytes = w.to_bytes();
        // One-layer networks are written in version 2, which earlier builds read.
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
        assert_eq!(Weights::from_bytes(&bytes).unwrap(), w);
    }

    #[test]
    fn two_layer_round_trip() {
        let mut w = Weights::random_deep([(16, 4), (12, 0), (8, 3)], 7);
        w.games = 99;
        let bytes = w.to_bytes();
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 3);
        let back = Weights::from_bytes(&bytes).unwrap();
        assert_eq!(back, w);
        assert_eq!(back.network(Phase::Contact).second(), 4);
        assert_eq!(back.network(Phase::Crashed).second(), 0);
        // A second layer larger than supported is refused by name.
        let mut bad = bytes.clone();
        bad[PREFIX_LEN + 12..PREFIX_LEN + 16]
            .copy_from_slice(&(MAX_SECOND as u32 + 1).to_le_bytes());
        let err = Weights::from_bytes(&bad).unwrap_err();
        assert!(matches!(err, WeightsError::Second { .. }), "{err}");
        assert!(err.to_string().contains("second-layer units"), "{err}");
    }

    /// The contact and race networks of `w` in a version 1 file of the v1 input layout (their
    /// first 211 inputs), as the first trained networks were written.
    fn v1_bytes(w: &Weights) -> Vec<u8> {
        let (v1_hash, v1_inputs) = PREDECESSOR_LAYOUTS[0];
        let two = [w.network(Phase::Contact), w.network(Phase::Race)];
        let mut out = w.to_bytes()[..PREFIX_LEN].to_vec();
        out[8..12].copy_from_slice(&1u32.to_le_bytes());
        out[12..20].copy_from_slice(&v1_hash.to_le_bytes());
        out[20..24].copy_from_slice(&(v1_inputs as u32).to_le_bytes());
        for net in two {
            out.extend_from_slice(&(net.hidden() as u32).to_le_bytes());
        }
        for net in two {
            let h = net.hidden();
            let floats = net.w1[..v1_inputs * h]
                .iter()
                .chain(&net.b1)
                .copied()
                .chain((0..h).flat_map(|j| (0..NUM_OUTPUTS).map(move |k| net.w2[j * OUT_PAD + k])))
                .chain(net.b2[..NUM_OUTPUTS].iter().copied());
            for v in floats {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    #[test]
    fn earlier_layout_and_version_load_with_zero_rows_and_a_crashed_copy() {
        let w = Weights::random(16, 8, 4);
        let back = Weights::from_bytes(&v1_bytes(&w)).unwrap();
        let (_, v1_inputs) = PREDECESSOR_LAYOUTS[0];
        // Version 1 had no crashed network: it is the contact network's copy.
        assert_eq!(back.network(Phase::Crashed), back.network(Phase::Contact));
        for phase in [Phase::Contact, Phase::Race] {
            let (a, b) = (back.network(phase), w.network(phase));
            let h = a.hidden();
            assert_eq!(a.w1[..v1_inputs * h], b.w1[..v1_inputs * h]);
            assert!(a.w1[v1_inputs * h..].iter().all(|&x| x == 0.0));
            assert_eq!((&a.b1, &a.w2, a.b2), (&b.b1, &b.w2, b.b2));
        }
        // A v1 file with another input count is refused.
        let mut bad = v1_bytes(&w);
        bad[20] ^= 1;
        assert!(matches!(
            Weights::from_bytes(&bad),
            Err(WeightsError::Inputs { .. })
        ));
    }

    #[test]
    fn embedded_default_loads() {
        let w = Weights::default_weights();
        assert!(w.networks.iter().all(|net| net.hidden() > 0));
        // The pruning networks are much smaller than the networks they stand in for.
        let p = Weights::shared_default_prune();
        for phase in Phase::ALL {
            assert!(p.network(phase).hidden() * 4 <= w.network(phase).hidden());
        }
    }

    #[test]
    fn mismatches_are_refused_with_the_reason() {
        let good = Weights::random(4, 4, 1).to_bytes();
        let mut bad = good.clone();
        bad[0] = b'X';
        assert!(matches!(
            Weights::from_bytes(&bad),
            Err(WeightsError::Magic { .. })
        ));
        let mut bad = good.clone();
        bad[8] = 9;
        let err = Weights::from_bytes(&bad).unwrap_err();
        assert!(err.to_string().contains("version 9"), "{err}");
        let mut bad = good.clone();
        bad[12] ^= 1;
        let err = Weights::from_bytes(&bad).unwrap_err();
        assert!(matches!(err, WeightsError::InputLayout { .. }));
        assert!(err.to_string().contains("input layout"), "{err}");
        let mut bad = good.clone();
        bad[PREFIX_LEN + 12 + 10] ^= 0x40;
        assert!(matches!(
            Weights::from_bytes(&bad),
            Err(WeightsError::Checksum { .. })
        ));
        assert!(matches!(
            Weights::from_bytes(&good[..good.len() - 3]),
            Err(WeightsError::Truncated { .. })
        ));
        let mut long = good.clone();
        long.push(0);
        assert!(matches!(
            Weights::from_bytes(&long),
            Err(WeightsError::TrailingBytes { count: 1 })
        ));
        let err = Weights::load(Path::new("/nonexistent/w.tnn")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/w.tnn"));
    }
}
