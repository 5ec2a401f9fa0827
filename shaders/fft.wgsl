// Fast Fourier transforms of complex arrays stored as interleaved float32 pairs (re, im), along one
// axis of a C-ordered array seen as (outer, n, inner): element i of the transform of row (o, c) is
// at (o * n + i) * inner + c. pycore/kernels/fft.py chains these kernels into a plan: each reads
// `src` and writes `dst` (two buffers ping-ponged, the last kernel writing the output), `aux` is a
// second input where one is needed (Bluestein's filter).
//
// Powers of two: Stockham autosort passes (each pass reads with stride n / r and writes its r
// outputs p apart, so the result comes out in natural order). `fft_local` runs whole transforms of
// up to LOCAL_N values in workgroup memory (several short rows per workgroup; radix 4, and radix 2
// once for an odd power); a longer transform, or one along a middle axis, runs `fft_local` first on
// L-point sub-transforms (the values n / L apart; at least 8 side by side in memory per workgroup,
// so that its loads are coalesced), then the remaining passes over global memory (`fft_pass16`,
// a 16-point DFT in registers as 4 x 4; `fft_pass4`, `fft_pass2` for the last bits). Other lengths by Bluestein's chirp-z: the input times a chirp, zero
// padded to a power of two m >= 2n - 1 (`fft_chirp_in`), convolved with the chirp (a forward
// transform, a product with the chirp's transform `fft_mul`, an inverse transform), times the chirp
// again (`fft_chirp_out`). `fft_resize` crops or zero-pads the axis (and extends a Hermitian half).
//
// Twiddle factors are computed, not looked up: exp(-2 pi i j / m) with j / m reduced to an octant
// exactly in integers, then sin and cos of an angle in [0, pi/4] by polynomials (the hardware's
// sin and cos promise only an absolute error of 2^-11 in WGSL). The chirp's angle pi j^2 / n is
// reduced the same way: j^2 mod 2n in integer arithmetic.
//
// Uniform words (all kernels): 0 items (threads; fft_local: sub-transforms), 1 n (the axis length
// written), 2 inner, 3 p (the pass's span) or L (fft_local's transform length) or m, 4 inverse
// (0 or 1), 5 scale (f32 bits, applied to the values written), 6 S (fft_local: n / L) or the axis
// length read (chirps, resize), 7 R (fft_local: sub-transforms per workgroup) or the Hermitian flag
// (resize), 8 log2(L) (fft_local).

@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read> aux: array<vec2<f32>>;
@group(0) @binding(3) var<uniform> words: array<vec4<u32>, 3>;

const LOCAL_N: u32 = 2048u;  // complex values fft_local holds (16 KiB of workgroup memory)
const QUARTER_PI: f32 = 0.78539816339744830962;

var<workgroup> tile: array<vec2<f32>, LOCAL_N>;

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// -i v for a forward transform, +i v for an inverse one.
fn rot(v: vec2<f32>, inverse: bool) -> vec2<f32> {
    return select(vec2<f32>(v.y, -v.x), vec2<f32>(-v.y, v.x), inverse);
}

// (cos x, sin x) for x in [0, pi/4]: Taylor polynomials (truncation below 3e-9 relative).
fn cos_sin_octant(x: f32) -> vec2<f32> {
    let x2 = x * x;
    let s = x * (1.0 + x2 * (-0.16666666666666666 + x2 * (0.008333333333333333
        + x2 * (-0.0001984126984126984 + x2 * 2.7557319223985893e-6))));
    let c = 1.0 + x2 * (-0.5 + x2 * (0.041666666666666664 + x2 * (-0.001388888888888889
        + x2 * (2.48015873015873e-5 + x2 * -2.755731922398589e-7))));
    return vec2<f32>(c, s);
}

// exp(-2 pi i j / m) (inverse: exp(+2 pi i j / m)) for j < m <= 2^28: the angle is
// (pi / 4) (o + r / m) with 8 j = o m + r, the octant o and r exact in integers.
fn twiddle(j: u32, m: u32, inverse: bool) -> vec2<f32> {
    let e = 8u * j;
    let o = e / m;
    let r = e - o * m;
    let odd = (o & 1u) == 1u;
    let num = select(r, m - r, odd);  // odd octants: the angle measured back from the next one
    let cs = cos_sin_octant(QUARTER_PI * (f32(num) / f32(m)));
    var c: f32;
    var s: f32;
    switch o {
        case 0u: { c = cs.x; s = cs.y; }
        case 1u: { c = cs.y; s = cs.x; }
        case 2u: { c = -cs.y; s = cs.x; }
        case 3u: { c = -cs.x; s = cs.y; }
        case 4u: { c = -cs.x; s = -cs.y; }
        case 5u: { c = -cs.y; s = -cs.x; }
        case 6u: { c = cs.y; s = -cs.x; }
        default: { c = cs.x; s = -cs.y; }
    }
    return vec2<f32>(c, select(-s, s, inverse));
}

