//! One network: inputs, one hidden layer of softsign units (optionally a second, smaller one),
//! five sigmoid outputs.
//!
//! Weights are `f32` in contiguous arrays laid out for the forward pass: the input layer is
//! input-major (`w1[i * hidden + j]`), so that each non-zero input adds one contiguous row to the
//! hidden sums (an `axpy` the compiler vectorises; about a quarter of the inputs are non-zero);
//! the output layer is hidden-major with the five outputs padded to [`OUT_PAD`] lanes
//! (`w2[j * OUT_PAD + k]`), again an `axpy` per hidden unit. A second hidden layer, when there
//! is one, is hidden-major too (`wm[j * second + m]`: each first-layer activation adds one row).
//! Nothing is allocated per call: the activations live in stack buffers of [`MAX_HIDDEN`] and
//! [`MAX_SECOND`].
//!
//! The hidden activation is softsign, `x / (1 + |x|)`, rather than the logistic function: it is
//! smooth, bounded and branch-free, so the loop over hidden units vectorises (a call to `exp`
//! does not).

// Index loops over fixed-size lane arrays are what the compiler turns into vector code.
#![allow(clippy::needless_range_loop)]

use rand::Rng;
use wide::{f32x8, i16x16, i32x8};

/// Number of outputs (see [`crate::Probabilities::to_array`] for their order).
pub const NUM_OUTPUTS: usize = 5;
/// Output lanes per unit of the last hidden layer in the output layer (outputs padded for
/// vectorisation).
pub const OUT_PAD: usize = 8;
/// Largest supported hidden layer.
pub const MAX_HIDDEN: usize = 1024;
/// Second-layer units summed together in one group of registers, for each evaluation of a
/// batch: one 512-bit register with AVX-512, one 256-bit one otherwise (four groups for each of
/// up to four evaluations fill the sixteen 256-bit registers AVX2 has, where sixteen lanes
/// made twice as many and the compiler kept half of them on the stack).
const LANES: usize = if cfg!(target_feature = "avx512f") {
    16
} else {
    8
};
/// Groups of [`LANES`] second-layer units summed together for each of up to four evaluations:
/// sixteen registers of sums with AVX-512 (of its 32), eight otherwise (of 16).
const GROUPS: usize = if cfg!(target_feature = "avx512f") {
    4
} else {
    2
};
/// Evaluations whose second layer is summed together ([`Network::outputs_batch`]): each span
/// of its weights is read from memory once for all of them.
pub(crate) const BATCH: usize = 16;
/// Evaluations of a batch whose second-layer sums (`f32`, or [`Mid16`]'s integers) are held in
/// registers together.
const TILE: usize = 4;
/// First-layer units whose second-layer rows (256 bytes each for 64 units) are read once for
/// a whole batch: 8 KiB, which stay in the L1 cache while each tile of the batch adds them.
const SPAN: usize = 32;
/// Largest supported second hidden layer.
pub const MAX_SECOND: usize = 256;
/// Largest supported input layer.
pub const MAX_INPUTS: usize = 256;
/// Hidden units summed together in registers (any hidden size works; multiples of this or of
/// a quarter of it are fastest): eight registers of sums, 512-bit with AVX-512 and 256-bit
/// otherwise (sixteen 256-bit ones, all AVX2 has, left none for the weights and the compiler
/// kept two of them on the stack).
const CHUNK: usize = if cfg!(target_feature = "avx512f") {
    128
} else {
    64
};

/// A network of one hidden layer, or of two when [`Network::second`] is not 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    inputs: usize,
    hidden: usize,
    /// Units of the second hidden layer (0: none; the outputs read the first).
    second: usize,
    /// `inputs * hidden`, input-major.
    pub(crate) w1: Vec<f32>,
    /// `hidden`.
    pub(crate) b1: Vec<f32>,
    /// `hidden * second`, hidden-major (empty without a second layer).
    pub(crate) wm: Vec<f32>,
    /// `second`.
    pub(crate) bm: Vec<f32>,
    /// `last * OUT_PAD`, hidden-major, where `last` is the size of the last hidden layer;
    /// lanes `NUM_OUTPUTS..OUT_PAD` stay zero.
    pub(crate) w2: Vec<f32>,
    /// `OUT_PAD`; lanes `NUM_OUTPUTS..` stay zero.
    pub(crate) b2: [f32; OUT_PAD],
}

impl Network {
    /// Whether every weight and bias is a finite number (a fit that diverged leaves NaN or
    /// infinities).
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.w1
            .iter()
            .chain(&self.b1)
            .chain(&self.wm)
            .chain(&self.bm)
            .chain(&self.w2)
            .chain(&self.b2)
            .all(|w| w.is_finite())
    }
}

#[inline]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// `acc[p][g] += a[p] * r[g]` for the [`GROUPS`] groups `g` of each listed `p`
/// ([`groups_add`]), written out.
macro_rules! lanes_add_groups {
    ($acc:ident, $a:ident, $r:ident; $($p:literal)+) => {{
        $(
            groups_add(&mut $acc[$p], $a[$p], &$r);
        )+
    }};
}

/// `acc[g] += a * r[g]` ([`lanes_add`]) for each of the [`GROUPS`] groups `g`, written out: as
/// a loop the compiler kept four groups of sixteen lanes in memory and ran eight times slower.
#[inline(always)]
fn groups_add(acc: &mut [[f32; LANES]; GROUPS], a: f32, r: &[&[f32; LANES]; GROUPS]) {
    lanes_add(&mut acc[0], a, r[0]);
    lanes_add(&mut acc[1], a, r[1]);
    #[cfg(target_feature = "avx512f")]
    {
        lanes_add(&mut acc[2], a, r[2]);
        lanes_add(&mut acc[3], a, r[3]);
    }
}

/// The activations of `P` vectors (of equal length) unit by unit: `[h[0][j], .., h[P-1][j]]`
/// for each first-layer unit `j`.
#[inline(always)]
fn by_unit<'a, const P: usize>(h: &'a [&'a [f32]; P]) -> impl Iterator<Item = [f32; P]> + 'a {
    let n = h.first().map_or(0, |v| v.len());
    let h = h.map(|v| &v[..n]);
    (0..n).map(move |j| std::array::from_fn(|p| h[p][j]))
}

/// The [`GROUPS`] groups of [`LANES`] of `block` (`GROUPS * LANES` long).
#[inline(always)]
fn groups(block: &[f32]) -> [&[f32; LANES]; GROUPS] {
    let block: &[f32; GROUPS * LANES] = block.try_into().expect("GROUPS groups");
    std::array::from_fn(|g| {
        block[g * LANES..(g + 1) * LANES]
            .try_into()
            .expect("LANES wide")
    })
}

/// `acc += a * row`, lane by lane.
#[inline(always)]
fn lanes_add(acc: &mut [f32; LANES], a: f32, row: &[f32; LANES]) {
    for k in 0..LANES {
        acc[k] += a * row[k];
    }
}

/// The softsign activation `x / (1 + |x|)` of each of `v`, in place.
#[inline]
fn softsign(v: &mut [f32]) {
    for a in v {
        *a /= 1.0 + a.abs();
    }
}

/// The input layer's rows as the forward pass reads them: `f32` ([`Rows32`], the weights
/// themselves) or 16-bit ([`Rows16`]).
trait InputRows {
    /// `acc[k] += xi * w[i][from + k]` for each `k` of `acc`, where `w[i]` is row `i`.
    fn add(&self, acc: &mut [f32], i: usize, xi: f32, from: usize);

    /// As [`InputRows::add`] for a block of `B` units, whose sums the compiler keeps in
    /// registers.
    fn add_block<const B: usize>(&self, acc: &mut [f32; B], i: usize, xi: f32, from: usize);
}

/// A network's own `f32` input layer (`hidden` units a row).
struct Rows32<'a> {
    w1: &'a [f32],
    hidden: usize,
}

impl InputRows for Rows32<'_> {
    #[inline(always)]
    fn add(&self, acc: &mut [f32], i: usize, xi: f32, from: usize) {
        let start = i * self.hidden + from;
        let row = &self.w1[start..start + acc.len()];
        for (a, &w) in acc.iter_mut().zip(row) {
            *a += xi * w;
        }
    }

    #[inline(always)]
    fn add_block<const B: usize>(&self, acc: &mut [f32; B], i: usize, xi: f32, from: usize) {
        let start = i * self.hidden + from;
        let row: &[f32; B] = self.w1[start..start + B].try_into().expect("B wide");
        for k in 0..B {
            acc[k] += xi * row[k];
        }
    }
}

