// Element-wise functions of the n-d kernels (pycore/kernels/elementwise.py fills in
// shaders/strided.wgsl with them), on vec4s of one dtype each: `<op>_<type>` with type f32, i32,
// u32 or bool (bool is stored as u32 0 or 1, and its functions take vec4<u32>). A function written
// once for every numeric type ends in `_T` and uses T for its scalar type: the generator
// instantiates it for f32, i32 and u32, except where a function of that type is written out.
// Comparisons return vec4<bool>; the generator stores them as bool (u32 0/1).
//
// Integer arithmetic wraps (WGSL's i32 and u32 are two's complement, as NumPy's int32 and uint32).
// NaN must propagate as in NumPy, and a compiler may fold `x != x`, so float comparisons and
// maximum/minimum test NaN on the bits (is_nan4, common.wgsl).

fn add_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return a + b; }
fn subtract_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return a - b; }
fn multiply_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return a * b; }
fn copy_T(a: vec4<T>) -> vec4<T> { return a; }
fn copy_bool(a: vec4<u32>) -> vec4<u32> { return a; }

// true division: integer inputs are converted to f32 first (the result's dtype is float32)
// (WGSL bounds a / b's error only for |b| <= 2^126: past it some GPUs multiply by 1 / b, which
// underflows to 0, so both operands are scaled by 1/4 there: exact, unless a is subnormal)
fn divide_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    let s = select(vec4<f32>(1.0), vec4<f32>(0.25), abs(b) > vec4<f32>(8.507059e37));
    return (a * s) / (b * s);
}

// Floor division and remainder with NumPy's signs: the remainder takes the divisor's sign, and
// an integer divided by 0 gives 0 (NumPy also warns). Floats as NumPy's divmod: from the exact
// fmod, the quotient (a - fmod) / b rounded to an integer, one step toward -inf where the
// remainder's sign is not b's; zeros signed as NumPy's. fmod is exact: long division of the
// integer significands, 8 bits of the exponent difference at a time.

fn copysign_zero(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0x80000000u);
}

// |fmod(a, b)| of finite a and nonzero b with |a| >= |b| (ua, ub: their magnitudes' bits)
fn fmod_bits(ua: u32, ub: u32) -> f32 {
    let ea0 = ua >> 23u;
    let eb0 = ub >> 23u;
    let ma = (ua & 0x7fffffu) | select(0x800000u, 0u, ea0 == 0u);
    let mb = (ub & 0x7fffffu) | select(0x800000u, 0u, eb0 == 0u);
    let eb = max(eb0, 1u);
    var d = max(ea0, 1u) - eb;
    var s = min(d, 8u);
    var r = (ma << s) % mb;  // (ma < 2^24: 8 bits of the exponent difference fit in the first step)
    d = d - s;
    while (d > 0u && r != 0u) {
        s = min(d, 8u);
        r = (r << s) % mb;
        d = d - s;
    }
    return ldexp(f32(r), i32(eb) - 150);
}

// (floor division, remainder) of one pair, as NumPy's npy_divmod. The common case, finite a and
// 2^-103 <= |b| < 2^126 with |a| < 2^9 |b|, in integers: there the significands' quotient at a
// common exponent is q < 2^9, the float quotient |a| / |b| rounded to the nearest integer is q or
// q + 1, and the remainder for it (exact in wrapping u32 arithmetic) says which. NumPy's
// (a - fmod) / b, rounded to the nearest integer, is then ±q exactly (its error is under 2^-13).
fn divmod1(a: f32, b: f32) -> vec2<f32> {
    let ua = bitcast<u32>(a) & 0x7fffffffu;
    let ub = bitcast<u32>(b) & 0x7fffffffu;
    let ea = ua >> 23u;
    let eb = ub >> 23u;
    if (ub - 0x0c000000u < 0x72800000u && ua < 0x7f800000u && ea <= eb + 8u) {
        let below = ea < eb;  // |a| < |b|: the quotient 0, fmod a
        let q0 = bitcast<u32>(round_i(bitcast<f32>(ua) / bitcast<f32>(ub)));
        let mb = (ub & 0x7fffffu) | 0x800000u;
        let t = bitcast<i32>((((ua & 0x7fffffu) | 0x800000u) << (ea - eb)) - q0 * mb);
        let over = t < 0;  // (q0 was q + 1)
        let r = select(t, t + bitcast<i32>(mb), over);
        let q = select(q0 - select(0u, 1u, over), 0u, below);
        let nonzero = select(r != 0, ua != 0u, below);  // fmod != 0
        let neg = (bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u;
        let fix = nonzero && neg != 0u;  // the remainder's sign is not b's
        let qf = bitcast<f32>(bitcast<u32>(small_f(bitcast<i32>(q))) | neg);
        let m = select(copy_sign(f32(r) * pow2i(i32(eb) - 150), a), a, below);
        let mr = select(select(m, m + b, fix), copysign_zero(b), !nonzero);
        return vec2<f32>(select(qf, qf - 1.0, fix), mr);
    }
    if (ua >= 0x7f800000u || ub > 0x7f800000u || ub == 0u) {  // NaN, infinite a, or b = 0
        let nan = bitcast<f32>(0x7fc00000u | (ua & 0u));  // (built at run time: no NaN constant)
        let q = select(nan, a / b, ub == 0u && ua <= 0x7f800000u);
        return vec2<f32>(q, nan);
    }
    var m = a;
    if (ua >= ub) {  // else |a| < |b| (or b infinite): fmod is a
        let v = fmod_bits(ua, ub);
        m = select(v, -v, (bitcast<u32>(a) & 0x80000000u) != 0u);
    }
    let s = select(1.0, 0.25, ub > 0x7e800000u);  // (as divide_f32: a / b past |b| = 2^126)
    let d0 = ((a - m) * s) / (b * s);
    let fix = m != 0.0 && ((b < 0.0) != (m < 0.0));
    let d = select(d0, d0 - 1.0, fix);
    let mr = select(select(m, m + b, fix), copysign_zero(b), m == 0.0);
    let fl = floor(d);
    let q = select(bitcast<f32>((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u),  // a / b's signed zero
                   select(fl, fl + 1.0, d - fl > 0.5), d != 0.0);
    return vec2<f32>(q, mr);
}

fn floor_divide_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(divmod1(a.x, b.x).x, divmod1(a.y, b.y).x, divmod1(a.z, b.z).x, divmod1(a.w, b.w).x);
}
fn floor_divide_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    let zero = b == vec4<i32>(0);
    let d = select(b, vec4<i32>(1), zero);
    let q = a / d;  // truncates; i32 min / -1 wraps to i32 min, as NumPy's
    let inexact = (a - q * d) != vec4<i32>(0);
    let fix = inexact & ((a < vec4<i32>(0)) != (d < vec4<i32>(0)));
    return select(select(q, q - vec4<i32>(1), fix), vec4<i32>(0), zero);
}
fn floor_divide_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let zero = b == vec4<u32>(0u);
    return select(a / select(b, vec4<u32>(1u), zero), vec4<u32>(0u), zero);
}
fn remainder_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(divmod1(a.x, b.x).y, divmod1(a.y, b.y).y, divmod1(a.z, b.z).y, divmod1(a.w, b.w).y);
}
fn remainder_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    let zero = b == vec4<i32>(0);
    let d = select(b, vec4<i32>(1), zero);
    let r = a - (a / d) * d;  // truncated remainder, sign of a
    let fix = (r != vec4<i32>(0)) & ((r < vec4<i32>(0)) != (d < vec4<i32>(0)));
    return select(select(r, r + d, fix), vec4<i32>(0), zero);
}
fn remainder_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let zero = b == vec4<u32>(0u);
    return select(a % select(b, vec4<u32>(1u), zero), vec4<u32>(0u), zero);
}

