//! The net's kernels, chosen when the engine runs: AVX2 and FMA where the
//! processor has them (any x86-64 of the last ten years), plain Rust
//! everywhere else, so that one binary runs on any x86-64 and uses what it
//! finds.
//!
//! [`Kernels`] is the choice. [`Kernels::best`] asks the processor once
//! (`is_x86_feature_detected!`, cached by the standard library). The net's
//! whole evaluation is compiled twice (`Net::evaluate_with_policy` and
//! `Net::evaluate_planes`): once for AVX2/FMA, where the compiler also
//! vectorises the accumulator's row sums sixteen `i16` wide, and once
//! plain.
//!
//! The two dense kernels (the second layer and the policy's dot products,
//! over the quantised net's `i16` activations and weights, summed in
//! `i32`) are hand-written with intrinsics for AVX2 (`vpmaddwd`): with a
//! pair of activations broadcast, one instruction multiplies them with
//! their weights to eight outputs and adds the two products. The plain
//! second layer skips pairs of zero activations (clipped ones); the AVX2
//! one multiplies them all (with `f32` kernels a branch on zeros cost more
//! than it saved). Integer sums do not depend on their order, so every
//! kernel gives the plain loops' results exactly.
//!
//! In `f32` (before the net was quantised) the intrinsics had made
//! `ultimo bench --eval net` 20-30% faster than the plain loops compiled
//! for AVX2, which the compiler made 128-bit and scalar operations of.
//!
//! AVX-512 kernels (512-bit `vpmaddwd`, and with VNNI `vpdpwssd`, which
//! multiplies, adds the pairs and accumulates in one instruction) are
//! there too, with the whole evaluation compiled for them, and tested
//! against the plain loops wherever the processor has them; the criterion
//! bench `nnue kernels` compares every set the processor runs. They are
//! not [`Kernels::best`]: see there.

use super::{HIDDEN, HIDDEN2};

/// Which kernels the net runs with. Only [`Kernels::plain`] and what
/// [`Kernels::best`] and [`Kernels::supported`] detect can be made, so a
/// value promises that the processor runs its kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernels(Level);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Plain,
    #[cfg(target_arch = "x86_64")]
    Avx2Fma,
    /// AVX-512 (F and BW: 512-bit `vpmaddwd`), with AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX-512 with VNNI (`vpdpwssd`: multiply, add pairs and accumulate in
    /// one instruction).
    #[cfg(target_arch = "x86_64")]
    Avx512Vnni,
}

impl Kernels {
    /// Plain Rust, for any processor.
    pub fn plain() -> Kernels {
        Kernels(Level::Plain)
    }

    /// The fastest kernels this processor runs.
    #[inline]
    ///
    /// AVX2/FMA also where the processor has AVX-512: the AVX-512 kernels
    /// made a whole evaluation only a little faster and the search no
    /// faster on an AMD EPYC, and the search 5% slower on an Intel Xeon
    /// (docs/net.md), so they are there to measure, not chosen.
    pub fn best() -> Kernels {
        #[cfg(target_arch = "x86_64")]
        if has_avx2_fma() {
            return Kernels(Level::Avx2Fma);
        }
        Kernels::plain()
    }

    /// Every set of kernels this processor runs, plain first (for tests
    /// and benches that compare them).
    pub fn supported() -> Vec<Kernels> {
        let mut all = vec![Kernels::plain()];
        #[cfg(target_arch = "x86_64")]
        {
            if has_avx2_fma() {
                all.push(Kernels(Level::Avx2Fma));
            }
            if has_avx512() {
                all.push(Kernels(Level::Avx512));
            }
            if has_avx512_vnni() {
                all.push(Kernels(Level::Avx512Vnni));
            }
        }
        all
    }