/// A network's input layer in 16 bits, for play: row `i` is `scale[i]` times the integers
/// `q[i * hidden..(i + 1) * hidden]`, its scale the row's largest magnitude over 32,767, so
/// that each weight is within a 65,534th of that largest weight of the `f32` one.
///
/// A search reads the input layer a row per changed input, from the L2 cache at best (the
/// contact and crashed networks' `f32` rows are 900 KiB each, beside a 1 MiB cache); half the
/// bytes made a 1-ply and a 2-ply search about 8% faster, though each weight now costs a
/// conversion. The sums are still `f32`, added term by term in the same order, so incremental
/// and fresh sums agree to rounding as before; the outputs differ from the `f32` network's by
/// less than 3 * 10^-4 (tested on the default weights). Training never reads these rows
/// ([`crate::Weights`] drops them when a network is changed).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rows16 {
    hidden: usize,
    q: Vec<i16>,
    scale: Vec<f32>,
}

impl Rows16 {
    /// The 16-bit rows of `net`'s input layer.
    #[must_use]
    pub(crate) fn new(net: &Network) -> Rows16 {
        let nh = net.hidden;
        let mut q = Vec::with_capacity(net.w1.len());
        let mut scale = Vec::with_capacity(net.inputs);
        for row in net.w1.chunks_exact(nh) {
            let largest = row.iter().fold(0.0f32, |m, w| m.max(w.abs()));
            let s = if largest > 0.0 {
                largest / f32::from(i16::MAX)
            } else {
                1.0
            };
            scale.push(s);
            // |w / s| <= 32,767 (to rounding, which `as` saturates).
            q.extend(row.iter().map(|w| (w / s).round() as i16));
        }
        Rows16 {
            hidden: nh,
            q,
            scale,
        }
    }

    /// Weight `j` of row `i`, as the forward pass reads it.
    #[cfg(test)]
    fn weight(&self, i: usize, j: usize) -> f32 {
        self.scale[i] * f32::from(self.q[i * self.hidden + j])
    }
}

impl InputRows for Rows16 {
    #[inline(always)]
    fn add(&self, acc: &mut [f32], i: usize, xi: f32, from: usize) {
        let start = i * self.hidden + from;
        let a = xi * self.scale[i];
        let row = &self.q[start..start + acc.len()];
        for (s, &w) in acc.iter_mut().zip(row) {
            *s += a * f32::from(w);
        }
    }

    #[inline(always)]
    fn add_block<const B: usize>(&self, acc: &mut [f32; B], i: usize, xi: f32, from: usize) {
        let start = i * self.hidden + from;
        let row: &[i16; B] = self.q[start..start + B].try_into().expect("B wide");
        let a = xi * self.scale[i];
        for k in 0..B {
            acc[k] += a * f32::from(row[k]);
        }
    }
}

/// Fractional bits of the second layer's 16-bit activations ([`Mid16`]): softsign's (-1, 1)
/// as integers of magnitude at most 4,096.
const ACT_SCALE: f32 = 4096.0;
/// Magnitude of a [`Mid16`] weight at its unit's largest weight.
const WEIGHT_STEPS: f32 = 8191.0;
/// Pairs of first-layer units whose products a [`Mid16`] sums as integers before adding them
/// to a unit's `f32` sum: at most 16 * 2 * 4,096 * 8,191 < 2^31, so no integer sum overflows.
const PAIRS: usize = 16;

/// A network's second hidden layer in 16 bits, for play: each weight an integer of magnitude
/// at most 8,191 times its unit's step (the unit's largest weight over 8,191), each activation
/// an integer of magnitude at most 4,096 (4,096ths). The products are summed exactly, in 32-bit
/// integers, sixteen pairs of first-layer units at a time (`i16x16::dot`, one `vpmaddwd` with
/// AVX2 or two with SSE2), and each such integer sum is added to the unit's `f32` sum times its
/// step: half the operations of the `f32` layer, and integers that come out the same whatever
/// the instructions, so the sums are still the same to the bit on every target and for any
/// batch. Built by [`crate::Weights::for_play`] beside [`Rows16`]; training never reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mid16 {
    hidden: usize,
    second: usize,
    /// Groups of eight second-layer units, rounded up to an even number (two are summed
    /// together); the units past `second` have zero weights.
    groups: usize,
    /// For pair `jp` of first-layer units and group `g`: `q[jp * groups + g]`, whose lanes
    /// `2k` and `2k + 1` are the weights from units `2jp` and `2jp + 1` to unit `8g + k`.
    q: Vec<i16x16>,
    /// Per group: each unit's step over [`ACT_SCALE`] (0 past `second`).
    scale: Vec<f32x8>,
    /// Per group: the biases (0 past `second`).
    bias: Vec<f32x8>,
}

impl Mid16 {
    /// The 16-bit second layer of `net`, or `None` when it has one hidden layer.
    #[must_use]
    pub(crate) fn new(net: &Network) -> Option<Mid16> {
        let (nh, ns) = (net.hidden, net.second);
        if ns == 0 {
            return None;
        }
        let groups = ns.div_ceil(16) * 2;
        let step: Vec<f32> = (0..ns)
            .map(|m| {
                let largest = (0..nh).fold(0.0f32, |x, j| x.max(net.wm[j * ns + m].abs()));
                if largest > 0.0 {
                    largest / WEIGHT_STEPS
                } else {
                    1.0
                }
            })
            .collect();
        let lanes = |g: usize, f: &dyn Fn(usize) -> f32| {
            f32x8::new(std::array::from_fn(|k| {
                let m = 8 * g + k;
                if m < ns {
                    f(m)
                } else {
                    0.0
                }
            }))
        };
        let mut q = Vec::with_capacity(nh.div_ceil(2) * groups);
        for jp in 0..nh.div_ceil(2) {
            for g in 0..groups {
                q.push(i16x16::new(std::array::from_fn(|lane| {
                    let (j, m) = (2 * jp + lane % 2, 8 * g + lane / 2);
                    if j < nh && m < ns {
                        // |w / step| <= 8,191 (to rounding, which `as` saturates).
                        (net.wm[j * ns + m] / step[m]).round() as i16
                    } else {
                        0
                    }
                })));
            }
        }
        Some(Mid16 {
            hidden: nh,
            second: ns,
            groups,
            q,
            scale: (0..groups)
                .map(|g| lanes(g, &|m| step[m] / ACT_SCALE))
                .collect(),
            bias: (0..groups).map(|g| lanes(g, &|m| net.bm[m])).collect(),
        })
    }

    /// Weight `j -> m` as the forward pass reads it, in units of activation.
    #[cfg(test)]
    fn weight(&self, j: usize, m: usize) -> f32 {
        let (g, k) = (m / 8, m % 8);
        let lanes = self.q[j / 2 * self.groups + g].to_array();
        self.scale[g].to_array()[k] * ACT_SCALE * f32::from(lanes[2 * k + j % 2])
    }

