//! A learned evaluation for Ultimate Tic-Tac-Toe: a small neural network,
//! NNUE-style, that values a position for the side to move, and what makes
//! and checks it (self-play data files, the trainer, the weights file).
//!
//! # The net
//!
//! ```text
//! 189 sparse binary features per view (features.rs)
//!   -> 256 sums per view (the accumulator, summed from scratch for each
//!      position the search values)
//!   -> + the rows of 36 dynamic features (threats) per view, and for the
//!      side to move the row of the board to play on; side to move's 256,
//!      other's 256, each clipped to [0, 1]                        (512)
//!   -> 32, clipped to [0, 1]
//!   -> 1, sigmoid: the expected score of the side to move (win 1, draw 1/2)
//!
//! the 512 clipped sums, also
//!   -> 81 policy logits, one per cell; a softmax over the legal moves'
//!      gives the search its priors (PUCT)
//! ```
//!
//! The weights are kept in `f32` as the file has them, for training, and
//! quantised when the net is made or loaded: inference runs on integers
//! (`quant.rs`: an `i16` accumulator, `i16` activations and weights summed
//! in `i32`, back to `f32` for the last layer and the softmax), within
//! about 0.01 of the `f32` net's value and priors. Inference is plain Rust
//! over fixed-size arrays, compiled twice and chosen when the engine runs:
//! for AVX2, with intrinsics for the two dense kernels (the second layer
//! and the policy's dot products), where the processor has them, and plain
//! otherwise ([`Kernels`], `simd.rs`). The net implements [`Evaluator`],
//! the search's seam for valuing leaves without playouts and for the
//! moves' priors. The accumulator is summed from scratch at every leaf (a
//! per-thread cache updated by the difference measured no faster).
//!
//! What these choices were measured against (integers against `f32`, the
//! widths, the clipping loops, the cache) is in `docs/net.md`; every net's
//! training and matches are in `nets/README.md`.
//!
//! # The weights file
//!
//! All numbers little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `UTTTNNUE` |
//! | 4 | format version: 2 (version 1, without the policy head, is read with uniform priors) |
//! | 4 x 3 | features, hidden size, second hidden size: 225, 256, 32 |
//! | 16 | the net's name, ASCII, padded with zero bytes |
//! | 4 x N | the weights as `f32`, in the order of [`Net::to_flat`] |
//! | 4 | FNV-1a (32-bit) of every byte before it |
//!
//! The engine carries one net inside its binary ([`Net::builtin`], from
//! `nets/`); `setoption name EvalFile` loads another. The version the
//! engine prints is the name and the checksum, e.g. `gen1-5e3a9c21`.

pub mod data;
pub mod features;
mod quant;
mod simd;
pub use simd::Kernels;
#[cfg(feature = "train")]
pub mod train;

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::rules::{Move, Position};
use crate::search::Evaluator;
use features::{Accumulator, Planes};
use quant::Quantised;

/// Input features per view kept in the accumulator.
pub const FEATURES: usize = 189;
/// Dynamic input features per view (threats; see
/// [`features::Planes::dynamic`]), added at evaluation time.
pub const DYNAMIC: usize = 36;
/// Values of the board to play on (0-8, 9 for any).
pub const TARGETS: usize = 10;
/// First hidden layer, per view.
pub const HIDDEN: usize = 256;
/// Second hidden layer.
pub const HIDDEN2: usize = 32;
/// Policy logits: one per cell.
pub const POLICY: usize = 81;

/// Offsets of each tensor in the flat weight vector ([`Net::to_flat`]).
pub mod layout {
    use super::{DYNAMIC, FEATURES, HIDDEN, HIDDEN2, POLICY, TARGETS};
    /// First layer, `FEATURES x HIDDEN`, one row per feature.
    pub const W1: usize = 0;
    /// First layer's bias.
    pub const B1: usize = W1 + FEATURES * HIDDEN;
    /// Rows of the board to play on, `TARGETS x HIDDEN`.
    pub const WT: usize = B1 + HIDDEN;
    /// Rows of the dynamic features, `DYNAMIC x HIDDEN`.
    pub const WD: usize = WT + TARGETS * HIDDEN;
    /// Second layer, `2 HIDDEN x HIDDEN2`, one row per input (side to
    /// move's half first).
    pub const W2: usize = WD + DYNAMIC * HIDDEN;
    /// Second layer's bias.
    pub const B2: usize = W2 + 2 * HIDDEN * HIDDEN2;
    /// Output weights.
    pub const W3: usize = B2 + HIDDEN2;
    /// Output bias.
    pub const B3: usize = W3 + HIDDEN2;
    /// Policy weights: per cell, a row over the `2 HIDDEN` clipped sums.
    pub const WP: usize = B3 + 1;
    /// Policy biases, per cell.
    pub const BP: usize = WP + POLICY * 2 * HIDDEN;
    /// Weights in all.
    pub const LEN: usize = BP + POLICY;
}