    /// The kernels' name, as `bench` reports it: `avx512`, `avx2+fma` or
    /// `plain`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Level::Plain => "plain",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Fma => "avx2+fma",
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => "avx512",
            #[cfg(target_arch = "x86_64")]
            Level::Avx512Vnni => "avx512+vnni",
        }
    }

    /// Whether these are the AVX2/FMA kernels: the callers that compile a
    /// whole evaluation for AVX2 ask this.
    #[inline(always)]
    pub fn avx2_fma(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.0 == Level::Avx2Fma {
            return true;
        }
        false
    }

    /// Whether these are the AVX-512 kernels (without VNNI): the callers
    /// that compile a whole evaluation for AVX-512 ask this.
    #[inline(always)]
    pub fn avx512(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.0 == Level::Avx512 {
            return true;
        }
        false
    }

    /// Whether these are the AVX-512 VNNI kernels: the callers that compile
    /// a whole evaluation for them ask this.
    #[inline(always)]
    pub fn avx512_vnni(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.0 == Level::Avx512Vnni {
            return true;
        }
        false
    }

    /// `out[j] += sum_i input[i] w(i, j)`, where `w(i, j)` is
    /// `rows[i / 2][2 j + i % 2]` (inputs paired, as `vpmaddwd` wants
    /// them). The exact sums must fit an `i32`: they do for activations in
    /// `[0, qa]` and the quantised weights (`quant.rs`).
    #[inline(always)]
    pub fn affine(
        self,
        out: &mut [i32; HIDDEN2],
        input: &[i16; 2 * HIDDEN],
        rows: &[[i16; 2 * HIDDEN2]; HIDDEN],
    ) {
        match self.0 {
            Level::Plain => affine_plain(out, input, rows),
            // SAFETY: a `Level::Avx2Fma` is only made by `best`, after the
            // processor said it has AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Fma => unsafe { affine_avx2(out, input, rows) },
            // SAFETY: a `Level::Avx512` is only made after the processor
            // said it has AVX-512 F and BW (and AVX2 and FMA).
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { affine_avx512(out, input, rows) },
            // SAFETY: a `Level::Avx512Vnni` is only made after the
            // processor said it has AVX-512 F, BW and VNNI.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512Vnni => unsafe { affine_avx512_vnni(out, input, rows) },
        }
    }

    /// The dot product of two 256-long vectors, whose exact value (and
    /// every partial sum's) must fit an `i32`, as in [`Kernels::affine`].
    #[inline(always)]
    pub fn dot(self, a: &[i16; 2 * HIDDEN], b: &[i16; 2 * HIDDEN]) -> i32 {
        match self.0 {
            Level::Plain => dot_plain(a, b),
            // SAFETY: as in `affine`.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Fma => unsafe { dot_avx2(a, b) },
            // SAFETY: as in `affine`.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { dot_avx512(a, b) },
            // SAFETY: as in `affine`.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512Vnni => unsafe { dot_avx512_vnni(a, b) },
        }
    }
}

/// Whether the processor has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// Whether the processor has what the AVX-512 kernels use.
#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    has_avx2_fma()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

/// Whether the processor has what the AVX-512 VNNI kernels use.
#[cfg(target_arch = "x86_64")]
fn has_avx512_vnni() -> bool {
    has_avx512() && std::arch::is_x86_feature_detected!("avx512vnni")
}

#[inline(always)]
fn affine_plain(
    out: &mut [i32; HIDDEN2],
    input: &[i16; 2 * HIDDEN],
    rows: &[[i16; 2 * HIDDEN2]; HIDDEN],
) {
    for (pair, row) in input.chunks_exact(2).zip(rows) {
        let (x0, x1) = (pair[0] as i32, pair[1] as i32);
        if x0 | x1 != 0 {
            for (o, w) in out.iter_mut().zip(row.chunks_exact(2)) {
                *o += x0 * w[0] as i32 + x1 * w[1] as i32;
            }
        }
    }
}

#[inline(always)]
fn dot_plain(a: &[i16; 2 * HIDDEN], b: &[i16; 2 * HIDDEN]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}

/// # Safety
/// The processor must have AVX2. Every load and store is unaligned and
/// stays inside its array: the pairs of `input` at `i16` offsets `2 i`
/// (`i` < `HIDDEN`, four bytes each), the rows of 64 `i16` and `out`'s 32
/// `i32` at offsets 0, 16, 32 and 48, and 0, 8, 16 and 24, 32 bytes each.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn affine_avx2(
    out: &mut [i32; HIDDEN2],
    input: &[i16; 2 * HIDDEN],
    rows: &[[i16; 2 * HIDDEN2]; HIDDEN],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(HIDDEN2 == 32);
    // SAFETY: the caller guarantees AVX2 (see `# Safety`); the offsets are
    // those listed there.
    unsafe {
        let o = out.as_mut_ptr().cast::<__m256i>();
        let mut acc = [
            _mm256_loadu_si256(o),
            _mm256_loadu_si256(o.add(1)),
            _mm256_loadu_si256(o.add(2)),
            _mm256_loadu_si256(o.add(3)),
        ];
        let pairs = input.as_ptr().cast::<i32>();
        for (i, row) in rows.iter().enumerate() {
            // Inputs 2i (low half) and 2i + 1 (high half) in every lane:
            // lane m of `madd` is x0 w(2i, j) + x1 w(2i + 1, j), j = 8k + m.
            let x = _mm256_set1_epi32(pairs.add(i).read_unaligned());
            let r = row.as_ptr().cast::<__m256i>();
            for (k, a) in acc.iter_mut().enumerate() {
                *a = _mm256_add_epi32(*a, _mm256_madd_epi16(x, _mm256_loadu_si256(r.add(k))));
            }
        }
        for (k, a) in acc.into_iter().enumerate() {
            _mm256_storeu_si256(o.add(k), a);
        }
    }
}