// NaN in either input gives NaN, as numpy.maximum and numpy.minimum
fn maximum_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(select(select(b, a, a > b), a, is_nan4(a)), b, is_nan4(b));
}
fn minimum_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return select(select(select(b, a, a < b), a, is_nan4(a)), b, is_nan4(b));
}
fn maximum_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return max(a, b); }
fn minimum_T(a: vec4<T>, b: vec4<T>) -> vec4<T> { return min(a, b); }

// comparisons: a comparison with NaN is false, except not_equal
fn either_nan(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return is_nan4(a) | is_nan4(b); }
fn equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a == b) & !either_nan(a, b); }
fn not_equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a != b) | either_nan(a, b); }
fn less_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a < b) & !either_nan(a, b); }
fn less_equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a <= b) & !either_nan(a, b); }
fn greater_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a > b) & !either_nan(a, b); }
fn greater_equal_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<bool> { return (a >= b) & !either_nan(a, b); }
fn equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a == b; }
fn not_equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a != b; }
fn less_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a < b; }
fn less_equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a <= b; }
fn greater_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a > b; }
fn greater_equal_T(a: vec4<T>, b: vec4<T>) -> vec4<bool> { return a >= b; }
fn equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a == b; }
fn not_equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a != b; }
fn less_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a < b; }  // False < True, as 0 < 1
fn less_equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a <= b; }
fn greater_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a > b; }
fn greater_equal_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return a >= b; }

// logical operations on bools (other dtypes are converted to bool first: nonzero is true)
fn logical_and_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return (a & b) != vec4<u32>(0u); }
fn logical_or_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return (a | b) != vec4<u32>(0u); }
fn logical_xor_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<bool> { return (a ^ b) != vec4<u32>(0u); }
fn logical_not_bool(a: vec4<u32>) -> vec4<bool> { return a == vec4<u32>(0u); }

// ---------------------------------------------------------------- the Array API's other functions
// Exact ones on the bits or in integers; the float functions on scalars (m_*) written here rather
// than WGSL's builtins, which only promise loose bounds (sin and cos an absolute 2^-11 on [-π, π],
// exp and log 3 + 2|x| ULP, atan 4096 ULP) that differ between GPUs. Their measured errors are the
// `ulps` of pycore/tables/ufuncs.py. Constants split in parts (hi + lo) hold more than 24 bits:
// a hi part with trailing zeros times a small integer is exact.

fn copy_sign(x: f32, s: f32) -> f32 {
    return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}
fn inf_like(x: f32) -> f32 { return bitcast<f32>(0x7f800000u | (bitcast<u32>(x) & 0u)); }  // +inf
fn nan_like(x: f32) -> f32 { return bitcast<f32>(0x7fc00000u | (bitcast<u32>(x) & 0u)); }
fn is_inf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }
fn is_zero(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0u; }
fn negative_bit(x: f32) -> bool { return (bitcast<u32>(x) & 0x80000000u) != 0u; }
fn hi12(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u); }  // the top 12 bits

fn pow2i(n: i32) -> f32 { return bitcast<f32>(u32(n + 127) << 23u); }  // 2^n, n in [-126, 127]

// Rounding to an integer and back on the bits, without the conversion instructions (a GPU runs
// them at a quarter of its float rate or less, and WGSL's f32 -> i32 conversion clamps besides).
// round_i: v rounded to the nearest integer, ties to even, for |v| < 2^22: v + 1.5 * 2^23 has it
// in its low bits. small_f: k as f32, exactly, for |k| < 2^22 - 4096; its constants differ from
// round_i's, so that small_f(round_i(v)) never reads as (v + c) - c, which a compiler may fold to v.
fn round_i(v: f32) -> i32 { return bitcast<i32>(v + 12582912.0) - 0x4b400000; }
fn small_f(k: i32) -> f32 { return bitcast<f32>(k + 0x4b401000) - 12587008.0; }
fn scale2(p: f32, k: i32) -> f32 {  // p * 2^k for |k| <= 252 (one rounding into subnormals)
    let h = k / 2;
    return (p * pow2i(h)) * pow2i(k - h);
}

const LN2_HI: f32 = 0.693145751953125;  // 16 bits
const LN2_LO: f32 = 1.428606765330187e-06;
const LN2: f32 = 0.6931471824645996;
const INV_LN2: f32 = 1.4426950216293335;

// e^r - 1 for |r| <= ln2 / 2 (Taylor to r^8: the rest is under 1e-9 relative)
fn expm1_poly(r: f32) -> f32 {
    let q = 0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0
        + r * (1.0 / 5040.0 + r * (1.0 / 40320.0))))));
    return r + r * r * q;
}

fn m_exp(x: f32) -> f32 {
    // one path for every lane: x clamped into the range (e^-104 scales to 0: the underflow), the
    // overflow and NaN put back by one select at the end
    let xc = clamp(x, -104.0, 88.72283);
    let ki = round_i(xc * INV_LN2);
    let k = small_f(ki);
    let r = (xc - k * LN2_HI) - k * LN2_LO;
    let p = 1.0 + expm1_poly(r);  // (in [0.7, 1.42])
    var v = bitcast<f32>(bitcast<i32>(p) + (ki << 23u));  // a normal result: k added to p's exponent
    if (ki < -125 || ki > 127) { v = scale2(p, ki); }
    return select(v, x * 2e38, x > 88.72283 || is_nan(x));  // (the next float up overflows)
}

fn m_expm1(x: f32) -> f32 {
    // one path for every lane, as m_exp: x clamped, the saturated and tiny results by selects
    let xc = clamp(x, -17.5, 88.72283);
    let ki = round_i(xc * INV_LN2);  // (0 for |x| <= ln2 / 2: then r = x, t = 1, and the result e)
    let k = small_f(ki);
    let r = (xc - k * LN2_HI) - k * LN2_LO;
    let e = expm1_poly(r);
    var v: f32;
    if (ki > 100) {
        v = scale2(1.0 + e, ki);
    } else {
        let t = pow2i(ki);
        v = t * e + (t - 1.0);  // 2^k (e^r - 1) + (2^k - 1)
    }
    v = select(v, inf_like(x), x > 88.72283);
    v = select(v, -1.0, x < -17.5);
    v = select(v, x, abs(x) < 2.9802322e-08);  // (keeps -0)
    return select(v, x, is_nan(x));
}

