//! The net's kernels, chosen when the engine runs: AVX2 and FMA where the
//! processor has them (any x86-64 of the last ten years), plain Rust
//! everywhere else, so that one binary runs on any x86-64 and uses what it
//! finds.
//!
//! [`Kernels`] is the choice. [`Kernels::best`] asks the processor once
//! (`is_x86_feature_detected!`, cached by the standard library). The net's
//! whole evaluation is compiled twice (`Net::evaluate_with_policy` and
//! `Net::evaluate_planes`): once for AVX2/FMA, where the compiler also
//! vectorises the accumulator's row sums 8 floats wide, and once plain.
//!
//! The two dense kernels (the second layer and the policy's dot products)
//! are hand-written with intrinsics for AVX2/FMA: `perf stat -r 3` of
//! `ultimo bench --eval net` (352,234 nodes either way) took 718-833 ms
//! with the plain loops compiled for AVX2 (the compiler makes 128-bit and
//! scalar operations of them, and a chain of dependent adds) and 579 ms
//! with the intrinsics. The AVX2 kernel multiplies every input, zeros
//! included: a branch that skipped the zeros (clipped activations) cost
//! more than it saved there (966 ms with it, 619 ms without). The plain
//! loop of the second layer skips them.
//!
//! No AVX-512 kernel: the second layer is 32 floats wide (two 512-bit
//! registers against four 256-bit ones), and no machine this project runs
//! on has AVX-512 to measure or test one.

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
}

impl Kernels {
    /// Plain Rust, for any processor.
    pub fn plain() -> Kernels {
        Kernels(Level::Plain)
    }

    /// The fastest kernels this processor runs.
    #[inline]
    pub fn best() -> Kernels {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Kernels(Level::Avx2Fma);
        }
        Kernels::plain()
    }

    /// Every set of kernels this processor runs, plain first (for tests
    /// that compare them).
    pub fn supported() -> Vec<Kernels> {
        let mut all = vec![Kernels::plain()];
        if Kernels::best() != Kernels::plain() {
            all.push(Kernels::best());
        }
        all
    }

    /// The kernels' name, as `bench` reports it: `avx2+fma` or `plain`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Level::Plain => "plain",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Fma => "avx2+fma",
        }
    }

    /// Whether these are the AVX2/FMA kernels: the callers that compile a
    /// whole evaluation for AVX2 ask this.
    #[inline(always)]
    pub fn avx2_fma(self) -> bool {
        match self.0 {
            Level::Plain => false,
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Fma => true,
        }
    }

    /// `out[j] += sum_i input[i] * rows[i][j]`.
    #[inline(always)]
    pub fn affine(
        self,
        out: &mut [f32; HIDDEN2],
        input: &[f32; 2 * HIDDEN],
        rows: &[[f32; HIDDEN2]; 2 * HIDDEN],
    ) {
        match self.0 {
            Level::Plain => affine_plain(out, input, rows),
            // SAFETY: a `Level::Avx2Fma` is only made by `best`, after the
            // processor said it has AVX2 and FMA.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Fma => unsafe { affine_avx2(out, input, rows) },
        }
    }

    /// The dot product of two 128-float vectors.
    #[inline(always)]
    pub fn dot(self, a: &[f32; 2 * HIDDEN], b: &[f32; 2 * HIDDEN]) -> f32 {
        match self.0 {
            Level::Plain => dot_plain(a, b),
            // SAFETY: as in `affine`.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2Fma => unsafe { dot_avx2(a, b) },
        }
    }
}

#[inline(always)]
fn affine_plain(
    out: &mut [f32; HIDDEN2],
    input: &[f32; 2 * HIDDEN],
    rows: &[[f32; HIDDEN2]; 2 * HIDDEN],
) {
    for (&x, row) in input.iter().zip(rows) {
        if x != 0.0 {
            for (o, &w) in out.iter_mut().zip(row) {
                *o += x * w;
            }
        }
    }
}

#[inline(always)]
fn dot_plain(a: &[f32; 2 * HIDDEN], b: &[f32; 2 * HIDDEN]) -> f32 {
    let mut lanes = [0f32; 8];
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        for k in 0..8 {
            lanes[k] += x[k] * y[k];
        }
    }
    lanes.iter().sum()
}

