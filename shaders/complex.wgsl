// complex64 in the element-wise kernels (pycore/kernels/elementwise.py): a complex64 element is two
// float32 words, its real then its imaginary part (NumPy's layout). A thread's four elements are a
// C4, their real parts and their imaginary parts as vec4s; `<op>_c64` is an op on C4s, the
// functions below it work on one value as vec2<f32> (re, im). For each `cx_<op>(z: vec2<f32>) ->
// vec2<f32>` without an `<op>_c64` written out, pycore/kernels/wgsl.py makes one (cx_<op> on each
// of the four values). They call the float functions of
// shaders/ufuncs.wgsl (m_exp, m_expm1, m_sincos, m_atan2, m_hypot, m_log1p, divide_f32, ...), which the
// generator puts before this file.
//
// Arithmetic is NumPy's: products by the schoolbook formula, quotients by Smith's method (the
// larger part of the divisor divides first; the parts are divided by the scaled divisor rather than
// multiplied by its reciprocal, which a GPU that flushes subnormals would zero), a zero divisor
// dividing each part by |re| (inf or NaN); a NaN part gives NaN + NaN i, as the standard says.
// A GPU may fuse a product and a sum into one rounding (fma), so a part that cancels may differ from
// NumPy's float32 by a few units of the operands' magnitude; elsewhere results agree to float32
// rounding. exp, log and sqrt follow the C99 special cases the Array API standard lists (±0, ±inf,
// NaN parts).

struct C4 {
    re: vec4<f32>,
    im: vec4<f32>,
}

fn c_at(z: C4, k: u32) -> vec2<f32> { return vec2<f32>(z.re[k], z.im[k]); }
fn c4_of(p: vec2<f32>, q: vec2<f32>, r: vec2<f32>, s: vec2<f32>) -> C4 {
    return C4(vec4<f32>(p.x, q.x, r.x, s.x), vec4<f32>(p.y, q.y, r.y, s.y));
}
fn c4_real(x: vec4<f32>) -> C4 { return C4(x, vec4<f32>(0.0)); }  // a real value as complex
fn c4_nonzero(z: C4) -> vec4<u32> {  // as bool (u32 0 or 1), on the bits: NaN is nonzero, -0 is zero
    let bits = (bitcast<vec4<u32>>(z.re) | bitcast<vec4<u32>>(z.im)) & vec4<u32>(0x7fffffffu);
    return select(vec4<u32>(0u), vec4<u32>(1u), bits != vec4<u32>(0u));
}

fn copy_c64(a: C4) -> C4 { return a; }
fn positive_c64(a: C4) -> C4 { return a; }
fn negative_c64(a: C4) -> C4 { return C4(negative_f32(a.re), negative_f32(a.im)); }
fn conj_c64(a: C4) -> C4 { return C4(a.re, negative_f32(a.im)); }
fn add_c64(a: C4, b: C4) -> C4 { return C4(a.re + b.re, a.im + b.im); }
fn subtract_c64(a: C4, b: C4) -> C4 { return C4(a.re - b.re, a.im - b.im); }
fn c4_any_nan(a: C4, b: C4) -> vec4<bool> { return is_nan4(a.re) | is_nan4(a.im) | is_nan4(b.re) | is_nan4(b.im); }
fn c4_nan_where(z: C4, nan: vec4<bool>) -> C4 {  // NaN + NaN i where `nan` (the standard's rule for a NaN part)
    let n = bitcast<vec4<f32>>(vec4<u32>(0x7fc00000u) | (bitcast<vec4<u32>>(z.re) & vec4<u32>(0u)));  // (not a constant: WGSL has no NaN constants)
    return C4(select(z.re, n, nan), select(z.im, n, nan));
}
// (a NaN part gives NaN parts explicitly: a compiler may fold the product of a converted real
// operand's zero imaginary part with a NaN to 0)
fn multiply_c64(a: C4, b: C4) -> C4 {
    return c4_nan_where(C4(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re), c4_any_nan(a, b));
}
fn square_c64(a: C4) -> C4 { return multiply_c64(a, a); }
fn equal_c64(a: C4, b: C4) -> vec4<bool> { return equal_f32(a.re, b.re) & equal_f32(a.im, b.im); }
fn not_equal_c64(a: C4, b: C4) -> vec4<bool> { return not_equal_f32(a.re, b.re) | not_equal_f32(a.im, b.im); }
fn isnan_c64(a: C4) -> vec4<bool> { return is_nan4(a.re) | is_nan4(a.im); }
fn isinf_c64(a: C4) -> vec4<bool> { return isinf_f32(a.re) | isinf_f32(a.im); }
fn isfinite_c64(a: C4) -> vec4<bool> { return isfinite_f32(a.re) & isfinite_f32(a.im); }
fn abs_c64(a: C4) -> vec4<f32> { return hypot_f32(a.re, a.im); }  // (a float32 result; inf beats NaN)
fn round_c64(a: C4) -> C4 { return C4(round_f32(a.re), round_f32(a.im)); }