// x = 2^e (1 + f), 1 + f in [√½, √2), for finite x > 0: (e, f), f exact
fn log_reduce(x: f32) -> vec2<f32> {
    let sub = bitcast<u32>(x) < 0x00800000u;  // subnormal
    let u = bitcast<u32>(select(x, x * 8388608.0, sub));
    let m = bitcast<f32>((u & 0x7fffffu) | 0x3f800000u);
    let up = m > 1.4142135;
    let e = i32(u >> 23u) - select(127, 150, sub) + select(0, 1, up);
    return vec2<f32>(f32(e), select(m, m * 0.5, up) - 1.0);
}
// the same for a normal x > 0
fn log_reduce_normal(x: f32) -> vec2<f32> {
    let u = bitcast<u32>(x);
    let m = bitcast<f32>((u & 0x7fffffu) | 0x3f800000u);
    let up = m > 1.4142135;
    return vec2<f32>(f32(i32(u >> 23u) - select(127, 126, up)), select(m, m * 0.5, up) - 1.0);
}

// log(1 + f) for f in [√½ - 1, √2 - 1]: with s = f / (2 + f), log(1 + f) = 2 atanh(s), written as
// f - (f²/2 - s (f²/2 + R)) where R = 2s²/3 + 2s⁴/5 + ... (the rest under 1e-10)
fn log_near1(f: f32) -> f32 {
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * (2.0 / 3.0 + z * (2.0 / 5.0 + z * (2.0 / 7.0 + z * (2.0 / 9.0 + z * (2.0 / 11.0)))));
    let hf = 0.5 * f * f;
    return f - (hf - s * (hf + r));
}

// the logarithms' special cases put over v (the common path's value, computed in every lane) by
// selects: NaN for x < 0, -inf for ±0, x for inf and NaN
fn log_specials(x: f32, v: f32) -> f32 {
    let u = bitcast<u32>(x);
    var r = select(v, nan_like(x), u > 0x80000000u);
    r = select(r, -inf_like(x), (u & 0x7fffffffu) == 0u);
    return select(r, x, u == 0x7f800000u || is_nan(x));
}

fn m_log(x: f32) -> f32 {
    let ef = log_reduce(x);
    return log_specials(x, ef.x * LN2_HI + (log_near1(ef.y) + ef.x * LN2_LO));
}

fn m_log2(x: f32) -> f32 {
    let ef = log_reduce(x);
    let l = log_near1(ef.y);
    return log_specials(x, ef.x + (l * 1.4426950216293335 + l * 1.925963033500011e-08));  // (1/ln2 in two parts)
}

fn m_log10(x: f32) -> f32 {
    let ef = log_reduce(x);
    let l = log_near1(ef.y);
    // e log10(2) + l / ln10, both constants in two parts
    return log_specials(x, ef.x * 0.301025390625 + (ef.x * 4.605039066518657e-06
        + (l * 0.4342944920063019 - l * 1.0103049952192578e-08)));
}

// log(1 + x) for finite x > -1, without forming 1 + x where it rounds; one log_near1 for three
// ranges, chosen by selects (lanes in different ranges run it together): of x itself from
// -(1 - 1/√2) to tan(π/8); below, of 1 + x's reduction (1 + x is exact there: log(1 + x) as
// m_log); above, of f = (x - (2^k - 1)) / 2^k for 1 + x = 2^k (1 + f) in one rounding (no
// compensation terms, which a compiler's algebra may fold away); past 2^100, of x's own reduction.
// The reduction of 1 + x is read off its bits (1 + x >= 2^-24 is normal), k kept an integer.
fn log1p_finite(x: f32) -> f32 {
    let u = bitcast<u32>(1.0 + x);
    let up = (u & 0x7fffffu) > 0x3504f3u;  // 1 + x's significand past √2: halved, k one more
    let near = x >= -0.29289323 && x <= 0.41421356;
    let k = select(i32(u >> 23u) - select(127, 126, up), 0, near);
    let kc = min(k, 100);
    let p = bitcast<f32>(u32(127 + kc) << 23u);  // 2^k
    let m = bitcast<f32>((u & 0x7fffffu) | select(0x3f800000u, 0x3f000000u, up));
    let f = select(select(m - 1.0, (x - (p - 1.0)) * bitcast<f32>(u32(127 - kc) << 23u),
                          x > 0.0 && k <= 100), x, near);
    let kf = small_f(k);
    return kf * LN2_HI + (log_near1(f) + kf * LN2_LO);
}

// log(1 + x): the common case (-1 < x < inf, |x| >= 2^-24) told apart on the bits in one test
fn m_log1p(x: f32) -> f32 {
    let u = bitcast<u32>(x);
    let a = u & 0x7fffffffu;
    let usual = a >= 0x33800000u && (u < 0x7f800000u || (u > 0x80000000u && a < 0x3f800000u));
    let v = log1p_finite(x);
    var r = select(x, nan_like(x), x < -1.0);  // (NaN, inf and |x| < 2^-24 kept: -0 too)
    r = select(r, -inf_like(x), x == -1.0);
    return select(r, v, usual);
}