// j * j mod m (m < 2^30), by doubling and adding: no intermediate reaches 2^31.
fn square_mod(j: u32, m: u32) -> u32 {
    let a = j % m;
    var r = 0u;
    for (var b = i32(firstLeadingBit(a)); b >= 0; b = b - 1) {
        r = r * 2u;
        if (r >= m) { r = r - m; }
        if (((a >> u32(b)) & 1u) == 1u) {
            r = r + a;
            if (r >= m) { r = r - m; }
        }
    }
    return r;
}

// exp(-pi i j^2 / n) (inverse: exp(+pi i j^2 / n)), j^2 reduced modulo 2n exactly.
fn chirp(j: u32, n: u32, inverse: bool) -> vec2<f32> {
    return twiddle(square_mod(j, 2u * n), 2u * n, inverse);
}

struct Four {
    a: vec2<f32>,
    b: vec2<f32>,
    c: vec2<f32>,
    d: vec2<f32>,
}

// The radix-4 butterfly of Stockham's pass with span p: inputs a..d (q apart in the source) of
// butterfly j, k = j % p, twiddled by w^t, w = exp(-2 pi i k / 4p); the 4-point DFT of them.
fn radix4(x: Four, k: u32, p: u32, inverse: bool) -> Four {
    var b = x.b;
    var c = x.c;
    var d = x.d;
    if (k != 0u) {
        b = cmul(b, twiddle(k, 4u * p, inverse));
        c = cmul(c, twiddle(2u * k, 4u * p, inverse));
        d = cmul(d, twiddle(3u * k, 4u * p, inverse));
    }
    let s0 = x.a + c;
    let d0 = x.a - c;
    let s1 = b + d;
    let d1 = rot(b - d, inverse);
    return Four(s0 + s1, d0 + d1, s0 - s1, d0 - d1);
}

fn radix2(a: vec2<f32>, b: vec2<f32>, k: u32, p: u32, inverse: bool) -> vec4<f32> {
    var w = b;
    if (k != 0u) { w = cmul(b, twiddle(k, 2u * p, inverse)); }
    return vec4<f32>(a + w, a - w);
}

// ---- the kernels

// One radix-4 pass over global memory: a thread per butterfly, the rows' inner index fastest (so
// neighbouring threads touch neighbouring values along a middle axis).
@compute @workgroup_size(WORKGROUP)
fn fft_pass4(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = flat_index(gid, groups);
    if (id >= word(0u)) { return; }
    let n = word(1u);
    let inner = word(2u);
    let p = word(3u);
    let inverse = word(4u) != 0u;
    let scale = bitcast<f32>(word(5u));
    let q = n / 4u;
    let c = id % inner;
    let rest = id / inner;
    let j = rest % q;
    let base = (rest / q) * n * inner + c;
    let k = j % p;
    let x = Four(src[base + j * inner], src[base + (j + q) * inner], src[base + (j + 2u * q) * inner],
                 src[base + (j + 3u * q) * inner]);
    let y = radix4(x, k, p, inverse);
    let at = base + ((j - k) * 4u + k) * inner;
    let span = p * inner;
    dst[at] = y.a * scale;
    dst[at + span] = y.b * scale;
    dst[at + 2u * span] = y.c * scale;
    dst[at + 3u * span] = y.d * scale;
}

@compute @workgroup_size(WORKGROUP)
fn fft_pass2(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = flat_index(gid, groups);
    if (id >= word(0u)) { return; }
    let n = word(1u);
    let inner = word(2u);
    let p = word(3u);
    let inverse = word(4u) != 0u;
    let scale = bitcast<f32>(word(5u));
    let h = n / 2u;
    let c = id % inner;
    let rest = id / inner;
    let j = rest % h;
    let base = (rest / h) * n * inner + c;
    let k = j % p;
    let y = radix2(src[base + j * inner], src[base + (j + h) * inner], k, p, inverse);
    let at = base + ((j - k) * 2u + k) * inner;
    dst[at] = y.xy * scale;
    dst[at + p * inner] = y.zw * scale;
}