/// # Safety
/// The processor must have AVX2. The unaligned loads read offsets 0 to 240
/// of 256-long `i16` arrays, sixteen each.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2(a: &[i16; 2 * HIDDEN], b: &[i16; 2 * HIDDEN]) -> i32 {
    use std::arch::x86_64::*;
    const _: () = assert!((2 * HIDDEN).is_multiple_of(32));
    // SAFETY: the caller guarantees AVX2 (see `# Safety`); the offsets are
    // those listed there.
    unsafe {
        let (pa, pb) = (a.as_ptr().cast::<__m256i>(), b.as_ptr().cast::<__m256i>());
        let mut acc = [_mm256_setzero_si256(); 2];
        for i in (0..2 * HIDDEN / 16).step_by(2) {
            for (k, s) in acc.iter_mut().enumerate() {
                let p = _mm256_madd_epi16(
                    _mm256_loadu_si256(pa.add(i + k)),
                    _mm256_loadu_si256(pb.add(i + k)),
                );
                *s = _mm256_add_epi32(*s, p);
            }
        }
        let s = _mm256_add_epi32(acc[0], acc[1]);
        let q = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        let q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0b01_00_11_10));
        let q = _mm_add_epi32(q, _mm_shuffle_epi32(q, 0b10_11_00_01));
        _mm_cvtsi128_si32(q)
    }
}

/// # Safety
/// The processor must have AVX-512 F and BW. As [`affine_avx2`], with the
/// rows read as two 64-byte halves (offsets 0 and 32 `i16`) and `out` as
/// two (offsets 0 and 16 `i32`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
unsafe fn affine_avx512(
    out: &mut [i32; HIDDEN2],
    input: &[i16; 2 * HIDDEN],
    rows: &[[i16; 2 * HIDDEN2]; HIDDEN],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(HIDDEN2 == 32);
    // SAFETY: the caller guarantees AVX-512 F and BW (see `# Safety`); the
    // offsets are those listed there.
    unsafe {
        let o = out.as_mut_ptr().cast::<__m512i>();
        let mut acc = [_mm512_loadu_si512(o), _mm512_loadu_si512(o.add(1))];
        let pairs = input.as_ptr().cast::<i32>();
        for (i, row) in rows.iter().enumerate() {
            // Lane m of `madd` is x0 w(2i, j) + x1 w(2i + 1, j), j = 16k + m.
            let x = _mm512_set1_epi32(pairs.add(i).read_unaligned());
            let r = row.as_ptr().cast::<__m512i>();
            for (k, a) in acc.iter_mut().enumerate() {
                *a = _mm512_add_epi32(*a, _mm512_madd_epi16(x, _mm512_loadu_si512(r.add(k))));
            }
        }
        for (k, a) in acc.into_iter().enumerate() {
            _mm512_storeu_si512(o.add(k), a);
        }
    }
}

/// # Safety
/// The processor must have AVX-512 F and BW. The unaligned loads read
/// offsets 0 to 224 of 256-long `i16` arrays, thirty-two each.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx2,fma")]
unsafe fn dot_avx512(a: &[i16; 2 * HIDDEN], b: &[i16; 2 * HIDDEN]) -> i32 {
    use std::arch::x86_64::*;
    const _: () = assert!((2 * HIDDEN).is_multiple_of(64));
    // SAFETY: the caller guarantees AVX-512 F and BW (see `# Safety`); the
    // offsets are those listed there.
    unsafe {
        let (pa, pb) = (a.as_ptr().cast::<__m512i>(), b.as_ptr().cast::<__m512i>());
        let mut acc = [_mm512_setzero_si512(); 2];
        for i in (0..2 * HIDDEN / 32).step_by(2) {
            for (k, s) in acc.iter_mut().enumerate() {
                let p = _mm512_madd_epi16(
                    _mm512_loadu_si512(pa.add(i + k)),
                    _mm512_loadu_si512(pb.add(i + k)),
                );
                *s = _mm512_add_epi32(*s, p);
            }
        }
        _mm512_reduce_add_epi32(_mm512_add_epi32(acc[0], acc[1]))
    }
}