// a * b as 64 bits (lo, hi), from 16-bit halves (WGSL has no widening multiply)
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>(((a0 * b0) & 0xffffu) | (mid << 16u), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}
// limbs[k] of five limbs (0 past them), by selects: a dynamically indexed array would live in
// memory, and make every kernel that calls a sine keep a stack for it
fn limb(l0: u32, l1: u32, l2: u32, l3: u32, l4: u32, k: u32) -> u32 {
    return select(select(select(select(select(0u, l4, k == 4u), l3, k == 3u), l2, k == 2u), l1, k == 1u), l0, k == 0u);
}
// Bits [at, at + 32) of the number whose 32-bit limbs are l0 (least significant) to l4, at < 160
fn bits32(l0: u32, l1: u32, l2: u32, l3: u32, l4: u32, at: u32) -> u32 {
    let k = at >> 5u;
    let sh = at & 31u;
    let low = limb(l0, l1, l2, l3, l4, k);
    return select((low >> sh) | (limb(l0, l1, l2, l3, l4, k + 1u) << (32u - sh)), low, sh == 0u);
}
// 2/π's bits [32 i, 32 i + 32) after the binary point (2/π = 0.a2f9836e4e44... in hexadecimal), i < 7
fn two_over_pi(i: u32) -> u32 {
    return select(select(select(select(select(select(0xfe5163abu, 0x3c439041u, i == 5u), 0xdb629599u, i == 4u),
        0xf534ddc0u, i == 3u), 0xfc2757d1u, i == 2u), 0x4e441529u, i == 1u), 0xa2f9836eu, i == 0u);
}
// x = k π/2 + r for |x| >= 2^16, exactly (Payne and Hanek): x = m 2^e (m of 24 bits) times 2/π's
// bits from where they reach below 2^2 (four 32-bit words of them, 24 + 128 bits of product), the
// product's two bits above its binary point k mod 4, the 64 below it r / (π/2), rounded to float32
// within an ulp: (r, k mod 4)
fn trig_reduce_big(x: f32) -> vec2<f32> {
    let u = bitcast<u32>(abs(x));
    let e = i32(u >> 23u) - 150;
    let m = (u & 0x7fffffu) | 0x800000u;
    let i0 = u32(max(0, (e - 2) / 32));  // (the first word whose product reaches below 2^2)
    let p3 = mul_wide(m, two_over_pi(i0 + 3u));
    let p2 = mul_wide(m, two_over_pi(i0 + 2u));
    let p1 = mul_wide(m, two_over_pi(i0 + 1u));
    let p0 = mul_wide(m, two_over_pi(i0));
    let s1 = p3.y + p2.x;
    let c1 = select(0u, 1u, s1 < p3.y);
    let t2 = p2.y + p1.x;
    let s2 = t2 + c1;
    let c2 = select(0u, 1u, t2 < p2.y) + select(0u, 1u, s2 < t2);
    let t3 = p1.y + p0.x;
    let s3 = t3 + c2;
    let c3 = select(0u, 1u, t3 < p1.y) + select(0u, 1u, s3 < t3);
    let s4 = p0.y + c3;
    let b = u32(128 + 32 * i32(i0) - e);  // (the binary point's bit in the product)
    var q = bits32(p3.x, s1, s2, s3, s4, b) & 3u;
    var hi = bits32(p3.x, s1, s2, s3, s4, b - 32u);
    var lo = bits32(p3.x, s1, s2, s3, s4, b - 64u);
    let upper = hi >= 0x80000000u;  // (a fraction past 1/2: r < 0, k one more)
    if (upper) {
        lo = ~lo + 1u;
        hi = ~hi + select(0u, 1u, lo == 0u);
        q = q + 1u;
    }
    var drop = 32;
    if (hi == 0u) {
        hi = lo;
        lo = 0u;
        drop = 64;
    }
    let lz = countLeadingZeros(hi);
    if (lz > 0u) {
        hi = (hi << lz) | (lo >> (32u - lz));
        lo = lo << lz;
    }
    let scale = -drop - i32(lz);
    let fh = ldexp(f32(hi & 0xffffff00u), scale);
    let fl = ldexp(f32(hi & 0xffu) + f32(lo) * 2.3283064365386963e-10, scale);
    var r = fh * 1.5707963705062866 + (fh * -4.371138828673793e-08 + fl * 1.5707963705062866);
    r = select(r, -r, upper);
    if (x < 0.0) {
        r = -r;
        q = 4u - q;
    }
    return vec2<f32>(r, f32(q & 3u));
}

// x = k π/2 + r, |r| about π/4 at most: Cody-Waite with π/2 in five parts (64 bits), the first
// four short enough that k times each is exact for |k| < 2^16 (|x| < 1e5): (r, k); past 2^16
// Payne and Hanek's reduction (`trig_reduce_big`: r, and k mod 4)
fn trig_reduce(x: f32) -> vec2<f32> {
    if (abs(x) >= 65536.0) { return trig_reduce_big(x); }
    let k = round(x * 0.6366197466850281);
    let r = ((((x - k * 1.5703125) - k * 0.000484466552734375) - k * -6.407499313354492e-07)
        - k * 9.89530235528946e-10) - k * 2.5633440682570896e-12;
    return vec2<f32>(r, k);
}
fn sin_poly(r: f32) -> f32 {  // |r| <= π/4 (Taylor to r^11)
    let z = r * r;
    return r + r * z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0
        + z * (-1.0 / 39916800.0)))));
}
fn cos_poly(r: f32) -> f32 {  // |r| <= π/4 (Taylor to r^12)
    let z = r * r;
    return 1.0 - 0.5 * z + z * z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0
        + z * (-1.0 / 3628800.0 + z * (1.0 / 479001600.0)))));
}
fn m_sin(x: f32) -> f32 {
    if (!is_finite(x)) { return nan_like(x); }
    if (abs(x) < 0.00024414062) { return x; }
    let rk = trig_reduce(x);
    let q = i32(rk.y) & 3;
    let v = select(sin_poly(rk.x), cos_poly(rk.x), (q & 1) == 1);
    return select(v, -v, q >= 2);
}
fn m_cos(x: f32) -> f32 {
    if (!is_finite(x)) { return nan_like(x); }
    let rk = trig_reduce(x);
    let q = i32(rk.y) & 3;
    let v = select(cos_poly(rk.x), sin_poly(rk.x), (q & 1) == 1);
    return select(v, -v, q == 1 || q == 2);
}
// (sin x, cos x) from one reduction and one of each polynomial: m_sin's and m_cos's values
fn m_sincos(x: f32) -> vec2<f32> {
    if (!is_finite(x)) { return vec2<f32>(nan_like(x)); }
    let rk = trig_reduce(x);
    let q = i32(rk.y) & 3;
    let s = sin_poly(rk.x);
    let c = cos_poly(rk.x);
    let odd = (q & 1) == 1;
    let sv = select(s, c, odd);
    let cv = select(c, s, odd);
    return vec2<f32>(select(select(sv, -sv, q >= 2), x, abs(x) < 0.00024414062), select(cv, -cv, q == 1 || q == 2));
}
fn m_tan(x: f32) -> f32 {
    if (!is_finite(x)) { return nan_like(x); }
    if (abs(x) < 0.00024414062) { return x; }
    let rk = trig_reduce(x);
    let s = sin_poly(rk.x);
    let c = cos_poly(rk.x);
    return select(s / c, -c / s, (i32(rk.y) & 1) == 1);
}

const PIO2_HI: f32 = 1.5707963705062866;
const PIO2_LO: f32 = -4.371138828673793e-08;
const PI_HI: f32 = 3.1415927410125732;
const PI_LO: f32 = -8.742277657347586e-08;