fn cx_divide(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let br = abs(b.x);
    let bi = abs(b.y);
    if (br >= bi) {
        if (is_zero(b.x) && is_zero(b.y)) {
            let d = divide_f32(vec4<f32>(a.x, a.y, 0.0, 0.0), vec4<f32>(br));
            return d.xy;
        }
        let rat = divide_f32(vec4<f32>(b.y), vec4<f32>(b.x)).x;
        let d = vec4<f32>(b.x + b.y * rat);
        return divide_f32(vec4<f32>(a.x + a.y * rat, a.y - a.x * rat, 0.0, 0.0), d).xy;
    }
    let rat = divide_f32(vec4<f32>(b.x), vec4<f32>(b.y)).x;
    let d = vec4<f32>(b.y + b.x * rat);
    return divide_f32(vec4<f32>(a.x * rat + a.y, a.y * rat - a.x, 0.0, 0.0), d).xy;
}
fn divide_c64(a: C4, b: C4) -> C4 {
    let q = c4_of(cx_divide(c_at(a, 0u), c_at(b, 0u)), cx_divide(c_at(a, 1u), c_at(b, 1u)),
                  cx_divide(c_at(a, 2u), c_at(b, 2u)), cx_divide(c_at(a, 3u), c_at(b, 3u)));
    return c4_nan_where(q, c4_any_nan(a, b));
}
fn reciprocal_c64(a: C4) -> C4 { return divide_c64(c4_real(vec4<f32>(1.0)), a); }

// The schoolbook product of two values (no NaN rule: multiply_c64 adds it for the element-wise op)
fn cx_mul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// x^y as NumPy's complex power: 1 for y = 0; for x = 0, 0 where Re y > 0 (exp(y log 0), the
// standard's rule), else NaN parts; for a real integer y with |y| < 100, repeated squaring (the
// first factor taken as it is, not multiplied by 1), the reciprocal for y < 0; else exp(y log x)
// evaluated in float32, whose error grows with |y log x| (NumPy's complex64 power is computed so too)
fn cx_pow(x: vec2<f32>, y: vec2<f32>) -> vec2<f32> {
    if (is_zero(y.x) && is_zero(y.y)) { return vec2<f32>(1.0, 0.0); }
    if (is_zero(x.x) && is_zero(x.y)) {
        if (y.x > 0.0) { return vec2<f32>(0.0, 0.0); }
        return vec2<f32>(nan_like(x.x), nan_like(x.x));
    }
    if (is_zero(y.y) && abs(y.x) < 100.0 && y.x == trunc(y.x)) {
        var k = u32(abs(y.x));
        var p = x;
        var acc = x;
        var first = true;
        loop {
            if ((k & 1u) != 0u) {
                acc = select(cx_mul(acc, p), p, first);
                first = false;
            }
            k = k >> 1u;
            if (k == 0u) { break; }
            p = cx_mul(p, p);
        }
        if (y.x < 0.0) { return cx_divide(vec2<f32>(1.0, 0.0), acc); }
        return acc;
    }
    return cx_exp(cx_mul(y, cx_log(x)));
}
fn pow_c64(a: C4, b: C4) -> C4 {
    return c4_of(cx_pow(c_at(a, 0u), c_at(b, 0u)), cx_pow(c_at(a, 1u), c_at(b, 1u)),
                 cx_pow(c_at(a, 2u), c_at(b, 2u)), cx_pow(c_at(a, 3u), c_at(b, 3u)));
}

