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
fn divide_f32(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> { return a / b; }

// Floor division and remainder with NumPy's signs: the remainder takes the divisor's sign, and
// an integer divided by 0 gives 0 (NumPy also warns). Floats as NumPy's divmod: from the exact
// fmod, the quotient (a - fmod) / b rounded to an integer, one step toward -inf where the
// remainder's sign is not b's; zeros signed as NumPy's. fmod is exact: long division of the
// integer significands, 8 bits of the exponent difference at a time.

fn copysign_zero(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0x80000000u);
}

// C's fmod(a, b): exact, with a's sign; NaN for b = 0, a NaN or an infinite a; a for an infinite b.
fn fmod1(a: f32, b: f32) -> f32 {
    let ua = bitcast<u32>(a) & 0x7fffffffu;
    let ub = bitcast<u32>(b) & 0x7fffffffu;
    if (ua >= 0x7f800000u || ub > 0x7f800000u || ub == 0u) {
        return bitcast<f32>(0x7fc00000u | (ua & 0u));  // NaN (built at run time: no NaN constant)
    }
    if (ua < ub) { return a; }  // |a| < |b|, or b infinite
    var ea = ua >> 23u;
    var ma = ua & 0x7fffffu;
    if (ea == 0u) { ea = 1u; } else { ma = ma | 0x800000u; }
    var eb = ub >> 23u;
    var mb = ub & 0x7fffffu;
    if (eb == 0u) { eb = 1u; } else { mb = mb | 0x800000u; }
    var r = ma % mb;
    var d = ea - eb;
    while (d > 0u && r != 0u) {
        let s = min(d, 8u);
        r = (r << s) % mb;
        d = d - s;
    }
    let value = ldexp(f32(r), i32(eb) - 150);
    return select(value, -value, (bitcast<u32>(a) & 0x80000000u) != 0u);
}

// (floor division, remainder) of one pair, as NumPy's npy_divmod
fn divmod1(a: f32, b: f32) -> vec2<f32> {
    let nan = bitcast<f32>(0x7fc00000u | (bitcast<u32>(a) & 0u));
    if (is_nan(a) || is_nan(b)) { return vec2<f32>(nan, nan); }  // (on the bits: compilers may assume no NaN)
    if (b == 0.0) { return vec2<f32>(a / b, nan); }
    if (!is_finite(a)) { return vec2<f32>(nan, nan); }
    var m = fmod1(a, b);
    var d = (a - m) / b;
    if (m != 0.0) {
        if ((b < 0.0) != (m < 0.0)) {
            m = m + b;
            d = d - 1.0;
        }
    } else {
        m = copysign_zero(b);
    }
    var q = copysign_zero(a / b);
    if (d != 0.0) {
        q = floor(d);
        if (d - q > 0.5) { q = q + 1.0; }
    }
    return vec2<f32>(q, m);
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