    /// The second layer's activations of the first-layer activation vectors `h` (at most
    /// [`BATCH`], each of `hidden` units; overwritten) into `mid[..h.len()]`, as
    /// [`Network::second_layer`] computes them from the `f32` weights: a span of [`PAIRS`]
    /// pairs of rows (16 KiB for 64 units) at a time, added to every [`TILE`] of the vectors
    /// while it stays in the L1 cache.
    fn second_layer(&self, h: &mut [[f32; MAX_HIDDEN]], mid: &mut [[f32; MAX_SECOND]]) {
        let (nh, pairs) = (self.hidden, self.hidden.div_ceil(2));
        // Each vector's activations in 4,096ths, rounded to even (`round_int` is one
        // `vcvtps2dq`; a scalar loop of `as` casts cost as much as the layer's sums), as 16-bit
        // integers in unit order, written over the activations (each eight are read before
        // the four pairs they make are written, at or before their place); read two at a time
        // (units 2jp and 2jp + 1, lanes 2k and 2k + 1 of a broadcast pair) as the 32-bit
        // integers they make in memory.
        for v in h.iter_mut() {
            let v: &mut [u32] = bytemuck::cast_slice_mut(&mut v[..2 * pairs]);
            let level = |x: u32| (f32::from_bits(x) * ACT_SCALE).round_ties_even() as i16;
            for c in 0..nh / 8 {
                let a: [u32; 8] = v[8 * c..8 * c + 8].try_into().expect("eight");
                let q = (f32x8::new(a.map(f32::from_bits)) * f32x8::splat(ACT_SCALE))
                    .round_int()
                    .to_array();
                let q: [i16; 8] = q.map(|q| q as i16);
                let q: [u32; 4] = bytemuck::cast(q);
                v[4 * c..4 * c + 4].copy_from_slice(&q);
            }
            for jp in nh / 8 * 4..pairs {
                let b = if 2 * jp + 1 < nh {
                    level(v[2 * jp + 1])
                } else {
                    0
                };
                v[jp] = bytemuck::cast([level(v[2 * jp]), b]);
            }
        }
        let groups = self.groups;
        for m in mid.iter_mut() {
            for (g, b) in self.bias.iter().enumerate() {
                m[8 * g..8 * g + 8].copy_from_slice(&b.to_array());
            }
        }
        for jp0 in (0..pairs).step_by(PAIRS) {
            let span = jp0..(jp0 + PAIRS).min(pairs);
            for (h, mid) in h.chunks(TILE).zip(mid.chunks_mut(TILE)) {
                let a = |p: usize| -> &[u32] {
                    &bytemuck::cast_slice(&h[p][..2 * pairs])[span.clone()]
                };
                for g in (0..groups).step_by(2) {
                    match h.len() {
                        1 => self.span_block([a(0)], span.start, g, mid),
                        2 => self.span_block([a(0), a(1)], span.start, g, mid),
                        3 => self.span_block([a(0), a(1), a(2)], span.start, g, mid),
                        _ => self.span_block([a(0), a(1), a(2), a(3)], span.start, g, mid),
                    }
                }
            }
        }
        for m in mid.iter_mut() {
            softsign(&mut m[..self.second]);
        }
    }

    /// Adds the products of the pairs of activations `qa` (of pairs `from..`, for `P` of
    /// the vectors) and the weights to groups `g` and `g + 1` to the sums `mid[..P]`: `2 * P`
    /// registers of integer sums, written out for each `P` ([`lanes_add_groups`]'s reason).
    #[inline(always)]
    fn span_block<const P: usize>(
        &self,
        qa: [&[u32]; P],
        from: usize,
        g: usize,
        mid: &mut [[f32; MAX_SECOND]],
    ) {
        const {
            assert!(
                P >= 1 && P <= TILE,
                "the additions are written out for 1 to 4"
            )
        };
        let mut acc = [[i32x8::ZERO; 2]; P];
        let n = qa[0].len();
        let rows = self.q[from * self.groups..(from + n) * self.groups].chunks_exact(self.groups);
        for (k, row) in rows.enumerate() {
            let (w0, w1) = (row[g], row[g + 1]);
            let mut add = |p: usize| {
                let a: i16x16 = bytemuck::cast(i32x8::splat(qa[p][k] as i32));
                acc[p][0] += a.dot(w0);
                acc[p][1] += a.dot(w1);
            };
            match P {
                1 => add(0),
                2 => {
                    add(0);
                    add(1);
                }
                3 => {
                    add(0);
                    add(1);
                    add(2);
                }
                _ => {
                    add(0);
                    add(1);
                    add(2);
                    add(3);
                }
            }
        }
        let (s0, s1) = (self.scale[g], self.scale[g + 1]);
        for (m, a) in mid.iter_mut().zip(&acc) {
            for (h, (a, step)) in [(a[0], s0), (a[1], s1)].into_iter().enumerate() {
                let at = 8 * (g + h)..8 * (g + h + 1);
                let sum: [f32; 8] = m[at.clone()].try_into().expect("eight");
                m[at].copy_from_slice(&(f32x8::new(sum) + a.round_float() * step).to_array());
            }
        }
    }
}

/// [`Network::add_rows`] for units `from..from + h.len()` (a multiple of `B`), whose sums are
/// `h`: `B` units at a time, their accumulators in registers while the rows of the terms
/// stream past (one load, multiply and add per weight, no load or store of the sums per
/// term). Eight registers (`B` = [`CHUNK`]) keep enough additions in flight to hide their
/// latency: with AVX-512 two (`B` = 32) left a 0-ply decision a fifth slower; with AVX2 sixteen
/// (`B` = 128) left two sums on the stack and a row's additions about an eighth slower.
#[inline(always)]
fn add_rows_blocks<const B: usize>(
    rows: &impl InputRows,
    terms: &[(u32, f32)],
    h: &mut [f32],
    from: usize,
) {
    for c in (0..h.len()).step_by(B) {
        let mut acc: [f32; B] = h[c..c + B].try_into().expect("B wide");
        for &(i, xi) in terms {
            rows.add_block(&mut acc, i as usize, xi, from + c);
        }
        h[c..c + B].copy_from_slice(&acc);
    }
}

impl Network {
    /// A network with all weights zero.
    ///
    /// # Panics
    /// When `hidden` is 0 or above [`MAX_HIDDEN`] (a programming error; files are checked by
    /// the loader).
    #[must_use]
    #[track_caller]
    pub fn zeros(inputs: usize, hidden: usize) -> Network {
        Network::zeros_deep(inputs, hidden, 0)
    }

    /// A network with all weights zero and a second hidden layer of `second` units (0: none).
    ///
    /// # Panics
    /// When `hidden` is 0 or above [`MAX_HIDDEN`], or `second` above [`MAX_SECOND`].
    #[must_use]
    #[track_caller]
    pub fn zeros_deep(inputs: usize, hidden: usize, second: usize) -> Network {
        assert!(
            (1..=MAX_HIDDEN).contains(&hidden),
            "hidden units must be in 1..={MAX_HIDDEN}"
        );
        assert!(
            second <= MAX_SECOND,
            "second-layer units must be at most {MAX_SECOND}"
        );
        assert!(inputs <= MAX_INPUTS, "inputs must be at most {MAX_INPUTS}");
        let last = if second == 0 { hidden } else { second };
        Network {
            inputs,
            hidden,
            second,
            w1: vec![0.0; inputs * hidden],
            b1: vec![0.0; hidden],
            wm: vec![0.0; hidden * second],
            bm: vec![0.0; second],
            w2: vec![0.0; last * OUT_PAD],
            b2: [0.0; OUT_PAD],
        }
    }

    /// A network with small random weights (uniform, scaled by fan-in).
    ///
    /// # Panics
    /// When `hidden` is 0 or above [`MAX_HIDDEN`], or `inputs` above 256 (`MAX_INPUTS`).
    #[must_use]
    pub fn random(inputs: usize, hidden: usize, rng: &mut impl Rng) -> Network {
        Network::random_deep(inputs, hidden, 0, rng)
    }

    /// A network of two hidden layers (one when `second` is 0) with small random weights
    /// (uniform, scaled by fan-in). With `second` 0 it draws what [`Network::random`] draws.
    ///
    /// # Panics
    /// When `hidden` is 0 or above [`MAX_HIDDEN`], `second` above [`MAX_SECOND`], or `inputs`
    /// above 256 (`MAX_INPUTS`).
    #[must_use]
    pub fn random_deep(inputs: usize, hidden: usize, second: usize, rng: &mut impl Rng) -> Network {
        let mut net = Network::zeros_deep(inputs, hidden, second);
        let s1 = 1.0 / (inputs as f32).sqrt();
        for w in &mut net.w1 {
            *w = rng.gen_range(-s1..s1);
        }
        let sm = 1.0 / (hidden as f32).sqrt();
        for w in &mut net.wm {
            *w = rng.gen_range(-sm..sm);
        }
        let last = net.last();
        let s2 = 1.0 / (last as f32).sqrt();
        for j in 0..last {
            for k in 0..NUM_OUTPUTS {
                net.w2[j * OUT_PAD + k] = rng.gen_range(-s2..s2);
            }
        }
        net
    }