/// The file's magic bytes.
pub const MAGIC: &[u8; 8] = b"UTTTNNUE";
/// The file format's version.
pub const FORMAT_VERSION: u32 = 2;
/// Bytes before the weights.
const HEADER_LEN: usize = 8 + 4 + 12 + 16;
/// Bytes of a whole file.
pub const FILE_LEN: usize = HEADER_LEN + 4 * layout::LEN + 4;
/// Bytes of a version 1 file (no policy head; read with the policy's
/// weights zero, which gives uniform priors).
pub const FILE_LEN_V1: usize = HEADER_LEN + 4 * layout::WP + 4;

/// The net built into the engine.
static BUILTIN: &[u8] = include_bytes!("../../nets/default.bin");

/// Why a weights file cannot be used. The engine then keeps its net.
#[derive(Debug, Error)]
pub enum NetError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}", crate::quote::path(.path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file cannot be written.
    #[error("cannot write {}: {source}", crate::quote::path(.path))]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file does not start with the magic bytes.
    #[error("not an Ultimo net file (it does not start with UTTTNNUE)")]
    Magic,
    /// A format version this engine does not read.
    #[error("net file format version {0}; this engine reads versions 1 and {FORMAT_VERSION}")]
    Version(u32),
    /// The file's layer sizes are not this engine's.
    #[error(
        "the net has layers {found:?}; this engine's are {:?}",
        [FEATURES + DYNAMIC, HIDDEN, HIDDEN2]
    )]
    Shape {
        /// Features, hidden, second hidden in the file.
        found: [u32; 3],
    },
    /// The file is shorter or longer than its header says.
    #[error("the net file has {found} bytes where {expected} are expected (truncated?)")]
    Length {
        /// The file's length.
        found: usize,
        /// The length its version and shape call for.
        expected: usize,
    },
    /// The checksum does not match the contents.
    #[error("the net file is corrupt: checksum {found:08x}, contents give {computed:08x}")]
    Checksum {
        /// The checksum stored.
        found: u32,
        /// The checksum of the contents.
        computed: u32,
    },
    /// A weight is infinite or not a number.
    #[error("the net file is corrupt: weight {index} is {value}")]
    NotFinite {
        /// The weight's index in the flat vector.
        index: usize,
        /// Its value.
        value: f32,
    },
    /// The first layer's sums could be too large for the integer
    /// inference (`quant.rs`).
    #[error(
        "the net's weights are too large: first-layer sums up to {bound:.1}, where this engine's integer inference holds {}",
        quant::MAX_SUM
    )]
    Range {
        /// The largest first-layer sum the weights allow.
        bound: f64,
    },
    /// The name is empty or not printable ASCII.
    #[error("the net's name is empty or not printable ASCII")]
    Name,
    /// The path is no regular file (a FIFO or a device would block or
    /// never end).
    #[error("{} is not a regular file", crate::quote::path(.0))]
    NotAFile(PathBuf),
}

/// FNV-1a, 32 bits: the checksum of net and data files.
pub fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// A net's weights: as the file has them (`f32`), and quantised for
/// inference (`quant.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// The weights as the file has them, in the order of [`layout`].
    flat: Box<[f32]>,
    /// The integer weights the evaluation runs on.
    pub(crate) quant: Quantised,
    b2: [f32; HIDDEN2],
    w3: [f32; HIDDEN2],
    b3: f32,
    bp: [f32; POLICY],
    name: String,
    checksum: u32,
}