// z / |z| (0 for 0; NaN parts for a NaN part or two infinite ones; ±1 or ±i for one infinite part)
fn cx_sign(z: vec2<f32>) -> vec2<f32> {
    if (is_nan(z.x) || is_nan(z.y) || (is_inf(z.x) && is_inf(z.y))) {
        return vec2<f32>(nan_like(z.x), nan_like(z.x));
    }
    if (is_zero(z.x) && is_zero(z.y)) { return vec2<f32>(0.0, 0.0); }
    if (is_inf(z.x)) { return vec2<f32>(sign(z.x), 0.0); }
    if (is_inf(z.y)) { return vec2<f32>(0.0, sign(z.y)); }
    // (1 <= |u| <= sqrt 2: |z| may overflow where z does not; divide_f32: a GPU may divide by a
    // reciprocal, which flushes to 0 past 2^126)
    let u = divide_f32(vec4<f32>(z.x, z.y, 0.0, 0.0), vec4<f32>(max(abs(z.x), abs(z.y)))).xy;
    let m = m_hypot(u.x, u.y);
    return vec2<f32>(u.x / m, u.y / m);
}

// e^re (cos im + i sin im), with the standard's special cases
fn cx_exp(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (is_zero(y)) { return vec2<f32>(m_exp(x), y); }  // (e^x + 0i, the zero's sign kept; NaN + 0i)
    if (is_inf(x) && !negative_bit(x)) {  // +inf
        if (!is_finite(y)) { return vec2<f32>(x, nan_like(x)); }  // (±inf + NaN i)
    }
    let minus_inf = is_inf(x) && negative_bit(x);  // -inf: ±0 with the direction of y (0 for y inf or NaN)
    if (minus_inf && !is_finite(y)) { return vec2<f32>(0.0, 0.0); }
    let sc = m_sincos(y);  // (sin y, cos y)
    if (minus_inf) { return vec2<f32>(0.0 * sc.y, 0.0 * sc.x); }
    let e = m_exp(x);
    if (is_inf(e)) {  // (e^x overflows where cos or sin is small: e^(x - ln 2) twice)
        let h = m_exp(x - LN2);
        return vec2<f32>(h * sc.y * 2.0, h * sc.x * 2.0);
    }
    return vec2<f32>(e * sc.y, e * sc.x);
}

// log|z| from z's larger and smaller |part| m >= n >= 0 (finite): e ln 2 + log1p(s) / 2, where
// s = a² + b² - 1 for a, b = m / 2^e, n / 2^e (exact: a in [1, 4)), as (a - 1)(a + 1) + b² (no
// term negative: nothing cancels); near |z| = 1 (`near`: m in (1/2, 2)) e = 0 and s is `s_near`,
// which the caller computes without cancellation. One log1p in every lane and no division (the
// ranges by selects: lanes on both sides of |z| = 1 run one of each together).
fn cx_log_abs(m: f32, n: f32, near: bool, s_near: f32) -> f32 {
    let sub = m < 1.1754944e-38;  // (subnormal or zero: scaled by 2^23 first; 0 gives s = -1, -inf)
    let mm = select(m, m * 8388608.0, sub);
    let e = select(min(i32(bitcast<u32>(mm) >> 23u) - 127, 126), 0, near);
    let scale = bitcast<f32>(u32(127 - e) << 23u);  // 2^-e
    let a = mm * scale;
    let b = select(n, n * 8388608.0, sub) * scale;
    let k = f32(e - select(0, 23, sub));
    return k * LN2_HI + (0.5 * m_log1p(select((a - 1.0) * (a + 1.0) + b * b, s_near, near)) + k * LN2_LO);
}

// log|z| + i atan2(im, re), log|z| by cx_log_abs (near |z| = 1 from (m - 1)(m + 1) + n², with m, n
// the larger and smaller |part|)
fn cx_log(z: vec2<f32>) -> vec2<f32> {
    let angle = m_atan2(z.y, z.x);
    let m = max(abs(z.x), abs(z.y));
    let n = min(abs(z.x), abs(z.y));
    if (is_inf(z.x) || is_inf(z.y)) { return vec2<f32>(inf_like(m), angle); }  // (+inf, even with NaN)
    if (is_nan(z.x) || is_nan(z.y)) { return vec2<f32>(nan_like(m), nan_like(m)); }
    return vec2<f32>(cx_log_abs(m, n, m > 0.5 && m < 2.0, (m - 1.0) * (m + 1.0) + n * n), angle);
}
fn log2_c64(a: C4) -> C4 {
    let v = log_c64(a);
    return C4(v.re * INV_LN2, v.im * INV_LN2);
}
fn log10_c64(a: C4) -> C4 {
    let v = log_c64(a);
    return C4(v.re * 0.4342944819032518, v.im * 0.4342944819032518);
}