    /// The same network with `hidden` units, by splitting units (Net2WiderNet): each new unit
    /// is a copy of an existing one (the first new unit of the first, and so on, round again
    /// when the layer more than doubles), its input weights jittered by a thousandth of their
    /// initial scale, and each group of copies shares the original's output weights in random
    /// proportions. The outputs stay as they were (to the jitter), and the copies, pushed apart
    /// by their unequal shares and the jitter, learn to differ. New units with zero output
    /// weights instead would start silent and, with the small residuals of a trained network,
    /// stay nearly so (docs/neural.md). Only the first hidden layer grows: with a second layer,
    /// the copies share the original's row of the second layer's weights instead, and the
    /// second and output layers' other weights are kept.
    ///
    /// # Panics
    /// When `hidden` is smaller than the current size or above [`MAX_HIDDEN`].
    #[must_use]
    #[track_caller]
    pub fn grown(&self, hidden: usize, rng: &mut impl Rng) -> Network {
        assert!(
            (self.hidden..=MAX_HIDDEN).contains(&hidden),
            "hidden units can grow from {} up to {MAX_HIDDEN}",
            self.hidden
        );
        let old = self.hidden;
        let source = |j: usize| if j < old { j } else { (j - old) % old };
        // Random shares of each original unit's output weights among its copies.
        let mut share: Vec<f32> = (0..hidden).map(|_| rng.gen_range(0.5..1.5)).collect();
        let mut total = vec![0.0f32; old];
        for (j, &s) in share.iter().enumerate() {
            total[source(j)] += s;
        }
        for (j, s) in share.iter_mut().enumerate() {
            *s /= total[source(j)];
        }
        let jitter = 1e-3 / (self.inputs as f32).sqrt();
        let mut net = Network::zeros_deep(self.inputs, hidden, self.second);
        for i in 0..self.inputs {
            let from = &self.w1[i * old..(i + 1) * old];
            let row = &mut net.w1[i * hidden..(i + 1) * hidden];
            for (j, w) in row.iter_mut().enumerate() {
                *w = from[source(j)];
                if j >= old {
                    *w += rng.gen_range(-jitter..jitter);
                }
            }
        }
        // A unit's outgoing weights: its row of the second layer, or of the output layer.
        let (out, width) = if self.second == 0 {
            (&self.w2, OUT_PAD)
        } else {
            (&self.wm, self.second)
        };
        let grown_out = if self.second == 0 {
            &mut net.w2
        } else {
            net.w2.copy_from_slice(&self.w2);
            net.bm.copy_from_slice(&self.bm);
            &mut net.wm
        };
        for j in 0..hidden {
            let s = source(j);
            for m in 0..width {
                grown_out[j * width + m] = share[j] * out[s * width + m];
            }
        }
        for j in 0..hidden {
            net.b1[j] = self.b1[source(j)];
        }
        net.b2 = self.b2;
        net
    }

    /// Moves every weight a fraction `beta` of the way towards `other`'s:
    /// `w += beta (w_other - w)`, one step of an exponential moving average of weights.
    ///
    /// # Panics
    /// When the two networks differ in shape (a programming error).
    #[track_caller]
    pub fn blend_towards(&mut self, other: &Network, beta: f32) {
        assert!(
            self.shape() == other.shape(),
            "blending networks of different shapes"
        );
        let step = |a: &mut [f32], b: &[f32]| {
            for (x, &y) in a.iter_mut().zip(b) {
                *x += beta * (y - *x);
            }
        };
        step(&mut self.w1, &other.w1);
        step(&mut self.b1, &other.b1);
        step(&mut self.wm, &other.wm);
        step(&mut self.bm, &other.bm);
        step(&mut self.w2, &other.w2);
        step(&mut self.b2, &other.b2);
    }

    /// Inputs, hidden units and second-layer units.
    pub(crate) fn shape(&self) -> (usize, usize, usize) {
        (self.inputs, self.hidden, self.second)
    }

    /// Units of the last hidden layer (the one the outputs read).
    fn last(&self) -> usize {
        if self.second == 0 {
            self.hidden
        } else {
            self.second
        }
    }

    /// Number of inputs.
    #[must_use]
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Number of hidden units (of the first hidden layer).
    #[must_use]
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Number of units of the second hidden layer (0: the network has one hidden layer).
    #[must_use]
    pub fn second(&self) -> usize {
        self.second
    }

    /// Computes the hidden activations into `hidden` (length [`Network::hidden`]) and returns the
    /// five sigmoid outputs.
    #[inline]
    pub(crate) fn forward_into(&self, x: &[f32], hidden: &mut [f32]) -> [f32; NUM_OUTPUTS] {
        self.hidden_sums(x, hidden, None);
        self.outputs_from_sums(hidden)
    }

    /// The hidden sums (pre-activations, biases included) of inputs `x` into `sums` (length
    /// [`Network::hidden`]), reading the input layer from `rows16` when given (this network's
    /// [`Rows16`]) and from the `f32` weights otherwise.
    #[inline]
    pub(crate) fn hidden_sums(&self, x: &[f32], sums: &mut [f32], rows16: Option<&Rows16>) {
        // The non-zero inputs (about a quarter of them).
        let mut active = [(0u32, 0.0f32); MAX_INPUTS];
        let mut n_active = 0;
        for (i, &xi) in x[..self.inputs].iter().enumerate() {
            if xi != 0.0 {
                active[n_active] = (i as u32, xi);
                n_active += 1;
            }
        }
        sums[..self.hidden].copy_from_slice(&self.b1);
        self.add_rows(&active[..n_active], sums, rows16);
    }

    /// Changes `sums`, the hidden sums of inputs `from`, into those of inputs `to`, adding the
    /// rows of the inputs that differ (scaled by the difference) or, when more inputs differ
    /// than `to` has non-zero, computing them afresh. The plays of one roll differ in a few
    /// points and features, so this streams far fewer rows than [`Network::hidden_sums`]; the
    /// sums agree with it to rounding. `delta` is working memory; `rows16` as for
    /// [`Network::hidden_sums`].
    #[inline]
    pub(crate) fn update_sums(
        &self,
        from: &[f32],
        to: &[f32],
        sums: &mut [f32],
        delta: &mut [(u32, f32); MAX_INPUTS],
        rows16: Option<&Rows16>,
    ) {
        let (from, to) = (&from[..self.inputs], &to[..self.inputs]);
        let n_active = to.iter().filter(|&&b| b != 0.0).count();
        let mut n_delta = 0;
        // The inputs at `offset..` of `a` and `b` that differ, as bit `k` for input `offset + k`
        // (a comparison the compiler makes at once for a whole span).
        let mut push = |offset: usize, a: &[f32], b: &[f32]| {
            let differ = a
                .iter()
                .zip(b)
                .enumerate()
                .fold(0u32, |m, (k, (a, b))| m | u32::from(a != b) << k);
            for k in crate::bits(differ) {
                delta[n_delta] = ((offset + k) as u32, b[k] - a[k]);
                n_delta += 1;
            }
        };
        // Sixteen inputs at a time: a play changes a few points, so most spans are equal.
        const SPAN: usize = 16;
        let (from_spans, to_spans) = (from.chunks_exact(SPAN), to.chunks_exact(SPAN));
        let (from_rest, to_rest) = (from_spans.remainder(), to_spans.remainder());
        for (s, (a, b)) in from_spans.zip(to_spans).enumerate() {
            let (a, b): (&[f32; SPAN], &[f32; SPAN]) =
                (a.try_into().expect("SPAN"), b.try_into().expect("SPAN"));
            push(s * SPAN, a, b);
        }
        push(from.len() - from_rest.len(), from_rest, to_rest);
        if n_delta >= n_active {
            self.hidden_sums(to, sums, rows16);
        } else {
            self.add_rows(&delta[..n_delta], sums, rows16);
        }
    }

    /// Adds `xi` times row `i` of the input layer to `sums` for each `(i, xi)` of `terms`, the
    /// rows read from `rows16` when given and from the `f32` weights otherwise.
    #[inline]
    fn add_rows(&self, terms: &[(u32, f32)], sums: &mut [f32], rows16: Option<&Rows16>) {
        match rows16 {
            Some(rows) => {
                debug_assert_eq!(rows.hidden, self.hidden, "the rows of this network");
                self.add_rows_from(rows, terms, sums);
            }
            None => self.add_rows_from(
                &Rows32 {
                    w1: &self.w1,
                    hidden: self.hidden,
                },
                terms,
                sums,
            ),
        }
    }

    /// [`Network::add_rows`] from `rows`.
    #[inline]
    fn add_rows_from(&self, rows: &impl InputRows, terms: &[(u32, f32)], sums: &mut [f32]) {
        let nh = self.hidden;
        // Blocks of CHUNK units, then of CHUNK / 4 for what is left (a race network's 64),
        // then unit by unit: each unit's sum takes the terms in order either way.
        let wide = nh / CHUNK * CHUNK;
        let narrow = wide + (nh - wide) / (CHUNK / 4) * (CHUNK / 4);
        add_rows_blocks::<CHUNK>(rows, terms, &mut sums[..wide], 0);
        add_rows_blocks::<{ CHUNK / 4 }>(rows, terms, &mut sums[wide..narrow], wide);
        if narrow < nh {
            for &(i, xi) in terms {
                rows.add(&mut sums[narrow..nh], i as usize, xi, narrow);
            }
        }
    }