// atan(t) for |t| <= tan(π/8): t + t z P(z), z = t² (a least-squares fit, 4e-8 relative)
fn atan_poly(t: f32) -> f32 {
    let z = t * t;
    return t + t * z * (-0.3333333432674408 + z * (0.19999976456165314 + z * (-0.1428414136171341
        + z * (0.11071214824914932 + z * (-0.08623683452606201 + z * 0.050458382815122604)))));
}
// atan(a) for a >= 0 (inf included): reduced by atan(a) = π/2 - atan(1/a), = π/4 + atan((a-1)/(a+1))
// (the three ranges by selects around one division and one atan_poly: lanes in different ranges
// then run one of each together)
fn atan_pos(a: f32) -> f32 {
    let big = a > 2.4142137;
    let mid = a > 0.41421356 && !big;
    let p = atan_poly(select(select(a, a - 1.0, mid), 1.0, big) / select(select(1.0, a + 1.0, mid), a, big));
    let v = select(p, 0.7853981852531433 + (p - 2.1855694143368964e-08), mid);
    return select(v, PIO2_HI - (p - PIO2_LO), big);
}
fn m_atan(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    if (abs(x) < 0.00024414062) { return x; }
    return copy_sign(atan_pos(abs(x)), x);
}
fn m_atan2(y: f32, x: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) { return nan_like(x); }
    let ax = abs(x);
    let ay = abs(y);
    let west = negative_bit(x);
    var r: f32;
    if (is_zero(y)) {
        r = select(0.0, PI_HI, west);
    } else if (is_zero(x)) {
        r = PIO2_HI;
    } else if (is_inf(y)) {
        r = select(PIO2_HI, select(0.7853981852531433, 2.356194496154785, west), is_inf(x));
    } else if (is_inf(x)) {
        r = select(0.0, PI_HI, west);
    } else {
        // atan(lo / hi) in one division: of lo / hi itself up to tan(π/8), else of
        // (lo - hi) / (lo + hi), whose atan is π/4 less (both scaled by 1/4 where the larger passes
        // 2^126: see divide_f32); the two ranges by selects around one division and one
        // atan_poly, as atan_pos (lanes on both sides then run one of each together)
        let s = select(1.0, 0.25, max(ax, ay) > 8.507059e37);
        let hi = max(ax, ay) * s;
        let lo = min(ax, ay) * s;
        let wide = lo > 0.41421356 * hi;
        let p = atan_poly(select(lo, lo - hi, wide) / select(hi, lo + hi, wide));
        var a = select(p, 0.7853981852531433 + (p - 2.1855694143368964e-08), wide);
        a = select(a, PIO2_HI - (a - PIO2_LO), ay > ax);
        r = select(a, PI_HI - (a - PI_LO), west);
    }
    return copy_sign(r, y);
}

// asin(a) = a + a z R(z), z = a², for 0 <= a <= 1/2 (a least-squares fit, 6e-8 relative)
fn asin_poly(a: f32) -> f32 {
    let z = a * a;
    return a + a * z * (0.1666666567325592 + z * (0.07500094175338745 + z * (0.04459947347640991
        + z * (0.031099852174520493 + z * (0.017152952030301094 + z * 0.03368489816784859)))));
}
// asin and acos: the two ranges by selects around one square root and one asin_poly (lanes on
// both sides of 1/2 then run one of each together)
fn m_asin(x: f32) -> f32 {
    let a = abs(x);
    if (is_nan(x)) { return x; }
    if (a > 1.0) { return nan_like(x); }
    if (a < 0.00024414062) { return x; }
    let far = a > 0.5;  // asin(a) = π/2 - 2 asin(sqrt((1 - a) / 2))
    let p = asin_poly(select(a, sqrt(0.5 * (1.0 - a)), far));
    return copy_sign(select(p, PIO2_HI - (2.0 * p - PIO2_LO), far), x);
}
fn m_acos(x: f32) -> f32 {
    let a = abs(x);
    if (is_nan(x)) { return x; }
    if (a > 1.0) { return nan_like(x); }
    let far = a > 0.5;
    let p = asin_poly(select(x, sqrt(0.5 * (1.0 - a)), far));
    let v = 2.0 * p;
    return select(PIO2_HI - (p - PIO2_LO), select(v, PI_HI - (v - PI_LO), x < 0.0), far);
}

// e^a / 2 for a >= 88 (sinh and cosh there): e^a's reduction with one less power of two, so no
// step overflows before the result does (a product like (h / 2) * h may be reordered)
fn exp_half(a: f32) -> f32 {
    if (a > 89.41599) { return inf_like(a); }
    let ki = round_i(a * INV_LN2);
    let k = small_f(ki);
    let r = (a - k * LN2_HI) - k * LN2_LO;
    return scale2(1.0 + expm1_poly(r), ki - 1);
}

fn m_sinh(x: f32) -> f32 {
    let a = abs(x);
    let e = m_expm1(min(a, 88.0));
    var v = 0.5 * (e + e / (e + 1.0));  // (e^a - e^-a) / 2 without cancellation
    if (a >= 88.0) { v = exp_half(a); }
    v = select(v, a, a < 0.00024414062);
    return select(copy_sign(v, x), x, is_nan(x));
}
// tanh(|x|) = e / (e + 2) with e = expm1(2|x|): no cancellation near 0, 1 from |x| = 9.1 on
// (2|x| is clamped where e's quotient is already 1); the sign and -0 from x, NaN kept
fn m_tanh(x: f32) -> f32 {
    let e = m_expm1(min(2.0 * abs(x), 40.0));
    return select(copy_sign(e / (e + 2.0), x), x, is_nan(x));
}
// (sinh x, cosh x) for |x| < 88 from one expm1: with e = e^|x| - 1 and q = e / (e + 1), sinh is
// m_sinh's (e + q) / 2 and cosh ((e + 1) + (1 - q)) / 2 (1 - q is e^-|x|: no cancellation that
// matters beside e + 1)
fn m_sinh_cosh(x: f32) -> vec2<f32> {
    let a = abs(x);
    let e = m_expm1(a);
    let u = e + 1.0;
    let q = e / u;
    let s = select(copy_sign(0.5 * (e + q), x), x, a < 0.00024414062);
    return vec2<f32>(s, 0.5 * (u + (1.0 - q)));
}
fn m_cosh(x: f32) -> f32 {
    let a = abs(x);
    if (is_nan(x)) { return x; }
    if (a < 88.0) {
        let e = m_exp(a);
        return 0.5 * e + 0.5 / e;
    }
    return exp_half(a);
}
fn m_asinh(x: f32) -> f32 {
    let a = abs(x);
    // log1p(w) + c, the three ranges' w chosen by selects around one square root, one division and
    // one log1p: up to 2, w = a + a² / (1 + sqrt(1 + a²)); up to 4096, w = 2a - 1 + 1 / (sqrt(a² + 1)
    // + a) (log(y) is log1p(y - 1), y - 1 exact there); past it, log(a) + ln 2 as log1p(a - 1) + ln 2
    let small = a <= 2.0;
    let z = a * a;
    let s = sqrt(z + 1.0);
    let q = select(1.0, z, small) / select(s + a, 1.0 + s, small);
    let w = select(select((2.0 * a - 1.0) + q, a - 1.0, a > 4096.0), a + q, small);
    let v = log1p_finite(w) + select(0.0, LN2, a > 4096.0);
    let keep = a < 0.00024414062 || (bitcast<u32>(x) & 0x7fffffffu) >= 0x7f800000u;  // tiny, inf, NaN
    return select(copy_sign(v, x), x, keep);
}
fn m_acosh(x: f32) -> f32 {
    // log1p(w) + c by selects, as m_asinh: up to 2, w = t + sqrt(2t + t²) with t = x - 1; up to
    // 4096, w = 2x - 1 - 1 / (x + sqrt(x² - 1)); past it, log(x) + ln 2 as log1p(x - 1) + ln 2
    let t = x - 1.0;
    let small = x <= 2.0;
    let r = sqrt(select(x * x - 1.0, 2.0 * t + t * t, small));
    let w = select(select((2.0 * x - 1.0) - 1.0 / (x + r), t, x > 4096.0), t + r, small);
    let v = log1p_finite(w) + select(0.0, LN2, x > 4096.0);
    let keep = (bitcast<u32>(x) & 0x7fffffffu) >= 0x7f800000u;  // (inf, NaN)
    return select(select(v, x, keep), nan_like(x), x < 1.0);
}
fn m_atanh(x: f32) -> f32 {
    let a = abs(x);
    // log1p(2a / (1 - a)) / 2, below 1/2 with its argument as 2a + 2a² / (1 - a) (no cancellation);
    // one division (its numerator chosen) and one log1p for both
    let small = a < 0.5;
    let q = select(2.0 * a, 2.0 * a * a, small) / (1.0 - a);
    var v = copy_sign(0.5 * log1p_finite(select(q, 2.0 * a + q, small)), x);
    v = select(v, x, a < 0.00024414062 || is_nan(x));
    v = select(v, copy_sign(inf_like(x), x), a == 1.0);
    return select(v, nan_like(x), a > 1.0);
}