// One radix-16 pass over global memory: a thread per butterfly of 16 values (q = n / 16 apart),
// twiddled by w^t (w = exp(-2 pi i k / 16p)), then the 16-point DFT as four 4-point DFTs of the
// values t2, t2 + 4, t2 + 8, t2 + 12, their outputs f1 times w16^(t2 f1), and four 4-point DFTs
// across t2: output f1 + 4 f2.
@compute @workgroup_size(WORKGROUP)
fn fft_pass16(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = flat_index(gid, groups);
    if (id >= word(0u)) { return; }
    let n = word(1u);
    let inner = word(2u);
    let p = word(3u);
    let inverse = word(4u) != 0u;
    let scale = bitcast<f32>(word(5u));
    let q = n / 16u;
    let c = id % inner;
    let rest = id / inner;
    let j = rest % q;
    let base = (rest / q) * n * inner + c;
    let k = j % p;
    var a: array<vec2<f32>, 16>;
    for (var t = 0u; t < 16u; t = t + 1u) {
        var v = src[base + (j + t * q) * inner];
        if (k != 0u && t != 0u) { v = cmul(v, twiddle(k * t, 16u * p, inverse)); }
        a[t] = v;
    }
    var b: array<vec2<f32>, 16>;  // b[4 t2 + f1]
    for (var t2 = 0u; t2 < 4u; t2 = t2 + 1u) {
        let y = radix4(Four(a[t2], a[t2 + 4u], a[t2 + 8u], a[t2 + 12u]), 0u, 1u, inverse);
        b[4u * t2] = y.a;
        b[4u * t2 + 1u] = cmul(y.b, twiddle(t2, 16u, inverse));
        b[4u * t2 + 2u] = cmul(y.c, twiddle(2u * t2, 16u, inverse));
        b[4u * t2 + 3u] = cmul(y.d, twiddle(3u * t2, 16u, inverse));
    }
    let at = base + ((j - k) * 16u + k) * inner;
    let span = p * inner;
    for (var f1 = 0u; f1 < 4u; f1 = f1 + 1u) {
        let y = radix4(Four(b[f1], b[4u + f1], b[8u + f1], b[12u + f1]), 0u, 1u, inverse);
        dst[at + f1 * span] = y.a * scale;
        dst[at + (f1 + 4u) * span] = y.b * scale;
        dst[at + (f1 + 8u) * span] = y.c * scale;
        dst[at + (f1 + 12u) * span] = y.d * scale;
    }
}

// Where value i of sub-transform s lies in the source, and where its output f goes: sub-transform
// s = (o * S + q) * inner + c is the L values q, q + S, q + 2S, ... of row (o, c); its outputs are
// values q L ... q L + L - 1 of the row.
fn local_in(s: u32, i: u32) -> u32 {
    let inner = word(2u);
    let big_s = word(6u);
    let c = s % inner;
    let rest = s / inner;
    return ((rest / big_s) * word(1u) + rest % big_s + i * big_s) * inner + c;
}

fn local_out(s: u32, f: u32) -> u32 {
    let inner = word(2u);
    let big_s = word(6u);
    let c = s % inner;
    let rest = s / inner;
    return ((rest / big_s) * word(1u) + (rest % big_s) * word(3u) + f) * inner + c;
}

// A radix-4 pass over the tile's R sub-transforms of L values (E = R L): E / 4 butterflies, at
// most two per thread, held in registers across the barrier (one tile, read then written).
fn local_pass4(t: u32, e_all: u32, l: u32, p: u32, inverse: bool) {
    let units = e_all / 4u;
    let q = l / 4u;
    var held: array<Four, 2>;
    for (var u2 = 0u; u2 < 2u; u2 = u2 + 1u) {
        let u = t + u2 * WORKGROUP;
        if (u < units) {
            let b = (u / q) * l;
            let j = u % q;
            let x = Four(tile[b + j], tile[b + j + q], tile[b + j + 2u * q], tile[b + j + 3u * q]);
            held[u2] = radix4(x, j % p, p, inverse);
        }
    }
    workgroupBarrier();
    for (var u2 = 0u; u2 < 2u; u2 = u2 + 1u) {
        let u = t + u2 * WORKGROUP;
        if (u < units) {
            let j = u % q;
            let k = j % p;
            let at = (u / q) * l + (j - k) * 4u + k;
            let y = held[u2];
            tile[at] = y.a;
            tile[at + p] = y.b;
            tile[at + 2u * p] = y.c;
            tile[at + 3u * p] = y.d;
        }
    }
    workgroupBarrier();
}

// The radix-2 pass (the first, p = 1: no twiddles), E / 2 butterflies, at most four per thread.
fn local_pass2(t: u32, e_all: u32, l: u32) {
    let units = e_all / 2u;
    let h = l / 2u;
    var held: array<vec4<f32>, 4>;
    for (var u2 = 0u; u2 < 4u; u2 = u2 + 1u) {
        let u = t + u2 * WORKGROUP;
        if (u < units) {
            let b = (u / h) * l;
            let j = u % h;
            let a = tile[b + j];
            let w = tile[b + j + h];
            held[u2] = vec4<f32>(a + w, a - w);
        }
    }
    workgroupBarrier();
    for (var u2 = 0u; u2 < 4u; u2 = u2 + 1u) {
        let u = t + u2 * WORKGROUP;
        if (u < units) {
            let at = (u / h) * l + 2u * (u % h);
            tile[at] = held[u2].xy;
            tile[at + 1u] = held[u2].zw;
        }
    }
    workgroupBarrier();
}