    /// The five sigmoid outputs of hidden sums `sums` (length [`Network::hidden`]), which are
    /// replaced by the hidden activations.
    #[inline]
    pub(crate) fn outputs_from_sums(&self, sums: &mut [f32]) -> [f32; NUM_OUTPUTS] {
        if self.second == 0 {
            let h = &mut sums[..self.hidden];
            softsign(h);
            return self.head(h);
        }
        let mut mid = [0.0f32; MAX_SECOND];
        self.outputs_into(sums, &mut mid)
    }

    /// As [`Network::outputs_from_sums`], with the second layer's activations left in `mid`
    /// (untouched without a second layer).
    #[inline]
    fn outputs_into(&self, sums: &mut [f32], mid: &mut [f32; MAX_SECOND]) -> [f32; NUM_OUTPUTS] {
        let h = &mut sums[..self.hidden];
        softsign(h);
        if self.second == 0 {
            return self.head(h);
        }
        self.second_layer(&[&*h], std::slice::from_mut(mid));
        self.head(&mid[..self.second])
    }

    /// The outputs of up to [`BATCH`] hidden-sum vectors at once into `out` (as long as
    /// `sums`), each as [`Network::outputs_from_sums`] gives it, to the bit: the second layer's
    /// weights, which a single evaluation streams from the cache for one play, are read once
    /// for all of them. The second layer is read from `mid16` when given (this network's
    /// [`Mid16`]), and from the `f32` weights otherwise; either way a batch gives each vector
    /// the outputs it gives alone.
    ///
    /// # Panics
    /// When `sums` is longer than [`BATCH`] or of another length than `out`, or `mid` (working
    /// memory, a row per vector; not zeroed here, which showed in profiles) is shorter.
    #[inline]
    pub(crate) fn outputs_batch(
        &self,
        sums: &mut [[f32; MAX_HIDDEN]],
        out: &mut [[f32; NUM_OUTPUTS]],
        mid16: Option<&Mid16>,
        mid: &mut [[f32; MAX_SECOND]],
    ) {
        assert_eq!(sums.len(), out.len(), "one output per vector of sums");
        if self.second == 0 {
            for (s, o) in sums.iter_mut().zip(out) {
                *o = self.outputs_from_sums(s);
            }
            return;
        }
        let nh = self.hidden;
        for s in sums.iter_mut() {
            softsign(&mut s[..nh]);
        }
        let n = sums.len();
        assert!(
            n <= BATCH,
            "{n} vectors of sums in a batch of at most {BATCH}"
        );
        let mid = &mut mid[..n];
        match mid16 {
            Some(m) => {
                debug_assert_eq!((m.hidden, m.second), (nh, self.second), "this network's");
                m.second_layer(sums, mid);
            }
            None => {
                let mut h: [&[f32]; BATCH] = [&[]; BATCH];
                for (h, s) in h.iter_mut().zip(sums.iter()) {
                    *h = &s[..nh];
                }
                self.second_layer(&h[..n], mid);
            }
        }
        for (o, m) in out.iter_mut().zip(mid.iter()) {
            *o = self.head(&m[..self.second]);
        }
    }

    /// The second layer's activations of first-layer activation vectors `h` (at most
    /// [`BATCH`], each of [`Network::hidden`] units) into `mid[..h.len()]`. The weights are
    /// taken [`SPAN`] rows (first-layer units) at a time, and each span is added to the sums of
    /// every [`TILE`] of the vectors in turn while it stays in the L1 cache: a 0-ply decision's
    /// batches read the 256 KiB layer once for up to sixteen plays, not once for four. Each sum
    /// starts from its bias and takes the first-layer units in order, so that any number of
    /// vectors gives the same sums to the bit.
    #[inline]
    fn second_layer(&self, h: &[&[f32]], mid: &mut [[f32; MAX_SECOND]]) {
        let (nh, ns) = (self.hidden, self.second);
        for m in &mut mid[..h.len()] {
            m[..ns].copy_from_slice(&self.bm);
        }
        for j0 in (0..nh).step_by(SPAN) {
            let j1 = (j0 + SPAN).min(nh);
            let rows = &self.wm[j0 * ns..j1 * ns];
            for (h, mid) in h.chunks(TILE).zip(mid.chunks_mut(TILE)) {
                let v = |p: usize| &h[p][j0..j1];
                match h.len() {
                    1 => self.second_span([v(0)], rows, mid),
                    2 => self.second_span([v(0), v(1)], rows, mid),
                    3 => self.second_span([v(0), v(1), v(2)], rows, mid),
                    _ => self.second_span([v(0), v(1), v(2), v(3)], rows, mid),
                }
            }
        }
        for m in &mut mid[..h.len()] {
            softsign(&mut m[..ns]);
        }
    }

    /// Adds the rows `rows` of second-layer weights (one per first-layer unit of a span) times
    /// the `P` (1 to [`TILE`]) activation vectors `h` of that span to the sums `mid[..P]`:
    /// [`GROUPS`] groups of [`LANES`] units at a time (then one group, then unit by unit),
    /// their sums for all `P` vectors in registers while the rows stream past. The
    /// activations are read where they lie, unit by unit ([`by_unit`]): copying them
    /// interleaved first cost a fifth of the layer's time.
    #[inline]
    fn second_span<const P: usize>(
        &self,
        h: [&[f32]; P],
        rows: &[f32],
        mid: &mut [[f32; MAX_SECOND]],
    ) {
        let ns = self.second;
        let full = ns / LANES * LANES;
        let blocks = ns / (GROUPS * LANES) * (GROUPS * LANES);
        for c in (0..blocks).step_by(GROUPS * LANES) {
            self.second_block(&h, rows, c, mid);
        }
        for c in (blocks..full).step_by(LANES) {
            self.second_single(&h, rows, c, mid);
        }
        for p in 0..P {
            let m = &mut mid[p][full..ns];
            for (row, a) in rows.chunks_exact(ns).zip(by_unit(&h)) {
                for (s, &w) in m.iter_mut().zip(&row[full..]) {
                    *s += a[p] * w;
                }
            }
        }
    }

    /// [`Network::second_span`] for units `c..c + GROUPS * LANES`: `GROUPS * P` registers of
    /// sums. The additions are written out for each `P` ([`lanes_add_groups`]): as a loop over
    /// the vectors the compiler leaves the sums in memory and runs several times slower. Each
    /// row of weights is taken without an index check.
    #[inline]
    fn second_block<const P: usize>(
        &self,
        h: &[&[f32]; P],
        rows: &[f32],
        c: usize,
        mid: &mut [[f32; MAX_SECOND]],
    ) {
        const {
            assert!(
                P >= 1 && P <= TILE,
                "the additions are written out for 1 to 4"
            )
        };
        let ns = self.second;
        let mut acc: [[[f32; LANES]; GROUPS]; P] =
            std::array::from_fn(|p| groups(&mid[p][c..c + GROUPS * LANES]).map(|g| *g));
        for (row, a) in rows.chunks_exact(ns).zip(by_unit(h)) {
            let r = groups(&row[c..c + GROUPS * LANES]);
            match P {
                1 => lanes_add_groups!(acc, a, r; 0),
                2 => lanes_add_groups!(acc, a, r; 0 1),
                3 => lanes_add_groups!(acc, a, r; 0 1 2),
                _ => lanes_add_groups!(acc, a, r; 0 1 2 3),
            }
        }
        for (m, s) in mid.iter_mut().zip(&acc) {
            m[c..c + GROUPS * LANES].copy_from_slice(s.as_flattened());
        }
    }

    /// [`Network::second_span`] for units `c..c + LANES`: `P` registers of sums.
    #[inline]
    fn second_single<const P: usize>(
        &self,
        h: &[&[f32]; P],
        rows: &[f32],
        c: usize,
        mid: &mut [[f32; MAX_SECOND]],
    ) {
        let ns = self.second;
        let mut acc: [[f32; LANES]; P] =
            std::array::from_fn(|p| mid[p][c..c + LANES].try_into().expect("LANES wide"));
        for (row, a) in rows.chunks_exact(ns).zip(by_unit(h)) {
            let row: &[f32; LANES] = row[c..c + LANES].try_into().expect("LANES wide");
            for p in 0..P {
                lanes_add(&mut acc[p], a[p], row);
            }
        }
        for p in 0..P {
            mid[p][c..c + LANES].copy_from_slice(&acc[p]);
        }
    }