fn m_sqrt(x: f32) -> f32 {
    if (is_zero(x) || is_nan(x)) { return x; }  // (sqrt(-0) is -0)
    if (x < 0.0) { return nan_like(x); }
    return sqrt(x);
}

// sqrt(x² + y²) scaled by a power of two (no overflow or underflow on the way); inf beats NaN
fn m_hypot(x: f32, y: f32) -> f32 {
    if (is_inf(x) || is_inf(y)) { return inf_like(x); }
    if (is_nan(x) || is_nan(y)) { return nan_like(x); }
    let hi = max(abs(x), abs(y));
    let lo = min(abs(x), abs(y));
    if (is_zero(hi)) { return 0.0; }
    let e = clamp(i32(bitcast<u32>(hi) >> 23u) - 127, -126, 126);  // (2^-e a normal float)
    let h = hi * pow2i(-e);
    let l = lo * pow2i(-e);
    return scale2(sqrt(h * h + l * l), e);
}

// log(1 + e) for e in [0, 1]: m_log1p's two cases there, without its checks (above tan(π/8),
// 1 + e = 2 (1 + f) with f = (e - 1) / 2 exact), chosen by selects around one log_near1
fn log1p_unit(e: f32) -> f32 {
    let past = e > 0.41421356;
    let k = select(0.0, 1.0, past);
    return k * LN2_HI + (log_near1(select(e, (e - 1.0) * 0.5, past)) + k * LN2_LO);
}

fn m_logaddexp(x: f32, y: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) { return nan_like(x); }
    if (x == y) { return x + LN2; }  // (also both infinite)
    let m = max(x, y);
    return m + log1p_unit(m_exp(-abs(x - y)));
}

// the float as an integer in the floats' order (-0 and 0 both 0), for nextafter
fn ordered(x: f32) -> i32 {
    let u = bitcast<u32>(x);
    let mag = i32(u & 0x7fffffffu);
    return select(mag, -mag, (u & 0x80000000u) != 0u);
}
fn m_nextafter(x: f32, y: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) { return nan_like(x); }
    let a = ordered(x);
    let b = ordered(y);
    if (a == b) { return y; }
    let n = a + select(-1, 1, b > a);
    return bitcast<f32>(select(u32(n), 0x80000000u | u32(-n), n < 0 || (n == 0 && a < 0)));
}

// |x|^y for finite x != 0 and finite y != 0: 2^(y log2|x|), with log2|x| = e + l and y l carried
// in parts whose products are exact (12-bit halves), their integer parts summed apart; from
// |x|'s reduction ef (log_reduce)
fn pow_core(ef: vec2<f32>, y: f32) -> f32 {
    let f = ef.y;
    let inv_d = 1.0 / (2.0 + f);  // (one division: s_hi needs 12 good bits, s_lo is a correction)
    let s_hi = hi12(f * inv_d);  // s = f / (2 + f) in two parts: s_lo from the exact f - s_hi (2 + f)
    let f_h = hi12(f);
    let s_lo = (((f - 2.0 * s_hi) - s_hi * f_h) - s_hi * (f - f_h)) * inv_d;
    let s = s_hi + s_lo;
    let z = s * s;
    let t = s * z * (1.0 / 3.0 + z * (1.0 / 5.0 + z * (1.0 / 7.0 + z * (1.0 / 9.0 + z * (1.0 / 11.0)))));
    let l_hi = 2.8857421875 * s_hi;  // log2(1 + f) = (2 / ln2) (s + t), 2 / ln2 in two parts
    let l_lo = 2.8857421875 * (s_lo + t) + -0.0003521057078614831 * (s + t);
    let e = ef.x;
    let y_h = hi12(y);
    let y_l = y - y_h;
    let a_h = hi12(l_hi);
    let a_l = l_hi - a_h;
    // y (e + l_hi) = y_h e + y_h a_h + small, each of the two exact (12-bit halves times e's 8 bits
    // or a_h's 12); their sum is y (e + l) within 2^-11 of it, which the range test reads (the
    // results at the limits, from 2^128 up and from 2^-151 down, are inf and 0 either way). Past
    // it both are under 2^9, so their integer parts come off exactly; the small rest,
    // y_l e + y_h a_l + y_l l_hi (with |y (e + l)| <= 153, each at most 2^-12 of that), is summed
    // as it is
    let big1 = y_h * e;
    let big2 = y_h * a_h;
    let rough = big1 + big2;  // (big2 is finite: |a_h| <= 1/2; so no inf - inf)
    if (abs(rough + 11.5) > 140.5) {  // (rough > 129: inf, rough < -152: 0)
        return select(0.0, inf_like(y), rough > 0.0);
    }
    let k1 = round(big1);
    let k2 = round(big2);
    let small = (y_l * e + y_h * a_l) + y_l * l_hi;
    let frac = ((big1 - k1) + (big2 - k2)) + (small + y * l_lo);
    let j = round(frac);
    let n = (k1 + k2) + j;
    let p = 1.0 + expm1_poly((frac - j) * LN2);
    if (abs(n - 1.0) <= 126.0) {  // n in [-125, 127], a normal result: n added to p's exponent
        // (the bits of n + 1.5 * 2^23 are those of 1.5 * 2^23 plus n, and shifted by 23 only n's stay)
        return bitcast<f32>(bitcast<u32>(p) + (bitcast<u32>(n + 12582912.0) << 23u));
    }
    return scale2(p, i32(n));
}