// Whole transforms of L <= LOCAL_N values (a power of two) in workgroup memory: R sub-transforms
// per workgroup, loaded, transformed by the passes (radix 2 first for an odd power), written.
@compute @workgroup_size(WORKGROUP)
fn fft_local(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) groups: vec3<u32>) {
    let subs = word(0u);
    let l = word(3u);
    let r = word(7u);
    let first = (wid.x + wid.y * groups.x) * r;
    if (first >= subs) { return; }
    let inverse = word(4u) != 0u;
    let scale = bitcast<f32>(word(5u));
    let e_all = r * l;
    let t = lid.x;
    for (var e = t; e < e_all; e = e + WORKGROUP) {
        let s = first + e / l;
        var v = vec2<f32>(0.0, 0.0);
        if (s < subs) { v = src[local_in(s, e % l)]; }
        tile[e] = v;
    }
    workgroupBarrier();
    var p = 1u;
    if ((word(8u) & 1u) == 1u) {
        local_pass2(t, e_all, l);
        p = 2u;
    }
    for (; p < l; p = p * 4u) {
        local_pass4(t, e_all, l, p, inverse);
    }
    for (var e = t; e < e_all; e = e + WORKGROUP) {
        let s = first + e / l;
        if (s < subs) { dst[local_out(s, e % l)] = tile[e] * scale; }
    }
}

// The (outer, n, inner) destination from an (outer, h, inner) source: values past h are zeros;
// Hermitian (word 7): values n/2 + 1 ... n - 1 are the conjugates of values n - k of the source.
@compute @workgroup_size(WORKGROUP)
fn fft_resize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = flat_index(gid, groups);
    if (id >= word(0u)) { return; }
    let n = word(1u);
    let inner = word(2u);
    let h = word(6u);
    let c = id % inner;
    let rest = id / inner;
    let k = rest % n;
    let base = (rest / n) * h * inner + c;
    var v = vec2<f32>(0.0, 0.0);
    if (word(7u) != 0u && k > n / 2u) {
        if (n - k < h) {
            let w = src[base + (n - k) * inner];
            v = vec2<f32>(w.x, -w.y);
        }
    } else if (k < h) {
        v = src[base + k * inner];
    }
    dst[id] = v * bitcast<f32>(word(5u));
}

// Bluestein's first step: the (outer, n, inner) source (word 6: n) times the chirp, zero-padded to
// (outer, m, inner).
@compute @workgroup_size(WORKGROUP)
fn fft_chirp_in(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = flat_index(gid, groups);
    if (id >= word(0u)) { return; }
    let m = word(1u);
    let inner = word(2u);
    let n = word(6u);
    let c = id % inner;
    let rest = id / inner;
    let j = rest % m;
    var v = vec2<f32>(0.0, 0.0);
    if (j < n) {
        v = cmul(src[((rest / m) * n + j) * inner + c], chirp(j, n, word(4u) != 0u));
    }
    dst[id] = v;
}

// Bluestein's filter: the conjugate chirp at 0 ... n - 1 and (wrapped) at m - n + 1 ... m - 1.
@compute @workgroup_size(WORKGROUP)
fn fft_filter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let j = flat_index(gid, groups);
    let m = word(1u);
    if (j >= m) { return; }
    let n = word(6u);
    let forward = word(4u) == 0u;
    var v = vec2<f32>(0.0, 0.0);
    if (j < n) {
        v = chirp(j, n, forward);
    } else if (m - j < n) {
        v = chirp(m - j, n, forward);
    }
    dst[j] = v;
}

// The transformed rows times the transformed filter (aux), value by value.
@compute @workgroup_size(WORKGROUP)
fn fft_mul(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = flat_index(gid, groups);
    if (id >= word(0u)) { return; }
    dst[id] = cmul(src[id], aux[(id / word(2u)) % word(1u)]);
}

// Bluestein's last step: the first n of the (outer, m, inner) convolution (word 6: m) times the
// chirp and the scale (which holds 1 / m).
@compute @workgroup_size(WORKGROUP)
fn fft_chirp_out(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let id = flat_index(gid, groups);
    if (id >= word(0u)) { return; }
    let n = word(1u);
    let inner = word(2u);
    let m = word(6u);
    let c = id % inner;
    let rest = id / inner;
    let k = rest % n;
    let v = src[((rest / n) * m + k) * inner + c];
    dst[id] = cmul(v, chirp(k, n, word(4u) != 0u)) * bitcast<f32>(word(5u));
}