/// # Safety
/// The processor must have AVX2 and FMA. Every load and store is unaligned
/// (`loadu`/`storeu`) and stays inside `out` or a row: offsets 0, 8, 16
/// and 24 of 32-float arrays.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn affine_avx2(
    out: &mut [f32; HIDDEN2],
    input: &[f32; 2 * HIDDEN],
    rows: &[[f32; HIDDEN2]; 2 * HIDDEN],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(HIDDEN2 == 32 && (2 * HIDDEN).is_multiple_of(2));
    // SAFETY: the caller guarantees AVX2 and FMA (see `# Safety`); the
    // offsets are those listed there.
    unsafe {
        let o = out.as_mut_ptr();
        // Two sets of four accumulators (even and odd inputs) halve the
        // chains of dependent FMAs.
        let mut a = [
            _mm256_loadu_ps(o),
            _mm256_loadu_ps(o.add(8)),
            _mm256_loadu_ps(o.add(16)),
            _mm256_loadu_ps(o.add(24)),
        ];
        let mut b = [_mm256_setzero_ps(); 4];
        for i in (0..2 * HIDDEN).step_by(2) {
            let (x0, x1) = (input[i], input[i + 1]);
            let x = _mm256_set1_ps(x0);
            let r = rows[i].as_ptr();
            for (k, acc) in a.iter_mut().enumerate() {
                *acc = _mm256_fmadd_ps(x, _mm256_loadu_ps(r.add(8 * k)), *acc);
            }
            let x = _mm256_set1_ps(x1);
            let r = rows[i + 1].as_ptr();
            for (k, acc) in b.iter_mut().enumerate() {
                *acc = _mm256_fmadd_ps(x, _mm256_loadu_ps(r.add(8 * k)), *acc);
            }
        }
        for k in 0..4 {
            _mm256_storeu_ps(o.add(8 * k), _mm256_add_ps(a[k], b[k]));
        }
    }
}

/// # Safety
/// The processor must have AVX2 and FMA. The unaligned loads read offsets
/// 0 to 120 of 128-float arrays, eight floats each.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2(a: &[f32; 2 * HIDDEN], b: &[f32; 2 * HIDDEN]) -> f32 {
    use std::arch::x86_64::*;
    const _: () = assert!((2 * HIDDEN).is_multiple_of(32));
    // SAFETY: the caller guarantees AVX2 and FMA (see `# Safety`); the
    // offsets are those listed there.
    unsafe {
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm256_setzero_ps(); 4];
        for i in (0..2 * HIDDEN).step_by(32) {
            for (k, s) in acc.iter_mut().enumerate() {
                let at = i + 8 * k;
                *s = _mm256_fmadd_ps(_mm256_loadu_ps(pa.add(at)), _mm256_loadu_ps(pb.add(at)), *s);
            }
        }
        let s = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        let q = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
        let q = _mm_add_ps(q, _mm_movehl_ps(q, q));
        let q = _mm_add_ss(q, _mm_shuffle_ps(q, q, 1));
        _mm_cvtss_f32(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_match_plain_loops() {
        let mut x = [0f32; 2 * HIDDEN];
        let mut y = [0f32; 2 * HIDDEN];
        let mut rows = [[0f32; HIDDEN2]; 2 * HIDDEN];
        for i in 0..2 * HIDDEN {
            // Some zeros, as clipped activations have.
            x[i] = if i % 3 == 0 {
                0.0
            } else {
                ((i * 37 % 101) as f32 - 50.0) / 50.0
            };
            y[i] = ((i * 53 % 97) as f32 - 48.0) / 40.0;
            for (j, w) in rows[i].iter_mut().enumerate() {
                *w = (((i * 31 + j * 17) % 89) as f32 - 44.0) / 30.0;
            }
        }
        let plain_dot: f32 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
        let all = Kernels::supported();
        // Where the processor has AVX2 and FMA, both paths are tested.
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            all.len(),
            1 + usize::from(
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            )
        );
        for kernels in all {
            let name = kernels.name();
            assert!((kernels.dot(&x, &y) - plain_dot).abs() < 1e-3, "{name}");
            let mut out = [0.5f32; HIDDEN2];
            kernels.affine(&mut out, &x, &rows);
            for j in 0..HIDDEN2 {
                let want: f32 = 0.5 + (0..2 * HIDDEN).map(|i| x[i] * rows[i][j]).sum::<f32>();
                assert!(
                    (out[j] - want).abs() < 1e-3,
                    "{name} {j}: {} vs {want}",
                    out[j]
                );
            }
        }
    }
}