impl Net {
    /// A net from its flat weights ([`layout`]) and a name (printable
    /// ASCII, at most 16 bytes; cut to that), quantised for inference.
    pub fn from_flat(flat: &[f32], name: &str) -> Net {
        assert_eq!(flat.len(), layout::LEN);
        let name: String = name
            .chars()
            .filter(|c| c.is_ascii_graphic())
            .take(16)
            .collect();
        let mut net = Net {
            flat: flat.into(),
            quant: Quantised::new(flat),
            b2: std::array::from_fn(|j| flat[layout::B2 + j]),
            w3: std::array::from_fn(|j| flat[layout::W3 + j]),
            b3: flat[layout::B3],
            bp: std::array::from_fn(|c| flat[layout::BP + c]),
            name,
            checksum: 0,
        };
        let bytes = net.to_bytes();
        net.checksum = u32::from_le_bytes(bytes[FILE_LEN - 4..].try_into().expect("4 bytes"));
        net
    }

    /// The flat weights, in the file's order ([`layout`]).
    pub fn to_flat(&self) -> Vec<f32> {
        self.flat.to_vec()
    }

    /// The net built into the engine.
    pub fn builtin() -> &'static Net {
        static NET: std::sync::OnceLock<Net> = std::sync::OnceLock::new();
        NET.get_or_init(|| Net::from_bytes(BUILTIN).expect("the built-in net is valid"))
    }

    /// The net's name, as its file gives it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The net's version: its name and checksum, e.g. `gen1-5e3a9c21`.
    pub fn version(&self) -> String {
        format!("{}-{:08x}", self.name, self.checksum)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_LEN);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        for n in [FEATURES + DYNAMIC, HIDDEN, HIDDEN2] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        let mut name = [0u8; 16];
        name[..self.name.len()].copy_from_slice(self.name.as_bytes());
        out.extend_from_slice(&name);
        for w in self.to_flat() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a net from a file's bytes, checking everything.
    pub fn from_bytes(bytes: &[u8]) -> Result<Net, NetError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(NetError::Magic);
        }
        let word = |at: usize| -> Option<u32> {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        };
        let short = NetError::Length {
            found: bytes.len(),
            expected: FILE_LEN,
        };
        let version = word(8).ok_or(short)?;
        let expected = match version {
            1 => FILE_LEN_V1,
            FORMAT_VERSION => FILE_LEN,
            _ => return Err(NetError::Version(version)),
        };
        let shape = [word(12), word(16), word(20)];
        let [Some(f), Some(h), Some(h2)] = shape else {
            return Err(NetError::Length {
                found: bytes.len(),
                expected,
            });
        };
        if [f, h, h2] != [(FEATURES + DYNAMIC) as u32, HIDDEN as u32, HIDDEN2 as u32] {
            return Err(NetError::Shape { found: [f, h, h2] });
        }
        if bytes.len() != expected {
            return Err(NetError::Length {
                found: bytes.len(),
                expected,
            });
        }
        let found = word(expected - 4).expect("length checked");
        let computed = fnv1a(&bytes[..expected - 4]);
        if found != computed {
            return Err(NetError::Checksum { found, computed });
        }
        let name_bytes = &bytes[24..40];
        let end = name_bytes.iter().position(|&b| b == 0).unwrap_or(16);
        let name = std::str::from_utf8(&name_bytes[..end])
            .ok()
            .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_graphic()))
            .ok_or(NetError::Name)?;
        let mut flat: Vec<f32> = bytes[HEADER_LEN..expected - 4]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        flat.resize(layout::LEN, 0.0);
        if let Some((index, &value)) = flat.iter().enumerate().find(|(_, w)| !w.is_finite()) {
            return Err(NetError::NotFinite { index, value });
        }
        let bound = Quantised::float_bound(&flat);
        if bound > quant::MAX_SUM {
            return Err(NetError::Range { bound });
        }
        Ok(Net::from_flat(&flat, name))
    }

    /// Reads a net file: a regular file (a FIFO or a device is refused
    /// before it is opened), of which no more than a net's length is read.
    pub fn load(path: &Path) -> Result<Net, NetError> {
        use std::io::Read;
        let read = |source| NetError::Read {
            path: path.to_owned(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(read)?;
        if !meta.is_file() {
            return Err(NetError::NotAFile(path.to_owned()));
        }
        let mut bytes = Vec::with_capacity(FILE_LEN + 1);
        std::fs::File::open(path)
            .and_then(|f| {
                f.take(FILE_LEN.max(FILE_LEN_V1) as u64 + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(read)?;
        Net::from_bytes(&bytes).map_err(|e| match e {
            // Only the start was read: the length is the file's.
            NetError::Length { expected, .. } => NetError::Length {
                found: usize::try_from(meta.len())
                    .unwrap_or(usize::MAX)
                    .max(bytes.len()),
                expected,
            },
            e => e,
        })
    }

    /// Writes the net file.
    pub fn save(&self, path: &Path) -> Result<(), NetError> {
        std::fs::write(path, self.to_bytes()).map_err(|source| NetError::Write {
            path: path.to_owned(),
            source,
        })
    }

    /// The output before the sigmoid, from up-to-date sums.
    #[inline]
    pub fn logit(&self, acc: &Accumulator, planes: &Planes) -> f32 {
        self.output(&self.hidden(acc, planes))
    }

    /// The first layer's clipped sums (side to move's half first), from
    /// up-to-date accumulator sums: what the value and policy heads read,
    /// in `[0, qa]` (`qa` stands for 1; `quant.rs`).
    #[inline(always)]
    pub fn hidden(&self, acc: &Accumulator, planes: &Planes) -> [i16; 2 * HIDDEN] {
        let q = &self.quant;
        let side = planes.side;
        let mut views = [acc.sums[side.index()], acc.sums[side.opponent().index()]];
        features::add_row(
            &mut views[0],
            &q.wt[(planes.target as usize).min(TARGETS - 1)],
        );
        let mut dynamic = [[0u8; DYNAMIC]; 2];
        let counts = acc.dynamic(planes, [side, side.opponent()], &mut dynamic);
        for ((sums, dynamic), n) in views.iter_mut().zip(&dynamic).zip(counts) {
            for &f in &dynamic[..n] {
                features::add_row(sums, &q.wd[f as usize]);
            }
        }
        // One loop per view: a loop over `views.iter().flatten()` was not
        // vectorized (scalar compares and branches, about 40% of the
        // evaluation in `perf`).
        let mut hidden = [0i16; 2 * HIDDEN];
        let (mine, theirs) = hidden.split_at_mut(HIDDEN);
        for (half, sums) in [mine, theirs].into_iter().zip(&views) {
            for (h, &s) in half.iter_mut().zip(sums) {
                *h = s.max(0).min(q.qa);
            }
        }
        hidden
    }

    /// The value head's output before the sigmoid.
    #[inline]
    pub fn output(&self, hidden: &[i16; 2 * HIDDEN]) -> f32 {
        self.output_with(Kernels::best(), hidden)
    }

    #[inline(always)]
    fn output_with(&self, kernels: Kernels, hidden: &[i16; 2 * HIDDEN]) -> f32 {
        let mut sums = [0i32; HIDDEN2];
        kernels.affine(&mut sums, hidden, &self.quant.w2);
        let scale = self.quant.w2_scale;
        let mut out = self.b3;
        for ((&s, &b), &w) in sums.iter().zip(&self.b2).zip(&self.w3) {
            out += (b + s as f32 * scale).clamp(0.0, 1.0) * w;
        }
        out
    }

    /// The policy logit of the move to `cell` (`9 * board + cell`, 0-80).
    #[inline]
    pub fn policy_logit(&self, hidden: &[i16; 2 * HIDDEN], cell: usize) -> f32 {
        self.policy_logit_with(Kernels::best(), hidden, cell)
    }

    #[inline(always)]
    fn policy_logit_with(&self, kernels: Kernels, hidden: &[i16; 2 * HIDDEN], cell: usize) -> f32 {
        let cell = cell.min(POLICY - 1);
        self.bp[cell] + kernels.dot(hidden, &self.quant.wp[cell]) as f32 * self.quant.wp_scale
    }

    /// The value of `planes` for the side to move and the priors of the
    /// moves to `cells` (a softmax of their policy logits, each divided by
    /// `temperature`: 1 as the net learnt them, above 1 flatter), into
    /// `priors`. Runs with the fastest kernels the processor has.
    pub fn evaluate_with_policy(
        &self,
        planes: &Planes,
        cells: &[u8],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        self.evaluate_with_policy_using(Kernels::best(), planes, cells, priors, temperature)
    }

    /// [`Net::evaluate_with_policy`] with the given kernels, the whole
    /// evaluation compiled for them (tests compare every set the processor
    /// runs).
    pub fn evaluate_with_policy_using(
        &self,
        kernels: Kernels,
        planes: &Planes,
        cells: &[u8],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if kernels.avx2_fma() {
            // SAFETY: `kernels` are AVX2/FMA only where the processor has
            // AVX2 and FMA.
            return unsafe {
                self.evaluate_with_policy_avx2(kernels, planes, cells, priors, temperature)
            };
        }
        #[cfg(target_arch = "x86_64")]
        if kernels.avx512() {
            // SAFETY: `kernels` are AVX-512 only where the processor has
            // AVX-512 F and BW, AVX2 and FMA.
            return unsafe {
                self.evaluate_with_policy_avx512(kernels, planes, cells, priors, temperature)
            };
        }
        #[cfg(target_arch = "x86_64")]
        if kernels.avx512_vnni() {
            // SAFETY: `kernels` are AVX-512 VNNI only where the processor
            // has AVX-512 F, BW and VNNI, AVX2 and FMA.
            return unsafe {
                self.evaluate_with_policy_avx512_vnni(kernels, planes, cells, priors, temperature)
            };
        }
        self.evaluate_with_policy_in(kernels, planes, cells, priors, temperature)
    }

    /// # Safety
    /// The processor must have AVX-512 F and BW, AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    unsafe fn evaluate_with_policy_avx512(
        &self,
        kernels: Kernels,
        planes: &Planes,
        cells: &[u8],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        self.evaluate_with_policy_in(kernels, planes, cells, priors, temperature)
    }

    /// # Safety
    /// The processor must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn evaluate_with_policy_avx2(
        &self,
        kernels: Kernels,
        planes: &Planes,
        cells: &[u8],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        self.evaluate_with_policy_in(kernels, planes, cells, priors, temperature)
    }

    /// # Safety
    /// The processor must have AVX-512 F, BW and VNNI, AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2,fma")]
    unsafe fn evaluate_with_policy_avx512_vnni(
        &self,
        kernels: Kernels,
        planes: &Planes,
        cells: &[u8],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        self.evaluate_with_policy_in(kernels, planes, cells, priors, temperature)
    }

    #[inline(always)]
    fn evaluate_with_policy_in(
        &self,
        kernels: Kernels,
        planes: &Planes,
        cells: &[u8],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        let acc = Accumulator::new(self, planes);
        let hidden = self.hidden(&acc, planes);
        let inverse = 1.0 / temperature;
        softmax_into(
            cells
                .iter()
                .map(|&c| inverse * self.policy_logit_with(kernels, &hidden, c as usize)),
            priors,
        );
        sigmoid(self.output_with(kernels, &hidden))
    }

    /// The expected score of the side to move, from up-to-date sums.
    #[inline]
    pub fn value(&self, acc: &Accumulator, planes: &Planes) -> f32 {
        sigmoid(self.logit(acc, planes))
    }

    /// The expected score of the side to move in `planes`, from scratch,
    /// with the fastest kernels the processor has.
    pub fn evaluate_planes(&self, planes: &Planes) -> f32 {
        self.evaluate_planes_using(Kernels::best(), planes)
    }

    /// [`Net::evaluate_planes`] with the given kernels.
    pub fn evaluate_planes_using(&self, kernels: Kernels, planes: &Planes) -> f32 {
        #[cfg(target_arch = "x86_64")]
        if kernels.avx2_fma() {
            // SAFETY: `kernels` are AVX2/FMA only where the processor has
            // AVX2 and FMA.
            return unsafe { self.evaluate_planes_avx2(kernels, planes) };
        }
        #[cfg(target_arch = "x86_64")]
        if kernels.avx512() {
            // SAFETY: `kernels` are AVX-512 only where the processor has
            // AVX-512 F and BW, AVX2 and FMA.
            return unsafe { self.evaluate_planes_avx512(kernels, planes) };
        }
        #[cfg(target_arch = "x86_64")]
        if kernels.avx512_vnni() {
            // SAFETY: as above, with VNNI.
            return unsafe { self.evaluate_planes_avx512_vnni(kernels, planes) };
        }
        self.evaluate_planes_in(kernels, planes)
    }

    /// # Safety
    /// The processor must have AVX-512 F and BW, AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
    unsafe fn evaluate_planes_avx512(&self, kernels: Kernels, planes: &Planes) -> f32 {
        self.evaluate_planes_in(kernels, planes)
    }

    /// # Safety
    /// The processor must have AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn evaluate_planes_avx2(&self, kernels: Kernels, planes: &Planes) -> f32 {
        self.evaluate_planes_in(kernels, planes)
    }

    /// # Safety
    /// The processor must have AVX-512 F, BW and VNNI, AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2,fma")]
    unsafe fn evaluate_planes_avx512_vnni(&self, kernels: Kernels, planes: &Planes) -> f32 {
        self.evaluate_planes_in(kernels, planes)
    }

    #[inline(always)]
    fn evaluate_planes_in(&self, kernels: Kernels, planes: &Planes) -> f32 {
        let acc = Accumulator::new(self, planes);
        sigmoid(self.output_with(kernels, &self.hidden(&acc, planes)))
    }
}

/// The logistic function.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The draws' share of an expected score `v`: `0.87 exp(-((v - 1/2) /
/// 0.22)^2)`, at most `2 min(v, 1 - v)`.
///
/// A WDL model in the manner of chess engines' (the net predicts only the
/// expected score): fitted to the results of 15,948 games of the p2 engine
/// against itself (`nets/README.md`, gen3n), whose positions with a search
/// value near 1/2 ended drawn 82-87% of the time, near 0.32 or 0.68 about
/// 45-47%, near 0.22 or 0.78 about 19-20%, and below 0.1 or above 0.9
/// under 5%. It serves the win, draw and loss chances that `info` lines
/// and the tools report, not the search.
pub fn draw_share(v: f32) -> f32 {
    const PEAK: f32 = 0.87;
    const WIDTH: f32 = 0.22;
    let v = if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let d = (v - 0.5) / WIDTH;
    (PEAK * (-d * d).exp()).min(2.0 * v.min(1.0 - v))
}

/// Writes the softmax of `logits` into `out` (as many as there are
/// logits, at most `out.len()`).
pub fn softmax_into(logits: impl Iterator<Item = f32>, out: &mut [f32]) {
    let mut n = 0;
    let mut top = f32::NEG_INFINITY;
    for (o, l) in out.iter_mut().zip(logits) {
        *o = l;
        top = top.max(l);
        n += 1;
    }
    let mut sum = 0.0;
    for o in &mut out[..n] {
        *o = (*o - top).exp();
        sum += *o;
    }
    for o in &mut out[..n] {
        *o /= sum;
    }
}

impl Evaluator<Position> for Net {
    /// The net's value, except where the side to move can win the game at
    /// once: then 1 (the net would have to learn that from few examples;
    /// the rules know it for the price of a few table lookups).
    fn evaluate(&self, pos: &Position) -> f32 {
        if pos.winning_move().is_some() {
            return 1.0;
        }
        self.evaluate_planes(&Planes::from_position(pos))
    }

    /// The value as [`Net::evaluate`] gives it, and the policy head's
    /// priors of `moves` at `temperature`.
    fn evaluate_with_priors(
        &self,
        pos: &Position,
        moves: &[Move],
        priors: &mut [f32],
        temperature: f32,
    ) -> f32 {
        let mut cells = [0u8; POLICY];
        let n = moves.len().min(POLICY);
        for (c, m) in cells.iter_mut().zip(moves) {
            *c = m.index();
        }
        let planes = Planes::from_position(pos);
        let v = self.evaluate_with_policy(&planes, &cells[..n], priors, temperature);
        if pos.winning_move().is_some() { 1.0 } else { v }
    }

    /// The draw share of an expected score, from a curve fitted to the
    /// results of self-play: see [`draw_share`].
    fn draw_share(&self, value: f32) -> f32 {
        draw_share(value)
    }
}

#[cfg(test)]
mod tests;