// the principal square root (re >= 0, im with the sign of z's im)
fn cx_sqrt(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (is_inf(y)) { return vec2<f32>(inf_like(y), y); }  // (inf ± inf i, even for a NaN re)
    if (is_nan(x)) { return vec2<f32>(x, nan_like(x)); }
    if (is_inf(x)) {
        if (negative_bit(x)) {  // -inf: 0 + inf i (NaN re for a NaN im)
            return vec2<f32>(select(0.0, nan_like(x), is_nan(y)), copy_sign(inf_like(x), y));
        }
        return vec2<f32>(x, select(copy_sign(0.0, y), nan_like(x), is_nan(y)));  // +inf: inf + 0i
    }
    if (is_nan(y)) { return vec2<f32>(nan_like(y), nan_like(y)); }
    return cx_sqrt_finite(z);
}
// the principal square root of a finite z: with t = sqrt((|x| + |z|) / 2), t + i y / 2t for x >= 0,
// else |y| / 2t ± i t, of z scaled by an even power of two 2^-2k that brings its larger part to
// [1, 4) (exact; nothing overflows or underflows on the way) and the root scaled back by 2^k
fn cx_sqrt_finite(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let hi = max(abs(x), abs(y));
    let k = clamp((i32(bitcast<u32>(hi) >> 23u) - 127) >> 1u, -63, 63);
    let s = bitcast<f32>(u32(127 - 2 * k) << 23u);  // 2^-2k
    let xs = x * s;
    let ys = y * s;
    let t = sqrt(0.5 * (abs(xs) + sqrt(xs * xs + ys * ys)));
    let q = 0.5 * ys / t;
    let p = bitcast<f32>(u32(127 + k) << 23u);  // 2^k
    let east = !negative_bit(x);
    let r = vec2<f32>(select(abs(q), t, east), select(copy_sign(t, y), q, east)) * p;
    return select(r, vec2<f32>(0.0, y), hi == 0.0);  // (0 + y i for a zero z, the zero's sign kept)
}

// e^a / 2 times c for a >= 9, overflowing only where the product does (e^(a/2) twice past e^88)
fn half_exp_times(a: f32, c: f32) -> f32 {
    if (a < 88.0) { return 0.5 * m_exp(a) * c; }
    let h = m_exp(0.5 * a);
    return (0.5 * h * c) * h;
}
// sinh(x + iy) = sinh x cos y + i cosh x sin y, with the standard's special cases (C99's csinh)
fn cx_sinh(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let nan = nan_like(x);
    if (is_finite(x) && is_finite(y)) {
        if (is_zero(y)) { return vec2<f32>(m_sinh(x), y); }
        let a = abs(x);
        let sc = m_sincos(y);
        if (a < 9.0) {
            let h = m_sinh_cosh(x);
            return vec2<f32>(h.x * sc.y, h.y * sc.x);
        }
        let re = half_exp_times(a, sc.y);
        return vec2<f32>(select(re, -re, negative_bit(x)), half_exp_times(a, sc.x));
    }
    if (is_zero(x)) { return vec2<f32>(x, nan); }  // (y inf or NaN: ±0 + NaN i)
    if (is_zero(y)) { return vec2<f32>(x, y); }  // (x inf or NaN: x + 0i)
    if (is_finite(x)) { return vec2<f32>(nan, nan); }  // (y inf or NaN)
    if (is_inf(x)) {
        if (!is_finite(y)) { return vec2<f32>(inf_like(x), nan); }  // (±inf + NaN i: the sign unspecified)
        let sc = m_sincos(y);
        return vec2<f32>(x * sc.y, inf_like(x) * sc.x);
    }
    return vec2<f32>(nan, nan);  // (x NaN, y nonzero)
}
// cosh(x + iy) = cosh x cos y + i sinh x sin y, with the standard's special cases (C99's ccosh)
fn cx_cosh(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let nan = nan_like(x);
    if (is_finite(x) && is_finite(y)) {
        if (is_zero(y)) { return vec2<f32>(m_cosh(x), select(y, -y, negative_bit(x))); }
        let a = abs(x);
        let sc = m_sincos(y);
        if (a < 9.0) {
            let h = m_sinh_cosh(x);
            return vec2<f32>(h.y * sc.y, h.x * sc.x);
        }
        let im = half_exp_times(a, sc.x);
        return vec2<f32>(half_exp_times(a, sc.y), select(im, -im, negative_bit(x)));
    }
    if (is_zero(x)) { return vec2<f32>(nan, 0.0); }  // (y inf or NaN: NaN + 0i, the zero's sign unspecified)
    if (is_zero(y)) { return vec2<f32>(abs(x), 0.0); }  // (x inf or NaN: +inf or NaN, + 0i)
    if (is_finite(x)) { return vec2<f32>(nan, nan); }  // (y inf or NaN)
    if (is_inf(x)) {
        if (!is_finite(y)) { return vec2<f32>(inf_like(x), nan); }  // (+inf + NaN i)
        let sc = m_sincos(y);
        return vec2<f32>(inf_like(x) * sc.y, x * sc.x);
    }
    return vec2<f32>(nan, nan);  // (x NaN, y nonzero)
}
// sin z = -i sinh(iz), cos z = cosh(iz) (iz = -y + ix)
fn sin_c64(a: C4) -> C4 {
    let s = sinh_c64(C4(negative_f32(a.im), a.re));
    return C4(s.im, negative_f32(s.re));
}
fn cos_c64(a: C4) -> C4 { return cosh_c64(C4(negative_f32(a.im), a.re)); }