    /// The five sigmoid outputs of the last hidden layer's activations `last`.
    #[inline]
    fn head(&self, last: &[f32]) -> [f32; NUM_OUTPUTS] {
        let mut acc = self.b2;
        for (j, &a) in last.iter().enumerate() {
            let row: &[f32; OUT_PAD] = self.w2[j * OUT_PAD..(j + 1) * OUT_PAD]
                .try_into()
                .expect("rows are OUT_PAD wide");
            for k in 0..OUT_PAD {
                acc[k] += a * row[k];
            }
        }
        let mut out = [0.0; NUM_OUTPUTS];
        for k in 0..NUM_OUTPUTS {
            out[k] = sigmoid(acc[k]);
        }
        out
    }

    /// The five outputs for inputs `x`, without allocating.
    #[must_use]
    pub fn forward(&self, x: &[f32]) -> [f32; NUM_OUTPUTS] {
        let mut hidden = [0.0f32; MAX_HIDDEN];
        self.forward_into(x, &mut hidden)
    }

    /// One gradient step of the cross-entropy between the outputs for `x` and `target` (each
    /// output a Bernoulli probability), with learning rate `alpha`. Returns the outputs before
    /// the step.
    pub fn train(
        &mut self,
        x: &[f32],
        target: &[f32; NUM_OUTPUTS],
        alpha: f32,
    ) -> [f32; NUM_OUTPUTS] {
        // For a sigmoid with cross-entropy loss the gradient with respect to the
        // pre-activation is `target - y`.
        self.train_with(x, alpha, |y| std::array::from_fn(|k| target[k] - y[k]))
    }

    /// One gradient step of the cross-entropy against `target` in the five output biases only
    /// (a shift of each output's logit), leaving the other weights as they are. Returns the
    /// outputs before the step.
    pub fn train_output_bias(
        &mut self,
        x: &[f32],
        target: &[f32; NUM_OUTPUTS],
        alpha: f32,
    ) -> [f32; NUM_OUTPUTS] {
        let y = self.forward(x);
        for k in 0..NUM_OUTPUTS {
            self.b2[k] += alpha * (target[k] - y[k]);
        }
        y
    }

    /// Adds to `grad` (a network of the same shape used as a gradient buffer) minus the gradient
    /// of a loss at inputs `x`, where `descent` maps the outputs for `x` to minus the loss's
    /// gradient with respect to the output pre-activations, as for [`Network::train_with`].
    /// The network itself is not changed; an optimiser ([`crate::optim::Adam`]) applies the
    /// sum of a batch. Returns the outputs.
    ///
    /// # Panics
    /// When `grad` has another shape (a programming error).
    #[track_caller]
    pub fn accumulate_descent(
        &self,
        x: &[f32],
        grad: &mut Network,
        descent: impl FnOnce(&[f32; NUM_OUTPUTS]) -> [f32; NUM_OUTPUTS],
    ) -> [f32; NUM_OUTPUTS] {
        assert!(
            self.shape() == grad.shape(),
            "gradient buffer of another shape"
        );
        let pass = Backward::new(self, x, descent);
        pass.add_to(grad, x, 1.0);
        pass.y
    }

    /// The weights as six slices (input layer, hidden biases, second layer and its biases,
    /// both empty without one, output layer, output biases), in a fixed order, for optimisers
    /// that treat every weight alike.
    pub(crate) fn params_mut(&mut self) -> [&mut [f32]; 6] {
        [
            &mut self.w1,
            &mut self.b1,
            &mut self.wm,
            &mut self.bm,
            &mut self.w2,
            &mut self.b2,
        ]
    }

    /// The same network with every weight zero (a gradient or moment buffer).
    #[must_use]
    pub fn zeros_like(&self) -> Network {
        Network::zeros_deep(self.inputs, self.hidden, self.second)
    }

    /// One gradient step of any loss: `descent` maps the outputs for `x` to minus the loss's
    /// gradient with respect to the output pre-activations (before the sigmoids). Returns the
    /// outputs before the step.
    pub fn train_with(
        &mut self,
        x: &[f32],
        alpha: f32,
        descent: impl FnOnce(&[f32; NUM_OUTPUTS]) -> [f32; NUM_OUTPUTS],
    ) -> [f32; NUM_OUTPUTS] {
        let pass = Backward::new(self, x, descent);
        pass.add_to(self, x, alpha);
        pass.y
    }
}

/// The dot product of `a` and `b` (of equal length), in eight partial sums so that it
/// vectorises (a single running sum would fix the order of the additions).
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    const LANES: usize = 8;
    let mut lanes = [0.0f32; LANES];
    let mut ca = a.chunks_exact(LANES);
    let mut cb = b.chunks_exact(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for k in 0..LANES {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut sum: f32 = lanes.iter().sum();
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        sum += x * y;
    }
    sum
}

/// One backward pass: the activations of a forward pass, the output deltas (minus the loss's
/// gradient with respect to the output pre-activations) and what the hidden deltas are made of.
struct Backward {
    y: [f32; NUM_OUTPUTS],
    hidden: [f32; MAX_HIDDEN],
    /// Second-layer activations (unused without a second layer).
    mid: [f32; MAX_SECOND],
    d_out: [f32; OUT_PAD],
    /// Second-layer deltas, with its activation's derivative (unused without one).
    d_mid: [f32; MAX_SECOND],
    /// Per first-layer unit, the deltas of the layer above back through its outgoing weights.
    back: [f32; MAX_HIDDEN],
}

impl Backward {
    /// The forward pass of `net` at `x` and the deltas of `descent` at its outputs.
    fn new(
        net: &Network,
        x: &[f32],
        descent: impl FnOnce(&[f32; NUM_OUTPUTS]) -> [f32; NUM_OUTPUTS],
    ) -> Backward {
        let mut pass = Backward {
            y: [0.0; NUM_OUTPUTS],
            hidden: [0.0; MAX_HIDDEN],
            mid: [0.0; MAX_SECOND],
            d_out: [0.0; OUT_PAD],
            d_mid: [0.0; MAX_SECOND],
            back: [0.0; MAX_HIDDEN],
        };
        net.hidden_sums(x, &mut pass.hidden, None);
        pass.y = net.outputs_into(&mut pass.hidden, &mut pass.mid);
        pass.d_out[..NUM_OUTPUTS].copy_from_slice(&descent(&pass.y));
        // The output deltas back through the output layer, to the last hidden layer.
        let ns = net.second;
        let to_last = if ns == 0 {
            &mut pass.back[..net.hidden]
        } else {
            &mut pass.d_mid[..ns]
        };
        for (j, g) in to_last.iter_mut().enumerate() {
            let row = &net.w2[j * OUT_PAD..(j + 1) * OUT_PAD];
            for k in 0..OUT_PAD {
                *g += pass.d_out[k] * row[k];
            }
        }
        if ns > 0 {
            // softsign'(x) = (1 - |a|)^2, then back through the second layer.
            for (d, &a) in pass.d_mid[..ns].iter_mut().zip(&pass.mid[..ns]) {
                let s = 1.0 - a.abs();
                *d *= s * s;
            }
            let d_mid = &pass.d_mid[..ns];
            for (j, g) in pass.back[..net.hidden].iter_mut().enumerate() {
                *g = dot(&net.wm[j * ns..(j + 1) * ns], d_mid);
            }
        }
        pass
    }