fn is_odd_integer(y: f32) -> bool {
    return abs(y) < 16777216.0 && y == trunc(y) && (i32(y) & 1) == 1;
}
fn m_pow(x: f32, y: f32) -> f32 {
    // the common case first, in four integer operations: |x| normal and finite (1 included:
    // pow_core gives 1 exactly), y finite and not zero; a negative x there by selects after the
    // one pow_core (x^y for an integer y, negated for an odd one; else NaN), so that lanes of both
    // signs share it
    let ux = bitcast<u32>(x) & 0x7fffffffu;
    if (ux - 0x00800000u < 0x7f000000u && (bitcast<u32>(y) & 0x7fffffffu) - 1u < 0x7f7fffffu) {
        let v = pow_core(log_reduce_normal(bitcast<f32>(ux)), y);
        if (ux == bitcast<u32>(x)) { return v; }
        return select(nan_like(x), select(v, -v, is_odd_integer(y)), y == trunc(y));
    }
    if (is_zero(y) || x == 1.0) { return 1.0; }
    if (is_nan(x) || is_nan(y)) { return nan_like(x); }
    let ax = abs(x);
    let odd = is_odd_integer(y) && negative_bit(x);  // the result takes x's sign
    if (is_inf(y)) {
        if (ax == 1.0) { return 1.0; }
        return select(0.0, inf_like(x), (ax > 1.0) == (y > 0.0));
    }
    if (is_zero(x) || is_inf(x)) {
        let v = select(0.0, inf_like(x), (y > 0.0) == is_inf(x));
        return select(v, -v, odd);
    }
    if (x < 0.0 && y != trunc(y)) { return nan_like(x); }
    let v = pow_core(log_reduce(ax), y);
    return select(v, -v, odd);
}

// integer powers by squaring, wrapping; a negative exponent gives the integer part of 1 / x^-y
// (1 for x = 1, ±1 for x = -1, else 0; NumPy refuses negative integer powers)
fn ipow(x: u32, y: u32) -> u32 {
    var r = 1u;
    var b = x;
    var n = y;
    while (n != 0u) {
        if ((n & 1u) == 1u) { r = r * b; }
        b = b * b;
        n = n >> 1u;
    }
    return r;
}
fn ipow_signed(x: i32, y: i32) -> i32 {
    if (y < 0) {
        if (x == 1) { return 1; }
        if (x == -1) { return select(1, -1, (y & 1) == 1); }
        return 0;
    }
    return bitcast<i32>(ipow(bitcast<u32>(x), u32(y)));
}

fn pow_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_pow(a.x, b.x), m_pow(a.y, b.y), m_pow(a.z, b.z), m_pow(a.w, b.w));
}
fn pow_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    return vec4<i32>(ipow_signed(a.x, b.x), ipow_signed(a.y, b.y), ipow_signed(a.z, b.z), ipow_signed(a.w, b.w));
}
fn pow_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return vec4<u32>(ipow(a.x, b.x), ipow(a.y, b.y), ipow(a.z, b.z), ipow(a.w, b.w));
}

// the float functions on vec4s, lane by lane
fn sqrt_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_sqrt(a.x), m_sqrt(a.y), m_sqrt(a.z), m_sqrt(a.w)); }
fn exp_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_exp(a.x), m_exp(a.y), m_exp(a.z), m_exp(a.w)); }
fn expm1_f32(a: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_expm1(a.x), m_expm1(a.y), m_expm1(a.z), m_expm1(a.w));
}
fn log_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_log(a.x), m_log(a.y), m_log(a.z), m_log(a.w)); }
// Results rounded to float16 afterwards (a call whose out dtype is float16: elementwise.py's
// HALF_RESULTS): the hardware's exp and log, whose error (a few float32 ULPs: WGSL's bound) is far
// below a float16 ULP, on arguments kept where the builtins' results are finite and normal; NaN,
// infinities, zeros and negative numbers by hand (WGSL lets builtins assume finite values).
fn exp_to_f16(a: vec4<f32>) -> vec4<f32> {
    // (below -18 the result rounds to float16's 0, above 11.5 to its inf: -inf and +inf too)
    return select(exp(clamp(a, vec4<f32>(-18.0), vec4<f32>(11.5))), a, is_nan4(a));
}
fn log_to_f16(a: vec4<f32>) -> vec4<f32> {
    let bits = bitcast<vec4<u32>>(a);
    let tiny = bits < vec4<u32>(0x00800000u);  // (+0 and positive subnormals: scaled by 2^24 first)
    let s = select(a, a * 16777216.0, tiny);
    let y = log(clamp(s, vec4<f32>(1.1754944e-38), vec4<f32>(3.4028234e38)))
        - select(vec4<f32>(0.0), vec4<f32>(16.635532333438686), tiny);
    let none = bits & vec4<u32>(0u);  // (the constants made at run time: inf is no WGSL constant)
    let inf = bitcast<vec4<f32>>(none | vec4<u32>(0x7f800000u));
    var r = select(y, -inf, (bits & vec4<u32>(0x7fffffffu)) == vec4<u32>(0u));  // log(+-0) = -inf
    r = select(r, inf, bits == vec4<u32>(0x7f800000u));
    r = select(r, bitcast<vec4<f32>>(none | vec4<u32>(0x7fc00000u)), bits > vec4<u32>(0x80000000u));  // < 0
    return select(r, a, is_nan4(a));
}
fn log1p_f32(a: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_log1p(a.x), m_log1p(a.y), m_log1p(a.z), m_log1p(a.w));
}
fn log2_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_log2(a.x), m_log2(a.y), m_log2(a.z), m_log2(a.w)); }
fn log10_f32(a: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_log10(a.x), m_log10(a.y), m_log10(a.z), m_log10(a.w));
}
fn sin_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_sin(a.x), m_sin(a.y), m_sin(a.z), m_sin(a.w)); }
fn cos_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_cos(a.x), m_cos(a.y), m_cos(a.z), m_cos(a.w)); }
fn tan_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_tan(a.x), m_tan(a.y), m_tan(a.z), m_tan(a.w)); }
fn asin_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_asin(a.x), m_asin(a.y), m_asin(a.z), m_asin(a.w)); }
fn acos_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_acos(a.x), m_acos(a.y), m_acos(a.z), m_acos(a.w)); }
fn atan_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_atan(a.x), m_atan(a.y), m_atan(a.z), m_atan(a.w)); }
fn sinh_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_sinh(a.x), m_sinh(a.y), m_sinh(a.z), m_sinh(a.w)); }
fn cosh_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_cosh(a.x), m_cosh(a.y), m_cosh(a.z), m_cosh(a.w)); }
fn tanh_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(m_tanh(a.x), m_tanh(a.y), m_tanh(a.z), m_tanh(a.w)); }
fn asinh_f32(a: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_asinh(a.x), m_asinh(a.y), m_asinh(a.z), m_asinh(a.w));
}
fn acosh_f32(a: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_acosh(a.x), m_acosh(a.y), m_acosh(a.z), m_acosh(a.w));
}
fn atanh_f32(a: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_atanh(a.x), m_atanh(a.y), m_atanh(a.z), m_atanh(a.w));
}
fn atan2_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_atan2(a.x, b.x), m_atan2(a.y, b.y), m_atan2(a.z, b.z), m_atan2(a.w, b.w));
}
fn hypot_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_hypot(a.x, b.x), m_hypot(a.y, b.y), m_hypot(a.z, b.z), m_hypot(a.w, b.w));
}
fn logaddexp_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_logaddexp(a.x, b.x), m_logaddexp(a.y, b.y), m_logaddexp(a.z, b.z), m_logaddexp(a.w, b.w));
}
fn nextafter_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(m_nextafter(a.x, b.x), m_nextafter(a.y, b.y), m_nextafter(a.z, b.z), m_nextafter(a.w, b.w));
}
fn copysign_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    let sign = bitcast<vec4<u32>>(b) & vec4<u32>(0x80000000u);
    return bitcast<vec4<f32>>((bitcast<vec4<u32>>(a) & vec4<u32>(0x7fffffffu)) | sign);
}
fn reciprocal_f32(a: vec4<f32>) -> vec4<f32> { return vec4<f32>(1.0) / a; }