// tanh(x + iy) by Kahan's formula (t = tan y, s = sinh x: ((1 + t²) s sqrt(1 + s²) + i t) /
// (1 + (1 + t²) s²)), its limit (±1 + 4 sin y cos y e^(-2|x|) i) from |x| >= 9, and the standard's
// special cases (C99's ctanh, but for an infinite x the zero's sign that of y, not of sin 2y)
fn cx_tanh(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let nan = nan_like(x);
    if (is_nan(x)) { return vec2<f32>(x, select(nan, y, is_zero(y))); }  // (NaN + NaN i; NaN + 0i for y 0)
    if (is_inf(x)) { return vec2<f32>(copy_sign(1.0, x), copy_sign(0.0, y)); }  // (±1 + 0i: the standard's zero sign)
    if (!is_finite(y)) { return vec2<f32>(select(nan, x, is_zero(x)), nan); }  // (±0 + NaN i for x 0)
    if (abs(x) >= 9.0) {
        let e = m_exp(-abs(x));
        let sc = m_sincos(y);
        return vec2<f32>(copy_sign(1.0, x), 4.0 * sc.x * sc.y * e * e);
    }
    let t = m_tan(y);
    let beta = 1.0 + t * t;
    let s = m_sinh(x);
    let rho = m_sqrt(1.0 + s * s);
    let denom = 1.0 + beta * s * s;
    return vec2<f32>((beta * rho * s) / denom, t / denom);
}
// tan z = -i tanh(iz)
fn tan_c64(a: C4) -> C4 {
    let s = tanh_c64(C4(negative_f32(a.im), a.re));
    return C4(s.im, negative_f32(s.re));
}

// e^z - 1: its real part without cancellation near 0 (expm1(x) cos y - 2 sin²(y / 2)), its
// imaginary part e^x sin y (a zero y kept, signed); exp's special values, less one, elsewhere.
// The sine and cosine of y from those of y / 2 (one reduction): sin y = 2 s c, cos y = (c - s)(c + s)
fn cx_expm1(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (!is_finite(x) || !is_finite(y)) {
        let e = cx_exp(z);
        return vec2<f32>(e.x - 1.0, e.y);
    }
    let h = m_sincos(0.5 * y);  // (s, c)
    let im = select(m_exp(x) * (2.0 * h.x * h.y), y, is_zero(y));
    let re = m_expm1(x) * ((h.y - h.x) * (h.y + h.x)) - 2.0 * h.x * h.x;
    return vec2<f32>(select(re, 0.0, re == 0.0), im);  // (+0: expm1(-0 + 0i) is 0 + 0i, the standard says)
}

// log(1 + z): log of w = 1 + z, whose |w|² - 1 near 0 (|z| < 1/2) is x (2 + x) + y² (no cancellation)
fn cx_log1p(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let w = vec2<f32>(1.0 + x, y);
    if (!is_finite(x) || !is_finite(y)) { return cx_log(w); }
    let m = max(abs(w.x), abs(w.y));
    let n = min(abs(w.x), abs(w.y));
    let s = select((m - 1.0) * (m + 1.0) + n * n, x * (2.0 + x) + y * y, max(abs(x), abs(y)) < 0.5);
    return vec2<f32>(cx_log_abs(m, n, m > 0.5 && m < 2.0, s), m_atan2(y, w.x));
}