    /// Adds `scale` times the descent direction of every weight to `target` (the network
    /// itself for a plain step, or a gradient buffer); the input layer only in the rows of
    /// `x`'s non-zero inputs.
    fn add_to(&self, target: &mut Network, x: &[f32], scale: f32) {
        let nh = target.hidden;
        let ns = target.second;
        let last: &[f32] = if ns == 0 {
            &self.hidden[..nh]
        } else {
            &self.mid[..ns]
        };
        for (j, &a) in last.iter().enumerate() {
            let row = &mut target.w2[j * OUT_PAD..(j + 1) * OUT_PAD];
            for (w, &d) in row.iter_mut().zip(&self.d_out) {
                *w += scale * d * a;
            }
        }
        for k in 0..NUM_OUTPUTS {
            target.b2[k] += scale * self.d_out[k];
        }
        if ns > 0 {
            let d_mid = &self.d_mid[..ns];
            for (j, &a) in self.hidden[..nh].iter().enumerate() {
                let row = &mut target.wm[j * ns..(j + 1) * ns];
                let sa = scale * a;
                for (w, &d) in row.iter_mut().zip(d_mid) {
                    *w += sa * d;
                }
            }
            for (b, &d) in target.bm.iter_mut().zip(d_mid) {
                *b += scale * d;
            }
        }
        let mut d_hidden = [0.0f32; MAX_HIDDEN];
        for ((dh, &a), &g) in d_hidden[..nh]
            .iter_mut()
            .zip(&self.hidden[..nh])
            .zip(&self.back[..nh])
        {
            // softsign'(x) = (1 - |a|)^2
            let s = 1.0 - a.abs();
            *dh = scale * g * s * s;
        }
        let dh = &d_hidden[..nh];
        for (b, &d) in target.b1.iter_mut().zip(dh) {
            *b += d;
        }
        for (i, &xi) in x[..target.inputs].iter().enumerate() {
            if xi != 0.0 {
                let row = &mut target.w1[i * nh..(i + 1) * nh];
                for (w, &d) in row.iter_mut().zip(dh) {
                    *w += xi * d;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn updated_sums_match_fresh_ones() {
        // 70 hidden units: two blocks of 32 and a tail; in f32 and in 16 bits.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let net = Network::random(40, 70, &mut rng);
        let rows16 = Rows16::new(&net);
        let mut x = [0.0f32; 40];
        for (i, v) in x.iter_mut().enumerate() {
            if i % 3 == 0 {
                *v = rng.gen_range(0.0..1.0);
            }
        }
        for rows in [None, Some(&rows16)] {
            let fresh = |x: &[f32]| {
                let mut s = [0.0f32; 70];
                net.hidden_sums(x, &mut s, rows);
                s
            };
            let base = fresh(&x);
            // A few inputs changed, in the first and second spans of 16 and in the rest: the
            // delta path.
            let mut y = x;
            y[3] = 0.0;
            y[4] = 1.0;
            y[9] = 0.25;
            y[20] = 0.75;
            y[37] = 1.5;
            let mut sums = base;
            let mut delta = [(0, 0.0); MAX_INPUTS];
            net.update_sums(&x, &y, &mut sums, &mut delta, rows);
            // Every input changed: summed afresh.
            let z = [0.5f32; 40];
            let mut sums_z = base;
            net.update_sums(&x, &z, &mut sums_z, &mut delta, rows);
            for ((a, b), (c, d)) in sums.iter().zip(fresh(&y)).zip(sums_z.iter().zip(fresh(&z))) {
                assert!((a - b).abs() < 1e-5, "{a} against {b}");
                assert_eq!(*c, d);
            }
            if rows.is_none() {
                // The outputs follow from the sums as from a forward pass.
                let mut h = [0.0f32; 70];
                let mut s = fresh(&y);
                assert_eq!(net.outputs_from_sums(&mut s), net.forward_into(&y, &mut h));
            }
        }
    }

    #[test]
    fn sixteen_bit_rows_are_within_half_a_step() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut net = Network::random(12, 170, &mut rng);
        // A block of 128 units, one of 32 and a tail; a silent input (a zero row) and one row
        // of large weights.
        for j in 0..170 {
            net.w1[5 * 170 + j] = 0.0;
            net.w1[7 * 170 + j] *= 1000.0;
        }
        let rows = Rows16::new(&net);
        for (i, row) in net.w1.chunks_exact(170).enumerate() {
            let largest = row.iter().fold(0.0f32, |m, w| m.max(w.abs()));
            for (j, &w) in row.iter().enumerate() {
                let step = largest / 32767.0;
                let q = rows.weight(i, j);
                assert!(
                    (q - w).abs() <= 0.5 * step * 1.0001,
                    "row {i}, unit {j}: {q} for {w}"
                );
            }
        }
        assert!((0..170).all(|j| rows.weight(5, j) == 0.0));
        // The sums of both forms agree to the steps of the rows read (all 12 inputs on).
        let x = [1.0f32; 12];
        let (mut a, mut b) = ([0.0f32; 170], [0.0f32; 170]);
        net.hidden_sums(&x, &mut a, None);
        net.hidden_sums(&x, &mut b, Some(&rows));
        let steps: f32 = net
            .w1
            .chunks_exact(170)
            .map(|row| 0.5 * row.iter().fold(0.0f32, |m, w| m.max(w.abs())) / 32767.0)
            .sum();
        for (a, b) in a.iter().zip(&b) {
            assert!(
                (a - b).abs() <= steps + 1e-4 * a.abs().max(1.0),
                "{a} against {b}"
            );
        }
    }

    #[test]
    fn chunked_forward_matches_a_plain_sum() {
        // A wide block of CHUNK, two narrow ones of CHUNK / 4, a tail of 8 (200 units with
        // AVX-512, 104 otherwise).
        const NH: usize = CHUNK + 2 * (CHUNK / 4) + 8;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let net = Network::random(7, NH, &mut rng);
        let x = [1.0, 0.0, 0.5, 2.0, 0.0, 0.0, 1.0];
        let mut hidden = [0.0; MAX_HIDDEN];
        net.forward_into(&x, &mut hidden);
        for j in 0..NH {
            let mut s = net.b1[j];
            for i in 0..7 {
                s += x[i] * net.w1[i * NH + j];
            }
            let want = s / (1.0 + s.abs());
            assert!((hidden[j] - want).abs() < 1e-5, "unit {j}");
        }
    }

    #[test]
    fn growing_keeps_the_outputs() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let net = Network::random(6, 8, &mut rng);
        // 8 to 40 units: every unit split into five copies.
        let big = net.grown(40, &mut rng);
        assert_eq!(big.hidden(), 40);
        let x = [1.0, 0.0, 0.5, 2.0, 0.0, 1.0];
        let (a, b) = (net.forward(&x), big.forward(&x));
        for k in 0..NUM_OUTPUTS {
            assert!((a[k] - b[k]).abs() < 1e-4, "{a:?} {b:?}");
        }
        // The copies of a unit differ: unequal shares of its output weights.
        assert_ne!(big.w2[0], big.w2[8 * OUT_PAD]);
        assert_ne!(big.w1[8], net.w1[0]);
    }

    #[test]
    fn zero_network_outputs_one_half() {
        let net = Network::zeros(4, 3);
        assert_eq!(net.forward(&[1.0, 0.0, 2.0, 0.5]), [0.5; 5]);
    }

    #[test]
    fn training_moves_outputs_towards_target() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut net = Network::random(6, 8, &mut rng);
        let x = [1.0, 0.0, 0.5, 0.0, 1.0, 0.25];
        let target = [0.9, 0.1, 0.0, 0.7, 0.3];
        let err = |y: [f32; 5]| {
            y.iter()
                .zip(&target)
                .map(|(a, b)| (a - b).abs())
                .sum::<f32>()
        };
        let before = err(net.forward(&x));
        for _ in 0..200 {
            net.train(&x, &target, 0.1);
        }
        let after = err(net.forward(&x));
        assert!(after < before * 0.2, "error {before} -> {after}");
    }

    /// Checks the step of [`Network::train`] on weights `(layer, index)` of `net` (layers in
    /// the order of [`Network::params_mut`]) against finite differences of the loss
    /// `sum_k -(t ln y + (1 - t) ln(1 - y))`: one step with a tiny alpha changes each weight by
    /// `-alpha * dL/dw`.
    fn check_gradient(net: &Network, weights: &[(usize, usize)]) {
        let x = [0.5, 1.0, 0.0, 2.0, 1.0];
        let t = [0.3, 0.2, 0.1, 0.6, 0.05];
        let loss = |n: &Network| {
            let y = n.forward(&x);
            (0..5)
                .map(|k| -(t[k] * y[k].ln() + (1.0 - t[k]) * (1.0 - y[k]).ln()) as f64)
                .sum::<f64>()
        };
        let alpha = 1e-3;
        let mut stepped = net.clone();
        stepped.train(&x, &t, alpha);
        let weight = |n: &Network, layer: usize, idx: usize| n.clone().params_mut()[layer][idx];
        for &(layer, idx) in weights {
            let eps = 1e-2;
            let mut plus = net.clone();
            plus.params_mut()[layer][idx] += eps;
            let mut minus = net.clone();
            minus.params_mut()[layer][idx] -= eps;
            let grad = (loss(&plus) - loss(&minus)) / (2.0 * eps as f64);
            let step = f64::from(weight(&stepped, layer, idx) - weight(net, layer, idx));
            assert!(
                (step + alpha as f64 * grad).abs() < 2e-5,
                "layer {layer} weight {idx}: step {step}, grad {grad}"
            );
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        // A few input-layer weights.
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let net = Network::random(5, 4, &mut rng);
        check_gradient(&net, &[(0, 0), (0, 5), (0, 7), (0, 13), (0, 19)]);
    }

    #[test]
    fn two_layer_gradient_matches_finite_differences() {
        // Weights of every layer of a network with a second hidden layer.
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut net = Network::random_deep(5, 6, 3, &mut rng);
        let mut weights = Vec::new();
        for (layer, params) in net.params_mut().iter().enumerate() {
            for idx in [0usize, 1, 4, 7, 13] {
                // (the output layer's padding lanes have no gradient to compare)
                let padding = (layer == 4 || layer == 5) && idx % OUT_PAD >= NUM_OUTPUTS;
                if idx < params.len() && !padding {
                    weights.push((layer, idx));
                }
            }
        }
        assert_eq!(weights.len(), 21, "weights checked");
        check_gradient(&net, &weights);
    }

    /// The outputs of a two-layer network from its hidden sums, unit by unit: each second-layer
    /// sum from its bias, the first-layer activations in order.
    fn plain_two_layer_outputs(net: &Network, sums: &[f32]) -> [f32; NUM_OUTPUTS] {
        let (nh, ns) = (net.hidden(), net.second());
        let mut mid = net.bm.clone();
        for (j, &x) in sums[..nh].iter().enumerate() {
            let a = x / (1.0 + x.abs());
            for (m, s) in mid.iter_mut().enumerate() {
                *s += a * net.wm[j * ns + m];
            }
        }
        softsign(&mut mid);
        net.head(&mid)
    }

    /// The hidden sums of [`BATCH`] random inputs (12 of them, each in -1..1) of `net`.
    fn random_sums(net: &Network, rng: &mut ChaCha8Rng) -> [[f32; MAX_HIDDEN]; BATCH] {
        let mut sums = [[0.0f32; MAX_HIDDEN]; BATCH];
        for s in &mut sums {
            let x: Vec<f32> = (0..12).map(|_| rng.gen_range(-1.0..1.0)).collect();
            net.hidden_sums(&x, s, None);
        }
        sums
    }

    #[test]
    fn batched_outputs_equal_single_ones_and_a_plain_sum_to_the_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        // 149 and 40 second-layer units: with AVX-512 (GROUPS * LANES = 64) two blocks, a
        // single group and a tail, and two single groups and a tail; otherwise (16) nine blocks
        // and a tail, and two blocks and a single group; and one layer.
        for net in [
            Network::random_deep(12, 24, 149, &mut rng),
            Network::random_deep(12, 24, 40, &mut rng),
            Network::random(12, 24, &mut rng),
        ] {
            let sums = random_sums(&net, &mut rng);
            let mut mid = [[0.0f32; MAX_SECOND]; BATCH];
            for n in 1..=BATCH {
                let mut batch = sums;
                let mut out = [[0.0f32; NUM_OUTPUTS]; BATCH];
                net.outputs_batch(&mut batch[..n], &mut out[..n], None, &mut mid);
                for p in 0..n {
                    let mut single = sums[p];
                    assert_eq!(out[p], net.outputs_from_sums(&mut single), "{n} in a batch");
                    if net.second() > 0 {
                        assert_eq!(out[p], plain_two_layer_outputs(&net, &sums[p]), "{n}");
                    }
                }
            }
        }
    }

    /// The outputs of hidden sums `sums` with the 16-bit second layer `m16` of `net`, summed
    /// unit by unit in scalar code as [`Mid16`] describes.
    fn plain_mid16_outputs(net: &Network, m16: &Mid16, sums: &[f32]) -> [f32; NUM_OUTPUTS] {
        let (nh, ns) = (net.hidden(), net.second());
        let level = |j: usize| {
            let x = sums[j];
            i32::from(((x / (1.0 + x.abs())) * ACT_SCALE).round_ties_even() as i16)
        };
        let mut mid = net.bm.clone();
        for (m, s) in mid.iter_mut().enumerate() {
            let (g, k) = (m / 8, m % 8);
            let step = m16.scale[g].to_array()[k];
            for span in (0..nh.div_ceil(2)).step_by(PAIRS) {
                let mut sum = 0i32;
                for jp in span..(span + PAIRS).min(nh.div_ceil(2)) {
                    let lanes = m16.q[jp * m16.groups + g].to_array();
                    for r in 0..2 {
                        if 2 * jp + r < nh {
                            sum += level(2 * jp + r) * i32::from(lanes[2 * k + r]);
                        }
                    }
                }
                *s += sum as f32 * step;
            }
        }
        softsign(&mut mid[..ns]);
        net.head(&mid)
    }

    #[test]
    fn sixteen_bit_second_layers_sum_the_same_in_any_batch_and_near_the_f32_ones() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        // 75 first-layer units (odd: a padded pair; two spans of 16 pairs and a shorter one);
        // 149 second-layer units (nine pairs of groups and a padded one) and 40 (two pairs and
        // a padded one).
        for net in [
            Network::random_deep(12, 75, 149, &mut rng),
            Network::random_deep(12, 75, 40, &mut rng),
        ] {
            let m16 = Mid16::new(&net).expect("a second layer");
            // Every weight within half its unit's step.
            for m in 0..net.second() {
                let largest =
                    (0..75).fold(0.0f32, |x, j| x.max(net.wm[j * net.second() + m].abs()));
                for j in 0..75 {
                    let (w, q) = (net.wm[j * net.second() + m], m16.weight(j, m));
                    assert!(
                        (q - w).abs() <= 0.5 * largest / WEIGHT_STEPS * 1.001,
                        "{q} {w}"
                    );
                }
            }
            let sums = random_sums(&net, &mut rng);
            let mut mid = [[0.0f32; MAX_SECOND]; BATCH];
            for n in [1, 2, 3, 4, 5, 7, 8, 13, BATCH] {
                let mut batch = sums;
                let mut out = [[0.0f32; NUM_OUTPUTS]; BATCH];
                net.outputs_batch(&mut batch[..n], &mut out[..n], Some(&m16), &mut mid);
                for p in 0..n {
                    let mut single = [sums[p]];
                    let mut alone = [[0.0f32; NUM_OUTPUTS]];
                    net.outputs_batch(&mut single, &mut alone, Some(&m16), &mut mid);
                    assert_eq!(out[p], alone[0], "{n} in a batch");
                    assert_eq!(out[p], plain_mid16_outputs(&net, &m16, &sums[p]), "{n}");
                    let exact = net.outputs_from_sums(&mut sums[p].clone());
                    for k in 0..NUM_OUTPUTS {
                        assert!(
                            (out[p][k] - exact[k]).abs() < 2e-3,
                            "{:?} {exact:?}",
                            out[p]
                        );
                    }
                }
            }
        }
        assert!(
            Mid16::new(&Network::random(12, 24, &mut rng)).is_none(),
            "one layer"
        );
    }

    #[test]
    fn two_layer_network_grows_and_sums_incrementally() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let net = Network::random_deep(6, 8, 4, &mut rng);
        let big = net.grown(20, &mut rng);
        assert_eq!((big.hidden(), big.second()), (20, 4));
        let x = [1.0, 0.0, 0.5, 2.0, 0.0, 1.0];
        let (a, b) = (net.forward(&x), big.forward(&x));
        for k in 0..NUM_OUTPUTS {
            assert!((a[k] - b[k]).abs() < 1e-4, "{a:?} {b:?}");
        }
        // The sums the evaluator keeps give the forward pass's outputs.
        let mut s = [0.0f32; 8];
        net.hidden_sums(&x, &mut s, None);
        assert_eq!(net.outputs_from_sums(&mut s), a);
        // A second layer changes the function: the same first layer without it differs.
        let mut flat = Network::zeros(6, 8);
        flat.w1.copy_from_slice(&net.w1);
        assert_ne!(flat.forward(&x), a);
    }
}
