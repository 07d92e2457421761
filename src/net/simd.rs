//! The net's two dense kernels (the second layer and the policy's dot
//! products): AVX2 and FMA intrinsics where the build has them
//! (`target-cpu=native` on any x86-64 of the last ten years), plain Rust
//! otherwise. `perf stat -r 3` of `ultimo bench --eval net` (352,234 nodes
//! either way) takes 718-833 ms with the plain loops compiled for AVX2 (the
//! compiler makes 128-bit and scalar operations of them, and a chain of
//! dependent adds) and 579 ms with the intrinsics.
//!
//! The AVX2 kernel multiplies every input, zeros included: a branch that
//! skipped the zeros (clipped activations) cost more than it saved there
//! (`perf stat` of the same bench: 966 ms with it, 619 ms without). The
//! plain loop of [`affine`] skips them; that path is not measured.

use super::{HIDDEN, HIDDEN2};

/// `out[j] += sum_i input[i] * rows[i][j]`.
#[inline]
pub fn affine(
    out: &mut [f32; HIDDEN2],
    input: &[f32; 2 * HIDDEN],
    rows: &[[f32; HIDDEN2]; 2 * HIDDEN],
) {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        // SAFETY: the cfg guarantees AVX2 and FMA; every load and store is
        // unaligned (`loadu`/`storeu`) and stays inside `out` or a row:
        // offsets 0, 8, 16 and 24 of 32-float arrays.
        unsafe { affine_avx2(out, input, rows) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        for (&x, row) in input.iter().zip(rows) {
            if x != 0.0 {
                for (o, &w) in out.iter_mut().zip(row) {
                    *o += x * w;
                }
            }
        }
    }
}

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
#[inline]
unsafe fn affine_avx2(
    out: &mut [f32; HIDDEN2],
    input: &[f32; 2 * HIDDEN],
    rows: &[[f32; HIDDEN2]; 2 * HIDDEN],
) {
    use std::arch::x86_64::*;
    const _: () = assert!(HIDDEN2 == 32 && (2 * HIDDEN).is_multiple_of(2));
    // SAFETY: see `affine`.
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

/// The dot product of two 128-float vectors.
#[inline]
pub fn dot(a: &[f32; 2 * HIDDEN], b: &[f32; 2 * HIDDEN]) -> f32 {
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    ))]
    {
        // SAFETY: the cfg guarantees AVX2 and FMA; the unaligned loads
        // read offsets 0 to 120 of 128-float arrays, eight floats each.
        unsafe { dot_avx2(a, b) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma"
    )))]
    {
        let mut lanes = [0f32; 8];
        for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
            for k in 0..8 {
                lanes[k] += x[k] * y[k];
            }
        }
        lanes.iter().sum()
    }
}

#[cfg(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "fma"
))]
#[inline]
unsafe fn dot_avx2(a: &[f32; 2 * HIDDEN], b: &[f32; 2 * HIDDEN]) -> f32 {
    use std::arch::x86_64::*;
    const _: () = assert!((2 * HIDDEN).is_multiple_of(32));
    // SAFETY: see `dot`.
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
        assert!((dot(&x, &y) - plain_dot).abs() < 1e-3);
        let mut out = [0.5f32; HIDDEN2];
        affine(&mut out, &x, &rows);
        for j in 0..HIDDEN2 {
            let want: f32 = 0.5 + (0..2 * HIDDEN).map(|i| x[i] * rows[i][j]).sum::<f32>();
            assert!((out[j] - want).abs() < 1e-3, "{j}: {} vs {want}", out[j]);
        }
    }
}