// ---- the inverse functions: Kahan's formulas ("Branch Cuts for Complex Elementary Functions",
// 1987) for finite z, C99's special values (Annex G) for the rest; asin z = -i asinh(iz) and
// atan z = -i atanh(iz) share their special values
const CX_PIO2: f32 = 1.5707963705062866;
const CX_PIO4: f32 = 0.7853981852531433;
const CX_3PIO4: f32 = 2.356194496154785;
const CX_PI: f32 = 3.1415927410125732;

// asin z = atan2(x, re(sqrt(1 - z) sqrt(1 + z))) + i asinh(im(conj(sqrt(1 - z)) sqrt(1 + z)))
fn cx_asin_finite(z: vec2<f32>) -> vec2<f32> {
    let a = cx_sqrt_finite(vec2<f32>(1.0 - z.x, -z.y));
    let b = cx_sqrt_finite(vec2<f32>(1.0 + z.x, z.y));
    return vec2<f32>(m_atan2(z.x, a.x * b.x - a.y * b.y), m_asinh(a.x * b.y - a.y * b.x));
}
// asinh of a z with a part inf or NaN (C99's casinh: odd, and conj(asinh z) = asinh(conj z))
fn cx_asinh_special(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let nan = nan_like(x);
    let inf = inf_like(x);
    var r = vec2<f32>(nan, nan);
    if (is_nan(x)) {
        if (is_inf(y)) { r = vec2<f32>(inf, nan); }  // (the real part's sign unspecified)
        if (is_zero(y)) { r = vec2<f32>(nan, 0.0); }
    } else if (is_nan(y)) {
        if (is_inf(x)) { r = vec2<f32>(inf, nan); }
    } else if (is_inf(x)) {
        r = vec2<f32>(inf, select(0.0, CX_PIO4, is_inf(y)));
    } else {  // (y inf, x finite)
        r = vec2<f32>(inf, CX_PIO2);
    }
    return vec2<f32>(copy_sign(r.x, x), copy_sign(r.y, y));
}
// asinh z for |z| > 1e18, where z + sqrt(z² + 1) is 2z to float32's precision: ±(ln 2 + log(±z))
fn cx_asinh_big(z: vec2<f32>) -> vec2<f32> {
    let neg = negative_bit(z.x);
    let w = cx_log(select(z, -z, neg));
    return select(vec2<f32>(w.x + LN2, w.y), vec2<f32>(-(w.x + LN2), -w.y), neg);
}
fn cx_big(z: vec2<f32>) -> bool { return max(abs(z.x), abs(z.y)) > 1e18; }
fn cx_asinh(z: vec2<f32>) -> vec2<f32> {
    if (is_finite(z.x) && is_finite(z.y)) {
        if (cx_big(z)) { return cx_asinh_big(z); }
        let a = cx_asin_finite(vec2<f32>(-z.y, z.x));  // (asinh z = -i asin(iz))
        return vec2<f32>(a.y, -a.x);
    }
    return cx_asinh_special(z);
}
fn cx_asin(z: vec2<f32>) -> vec2<f32> {
    let iz = vec2<f32>(-z.y, z.x);
    if (is_finite(z.x) && is_finite(z.y)) {
        if (!cx_big(z)) { return cx_asin_finite(z); }
        let w = cx_asinh_big(iz);
        return vec2<f32>(w.y, -w.x);
    }
    let w = cx_asinh_special(iz);
    return vec2<f32>(w.y, -w.x);
}
// acos z = 2 atan2(re sqrt(1 - z), re sqrt(1 + z)) + i asinh(im(conj(sqrt(1 + z)) sqrt(1 - z)))
fn cx_acos(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (is_finite(x) && is_finite(y)) {
        if (cx_big(z)) {  // (acos z = π/2 - asin z)
            let w = cx_asin(z);
            return vec2<f32>(CX_PIO2 - w.x, -w.y);
        }
        let a = cx_sqrt_finite(vec2<f32>(1.0 - x, -y));
        let b = cx_sqrt_finite(vec2<f32>(1.0 + x, y));
        return vec2<f32>(2.0 * m_atan2(a.x, b.x), m_asinh(b.x * a.y - b.y * a.x));
    }
    let nan = nan_like(x);
    let inf = inf_like(x);
    var r = vec2<f32>(nan, nan);  // (for y >= 0: conj(acos z) = acos(conj z))
    if (is_nan(x)) {
        if (is_inf(y)) { r = vec2<f32>(nan, -inf); }
    } else if (is_nan(y)) {
        if (is_inf(x)) { r = vec2<f32>(nan, inf); }  // (the imaginary part's sign unspecified)
        if (is_zero(x)) { r = vec2<f32>(CX_PIO2, nan); }
    } else if (is_inf(x)) {
        let pos = !negative_bit(x);
        r = vec2<f32>(select(select(CX_PI, 0.0, pos), select(CX_3PIO4, CX_PIO4, pos), is_inf(y)), -inf);
    } else {  // (y inf, x finite)
        r = vec2<f32>(CX_PIO2, -inf);
    }
    return vec2<f32>(r.x, select(r.y, -r.y, negative_bit(y)));
}
// acosh z = asinh(re(conj(sqrt(z - 1)) sqrt(z + 1))) + i 2 atan2(im sqrt(z - 1), re sqrt(z + 1))
fn cx_acosh(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    if (is_finite(x) && is_finite(y)) {
        if (cx_big(z)) {  // (z + sqrt(z - 1) sqrt(z + 1) is 2z to float32's precision)
            let w = cx_log(z);
            return vec2<f32>(w.x + LN2, w.y);
        }
        let a = cx_sqrt_finite(vec2<f32>(x - 1.0, y));
        let b = cx_sqrt_finite(vec2<f32>(x + 1.0, y));
        return vec2<f32>(m_asinh(a.x * b.x + a.y * b.y), 2.0 * m_atan2(a.y, b.x));
    }
    let nan = nan_like(x);
    let inf = inf_like(x);
    var r = vec2<f32>(nan, nan);  // (for y >= 0: conj(acosh z) = acosh(conj z))
    if (is_nan(x)) {
        if (is_inf(y)) { r = vec2<f32>(inf, nan); }
    } else if (is_nan(y)) {
        if (is_inf(x)) { r = vec2<f32>(inf, nan); }
    } else if (is_inf(x)) {
        let pos = !negative_bit(x);
        r = vec2<f32>(inf, select(select(CX_PI, 0.0, pos), select(CX_3PIO4, CX_PIO4, pos), is_inf(y)));
    } else {  // (y inf, x finite)
        r = vec2<f32>(inf, CX_PIO2);
    }
    return vec2<f32>(r.x, copy_sign(r.y, y));
}
// atanh z = log1p(4|x| / ((1 - |x|)² + y²)) / 4 + i atan2(2|y|, (1 - |x|)(1 + |x|) - y²) / 2, the
// signs of x and y put back (atanh is odd, and conj(atanh z) = atanh(conj z)); past 1e18 in
// magnitude re(1 / z) + i π/2
fn cx_atanh(z: vec2<f32>) -> vec2<f32> {
    let x = z.x;
    let y = z.y;
    let ax = abs(x);
    let ay = abs(y);
    var r: vec2<f32>;
    if (is_finite(x) && is_finite(y)) {
        let m = max(ax, ay);
        if (m > 1e18) {
            let q = min(ax, ay) / m;
            r = vec2<f32>(((ax / m) / m) / (1.0 + q * q), CX_PIO2);
        } else {
            let d = (1.0 - ax) * (1.0 - ax) + ay * ay;
            r = vec2<f32>(0.25 * m_log1p(4.0 * ax / d), 0.5 * m_atan2(2.0 * ay, (1.0 - ax) * (1.0 + ax) - ay * ay));
        }
    } else {
        let nan = nan_like(x);
        r = vec2<f32>(nan, nan);
        if (is_nan(x)) {
            if (is_inf(y)) { r = vec2<f32>(0.0, CX_PIO2); }  // (the real part's sign unspecified)
        } else if (is_nan(y)) {
            if (is_inf(x) || is_zero(x)) { r = vec2<f32>(0.0, nan); }
        } else {
            r = vec2<f32>(0.0, CX_PIO2);
        }
    }
    return vec2<f32>(copy_sign(r.x, x), copy_sign(r.y, y));
}
fn cx_atan(z: vec2<f32>) -> vec2<f32> {
    let w = cx_atanh(vec2<f32>(-z.y, z.x));
    return vec2<f32>(w.y, -w.x);
}