/// # Safety
/// The processor must have AVX-512 F, BW and VNNI; the offsets are
/// [`affine_avx512`]'s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2,fma")]
unsafe fn affine_avx512_vnni(
    out: &mut [i32; HIDDEN2],
    input: &[i16; 2 * HIDDEN],
    rows: &[[i16; 2 * HIDDEN2]; HIDDEN],
) {
    use std::arch::x86_64::*;
    // SAFETY: the caller guarantees AVX-512 F, BW and VNNI (see
    // `# Safety`); the offsets are those of `affine_avx512`.
    unsafe {
        let o = out.as_mut_ptr().cast::<__m512i>();
        let mut acc = [_mm512_loadu_si512(o), _mm512_loadu_si512(o.add(1))];
        let pairs = input.as_ptr().cast::<i32>();
        for (i, row) in rows.iter().enumerate() {
            let x = _mm512_set1_epi32(pairs.add(i).read_unaligned());
            let r = row.as_ptr().cast::<__m512i>();
            for (k, a) in acc.iter_mut().enumerate() {
                *a = _mm512_dpwssd_epi32(*a, x, _mm512_loadu_si512(r.add(k)));
            }
        }
        for (k, a) in acc.into_iter().enumerate() {
            _mm512_storeu_si512(o.add(k), a);
        }
    }
}

/// # Safety
/// The processor must have AVX-512 F, BW and VNNI; the offsets are
/// [`dot_avx512`]'s.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2,fma")]
unsafe fn dot_avx512_vnni(a: &[i16; 2 * HIDDEN], b: &[i16; 2 * HIDDEN]) -> i32 {
    use std::arch::x86_64::*;
    // SAFETY: the caller guarantees AVX-512 F, BW and VNNI (see
    // `# Safety`); the offsets are those of `dot_avx512`.
    unsafe {
        let (pa, pb) = (a.as_ptr().cast::<__m512i>(), b.as_ptr().cast::<__m512i>());
        let mut acc = [_mm512_setzero_si512(); 2];
        for i in (0..2 * HIDDEN / 32).step_by(2) {
            for (k, s) in acc.iter_mut().enumerate() {
                *s = _mm512_dpwssd_epi32(
                    *s,
                    _mm512_loadu_si512(pa.add(i + k)),
                    _mm512_loadu_si512(pb.add(i + k)),
                );
            }
        }
        _mm512_reduce_add_epi32(_mm512_add_epi32(acc[0], acc[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_match_plain_loops_exactly() {
        // Activations in [0, 1024] with many zeros (clipped), weights over
        // the whole range the quantisation allows at that scale.
        let l = (i32::MAX / (2 * HIDDEN as i32) / 1024) as i64;
        let mut x = [0i16; 2 * HIDDEN];
        let mut y = [0i16; 2 * HIDDEN];
        let mut rows = [[0i16; 2 * HIDDEN2]; HIDDEN];
        for i in 0..2 * HIDDEN {
            x[i] = match i % 5 {
                0 | 3 => 0,
                1 => 1024,
                _ => (i * 37 % 1025) as i16,
            };
            y[i] = ((i as i64 * 7919 % (2 * l + 1)) - l) as i16;
        }
        for (i, row) in rows.iter_mut().enumerate() {
            for (k, w) in row.iter_mut().enumerate() {
                *w = (((i * 131 + k * 17) as i64 * 104_729 % (2 * l + 1)) - l) as i16;
            }
        }
        // The extremes too: every activation at 1024 against the largest
        // weights of one sign.
        let full = [1024i16; 2 * HIDDEN];
        let top = [l as i16; 2 * HIDDEN];
        let bottom = [-l as i16; 2 * HIDDEN];
        let want_dot = |a: &[i16], b: &[i16]| -> i64 {
            a.iter().zip(b).map(|(&p, &q)| p as i64 * q as i64).sum()
        };
        let all = Kernels::supported();
        // Every path the processor runs is tested; those it lacks are
        // named as skipped.
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(
                all.len(),
                1 + usize::from(has_avx2_fma())
                    + usize::from(has_avx512())
                    + usize::from(has_avx512_vnni())
            );
            if !has_avx512_vnni() {
                eprintln!("no AVX-512 (VNNI) on this processor: those kernels are not tested here");
            }
        }
        for kernels in all {
            let name = kernels.name();
            for (a, b) in [(&x, &y), (&full, &top), (&full, &bottom), (&x, &x)] {
                assert_eq!(kernels.dot(a, b) as i64, want_dot(a, b), "{name}");
            }
            for input in [&x, &full] {
                let mut out = [7i32; HIDDEN2];
                kernels.affine(&mut out, input, &rows);
                for j in 0..HIDDEN2 {
                    let want: i64 = 7
                        + (0..2 * HIDDEN)
                            .map(|i| input[i] as i64 * rows[i / 2][2 * j + i % 2] as i64)
                            .sum::<i64>();
                    assert_eq!(out[j] as i64, want, "{name} {j}");
                }
            }
        }
    }
}