// sign, magnitude and rounding: exact, integers kept (rounding an integer is the identity)
fn abs_f32(a: vec4<f32>) -> vec4<f32> { return bitcast<vec4<f32>>(bitcast<vec4<u32>>(a) & vec4<u32>(0x7fffffffu)); }
fn abs_i32(a: vec4<i32>) -> vec4<i32> { return select(a, vec4<i32>(0) - a, a < vec4<i32>(0)); }  // (i32 min wraps)
fn abs_u32(a: vec4<u32>) -> vec4<u32> { return a; }
fn negative_f32(a: vec4<f32>) -> vec4<f32> { return bitcast<vec4<f32>>(bitcast<vec4<u32>>(a) ^ vec4<u32>(0x80000000u)); }
fn negative_T(a: vec4<T>) -> vec4<T> { return vec4<T>(0) - a; }
fn positive_T(a: vec4<T>) -> vec4<T> { return a; }
fn sign_f32(a: vec4<f32>) -> vec4<f32> {  // NaN for NaN, 0 for ±0
    let s = select(vec4<f32>(1.0), vec4<f32>(-1.0), a < vec4<f32>(0.0));
    return select(select(s, vec4<f32>(0.0), bitcast<vec4<u32>>(abs_f32(a)) == vec4<u32>(0u)), a, is_nan4(a));
}
fn sign_i32(a: vec4<i32>) -> vec4<i32> { return clamp(a, vec4<i32>(-1), vec4<i32>(1)); }
fn sign_u32(a: vec4<u32>) -> vec4<u32> { return min(a, vec4<u32>(1u)); }
fn square_T(a: vec4<T>) -> vec4<T> { return a * a; }
fn floor_f32(a: vec4<f32>) -> vec4<f32> { return floor(a); }
fn floor_T(a: vec4<T>) -> vec4<T> { return a; }
fn ceil_f32(a: vec4<f32>) -> vec4<f32> { return ceil(a); }
fn ceil_T(a: vec4<T>) -> vec4<T> { return a; }
fn trunc_f32(a: vec4<f32>) -> vec4<f32> { return trunc(a); }
fn trunc_T(a: vec4<T>) -> vec4<T> { return a; }
fn round_f32(a: vec4<f32>) -> vec4<f32> { return round(a); }  // (WGSL's round: half to even)
fn round_T(a: vec4<T>) -> vec4<T> { return a; }

// classification, on the bits; integers and bools are finite and never NaN
fn isnan_f32(a: vec4<f32>) -> vec4<bool> { return is_nan4(a); }
fn isinf_f32(a: vec4<f32>) -> vec4<bool> {
    return (bitcast<vec4<u32>>(a) & vec4<u32>(0x7fffffffu)) == vec4<u32>(0x7f800000u);
}
fn isfinite_f32(a: vec4<f32>) -> vec4<bool> {
    return (bitcast<vec4<u32>>(a) & vec4<u32>(0x7fffffffu)) < vec4<u32>(0x7f800000u);
}
fn signbit_f32(a: vec4<f32>) -> vec4<bool> { return (bitcast<vec4<u32>>(a) & vec4<u32>(0x80000000u)) != vec4<u32>(0u); }
fn isnan_T(a: vec4<T>) -> vec4<bool> { return vec4<bool>(false); }
fn isinf_T(a: vec4<T>) -> vec4<bool> { return vec4<bool>(false); }
fn isfinite_T(a: vec4<T>) -> vec4<bool> { return vec4<bool>(true); }
fn signbit_i32(a: vec4<i32>) -> vec4<bool> { return a < vec4<i32>(0); }
fn signbit_u32(a: vec4<u32>) -> vec4<bool> { return vec4<bool>(false); }
fn isnan_bool(a: vec4<u32>) -> vec4<bool> { return vec4<bool>(false); }
fn isinf_bool(a: vec4<u32>) -> vec4<bool> { return vec4<bool>(false); }
fn isfinite_bool(a: vec4<u32>) -> vec4<bool> { return vec4<bool>(true); }
fn signbit_bool(a: vec4<u32>) -> vec4<bool> { return vec4<bool>(false); }

// bitwise operations on integers and bools (bools as 0 and 1); shifts as NumPy's: a count of 32
// or more, or a negative one, shifts every bit out (right shifts of a negative int32 give -1)
fn bitwise_and_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> { return a & b; }
fn bitwise_or_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> { return a | b; }
fn bitwise_xor_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> { return a ^ b; }
fn bitwise_invert_i32(a: vec4<i32>) -> vec4<i32> { return ~a; }
fn bitwise_and_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> { return a & b; }
fn bitwise_or_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> { return a | b; }
fn bitwise_xor_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> { return a ^ b; }
fn bitwise_invert_u32(a: vec4<u32>) -> vec4<u32> { return ~a; }
fn bitwise_and_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> { return a & b; }
fn bitwise_or_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> { return a | b; }
fn bitwise_xor_bool(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> { return a ^ b; }
fn bitwise_invert_bool(a: vec4<u32>) -> vec4<u32> { return a ^ vec4<u32>(1u); }
fn bitwise_left_shift_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    let n = bitcast<vec4<u32>>(b);
    return select(a << (n & vec4<u32>(31u)), vec4<i32>(0), n >= vec4<u32>(32u));
}
fn bitwise_left_shift_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return select(a << (b & vec4<u32>(31u)), vec4<u32>(0u), b >= vec4<u32>(32u));
}
fn bitwise_right_shift_i32(a: vec4<i32>, b: vec4<i32>) -> vec4<i32> {
    let n = bitcast<vec4<u32>>(b);
    return a >> select(n, vec4<u32>(31u), n >= vec4<u32>(32u));
}
fn bitwise_right_shift_u32(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return select(a >> (b & vec4<u32>(31u)), vec4<u32>(0u), b >= vec4<u32>(32u));
}
